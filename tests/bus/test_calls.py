"""Method calls through the bus: routing by unique and well-known name,
replies and errors, reply tracking (unexpected replies dropped, one reply
per call), NoReply on disconnect and on timeout, NO_REPLY_EXPECTED."""
import time

import rawdbus
from rawdbus import (check_reply, METHOD_CALL, METHOD_RETURN, ERROR,
                     NO_REPLY_EXPECTED, NO_AUTO_START)
from busfixture import config, wait_until

TPATH, TIFACE = '/org/mssf/Test', 'org.mssf.Test'


def is_call(member):
    return lambda m: m.type == METHOD_CALL and m.member == member


def is_reply(serial):
    return lambda m: m.type in (METHOD_RETURN, ERROR) and \
        m.reply_serial == serial


def test_call_by_well_known_name(bus):
    proc, unique = bus.service('org.mssf.Test')
    a = bus.raw()
    reply = check_reply(a.call('org.mssf.Test', TPATH, TIFACE, 'Echo', 's',
                               ['hello']))
    assert reply.body == ['hello']
    # The reply comes from the owner's unique name, to the caller.
    assert reply.sender == unique, reply
    assert reply.destination == a.unique_name, reply


def test_call_by_unique_name(bus):
    proc, unique = bus.service('org.mssf.Test')
    a = bus.raw()
    reply = check_reply(a.call(unique, TPATH, TIFACE, 'Echo', 's', ['hi']))
    assert reply.body == ['hi'] and reply.sender == unique


def test_callee_sees_caller(bus):
    a, b = bus.raw(), bus.raw()
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Callee', 0]))
    serial = a.send_call('org.mssf.Callee', '/p', 'org.mssf.I', 'M', 'su',
                         ['x', 7])
    call = b.wait_for(is_call('M'))
    assert call.sender == a.unique_name, call
    assert call.destination == 'org.mssf.Callee', call
    assert call.path == '/p' and call.interface == 'org.mssf.I'
    assert call.body == ['x', 7] and call.serial == serial
    b.reply(call, 's', ['answer'])
    reply = a.wait_for(is_reply(serial))
    assert reply.type == METHOD_RETURN and reply.body == ['answer']
    assert reply.sender == b.unique_name


def test_error_delivered(bus):
    proc, unique = bus.service('org.mssf.Test')
    a = bus.raw()
    reply = a.call('org.mssf.Test', TPATH, TIFACE, 'Fail', 'ss',
                   ['org.mssf.Test.Error.Custom', 'custom text'])
    assert reply.type == ERROR, reply
    assert reply.error_name == 'org.mssf.Test.Error.Custom'
    assert reply.body == ['custom text'] and reply.sender == unique


def test_call_to_missing_name(bus):
    a = bus.raw()
    reply = a.call('org.mssf.Nobody', TPATH, TIFACE, 'Echo', 's', ['x'])
    assert reply.type == ERROR and reply.error_name == \
        'org.freedesktop.DBus.Error.ServiceUnknown', reply
    assert reply.sender == 'org.freedesktop.DBus'
    reply = a.call('org.mssf.Nobody', TPATH, TIFACE, 'Echo', 's', ['x'],
                   flags=NO_AUTO_START)
    assert reply.type == ERROR and reply.error_name == \
        'org.freedesktop.DBus.Error.NameHasNoOwner', reply


def test_call_to_missing_unique_name(bus):
    a, b = bus.raw(), bus.raw()
    gone = b.unique_name
    b.close()
    wait_until(lambda: not check_reply(a.bus_call(
        'NameHasOwner', 's', [gone])).body[0], what='b gone')
    reply = a.call(gone, TPATH, TIFACE, 'Echo', 's', ['x'])
    assert reply.type == ERROR and reply.error_name == \
        'org.freedesktop.DBus.Error.ServiceUnknown', reply


def test_call_to_self(bus):
    a = bus.raw()
    serial = a.send_call(a.unique_name, '/self', 'org.mssf.I', 'Me')
    call = a.wait_for(is_call('Me'))
    assert call.sender == a.unique_name
    a.reply(call, 's', ['me'])
    assert a.wait_for(is_reply(serial)).body == ['me']


