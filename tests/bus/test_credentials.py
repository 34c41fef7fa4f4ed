"""Credentials come from the kernel, per connection: a client running as
another user (nobody) is seen as that user, cannot claim to be root in
SASL, and is counted separately for max_connections_per_user."""
import ctypes
import grp
import os
import pwd
import subprocess

import rawdbus
from rawdbus import check_reply
from busfixture import config, read_line, DEFAULT_POLICY, HERE, PYTHON, Skip

UID_HEX = str(os.getuid()).encode().hex()


def nobody():
    if os.getuid() != 0:
        raise Skip('needs root to run a client as another user')
    try:
        return pwd.getpwnam('nobody')
    except KeyError:
        raise Skip('no user nobody')


def as_user(bus, user, argv):
    """Spawns argv as user (its own uid, gid, no supplementary groups)."""
    os.chmod(bus.dir, 0o755)

    def demote():
        os.setgroups([])
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)
    return bus.spawn(argv, preexec_fn=demote, stderr=subprocess.STDOUT)


def raw_as(bus, user, script):
    """Runs a rawdbus script as user; returns its output lines."""
    code = ('import sys; sys.path.insert(0, %r)\nimport rawdbus\n'
            'c = rawdbus.RawConnection(%r)\n' % (HERE, bus.address)) + script
    proc = as_user(bus, user, [PYTHON, '-c', code])
    out, _ = proc.communicate(timeout=10)
    return out.decode().split('\n')


def test_other_user_credentials(bus):
    user = nobody()
    proc = as_user(bus, user, [PYTHON, os.path.join(HERE, 'service.py'),
                               bus.address, 'org.mssf.Nobody'])
    line = read_line(proc.stdout, 10, 'service.py as nobody')
    assert line.startswith('READY '), line
    unique = line.split()[1]
    a = bus.raw()
    for name in (unique, 'org.mssf.Nobody'):
        assert check_reply(a.bus_call('GetConnectionUnixUser', 's',
                                      [name])).body == [user.pw_uid]
        assert check_reply(a.bus_call('GetConnectionUnixProcessID', 's',
                                      [name])).body == [proc.pid]
    creds = check_reply(a.bus_call('GetConnectionCredentials', 's',
                                   [unique])).body[0]
    assert creds['UnixUserID'] == ('u', user.pw_uid), creds
    assert creds['ProcessID'] == ('u', proc.pid), creds
    if 'UnixGroupIDs' in creds:
        assert creds['UnixGroupIDs'] == ('au', [user.pw_gid]), creds
    # And our own connection is still root's.
    assert check_reply(a.bus_call('GetConnectionUnixUser', 's',
                                  [a.unique_name])).body == [os.getuid()]


def test_cannot_claim_root(bus):
    user = nobody()
    out = raw_as(bus, user, '''
c.send_raw(b'\\0')
print(c.sasl_line('AUTH EXTERNAL %s'))
print(c.sasl_line('AUTH EXTERNAL %s'))
''' % (UID_HEX, str(user.pw_uid).encode().hex()))
    assert out[0].startswith('REJECTED'), out
    assert out[1].startswith('OK '), out


def test_external_without_uid_gets_own_uid(bus):
    user = nobody()
    out = raw_as(bus, user, '''
c.send_raw(b'\\0')
print(c.sasl_line('AUTH EXTERNAL'))
print(c.sasl_line('DATA'))
c.send_raw(b'BEGIN\\r\\n')
name = rawdbus.check_reply(c.bus_call('Hello')).body[0]
print(rawdbus.check_reply(c.bus_call('GetConnectionUnixUser', 's',
                                     [name])).body[0])
''')
    assert out[0] == 'DATA' and out[1].startswith('OK '), out
    assert out[2] == str(user.pw_uid), out


@config(limits={'max_connections_per_user': 2})
def test_connections_counted_per_user(bus):
    user = nobody()
    root_conn = bus.raw()
    out = raw_as(bus, user, '''
conns = []
for i in range(3):
    c = rawdbus.RawConnection(%r)
    try:
        print(c.connect())
        conns.append(c)
    except rawdbus.DBusError as e:
        print(e.name)
''' % bus.address)
    assert out[0].startswith(':') and out[1].startswith(':'), out
    assert out[2] == 'org.freedesktop.DBus.Error.LimitsExceeded', out
    # Root's connections are not nobody's: one more root client fits.
    second_root = bus.raw()
    assert check_reply(second_root.bus_call('GetId'))
    root_conn.close()
    second_root.close()


@config(policy=DEFAULT_POLICY + '<policy user="nobody"><deny '
        'send_destination="org.mssf.Guarded"/></policy>\n')
