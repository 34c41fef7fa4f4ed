"""Configuration reload by SIGHUP (and ReloadConfig): connections, names
and match rules survive; the new policy and limits apply; a broken file
leaves the old configuration in force; <listen> addresses are not
re-bound (as dbus-daemon)."""
import os
import signal
import time

from rawdbus import check_reply, METHOD_CALL, SIGNAL, ERROR
from busfixture import wait_until, DEFAULT_POLICY

DENY_POLICY = DEFAULT_POLICY.replace(
    '</policy>', '  <deny send_destination="org.mssf.Guarded"/>\n  </policy>')


def sighup(bus):
    bus.reload()
    time.sleep(0.3)


def call_guarded(a, b):
    """a calls org.mssf.Guarded (owned by b); the reply or error seen."""
    serial = a.send_call('org.mssf.Guarded', '/p', 'org.mssf.I', 'M')
    msgs = a.collect(0.3)
    for m in b.collect(0.2):
        if m.type == METHOD_CALL and m.member == 'M':
            b.reply(m, 's', ['through'])
    msgs += a.collect(0.3)
    replies = [m for m in msgs if m.reply_serial == serial]
    assert len(replies) == 1, msgs
    return replies[0]


def test_sighup_keeps_connections(bus):
    a, b = bus.raw(), bus.raw()
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Kept', 0]))
    a.add_match("type='signal',member='AfterReload'")
    sighup(bus)
    assert bus.alive()
    assert check_reply(a.bus_call('GetNameOwner', 's',
                                  ['org.mssf.Kept'])).body == [b.unique_name]
    serial = a.send_call('org.mssf.Kept', '/p', 'org.mssf.I', 'M')
    b.reply(b.wait_for(lambda m: m.type == METHOD_CALL), 's', ['still here'])
    assert a.wait_for(lambda m: m.reply_serial == serial).body == \
        ['still here']
    b.signal('/p', 'org.mssf.I', 'AfterReload', 's', ['x'])
    assert a.wait_for(lambda m: m.type == SIGNAL and
                      m.member == 'AfterReload')
    c = bus.raw()
    assert c.unique_name in check_reply(c.bus_call('ListNames')).body[0]


def test_sighup_applies_policy(bus):
    a, b = bus.raw(), bus.raw()
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Guarded', 0]))
    assert call_guarded(a, b).body == ['through']
    bus.policy = DENY_POLICY
    sighup(bus)

    def denied():
        reply = call_guarded(a, b)
        return reply.type == ERROR and reply.error_name == \
            'org.freedesktop.DBus.Error.AccessDenied'
    wait_until(denied, 5, 'the reloaded policy to deny')
    # And back.
    bus.policy = DEFAULT_POLICY
    sighup(bus)
    wait_until(lambda: call_guarded(a, b).body == ['through'], 5,
               'the policy to allow again')


def test_reload_config_method_applies_policy(bus):
    a, b = bus.raw(), bus.raw()
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Guarded', 0]))
    bus.policy = DENY_POLICY
    bus.write_config()
    check_reply(a.bus_call('ReloadConfig'))
    wait_until(lambda: call_guarded(a, b).type == ERROR, 5,
               'the reloaded policy to deny')
    assert call_guarded(a, b).error_name == \
        'org.freedesktop.DBus.Error.AccessDenied'


def test_sighup_broken_config_keeps_old(bus):
    a, b = bus.raw(), bus.raw()
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Guarded', 0]))
    bus.policy = DENY_POLICY
    sighup(bus)
    wait_until(lambda: call_guarded(a, b).type == ERROR, 5, 'deny')
    with open(bus.config_path, 'w') as f:
        f.write('<busconfig><policy context="default"><allow')
    bus.proc.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    assert bus.alive(), 'a broken config file killed the bus'
    # The previous configuration (with the deny) is still in force.
    assert call_guarded(a, b).error_name == \
        'org.freedesktop.DBus.Error.AccessDenied'
    c = bus.raw()
    assert check_reply(c.bus_call('GetId'))


def test_reload_config_method_broken_config(bus):
    a = bus.raw()
    with open(bus.config_path, 'w') as f:
        f.write('<busconfig><limit name="no_such_limit">1</limit>'
                '<bogus/></busconfig>')
    reply = a.bus_call('ReloadConfig')
    assert reply.type == ERROR, reply
    assert bus.alive()
    assert check_reply(a.bus_call('GetId'))


def test_sighup_applies_limits(bus):
    a = bus.raw()
    for i in range(3):
        check_reply(a.bus_call('AddMatch', 's', ["member='Before%d'" % i]))
    bus.limits['max_match_rules_per_connection'] = 4
    sighup(bus)
    b = bus.raw()
    results = [b.bus_call('AddMatch', 's', ["member='After%d'" % i])
               for i in range(5)]
    names = [r.error_name for r in results]
    assert names == [None] * 4 + ['org.freedesktop.DBus.Error.LimitsExceeded'
                                  ], names


def test_sighup_keeps_pending_replies_and_monitors(bus):
    a, b = bus.raw(), bus.raw()
    mon = bus.raw()
    check_reply(mon.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                         'org.freedesktop.DBus.Monitoring', 'BecomeMonitor',
                         'asu', [[], 0]))
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'Pending')
    call = b.wait_for(lambda m: m.type == METHOD_CALL)
    sighup(bus)
    b.reply(call, 's', ['after reload'])
    assert a.wait_for(lambda m: m.reply_serial == serial).body == \
        ['after reload']
    seen = [m for m in mon.collect(0.3) if m.reply_serial == serial]
    assert len(seen) == 1 and seen[0].body == ['after reload'], seen


LISTEN_WARNING = 'other <listen> addresses'


def test_reload_does_not_rebind_listen(bus):
    """dbus-daemon binds <listen> once: a reload that adds, drops or
    changes addresses keeps the bus where it started. mssf-broker does the
    same and logs one warning per such reload (dbus-daemon says nothing)."""
    a = bus.raw()
    original = list(bus.listen)
    bus.listen = ['unix:path=%s/moved' % bus.dir]
    sighup(bus)
    assert check_reply(a.bus_call('ReloadConfig')) is not None
    assert bus.alive()
    assert not os.path.exists(bus.dir + '/moved'), 'a reload bound <listen>'
    assert os.path.exists(bus.socket_path), 'a reload dropped a listener'
    c = bus.raw()
    assert check_reply(c.bus_call('GetId'))
    if not bus.options.is_reference:
        wait_until(lambda: bus.daemon_log().count(LISTEN_WARNING) == 2, 5,
                   'one warning per reload')
    # Back to what it listens on: no warning.
    bus.listen = original
    sighup(bus)
    check_reply(a.bus_call('ReloadConfig'))
    assert check_reply(bus.raw().bus_call('GetId'))
    if not bus.options.is_reference:
        assert bus.daemon_log().count(LISTEN_WARNING) == 2, bus.daemon_log()
