"""The busconfig <limit>s, with the answers dbus-daemon gives when one is
reached: LimitsExceeded errors, disconnection for an oversized message;
and, unlike dbus-daemon, no backpressure from max_incoming_bytes (a
receiver that never reads must not stall its senders; test_flow.py)."""
import os
import socket
import time

import rawdbus
from rawdbus import check_reply, METHOD_CALL, ERROR, SIGNAL
from busfixture import config

LIMITS_EXCEEDED = 'org.freedesktop.DBus.Error.LimitsExceeded'


def error_name(reply):
    return reply.error_name if reply.type == ERROR else None


# dbus-daemon counts the unique name among a connection's names.
@config(limits={'max_names_per_connection': 3})
def test_max_names_per_connection(bus):
    a, b = bus.raw(), bus.raw()
    results = [error_name(a.bus_call('RequestName', 'su',
                                     ['org.mssf.N%d' % i, 0]))
               for i in range(4)]
    assert results == [None, None, LIMITS_EXCEEDED, LIMITS_EXCEEDED], results
    # Releasing one makes room again; other connections are not limited
    # by a's names.
    check_reply(a.bus_call('ReleaseName', 's', ['org.mssf.N0']))
    assert error_name(a.bus_call('RequestName', 'su',
                                 ['org.mssf.N3', 0])) is None
    assert error_name(b.bus_call('RequestName', 'su',
                                 ['org.mssf.B0', 0])) is None


@config(limits={'max_match_rules_per_connection': 3})
def test_max_match_rules_per_connection(bus):
    a, b = bus.raw(), bus.raw()
    results = [error_name(a.bus_call('AddMatch', 's', ["member='M%d'" % i]))
               for i in range(4)]
    assert results == [None, None, None, LIMITS_EXCEEDED], results
    check_reply(a.bus_call('RemoveMatch', 's', ["member='M0'"]))
    assert error_name(a.bus_call('AddMatch', 's', ["member='M3'"])) is None
    assert error_name(b.bus_call('AddMatch', 's', ["member='B0'"])) is None
    # The rules that were accepted still work.
    b.signal('/p', 'org.mssf.I', 'M3', 's', ['x'])
    assert a.wait_for(lambda m: m.type == SIGNAL and m.member == 'M3')


@config(limits={'max_replies_per_connection': 3})
def test_max_replies_per_connection(bus):
    a, b = bus.raw(), bus.raw()
    serials = [a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M', 'u', [i])
               for i in range(4)]
    errors = [m for m in a.collect(0.4) if m.type == ERROR]
    assert [(m.error_name, m.reply_serial) for m in errors] == \
        [(LIMITS_EXCEEDED, serials[3])], errors
    calls = [m for m in b.collect(0.2) if m.type == METHOD_CALL]
    assert [m.body for m in calls] == [[0], [1], [2]], calls
    # Answering one frees a slot.
    b.reply(calls[0], 's', ['done'])
    assert a.wait_for(lambda m: m.reply_serial == serials[0]).body == \
        ['done']
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M', 'u', [4])
    assert b.wait_for(lambda m: m.type == METHOD_CALL).body == [4]
    a.expect_nothing(lambda m: m.reply_serial == serial, 0.2)


@config(limits={'max_message_size': 4096})
def test_max_message_size(bus):
    a, b = bus.raw(), bus.raw()
    # Just under the limit passes.
    a.send_call(b.unique_name, '/p', 'org.mssf.I', 'Fits', 's', ['x' * 3500])
    call = b.wait_for(lambda m: m.type == METHOD_CALL)
    assert call.member == 'Fits'
    # Over it: the sender is disconnected, the receiver sees nothing.
    a.send_call(b.unique_name, '/p', 'org.mssf.I', 'TooBig', 's',
                ['x' * 5000])
    assert a.wait_closed(3), 'an oversized message did not disconnect'
    b.expect_nothing(lambda m: m.type == METHOD_CALL, 0.3)
    assert check_reply(b.bus_call('GetId'))


@config(limits={'max_connections_per_user': 3})
def test_max_connections_per_user(bus):
    conns = [bus.raw() for _ in range(3)]
    extra = bus.raw(connect=False)
    try:
        extra.connect()
        refused = None
    except rawdbus.DBusError as e:
        refused = e.name
    except rawdbus.Disconnected:
        refused = 'disconnected'
    assert refused == LIMITS_EXCEEDED, refused
    # The ones that got in still work; closing one lets a new one in.
    assert check_reply(conns[0].bus_call('GetId'))
    conns[1].close()
    deadline = time.monotonic() + 3
    while True:
        late = bus.raw(connect=False)
        try:
            late.connect()
            break
        except (rawdbus.DBusError, rawdbus.Disconnected):
            assert time.monotonic() < deadline, 'no room after a close'
            time.sleep(0.05)
    assert late.unique_name
    for c in conns + [late]:
        c.close()


@config(limits={'max_incoming_bytes': 65536, 'max_outgoing_bytes': 1 << 20,
                'max_message_size': 32768})