def test_unexpected_reply_dropped(bus):
    a, b = bus.raw(), bus.raw()
    # b never called a: a return and an error aimed at b are dropped.
    a.send(rawdbus.Message(METHOD_RETURN, 0, NO_REPLY_EXPECTED, {
        rawdbus.FIELD_REPLY_SERIAL: 1, rawdbus.FIELD_DESTINATION:
        b.unique_name}, 's', ['unasked']))
    a.send(rawdbus.Message(ERROR, 0, NO_REPLY_EXPECTED, {
        rawdbus.FIELD_REPLY_SERIAL: 1, rawdbus.FIELD_DESTINATION:
        b.unique_name, rawdbus.FIELD_ERROR_NAME: 'org.mssf.Unasked'},
        's', ['unasked']))
    b.expect_nothing(lambda m: m.type in (METHOD_RETURN, ERROR)
                     and m.sender == a.unique_name, 0.5)
    # Both still work normally afterwards.
    serial = b.send_call(a.unique_name, '/p', 'org.mssf.I', 'M')
    a.reply(a.wait_for(is_call('M')), 's', ['asked'])
    assert b.wait_for(is_reply(serial)).body == ['asked']


def test_reply_only_once(bus):
    a, b = bus.raw(), bus.raw()
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M')
    call = b.wait_for(is_call('M'))
    b.reply(call, 's', ['first'])
    b.reply(call, 's', ['second'])
    b.error(call, 'org.mssf.Late', 'third')
    assert a.wait_for(is_reply(serial)).body == ['first']
    a.expect_nothing(is_reply(serial), 0.5)


def test_reply_from_third_party_dropped(bus):
    a, b, c = bus.raw(), bus.raw(), bus.raw()
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M')
    call = b.wait_for(is_call('M'))
    # c forges the reply to a's pending call to b.
    c.send(rawdbus.Message(METHOD_RETURN, 0, NO_REPLY_EXPECTED, {
        rawdbus.FIELD_REPLY_SERIAL: serial,
        rawdbus.FIELD_DESTINATION: a.unique_name}, 's', ['forged']))
    a.expect_nothing(is_reply(serial), 0.4)
    b.reply(call, 's', ['genuine'])
    reply = a.wait_for(is_reply(serial))
    assert reply.body == ['genuine'] and reply.sender == b.unique_name


def test_no_reply_when_callee_disconnects(bus):
    a, b = bus.raw(), bus.raw()
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M')
    b.wait_for(is_call('M'))
    b.close()
    reply = a.wait_for(is_reply(serial), 5)
    assert reply.type == ERROR, reply
    assert reply.error_name == 'org.freedesktop.DBus.Error.NoReply', reply
    assert reply.sender == 'org.freedesktop.DBus', reply


def test_no_reply_when_service_exits(bus):
    proc, unique = bus.service('org.mssf.Test')
    a = bus.raw()
    serial = a.send_call('org.mssf.Test', TPATH, TIFACE, 'Hang')
    a.expect_nothing(is_reply(serial), 0.3)
    proc.kill()
    reply = a.wait_for(is_reply(serial), 5)
    assert reply.type == ERROR and reply.error_name == \
        'org.freedesktop.DBus.Error.NoReply', reply


@config(limits={'reply_timeout': 500})
def test_reply_timeout(bus):
    a, b = bus.raw(), bus.raw()
    start = time.monotonic()
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M')
    call = b.wait_for(is_call('M'))
    reply = a.wait_for(is_reply(serial), 5)
    elapsed = time.monotonic() - start
    assert reply.type == ERROR and reply.error_name == \
        'org.freedesktop.DBus.Error.NoReply', reply
    # dbus-daemon's words: clients (and its own test suite) compare them.
    assert reply.body == [
        'Message did not receive a reply (timeout by message bus)'], reply
    assert reply.sender == 'org.freedesktop.DBus', reply
    assert 0.4 <= elapsed < 4, elapsed
    # The late reply is no longer expected: unrequested, and the fixture's
    # policy (as system.conf) refuses those: b hears AccessDenied.
    late = b.reply(call, 's', ['late'])
    a.expect_nothing(is_reply(serial), 0.4)
    assert b.wait_for(lambda m: m.reply_serial == late).error_name == \
        'org.freedesktop.DBus.Error.AccessDenied'



@config(limits={'reply_timeout': 3000})
def test_reply_within_timeout(bus):
    proc, unique = bus.service('org.mssf.Test')
    a = bus.raw()
    reply = check_reply(a.call('org.mssf.Test', TPATH, TIFACE, 'Sleep', 'u',
                               [500]))
    assert reply.body == ['slept']


