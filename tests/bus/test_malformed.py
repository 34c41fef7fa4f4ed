"""Malformed input from a client: garbage, broken headers, truncated and
invalid bodies, a spoofed SENDER. The offending client is disconnected
(or, for the spoofed sender, corrected), nothing it sent is delivered, and
the other clients carry on."""
import random
import socket
import struct

import rawdbus
from rawdbus import check_reply, METHOD_CALL, METHOD_RETURN, SIGNAL

F = rawdbus


def call_bytes(dest, member='Bad', signature='', body=(), fields=None,
               serial=7, type=METHOD_CALL, field_sigs=None):
    f = {F.FIELD_PATH: '/p', F.FIELD_INTERFACE: 'org.mssf.Bad',
         F.FIELD_MEMBER: member, F.FIELD_DESTINATION: dest}
    f.update(fields or {})
    f = dict((k, v) for k, v in f.items() if v is not None)
    msg = rawdbus.Message(type, serial, 0, f, signature, body)
    if field_sigs:
        msg.field_sigs = field_sigs
    return bytearray(msg.marshal())


def bystanders_still_talk(a, b):
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.Good', 'Fine')
    call = b.wait_for(lambda m: m.type == METHOD_CALL and
                      m.member == 'Fine')
    b.reply(call, 's', ['fine'])
    assert a.wait_for(lambda m: m.reply_serial == serial).body == ['fine']


def kicked(bus, make_data, hello=True, eof=False):
    """A client sends make_data(victim's name): it must be disconnected,
    the victim gets nothing from it, bystanders keep talking."""
    a, b = bus.raw(), bus.raw()
    bad = bus.raw(connect=False, timeout=3)
    if hello:
        bad.connect()
    else:
        bad.authenticate()
    try:
        bad.send_raw(bytes(make_data(b.unique_name)))
        if eof:
            bad.sock.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert bad.wait_closed(3), 'the bus kept a client that sent garbage'
    b.expect_nothing(lambda m: m.type != SIGNAL or
                     m.sender != 'org.freedesktop.DBus', 0.2)
    bystanders_still_talk(a, b)


def test_garbage_after_auth(bus):
    kicked(bus, lambda dest: b'this is not a D-Bus message\r\n' * 20,
           hello=False)


def test_random_bytes_after_hello(bus):
    rng = random.Random(4242)
    kicked(bus, lambda dest: bytes([ord('l')] + [rng.randrange(256)
                                                 for _ in range(4095)]))


def test_bad_endianness_byte(bus):
    def data(dest):
        d = call_bytes(dest)
        d[0] = ord('X')
        return d
    kicked(bus, data)


def test_bad_protocol_version(bus):
    def data(dest):
        d = call_bytes(dest)
        d[3] = 2
        return d
    kicked(bus, data)


def test_zero_serial(bus):
    kicked(bus, lambda dest: call_bytes(dest, serial=0))


def test_invalid_message_type(bus):
    kicked(bus, lambda dest: call_bytes(dest, type=0))


def test_truncated_message_then_eof(bus):
    kicked(bus, lambda dest: call_bytes(dest, signature='s',
                                        body=['x' * 200])[:150], eof=True)


def test_body_shorter_than_signature(bus):
    def data(dest):
        # Signature 'ss', body holds only one string.
        d = call_bytes(dest, signature='s', body=['only one'])
        head_end = len(d) - struct.unpack_from('<I', d, 4)[0]
        whole = call_bytes(dest, signature='ss', body=['only one', 'x'])
        whole_head_end = len(whole) - struct.unpack_from('<I', whole, 4)[0]
        body = d[head_end:]
        out = whole[:whole_head_end] + body
        struct.pack_into('<I', out, 4, len(body))
        return out
    kicked(bus, data)


def test_body_longer_than_signature(bus):
    def data(dest):
        d = call_bytes(dest, signature='s', body=['one'])
        d += b'\0' * 8
        struct.pack_into('<I', d, 4, struct.unpack_from('<I', d, 4)[0] + 8)
        return d
    kicked(bus, data)


def test_missing_path(bus):
    kicked(bus, lambda dest: call_bytes(dest, fields={F.FIELD_PATH: None}))


def test_signal_missing_interface(bus):
    kicked(bus, lambda dest: call_bytes(
        dest, type=SIGNAL, fields={F.FIELD_INTERFACE: None}))


