"""The bus driver, org.freedesktop.DBus: Hello and every query method.

Results are checked against what the kernel says about the caller (our
pid and uid), error names against the D-Bus specification and what
dbus-daemon answers.
"""
import os
import re
import xml.etree.ElementTree as ET

import rawdbus
from rawdbus import check_reply, ERROR, METHOD_RETURN, SIGNAL
from busfixture import config, wait_until

BUS = 'org.freedesktop.DBus'
PATH = '/org/freedesktop/DBus'
PROPS = 'org.freedesktop.DBus.Properties'


def error_of(reply):
    assert reply.type == ERROR, 'expected an error, got %r' % reply
    return reply.error_name


def ok(reply):
    assert reply.type == METHOD_RETURN, 'expected a return, got %r' % reply
    return reply.body


def test_hello_unique_names(bus):
    names = [bus.raw().unique_name for _ in range(5)]
    for name in names:
        assert re.match(r'^:[0-9]+\.[0-9]+$', name), name
    assert len(set(names)) == 5, names


def test_unique_names_not_reused(bus):
    seen = set()
    for _ in range(20):
        conn = bus.raw()
        assert conn.unique_name not in seen, conn.unique_name
        seen.add(conn.unique_name)
        conn.close()


def test_hello_then_name_acquired(bus):
    conn = bus.raw(connect=False)
    conn.authenticate()
    serial = conn.send_call(BUS, PATH, BUS, 'Hello')
    messages = []
    while len(messages) < 2:
        messages.append(conn.wait_for(lambda m: True))
    reply, signal = messages
    assert reply.type == METHOD_RETURN and reply.reply_serial == serial
    assert reply.sender == BUS
    unique = reply.body[0]
    assert reply.destination == unique
    assert signal.type == SIGNAL and signal.member == 'NameAcquired', signal
    assert signal.interface == BUS and signal.path == PATH
    assert signal.sender == BUS and signal.destination == unique
    assert signal.body == [unique]


def test_second_hello_fails(bus):
    conn = bus.raw()
    assert error_of(conn.bus_call('Hello')) == \
        'org.freedesktop.DBus.Error.Failed'
    assert ok(conn.bus_call('GetId'))


def test_call_before_hello_denied(bus):
    # dbus-daemon answers AccessDenied and lets the client say Hello next.
    conn = bus.raw(connect=False)
    conn.authenticate()
    reply = conn.call(BUS, PATH, BUS, 'ListNames')
    assert error_of(reply) == 'org.freedesktop.DBus.Error.AccessDenied'
    unique = ok(conn.bus_call('Hello'))[0]
    assert unique in ok(conn.bus_call('ListNames'))[0]


def test_list_names(bus):
    a, b = bus.raw(), bus.raw()
    check_reply(a.bus_call('RequestName', 'su', ['org.mssf.Listed', 0]))
    names = ok(b.bus_call('ListNames'))[0]
    for name in (BUS, a.unique_name, b.unique_name, 'org.mssf.Listed'):
        assert name in names, (name, names)
    assert len(names) == len(set(names)), names
    a.close()
    wait_until(lambda: a.unique_name not in
               ok(b.bus_call('ListNames'))[0], what='name gone')
    assert 'org.mssf.Listed' not in ok(b.bus_call('ListNames'))[0]


def test_name_has_owner(bus):
    a, b = bus.raw(), bus.raw()
    check_reply(a.bus_call('RequestName', 'su', ['org.mssf.Owned', 0]))
    assert ok(b.bus_call('NameHasOwner', 's', ['org.mssf.Owned'])) == [True]
    assert ok(b.bus_call('NameHasOwner', 's', [a.unique_name])) == [True]
    assert ok(b.bus_call('NameHasOwner', 's', [BUS])) == [True]
    assert ok(b.bus_call('NameHasOwner', 's', ['org.mssf.None'])) == [False]
    assert ok(b.bus_call('NameHasOwner', 's', [':1.9999'])) == [False]


