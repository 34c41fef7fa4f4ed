"""Errors for what the bus does not deliver, so that no sender is left
guessing: as dbus-daemon, the sender of a message with a destination is
told why (AccessDenied for a policy denial, ServiceUnknown or
NameHasNoOwner for a name nobody owns) whatever the message's type and
flags: a method call with NO_REPLY_EXPECTED, a unicast signal (with or
without the flag: GDBus sets it on signals), a method return or an
error. Broadcasts and eavesdroppers' copies are never answered."""
import rawdbus
from rawdbus import (METHOD_CALL, METHOD_RETURN, ERROR, SIGNAL,
                     NO_REPLY_EXPECTED)
from busfixture import config, DEFAULT_POLICY, SESSION_POLICY

DENIED = 'org.freedesktop.DBus.Error.AccessDenied'
UNKNOWN = 'org.freedesktop.DBus.Error.ServiceUnknown'
NO_OWNER = 'org.freedesktop.DBus.Error.NameHasNoOwner'
NO_AUTO_START = 0x2
IFACE = 'org.mssf.Errors'

DENYING = DEFAULT_POLICY.replace(
    '</policy>', '<deny send_interface="org.mssf.Denied"/>\n  </policy>')


def error_for(conn, serial, timeout=3):
    """The error the bus answered to conn's message serial."""
    m = conn.wait_for(lambda m: m.type == ERROR and m.reply_serial == serial,
                      timeout)
    assert m.sender == 'org.freedesktop.DBus', m
    assert m.destination == conn.unique_name, m
    return m.error_name


def send(conn, type, dest, iface=IFACE, flags=0, reply_serial=None):
    fields = {rawdbus.FIELD_DESTINATION: dest}
    if type in (METHOD_CALL, SIGNAL):
        fields.update({rawdbus.FIELD_PATH: '/e', rawdbus.FIELD_INTERFACE:
                       iface, rawdbus.FIELD_MEMBER: 'M'})
    else:
        fields[rawdbus.FIELD_REPLY_SERIAL] = reply_serial or 1
        if type == ERROR:
            fields[rawdbus.FIELD_ERROR_NAME] = 'org.mssf.Failed'
    return conn.send(rawdbus.Message(type, 0, flags, fields))


@config(policy=DENYING)
def test_denied_call_without_reply_expected_is_answered(bus):
    a, b = bus.raw(), bus.raw()
    serial = send(a, METHOD_CALL, b.unique_name, 'org.mssf.Denied',
                  NO_REPLY_EXPECTED)
    assert error_for(a, serial) == DENIED
    b.expect_nothing(lambda m: m.sender == a.unique_name, 0.3)


@config(policy=DENYING)
def test_denied_unicast_signal_is_answered(bus):
    a, b = bus.raw(), bus.raw()
    for flags in (0, NO_REPLY_EXPECTED):
        serial = send(a, SIGNAL, b.unique_name, 'org.mssf.Denied', flags)
        assert error_for(a, serial) == DENIED, flags
    b.expect_nothing(lambda m: m.sender == a.unique_name, 0.3)


def test_unrequested_reply_and_error_are_answered(bus):
    """The fixture's policy denies replies nobody asked for, as
    system.conf does: the replier hears AccessDenied."""
    a, b = bus.raw(), bus.raw()
    for type in (METHOD_RETURN, ERROR):
        serial = send(a, type, b.unique_name, flags=NO_REPLY_EXPECTED)
        assert error_for(a, serial) == DENIED, type
    b.expect_nothing(lambda m: m.sender == a.unique_name, 0.3)


def test_unowned_destination_answers_every_type(bus):
    a, gone = bus.raw(), bus.raw()
    departed = gone.unique_name
    gone.close()
    for type in (METHOD_CALL, SIGNAL, METHOD_RETURN, ERROR):
        for flags in (0, NO_REPLY_EXPECTED):
            serial = send(a, type, 'org.mssf.Nobody', flags=flags)
            assert error_for(a, serial) == UNKNOWN, (type, flags)
            serial = send(a, type, 'org.mssf.Nobody',
                          flags=flags | NO_AUTO_START)
            assert error_for(a, serial) == NO_OWNER, (type, flags)
    # A late reply to a caller that left: the replier hears it.
    serial = send(a, METHOD_RETURN, departed, flags=NO_REPLY_EXPECTED)
    assert error_for(a, serial) == UNKNOWN


@config(policy=DENYING)
def test_denied_broadcast_is_not_answered(bus):
    a, listener = bus.raw(), bus.raw()
    listener.add_match("type='signal',sender='%s'" % a.unique_name)
    a.signal('/e', 'org.mssf.Denied', 'Quiet')
    a.signal('/e', IFACE, 'Loud')
    got = listener.wait_for(lambda m: m.type == SIGNAL and
                            m.sender == a.unique_name)
    assert got.member == 'Loud', got
    a.expect_nothing(lambda m: m.type == ERROR, 0.3)


@config(policy=SESSION_POLICY + '''
  <policy context="default">
    <deny receive_interface="org.mssf.Secret" eavesdrop="true"/>
  </policy>''')
def test_withheld_eavesdropper_copy_is_not_answered(bus):
    a, b, spy = bus.raw(), bus.raw(), bus.raw()
    spy.add_match("eavesdrop='true',sender='%s'" % a.unique_name)
    a.signal('/e', 'org.mssf.Secret', 'Whisper', dest=b.unique_name)
    b.wait_for(lambda m: m.type == SIGNAL and m.member == 'Whisper')
    spy.expect_nothing(lambda m: m.member == 'Whisper', 0.3)
    a.expect_nothing(lambda m: m.type == ERROR, 0.3)


def test_full_queue_answered_for_unicast_only(bus):
    """A recipient that cannot take fds: a unicast with one is answered
    NotSupported; a broadcast with one just skips that recipient."""
    import os
    a, b = bus.raw(unix_fd=True), bus.raw()
    b.add_match("type='signal',sender='%s'" % a.unique_name)
    r, w = os.pipe()
    try:
        serial = a.send(rawdbus.Message(SIGNAL, 0, NO_REPLY_EXPECTED, {
            rawdbus.FIELD_PATH: '/e', rawdbus.FIELD_INTERFACE: IFACE,
            rawdbus.FIELD_MEMBER: 'Fd', rawdbus.FIELD_DESTINATION:
            b.unique_name, rawdbus.FIELD_UNIX_FDS: 1}, 'h', [0], [r]))
        assert error_for(a, serial) == \
            'org.freedesktop.DBus.Error.NotSupported'
        a.send(rawdbus.Message(SIGNAL, 0, 0, {
            rawdbus.FIELD_PATH: '/e', rawdbus.FIELD_INTERFACE: IFACE,
            rawdbus.FIELD_MEMBER: 'FdBcast', rawdbus.FIELD_UNIX_FDS: 1},
            'h', [0], [r]))
        a.expect_nothing(lambda m: m.type == ERROR, 0.3)
        b.expect_nothing(lambda m: m.member in ('Fd', 'FdBcast'), 0.1)
    finally:
        os.close(r)
        os.close(w)
