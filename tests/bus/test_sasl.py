"""The SASL exchange, line by line: EXTERNAL with and without an
authorization identity, NEGOTIATE_UNIX_FD, REJECTED listing the
mechanisms, errors, pipelining, and what gets a client disconnected."""
import os
import re

import rawdbus
from rawdbus import check_reply

UID_HEX = str(os.getuid()).encode().hex()


def sasl(bus):
    conn = bus.raw(connect=False, timeout=3)
    conn.send_raw(b'\0')
    return conn


def hello_works(conn):
    conn.send_raw(b'BEGIN\r\n')
    reply = check_reply(conn.bus_call('Hello'))
    assert reply.body[0].startswith(':'), reply
    return reply.body[0]


def assert_disconnected(conn, why):
    assert conn.closed or conn.wait_closed(3), why


def test_external_with_uid(bus):
    conn = sasl(bus)
    reply = conn.sasl_line('AUTH EXTERNAL ' + UID_HEX)
    assert re.match('^OK [0-9a-f]{32}$', reply), reply
    unique = hello_works(conn)
    assert check_reply(conn.bus_call('GetConnectionUnixUser', 's',
                                     [unique])).body == [os.getuid()]


def test_external_without_uid(bus):
    conn = sasl(bus)
    assert conn.sasl_line('AUTH EXTERNAL') == 'DATA'
    reply = conn.sasl_line('DATA')
    assert re.match('^OK [0-9a-f]{32}$', reply), reply
    hello_works(conn)


def test_guid_is_stable(bus):
    guids = set()
    for _ in range(3):
        conn = sasl(bus)
        guids.add(conn.sasl_line('AUTH EXTERNAL ' + UID_HEX))
        conn.close()
    assert len(guids) == 1, guids
    assert bus.address.endswith('guid=' + guids.pop()[3:]) or \
        'guid=' not in bus.address


def test_external_wrong_uid_rejected(bus):
    conn = sasl(bus)
    other_uid = str(os.getuid() + 4242).encode().hex()
    reply = conn.sasl_line('AUTH EXTERNAL ' + other_uid)
    assert reply.startswith('REJECTED') and 'EXTERNAL' in reply.split(), \
        reply
    # A rejected attempt may be followed by a good one.
    assert conn.sasl_line('AUTH EXTERNAL ' + UID_HEX).startswith('OK ')
    hello_works(conn)


def test_rejected_lists_mechanisms(bus):
    conn = sasl(bus)
    for line in ('AUTH', 'AUTH NOSUCHMECH', 'AUTH DBUS_COOKIE_SHA1 30',
                 'AUTH ANONYMOUS'):
        reply = conn.sasl_line(line)
        # Only the configured mechanism (<auth>EXTERNAL</auth>) is offered.
        assert reply == 'REJECTED EXTERNAL', (line, reply)


def test_negotiate_unix_fd(bus):
    conn = sasl(bus)
    assert conn.sasl_line('AUTH EXTERNAL ' + UID_HEX).startswith('OK ')
    assert conn.sasl_line('NEGOTIATE_UNIX_FD') == 'AGREE_UNIX_FD'
    hello_works(conn)


def test_negotiate_unix_fd_before_auth(bus):
    conn = sasl(bus)
    assert conn.sasl_line('NEGOTIATE_UNIX_FD').startswith('ERROR')
    assert conn.sasl_line('AUTH EXTERNAL ' + UID_HEX).startswith('OK ')
    hello_works(conn)


def test_unknown_command(bus):
    conn = sasl(bus)
    assert conn.sasl_line('FROBNICATE').startswith('ERROR')
    # Commands are case-sensitive.
    assert conn.sasl_line('auth external ' + UID_HEX).startswith('ERROR')
    assert conn.sasl_line('AUTH EXTERNAL ' + UID_HEX).startswith('OK ')
    assert conn.sasl_line('FROBNICATE').startswith('ERROR')
    hello_works(conn)


def test_cancel_after_ok(bus):
    conn = sasl(bus)
    assert conn.sasl_line('AUTH EXTERNAL ' + UID_HEX).startswith('OK ')
    assert conn.sasl_line('CANCEL').startswith('REJECTED')
    assert conn.sasl_line('AUTH EXTERNAL ' + UID_HEX).startswith('OK ')
    hello_works(conn)


def test_bad_hex(bus):
    conn = sasl(bus)
    assert conn.sasl_line('AUTH EXTERNAL zz').startswith(('ERROR',
                                                          'REJECTED'))
    assert conn.sasl_line('AUTH EXTERNAL ' + UID_HEX).startswith('OK ')


def test_pipelined_sasl_and_hello(bus):
    # sd-bus and GDBus send the whole exchange in one write.
    conn = bus.raw(connect=False)
    hello = rawdbus.Message(rawdbus.METHOD_CALL, 1, 0, {
        rawdbus.FIELD_PATH: '/org/freedesktop/DBus',
        rawdbus.FIELD_INTERFACE: 'org.freedesktop.DBus',
        rawdbus.FIELD_MEMBER: 'Hello',
        rawdbus.FIELD_DESTINATION: 'org.freedesktop.DBus'})
    conn.serial = 1
    conn.send_raw(b'\0AUTH EXTERNAL ' + UID_HEX.encode() +
                  b'\r\nNEGOTIATE_UNIX_FD\r\nBEGIN\r\n' + hello.marshal())
    assert conn.read_line().startswith('OK ')
    assert conn.read_line() == 'AGREE_UNIX_FD'
    reply = check_reply(conn.wait_for(lambda m: m.reply_serial == 1))
    assert reply.body[0].startswith(':')


def test_no_leading_nul_disconnects(bus):
    conn = bus.raw(connect=False, timeout=3)
    conn.send_raw(b'AUTH EXTERNAL ' + UID_HEX.encode() + b'\r\n')
    try:
        reply = conn.read_line()
    except rawdbus.Disconnected:
        reply = None
    assert reply is None, 'answered %r without the nul byte' % reply


def test_begin_before_auth_disconnects(bus):
    conn = sasl(bus)
    conn.send_raw(b'BEGIN\r\n')
    try:
        conn.read_line()
    except rawdbus.Disconnected:
        pass
    assert_disconnected(conn, 'BEGIN before authentication was accepted')


def test_overlong_line_disconnects(bus):
    conn = sasl(bus)
    try:
        conn.send_raw(b'AUTH EXTERNAL ' + b'3' * 20000 + b'\r\n')
        reply = conn.read_line()
    except (rawdbus.Disconnected, BrokenPipeError, ConnectionResetError):
        reply = None
    assert reply is None, reply
    assert_disconnected(conn, 'a 20 kB SASL line was accepted')


def test_repeated_rejections_disconnect(bus):
    conn = sasl(bus)
    other_uid = str(os.getuid() + 4242).encode().hex()
    try:
        for _ in range(10):
            reply = conn.sasl_line('AUTH EXTERNAL ' + other_uid)
            assert reply.startswith('REJECTED'), reply
    except (rawdbus.Disconnected, BrokenPipeError, ConnectionResetError):
        return
    raise AssertionError('10 failed attempts and still connected')


def test_good_clients_unaffected_by_bad_auth(bus):
    good = bus.raw()
    bad = [sasl(bus) for _ in range(5)]
    for conn in bad:
        conn.send_raw(b'\x01\x02 garbage\r\n')
    assert check_reply(good.bus_call('ListNames'))
    late = bus.raw()
    assert late.unique_name in check_reply(
        good.bus_call('ListNames')).body[0]