def test_get_name_owner(bus):
    a, b = bus.raw(), bus.raw()
    check_reply(a.bus_call('RequestName', 'su', ['org.mssf.Owned', 0]))
    assert ok(b.bus_call('GetNameOwner', 's', ['org.mssf.Owned'])) == \
        [a.unique_name]
    assert ok(b.bus_call('GetNameOwner', 's', [a.unique_name])) == \
        [a.unique_name]
    assert ok(b.bus_call('GetNameOwner', 's', [BUS])) == [BUS]
    for name in ('org.mssf.None', ':1.9999'):
        assert error_of(b.bus_call('GetNameOwner', 's', [name])) == \
            'org.freedesktop.DBus.Error.NameHasNoOwner'


def test_get_connection_unix_user(bus):
    a = bus.raw()
    check_reply(a.bus_call('RequestName', 'su', ['org.mssf.Owned', 0]))
    for name in (a.unique_name, 'org.mssf.Owned'):
        assert ok(a.bus_call('GetConnectionUnixUser', 's', [name])) == \
            [os.getuid()]
    assert ok(a.bus_call('GetConnectionUnixUser', 's', [BUS])) == \
        [os.getuid()]
    assert error_of(a.bus_call('GetConnectionUnixUser', 's',
                               ['org.mssf.None'])) == \
        'org.freedesktop.DBus.Error.NameHasNoOwner'


def test_get_connection_unix_process_id(bus):
    a = bus.raw()
    assert ok(a.bus_call('GetConnectionUnixProcessID', 's',
                         [a.unique_name])) == [os.getpid()]
    assert ok(a.bus_call('GetConnectionUnixProcessID', 's', [BUS])) == \
        [bus.proc.pid]
    # A client in another process: its own pid, not ours.
    proc, unique = bus.service('org.mssf.Test')
    for name in (unique, 'org.mssf.Test'):
        assert ok(a.bus_call('GetConnectionUnixProcessID', 's', [name])) == \
            [proc.pid]
    assert error_of(a.bus_call('GetConnectionUnixProcessID', 's',
                               [':1.9999'])) == \
        'org.freedesktop.DBus.Error.NameHasNoOwner'


def test_get_connection_credentials(bus):
    a = bus.raw()
    creds = ok(a.bus_call('GetConnectionCredentials', 's',
                          [a.unique_name]))[0]
    assert creds['UnixUserID'] == ('u', os.getuid()), creds
    assert creds['ProcessID'] == ('u', os.getpid()), creds
    if 'UnixGroupIDs' in creds:
        sig, groups = creds['UnixGroupIDs']
        assert sig == 'au', creds
        assert set(groups) == set([os.getgid()] + os.getgroups()), creds
    if 'LinuxSecurityLabel' in creds:
        assert creds['LinuxSecurityLabel'][0] == 'ay', creds
    bus_creds = ok(a.bus_call('GetConnectionCredentials', 's', [BUS]))[0]
    assert bus_creds['UnixUserID'] == ('u', os.getuid()), bus_creds
    assert bus_creds['ProcessID'] == ('u', bus.proc.pid), bus_creds
    assert error_of(a.bus_call('GetConnectionCredentials', 's',
                               ['org.mssf.None'])) == \
        'org.freedesktop.DBus.Error.NameHasNoOwner'


def test_get_id(bus):
    a, b = bus.raw(), bus.raw()
    bus_id = ok(b.bus_call('GetId'))[0]
    assert re.match('^[0-9a-f]{32}$', bus_id), bus_id
    # One id for the whole bus, whoever asks.
    assert ok(a.bus_call('GetId')) == [bus_id]


def test_list_queued_owners(bus):
    a, b, c = bus.raw(), bus.raw(), bus.raw()
    for conn in (a, b, c):
        check_reply(conn.bus_call('RequestName', 'su', ['org.mssf.Q', 0]))
    assert ok(a.bus_call('ListQueuedOwners', 's', ['org.mssf.Q'])) == \
        [[a.unique_name, b.unique_name, c.unique_name]]
    assert ok(a.bus_call('ListQueuedOwners', 's', [BUS])) == [[BUS]]
    assert ok(a.bus_call('ListQueuedOwners', 's', [b.unique_name])) == \
        [[b.unique_name]]
    assert error_of(a.bus_call('ListQueuedOwners', 's',
                               ['org.mssf.None'])) == \
        'org.freedesktop.DBus.Error.NameHasNoOwner'
    b.close()
    wait_until(lambda: ok(a.bus_call('ListQueuedOwners', 's',
                                     ['org.mssf.Q']))
               == [[a.unique_name, c.unique_name]],
               what='the closed connection leaves the queue')


