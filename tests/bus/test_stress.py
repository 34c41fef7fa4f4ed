"""Many independent clients at once, with a stuck client that never
reads: the others still get their answers. Connection churn leaks no
file descriptors in the daemon."""
import os
import threading
import time

import rawdbus
from rawdbus import check_reply
from busfixture import wait_until

TPATH, TIFACE = '/org/mssf/Test', 'org.mssf.Test'


def daemon_fds(bus):
    return len(os.listdir('/proc/%d/fd' % bus.proc.pid))


def test_fifty_clients_and_a_stuck_one(bus):
    proc, unique = bus.service('org.mssf.Test')
    # The stuck client asks for every signal, then never reads again.
    stuck = bus.raw()
    stuck.add_match("type='signal'")
    check_reply(stuck.bus_call('RequestName', 'su', ['org.mssf.Stuck', 0]))
    stuck.sock.setsockopt(rawdbus.socket.SOL_SOCKET,
                          rawdbus.socket.SO_RCVBUF, 4096)
    # Fill its queue: broadcasts, and calls it will never answer.
    flooder = bus.raw()
    blob = 'f' * 4000
    for i in range(500):
        flooder.signal('/flood', 'org.mssf.Flood', 'Blob', 's', [blob])
    for i in range(20):
        flooder.send_call('org.mssf.Stuck', '/p', 'org.mssf.I', 'Ignored')

    clients = [bus.raw() for _ in range(50)]
    failures = []

    def work(conn, n):
        try:
            for j in range(5):
                text = 'c%d-%d' % (n, j)
                reply = check_reply(conn.call('org.mssf.Test', TPATH, TIFACE,
                                              'Echo', 's', [text],
                                              timeout=10))
                assert reply.body == [text], reply
                names = check_reply(conn.bus_call('ListNames', timeout=10))
                assert conn.unique_name in names.body[0]
                conn.queue = []
        except Exception as e:
            failures.append('client %d: %r' % (n, e))
    start = time.monotonic()
    threads = [threading.Thread(target=work, args=(c, i), daemon=True)
               for i, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    elapsed = time.monotonic() - start
    assert not failures, failures[:5]
    assert not any(t.is_alive() for t in threads), 'clients hung'
    assert elapsed < 20, elapsed
    # The flooder, too, can still talk to the bus.
    assert check_reply(flooder.bus_call('GetId', timeout=5))


def test_connection_churn_leaks_nothing(bus):
    keeper = bus.raw()
    for _ in range(20):
        bus.raw().close()
    bus.raw_connections = [keeper]
    time.sleep(0.3)
    before = daemon_fds(bus)
    for i in range(200):
        conn = rawdbus.RawConnection(bus.address)
        if i % 2:
            conn.connect()
            check_reply(conn.bus_call('RequestName', 'su',
                                      ['org.mssf.Churn', 0]))
        else:
            conn.send_raw(b'\0AUTH EXTERNAL ')   # gone mid-auth
        conn.close()
    wait_until(lambda: daemon_fds(bus) <= before + 2, 5,
               'the daemon to close churned connections (%d fds before)'
               % before)
    names = check_reply(keeper.bus_call('ListNames')).body[0]
    assert 'org.mssf.Churn' not in names, names
    assert len([n for n in names if n.startswith(':')]) <= 2, names


def test_parallel_name_contention(bus):
    """20 clients race for one name with queueing: exactly one owner at a
    time, every one of them gets it in turn."""
    clients = [bus.raw() for _ in range(20)]
    for c in clients:
        c.send_call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                    'org.freedesktop.DBus', 'RequestName', 'su',
                    ['org.mssf.Contended', 0])
    codes = []
    for c in clients:
        reply = c.wait_for(lambda m: m.reply_serial is not None)
        codes.append(check_reply(reply).body[0])
    assert codes.count(1) == 1 and codes.count(2) == 19, codes
    watcher = bus.raw()
    queue = check_reply(watcher.bus_call('ListQueuedOwners', 's',
                                         ['org.mssf.Contended'])).body[0]
    assert sorted(queue) == sorted(c.unique_name for c in clients), queue
    owners = []
    by_name = dict((c.unique_name, c) for c in clients)
    for _ in range(20):
        owner = check_reply(watcher.bus_call(
            'GetNameOwner', 's', ['org.mssf.Contended'])).body[0]
        owners.append(owner)
        check_reply(by_name[owner].bus_call('ReleaseName', 's',
                                            ['org.mssf.Contended']))
    # The name went down the queue in order, to every client once.
    assert owners == queue, (owners, queue)
