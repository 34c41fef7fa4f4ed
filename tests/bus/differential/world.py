"""One differential world: a bus configuration, clients with their kernel
credentials, and a script of actions, played against one daemon; what
every client received comes back as a normalized transcript that does not
depend on the daemon (unique names become client roles, serials become
action numbers, error texts are dropped, driver answers are sorted where
their order is unspecified).

A world is deterministic: after each action every client pings the
driver and reads up to the answer, and every monitor reads up to a
barrier signal, so each transcript holds exactly what the bus had
delivered by then, in the order the bus delivered it.
"""
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import busfixture  # noqa: E402
import rawdbus  # noqa: E402
from rawdbus import (METHOD_CALL, METHOD_RETURN, ERROR, SIGNAL,  # noqa: E402
                     NO_REPLY_EXPECTED)

BUS = 'org.freedesktop.DBus'
BUS_PATH = '/org/freedesktop/DBus'
BARRIER = 'org.mssf.Barrier'
PING_BASE = 900000              # serials of the barrier's pings
ACTION_BASE = 1000              # action k is sent with serial 1000 + k
NO_AUTO_START = 0x2

# Credentials a client may have: (uid, gid, supplementary groups), by name.
IDENTITIES = ('root', 'nobody', 'nopw', 'nobody+video')

# Lets the barrier through whatever the world's rules say (mandatory last).
BARRIER_POLICY = '''
  <policy context="mandatory">
    <allow send_interface="%s"/>
    <allow receive_interface="%s"/>
    <allow send_destination="%s" send_interface="org.freedesktop.DBus.Peer"/>
    <allow send_destination="%s" send_interface="%s" send_member="Hello"/>
    <allow receive_sender="%s" receive_type="method_return"/>
  </policy>
''' % (BARRIER, BARRIER, BUS, BUS, BUS, BUS)


class Unavailable(Exception):
    """The world needs something this machine lacks (root, a user)."""


def identity_creds(name):
    import grp
    import pwd
    if name == 'root':
        return 0, 0, []
    try:
        nobody = pwd.getpwnam('nobody')
    except KeyError:
        raise Unavailable('no user nobody')
    if name == 'nobody':
        return nobody.pw_uid, nobody.pw_gid, []
    if name == 'nobody+video':
        # A kernel group NSS does not give nobody.
        try:
            video = grp.getgrnam('video').gr_gid
        except KeyError:
            raise Unavailable('no group video')
        return nobody.pw_uid, nobody.pw_gid, [video]
    if name == 'nopw':
        for uid in range(4242, 5242):
            try:
                pwd.getpwuid(uid)
            except KeyError:
                return uid, uid, []
        raise Unavailable('no free uid')
    raise ValueError(name)


class World:
    """policy: busconfig <policy> text; include_files: [path] of this
    machine's configuration files <include>d first, in order; includes:
    [(file name, text)]
    <include>d in order after it; includedir: [(file name, text)] of an
    <includedir> (dbus-daemon reads it in no defined order: its files must
    not depend on each other); clients: [(role, identity, unix_fd)];
    services: {name: Exec} activatable; actions: [tuple]."""

    def __init__(self, name, policy, clients, actions, includes=(),
                 includedir=(), services=None, limits=None,
                 include_files=(), needs_files=()):
        self.name = name
        self.policy = policy
        self.include_files = list(include_files)   # absolute, in order
        self.needs_files = list(needs_files)        # missing: Unavailable
        self.clients = list(clients)
        self.actions = list(actions)
        self.includes = list(includes)
        self.includedir = list(includedir)
        self.services = dict(services or {})
        self.limits = dict(limits or {})

    def describe(self):
        lines = ['world %s' % self.name, self.policy]
        for path in self.include_files:
            with open(path, 'rb') as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            lines.append('include %s (sha256 %s)' % (path, digest))
        for name, text in self.includes:
            lines.append('include %s:\n%s' % (name, text))
        for name, text in self.includedir:
            lines.append('includedir %s:\n%s' % (name, text))
        lines.append('clients: %r' % (self.clients,))
        lines.append('services: %r' % (self.services,))
        for k, action in enumerate(self.actions):
            lines.append('  %3d %r' % (k, action))
        return '\n'.join(lines)


class Client:
    def __init__(self, role, conn, monitor=False):
        self.role = role
        self.conn = conn
        self.monitor = monitor
        self.closed = False
        self.received = []      # raw rawdbus.Message, in order
        self.answered = set()   # reply serials recorded already
        self.calls = {}         # action k -> the call it received for it