def test_list_activatable_names(bus):
    a = bus.raw()
    names = ok(a.bus_call('ListActivatableNames'))[0]
    assert BUS in names, names
    assert 'org.mssf.Test' not in names, names


def test_start_service_by_name_unknown(bus):
    a = bus.raw()
    for name in ('org.mssf.NotActivatable', ':1.9999'):
        assert error_of(a.bus_call('StartServiceByName', 'su',
                                   [name, 0])) == \
            'org.freedesktop.DBus.Error.ServiceUnknown'


def test_start_service_by_name_owned_not_activatable(bus):
    # An owned name without a .service file is still not activatable.
    proc, unique = bus.service('org.mssf.Test')
    a = bus.raw()
    assert error_of(a.bus_call('StartServiceByName', 'su',
                               ['org.mssf.Test', 0])) == \
        'org.freedesktop.DBus.Error.ServiceUnknown'


def test_properties(bus):
    a = bus.raw()
    features = ok(a.call(BUS, PATH, PROPS, 'Get', 'ss', [BUS, 'Features']))
    assert features[0][0] == 'as', features
    interfaces = ok(a.call(BUS, PATH, PROPS, 'Get', 'ss',
                           [BUS, 'Interfaces']))
    assert interfaces[0][0] == 'as', interfaces
    assert 'org.freedesktop.DBus.Monitoring' in interfaces[0][1], interfaces
    everything = ok(a.call(BUS, PATH, PROPS, 'GetAll', 's', [BUS]))[0]
    assert everything == {'Features': features[0],
                          'Interfaces': interfaces[0]}, everything


def test_properties_errors(bus):
    a = bus.raw()
    assert error_of(a.call(BUS, PATH, PROPS, 'Get', 'ss',
                           [BUS, 'NoSuchProperty'])) == \
        'org.freedesktop.DBus.Error.UnknownProperty'
    assert error_of(a.call(BUS, PATH, PROPS, 'Get', 'ss',
                           ['org.mssf.NoSuchInterface', 'Features'])) == \
        'org.freedesktop.DBus.Error.UnknownInterface'
    assert error_of(a.call(BUS, PATH, PROPS, 'GetAll', 's',
                           ['org.mssf.NoSuchInterface'])) == \
        'org.freedesktop.DBus.Error.UnknownInterface'
    assert error_of(a.call(BUS, PATH, PROPS, 'Set', 'ssv',
                           [BUS, 'Features', ('as', [])])) == \
        'org.freedesktop.DBus.Error.PropertyReadOnly'


def test_properties_only_at_canonical_path(bus):
    """dbus-daemon implements Properties at /org/freedesktop/DBus only:
    elsewhere the interface does not exist."""
    a = bus.raw()
    for path in ('/', '/org/freedesktop', '/org/freedesktop/DBus/x'):
        for member, sig, body in (('Get', 'ss', [BUS, 'Features']),
                                  ('GetAll', 's', [BUS]),
                                  ('Set', 'ssv', [BUS, 'Features',
                                                  ('as', [])])):
            assert error_of(a.call(BUS, path, PROPS, member, sig, body)) == \
                'org.freedesktop.DBus.Error.UnknownInterface', (path, member)
        # The bus interface itself lives everywhere.
        assert ok(a.call(BUS, path, BUS, 'GetId'))


def test_no_reply_expected_suppresses_only_acks(bus):
    """dbus-daemon answers a NO_REPLY_EXPECTED call to the driver anyway,
    except with the empty acks of AddMatch, RemoveMatch, Ping,
    UpdateActivationEnvironment and BecomeMonitor; errors always."""
    a = bus.raw()
    flags = rawdbus.NO_REPLY_EXPECTED
    answered = [a.send_call(BUS, PATH, BUS, 'GetId', flags=flags),
                a.send_call(BUS, PATH, BUS, 'ListNames', flags=flags),
                a.send_call(BUS, PATH, BUS, 'ReloadConfig', flags=flags),
                a.send_call(BUS, PATH, BUS, 'NoSuchMethod', flags=flags)]
    acks = [a.send_call(BUS, PATH, BUS, 'AddMatch', 's', ["member='X'"],
                        flags=flags),
            a.send_call(BUS, PATH, BUS, 'RemoveMatch', 's', ["member='X'"],
                        flags=flags),
            a.send_call(BUS, PATH, 'org.freedesktop.DBus.Peer', 'Ping',
                        flags=flags)]
    got = dict((m.reply_serial, m) for m in a.collect(0.5)
               if m.reply_serial)
    assert not set(acks) & set(got), got
    assert sorted(got) == sorted(answered), got
    assert got[answered[3]].error_name == \
        'org.freedesktop.DBus.Error.UnknownMethod', got


