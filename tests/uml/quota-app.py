#!/usr/bin/python3
"""The apps of test-label-quotas.sh: a service, a well-behaved app B and
the ways app A misbehaves, on raw connections (tests/bus/rawdbus.py) so
that nothing is read that the app does not mean to read.

    quota-app.py MODE ADDRESS

    svc          own org.mssf.QuotaSvc and answer Echo(ay) with its bytes,
                 forever, counting them ("echoed N"); other calls (Hang)
                 and errors the bus sends it are read and left unanswered
    sink         own org.mssf.QuotaSink and never read
    idle         connect and hold the connection (so GetStats shows the label)
    b            connect, own org.mssf.QuotaB, add a match rule, call
                 Echo: "served in S s"
                 (exit 0 when all of it took at most a second), or what
                 went wrong (exit 1)
    connections  open connections until one is refused
    matches      add match rules until refused by more than one
                 connection's limit (new connections as needed), at most
                 3000
    pending      call the service's Hang (never answered) until refused by
                 more than one connection's limit, at most 1024
    replies      flood the sink with 160 signals of 1 MiB, then call Echo
                 with 1 MiB 160 times on two connections, reading nothing
    names        ask for B's name, then for names until refused by more
                 than one connection's limit, at most 2048
    stats        org.mssf.Broker1.GetStats' per-label entries, one line
                 per label

A misbehaving mode prints what happened, then "holding" and keeps its
connections until it is killed.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bus'))
import rawdbus  # noqa: E402
from rawdbus import DBusError, Disconnected, METHOD_CALL, ERROR  # noqa: E402

SVC, PATH = 'org.mssf.QuotaSvc', '/org/mssf/QuotaSvc'
MIB = b'x' * (1 << 20)


def connect(address, timeout=10.0):
    conn = rawdbus.RawConnection(address, timeout)
    conn.connect()
    return conn


def hold(*what):
    print(*what, flush=True)
    print('holding', flush=True)
    while True:
        time.sleep(3600)


def svc(address):
    # A bus that stops reading it (dbus-daemon does) stalls it, as a real service.
    conn = connect(address, 3600.0)
    code = rawdbus.check_reply(conn.bus_call('RequestName', 'su', [SVC, 4])).body[0]
    print('ready' if code == 1 else 'refused %d' % code, flush=True)
    echoed = 0
    while True:
        msg = conn.wait_for(lambda m: True, timeout=3600)
        if msg.type == METHOD_CALL and msg.member == 'Echo':
            conn.reply(msg, 'ay', [msg.body[0]])
            echoed += 1
            print('echoed %d' % echoed, flush=True)


def sink(address):
    conn = connect(address)
    rawdbus.check_reply(conn.bus_call('RequestName', 'su', ['org.mssf.QuotaSink', 4]))
    hold('sink ready')


def idle(address):
    conn = connect(address)  # noqa: F841 (held open until killed)
    hold('connected')


def b(address):
    start = time.monotonic()
    try:
        conn = connect(address, timeout=3.0)
        reply = conn.bus_call('RequestName', 'su', ['org.mssf.QuotaB', 4])
        code = rawdbus.check_reply(reply).body[0]
        if code != 1:
            print('not served: RequestName(org.mssf.QuotaB) answered %d, not 1 (owner)' % code)
            return 1
        rawdbus.check_reply(conn.bus_call('AddMatch', 's', ["type='signal',member='B'"]))
        reply = conn.call(SVC, PATH, SVC, 'Echo', 'ay', [b'B'], timeout=3.0)
        rawdbus.check_reply(reply)
    except DBusError as e:
        print('not served: %s' % e)
        return 1
    except (Disconnected, TimeoutError, OSError) as e:
        print('not served: %s: %s' % (type(e).__name__, e))
        return 1
    elapsed = time.monotonic() - start
    print('served in %.3f s' % elapsed)
    return 0 if elapsed <= 1.0 else 1


def connections(address):
    conns = []
    while len(conns) < 4096:
        conn = rawdbus.RawConnection(address, 10.0)
        try:
            conn.connect()
        except DBusError as e:
            hold('refused after %d connections: %s' % (len(conns), e))
        except Disconnected as e:
            hold('disconnected after %d connections: %s' % (len(conns), e))
        conns.append(conn)
    hold('never refused: %d connections' % len(conns))


def until_refused(address, request, cap, what, own_limit=lambda text: '_per_connection' in text):
    """request(conn, i) -> error or None; a new connection whenever one
    connection's own limit refuses (own_limit(error text)), until
    something else does."""
    conns, n = [], 0
    while n < cap:
        try:
            conns.append(connect(address))
        except (DBusError, Disconnected) as e:
            hold('connection refused after %d %s: %s' % (n, what, e))
        while n < cap:
            error = request(conns[-1], n)
            if error is None:
                n += 1
                continue
            if not own_limit(error.text):
                hold('refused after %d %s: %s' % (n, what, error))
            break
    hold('not refused: %d %s (stopped there)' % (n, what))


def error_of(reply):
    return DBusError(reply) if reply.type == ERROR else None


def matches(address):
    until_refused(address, lambda conn, i: error_of(conn.bus_call(
        'AddMatch', 's', ["type='signal',member='M%d'" % i])), 3000, 'match rules')


def names(address):
    conn = connect(address)
    reply = conn.bus_call('RequestName', 'su', ['org.mssf.QuotaB', 0])
    print("B's name: %s" % (DBusError(reply) if reply.type == ERROR else 'answered %d' % reply.body[0]),
          flush=True)

    def request(conn, i):
        reply = conn.bus_call('RequestName', 'su', ['org.mssf.QuotaA.N%d' % i, 4])
        return error_of(reply)
    until_refused(address, request, 2048, 'names')


def pending(address):
    """Calls the service's Hang, which it never answers, so that each
    call leaves a pending reply; GetId after each call is a barrier: the
    bus answers a connection's messages in order, so a refusal of the
    call is in the queue by the time GetId's reply is."""
    def request(conn, i):
        serial = conn.send_call(SVC, PATH, SVC, 'Hang', 'u', [i])
        rawdbus.check_reply(conn.bus_call('GetId'))
        for msg in conn.queue:
            if msg.type == ERROR and msg.reply_serial == serial:
                return DBusError(msg)
        return None
    # A connection's own limit: "... pending replies for \":1.5\" ..." (mssf-broker),
    # "... pending replies per connection ..." (dbus-daemon).
    until_refused(address, request, 1024, 'pending replies', lambda text: 'per_label' not in text)


