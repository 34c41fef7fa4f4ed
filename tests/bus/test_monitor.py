"""Eavesdropping match rules, BecomeMonitor, and the monitoring tools
(dbus-monitor, busctl monitor, gdbus monitor)."""
import os
import select
import signal
import subprocess
import time

from rawdbus import check_reply, METHOD_CALL, METHOD_RETURN, SIGNAL, ERROR
from busfixture import config, read_line, SESSION_POLICY, Skip

MONITORING = 'org.freedesktop.DBus.Monitoring'


def exchange(bus, tag):
    """a calls b (method Call<tag>), b replies; a sends a unicast signal
    Uni<tag> to b and a broadcast Bcast<tag>."""
    a, b = bus.raw(), bus.raw()
    serial = a.send_call(b.unique_name, '/mon', 'org.mssf.Mon', 'Call' + tag,
                         's', ['call'])
    call = b.wait_for(lambda m: m.type == METHOD_CALL)
    b.reply(call, 's', ['reply' + tag])
    a.wait_for(lambda m: m.reply_serial == serial)
    a.signal('/mon', 'org.mssf.Mon', 'Uni' + tag, 's', ['u'],
             dest=b.unique_name)
    a.signal('/mon', 'org.mssf.Mon', 'Bcast' + tag, 's', ['b'])
    b.wait_for(lambda m: m.type == SIGNAL and m.member == 'Uni' + tag)
    return a, b, serial


def seen(conn, a, b, duration=0.5):
    """What conn saw of the exchange between a and b."""
    out = []
    for m in conn.collect(duration):
        if m.sender not in (a.unique_name, b.unique_name):
            continue
        if m.type == METHOD_RETURN:
            if m.body and str(m.body[0]).startswith('reply'):
                out.append('return:' + m.body[0])
        elif m.interface != 'org.mssf.Mon':
            continue
        else:
            out.append({METHOD_CALL: 'call:', SIGNAL: 'signal:',
                        ERROR: 'error:'}[m.type] + m.member)
    return sorted(out)


def test_eavesdrop_rule_sees_unicast(bus):
    spy = bus.raw()
    spy.add_match("eavesdrop=true,interface='org.mssf.Mon'")
    a, b, serial = exchange(bus, 'E')
    got = seen(spy, a, b)
    assert got == ['call:CallE', 'signal:BcastE', 'signal:UniE'], got


# The default test policy denies unrequested replies, and a reply is not
# requested by an eavesdropper; session.conf's policy lets it see them.
@config(policy=SESSION_POLICY)
def test_eavesdrop_rule_sees_replies(bus):
    spy = bus.raw()
    spy.add_match("eavesdrop=true,type='method_return'")
    a, b, serial = exchange(bus, 'R')
    got = seen(spy, a, b)
    assert got == ['return:replyR'], got


def test_no_eavesdrop_without_flag(bus):
    spy = bus.raw()
    spy.add_match("interface='org.mssf.Mon'")
    spy.add_match("type='method_return'")
    spy.add_match("type='method_call'")
    a, b, serial = exchange(bus, 'N')
    got = seen(spy, a, b)
    assert got == ['signal:BcastN'], got


def other_user():
    import pwd
    try:
        return pwd.getpwnam('nobody')
    except KeyError:
        raise Skip('no user nobody')


