"""Each real client against the bus: gdbus (call, emit, introspect),
busctl (call, list, status, introspect), dbus-send, python3-dbus proxies
and signal receivers, GDBus through python3-gi (client and exported
object), and the libdbus and sd-bus helper programs, calling each other."""
import os
import re
import time

from rawdbus import check_reply, SIGNAL
from busfixture import Skip, wait_until

TPATH, TIFACE = '/org/mssf/Test', 'org.mssf.Test'


def listener(bus, rule="type='signal',interface='org.mssf.Sig'"):
    conn = bus.raw()
    conn.add_match(rule)
    return conn


def wait_signal(conn, member, timeout=5):
    return conn.wait_for(lambda m: m.type == SIGNAL and m.member == member,
                         timeout)


# --- gdbus -----------------------------------------------------------------
def test_gdbus_call(bus):
    bus.service('org.mssf.Test')
    res = bus.run(['gdbus', 'call', '--address', bus.address, '--dest',
                   'org.mssf.Test', '--object-path', TPATH, '--method',
                   'org.mssf.Test.Echo', 'from gdbus'])
    assert res.stdout.strip() == "('from gdbus',)", res.stdout


def test_gdbus_call_driver(bus):
    res = bus.run(['gdbus', 'call', '--address', bus.address, '--dest',
                   'org.freedesktop.DBus', '--object-path',
                   '/org/freedesktop/DBus', '--method',
                   'org.freedesktop.DBus.GetNameOwner',
                   'org.freedesktop.DBus'])
    assert res.stdout.strip() == "('org.freedesktop.DBus',)", res.stdout


def test_gdbus_call_error(bus):
    bus.service('org.mssf.Test')
    res = bus.run(['gdbus', 'call', '--address', bus.address, '--dest',
                   'org.mssf.Test', '--object-path', TPATH, '--method',
                   'org.mssf.Test.Fail', 'org.mssf.Test.Error.Gdbus',
                   'told to fail'], check=False)
    assert res.returncode != 0
    assert 'GDBus.Error:org.mssf.Test.Error.Gdbus: told to fail' in \
        res.stderr, res.stderr


def test_gdbus_call_missing_name(bus):
    res = bus.run(['gdbus', 'call', '--address', bus.address, '--dest',
                   'org.mssf.Nobody', '--object-path', TPATH, '--method',
                   'org.mssf.Test.Echo', 'x'], check=False)
    assert res.returncode != 0
    assert 'org.freedesktop.DBus.Error.ServiceUnknown' in res.stderr, \
        res.stderr


def test_gdbus_emit(bus):
    # gdbus emit --address makes a peer connection (no Hello), whose
    # signal a bus drops; as a bus client it uses the session bus.
    conn = listener(bus)
    bus.run(['gdbus', 'emit', '--session', '--object-path',
             '/org/mssf/Sig', '--signal', 'org.mssf.Sig.FromGdbus',
             "'gdbus arg'"], env=bus.session_env())
    sig = wait_signal(conn, 'FromGdbus')
    assert sig.body == ['gdbus arg'] and sig.path == '/org/mssf/Sig', sig


def test_gdbus_introspect_driver(bus):
    res = bus.run(['gdbus', 'introspect', '--address', bus.address, '--dest',
                   'org.freedesktop.DBus', '--object-path',
                   '/org/freedesktop/DBus'])
    assert 'interface org.freedesktop.DBus {' in res.stdout, res.stdout
    assert 'RequestName(in  s' in res.stdout, res.stdout
    assert 'NameOwnerChanged(' in res.stdout, res.stdout


# --- busctl ----------------------------------------------------------------
def busctl(bus, *args, check=True, timeout=10):
    return bus.run(['busctl', '--address=' + bus.address, '--no-pager']
                   + list(args), check=check, timeout=timeout)


def test_busctl_call(bus):
    bus.service('org.mssf.Test')
    res = busctl(bus, 'call', 'org.mssf.Test', TPATH, TIFACE, 'Echo', 's',
                 'from busctl')
    assert res.stdout.strip() == 's "from busctl"', res.stdout


