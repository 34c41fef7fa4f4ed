"""RequestName / ReleaseName: queueing, every flag, and the signals
(NameOwnerChanged to watchers, NameAcquired / NameLost to the owners)."""
from rawdbus import check_reply, SIGNAL, ERROR

BUS = 'org.freedesktop.DBus'
NAME = 'org.mssf.Name'
ALLOW_REPLACEMENT, REPLACE_EXISTING, DO_NOT_QUEUE = 1, 2, 4
PRIMARY_OWNER, IN_QUEUE, EXISTS, ALREADY_OWNER = 1, 2, 3, 4
RELEASED, NON_EXISTENT, NOT_OWNER = 1, 2, 3
NOC_RULE = "type='signal',sender='org.freedesktop.DBus'," \
           "member='NameOwnerChanged'"


def request(conn, flags=0, name=NAME):
    return check_reply(conn.bus_call('RequestName', 'su',
                                     [name, flags])).body[0]


def release(conn, name=NAME):
    return check_reply(conn.bus_call('ReleaseName', 's', [name])).body[0]


def queue(conn, name=NAME):
    reply = conn.bus_call('ListQueuedOwners', 's', [name])
    if reply.type == ERROR:
        assert reply.error_name == 'org.freedesktop.DBus.Error.NameHasNoOwner'
        return []
    return reply.body[0]


def bus_signal(conn, member, args, timeout=3.0):
    return conn.wait_for(lambda m: m.type == SIGNAL and m.member == member
                         and m.sender == BUS and m.interface == BUS
                         and m.body == args, timeout)


def no_bus_signal(conn, member, duration=0.3):
    conn.expect_nothing(lambda m: m.type == SIGNAL and m.member == member
                        and m.body[:1] != [conn.unique_name], duration)


def watcher(bus):
    w = bus.raw()
    w.add_match(NOC_RULE)
    return w


def test_request_primary_and_already_owner(bus):
    w = watcher(bus)
    a = bus.raw()
    assert request(a) == PRIMARY_OWNER
    sig = bus_signal(a, 'NameAcquired', [NAME])
    assert sig.destination == a.unique_name
    bus_signal(w, 'NameOwnerChanged', [NAME, '', a.unique_name])
    assert request(a) == ALREADY_OWNER
    no_bus_signal(a, 'NameAcquired')
    assert check_reply(w.bus_call('GetNameOwner', 's', [NAME])).body == \
        [a.unique_name]


def test_queue_and_release(bus):
    w = watcher(bus)
    a, b = bus.raw(), bus.raw()
    assert request(a) == PRIMARY_OWNER
    assert request(b) == IN_QUEUE
    no_bus_signal(b, 'NameAcquired')
    assert queue(w) == [a.unique_name, b.unique_name]
    assert release(a) == RELEASED
    bus_signal(a, 'NameLost', [NAME])
    bus_signal(b, 'NameAcquired', [NAME])
    bus_signal(w, 'NameOwnerChanged', [NAME, a.unique_name, b.unique_name])
    assert queue(w) == [b.unique_name]
    assert release(b) == RELEASED
    bus_signal(w, 'NameOwnerChanged', [NAME, b.unique_name, ''])
    assert queue(w) == []
    assert check_reply(w.bus_call('NameHasOwner', 's', [NAME])).body == \
        [False]


def test_do_not_queue(bus):
    a, b = bus.raw(), bus.raw()
    assert request(a) == PRIMARY_OWNER
    assert request(b, DO_NOT_QUEUE) == EXISTS
    assert queue(a) == [a.unique_name]
    # A queued connection asking again with DO_NOT_QUEUE leaves the queue.
    assert request(b) == IN_QUEUE
    assert queue(a) == [a.unique_name, b.unique_name]
    assert request(b, DO_NOT_QUEUE) == EXISTS
    assert queue(a) == [a.unique_name]


def test_replace_allowed(bus):
    w = watcher(bus)
    a, b = bus.raw(), bus.raw()
    assert request(a, ALLOW_REPLACEMENT) == PRIMARY_OWNER
    assert request(b, REPLACE_EXISTING) == PRIMARY_OWNER
    bus_signal(a, 'NameLost', [NAME])
    bus_signal(b, 'NameAcquired', [NAME])
    bus_signal(w, 'NameOwnerChanged', [NAME, a.unique_name, b.unique_name])
    # The replaced owner did not say DO_NOT_QUEUE: it waits in line.
    assert queue(w) == [b.unique_name, a.unique_name]
    b.close()
    bus_signal(a, 'NameAcquired', [NAME])
    bus_signal(w, 'NameOwnerChanged', [NAME, b.unique_name, a.unique_name])


def test_replace_allowed_do_not_queue(bus):
    a, b = bus.raw(), bus.raw()
    assert request(a, ALLOW_REPLACEMENT | DO_NOT_QUEUE) == PRIMARY_OWNER
    assert request(b, REPLACE_EXISTING) == PRIMARY_OWNER
    bus_signal(a, 'NameLost', [NAME])
    assert queue(b) == [b.unique_name]


def test_replace_refused(bus):
    a, b, c = bus.raw(), bus.raw(), bus.raw()
    assert request(a) == PRIMARY_OWNER
    assert request(b, REPLACE_EXISTING) == IN_QUEUE
    assert request(c, REPLACE_EXISTING | DO_NOT_QUEUE) == EXISTS
    no_bus_signal(a, 'NameLost')
    assert queue(a) == [a.unique_name, b.unique_name]