def test_max_incoming_bytes_does_not_slow_the_sender(bus):
    """A sender flooding a receiver that does not read is not slowed down
    (dbus-daemon stops reading it once max_incoming_bytes of its messages
    wait, which stalls its deliveries to everybody, so one receiver that
    never reads would silence it for all): what does not fit the
    receiver's queue (max_outgoing_bytes) is refused with LimitsExceeded,
    everybody else still gets answers, and what was queued arrives, in
    order, once the receiver reads."""
    receiver, sender, other = bus.raw(), bus.raw(), bus.raw()
    receiver.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    payload = 'p' * 16000
    total = 200                       # 3.2 MB for a 1 MB queue
    serials = []
    sender.sock.settimeout(10)
    for i in range(total):
        serials.append(sender.send(rawdbus.Message(SIGNAL, 0, 0, {
            rawdbus.FIELD_PATH: '/flood', rawdbus.FIELD_INTERFACE:
            'org.mssf.Flood', rawdbus.FIELD_MEMBER: 'Chunk',
            rawdbus.FIELD_DESTINATION: receiver.unique_name}, 'us',
            [i, payload])))
    # The bus took all 3.2 MB from the sender, far beyond
    # max_incoming_bytes: it kept reading it. It still answers it, and others.
    assert check_reply(sender.bus_call('GetId', timeout=3))
    assert other.unique_name in check_reply(other.bus_call('ListNames',
                                                           timeout=3)).body[0]
    refused = set(m.reply_serial for m in sender.collect(0.5)
                  if m.type == ERROR and m.error_name == LIMITS_EXCEEDED)
    assert 0 < len(refused) < total, len(refused)
    receiver.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    seen = []
    while len(seen) + len(refused) < total:
        m = receiver.wait_for(lambda m: m.type == SIGNAL and
                              m.member == 'Chunk', 10)
        seen.append(m.body[0])
    assert seen == [i for i, s in enumerate(serials) if s not in refused]


@config(limits={'auth_timeout': 500})
def test_auth_timeout(bus):
    good = bus.raw()
    silent = bus.raw(connect=False)
    start = time.monotonic()
    assert silent.wait_closed(4), 'a client that never authenticated stays'
    assert 0.3 < time.monotonic() - start < 4
    # A client that authenticated in time is not affected.
    time.sleep(0.6)
    assert check_reply(good.bus_call('GetId'))


@config(limits={'max_incomplete_connections': 2})
def test_max_incomplete_connections(bus):
    uid = str(os.getuid()).encode().hex()
    pending = [bus.raw(connect=False) for _ in range(3)]
    time.sleep(0.2)
    answers = []
    for conn in pending:
        try:
            conn.send_raw(b'\0')
            answers.append(conn.sasl_line('AUTH EXTERNAL ' + uid,
                                          timeout=1)[:2])
        except (rawdbus.Disconnected, BrokenPipeError, ConnectionResetError):
            answers.append('closed')
    assert answers == ['OK', 'OK', 'closed'], answers
    for conn in pending:
        conn.close()


@config(limits={'max_message_unix_fds': 4})
def test_max_message_unix_fds(bus):
    a, b = bus.raw(unix_fd=True), bus.raw(unix_fd=True)
    fds = [os.open('/dev/null', os.O_RDONLY) for _ in range(5)]
    try:
        a.send_call(b.unique_name, '/p', 'org.mssf.I', 'Four', 'hhhh',
                    [0, 1, 2, 3], fds=fds[:4])
        call = b.wait_for(lambda m: m.type == METHOD_CALL)
        assert len(call.fds) == 4, call
        a.send_call(b.unique_name, '/p', 'org.mssf.I', 'Five', 'hhhhh',
                    [0, 1, 2, 3, 4], fds=fds)
    finally:
        for fd in fds:
            os.close(fd)
    assert a.wait_closed(3), 'a message with too many fds was accepted'
    b.expect_nothing(lambda m: m.type == METHOD_CALL, 0.3)


@config(limits={'max_outgoing_bytes': 100000})
def test_max_outgoing_bytes(bus):
    """Calls to a receiver whose queue is full are refused with
    LimitsExceeded; the receiver stays and gets every call not refused."""
    stuck, sender = bus.raw(), bus.raw()
    stuck.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    serials = [sender.send_call(stuck.unique_name, '/p', 'org.mssf.I', 'M',
                                'us', [i, 'x' * 10000]) for i in range(200)]
    refused = {}
    deadline = time.monotonic() + 5
    for m in sender.collect(1.0):
        if m.type == ERROR:
            refused[m.reply_serial] = m.error_name
    assert set(refused.values()) == {LIMITS_EXCEEDED}, refused
    assert len(refused) >= 100, '%d of 200 refused' % len(refused)
    delivered = []
    while len(delivered) + len(refused) < 200:
        assert time.monotonic() < deadline, (len(delivered), len(refused))
        m = stuck.wait_for(lambda m: m.type == METHOD_CALL, 5)
        delivered.append(m.body[0])
    expected = [i for i, s in enumerate(serials) if s not in refused]
    assert delivered == expected, (delivered[:10], expected[:10])
    assert not stuck.closed