def test_introspect(bus):
    a = bus.raw()
    xml = ok(a.call(BUS, PATH, 'org.freedesktop.DBus.Introspectable',
                    'Introspect'))[0]
    root = ET.fromstring(xml)
    interfaces = dict((i.get('name'), i) for i in root.findall('interface'))
    for name in (BUS, PROPS, 'org.freedesktop.DBus.Introspectable',
                 'org.freedesktop.DBus.Peer',
                 'org.freedesktop.DBus.Monitoring'):
        assert name in interfaces, (name, sorted(interfaces))

    def signature(method):
        ins = ''.join(a.get('type') for a in method.findall('arg')
                      if a.get('direction', 'in') == 'in')
        outs = ''.join(a.get('type') for a in method.findall('arg')
                       if a.get('direction') == 'out')
        return ins, outs

    methods = dict((m.get('name'), signature(m))
                   for m in interfaces[BUS].findall('method'))
    expected = {
        'Hello': ('', 's'), 'RequestName': ('su', 'u'),
        'ReleaseName': ('s', 'u'), 'StartServiceByName': ('su', 'u'),
        'UpdateActivationEnvironment': ('a{ss}', ''),
        'NameHasOwner': ('s', 'b'), 'ListNames': ('', 'as'),
        'ListActivatableNames': ('', 'as'), 'AddMatch': ('s', ''),
        'RemoveMatch': ('s', ''), 'GetNameOwner': ('s', 's'),
        'ListQueuedOwners': ('s', 'as'),
        'GetConnectionUnixUser': ('s', 'u'),
        'GetConnectionUnixProcessID': ('s', 'u'),
        'GetConnectionCredentials': ('s', 'a{sv}'),
        'ReloadConfig': ('', ''), 'GetId': ('', 's'),
    }
    for name, sig in expected.items():
        assert methods.get(name) == sig, (name, methods.get(name), sig)
    signals = set(s.get('name') for s in interfaces[BUS].findall('signal'))
    assert {'NameOwnerChanged', 'NameLost', 'NameAcquired'} <= signals
    props = dict((p.get('name'), (p.get('type'), p.get('access')))
                 for p in interfaces[BUS].findall('property'))
    assert props.get('Features') == ('as', 'read'), props
    assert props.get('Interfaces') == ('as', 'read'), props


def test_introspect_tree(bus):
    """Following <node> children from / reaches /org/freedesktop/DBus and
    ends there (busctl tree walks it this way)."""
    a = bus.raw()
    seen, todo = {}, ['/']
    while todo:
        path = todo.pop()
        assert len(seen) < 20 and path.count('/') < 8, \
            'the tree does not end: %s' % sorted(seen)
        xml = ok(a.call(BUS, path, 'org.freedesktop.DBus.Introspectable',
                        'Introspect'))[0]
        root = ET.fromstring(xml)
        children = [n.get('name') for n in root.findall('node')]
        seen[path] = children
        for child in children:
            todo.append(path.rstrip('/') + '/' + child)
    assert PATH in seen, sorted(seen)
    assert seen[PATH] == [], seen[PATH]


def test_peer(bus):
    a = bus.raw()
    assert ok(a.call(BUS, PATH, 'org.freedesktop.DBus.Peer', 'Ping')) == []
    machine_id = ok(a.call(BUS, PATH, 'org.freedesktop.DBus.Peer',
                           'GetMachineId'))[0]
    assert re.match('^[0-9a-f]{32}$', machine_id), machine_id
    try:
        with open('/etc/machine-id') as f:
            expected = f.read().strip()
    except OSError:
        expected = None
    if expected:
        assert machine_id == expected, (machine_id, expected)