# session.conf's policy lets anyone eavesdrop as far as busconfig goes.
@config(policy=SESSION_POLICY)
def test_eavesdrop_match_needs_root_or_bus_uid(bus):
    """dbus-daemon (since 1.11.14) refuses AddMatch with eavesdrop='true'
    unless the caller is uid 0 or the bus's own uid, whatever the policy:
    otherwise any user could watch unicast traffic between others."""
    user = other_user()
    spy = bus.raw_as(user.pw_uid)
    for rule in ("eavesdrop='true'", "eavesdrop=true,interface='org.mssf.Mon'",
                 "type='method_call',eavesdrop='true'"):
        reply = spy.bus_call('AddMatch', 's', [rule])
        assert reply.error_name == 'org.freedesktop.DBus.Error.AccessDenied', \
            (rule, reply)
    # The same user's ordinary rules work; eavesdrop='false' is ordinary.
    spy.add_match("interface='org.mssf.Mon'")
    spy.add_match("interface='org.mssf.Mon',eavesdrop='false'")
    a, b, serial = exchange(bus, 'X')
    got = seen(spy, a, b)
    assert got == ['signal:BcastX'], got
    # Root (the bus's uid here) may.
    root_spy = bus.raw()
    root_spy.add_match("eavesdrop='true',interface='org.mssf.Mon'")


def become_monitor(bus, rules=()):
    mon = bus.raw()
    reply = mon.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                     MONITORING, 'BecomeMonitor', 'asu', [list(rules), 0])
    check_reply(reply)
    return mon


def test_become_monitor_sees_everything(bus):
    mon = become_monitor(bus)
    a, b, serial = exchange(bus, 'M')
    got = seen(mon, a, b)
    assert got == ['call:CallM', 'return:replyM', 'signal:BcastM',
                   'signal:UniM'], got


def test_monitor_sees_driver_traffic(bus):
    mon = become_monitor(bus)
    a = bus.raw()
    check_reply(a.bus_call('RequestName', 'su', ['org.mssf.Seen', 0]))
    got = mon.collect(0.5)
    assert any(m.type == METHOD_CALL and m.member == 'RequestName' and
               m.sender == a.unique_name for m in got), got
    assert any(m.type == SIGNAL and m.member == 'NameOwnerChanged' and
               m.body == ['org.mssf.Seen', '', a.unique_name]
               for m in got), got


def test_becoming_a_monitor_fails_calls_it_owed(bus):
    """dbus-daemon: a monitor may not answer, so the callers waiting for
    it get NoReply when it becomes one; its own pending calls are
    forgotten (a late answer to it is unrequested)."""
    a, b = bus.raw(), bus.raw()
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.Mon', 'Pending')
    b.wait_for(lambda m: m.type == METHOD_CALL)
    check_reply(b.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                       MONITORING, 'BecomeMonitor', 'asu', [[], 0]))
    reply = a.wait_for(lambda m: m.reply_serial == serial, 3)
    assert reply.type == ERROR and \
        reply.error_name == 'org.freedesktop.DBus.Error.NoReply', reply


def test_monitor_with_match_rules(bus):
    mon = become_monitor(bus, ["type='signal',member='BcastF'",
                               "type='method_call',member='CallF'"])
    a, b, serial = exchange(bus, 'F')
    got = seen(mon, a, b)
    assert got == ['call:CallF', 'signal:BcastF'], got


def test_monitor_leaves_bus_names(bus):
    w = bus.raw()
    w.add_match("type='signal',member='NameOwnerChanged'")
    mon = bus.raw()
    check_reply(mon.bus_call('RequestName', 'su', ['org.mssf.MonName', 0]))
    check_reply(mon.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                         MONITORING, 'BecomeMonitor', 'asu', [[], 0]))
    got = [m.body for m in w.collect(0.5) if m.type == SIGNAL]
    assert ['org.mssf.MonName', mon.unique_name, ''] in got, got
    assert [mon.unique_name, mon.unique_name, ''] in got, got
    names = check_reply(w.bus_call('ListNames')).body[0]
    assert mon.unique_name not in names and 'org.mssf.MonName' not in names
    lost = [m.body for m in mon.collect(0.2)
            if m.type == SIGNAL and m.member == 'NameLost']
    assert [mon.unique_name] in lost, lost


def test_monitor_that_sends_is_disconnected(bus):
    mon = become_monitor(bus)
    mon.send_call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                  'org.freedesktop.DBus', 'ListNames')
    assert mon.wait_closed(3), 'a monitor that sent a message is still on'