def test_busctl_call_error(bus):
    bus.service('org.mssf.Test')
    res = busctl(bus, 'call', 'org.mssf.Test', TPATH, TIFACE, 'Fail', 'ss',
                 'org.mssf.Test.Error.Busctl', 'busctl failure',
                 check=False)
    assert res.returncode != 0
    assert 'busctl failure' in res.stderr, res.stderr


def test_busctl_list(bus):
    proc, unique = bus.service('org.mssf.Test')
    res = busctl(bus, 'list')
    rows = dict((line.split()[0], line.split()) for line in
                res.stdout.splitlines()[1:] if line.strip())
    assert 'org.mssf.Test' in rows, res.stdout
    assert rows['org.mssf.Test'][1] == str(proc.pid), rows['org.mssf.Test']
    assert rows[unique][1] == str(proc.pid), rows[unique]
    assert rows['org.freedesktop.DBus'][1] == str(bus.proc.pid), res.stdout


def test_busctl_status(bus):
    proc, unique = bus.service('org.mssf.Test')
    res = busctl(bus, 'status', 'org.mssf.Test')
    fields = dict(line.split('=', 1) for line in res.stdout.splitlines()
                  if '=' in line and not line.startswith(' '))
    assert fields.get('PID') == str(proc.pid), res.stdout
    assert fields.get('UID') == str(os.getuid()), res.stdout
    assert fields.get('UniqueName') == unique, res.stdout


def test_busctl_introspect(bus):
    res = busctl(bus, 'introspect', 'org.freedesktop.DBus',
                 '/org/freedesktop/DBus')
    assert re.search(r'^\.GetNameOwner\s+method\s+s\s+s', res.stdout, re.M), \
        res.stdout
    assert re.search(r'^org\.freedesktop\.DBus\.Peer\s+interface',
                     res.stdout, re.M), res.stdout


# --- dbus-send -------------------------------------------------------------
def dbus_send(bus, *args, check=True):
    return bus.run(['dbus-send', '--bus=' + bus.address] + list(args),
                   check=check)


def test_dbus_send_call(bus):
    bus.service('org.mssf.Test')
    res = dbus_send(bus, '--print-reply', '--dest=org.mssf.Test', TPATH,
                    'org.mssf.Test.Echo', 'string:from dbus-send')
    assert 'string "from dbus-send"' in res.stdout, res.stdout
    assert res.stdout.startswith('method return'), res.stdout


def test_dbus_send_driver(bus):
    res = dbus_send(bus, '--print-reply', '--dest=org.freedesktop.DBus',
                    '/org/freedesktop/DBus', 'org.freedesktop.DBus.ListNames')
    assert 'string "org.freedesktop.DBus"' in res.stdout, res.stdout


def test_dbus_send_error(bus):
    bus.service('org.mssf.Test')
    res = dbus_send(bus, '--print-reply', '--dest=org.mssf.Test', TPATH,
                    'org.mssf.Test.Fail', 'string:org.mssf.Test.Error.Send',
                    'string:send failed', check=False)
    assert res.returncode != 0
    assert 'Error org.mssf.Test.Error.Send: send failed' in res.stderr, \
        res.stderr


def test_dbus_send_signal(bus):
    conn = listener(bus)
    dbus_send(bus, '--type=signal', '/org/mssf/Sig', 'org.mssf.Sig.FromSend',
              'string:send arg', 'uint32:7')
    sig = wait_signal(conn, 'FromSend')
    assert sig.body == ['send arg', 7], sig


# --- python3-dbus ----------------------------------------------------------
def test_python_dbus_proxy(bus):
    import dbus
    bus.service('org.mssf.Test')
    client = bus.pyclient()
    obj = client.conn.get_object('org.mssf.Test', TPATH)
    iface = dbus.Interface(obj, TIFACE)
    assert iface.Echo('from python', timeout=5) == 'from python'
    try:
        iface.Fail('org.mssf.Test.Error.Py', 'python failure', timeout=5)
        raise AssertionError('Fail did not fail')
    except dbus.exceptions.DBusException as e:
        assert e.get_dbus_name() == 'org.mssf.Test.Error.Py'
        assert e.get_dbus_message() == 'python failure'
    xml = obj.Introspect(dbus_interface='org.freedesktop.DBus.Introspectable',
                         timeout=5)
    assert '<method name="Echo">' in xml, xml
    client.close()