PEER = 'org.freedesktop.DBus.Peer'


def peer_without_destination(conn, type, member, flags=0):
    fields = {rawdbus.FIELD_PATH: '/', rawdbus.FIELD_INTERFACE: PEER,
              rawdbus.FIELD_MEMBER: member}
    return conn.send(rawdbus.Message(type, 0, flags, fields))


def test_peer_interface_without_destination_is_the_bus_connections(bus):
    """As libdbus inside dbus-daemon answers it: Ping and GetMachineId are
    answered, anything else on the interface (a signal too, whatever its
    flags) gets UnknownMethod; the answers have no sender, and neither
    the message nor its answer reaches a subscriber or a monitor."""
    a, spy, mon = bus.raw(), bus.raw(), bus.raw()
    spy.add_match("type='signal'")
    spy.add_match("interface='%s'" % PEER)
    check_reply(mon.call(BUS, PATH, 'org.freedesktop.DBus.Monitoring',
                         'BecomeMonitor', 'asu', [[], 0]))
    machine_id = ok(a.call(BUS, PATH, PEER, 'GetMachineId'))[0]
    sent = {}
    for type, member, flags in [(rawdbus.METHOD_CALL, 'Ping', 0),
                                (rawdbus.METHOD_CALL, 'GetMachineId', 0),
                                (rawdbus.METHOD_CALL, 'Frobnicate', 0),
                                (rawdbus.METHOD_CALL, 'Frobnicate',
                                 rawdbus.NO_REPLY_EXPECTED),
                                (SIGNAL, 'Changed', 0),
                                (SIGNAL, 'Ping', rawdbus.NO_REPLY_EXPECTED)]:
        sent[peer_without_destination(a, type, member, flags)] = member
    answers = {}
    for serial, member in sent.items():
        m = a.wait_for(lambda m, s=serial: m.reply_serial == s)
        assert m.sender is None, m
        answers[member + '/' + str(serial)] = (m.type, m.error_name, m.body)
    got = sorted(answers.values(), key=repr)
    unknown = (ERROR, 'org.freedesktop.DBus.Error.UnknownMethod',
               ['Unknown method invoked on org.freedesktop.DBus.Peer '
                'interface'])
    assert got == sorted([(METHOD_RETURN, None, []),
                          (METHOD_RETURN, None, [machine_id])] +
                         [unknown] * 4, key=repr), got
    a.signal('/', 'org.mssf.Other', 'Changed')
    spy.wait_for(lambda m: m.interface == 'org.mssf.Other')
    mon.wait_for(lambda m: m.interface == 'org.mssf.Other')
    seen = [m for m in spy.collect(0.2) + mon.collect(0.2)
            if m.sender is None or
            (m.interface == PEER and m.destination is None)]
    assert not seen, seen


def test_peer_interface_without_destination_before_hello(bus):
    """Answered before Hello too, and the client may still say Hello."""
    a = bus.raw(connect=False)
    a.authenticate()
    serial = peer_without_destination(a, SIGNAL, 'Changed')
    m = a.wait_for(lambda m: m.reply_serial == serial)
    assert m.error_name == 'org.freedesktop.DBus.Error.UnknownMethod', m
    serial = peer_without_destination(a, rawdbus.METHOD_CALL, 'Ping')
    assert a.wait_for(lambda m: m.reply_serial == serial).type == \
        METHOD_RETURN
    check_reply(a.call(BUS, PATH, BUS, 'Hello'))


def test_unknown_method(bus):
    a = bus.raw()
    assert error_of(a.bus_call('NoSuchMethod')) == \
        'org.freedesktop.DBus.Error.UnknownMethod'
    assert error_of(a.call(BUS, PATH, 'org.freedesktop.DBus.NoSuchInterface',
                           'ListNames')) in (
        'org.freedesktop.DBus.Error.UnknownInterface',
        'org.freedesktop.DBus.Error.UnknownMethod')
    assert ok(a.bus_call('GetId'))


def test_call_without_interface(bus):
    a = bus.raw()
    names = ok(a.call(BUS, PATH, None, 'ListNames'))[0]
    assert a.unique_name in names, names


