"""Broadcast and unicast signals, and the match rules that select them:
type, sender, interface, member, path, path_namespace, destination,
argN, argNpath, arg0namespace; AddMatch errors and RemoveMatch."""
from rawdbus import check_reply, SIGNAL, ERROR

IFACE = 'org.mssf.Sig'
EMITTER = 'org.mssf.Emitter'


def signals_from(conn, emitters, duration=0.4):
    """(member, first arg) of every signal conn received from emitters."""
    if not isinstance(emitters, (list, tuple)):
        emitters = [emitters]
    senders = [e.unique_name for e in emitters]
    return sorted((m.member, m.body[0] if m.body else None)
                  for m in conn.collect(duration)
                  if m.type == SIGNAL and m.sender in senders)


def emit(conn, member, arg0='', path='/org/mssf/Sig', iface=IFACE,
         dest=None, args=None):
    body = args if args is not None else [arg0]
    conn.signal(path, iface, member, 's' * len(body), body, dest=dest)


def setup(bus, rule, emitter_name=True):
    e, other, listener = bus.raw(), bus.raw(), bus.raw()
    if emitter_name:
        check_reply(e.bus_call('RequestName', 'su', [EMITTER, 0]))
    if rule is not None:
        listener.add_match(rule)
    # Drain NameAcquired etc. before the signals under test.
    listener.collect(0.05)
    return e, other, listener


def test_broadcast_needs_match(bus):
    e, other, listener = setup(bus, "type='signal',interface='%s'" % IFACE)
    emit(e, 'Broadcast', 'b1')
    assert signals_from(listener, e) == [('Broadcast', 'b1')]
    # No match rule, no broadcast; and the emitter does not hear itself.
    assert signals_from(other, e, 0.2) == []
    assert signals_from(e, e, 0.1) == []


def test_emitter_hears_itself_with_match(bus):
    e = bus.raw()
    e.add_match("type='signal',interface='%s'" % IFACE)
    emit(e, 'Self', 's')
    assert signals_from(e, e) == [('Self', 's')]


def test_signal_header(bus):
    e, other, listener = setup(bus, "type='signal'")
    emit(e, 'Header', 'h')
    sig = listener.wait_for(lambda m: m.type == SIGNAL and
                            m.member == 'Header')
    # The sender is the unique name even when a well-known one is owned.
    assert sig.sender == e.unique_name, sig
    assert sig.path == '/org/mssf/Sig' and sig.interface == IFACE
    assert sig.destination is None, sig
    assert sig.body == ['h']


def test_unicast_signal(bus):
    e, other, listener = setup(bus, None)
    watcher = bus.raw()
    watcher.add_match("type='signal'")
    emit(e, 'Unicast', 'u1', dest=listener.unique_name)
    sig = listener.wait_for(lambda m: m.type == SIGNAL and
                            m.member == 'Unicast')
    assert sig.destination == listener.unique_name and sig.body == ['u1']
    # Others do not see it, even with a catch-all rule (not eavesdropping).
    assert signals_from(watcher, e) == []
    assert signals_from(other, e, 0.1) == []


def test_unicast_signal_by_well_known_name(bus):
    e, other, listener = setup(bus, None)
    check_reply(listener.bus_call('RequestName', 'su', ['org.mssf.L', 0]))
    emit(e, 'ToName', 'n', dest='org.mssf.L')
    sig = listener.wait_for(lambda m: m.type == SIGNAL and
                            m.member == 'ToName')
    assert sig.destination == 'org.mssf.L'


def test_delivered_once_with_overlapping_rules(bus):
    e, other, listener = setup(bus, "type='signal'")
    listener.add_match("interface='%s'" % IFACE)
    listener.add_match("member='Twice'")
    emit(e, 'Twice', 't')
    assert signals_from(listener, e) == [('Twice', 't')]


def rule_test(bus, rule, expected):
    e, other, listener = setup(bus, rule)
    emit(e, 'A', 'org.mssf')
    emit(e, 'B', 'org.mssf.Sub', iface='org.mssf.Other')
    emit(e, 'C', 'org.mssfx', path='/org/mssf/Sig/deeper')
    emit(e, 'D', '/aa/bb', path='/org/mssfx')
    emit(e, 'E', '/aa/', path='/')
    emit(e, 'F', '/aa')
    emit(other, 'G', 'other')
    got = signals_from(listener, [e, other])
    assert [m for m, a in got] == sorted(expected), (rule, got)