def test_python_dbus_signal_receiver(bus):
    import pyclient
    proc, unique = bus.service('org.mssf.Test')
    client = bus.pyclient()
    got = []
    client.conn.add_signal_receiver(lambda arg: got.append(arg),
                                    signal_name='Notice',
                                    dbus_interface=TIFACE,
                                    bus_name='org.mssf.Test')
    client.call('org.mssf.Test', TPATH, TIFACE, 'Calls')   # rule is in
    client.call('org.mssf.Test', TPATH, TIFACE, 'Emit', 'sss', 'Notice',
                'to python', '')
    wait_until(lambda: (pyclient.iterate(0.02), got)[1], 5,
               'the python signal handler')
    assert got == ['to python'], got
    client.close()


# --- GDBus through python3-gi ----------------------------------------------
def gio_connect(address):
    from gi.repository import Gio
    flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
             Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
    return Gio.DBusConnection.new_for_address_sync(address, flags, None,
                                                   None)


def test_gio_call(bus):
    from gi.repository import GLib, Gio
    bus.service('org.mssf.Test')
    conn = gio_connect(bus.address)
    assert conn.get_unique_name().startswith(':')
    reply = conn.call_sync('org.mssf.Test', TPATH, TIFACE, 'Echo',
                           GLib.Variant('(s)', ('from gio',)),
                           GLib.VariantType('(s)'),
                           Gio.DBusCallFlags.NONE, 5000, None)
    assert reply.unpack() == ('from gio',)
    try:
        conn.call_sync('org.mssf.Test', TPATH, TIFACE, 'Fail',
                       GLib.Variant('(ss)', ('org.mssf.Test.Error.Gio', 'g')),
                       None, Gio.DBusCallFlags.NONE, 5000, None)
        raise AssertionError('Fail did not fail')
    except GLib.Error as e:
        assert Gio.DBusError.get_remote_error(e) == \
            'org.mssf.Test.Error.Gio', e
    conn.close_sync(None)


def test_gio_exported_object(bus):
    """A GDBus service owning a name, called by the libdbus and sd-bus
    helpers and by a raw client."""
    from gi.repository import GLib, Gio
    import pyclient
    conn = gio_connect(bus.address)
    node = Gio.DBusNodeInfo.new_for_xml(
        '<node><interface name="org.mssf.Test"><method name="Echo">'
        '<arg direction="in" type="s"/><arg direction="out" type="s"/>'
        '</method></interface></node>')

    def on_call(conn, sender, path, iface, method, params, invocation):
        invocation.return_value(GLib.Variant('(s)',
                                             ('gio:' + params[0],)))
    conn.register_object(TPATH, node.interfaces[0], on_call, None, None)
    reply = conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                           'org.freedesktop.DBus', 'RequestName',
                           GLib.Variant('(su)', ('org.mssf.Gio', 4)),
                           None, Gio.DBusCallFlags.NONE, 5000, None)
    assert reply.unpack() == (1,)
    a = bus.raw()
    serial = a.send_call('org.mssf.Gio', TPATH, TIFACE, 'Echo', 's', ['raw'])

    def answered():
        pyclient.iterate(0.02)
        for m in a.collect(0.02):
            if m.reply_serial == serial:
                return m
        return None
    reply = wait_until(answered, 5, 'the GDBus service')
    assert reply.body == ['gio:raw'], reply
    for which in ('libdbus', 'sdbus'):
        path = getattr(bus.options, which + '_helper')
        if not path:
            continue
        proc = bus.spawn([path, bus.address, 'call', 'org.mssf.Gio',
                          which])
        wait_until(lambda: (pyclient.iterate(0.02),
                            proc.poll() is not None)[1], 10,
                   which + ' helper call')
        out = proc.stdout.read().decode()
        assert proc.returncode == 0 and out.strip() == 'gio:' + which, out
    conn.close_sync(None)


# --- the libdbus and sd-bus helper programs --------------------------------
def helper_path(bus, which):
    path = getattr(bus.options, which + '_helper')
    if not path:
        raise Skip('%s helper not built' % which)
    return path