def test_become_monitor_bad_args(bus):
    a = bus.raw()
    reply = a.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                   MONITORING, 'BecomeMonitor', 'asu', [["type='bogus'"], 0])
    assert reply.type == ERROR and reply.error_name == \
        'org.freedesktop.DBus.Error.MatchRuleInvalid', reply
    reply = a.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                   MONITORING, 'BecomeMonitor', 'asu', [[], 1])
    assert reply.type == ERROR and reply.error_name == \
        'org.freedesktop.DBus.Error.InvalidArgs', reply
    # Still an ordinary client after the failed attempts.
    assert a.unique_name in check_reply(a.bus_call('ListNames')).body[0]


def run_monitor_tool(bus, argv, tag, ready_text):
    """Starts a monitoring tool and makes traffic until ready_text shows
    in its output (so a slow start cannot lose the exchange), then stops
    it; returns its whole output."""
    proc = bus.spawn(argv, stderr=subprocess.STDOUT)
    out = b''
    deadline = time.monotonic() + 10
    while ready_text.encode() not in out:
        assert time.monotonic() < deadline, out.decode(errors='replace')
        assert proc.poll() is None, out + proc.stdout.read()
        exchange(bus, tag)
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            out += os.read(proc.stdout.fileno(), 65536)
    exchange(bus, tag)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    try:
        rest, _ = proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        rest, _ = proc.communicate(timeout=5)
    return (out + rest).decode(errors='replace')


def test_dbus_monitor_tool(bus):
    out = run_monitor_tool(bus, ['dbus-monitor', '--address', bus.address],
                           'Tool', 'member=BcastTool')
    assert 'member=CallTool' in out, out
    assert 'member=UniTool' in out, out
    assert 'member=BcastTool' in out, out
    assert 'string "replyTool"' in out, out


def test_dbus_monitor_tool_filter(bus):
    out = run_monitor_tool(bus, ['dbus-monitor', '--address', bus.address,
                                 "type='signal',member='BcastTf'"], 'Tf',
                           'member=BcastTf')
    assert 'member=BcastTf' in out, out
    assert 'member=CallTf' not in out, out


def test_busctl_monitor(bus):
    out = run_monitor_tool(bus, ['busctl', '--address=' + bus.address,
                                 '--no-pager', 'monitor'], 'Busctl',
                           'Member=BcastBusctl')
    assert 'Member=CallBusctl' in out, out
    assert 'Member=BcastBusctl' in out, out
    assert 'Member=UniBusctl' in out, out


def test_gdbus_monitor(bus):
    proc, unique = bus.service('org.mssf.Test')
    mon = bus.spawn(['gdbus', 'monitor', '--address', bus.address,
                     '--dest', 'org.mssf.Test'], stderr=subprocess.STDOUT)
    # gdbus subscribes, then looks the owner up and says so: once it
    # names the owner, its match rule is in place.
    line = read_line(mon.stdout, 10, 'gdbus monitor')
    assert 'org.mssf.Test' in line, line
    line = read_line(mon.stdout, 10, 'gdbus monitor: the owner')
    assert 'is owned by ' + unique in line, line
    # GDBus also tracks the owner itself before it lets a signal through
    # its sender filter; emit until the signal shows (bounded).
    a = bus.raw()
    deadline = time.monotonic() + 10
    out = b''
    while b'Announced' not in out:
        assert time.monotonic() < deadline, out
        check_reply(a.call('org.mssf.Test', '/org/mssf/Test',
                           'org.mssf.Test', 'Emit', 'sss',
                           ['Announced', 'gdbus-sees-this', '']))
        ready, _, _ = select.select([mon.stdout], [], [], 0.3)
        if ready:
            out += os.read(mon.stdout.fileno(), 65536)
    line = [l for l in out.decode().splitlines() if 'Announced' in l][0]
    assert 'org.mssf.Test.Announced' in line and 'gdbus-sees-this' in line, \
        line
