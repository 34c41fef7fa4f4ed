"""Replies nobody is waiting for: a method return or error that takes no
pending call (a second reply, a reply to a NO_REPLY_EXPECTED call, a bare
one) is judged by busconfig as an unrequested reply, as dbus-daemon
judges it, so that clients written for dbus-daemon get the same answers:
delivered when an allow rule admits it (send_requested_reply="false", or
eavesdrop="true" rules as in session.conf), answered AccessDenied
otherwise (system.conf's defaults). A requested reply still arrives
exactly once."""
import rawdbus
from rawdbus import (check_reply, METHOD_CALL, METHOD_RETURN, ERROR,
                     NO_REPLY_EXPECTED)
from busfixture import config, DEFAULT_POLICY, SESSION_POLICY

DENIED = 'org.freedesktop.DBus.Error.AccessDenied'

# The fixture's policy, plus: replies nobody asked for may go to
# org.mssf.Taker (and be received from anyone).
TAKER_POLICY = DEFAULT_POLICY.replace('</policy>', '''
    <allow send_destination="org.mssf.Taker" send_type="method_return"
           send_requested_reply="false"/>
    <allow send_destination="org.mssf.Taker" send_type="error"
           send_requested_reply="false"/>
    <allow receive_type="method_return" receive_requested_reply="false"/>
    <allow receive_type="error" receive_requested_reply="false"/>
  </policy>''')


def is_reply_from(conn, type=None):
    return lambda m: m.type in (METHOD_RETURN, ERROR) and \
        m.sender == conn.unique_name and (type is None or m.type == type)


def bare(conn, type, dest, reply_serial, text):
    fields = {rawdbus.FIELD_REPLY_SERIAL: reply_serial,
              rawdbus.FIELD_DESTINATION: dest}
    if type == ERROR:
        fields[rawdbus.FIELD_ERROR_NAME] = 'org.mssf.Unasked'
    return conn.send(rawdbus.Message(type, 0, NO_REPLY_EXPECTED, fields, 's',
                                     [text]))


def unrequested_kinds(caller, callee):
    """callee sends caller a second reply, a reply to a NO_REPLY_EXPECTED
    call, and a bare return and error; returns their serials."""
    serial = caller.send_call(callee.unique_name, '/r', 'org.mssf.R', 'Ask')
    call = callee.wait_for(lambda m: m.type == METHOD_CALL)
    callee.reply(call, 's', ['first'])
    first = caller.wait_for(lambda m: m.reply_serial == serial)
    assert first.body == ['first'], first
    sent = [callee.reply(call, 's', ['second'])]
    caller.send_call(callee.unique_name, '/r', 'org.mssf.R', 'Tell',
                     flags=NO_REPLY_EXPECTED)
    told = callee.wait_for(lambda m: m.type == METHOD_CALL)
    sent.append(callee.reply(told, 's', ['unwanted']))
    sent.append(bare(callee, METHOD_RETURN, caller.unique_name, 4242, 'bare'))
    sent.append(bare(callee, ERROR, caller.unique_name, 4243, 'bare error'))
    return sent


@config(policy=SESSION_POLICY)
def test_session_policy_delivers_unrequested_replies(bus):
    caller, callee = bus.raw(), bus.raw()
    unrequested_kinds(caller, callee)
    got = [m.body[0] for m in caller.collect(0.5)
           if m.sender == callee.unique_name]
    assert got == ['second', 'unwanted', 'bare', 'bare error'], got
    callee.expect_nothing(lambda m: m.type == ERROR, 0.2)


def test_default_policy_answers_unrequested_replies_denied(bus):
    caller, callee = bus.raw(), bus.raw()
    sent = unrequested_kinds(caller, callee)
    errors = [callee.wait_for(lambda m, s=s: m.type == ERROR and
                              m.reply_serial == s) for s in sent]
    assert [e.error_name for e in errors] == [DENIED] * 4, errors
    assert all(e.sender == 'org.freedesktop.DBus' for e in errors), errors
    caller.expect_nothing(is_reply_from(callee), 0.3)


@config(policy=TAKER_POLICY)
def test_send_requested_reply_false_rule_admits(bus):
    taker, other, replier = bus.raw(), bus.raw(), bus.raw()
    check_reply(taker.bus_call('RequestName', 'su', ['org.mssf.Taker', 0]))
    bare(replier, METHOD_RETURN, taker.unique_name, 7, 'to taker')
    bare(replier, ERROR, taker.unique_name, 8, 'error to taker')
    got = [taker.wait_for(is_reply_from(replier)).body[0] for _ in range(2)]
    assert got == ['to taker', 'error to taker'], got
    # Not to anyone else.
    serial = bare(replier, METHOD_RETURN, other.unique_name, 9, 'to other')
    error = replier.wait_for(lambda m: m.reply_serial == serial)
    assert error.error_name == DENIED, error
    other.expect_nothing(is_reply_from(replier), 0.3)


@config(policy=SESSION_POLICY)
def test_requested_reply_still_arrives_once_per_call(bus):
    """Under a policy that lets unrequested replies through, the pending
    call is still consumed by its first reply: a reply to a call that timed
    out or was answered is unrequested, and NoReply never follows a reply."""
    caller, callee = bus.raw(), bus.raw()
    serial = caller.send_call(callee.unique_name, '/r', 'org.mssf.R', 'Ask')
    call = callee.wait_for(lambda m: m.type == METHOD_CALL)
    callee.error(call, 'org.mssf.Failed', 'no')
    reply = caller.wait_for(lambda m: m.reply_serial == serial)
    assert reply.type == ERROR and reply.error_name == 'org.mssf.Failed'
    caller.expect_nothing(lambda m: m.sender == 'org.freedesktop.DBus' and
                          m.type == ERROR, 0.3)


def observers(bus):
    """A root eavesdropper of every message and a monitor."""
    spy, mon = bus.raw(), bus.raw()
    spy.add_match("eavesdrop='true'")
    check_reply(mon.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                         'org.freedesktop.DBus.Monitoring', 'BecomeMonitor',
                         'asu', [[], 0]))
    return spy, mon


def replies_seen(conn, callee):
    return [m.body[0] for m in conn.collect(0.5)
            if m.sender == callee.unique_name and
            m.type in (METHOD_RETURN, ERROR)]


@config(policy=SESSION_POLICY)
def test_observers_see_unrequested_replies_delivered(bus):
    """Without MSSF mediation, as dbus-daemon: every reply the bus
    delivers is copied to eavesdroppers and monitors, a second one, one to
    a NO_REPLY_EXPECTED call and a bare one too."""
    spy, mon = observers(bus)
    caller, callee = bus.raw(), bus.raw()
    unrequested_kinds(caller, callee)
    for conn in (spy, mon):
        got = replies_seen(conn, callee)
        assert got == ['first', 'second', 'unwanted', 'bare',
                       'bare error'], (conn.unique_name, got)


def test_monitor_sees_unrequested_replies_refused(bus):
    """A monitor sees what the bus takes in before busconfig refuses it
    (dbus-daemon's bus_transaction_capture); an eavesdropper only what
    busconfig lets it receive, and the fixture's policy denies it every
    reply (a reply is never requested by its eavesdropper)."""
    spy, mon = observers(bus)
    caller, callee = bus.raw(), bus.raw()
    unrequested_kinds(caller, callee)
    got = replies_seen(spy, callee), replies_seen(mon, callee)
    assert got == ([], ['first', 'second', 'unwanted', 'bare',
                          'bare error']), got