def test_wrong_signature(bus):
    a = bus.raw()
    assert error_of(a.bus_call('NameHasOwner', 'u', [5])) == \
        'org.freedesktop.DBus.Error.InvalidArgs'
    assert error_of(a.bus_call('NameHasOwner')) == \
        'org.freedesktop.DBus.Error.InvalidArgs'
    assert error_of(a.bus_call('RequestName', 's', ['org.mssf.X'])) == \
        'org.freedesktop.DBus.Error.InvalidArgs'


def test_update_activation_environment(bus):
    a = bus.raw()
    assert ok(a.bus_call('UpdateActivationEnvironment', 'a{ss}',
                         [{'MSSF_TEST': '1'}])) == []


def test_reload_config_method(bus):
    a = bus.raw()
    assert ok(a.bus_call('ReloadConfig')) == []
    assert a.unique_name in ok(a.bus_call('ListNames'))[0]


def test_python_dbus_queries(bus):
    """The same queries through python3-dbus, as an application makes."""
    import dbus
    client = bus.pyclient()
    names = client.bus('ListNames')
    assert client.unique_name in names
    assert isinstance(names, dbus.Array)
    assert client.bus('NameHasOwner', 's', BUS) is not None
    assert int(client.bus('GetConnectionUnixUser', 's',
                          client.unique_name)) == os.getuid()
    assert int(client.bus('GetConnectionUnixProcessID', 's',
                          client.unique_name)) == os.getpid()
    from pyclient import error_name
    assert error_name(client.bus, 'GetNameOwner', 's', 'org.mssf.None') == \
        'org.freedesktop.DBus.Error.NameHasNoOwner'
    assert error_name(client.bus, 'NoSuchMethod') == \
        'org.freedesktop.DBus.Error.UnknownMethod'
    client.close()


def test_selinux_and_audit_queries(bus):
    # No SELinux context or audit session on a plain host: the specific
    # error names, and NameHasNoOwner for a name nobody has.
    a = bus.raw()
    assert error_of(a.bus_call('GetConnectionSELinuxSecurityContext', 's',
                               [a.unique_name])) == \
        'org.freedesktop.DBus.Error.SELinuxSecurityContextUnknown'
    assert error_of(a.bus_call('GetAdtAuditSessionData', 's',
                               [a.unique_name])) == \
        'org.freedesktop.DBus.Error.AdtAuditDataUnknown'
    for method in ('GetConnectionSELinuxSecurityContext',
                   'GetAdtAuditSessionData'):
        assert error_of(a.bus_call(method, 's', ['org.mssf.None'])) == \
            'org.freedesktop.DBus.Error.NameHasNoOwner', method


def test_activatable_services_changed_signal(bus):
    """A bus that announces the ActivatableServicesChanged feature emits
    the signal when its service files are reloaded."""
    a = bus.raw()
    features = ok(a.call(BUS, PATH, PROPS, 'Get', 'ss', [BUS, 'Features']))
    a.add_match("type='signal',member='ActivatableServicesChanged'")
    bus.add_activatable_service('org.mssf.Activatable')
    check_reply(a.bus_call('ReloadConfig'))
    got = [m for m in a.collect(0.5) if m.type == SIGNAL and
           m.member == 'ActivatableServicesChanged']
    if 'ActivatableServicesChanged' in features[0][1]:
        assert got and got[0].sender == BUS, got
        assert got[0].interface == BUS and got[0].path == PATH, got
    else:
        assert got == [], got