def test_no_reply_expected(bus):
    a, b = bus.raw(), bus.raw()
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M',
                         flags=NO_REPLY_EXPECTED)
    call = b.wait_for(is_call('M'))
    assert call.flags & NO_REPLY_EXPECTED
    # Even if the callee answers, nobody asked: the answer is dropped.
    b.reply(call, 's', ['unwanted'])
    a.expect_nothing(is_reply(serial), 0.4)


def test_no_reply_expected_to_service(bus):
    proc, unique = bus.service('org.mssf.Test')
    a = bus.raw()
    serial = a.send_call('org.mssf.Test', TPATH, TIFACE, 'Echo', 's', ['x'],
                         flags=NO_REPLY_EXPECTED)
    wait_until(lambda: check_reply(a.call(
        'org.mssf.Test', TPATH, TIFACE, 'Calls')).body == [1],
        what='the call to be delivered')
    a.expect_nothing(is_reply(serial), 0.2)


def test_no_reply_expected_to_driver(bus):
    a = bus.raw()
    a.send_call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                'org.freedesktop.DBus', 'RequestName', 'su',
                ['org.mssf.Quiet', 0], flags=NO_REPLY_EXPECTED)
    # The driver acts on it (the spec lets it send or omit the reply).
    assert check_reply(a.bus_call('GetNameOwner', 's',
                                  ['org.mssf.Quiet'])).body == \
        [a.unique_name]


def test_large_message(bus):
    proc, unique = bus.service('org.mssf.Test')
    a = bus.raw()
    text = 'x' * (1024 * 1024)
    reply = check_reply(a.call('org.mssf.Test', TPATH, TIFACE, 'Echo', 's',
                               [text], timeout=10))
    assert reply.body == [text]


def test_many_pending_calls_in_order(bus):
    a, b = bus.raw(), bus.raw()
    serials = [a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M', 'u', [i])
               for i in range(100)]
    calls = [b.wait_for(is_call('M')) for _ in range(100)]
    assert [c.body[0] for c in calls] == list(range(100))
    for call in reversed(calls):
        b.reply(call, 'u', [call.body[0]])
    for i, serial in enumerate(serials):
        assert a.wait_for(is_reply(serial)).body == [i]


def test_order_kept_per_sender(bus):
    """Calls and signals from one sender arrive in the order sent."""
    a, b = bus.raw(), bus.raw()
    b.add_match("type='signal',interface='org.mssf.Order'")
    for i in range(200):
        if i % 3:
            a.send_call(b.unique_name, '/p', 'org.mssf.Order', 'Call', 'u',
                        [i], flags=NO_REPLY_EXPECTED)
        else:
            a.signal('/p', 'org.mssf.Order', 'Sig', 'u', [i],
                     dest=b.unique_name if i % 2 else None)
    got = []
    while len(got) < 200:
        m = b.wait_for(lambda m: m.interface == 'org.mssf.Order')
        got.append(m.body[0])
    assert got == list(range(200)), got


def test_caller_gone_before_reply(bus):
    a, b = bus.raw(), bus.raw()
    a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M')
    call = b.wait_for(is_call('M'))
    a.close()
    wait_until(lambda: not check_reply(b.bus_call(
        'NameHasOwner', 's', [call.sender])).body[0], what='caller gone')
    b.reply(call, 's', ['too late'])
    # The reply has nowhere to go (dbus-daemon answers it with
    # ServiceUnknown); b stays connected and carries on.
    b.collect(0.3)
    assert not b.closed
    assert check_reply(b.bus_call('GetId'))


def test_call_without_destination(bus):
    """A method call with no destination is for the bus itself, not a
    broadcast: the caller gets an error reply (dbus-daemon answers
    UnknownMethod), and no other client sees the call."""
    a, w = bus.raw(), bus.raw()
    w.add_match("type='method_call'")
    serial = a.send_call(None, '/org/mssf/Nowhere', 'org.mssf.I', 'Lost')
    reply = a.wait_for(is_reply(serial), 3)
    assert reply.type == ERROR and reply.error_name == \
        'org.freedesktop.DBus.Error.UnknownMethod', reply
    w.expect_nothing(is_call('Lost'), 0.3)
