"""Unix fd passing through the bus: a pipe end passed from client to
client and to and from a service, refusal toward a peer that did not
negotiate fds, and a sender that lies about its fd count."""
import os

import rawdbus
from rawdbus import check_reply, METHOD_CALL, METHOD_RETURN, ERROR

TPATH, TIFACE = '/org/mssf/Test', 'org.mssf.Test'


def make_pipe(text):
    r, w = os.pipe()
    os.write(w, text)
    os.close(w)
    return r


def read_all(fd):
    with os.fdopen(fd, 'rb') as f:
        return f.read()


def test_pipe_fd_between_clients(bus):
    a, b = bus.raw(unix_fd=True), bus.raw(unix_fd=True)
    r = make_pipe(b'through the bus')
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'TakeFd', 'h',
                         [0], fds=[r])
    os.close(r)
    call = b.wait_for(lambda m: m.type == METHOD_CALL)
    assert call.fields.get(rawdbus.FIELD_UNIX_FDS) == 1, call
    assert len(call.fds) == 1, call
    assert read_all(call.fds[0]) == b'through the bus'
    # And back the other way, in the reply.
    r2 = make_pipe(b'and back')
    b.reply(call, 'h', [0], fds=[r2])
    os.close(r2)
    reply = a.wait_for(lambda m: m.reply_serial == serial)
    assert reply.type == METHOD_RETURN and len(reply.fds) == 1, reply
    assert read_all(reply.fds[0]) == b'and back'


def test_several_fds_in_one_message(bus):
    a, b = bus.raw(unix_fd=True), bus.raw(unix_fd=True)
    pipes = [make_pipe(b'fd%d' % i) for i in range(3)]
    a.send_call(b.unique_name, '/p', 'org.mssf.I', 'TakeFds', 'hhh',
                [2, 0, 1], fds=pipes)
    for fd in pipes:
        os.close(fd)
    call = b.wait_for(lambda m: m.type == METHOD_CALL)
    assert call.body == [2, 0, 1] and len(call.fds) == 3, call
    assert [read_all(fd) for fd in call.fds] == [b'fd0', b'fd1', b'fd2']


def test_fd_to_python_service(bus):
    proc, unique = bus.service('org.mssf.Test')
    a = bus.raw(unix_fd=True)
    r = make_pipe(b'read by the service')
    reply = check_reply(a.call('org.mssf.Test', TPATH, TIFACE, 'ReadFd',
                               'h', [0], fds=[r]))
    os.close(r)
    assert reply.body == ['read by the service']


def test_fd_from_python_service(bus):
    proc, unique = bus.service('org.mssf.Test')
    a = bus.raw(unix_fd=True)
    reply = check_reply(a.call('org.mssf.Test', TPATH, TIFACE, 'MakeFd',
                               's', ['made by the service']))
    assert len(reply.fds) == 1, reply
    assert read_all(reply.fds[0]) == b'made by the service'


def test_fd_refused_to_peer_without_fds(bus):
    a, b = bus.raw(unix_fd=True), bus.raw()
    r = make_pipe(b'never delivered')
    reply = a.call(b.unique_name, '/p', 'org.mssf.I', 'TakeFd', 'h', [0],
                   fds=[r])
    os.close(r)
    assert reply.type == ERROR and reply.error_name == \
        'org.freedesktop.DBus.Error.NotSupported', reply
    b.expect_nothing(lambda m: m.type == METHOD_CALL, 0.4)
    # Without fds the same peer is reachable.
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'Plain')
    b.reply(b.wait_for(lambda m: m.type == METHOD_CALL), 's', ['ok'])
    assert a.wait_for(lambda m: m.reply_serial == serial).body == ['ok']


def test_fd_count_mismatch_disconnects(bus):
    a, liar = bus.raw(unix_fd=True), bus.raw(unix_fd=True)
    r = make_pipe(b'x')
    msg = rawdbus.Message(METHOD_CALL, 0, 0, {
        rawdbus.FIELD_PATH: '/p', rawdbus.FIELD_MEMBER: 'M',
        rawdbus.FIELD_DESTINATION: a.unique_name,
        rawdbus.FIELD_UNIX_FDS: 2}, 'h', [0])
    liar.send_raw(msg.marshal(liar.next_serial()), [r])
    os.close(r)
    assert liar.wait_closed(3), 'a message with 2 fds declared, 1 sent'
    a.expect_nothing(lambda m: m.type == METHOD_CALL, 0.3)
    assert check_reply(a.bus_call('GetId'))


def test_broadcast_with_fd_skips_peers_without_fds(bus):
    e, capable, plain = (bus.raw(unix_fd=True), bus.raw(unix_fd=True),
                         bus.raw())
    for conn in (capable, plain):
        conn.add_match("type='signal',interface='org.mssf.FdSig'")
    r = make_pipe(b'broadcast fd')
    e.send(rawdbus.Message(rawdbus.SIGNAL, 0, 0, {
        rawdbus.FIELD_PATH: '/p', rawdbus.FIELD_INTERFACE: 'org.mssf.FdSig',
        rawdbus.FIELD_MEMBER: 'WithFd'}, 'h', [0], [r]))
    os.close(r)
    sig = capable.wait_for(lambda m: m.member == 'WithFd')
    assert len(sig.fds) == 1 and read_all(sig.fds[0]) == b'broadcast fd'
    plain.expect_nothing(lambda m: m.member == 'WithFd', 0.3)
    # A signal has no reply, so the sender is told nothing.
    e.expect_nothing(lambda m: m.type == ERROR, 0.1)


def test_fds_without_negotiation_disconnect(bus):
    a, sloppy = bus.raw(unix_fd=True), bus.raw()
    r = make_pipe(b'x')
    try:
        sloppy.send(rawdbus.Message(METHOD_CALL, 0, 0, {
            rawdbus.FIELD_PATH: '/p', rawdbus.FIELD_MEMBER: 'M',
            rawdbus.FIELD_DESTINATION: a.unique_name}, 'h', [0], [r]))
    finally:
        os.close(r)
    assert sloppy.wait_closed(3), 'fds accepted without NEGOTIATE_UNIX_FD'
    a.expect_nothing(lambda m: m.type == METHOD_CALL, 0.3)
