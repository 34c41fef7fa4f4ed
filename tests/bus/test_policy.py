"""busconfig <policy> as dbus-daemon applies it: send, receive and own
rules, default/user/mandatory contexts, last match wins. A denied call is
answered AccessDenied and never reaches the receiver."""
import os
import pwd

from rawdbus import check_reply, METHOD_CALL, SIGNAL, ERROR
from busfixture import config, DEFAULT_POLICY, Skip

ME = pwd.getpwuid(os.getuid()).pw_name
DENIED = 'org.freedesktop.DBus.Error.AccessDenied'


def policy(default_extra='', contexts=''):
    return DEFAULT_POLICY.replace('</policy>', default_extra + '\n  </policy>'
                                  ) + contexts


def setup(bus, name='org.mssf.Guarded'):
    a, b = bus.raw(), bus.raw()
    if name:
        check_reply(b.bus_call('RequestName', 'su', [name, 0]))
    b.collect(0.05)
    return a, b


def attempt(a, b, dest='org.mssf.Guarded', path='/p', iface='org.mssf.I',
            member='M'):
    """a calls dest; b answers if it gets the call. Returns the error
    name a sees (None for the reply) and whether b got the call."""
    serial = a.send_call(dest, path, iface, member)
    got = [m for m in b.collect(0.3) if m.type == METHOD_CALL]
    for m in got:
        b.reply(m, 's', ['ok'])
    reply = a.wait_for(lambda m: m.reply_serial == serial, 3)
    return (reply.error_name if reply.type == ERROR else None), bool(got)


@config(policy=policy('<deny send_destination="org.mssf.Guarded"/>'))
def test_deny_send_destination(bus):
    a, b = setup(bus)
    assert attempt(a, b) == (DENIED, False)
    # Addressed by unique name it is still denied: send_destination is
    # matched against every name the receiver owns.
    assert attempt(a, b, dest=b.unique_name) == (DENIED, False)
    c = bus.raw()
    assert attempt(a, c, dest=c.unique_name) == (None, True)


@config(policy=policy('<deny send_destination="org.mssf.Guarded" '
                      'send_interface="org.mssf.Secret"/>'))
def test_deny_send_interface(bus):
    a, b = setup(bus)
    assert attempt(a, b, iface='org.mssf.Secret') == (DENIED, False)
    assert attempt(a, b, iface='org.mssf.Public') == (None, True)


@config(policy=policy('<deny send_destination="org.mssf.Guarded" '
                      'send_interface="org.mssf.I" send_member="Forbidden"/>'))
def test_deny_send_member(bus):
    a, b = setup(bus)
    assert attempt(a, b, member='Forbidden') == (DENIED, False)
    assert attempt(a, b, member='Allowed') == (None, True)


@config(policy=policy('<deny send_destination="org.mssf.Guarded" '
                      'send_path="/secret"/>'))
def test_deny_send_path(bus):
    a, b = setup(bus)
    assert attempt(a, b, path='/secret') == (DENIED, False)
    assert attempt(a, b, path='/public') == (None, True)


@config(policy=policy('<deny send_destination="org.mssf.Guarded"/>\n'
                      '<allow send_destination="org.mssf.Guarded" '
                      'send_interface="org.mssf.I" send_member="Exception"/>'))
def test_last_match_wins(bus):
    a, b = setup(bus)
    assert attempt(a, b, member='Other') == (DENIED, False)
    assert attempt(a, b, member='Exception') == (None, True)


@config(policy=policy('<deny own="org.mssf.NoOwn"/>\n'
                      '<deny own_prefix="org.mssf.Prefix"/>'))
def test_deny_own(bus):
    a = bus.raw()
    for name in ('org.mssf.NoOwn', 'org.mssf.Prefix', 'org.mssf.Prefix.Sub'):
        reply = a.bus_call('RequestName', 'su', [name, 0])
        assert reply.type == ERROR and reply.error_name == DENIED, \
            (name, reply)
    for name in ('org.mssf.NoOwnX', 'org.mssf.PrefixX'):
        check_reply(a.bus_call('RequestName', 'su', [name, 0]))


@config(policy=policy('<deny receive_sender="org.mssf.Shunned"/>'))
def test_deny_receive_sender(bus):
    shunned, b = setup(bus, None)
    check_reply(shunned.bus_call('RequestName', 'su', ['org.mssf.Shunned',
                                                       0]))
    assert attempt(shunned, b, dest=b.unique_name) == (DENIED, False)
    other = bus.raw()
    assert attempt(other, b, dest=b.unique_name) == (None, True)