def test_owner_updates_flags(bus):
    # ALREADY_OWNER still records the new ALLOW_REPLACEMENT flag.
    a, b = bus.raw(), bus.raw()
    assert request(a) == PRIMARY_OWNER
    assert request(a, ALLOW_REPLACEMENT) == ALREADY_OWNER
    assert request(b, REPLACE_EXISTING) == PRIMARY_OWNER
    bus_signal(a, 'NameLost', [NAME])


def test_release_codes(bus):
    a, b, c = bus.raw(), bus.raw(), bus.raw()
    assert release(a) == NON_EXISTENT
    assert request(a) == PRIMARY_OWNER
    assert release(c) == NOT_OWNER
    assert request(b) == IN_QUEUE
    # Releasing from the queue: RELEASED, and the owner is untouched.
    assert release(b) == RELEASED
    assert queue(a) == [a.unique_name]
    no_bus_signal(a, 'NameLost')


def test_disconnect_passes_name_on(bus):
    w = watcher(bus)
    a, b, c = bus.raw(), bus.raw(), bus.raw()
    assert request(a) == PRIMARY_OWNER
    assert request(b) == IN_QUEUE
    assert request(c) == IN_QUEUE
    a.close()
    bus_signal(w, 'NameOwnerChanged', [NAME, a.unique_name, b.unique_name])
    bus_signal(b, 'NameAcquired', [NAME])
    bus_signal(w, 'NameOwnerChanged', [a.unique_name, a.unique_name, ''])
    assert queue(w) == [b.unique_name, c.unique_name]


def test_disconnect_releases_all_names(bus):
    w = watcher(bus)
    a = bus.raw()
    names = ['org.mssf.Many%d' % i for i in range(5)]
    for name in names:
        assert request(a, name=name) == PRIMARY_OWNER
    a.close()
    for name in names:
        bus_signal(w, 'NameOwnerChanged', [name, a.unique_name, ''])
    bus_signal(w, 'NameOwnerChanged', [a.unique_name, a.unique_name, ''])
    listed = check_reply(w.bus_call('ListNames')).body[0]
    assert not set(names) & set(listed), listed


def test_unique_name_owner_changed(bus):
    w = watcher(bus)
    a = bus.raw()
    bus_signal(w, 'NameOwnerChanged', [a.unique_name, '', a.unique_name])
    a.close()
    bus_signal(w, 'NameOwnerChanged', [a.unique_name, a.unique_name, ''])


def test_invalid_names(bus):
    a = bus.raw()
    for name in ('org.freedesktop.DBus', ':1.5', 'noperiod', 'org..mssf',
                 '1org.mssf', 'org.mssf.' + 'x' * 255, ''):
        reply = a.bus_call('RequestName', 'su', [name, 0])
        assert reply.type == ERROR and reply.error_name == \
            'org.freedesktop.DBus.Error.InvalidArgs', (name, reply)
    for name in ('org.freedesktop.DBus', ':1.5', 'noperiod'):
        reply = a.bus_call('ReleaseName', 's', [name])
        assert reply.type == ERROR and reply.error_name == \
            'org.freedesktop.DBus.Error.InvalidArgs', (name, reply)


def test_python_dbus_name_signals(bus):
    """python3-dbus owners and a python3-dbus watcher see the handover."""
    w, a, b = bus.pyclient(), bus.pyclient(), bus.pyclient()
    w.add_match(NOC_RULE)
    assert a.bus('RequestName', 'su', NAME, ALLOW_REPLACEMENT) == 1
    a.wait_signal('NameAcquired', args=[NAME])
    w.wait_signal('NameOwnerChanged', args=[NAME, '', a.unique_name])
    assert b.bus('RequestName', 'su', NAME, REPLACE_EXISTING) == 1
    a.wait_signal('NameLost', args=[NAME])
    b.wait_signal('NameAcquired', args=[NAME])
    w.wait_signal('NameOwnerChanged',
                  args=[NAME, a.unique_name, b.unique_name])
    for c in (w, a, b):
        c.close()


def test_valid_name_forms(bus):
    a = bus.raw()
    long_name = 'org.' + '.'.join(['x' * 50] * 5)
    long_name = long_name[:255]
    for name in ('a.b', 'org.mssf.with-dash', 'org.mssf._under',
                 'org.mssf.X1', long_name):
        assert request(a, name=name) == PRIMARY_OWNER, name
        assert check_reply(a.bus_call('GetNameOwner', 's', [name])).body == \
            [a.unique_name], name


def test_disconnect_releases_latest_name_first(bus):
    """dbus-daemon gives a departing connection's names up from the last
    requested to the first, its unique name last."""
    watcher, owner = bus.raw(), bus.raw()
    watcher.add_match("member='NameOwnerChanged'")
    for name in ('org.mssf.First', 'org.mssf.Second', 'org.mssf.Third'):
        check_reply(owner.bus_call('RequestName', 'su', [name, 0]))
    unique = owner.unique_name
    watcher.collect(0.2)
    owner.close()
    lost = []
    while len(lost) < 4:
        m = watcher.wait_for(lambda m: m.member == 'NameOwnerChanged' and
                             m.body[1] == unique, 3)
        lost.append(m.body[0])
    assert lost == ['org.mssf.Third', 'org.mssf.Second', 'org.mssf.First',
                    unique], lost
