#!/usr/bin/python3
"""e2e-pytree: a service that serves a subtree with dbus-python, for tests/e2e.

  e2e-pytree.py [SECONDS]

Owns org.mssf.E2EPyTree and exports a dbus.service.FallbackObject at
/org/mssf/E2EPyTree/Location, so every path below it is served too: the
careless kind of service whose undeclared paths the bus must refuse, or
anyone could read past the manifest. GetPosition and Properties.Get
answer at any of those paths and print what they served
("CALL GetPosition REL", "GET PROPERTY REL", REL "/" for the object
itself). Prints "ready NAME UNIQUE", or "refused ERROR" when the bus does
not let it own the name; runs SECONDS (60).
"""
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.mssf.E2EPyTree"
PATH = "/org/mssf/E2EPyTree/Location"
IFACE = "org.mssf.E2E.Location"
VALUES = {"Position": "py-position-secret", "Accuracy": "py-accuracy-open"}


def say(*words):
    print(*words, flush=True)


class Location(dbus.service.FallbackObject):
    @dbus.service.method(IFACE, out_signature="s", rel_path_keyword="rel")
    def GetPosition(self, rel=None):
        say("CALL GetPosition", rel)
        return VALUES["Position"]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v",
                         rel_path_keyword="rel")
    def Get(self, interface, prop, rel=None):
        say("GET", prop, rel)
        return VALUES.get(prop, "")


def main(argv):
    seconds = int(argv[1]) if len(argv) > 1 else 60
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    try:
        name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    except dbus.exceptions.DBusException as e:
        say("refused", e.get_dbus_name())
        return 1
    location = Location(bus, PATH)
    say("ready", NAME, bus.get_unique_name())
    loop = GLib.MainLoop()
    GLib.timeout_add_seconds(seconds, loop.quit)
    loop.run()
    del name, location
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