def test_match_type(bus):
    rule_test(bus, "type='signal'", 'ABCDEFG')


def test_match_sender_well_known(bus):
    rule_test(bus, "sender='%s'" % EMITTER, 'ABCDEF')


def test_match_sender_unique(bus):
    e, other, listener = setup(bus, None)
    listener.add_match("sender='%s'" % other.unique_name)
    emit(e, 'A', 'x')
    emit(other, 'G', 'y')
    assert signals_from(listener, [e, other]) == [('G', 'y')]


def test_match_interface(bus):
    rule_test(bus, "interface='org.mssf.Other'", 'B')


def test_match_member(bus):
    rule_test(bus, "type='signal',member='C'", 'C')


def test_match_path(bus):
    rule_test(bus, "path='/org/mssf/Sig'", 'ABFG')


def test_match_path_namespace(bus):
    rule_test(bus, "path_namespace='/org/mssf/Sig'", 'ABCFG')


def test_match_path_namespace_root(bus):
    rule_test(bus, "path_namespace='/'", 'ABCDEFG')


def test_match_arg0(bus):
    rule_test(bus, "arg0='org.mssf'", 'A')


def test_match_arg0namespace(bus):
    rule_test(bus, "arg0namespace='org.mssf'", 'AB')


def test_match_arg0path(bus):
    # Equal, or one a prefix of the other ending in '/'.
    rule_test(bus, "arg0path='/aa/'", 'DE')
    rule_test(bus, "arg0path='/aa/bb'", 'DE')
    rule_test(bus, "arg0path='/'", 'DEF')


def test_match_argN(bus):
    e, other, listener = setup(bus, "arg1='two',arg3='four'")
    emit(e, 'Yes', args=['one', 'two', 'three', 'four'])
    emit(e, 'No1', args=['one', 'two', 'three', 'five'])
    emit(e, 'No2', args=['one', 'two'])
    emit(e, 'No3', args=['two', 'one', 'three', 'four'])
    assert signals_from(listener, e) == [('Yes', 'one')]


def test_match_arg2path(bus):
    e, other, listener = setup(bus, "arg2path='/x/y/'")
    emit(e, 'Yes1', args=['a', 'b', '/x/y/z'])
    emit(e, 'Yes2', args=['a', 'b', '/x/'])
    emit(e, 'No', args=['a', 'b', '/x/yz'])
    assert signals_from(listener, e) == [('Yes1', 'a'), ('Yes2', 'a')]


def test_match_combined(bus):
    rule_test(bus, "type='signal',sender='%s',interface='%s',"
              "path_namespace='/org/mssf',arg0='/aa'" % (EMITTER, IFACE),
              'F')


def test_match_destination(bus):
    e, other, listener = setup(bus, None)
    listener.add_match("type='signal',destination='%s'"
                       % listener.unique_name)
    emit(e, 'Mine', 'm', dest=listener.unique_name)
    emit(e, 'Broadcast', 'b')
    emit(e, 'Theirs', 't', dest=other.unique_name)
    assert signals_from(listener, e) == [('Mine', 'm')]


def test_remove_match(bus):
    rule = "type='signal',member='Counted'"
    e, other, listener = setup(bus, rule)
    listener.add_match(rule)
    emit(e, 'Counted', '1')
    assert signals_from(listener, e) == [('Counted', '1')]
    # Rules are counted: one RemoveMatch undoes one AddMatch.
    check_reply(listener.bus_call('RemoveMatch', 's', [rule]))
    emit(e, 'Counted', '2')
    assert signals_from(listener, e) == [('Counted', '2')]
    check_reply(listener.bus_call('RemoveMatch', 's', [rule]))
    emit(e, 'Counted', '3')
    assert signals_from(listener, e) == []
    reply = listener.bus_call('RemoveMatch', 's', [rule])
    assert reply.type == ERROR and reply.error_name == \
        'org.freedesktop.DBus.Error.MatchRuleNotFound', reply


