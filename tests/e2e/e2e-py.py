#!/usr/bin/python3
"""e2e-py: the python3-dbus client of tests/e2e (run with Debian's /usr/bin/python3).

  e2e-py.py call DEST PATH IFACE METHOD      a method call without arguments
  e2e-py.py get DEST PATH IFACE PROP         Properties.Get
  e2e-py.py getall DEST PATH IFACE           Properties.GetAll: the names
  e2e-py.py listen SECONDS                   print org.mssf.E2E signals

Prints "reply VALUE", "error NAME: TEXT", "props NAME..." or, when
listening, "ready UNIQUE" then "signal MEMBER ARG" lines and "end" once
the Public signal "done" arrives (or the time is up). The system bus is
DBUS_SYSTEM_BUS_ADDRESS, as for every client of the tests.
"""
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib


def show_error(e):
    print("error %s: %s" % (e.get_dbus_name(), e.get_dbus_message()))


def call(bus, dest, path, iface, method):
    proxy = bus.get_object(dest, path, introspect=False)
    print("reply %s" % proxy.get_dbus_method(method, iface)(timeout=10))


def get(bus, dest, path, iface, prop):
    proxy = bus.get_object(dest, path, introspect=False)
    value = proxy.Get(iface, prop, dbus_interface=dbus.PROPERTIES_IFACE, timeout=10)
    print("reply %s" % value)


def getall(bus, dest, path, iface):
    proxy = bus.get_object(dest, path, introspect=False)
    props = proxy.GetAll(iface, dbus_interface=dbus.PROPERTIES_IFACE, timeout=10)
    print("props %s" % " ".join(sorted(str(k) for k in props)))


def listen(bus, seconds):
    loop = GLib.MainLoop()

    def on_signal(*args, **kw):
        member = kw["member"]
        print("signal %s %s" % (member, args[0] if args else ""), flush=True)
        if member == "Public" and args and args[0] == "done":
            loop.quit()

    bus.add_signal_receiver(on_signal, dbus_interface="org.mssf.E2E", member_keyword="member")
    print("ready %s" % bus.get_unique_name(), flush=True)
    GLib.timeout_add_seconds(int(seconds), loop.quit)
    loop.run()
    print("end", flush=True)


def main(argv):
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    commands = {"call": (call, 4), "get": (get, 4), "getall": (getall, 3), "listen": (listen, 1)}
    if len(argv) < 2 or argv[1] not in commands or len(argv) - 2 != commands[argv[1]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    bus = dbus.SystemBus()
    try:
        commands[argv[1]][0](bus, *argv[2:])
    except dbus.exceptions.DBusException as e:
        show_error(e)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