def test_listed_interfaces_are_implemented(bus):
    """Every interface the Interfaces property names answers its methods;
    Debug.Stats, when offered, reports this connection and its rules."""
    a = bus.raw()
    a.add_match("type='signal',member='Counted'")
    interfaces = ok(a.call(BUS, PATH, PROPS, 'Get', 'ss',
                           [BUS, 'Interfaces']))[0][1]
    stats = 'org.freedesktop.DBus.Debug.Stats'
    if stats in interfaces:
        overall = ok(a.call(BUS, PATH, stats, 'GetStats'))[0]
        assert overall['ActiveConnections'][1] >= 1, overall
        mine = ok(a.call(BUS, PATH, stats, 'GetConnectionStats', 's',
                         [a.unique_name]))[0]
        assert mine['UniqueName'] == ('s', a.unique_name), mine
        assert mine['MatchRules'] == ('u', 1), mine
        rules = ok(a.call(BUS, PATH, stats, 'GetAllMatchRules'))[0]
        assert len(rules[a.unique_name]) == 1, rules
        assert "member='Counted'" in rules[a.unique_name][0], rules
    else:
        assert error_of(a.call(BUS, PATH, stats, 'GetStats')) in (
            'org.freedesktop.DBus.Error.UnknownInterface',
            'org.freedesktop.DBus.Error.UnknownMethod')
    assert 'org.freedesktop.DBus.Monitoring' in interfaces


# What dbus-daemon 1.14 may announce; anything else would be a typo.
KNOWN_FEATURES = {'ActivatableServicesChanged', 'AppArmor', 'HeaderFiltering',
                  'SELinux', 'SystemdActivation'}


def features_of(a):
    via_get = ok(a.call(BUS, PATH, PROPS, 'Get', 'ss', [BUS, 'Features']))
    via_get_all = ok(a.call(BUS, PATH, PROPS, 'GetAll', 's', [BUS]))[0]
    assert via_get[0][0] == 'as' and via_get_all['Features'][0] == 'as'
    assert via_get[0][1] == via_get_all['Features'][1], (via_get, via_get_all)
    features = via_get[0][1]
    assert set(features) <= KNOWN_FEATURES, features
    assert len(set(features)) == len(features), features
    return features


def test_features_without_systemd_activation(bus):
    assert 'SystemdActivation' not in features_of(bus.raw())


@config(daemon_args=['--systemd-activation'])
def test_features_with_systemd_activation(bus):
    assert 'SystemdActivation' in features_of(bus.raw())


def test_optional_interfaces_only_at_canonical_path(bus):
    # Away from /org/freedesktop/DBus, Monitoring and Debug.Stats do not
    # exist; a canonical-only method of the bus interface is refused.
    a = bus.raw()
    for path in ('/', '/org/freedesktop'):
        for iface, member, sig, body in (
                ('org.freedesktop.DBus.Debug.Stats', 'GetStats', '', []),
                ('org.freedesktop.DBus.Monitoring', 'BecomeMonitor', 'asu',
                 [[], 0])):
            assert error_of(a.call(BUS, path, iface, member, sig, body)) == \
                'org.freedesktop.DBus.Error.UnknownInterface', (path, member)
        assert error_of(a.call(BUS, path, BUS, 'UpdateActivationEnvironment',
                               'a{ss}', [{}])) == \
            'org.freedesktop.DBus.Error.AccessDenied', path
        assert ok(a.call(BUS, path, BUS, 'GetId'))


def test_message_for_others_before_hello_disconnects(bus):
    # dbus-daemon: before Hello, only the driver may be addressed, and a
    # broadcast signal is not allowed either.
    b = bus.raw()
    sends = (
        lambda c: c.send_call(b.unique_name, '/p', 'org.mssf.I', 'Early'),
        lambda c: c.signal('/p', 'org.mssf.I', 'Early'),
        lambda c: c.signal('/p', 'org.mssf.I', 'Early', dest=b.unique_name),
    )
    for send in sends:
        c = bus.raw(connect=False, timeout=3)
        c.authenticate()
        send(c)
        assert c.wait_closed(3), 'kept a client that skipped Hello'
    b.expect_nothing(lambda m: m.member == 'Early', 0.2)
    # A signal to the driver is refused, a call without destination is
    # an unknown method (as after Hello); Hello still works after either.
    for send, error in (
            (lambda c: c.signal('/p', 'org.mssf.I', 'Early', dest=BUS),
             'org.freedesktop.DBus.Error.AccessDenied'),
            (lambda c: c.send_call(None, '/p', 'org.mssf.I', 'Early'),
             'org.freedesktop.DBus.Error.UnknownMethod')):
        c = bus.raw(connect=False)
        c.authenticate()
        serial = send(c)
        assert error_of(c.wait_for(lambda m: m.reply_serial == serial)) == \
            error
        assert ok(c.bus_call('Hello'))[0].startswith(':')