def helper_run(bus, which, *args, check=True):
    return bus.run([helper_path(bus, which), bus.address] + list(args),
                   check=check)


def serve_and_call(bus, server, caller):
    proc, unique = bus.helper(server, 'serve', 'org.mssf.' + server)
    res = helper_run(bus, caller, 'call', 'org.mssf.' + server,
                     caller + ' to ' + server)
    assert res.stdout.strip() == caller + ' to ' + server, res.stdout
    # A raw client sees the owner's unique name in the reply.
    a = bus.raw()
    reply = check_reply(a.call('org.mssf.' + server, TPATH, TIFACE, 'Echo',
                               's', ['raw']))
    assert reply.body == ['raw'] and reply.sender == unique, reply
    error = a.call('org.mssf.' + server, TPATH, TIFACE, 'Fail')
    assert error.error_name == 'org.mssf.Test.Error.Failed', error
    a.call('org.mssf.' + server, TPATH, TIFACE, 'Exit', timeout=3)
    proc.wait(5)


def test_libdbus_serves_sdbus_calls(bus):
    serve_and_call(bus, 'libdbus', 'sdbus')


def test_sdbus_serves_libdbus_calls(bus):
    serve_and_call(bus, 'sdbus', 'libdbus')


def test_libdbus_serves_libdbus(bus):
    serve_and_call(bus, 'libdbus', 'libdbus')


def test_sdbus_serves_sdbus(bus):
    serve_and_call(bus, 'sdbus', 'sdbus')


def test_helpers_call_python_service(bus):
    bus.service('org.mssf.Test')
    for which in ('libdbus', 'sdbus'):
        res = helper_run(bus, which, 'call', 'org.mssf.Test', which)
        assert res.stdout.strip() == which, res.stdout


def test_helpers_send_fd(bus):
    bus.service('org.mssf.Test')
    for which in ('libdbus', 'sdbus'):
        res = helper_run(bus, which, 'send-fd', 'org.mssf.Test',
                         'pipe from ' + which)
        assert res.stdout.strip() == 'pipe from ' + which, res.stdout


def test_helpers_emit(bus):
    conn = listener(bus, "type='signal',interface='org.mssf.Test'")
    for which in ('libdbus', 'sdbus'):
        helper_run(bus, which, 'emit', 'From' + which, which + ' arg')
        sig = wait_signal(conn, 'From' + which)
        assert sig.body == [which + ' arg'] and sig.path == TPATH, sig


def test_helpers_missing_name(bus):
    for which in ('libdbus', 'sdbus'):
        res = helper_run(bus, which, 'call', 'org.mssf.Nobody', 'x',
                         check=False)
        assert res.returncode == 1, res
        assert res.stdout.strip() == \
            'org.freedesktop.DBus.Error.ServiceUnknown', res.stdout


def test_gdbus_wait_for_name(bus):
    proc = bus.spawn(['gdbus', 'wait', '--address', bus.address,
                      '--timeout', '10', 'org.mssf.Late'])
    time.sleep(0.5)
    assert proc.poll() is None, 'gdbus wait returned before the name came'
    a = bus.raw()
    check_reply(a.bus_call('RequestName', 'su', ['org.mssf.Late', 0]))
    assert proc.wait(10) == 0


def test_busctl_get_property(bus):
    res = busctl(bus, 'get-property', 'org.freedesktop.DBus',
                 '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                 'Interfaces')
    assert res.stdout.startswith('as '), res.stdout
    assert '"org.freedesktop.DBus.Monitoring"' in res.stdout, res.stdout


def test_busctl_tree(bus):
    res = busctl(bus, 'tree', 'org.freedesktop.DBus', timeout=5)
    assert '/org/freedesktop/DBus' in res.stdout, res.stdout


def test_dbus_send_credentials_query(bus):
    proc, unique = bus.service('org.mssf.Test')
    res = dbus_send(bus, '--print-reply', '--dest=org.freedesktop.DBus',
                    '/org/freedesktop/DBus',
                    'org.freedesktop.DBus.GetConnectionUnixProcessID',
                    'string:org.mssf.Test')
    assert 'uint32 %d' % proc.pid in res.stdout, res.stdout
