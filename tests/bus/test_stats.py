"""org.freedesktop.DBus.Debug.Stats: GetStats, GetConnectionStats,
GetAllMatchRules (dbus-daemon built with stats, as Debian's is). The keys
both buses send, and values that follow what the clients did. As on
dbus-daemon 1.14, any client the policy lets through may ask (no uid
check)."""
import os
import pwd

from rawdbus import check_reply, ERROR, METHOD_RETURN
from busfixture import config, DEFAULT_POLICY, HERE, PYTHON, Skip
from test_credentials import as_user

BUS = 'org.freedesktop.DBus'
PATH = '/org/freedesktop/DBus'
STATS = 'org.freedesktop.DBus.Debug.Stats'


def stats(conn, member, signature='', body=()):
    reply = conn.call(BUS, PATH, STATS, member, signature, body)
    assert reply.type == METHOD_RETURN, reply
    return reply.body[0]


def u(values, key):
    sig, value = values[key]
    assert sig == 'u', (key, values)
    return value


def test_get_stats(bus):
    a, b = bus.raw(), bus.raw()
    before = stats(a, 'GetStats')
    for key in ('Serial', 'ActiveConnections', 'IncompleteConnections',
                'MatchRules', 'PeakMatchRules', 'BusNames', 'PeakBusNames'):
        u(before, key)
    assert u(before, 'ActiveConnections') >= 2, before
    a.add_match("type='signal',member='Counted'")
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Stats', 0]))
    after = stats(a, 'GetStats')
    assert u(after, 'MatchRules') == u(before, 'MatchRules') + 1, after
    assert u(after, 'BusNames') == u(before, 'BusNames') + 1, after
    assert u(after, 'PeakMatchRules') >= u(after, 'MatchRules'), after
    assert u(after, 'PeakBusNames') >= u(after, 'BusNames'), after
    # Peaks stay when the rules and names go.
    check_reply(a.bus_call('RemoveMatch', 's',
                           ["type='signal',member='Counted'"]))
    check_reply(b.bus_call('ReleaseName', 's', ['org.mssf.Stats']))
    later = stats(a, 'GetStats')
    assert u(later, 'MatchRules') == u(before, 'MatchRules'), later
    assert u(later, 'PeakMatchRules') >= u(after, 'MatchRules'), later
    assert u(later, 'PeakBusNames') >= u(after, 'BusNames'), later
    assert u(later, 'Serial') > u(before, 'Serial'), (before, later)


def test_get_connection_stats(bus):
    a, b = bus.raw(), bus.raw()
    mine = stats(a, 'GetConnectionStats', 's', [b.unique_name])
    assert mine['UniqueName'] == ('s', b.unique_name), mine
    for key in ('Serial', 'MatchRules', 'BusNames', 'IncomingBytes',
                'IncomingFDs', 'OutgoingMessages', 'OutgoingBytes',
                'OutgoingFDs'):
        u(mine, key)
    assert u(mine, 'MatchRules') == 0 and u(mine, 'BusNames') == 1, mine
    b.add_match("type='signal',member='One'")
    b.add_match("type='signal',member='Two'")
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Counted', 0]))
    # By its well-known name too.
    now = stats(a, 'GetConnectionStats', 's', ['org.mssf.Counted'])
    assert now['UniqueName'] == ('s', b.unique_name), now
    assert u(now, 'MatchRules') == 2 and u(now, 'BusNames') == 2, now


def test_get_connection_stats_errors(bus):
    a = bus.raw()
    for name in ('org.mssf.Nobody', ':1.9999'):
        reply = a.call(BUS, PATH, STATS, 'GetConnectionStats', 's', [name])
        assert reply.type == ERROR, reply
        assert reply.error_name == 'org.freedesktop.DBus.Error.NameHasNoOwner'
    reply = a.call(BUS, PATH, STATS, 'GetConnectionStats', 's', [BUS])
    assert reply.error_name == 'org.freedesktop.DBus.Error.InvalidArgs', reply
    reply = a.call(BUS, PATH, STATS, 'GetStats', 's', ['extra'])
    assert reply.error_name == 'org.freedesktop.DBus.Error.InvalidArgs', reply


def test_get_all_match_rules(bus):
    a, b = bus.raw(), bus.raw()
    a.add_match("type='signal',member='Counted'")
    a.add_match("sender='org.freedesktop.DBus',arg0='x',path_namespace='/a'")
    rules = stats(b, 'GetAllMatchRules')
    assert rules[b.unique_name] == [], rules
    got = rules[a.unique_name]
    assert len(got) == 2, got
    # Newest first, each written back with its keys.
    assert set(got[0].split(',')) == {
        "sender='org.freedesktop.DBus'", "arg0='x'", "path_namespace='/a'"}, got
    assert set(got[1].split(',')) == {"type='signal'", "member='Counted'"}, got
    check_reply(a.bus_call('RemoveMatch', 's',
                           ["type='signal',member='Counted'"]))
    assert len(stats(b, 'GetAllMatchRules')[a.unique_name]) == 1


def test_stats_interface_listed_and_introspected(bus):
    a = bus.raw()
    props = check_reply(a.call(BUS, PATH, 'org.freedesktop.DBus.Properties',
                               'Get', 'ss', [BUS, 'Interfaces'])).body[0]
    assert STATS in props[1], props
    xml = check_reply(a.call(BUS, PATH, 'org.freedesktop.DBus.Introspectable',
                             'Introspect')).body[0]
    assert '<interface name="%s">' % STATS in xml, xml
    for method in ('GetStats', 'GetConnectionStats', 'GetAllMatchRules'):
        assert '<method name="%s">' % method in xml, method


def test_stats_open_to_any_user(bus):
    if os.getuid() != 0:
        raise Skip('needs root to run a client as another user')
    try:
        user = pwd.getpwnam('nobody')
    except KeyError:
        raise Skip('no user nobody')
    a = bus.raw()
    code = ('import sys; sys.path.insert(0, %r)\nimport rawdbus\n'
            'c = rawdbus.RawConnection(%r)\nc.connect()\n'
            'for m, s, b in (("GetStats", "", []), ("GetAllMatchRules", "", []),'
            ' ("GetConnectionStats", "s", [%r])):\n'
            '    r = c.call(%r, %r, %r, m, s, b)\n'
            '    print(m, r.error_name)\n'
            % (HERE, bus.address, a.unique_name, BUS, PATH, STATS))
    proc = as_user(bus, user, [PYTHON, '-c', code])
    out, _ = proc.communicate(timeout=10)
    lines = out.decode().split('\n')
    for method in ('GetStats', 'GetAllMatchRules', 'GetConnectionStats'):
        assert '%s None' % method in lines, lines


@config(policy=DEFAULT_POLICY.replace('</policy>', '''
    <deny send_destination="org.freedesktop.DBus"
          send_interface="org.freedesktop.DBus.Debug.Stats"/>
  </policy>'''))
def test_stats_closed_by_policy(bus):
    a = bus.raw()
    for member, sig, body in (('GetStats', '', []), ('GetAllMatchRules', '', []),
                              ('GetConnectionStats', 's', [a.unique_name])):
        reply = a.call(BUS, PATH, STATS, member, sig, body)
        assert reply.error_name == 'org.freedesktop.DBus.Error.AccessDenied', \
            reply
    assert check_reply(a.bus_call('GetId'))