def partial_call_with_fd(a, dest, member):
    """The bytes of a call carrying one fd, split after the fixed header:
    (first part, sent with the fd; rest)."""
    r, w = os.pipe()
    os.close(w)
    msg = rawdbus.Message(METHOD_CALL, a.next_serial(), 0, {
        rawdbus.FIELD_PATH: '/p', rawdbus.FIELD_INTERFACE: 'org.mssf.I',
        rawdbus.FIELD_MEMBER: member, rawdbus.FIELD_DESTINATION: dest},
        'h', [0], fds=[r])
    data = msg.marshal()
    a.send_raw(data[:16], [r])
    os.close(r)
    return data[16:]


@config(limits={'pending_fd_timeout': 500})
def test_pending_fd_timeout(bus):
    good = bus.raw()
    a, b = bus.raw(unix_fd=True), bus.raw(unix_fd=True)
    # Finished in time: delivered, and the sender stays past the limit.
    rest = partial_call_with_fd(a, b.unique_name, 'InTime')
    time.sleep(0.2)
    a.send_raw(rest)
    call = b.wait_for(lambda m: m.type == METHOD_CALL and
                      m.member == 'InTime')
    assert len(call.fds) == 1, call
    time.sleep(0.8)
    assert check_reply(a.bus_call('GetId'))
    # Never finished: the fd is pending too long and the sender is dropped.
    stuck = bus.raw(unix_fd=True, timeout=4)
    partial_call_with_fd(stuck, b.unique_name, 'Never')
    start = time.monotonic()
    assert stuck.wait_closed(4), 'a client kept its fds pending forever'
    assert 0.3 < time.monotonic() - start < 4
    b.expect_nothing(lambda m: m.type == METHOD_CALL and
                     m.member == 'Never', 0.2)
    # Others are not affected.
    assert check_reply(good.bus_call('GetId'))
    assert check_reply(a.bus_call('GetId'))


@config(limits={'pending_fd_timeout': 500})
def test_pending_fd_timeout_without_fds(bus):
    # A message that is slow to arrive but carries no fd is no concern.
    a, b = bus.raw(), bus.raw()
    data = rawdbus.Message(METHOD_CALL, a.next_serial(), 0, {
        rawdbus.FIELD_PATH: '/p', rawdbus.FIELD_MEMBER: 'Slow',
        rawdbus.FIELD_DESTINATION: b.unique_name}).marshal()
    a.send_raw(data[:16])
    time.sleep(1.0)
    a.send_raw(data[16:])
    assert b.wait_for(lambda m: m.type == METHOD_CALL and
                      m.member == 'Slow')


def test_fd_message_right_behind_a_plain_one(bus):
    # Both arrive in one read of the bus; the fd is the second message's.
    a, b = bus.raw(unix_fd=True), bus.raw(unix_fd=True)
    for i in range(3):
        r, w = os.pipe()
        os.write(w, b'second %d' % i)
        os.close(w)
        a.send_call(b.unique_name, '/p', None, 'First')
        a.send_call(b.unique_name, '/p', None, 'Second', 'h', [0], fds=[r])
        os.close(r)
    for i in range(3):
        first = b.wait_for(lambda m: m.member == 'First')
        second = b.wait_for(lambda m: m.member == 'Second')
        assert first.fds == [] and len(second.fds) == 1, (first, second)
        assert os.read(second.fds[0], 100) == b'second %d' % i
        os.close(second.fds[0])
        second.fds = []
    assert check_reply(a.bus_call('GetId'))


# mssf-broker's own per-label limits, set as low as they go: without Smack
# they limit nothing, and the bus answers as dbus-daemon does without
# them. dbus-daemon refuses these <limit> names (REFERENCE_DIFFERS).
@config(limits={'max_connections_per_label': 1, 'max_names_per_label': 0,
                'max_match_rules_per_label': 0, 'max_replies_per_label': 0,
                'max_queued_bytes_per_label': 0,
                'max_queued_unix_fds_per_label': 0})
def test_label_limits_limit_nothing_without_smack(bus):
    a, b, c = bus.raw(), bus.raw(), bus.raw()
    assert c.unique_name
    assert error_name(a.bus_call('RequestName', 'su',
                                 ['org.mssf.L0', 0])) is None
    assert error_name(a.bus_call('AddMatch', 's', ["member='M'"])) is None
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M', 'u', [1])
    call = b.wait_for(lambda m: m.type == METHOD_CALL)
    b.reply(call, 's', ['done'])
    assert a.wait_for(lambda m: m.reply_serial == serial).body == ['done']
    b.signal('/p', 'org.mssf.I', 'M', 's', ['x'])
    assert a.wait_for(lambda m: m.type == SIGNAL and m.member == 'M')