def test_user_policy_by_kernel_uid(bus):
    """A <policy user="nobody"> rule applies to nobody's connection only."""
    user = nobody()
    owner = bus.raw()
    check_reply(owner.bus_call('RequestName', 'su', ['org.mssf.Guarded', 0]))
    out = raw_as(bus, user, '''
c.connect()
r = c.call('org.mssf.Guarded', '/p', 'org.mssf.I', 'M', timeout=2)
print(r.error_name)
''')
    assert out[0] == 'org.freedesktop.DBus.Error.AccessDenied', out
    owner.expect_nothing(lambda m: m.member == 'M', 0.2)
    root = bus.raw()
    serial = root.send_call('org.mssf.Guarded', '/p', 'org.mssf.I', 'M')
    call = owner.wait_for(lambda m: m.member == 'M')
    owner.reply(call, 's', ['root may'])
    assert root.wait_for(lambda m: m.reply_serial == serial).body == \
        ['root may']


def unknown_uid():
    """A uid NSS has no passwd entry for."""
    for uid in range(4242, 5242):
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
    raise Skip('no free uid between 4242 and 5241')


def group_outside_nss(user):
    """A group that NSS does not list for user: its kernel groups may."""
    import grp
    mine = set(os.getgrouplist(user.pw_name, user.pw_gid))
    for name in ('video', 'audio', 'plugdev', 'users', 'staff'):
        try:
            gid = grp.getgrnam(name).gr_gid
        except KeyError:
            continue
        if gid not in mine:
            return name, gid
    raise Skip('no group outside %s\'s NSS groups' % user.pw_name)


def refused_at_connect(bus, uid, gid=None, groups=()):
    """True if the bus closes a connection of these kernel credentials
    after SASL (dbus-daemon's allow_unix_user check), as it does."""
    conn = bus.raw_as(uid, gid, groups, connect=False)
    conn.authenticate(uid=uid)
    try:
        reply = conn.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                          'org.freedesktop.DBus', 'Hello', timeout=3)
    except (rawdbus.Disconnected, BrokenPipeError, ConnectionResetError):
        return True
    check_reply(reply)
    return False


def test_uid_without_passwd_entry_refused(bus):
    """dbus-daemon asks NSS for the groups of a connecting uid and refuses
    the connection when there is no such user; root still connects."""
    uid = unknown_uid()
    assert refused_at_connect(bus, uid)
    assert refused_at_connect(bus, uid, groups=[0])
    assert not refused_at_connect(bus, nobody().pw_uid)
    assert check_reply(bus.raw().bus_call('GetId'))


def test_connect_group_rules_use_nss_groups(bus):
    """<deny group=> at connect judges the groups NSS gives the uid: a
    kernel group NSS does not list neither denies nor allows."""
    user = nobody()
    name, gid = group_outside_nss(user)
    primary = grp_name(user.pw_gid)
    bus.policy = DEFAULT_POLICY.replace('</policy>', '<deny group="%s"/>'
                                        '\n  </policy>' % name)
    apply_policy(bus)
    # Kernel group `name`, NSS knows nothing of it: allowed.
    assert not refused_at_connect(bus, user.pw_uid, user.pw_gid, [gid])
    # Denying nobody's NSS primary group refuses it whatever the kernel says.
    bus.policy = DEFAULT_POLICY.replace('</policy>', '<deny group="%s"/>'
                                        '\n  </policy>' % primary)
    apply_policy(bus)
    assert refused_at_connect(bus, user.pw_uid, gid, [gid])
    assert refused_at_connect(bus, user.pw_uid, user.pw_gid, [])


def test_policy_group_context_uses_kernel_groups(bus):
    """<policy group=> contexts (unlike the connect check) follow the
    connection's kernel groups, as dbus-daemon 1.14 reads SO_PEERGROUPS."""
    user = nobody()
    name, gid = group_outside_nss(user)
    bus.policy = DEFAULT_POLICY + ('<policy group="%s"><deny send_destination='
                                   '"org.mssf.Guarded"/></policy>\n' % name)
    apply_policy(bus)
    owner = bus.raw()
    check_reply(owner.bus_call('RequestName', 'su', ['org.mssf.Guarded', 0]))
    member = bus.raw_as(user.pw_uid, user.pw_gid, [gid])
    plain = bus.raw_as(user.pw_uid, user.pw_gid, [])
    reply = member.call('org.mssf.Guarded', '/p', 'org.mssf.I', 'M',
                        timeout=3)
    assert reply.error_name == 'org.freedesktop.DBus.Error.AccessDenied', \
        reply
    serial = plain.send_call('org.mssf.Guarded', '/p', 'org.mssf.I', 'M')
    call = owner.wait_for(lambda m: m.member == 'M')
    assert call.sender == plain.unique_name, call
    owner.reply(call, 's', ['ok'])
    assert plain.wait_for(lambda m: m.reply_serial == serial).body == ['ok']


