#!/usr/bin/python3
"""A service that answers the way mssf-broker makes a service look.

On a plain dbus-daemon nothing is hidden or refused, so to check how
mssf-demo-app reports what the MSSF bus does, this stand-in does it itself:
org.mssf.Mock at /org/mssf/Mock introspects with the properties Visible
and Hidden, but GetAll and GetManagedObjects return only Visible (as the bus
removes a protected property), Get("Hidden") and the method Secret fail
with org.freedesktop.DBus.Error.AccessDenied (as the bus refuses), and
Emit sends a PropertiesChanged with nothing left in it (as the bus sends
one whose every property was removed).

Connects to $DBUS_SYSTEM_BUS_ADDRESS; prints "org.mssf.Mock: ready".
"""
import os
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.mssf.Mock"
PATH = "/org/mssf/Mock"
INTERFACE = "org.mssf.Mock"
PROPERTIES = "org.freedesktop.DBus.Properties"
OBJECT_MANAGER = "org.freedesktop.DBus.ObjectManager"

XML = """<node>
  <interface name="org.mssf.Mock">
    <method name="Secret"/>
    <method name="Emit"/>
    <property name="Visible" type="s" access="read"/>
    <property name="Hidden" type="s" access="read"/>
  </interface>
</node>"""


class AccessDenied(dbus.DBusException):
    _dbus_error_name = "org.freedesktop.DBus.Error.AccessDenied"


class Mock(dbus.service.Object):
    @dbus.service.method("org.freedesktop.DBus.Introspectable", out_signature="s")
    def Introspect(self):
        return XML

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if name == "Hidden":
            raise AccessDenied("label test may not read Hidden (needs token Secret)")
        return dbus.String("yes")

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return dbus.Dictionary({"Visible": dbus.String("yes")}, signature="sv")

    @dbus.service.method(OBJECT_MANAGER, out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        return {dbus.ObjectPath(PATH): {INTERFACE: {"Visible": dbus.String("yes")}}}

    @dbus.service.method(INTERFACE)
    def Secret(self):
        raise AccessDenied("label test lacks token Secret for org.mssf.Mock.Secret")

    @dbus.service.method(INTERFACE)
    def Emit(self):
        self.PropertiesChanged(INTERFACE, dbus.Dictionary({}, signature="sv"),
                               dbus.Array([], signature="s"))

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    mock = Mock(bus, PATH)
    print(f"{NAME}: ready", flush=True)
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, loop.quit)
    loop.run()
    del mock, name
    return 0


if __name__ == "__main__":
    sys.exit(main())