def test_return_without_reply_serial(bus):
    kicked(bus, lambda dest: call_bytes(
        dest, type=METHOD_RETURN, fields={F.FIELD_PATH: None,
                                          F.FIELD_MEMBER: None,
                                          F.FIELD_INTERFACE: None}))


def test_header_field_wrong_type(bus):
    kicked(bus, lambda dest: call_bytes(dest, field_sigs={F.FIELD_PATH: 's'}))


def test_invalid_object_path(bus):
    kicked(bus, lambda dest: call_bytes(dest, fields={
        F.FIELD_PATH: 'not/a//path'}))


def test_invalid_member_name(bus):
    kicked(bus, lambda dest: call_bytes(dest, member='has.dot'))


def test_invalid_utf8_string(bus):
    kicked(bus, lambda dest: call_bytes(dest, signature='s',
                                        body=[b'\xff\xfe bad utf-8']))


def test_string_not_nul_terminated(bus):
    def data(dest):
        d = call_bytes(dest, signature='s', body=['abc'])
        assert d[-1] == 0
        d[-1] = ord('x')
        return d
    kicked(bus, data)


def test_invalid_signature(bus):
    kicked(bus, lambda dest: call_bytes(dest, signature='a' * 65 + 'y',
                                        body=[]))


def test_huge_body_length(bus):
    def data(dest):
        d = call_bytes(dest, signature='s', body=['x'])
        struct.pack_into('<I', d, 4, 0x7ffffff0)
        return d
    kicked(bus, data)


def test_array_length_too_big(bus):
    def data(dest):
        d = call_bytes(dest, signature='ay', body=[b'abcd'])
        head = len(d) - struct.unpack_from('<I', d, 4)[0]
        struct.pack_into('<I', d, head, 1 << 27)
        return d
    kicked(bus, data)


def test_spoofed_sender_on_call(bus):
    a, b = bus.raw(), bus.raw()
    for fake in ('org.freedesktop.DBus', ':1.4242', b.unique_name):
        a.send_raw(bytes(call_bytes(b.unique_name, member='Spoof',
                                    fields={F.FIELD_SENDER: fake},
                                    serial=a.next_serial())))
        call = b.wait_for(lambda m: m.type == METHOD_CALL and
                          m.member == 'Spoof')
        assert call.sender == a.unique_name, (fake, call)


def test_spoofed_bus_signal(bus):
    a, trusting, general = bus.raw(), bus.raw(), bus.raw()
    trusting.add_match("type='signal',sender='org.freedesktop.DBus',"
                       "member='NameOwnerChanged'")
    general.add_match("type='signal',member='NameOwnerChanged',"
                      "arg0='org.mssf.Fake'")
    a.send_raw(bytes(call_bytes(
        None, type=SIGNAL, member='NameOwnerChanged', signature='sss',
        body=['org.mssf.Fake', '', a.unique_name], serial=a.next_serial(),
        fields={F.FIELD_SENDER: 'org.freedesktop.DBus',
                F.FIELD_PATH: '/org/freedesktop/DBus',
                F.FIELD_INTERFACE: 'org.freedesktop.DBus',
                F.FIELD_DESTINATION: None})))
    sig = general.wait_for(lambda m: m.type == SIGNAL and
                           m.member == 'NameOwnerChanged')
    assert sig.sender == a.unique_name, sig
    trusting.expect_nothing(lambda m: m.type == SIGNAL and
                            m.body[:1] == ['org.mssf.Fake'], 0.3)


def test_unknown_header_field(bus):
    """An unknown header field is not an error; a bus that announces
    HeaderFiltering removes it before delivery."""
    a, b = bus.raw(), bus.raw()
    features = check_reply(a.call(
        'org.freedesktop.DBus', '/org/freedesktop/DBus',
        'org.freedesktop.DBus.Properties', 'Get', 'ss',
        ['org.freedesktop.DBus', 'Features'])).body[0][1]
    a.send_raw(bytes(call_bytes(b.unique_name, member='Extra',
                                fields={100: 'extra'},
                                field_sigs={100: 's'},
                                serial=a.next_serial())))
    call = b.wait_for(lambda m: m.type == METHOD_CALL and
                      m.member == 'Extra')
    if 'HeaderFiltering' in features:
        assert 100 not in call.fields, call
    else:
        assert call.fields.get(100) == 'extra', call


# Messages of unknown type (the spec: must be ignored). dbus-daemon 1.14
# routes them nowhere and answers one with a destination with an error,
# whatever its flags; the sender stays connected.
UNKNOWN_TYPE_TEXT = 'Message bus will not accept messages of unknown type\n'


