"""Credentials come from the kernel, per connection: a client running as
another user (nobody) is seen as that user, cannot claim to be root in
SASL, and is counted separately for max_connections_per_user."""
import os
import pwd
import subprocess

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