def grp_name(gid):
    import grp
    return grp.getgrgid(gid).gr_name


def apply_policy(bus):
    """bus.policy in force now: ReloadConfig answers once it applied."""
    bus.write_config()
    check_reply(bus.raw().bus_call('ReloadConfig'))


def in_private_etc(bus):
    """This test's own /etc: a private mount namespace with a copy of /etc
    bound over it, and the daemon restarted inside, so that the test can
    change users and groups as an administrator would (groupadd, gpasswd)
    without touching the machine's."""
    if os.getuid() != 0:
        raise Skip('needs root for a mount namespace')
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x00020000) != 0:       # CLONE_NEWNS
        raise Skip('no mount namespace: %s' % os.strerror(ctypes.get_errno()))
    etc = os.path.join(bus.dir, 'etc')
    for argv in (['mount', '--make-rprivate', '/'], ['cp', '-a', '/etc', etc],
                 ['mount', '--bind', etc, '/etc']):
        subprocess.run(argv, check=True)
    bus.stop()
    bus.terminated, bus.terminate_problems = False, []
    bus.start()


def admin(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


GROUP = 'mssftestgrp'
DENIED_GROUP = DEFAULT_POLICY.replace('</policy>', '<deny group="%s"/>\n'
                                      '  </policy>' % GROUP)


def test_group_change_at_run_time_after_reload(bus):
    """A user added to a group while the bus runs, and taken out again:
    after ReloadConfig the next connection of that user is judged by its
    groups now, by both daemons (dbus-daemon keeps NSS's answers until a
    reload)."""
    in_private_etc(bus)
    user = nobody()
    admin('groupadd', GROUP)
    bus.policy = DENIED_GROUP
    apply_policy(bus)
    assert not refused_at_connect(bus, user.pw_uid, user.pw_gid, [])
    admin('gpasswd', '-a', user.pw_name, GROUP)
    apply_policy(bus)
    assert refused_at_connect(bus, user.pw_uid, user.pw_gid, [])
    admin('gpasswd', '-d', user.pw_name, GROUP)
    apply_policy(bus)
    assert not refused_at_connect(bus, user.pw_uid, user.pw_gid, [])


def test_group_change_at_run_time_seen_at_once(bus):
    """The same without a reload: mssf-broker remembers what NSS said only
    while /etc/passwd, /etc/group and nsswitch.conf stay as they were, so
    the very next connection sees the change, both ways, and a user
    removed is refused at once (one of /etc/passwd's own: systemd's NSS
    module makes nobody up whatever the files say)."""
    in_private_etc(bus)
    admin('groupadd', GROUP)
    admin('useradd', '--no-create-home', '--no-user-group', '--gid', GROUP,
          '--uid', '47110', 'mssftestuser')
    admin('groupadd', GROUP + '2')
    uid, gid = 47110, grp.getgrnam(GROUP).gr_gid
    bus.policy = DEFAULT_POLICY.replace('</policy>', '<deny group="%s2"/>\n'
                                        '  </policy>' % GROUP)
    apply_policy(bus)
    assert not refused_at_connect(bus, uid, gid, [])
    admin('gpasswd', '-a', 'mssftestuser', GROUP + '2')
    assert refused_at_connect(bus, uid, gid, [])
    admin('gpasswd', '-d', 'mssftestuser', GROUP + '2')
    assert not refused_at_connect(bus, uid, gid, [])
    admin('userdel', 'mssftestuser')
    assert refused_at_connect(bus, uid, gid, [])


def test_user_removed_at_run_time_refused_at_once(bus):
    """Without group rules only the user's existence is asked of NSS, and
    remembered the same way: a user removed is refused at its next
    connection, a user added accepted at its first."""
    in_private_etc(bus)
    admin('useradd', '--no-create-home', '--uid', '47111', 'mssftestuser2')
    uid, gid = 47111, grp.getgrnam('mssftestuser2').gr_gid
    assert not refused_at_connect(bus, uid, gid, [])
    admin('userdel', 'mssftestuser2')
    assert refused_at_connect(bus, uid, gid, [])
    admin('useradd', '--no-create-home', '--uid', '47111', 'mssftestuser2')
    assert not refused_at_connect(bus, uid, gid, [])
