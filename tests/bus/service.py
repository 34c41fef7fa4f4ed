#!/usr/bin/python3
"""A python3-dbus helper service for the bus tests.

usage: service.py ADDRESS NAME [REQUEST_NAME_FLAGS]
       service.py - NAME     (activated: the address is DBUS_STARTER_ADDRESS)

Owns NAME (unless NAME is '-'), exports /org/mssf/Test with interface
org.mssf.Test, prints "READY <unique-name>" and serves until killed or
told to Exit. Calls are counted, so a test can check that a call with
NO_REPLY_EXPECTED was still delivered.
"""
import os
import sys


def _open_descriptors():
    """Descriptors above 2 open now: before any import opens one, these
    are what the process was started with."""
    found = []
    for fd in range(3, 1024):
        try:
            os.fstat(fd)
        except OSError:
            continue
        found.append(fd)
    return found


INHERITED = _open_descriptors()

import dbus  # noqa: E402 (after the descriptors are looked at)
import dbus.lowlevel
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

IFACE = 'org.mssf.Test'
PATH = '/org/mssf/Test'


class TestError(dbus.exceptions.DBusException):
    pass


class Service(dbus.service.Object):
    def __init__(self, conn):
        dbus.service.Object.__init__(self, conn, PATH)
        self.conn = conn
        self.calls = 0
        self.senders = []
        self.hanging = []

    def _count(self, sender):
        self.calls += 1
        self.senders.append(sender)

    @dbus.service.method(IFACE, in_signature='s', out_signature='s',
                         sender_keyword='sender')
    def Echo(self, text, sender=None):
        self._count(sender)
        return text

    @dbus.service.method(IFACE, in_signature='ss', out_signature='',
                         sender_keyword='sender')
    def Fail(self, name, text, sender=None):
        self._count(sender)
        raise TestError(text, name=name)

    @dbus.service.method(IFACE, in_signature='u', out_signature='s',
                         sender_keyword='sender',
                         async_callbacks=('reply', 'error'))
    def Sleep(self, ms, sender=None, reply=None, error=None):
        self._count(sender)
        GLib.timeout_add(ms, lambda: reply('slept') and False)

    @dbus.service.method(IFACE, in_signature='', out_signature='s',
                         sender_keyword='sender',
                         async_callbacks=('reply', 'error'))
    def Hang(self, sender=None, reply=None, error=None):
        self._count(sender)
        self.hanging.append(reply)

    @dbus.service.method(IFACE, in_signature='', out_signature='',
                         sender_keyword='sender')
    def Exit(self, sender=None):
        os._exit(0)

    @dbus.service.method(IFACE, in_signature='sss', out_signature='',
                         sender_keyword='sender')
    def Emit(self, member, arg0, destination, sender=None):
        self._count(sender)
        msg = dbus.lowlevel.SignalMessage(PATH, IFACE, member)
        msg.append(arg0, signature='s')
        if destination:
            msg.set_destination(destination)
        self.conn.send_message(msg)

    @dbus.service.method(IFACE, in_signature='h', out_signature='s',
                         sender_keyword='sender')
    def ReadFd(self, fd, sender=None):
        self._count(sender)
        with os.fdopen(fd.take(), 'rb') as f:
            return f.read().decode()

    @dbus.service.method(IFACE, in_signature='s', out_signature='h',
                         sender_keyword='sender')
    def MakeFd(self, text, sender=None):
        self._count(sender)
        r, w = os.pipe()
        os.write(w, text.encode())
        os.close(w)
        fd = dbus.types.UnixFd(r)
        os.close(r)
        return fd

    @dbus.service.method(IFACE, in_signature='s', out_signature='s')
    def GetEnv(self, name):
        return os.environ.get(name, '<unset>')

    @dbus.service.method(IFACE, in_signature='', out_signature='ai')
    def InheritedFds(self):
        return dbus.Array(INHERITED, signature='i')

    @dbus.service.method(IFACE, in_signature='', out_signature='u')
    def Calls(self):
        return dbus.UInt32(self.calls)

    @dbus.service.method(IFACE, in_signature='', out_signature='as')
    def Senders(self):
        return dbus.Array(self.senders, signature='s')


def main():
    address, name = sys.argv[1], sys.argv[2]
    activated = address == '-'
    if activated:
        address = os.environ['DBUS_STARTER_ADDRESS']
    flags = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    loop = dbus.mainloop.glib.DBusGMainLoop()
    conn = dbus.bus.BusConnection(address, mainloop=loop)
    conn.test_service = Service(conn)
    if name != '-':
        conn.request_name(name, flags)
    if not activated:
        print('READY', conn.get_unique_name(), flush=True)
    conn.call_on_disconnection(lambda c: os._exit(3))
    GLib.MainLoop().run()


if __name__ == '__main__':
    main()