class Player:
    """Plays a world on one daemon."""

    def __init__(self, world, daemon):
        self.world = world
        self.options = busfixture.Options(daemon)
        self.roles = {}         # unique name -> role
        self.clients = {}       # role -> Client
        self.lines = []         # the transcript
        self.n_fds_files = []

    # --- set-up ---------------------------------------------------------
    def config(self, bus):
        extra = ''.join('  <include>%s</include>\n' % path
                        for path in self.world.include_files)
        extra += ''.join('  <include>%s</include>\n' % os.path.join(bus.dir, n)
                         for n, _ in self.world.includes)
        if self.world.includedir:
            extra += '  <includedir>%s</includedir>\n' % os.path.join(
                bus.dir, 'conf.d')
        return extra + BARRIER_POLICY       # last: nothing overrides it

    def write_files(self, bus):
        for name, text in self.world.includes:
            with open(os.path.join(bus.dir, name), 'w') as f:
                f.write('<busconfig>\n%s</busconfig>\n' % text)
        if self.world.includedir:
            os.mkdir(os.path.join(bus.dir, 'conf.d'))
            for name, text in self.world.includedir:
                with open(os.path.join(bus.dir, 'conf.d', name), 'w') as f:
                    f.write('<busconfig>\n%s</busconfig>\n' % text)
        for name, argv in self.world.services.items():
            bus.add_service_file(name, argv)

    def connect(self, bus, role, identity, unix_fd):
        uid, gid, groups = identity_creds(identity)
        if uid == 0 and not groups:
            conn = bus.raw(connect=False)
        else:
            conn = bus.raw_as(uid, gid, groups, connect=False)
        try:
            conn.authenticate(unix_fd=unix_fd, uid=uid)
            reply = conn.call(BUS, BUS_PATH, BUS, 'Hello', timeout=5)
        except (rawdbus.Disconnected, BrokenPipeError, ConnectionResetError):
            self.lines.append('%s: refused at connect' % role)
            return
        except TimeoutError:
            self.lines.append('%s: no answer to Hello' % role)
            return
        if reply.type == ERROR:
            self.lines.append('%s: Hello %s' % (role, reply.error_name))
            return
        conn.unique_name = reply.body[0]
        self.roles[conn.unique_name] = role
        conn.serial = ACTION_BASE
        self.clients[role] = Client(role, conn)

    def play(self):
        if os.getuid() != 0:
            raise Unavailable('needs root to connect as other users')
        for path in self.world.needs_files:
            if not os.path.exists(path):
                raise Unavailable('no %s on this machine' % path)
        bus = busfixture.Bus(self.options, policy=self.world.policy,
                             limits=self.world.limits)
        try:
            self.write_files(bus)
            bus.extra_config = self.config(bus)
            try:
                bus.start()
            except AssertionError:
                # Both daemons must refuse the same configurations.
                bus.proc.wait(5)
                self.lines.append('the daemon refused to start')
                return self.lines
            self.barrier = bus.raw()
            self.roles[self.barrier.unique_name] = 'barrier'
            for role, identity, unix_fd in self.world.clients:
                self.connect(bus, role, identity, unix_fd)
            self.settle(-1)
            for k, action in enumerate(self.world.actions):
                self.act(k, action)
                self.settle(k)
            if not bus.alive():
                self.lines.append('the bus died')
        finally:
            for fd in self.n_fds_files:
                os.close(fd)
            try:
                bus.stop(check=False)
            finally:
                bus.cleanup()
        return self.lines

    # --- actions --------------------------------------------------------
    def dest(self, ref):
        """A destination reference: a role (its unique name), or a name."""
        client = self.clients.get(ref)
        if client:
            return client.conn.unique_name
        if ref in dict((r, 1) for r, _, _ in self.world.clients):
            return ':1.9999'                # refused at connect: unknown
        return ref

    def send(self, client, k, type, fields, signature='', body=(), flags=0,
             fds=()):
        msg = rawdbus.Message(type, ACTION_BASE + k, flags, fields, signature,
                              body, fds)
        try:
            client.conn.send(msg)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.lost(client)

    def lost(self, client):
        """The bus closed client's connection (noticed writing or reading:
        which one depends on timing, so both say the same)."""
        if not client.closed:
            client.closed = True
            self.lines.append('%s: disconnected' % client.role)

    def with_fd(self, fd_flag):
        if not fd_flag:
            return '', [], []
        r, w = os.pipe()
        os.close(w)
        self.n_fds_files.append(r)
        return 'h', [0], [r]

    def act(self, k, action):
        kind, src = action[0], action[1]
        client = self.clients.get(src)
        if client is None or client.closed:
            self.lines.append('%d: %s skipped (%s is not connected)'
                              % (k, kind, src))
            return
        getattr(self, 'do_' + kind)(client, k, *action[2:])
        # An answer that comes when a child exits or a start times out is
        # waited for right away, so it lands at the same action on both.
        following = self.world.actions[k + 1:k + 2]
        if following and following[0][:3] == ('wait', src, k):
            self.do_wait(client, k, k, *following[0][3:])

    def do_call(self, client, k, dest, iface, member, flags=0, fd=False,
                path='/diff'):
        sig, body, fds = self.with_fd(fd)
        fields = {rawdbus.FIELD_PATH: path, rawdbus.FIELD_MEMBER: member}
        if dest:
            fields[rawdbus.FIELD_DESTINATION] = self.dest(dest)
        if iface:
            fields[rawdbus.FIELD_INTERFACE] = iface
        if fds:
            fields[rawdbus.FIELD_UNIX_FDS] = len(fds)
        self.send(client, k, METHOD_CALL, fields, sig, body, flags, fds)

    def do_signal(self, client, k, dest, iface, member, flags=0, fd=False,
                  path='/diff'):
        sig, body, fds = self.with_fd(fd)
        fields = {rawdbus.FIELD_PATH: path, rawdbus.FIELD_MEMBER: member,
                  rawdbus.FIELD_INTERFACE: iface}
        if dest:
            fields[rawdbus.FIELD_DESTINATION] = self.dest(dest)
        if fds:
            fields[rawdbus.FIELD_UNIX_FDS] = len(fds)
        self.send(client, k, SIGNAL, fields, sig, body, flags, fds)

    def do_reply(self, client, k, call_k, error=None):
        """Answers the call of action call_k that client received (if it
        did; else to the caller, as a bare reply to that serial)."""
        caller_role = self.world.actions[call_k][1]
        caller = self.clients.get(caller_role)
        dest = caller.conn.unique_name if caller else ':1.9999'
        fields = {rawdbus.FIELD_REPLY_SERIAL: ACTION_BASE + call_k,
                  rawdbus.FIELD_DESTINATION: dest}
        if error:
            fields[rawdbus.FIELD_ERROR_NAME] = error
            self.send(client, k, ERROR, fields, 's', ['from %s' % client.role],
                      NO_REPLY_EXPECTED)
        else:
            self.send(client, k, METHOD_RETURN, fields, 's',
                      ['from %s' % client.role], NO_REPLY_EXPECTED)

    def do_driver(self, client, k, member, signature='', body=(), flags=0):
        body = [self.dest(b) if isinstance(b, str) and b in self.clients
                else b for b in body]
        fields = {rawdbus.FIELD_PATH: BUS_PATH, rawdbus.FIELD_MEMBER: member,
                  rawdbus.FIELD_INTERFACE: BUS,
                  rawdbus.FIELD_DESTINATION: BUS}
        self.send(client, k, METHOD_CALL, fields, signature, body, flags)

    def do_monitor(self, client, k, rules=()):
        """BecomeMonitor; client is a monitor from its answer on (it may
        be refused: only root and the bus's uid may)."""
        fields = {rawdbus.FIELD_PATH: BUS_PATH,
                  rawdbus.FIELD_MEMBER: 'BecomeMonitor',
                  rawdbus.FIELD_INTERFACE: 'org.freedesktop.DBus.Monitoring',
                  rawdbus.FIELD_DESTINATION: BUS}
        # A monitor with rules is also shown the barrier (filtered out again).
        rules = list(rules) + (["interface='%s'" % BARRIER] if rules else [])
        self.send(client, k, METHOD_CALL, fields, 'asu', [rules, 0])
        serial = ACTION_BASE + k
        self.read_until(client, lambda m: m.reply_serial == serial and
                        m.type in (METHOD_RETURN, ERROR), keep=True)
        answer = client.received[-1] if client.received else None
        client.monitor = answer is not None and answer.type == METHOD_RETURN

    def do_close(self, client, k):
        client.conn.close()
        client.closed = True
        self.lines.append('%d: %s closed' % (k, client.role))

    def do_wait(self, client, k, call_k, timeout=4):
        """Waits until client has the answer to its call of action call_k
        (activation answers come when a child exits or a start times out:
        the worlds' service_start_timeout is 2 s), once."""
        serial = ACTION_BASE + call_k
        if serial in client.answered or any(m.reply_serial == serial
                                            for m in client.received):
            return
        client.answered.add(serial)
        try:
            msg = client.conn.wait_for(lambda m: m.reply_serial == serial,
                                       timeout)
            client.received.append(msg)
        except TimeoutError:
            self.lines.append('%d: %s got no answer to %d' % (k, client.role,
                                                              call_k))
        except rawdbus.Disconnected:
            self.lost(client)

    # --- barrier and transcript -----------------------------------------
    def settle(self, k):
        """Everything the bus delivered for action k, per client."""
        for client in self.clients.values():
            if client.closed or client.monitor:
                continue
            self.ping(client)
        self.barrier.signal('/barrier', BARRIER, 'Done', 'i', [k])
        for client in self.clients.values():
            if client.monitor and not client.closed:
                self.read_until(client, lambda m: m.interface == BARRIER and
                                m.body == [k])
        for client in self.clients.values():
            self.record(client, k)

    def ping(self, client):
        client.conn.serial += 1
        serial = PING_BASE + client.conn.serial
        fields = {rawdbus.FIELD_PATH: BUS_PATH, rawdbus.FIELD_MEMBER: 'Ping',
                  rawdbus.FIELD_INTERFACE: 'org.freedesktop.DBus.Peer',
                  rawdbus.FIELD_DESTINATION: BUS}
        try:
            client.conn.send(rawdbus.Message(METHOD_CALL, serial, 0, fields))
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.lost(client)
            return
        self.read_until(client, lambda m: m.reply_serial == serial)

    def read_until(self, client, done, keep=False):
        """Records what client gets up to the message done() picks (kept
        too when keep)."""
        try:
            while True:
                msg = client.conn.wait_for(lambda m: True, 5)
                if done(msg):
                    if keep:
                        client.received.append(msg)
                    return
                client.received.append(msg)
        except rawdbus.Disconnected:
            self.lost(client)
        except TimeoutError:
            self.lines.append('%s: barrier timed out' % client.role)

    def record(self, client, k):
        for msg in client.received:
            if msg.reply_serial:
                client.answered.add(msg.reply_serial)
            line = self.normalize(msg)
            if line:
                self.lines.append('%d %s <- %s' % (k, client.role, line))
            for fd in msg.fds:
                os.close(fd)
        client.received = []

    def name(self, value):
        if isinstance(value, str) and value.startswith(':'):
            return self.roles.get(value, ':unknown')
        return value

    def origin(self, serial):
        """A reply serial as the action (or barrier ping) it answers."""
        if serial is None:
            return None
        if serial >= PING_BASE:
            return 'ping'
        if serial >= ACTION_BASE:
            return 'a%d' % (serial - ACTION_BASE)
        return 'hello' if serial == 1 else 's%d' % serial

    def normalize(self, msg):
        if msg.interface == BARRIER:
            return None
        origin = self.origin(msg.reply_serial)
        if origin == 'ping' or msg.member == 'Ping':
            return None
        sender = self.name(msg.sender)
        if sender == 'barrier' or self.name(msg.destination) == 'barrier':
            return None
        kind = {METHOD_CALL: 'call', METHOD_RETURN: 'return', ERROR: 'error',
                SIGNAL: 'signal'}.get(msg.type, str(msg.type))
        if origin and origin.startswith('s') and msg.destination == BUS:
            origin = 'driver'   # a message of the driver's: its serials are its own
        if msg.type == ERROR and sender == BUS:
            body = ''            # the bus's error texts are its own words
        else:
            body = repr(self.body(msg))
        return '%s %s->%s %s %s.%s err=%s re=%s flags=%d sig=%s fds=%d %s' % (
            kind, sender, self.name(msg.destination), msg.path, msg.interface,
            msg.member, msg.error_name, origin, msg.flags & NO_REPLY_EXPECTED,
            msg.signature or '', len(msg.fds), body)

    def body(self, msg):
        out = []
        for value in msg.body:
            if isinstance(value, list):
                value = sorted(self.name(v) for v in value) \
                    if all(isinstance(v, str) for v in value) else value
            out.append(self.name(value))
        return out