def test_remove_match_same_rule_other_spelling(bus):
    e, other, listener = setup(bus, "member='Spelled',type='signal'")
    check_reply(listener.bus_call('RemoveMatch', 's',
                                  ["type='signal',member='Spelled'"]))
    emit(e, 'Spelled', 'x')
    assert signals_from(listener, e) == []


def test_invalid_match_rules(bus):
    a = bus.raw()
    for rule in ("type='bogus'", "nokey='x'", "type='signal", "arg64='x'",
                 "path='not/a/path'", "interface='no'", "member='a.b'",
                 "sender='bad..name'", "arg0namespace='.bad'",
                 "type='signal',type='signal'", "eavesdrop='maybe'"):
        reply = a.bus_call('AddMatch', 's', [rule])
        assert reply.type == ERROR and reply.error_name == \
            'org.freedesktop.DBus.Error.MatchRuleInvalid', (rule, reply)
    assert check_reply(a.bus_call('GetId'))


def test_match_rule_quoting(bus):
    e, other, listener = setup(bus, "arg0='it'\\''s, quoted'")
    emit(e, 'Quoted', "it's, quoted")
    emit(e, 'Plain', 'its quoted')
    assert signals_from(listener, e) == [('Quoted', "it's, quoted")]


def test_name_owner_changed_arg0(bus):
    a, b = bus.raw(), bus.raw()
    a.add_match("type='signal',sender='org.freedesktop.DBus',"
                "member='NameOwnerChanged',arg0='org.mssf.Watched'")
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Other', 0]))
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Watched', 0]))
    got = [m.body for m in a.collect(0.4)
           if m.type == SIGNAL and m.member == 'NameOwnerChanged']
    assert got == [['org.mssf.Watched', '', b.unique_name]], got


def test_fan_out_in_order(bus):
    e = bus.raw()
    listeners = [bus.raw() for _ in range(30)]
    for conn in listeners:
        conn.add_match("type='signal',interface='org.mssf.Fan'")
    for i in range(100):
        e.signal('/fan', 'org.mssf.Fan', 'Tick', 'u', [i])
    for n, conn in enumerate(listeners):
        got = []
        while len(got) < 100:
            got.append(conn.wait_for(lambda m: m.type == SIGNAL and
                                     m.member == 'Tick').body[0])
        assert got == list(range(100)), (n, got)
        conn.expect_nothing(lambda m: m.member == 'Tick', 0.02)


def test_unicast_signal_to_missing_name(bus):
    """dbus-daemon answers a unicast signal to a name nobody owns with
    ServiceUnknown, and delivers it to nobody."""
    e, listener = bus.raw(), bus.raw()
    listener.add_match("type='signal',interface='%s'" % IFACE)
    emit(e, 'Nowhere', 'x', dest='org.mssf.Nobody')
    errors = [m for m in e.collect(0.5) if m.type == ERROR]
    assert [m.error_name for m in errors] == \
        ['org.freedesktop.DBus.Error.ServiceUnknown'], errors
    assert signals_from(listener, e, 0.1) == []


def test_match_rule_syntax(bus):
    """What dbus-daemon's rule parser accepts and refuses."""
    a = bus.raw()
    accepted = ["type='signal',", 'type=signal', "arg0=''", '',
                'destination=:1.0', 'eavesdrop=true', "eavesdrop='false'",
                "arg63='x'", "path_namespace='/'",
                "sender='org.freedesktop.DBus'"]
    refused = {
        "type = 'signal'": 'MatchRuleInvalid',
        "path='/a',path_namespace='/a'": 'MatchRuleInvalid',
        "arg0path='/a',arg0='b'": 'MatchRuleInvalid',
        "path='/a/'": 'MatchRuleInvalid',
        "arg3namespace='a.b'": 'MatchRuleInvalid',
        "type='signal',,member='x'": 'MatchRuleInvalid',
        "member='x'" + ",arg1='y'" * 10: 'MatchRuleInvalid',
        "arg0='%s'" % ('x' * 2000): 'LimitsExceeded',
    }
    for rule in accepted:
        reply = a.bus_call('AddMatch', 's', [rule])
        assert reply.type != ERROR, (rule, reply)
    for rule, error in refused.items():
        reply = a.bus_call('AddMatch', 's', [rule])
        assert reply.type == ERROR and reply.error_name == \
            'org.freedesktop.DBus.Error.' + error, (rule[:60], reply)
