"""A python3-dbus client on its own private connection to the test bus.

Every message the connection receives is recorded by a filter, so a test
can wait for a signal (with a timeout) without dbus-python's own signal
matching adding match rules behind its back: the test adds the rules it
means to test.
"""
import time

import dbus
import dbus.lowlevel
import dbus.mainloop.glib
from gi.repository import GLib

_loop = dbus.mainloop.glib.DBusGMainLoop()

BUS = 'org.freedesktop.DBus'
BUS_PATH = '/org/freedesktop/DBus'


def iterate(duration=0.0):
    """Runs the GLib main context for duration seconds."""
    ctx = GLib.MainContext.default()
    deadline = time.monotonic() + duration
    while True:
        while ctx.pending():
            ctx.iteration(False)
        if time.monotonic() >= deadline:
            return
        time.sleep(0.005)


class PyClient:
    def __init__(self, address):
        self.conn = dbus.bus.BusConnection(address, mainloop=_loop)
        self.received = []
        self.conn.add_message_filter(self._filter)
        self.unique_name = self.conn.get_unique_name()

    def _filter(self, conn, msg):
        self.received.append(msg)
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED

    def bus(self, method, signature=None, *args, timeout=5.0,
            interface=BUS):
        return self.conn.call_blocking(BUS, BUS_PATH, interface, method,
                                       signature, args, timeout=timeout)

    def call(self, dest, path, iface, method, signature=None, *args,
             timeout=5.0):
        return self.conn.call_blocking(dest, path, iface, method, signature,
                                       args, timeout=timeout)

    def add_match(self, rule):
        self.bus('AddMatch', 's', rule)

    def remove_match(self, rule):
        self.bus('RemoveMatch', 's', rule)

    def wait_for(self, predicate, timeout=5.0, what='message'):
        """Pops and returns the first received message matching predicate."""
        deadline = time.monotonic() + timeout
        while True:
            iterate()
            for i, msg in enumerate(self.received):
                if predicate(msg):
                    return self.received.pop(i)
            if time.monotonic() > deadline:
                raise AssertionError('timed out waiting for %s; got %s' % (
                    what, [describe(m) for m in self.received]))
            time.sleep(0.005)

    def wait_signal(self, member, timeout=5.0, **kw):
        return self.wait_for(lambda m: is_signal(m, member, **kw), timeout,
                             'signal ' + member)

    def take(self, predicate, duration=0.3):
        """Every message matching predicate received within duration."""
        iterate(duration)
        got = [m for m in self.received if predicate(m)]
        self.received = [m for m in self.received if not predicate(m)]
        return got

    def close(self):
        self.conn.close()


def is_signal(msg, member, interface=None, sender=None, path=None,
              args=None):
    if not isinstance(msg, dbus.lowlevel.SignalMessage):
        return False
    if msg.get_member() != member:
        return False
    if interface is not None and msg.get_interface() != interface:
        return False
    if sender is not None and msg.get_sender() != sender:
        return False
    if path is not None and msg.get_path() != path:
        return False
    if args is not None and list(msg.get_args_list()[:len(args)]) != args:
        return False
    return True


def describe(msg):
    return '%s(%s.%s %s from %s to %s)' % (
        type(msg).__name__, msg.get_interface(), msg.get_member(),
        msg.get_args_list(), msg.get_sender(), msg.get_destination())


def error_name(callable_, *args, **kwargs):
    """The D-Bus error name callable_ raises (AssertionError if none)."""
    try:
        result = callable_(*args, **kwargs)
    except dbus.exceptions.DBusException as e:
        return e.get_dbus_name()
    raise AssertionError('expected a D-Bus error, got %r' % (result,))
