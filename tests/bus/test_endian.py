"""Big-endian messages (the 'B' byte order, as a big-endian host sends
them) travel through the bus intact, to raw, libdbus and driver peers."""
import os

from rawdbus import (check_reply, Message, METHOD_CALL, METHOD_RETURN,
                     SIGNAL, FIELD_PATH, FIELD_INTERFACE, FIELD_MEMBER)

BODY_SIG = 'yqiuxtdsoga{sv}(ib)ay'
BODY = [7, 0x1234, -5, 0xdeadbeef, -(1 << 40), 1 << 60, 2.5, 'text',
        '/obj/path', 'a{sv}', {'k': ('u', 42), 'l': ('as', ['x', 'y'])},
        (-1, True), b'\x00\x01\x02']


def test_big_endian_call_between_clients(bus):
    a, b = bus.raw(), bus.raw()
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.Endian', 'Big',
                         BODY_SIG, BODY, big_endian=True)
    call = b.wait_for(lambda m: m.type == METHOD_CALL)
    assert call.member == 'Big' and call.sender == a.unique_name, call
    assert call.body == BODY, call.body
    b.reply(call, 's', ['little answer'])
    reply = a.wait_for(lambda m: m.reply_serial == serial)
    assert reply.type == METHOD_RETURN and reply.body == ['little answer']


def test_big_endian_driver_call(bus):
    a = bus.raw()
    serial = a.send_call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                         'org.freedesktop.DBus', 'GetNameOwner', 's',
                         ['org.freedesktop.DBus'], big_endian=True)
    reply = check_reply(a.wait_for(lambda m: m.reply_serial == serial))
    assert reply.body == ['org.freedesktop.DBus'], reply


def test_big_endian_signal_to_python(bus):
    listener = bus.pyclient()
    listener.add_match("type='signal',interface='org.mssf.Endian'")
    e = bus.raw()
    e.send(Message(SIGNAL, 0, 0, {FIELD_PATH: '/p',
                                  FIELD_INTERFACE: 'org.mssf.Endian',
                                  FIELD_MEMBER: 'BigSig'}, 'sux',
                   ['big', 0x01020304, -2]), big_endian=True)
    msg = listener.wait_signal('BigSig')
    assert list(msg.get_args_list()) == ['big', 0x01020304, -2], \
        msg.get_args_list()
    listener.close()


def test_big_endian_fd(bus):
    a, b = bus.raw(unix_fd=True), bus.raw(unix_fd=True)
    r, w = os.pipe()
    os.write(w, b'big-endian fd')
    os.close(w)
    a.send_call(b.unique_name, '/p', 'org.mssf.Endian', 'Fd', 'h', [0],
                fds=[r], big_endian=True)
    os.close(r)
    call = b.wait_for(lambda m: m.type == METHOD_CALL)
    assert call.body == [0] and len(call.fds) == 1, call
    with os.fdopen(call.fds[0], 'rb') as f:
        assert f.read() == b'big-endian fd'
