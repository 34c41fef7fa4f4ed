#!/usr/bin/python3
"""The two clients of differential.py, each run as its own user.

    differential-client.py service ADDRESS NAME...
        Requests each NAME (DO_NOT_QUEUE), prints "ready UNIQUE NAME=0|1...",
        answers every method call with an empty return; on "emit UNIQUE"
        from stdin emits a broadcast and a unicast signal to UNIQUE; stops
        when stdin closes.
    differential-client.py caller ADDRESS SERVICE_UNIQUE DEST|PATH|IFACE|MEMBER...
        Subscribes to the service's signals, prints "caller UNIQUE", makes
        each call (IFACE "-" for none) and prints "reply", "timeout" or the
        error name; then prints "signal MEMBER" for each signal received.
"""
import sys

import dbus
import dbus.bus
import dbus.lowlevel
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

DBusGMainLoop(set_as_default=True)
SIGNAL_PATH, SIGNAL_IFACE = "/a", "org.mssf.I1"


def service(address, names):
    conn = dbus.bus.BusConnection(address)
    owned = []
    for name in names:
        try:
            reply = conn.request_name(name, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
            owned.append("%s=%d" % (name, reply in (1, 4)))
        except dbus.exceptions.DBusException:
            owned.append("%s=0" % name)

    def on_message(c, msg):
        if msg.get_type() == 1 and msg.get_destination() != "org.freedesktop.DBus":
            c.send_message(dbus.lowlevel.MethodReturnMessage(msg))
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED

    conn.add_message_filter(on_message)
    print("ready", conn.get_unique_name(), " ".join(owned), flush=True)
    loop = GLib.MainLoop()

    def on_stdin(source, condition):
        line = sys.stdin.readline()
        if not line:
            loop.quit()
            return False
        words = line.split()
        if words and words[0] == "emit":
            conn.send_message(dbus.lowlevel.SignalMessage(SIGNAL_PATH, SIGNAL_IFACE, "broadcast"))
            unicast = dbus.lowlevel.SignalMessage(SIGNAL_PATH, SIGNAL_IFACE, "unicast")
            unicast.set_destination(words[1])
            conn.send_message(unicast)
            conn.flush()
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_stdin)
    loop.run()


def caller(address, service_unique, specs):
    conn = dbus.bus.BusConnection(address)
    received = []

    def on_message(c, msg):
        if msg.get_type() == 4 and msg.get_interface() == SIGNAL_IFACE:
            received.append(msg.get_member())
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED

    conn.add_message_filter(on_message)
    conn.add_match_string("type='signal',sender='%s'" % service_unique)
    print("caller", conn.get_unique_name(), flush=True)
    for spec in specs:
        dest, path, iface, member = spec.split("|")
        msg = dbus.lowlevel.MethodCallMessage(dest, path, None if iface == "-" else iface, member)
        try:
            conn.send_message_with_reply_and_block(msg, 0.4)
            print("reply")
        except dbus.exceptions.DBusException as e:
            name = e.get_dbus_name()
            print("timeout" if name == "org.freedesktop.DBus.Error.NoReply" else name)
    loop = GLib.MainLoop()
    GLib.timeout_add(500, loop.quit)
    loop.run()
    for member in received:
        print("signal", member)


if __name__ == "__main__":
    if sys.argv[1] == "service":
        service(sys.argv[2], sys.argv[3:])
    else:
        caller(sys.argv[2], sys.argv[3], sys.argv[4:])
