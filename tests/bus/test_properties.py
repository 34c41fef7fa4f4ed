"""Properties and ObjectManager traffic through the bus, from a GDBus
(python3-gi) service: Get, GetAll, Set, PropertiesChanged,
GetManagedObjects, InterfacesAdded/Removed. With no manifest protecting
anything the bus passes all of it unchanged; GDBus' own name ownership
(bus_own_name_on_connection) sees NameLost when replaced."""
from gi.repository import GLib, Gio

import pyclient
from rawdbus import check_reply, ERROR, SIGNAL
from busfixture import wait_until

PROPS = 'org.freedesktop.DBus.Properties'
OM = 'org.freedesktop.DBus.ObjectManager'
NAME, PATH, IFACE = 'org.mssf.Props', '/org/mssf/Props', 'org.mssf.Props'
XML = '''<node>
  <interface name="org.mssf.Props">
    <property name="Level" type="i" access="readwrite"/>
    <property name="Label" type="s" access="read"/>
  </interface>
  <interface name="org.freedesktop.DBus.ObjectManager">
    <method name="GetManagedObjects">
      <arg direction="out" type="a{oa{sa{sv}}}"/>
    </method>
  </interface>
</node>'''


class PropsService:
    def __init__(self, address):
        flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
                 Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
        self.conn = Gio.DBusConnection.new_for_address_sync(address, flags,
                                                            None, None)
        self.level = 5
        self.children = {}
        node = Gio.DBusNodeInfo.new_for_xml(XML)
        self.conn.register_object(PATH, node.interfaces[0], None,
                                  self.get_property, self.set_property)
        self.conn.register_object(PATH, node.interfaces[1],
                                  self.method_call, None, None)
        self.lost = []
        self.owner_id = Gio.bus_own_name_on_connection(
            self.conn, NAME, Gio.BusNameOwnerFlags.ALLOW_REPLACEMENT,
            None, lambda c, n: self.lost.append(n))
        wait_until(lambda: (pyclient.iterate(0.01),
                            self.owned())[1], 5, 'GDBus to own its name')

    def owned(self):
        try:
            reply = self.conn.call_sync(
                'org.freedesktop.DBus', '/org/freedesktop/DBus',
                'org.freedesktop.DBus', 'GetNameOwner',
                GLib.Variant('(s)', (NAME,)), None, Gio.DBusCallFlags.NONE,
                1000, None)
        except GLib.Error:
            return False
        return reply.unpack()[0] == self.conn.get_unique_name()

    def get_property(self, conn, sender, path, iface, name):
        if name == 'Level':
            return GLib.Variant('i', self.level)
        return GLib.Variant('s', 'label')

    def set_property(self, conn, sender, path, iface, name, value):
        self.level = value.unpack()
        self.conn.emit_signal(None, PATH, PROPS, 'PropertiesChanged',
                              GLib.Variant('(sa{sv}as)', (
                                  IFACE, {'Level': GLib.Variant(
                                      'i', self.level)}, [])))
        return True

    def managed(self):
        return dict((path, {IFACE: {'Level': GLib.Variant('i', n)}})
                    for path, n in self.children.items())

    def method_call(self, conn, sender, path, iface, method, params,
                    invocation):
        invocation.return_value(GLib.Variant('(a{oa{sa{sv}}})',
                                             (self.managed(),)))

    def add_child(self, path, n):
        self.children[path] = n
        self.conn.emit_signal(None, PATH, OM, 'InterfacesAdded',
                              GLib.Variant('(oa{sa{sv}})', (
                                  path, {IFACE: {'Level': GLib.Variant(
                                      'i', n)}})))

    def remove_child(self, path):
        del self.children[path]
        self.conn.emit_signal(None, PATH, OM, 'InterfacesRemoved',
                              GLib.Variant('(oas)', (path, [IFACE])))

    def close(self):
        Gio.bus_unown_name(self.owner_id)
        self.conn.close_sync(None)


def call(conn, dest, path, iface, member, signature='', body=()):
    """A raw call, answered while the GLib service runs."""
    serial = conn.send_call(dest, path, iface, member, signature, body)

    def answered():
        pyclient.iterate(0.01)
        for m in conn.collect(0.01):
            if m.reply_serial == serial:
                return m
            conn.queue.append(m)
        return None
    return wait_until(answered, 5, member + ' answered')


def signal_seen(conn, member):
    def seen():
        pyclient.iterate(0.01)
        for m in conn.collect(0.01):
            if m.type == SIGNAL and m.member == member:
                return m
        return None
    return wait_until(seen, 5, member)


def test_get_getall_set(bus):
    service = PropsService(bus.address)
    a = bus.raw()
    reply = check_reply(call(a, NAME, PATH, PROPS, 'Get', 'ss',
                             [IFACE, 'Level']))
    assert reply.body == [('i', 5)], reply
    reply = check_reply(call(a, NAME, PATH, PROPS, 'GetAll', 's', [IFACE]))
    assert reply.body == [{'Level': ('i', 5), 'Label': ('s', 'label')}], \
        reply
    reply = call(a, NAME, PATH, PROPS, 'Set', 'ssv',
                 [IFACE, 'Label', ('s', 'new')])
    assert reply.type == ERROR, reply      # read-only, GDBus refuses
    check_reply(call(a, NAME, PATH, PROPS, 'Set', 'ssv',
                     [IFACE, 'Level', ('i', 9)]))
    reply = check_reply(call(a, NAME, PATH, PROPS, 'Get', 'ss',
                             [IFACE, 'Level']))
    assert reply.body == [('i', 9)], reply
    service.close()


def test_properties_changed_reaches_listener(bus):
    service = PropsService(bus.address)
    listener, setter = bus.raw(), bus.raw()
    listener.add_match("type='signal',interface='%s',"
                       "member='PropertiesChanged',arg0='%s'" % (PROPS, IFACE))
    check_reply(call(setter, NAME, PATH, PROPS, 'Set', 'ssv',
                     [IFACE, 'Level', ('i', 42)]))
    sig = signal_seen(listener, 'PropertiesChanged')
    assert sig.body == [IFACE, {'Level': ('i', 42)}, []], sig
    assert sig.sender == service.conn.get_unique_name()
    service.close()


def test_object_manager(bus):
    service = PropsService(bus.address)
    a = bus.raw()
    a.add_match("type='signal',interface='%s'" % OM)
    service.add_child('/org/mssf/Props/one', 1)
    sig = signal_seen(a, 'InterfacesAdded')
    assert sig.body == ['/org/mssf/Props/one', {IFACE: {'Level': ('i', 1)}}]
    service.add_child('/org/mssf/Props/two', 2)
    signal_seen(a, 'InterfacesAdded')
    reply = check_reply(call(a, NAME, PATH, OM, 'GetManagedObjects'))
    assert reply.body == [{
        '/org/mssf/Props/one': {IFACE: {'Level': ('i', 1)}},
        '/org/mssf/Props/two': {IFACE: {'Level': ('i', 2)}}}], reply
    service.remove_child('/org/mssf/Props/one')
    sig = signal_seen(a, 'InterfacesRemoved')
    assert sig.body == ['/org/mssf/Props/one', [IFACE]], sig
    service.close()


def test_gdbus_name_replaced(bus):
    service = PropsService(bus.address)
    a = bus.raw()
    reply = check_reply(a.bus_call('RequestName', 'su', [NAME, 2]))
    assert reply.body == [1], reply             # replaced GDBus
    wait_until(lambda: (pyclient.iterate(0.01), service.lost)[1], 5,
               "GDBus' name_lost callback")
    assert service.lost == [NAME]
    service.close()