@config(policy=policy('<deny send_interface="org.mssf.Hush" '
                      'send_type="signal"/>'))
def test_deny_signal(bus):
    a, listener = bus.raw(), bus.raw()
    listener.add_match("type='signal',path='/sig'")
    a.signal('/sig', 'org.mssf.Hush', 'Quiet', 's', ['no'])
    a.signal('/sig', 'org.mssf.Loud', 'Heard', 's', ['yes'])
    got = [m.member for m in listener.collect(0.4) if m.type == SIGNAL and
           m.sender == a.unique_name]
    assert got == ['Heard'], got


@config(policy=policy(contexts='<policy user="%s"><deny send_destination='
                      '"org.mssf.Guarded"/></policy>\n' % ME))
def test_user_context_applies(bus):
    a, b = setup(bus)
    assert attempt(a, b) == (DENIED, False)


@config(policy=policy(contexts='<policy user="nobody"><deny '
                      'send_destination="org.mssf.Guarded"/></policy>\n'))
def test_other_user_context_ignored(bus):
    a, b = setup(bus)
    assert attempt(a, b) == (None, True)


@config(policy=policy(contexts='<policy user="%s"><allow send_destination='
                      '"org.mssf.Guarded"/></policy>\n<policy context='
                      '"mandatory"><deny send_destination="org.mssf.Guarded"'
                      '/></policy>\n' % ME))
def test_mandatory_overrides_user(bus):
    a, b = setup(bus)
    assert attempt(a, b) == (DENIED, False)


@config(policy=policy('<deny send_destination="org.mssf.Guarded"/>',
                      contexts='<policy user="%s"><allow send_destination='
                      '"org.mssf.Guarded"/></policy>\n' % ME))
def test_user_overrides_default(bus):
    a, b = setup(bus)
    assert attempt(a, b) == (None, True)


@config(policy=policy('<deny send_destination="org.mssf.Guarded"/>'))
def test_driver_always_reachable(bus):
    # A deny on another name never blocks the driver or replies to it.
    a, b = setup(bus)
    assert check_reply(a.bus_call('GetNameOwner', 's',
                                  ['org.mssf.Guarded'])).body == \
        [b.unique_name]


def system_conf_policies():
    """The <policy> elements of the installed system.conf, as text."""
    import xml.etree.ElementTree as ET
    path = '/usr/share/dbus-1/system.conf'
    if not os.path.exists(path):
        return None
    root = ET.parse(path).getroot()
    return ''.join(ET.tostring(p, encoding='unicode')
                   for p in root.findall('policy'))


SYSTEM_D = ('<policy user="%s"><allow own="org.mssf.Svc"/>'
            '<allow send_destination="org.mssf.Svc"/></policy>\n' % ME)


@config(policy=(system_conf_policies() or DEFAULT_POLICY) + SYSTEM_D)
def test_system_conf_policy(bus):
    """The distribution's system.conf policy plus a system.d-style hole:
    method calls and names are closed unless punched through; signals,
    requested replies and the bus driver stay open."""
    if system_conf_policies() is None:
        raise Skip('no /usr/share/dbus-1/system.conf')
    a, b, listener = bus.raw(), bus.raw(), bus.raw()
    # Names: closed, except the one the snippet opens.
    reply = b.bus_call('RequestName', 'su', ['org.mssf.Other', 0])
    assert reply.type == ERROR and reply.error_name == DENIED, reply
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Svc', 0]))
    # Calls: closed by default, open through the hole (which matches the
    # owner under any of its names); the requested reply comes back.
    c = bus.raw()
    assert attempt(a, c, dest=c.unique_name) == (DENIED, False)
    assert attempt(a, b, dest='org.mssf.Svc') == (None, True)
    assert attempt(a, b, dest=b.unique_name) == (None, True)
    # Signals are open.
    listener.add_match("type='signal',interface='org.mssf.Sys'")
    b.signal('/s', 'org.mssf.Sys', 'Up', 's', ['up'])
    assert listener.wait_for(lambda m: m.type == SIGNAL and
                             m.member == 'Up').sender == b.unique_name
    # The driver is open, but UpdateActivationEnvironment is not.
    assert check_reply(a.bus_call('ListNames'))
    reply = a.bus_call('UpdateActivationEnvironment', 'a{ss}', [{'X': 'y'}])
    assert reply.type == ERROR and reply.error_name == DENIED, reply