def unknown_type(conn, type, fields, flags=0, signature='', body=()):
    return conn.send(rawdbus.Message(type, 0, flags, fields, signature, body))


def error_for(conn, serial):
    reply = conn.wait_for(lambda m: m.reply_serial == serial)
    assert reply.type == rawdbus.ERROR, reply
    assert reply.sender == 'org.freedesktop.DBus', reply
    return reply.error_name, reply.body


def test_unknown_type_not_routed(bus):
    a, b = bus.raw(), bus.raw()
    b.add_match('')
    b.add_match("eavesdrop='true'")
    for type in (5, 200, 255):
        call_fields = {F.FIELD_PATH: '/p', F.FIELD_INTERFACE: 'org.mssf.New',
                       F.FIELD_MEMBER: 'M'}
        addressed = dict(call_fields)
        addressed[F.FIELD_DESTINATION] = b.unique_name
        for flags in (0, rawdbus.NO_REPLY_EXPECTED):
            serial = unknown_type(a, type, addressed, flags, 's', ['hi'])
            assert error_for(a, serial) == (
                'org.freedesktop.DBus.Error.AccessDenied', [UNKNOWN_TYPE_TEXT])
        # No destination: dropped without a word.
        unknown_type(a, type, call_fields, 0, 's', ['hi'])
        unknown_type(a, type, {})
        # For the driver: not a call, refused the same way.
        serial = unknown_type(a, type, {
            F.FIELD_PATH: '/org/freedesktop/DBus',
            F.FIELD_INTERFACE: 'org.freedesktop.DBus',
            F.FIELD_MEMBER: 'ListNames',
            F.FIELD_DESTINATION: 'org.freedesktop.DBus'})
        assert error_for(a, serial)[0] == \
            'org.freedesktop.DBus.Error.AccessDenied'
        a.expect_nothing(lambda m: m.type == rawdbus.ERROR, 0.2)
    b.expect_nothing(lambda m: m.sender == a.unique_name, 0.3)
    bystanders_still_talk(a, b)


def test_unknown_type_to_nobody(bus):
    a = bus.raw()
    serial = unknown_type(a, 5, {F.FIELD_DESTINATION: 'org.mssf.Nobody'})
    name, body = error_for(a, serial)
    assert name == 'org.freedesktop.DBus.Error.ServiceUnknown', (name, body)
    serial = unknown_type(a, 5, {F.FIELD_DESTINATION: ':1.9999'})
    assert error_for(a, serial)[0] == \
        'org.freedesktop.DBus.Error.ServiceUnknown'
    serial = unknown_type(a, 5, {F.FIELD_DESTINATION: 'org.mssf.Nobody'},
                          rawdbus.NO_AUTO_START)
    assert error_for(a, serial)[0] == \
        'org.freedesktop.DBus.Error.NameHasNoOwner'
    assert check_reply(a.bus_call('GetId'))


def test_unknown_type_before_hello(bus):
    b = bus.raw()
    # For the driver: AccessDenied, and Hello still works.
    c = bus.raw(connect=False)
    c.authenticate()
    serial = unknown_type(c, 5, {F.FIELD_DESTINATION: 'org.freedesktop.DBus',
                                 F.FIELD_PATH: '/org/freedesktop/DBus',
                                 F.FIELD_MEMBER: 'Hello'})
    assert error_for(c, serial)[0] == 'org.freedesktop.DBus.Error.AccessDenied'
    assert check_reply(c.bus_call('Hello')).body[0].startswith(':')
    # Without a destination: ignored.
    d = bus.raw(connect=False)
    d.authenticate()
    unknown_type(d, 200, {})
    assert check_reply(d.bus_call('Hello')).body[0].startswith(':')
    # For another connection: the client is dropped, as for any message
    # other than Hello to anyone but the driver.
    e = bus.raw(connect=False, timeout=3)
    e.authenticate()
    unknown_type(e, 5, {F.FIELD_DESTINATION: b.unique_name})
    assert e.wait_closed(3)
    b.expect_nothing(lambda m: m.type not in (METHOD_CALL, METHOD_RETURN,
                                              rawdbus.ERROR, SIGNAL), 0.2)


def test_unknown_type_still_validated(bus):
    kicked(bus, lambda dest: call_bytes(dest, type=5, fields={
        F.FIELD_PATH: 'not/a//path'}))
    kicked(bus, lambda dest: call_bytes(dest, type=200, signature='s',
                                        body=[b'\xff\xfe bad utf-8']))