def replies(address):
    """A bus that stops reading A (dbus-daemon does) stalls a send: after
    3 s A says so and goes on."""
    flooder = connect(address, 3.0)
    callers = [connect(address, 3.0), connect(address, 3.0)]
    done = []
    try:
        for i in range(160):
            flooder.signal('/org/mssf/QuotaSink', 'org.mssf.Quota', 'Flood', 'ay', [MIB],
                           dest='org.mssf.QuotaSink')
        done.append('flooded the sink with 160 MiB')
    except OSError:
        done.append('the flood of the sink stalled after %d MiB' % i)
    try:
        for i in range(160):
            callers[i % 2].send_call(SVC, PATH, SVC, 'Echo', 'ay', [MIB])
        done.append('made 160 calls of 1 MiB on two connections')
    except OSError:
        done.append('the calls stalled after %d' % i)
    hold('; '.join(done) + '; read nothing')


def stats(address):
    conn = connect(address)
    reply = rawdbus.check_reply(conn.bus_call('GetStats', iface='org.mssf.Broker1'))
    entries = dict(reply.body[0])
    for label in entries.get('LabelQuotas', ('aa{sv}', []))[1]:
        fields = dict((k, v[1]) for k, v in label.items())
        print(' '.join('%s=%s' % (k, fields[k]) for k in sorted(fields)))
    return 0


MODES = {'svc': svc, 'sink': sink, 'idle': idle, 'b': b, 'connections': connections, 'matches': matches,
         'replies': replies, 'pending': pending, 'names': names, 'stats': stats}

if __name__ == '__main__':
    sys.exit(MODES[sys.argv[1]](sys.argv[2]))
