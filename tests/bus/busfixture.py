"""A private bus for one test: config, daemon, clients, helpers, teardown.

The daemon under test is a parameter (dbus-daemon for the reference run,
mssf-broker for the real one); everything a test asserts must hold for
both. Bus.start() writes a config into a fresh temp dir, starts the daemon
with --print-address and reads the address from its stdout pipe;
Bus.stop() checks the daemon is still alive and still serves a new client,
sends SIGTERM and checks it exits cleanly, leaving no socket and no child
behind. Every wait has a timeout.
"""
import os
import select
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time

import rawdbus

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = '/usr/bin/python3'

# session.conf's policy: everything allowed, even unrequested replies.
SESSION_POLICY = """
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
    <allow user="*"/>
  </policy>
"""

# Permissive, like session.conf, except that replies nobody asked for
# are dropped (as on the system bus, and as mssf-broker always does).
DEFAULT_POLICY = """
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
    <allow user="*"/>
    <deny send_type="method_return" send_requested_reply="false"/>
    <deny send_type="error" send_requested_reply="false"/>
  </policy>
"""


def config(**kwargs):
    """Decorator: Bus(...) keyword arguments for this test's bus."""
    def wrap(fn):
        fn.bus_config = kwargs
        return fn
    return wrap


class Skip(Exception):
    """The test cannot run here; reported to meson as skipped (77)."""


class Timeout(AssertionError):
    pass


def wait_until(predicate, timeout=5.0, what='condition', step=0.01):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Timeout('timed out waiting for ' + what)
        time.sleep(step)


def read_line(stream, timeout, what):
    """One line from a pipe, with a timeout."""
    deadline = time.monotonic() + timeout
    data = b''
    fd = stream.fileno()
    while not data.endswith(b'\n'):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Timeout('timed out waiting for %s (got %r)' % (what, data))
        ready, _, _ = select.select([fd], [], [], remaining)
        if ready:
            chunk = os.read(fd, 1)
            if not chunk:
                raise AssertionError('%s: pipe closed (got %r)' % (what, data))
            data += chunk
    return data.decode().rstrip('\n')


class Options:
    """What the runner passes in: the daemon and the helper programs."""

    def __init__(self, daemon, libdbus_helper=None, sdbus_helper=None):
        self.daemon = daemon
        self.libdbus_helper = libdbus_helper
        self.sdbus_helper = sdbus_helper

    @property
    def is_reference(self):
        return os.path.basename(self.daemon) == 'dbus-daemon'


class Bus:
    def __init__(self, options, limits=None, extra_config='',
                 auth='EXTERNAL', policy=DEFAULT_POLICY, services=(),
                 listen=None, daemon_args=()):
        self.options = options
        # daemon_args: more command-line options (--systemd-activation).
        self.daemon_args = list(daemon_args)
        self.limits = dict(limits or {})
        self.extra_config = extra_config
        self.auth = auth
        self.policy = policy
        self.dir = tempfile.mkdtemp(prefix='mssf-bus-test-')
        self.socket_path = os.path.join(self.dir, 'bus-socket')
        self.config_path = os.path.join(self.dir, 'bus.conf')
        self.log_path = os.path.join(self.dir, 'daemon.log')
        self.servicedir = os.path.join(self.dir, 'services')
        os.mkdir(self.servicedir)
        self.services = services
        # listen: <listen> addresses, '{dir}' replaced by the temp dir.
        self.listen = [a.replace('{dir}', self.dir) for a in
                       (listen or ['unix:path=' + self.socket_path])]
        self.proc = None
        self.terminated = False
        self.terminate_problems = []
        self.address = None
        self.children = []
        self.raw_connections = []
        self.env = dict(os.environ)
        # A tool that ignored --address must fail, not find another bus.
        self.env['DBUS_SESSION_BUS_ADDRESS'] = 'unix:path=/nonexistent/bus'
        self.env['DBUS_SYSTEM_BUS_ADDRESS'] = 'unix:path=/nonexistent/bus'
        self.env['SYSTEMD_PAGER'] = ''
        self.env['PAGER'] = 'cat'
        self.env['PYTHONPATH'] = HERE
        self.env.pop('DBUS_STARTER_ADDRESS', None)

    # --- daemon ---------------------------------------------------------
    def config_text(self):
        limits = ''.join('  <limit name="%s">%s</limit>\n' % kv
                         for kv in sorted(self.limits.items()))
        auth = '  <auth>%s</auth>\n' % self.auth if self.auth else ''
        return ('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus '
                'Configuration 1.0//EN"\n "http://www.freedesktop.org/'
                'standards/dbus/1.0/busconfig.dtd">\n<busconfig>\n'
                '  <type>session</type>\n'
                '%s%s'
                '  <servicedir>%s</servicedir>\n%s%s%s</busconfig>\n'
                % (''.join('  <listen>%s</listen>\n' % a
                           for a in self.listen),
                   auth, self.servicedir, self.policy, limits,
                   self.extra_config))

    def write_config(self):
        with open(self.config_path, 'w') as f:
            f.write(self.config_text())

    def start(self):
        self.write_config()
        for name in self.services:
            self.add_activatable_service(name)
        self.log = open(self.log_path, 'wb')
        self.proc = subprocess.Popen(
            [self.options.daemon, '--config-file=' + self.config_path,
             '--print-address', '--nofork'] + self.daemon_args,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=self.log, env=self.env, cwd=self.dir)
        self.address = read_line(self.proc.stdout, 10, 'the bus address')
        if not self.address.startswith('unix:'):
            raise AssertionError('bad address %r' % self.address)
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def daemon_log(self):
        try:
            with open(self.log_path, 'rb') as f:
                return f.read().decode(errors='replace')
        except OSError:
            return ''

    def child_pids(self):
        out = []
        for entry in os.listdir('/proc'):
            if not entry.isdigit():
                continue
            try:
                with open('/proc/%s/stat' % entry) as f:
                    stat = f.read()
            except OSError:
                continue
            ppid = int(stat.rpartition(')')[2].split()[1])
            if ppid == self.proc.pid:
                out.append(int(entry))
        return out

    def check_serves(self):
        """A new client still gets answers from the bus."""
        conn = rawdbus.RawConnection(self.address)
        try:
            conn.connect()
            reply = rawdbus.check_reply(conn.bus_call('ListNames'))
            assert conn.unique_name in reply.body[0], reply
        finally:
            conn.close()

    def stop(self, check=True):
        """Tears down; with check, asserts a clean exit."""
        for conn in self.raw_connections:
            conn.close()
        for child in self.children:
            if child.poll() is None:
                child.kill()
            child.wait(5)
        if self.proc is None:
            return
        problems = []
        if check and not self.terminated:
            if not self.alive():
                problems.append('the daemon died during the test (rc %s)'
                                % self.proc.returncode)
            else:
                try:
                    self.check_serves()
                except Exception as e:
                    problems.append('the daemon no longer serves a new '
                                    'client: %s' % e)
        if self.alive():
            problems += self.terminate()
        elif self.terminated and check:
            problems += self.terminate_problems
        self.proc.stdout.close()
        self.log.close()
        if problems:
            raise AssertionError('; '.join(problems))

    def terminate(self):
        """SIGTERM; returns the problems seen: exit status not 0, files
        left in the bus directory, children left behind."""
        problems = []
        daemon_children = self.child_pids()
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            rc = 'hung'
        if rc != 0:
            problems.append('SIGTERM: daemon exit status %s, wanted 0'
                            % rc)
        leftovers = [os.path.join(top, f)
                     for top, dirs, files in os.walk(self.dir)
                     for f in files
                     if stat.S_ISSOCK(os.lstat(os.path.join(top, f)).st_mode)]
        if leftovers:
            problems.append('left behind in the bus directory: %s'
                            % leftovers)
        # Activated services exit when the bus goes away.
        deadline = time.monotonic() + 3
        for pid in daemon_children:
            while (os.path.exists('/proc/%d' % pid)
                   and time.monotonic() < deadline):
                time.sleep(0.02)
            if os.path.exists('/proc/%d' % pid):
                problems.append('daemon child %d left behind' % pid)
                os.kill(pid, signal.SIGKILL)
        self.terminated = True
        self.terminate_problems = problems
        return problems

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def reload(self):
        self.write_config()
        self.proc.send_signal(signal.SIGHUP)

    # --- clients --------------------------------------------------------
    def raw(self, connect=True, unix_fd=False, timeout=5.0):
        conn = rawdbus.RawConnection(self.address, timeout)
        self.raw_connections.append(conn)
        if connect:
            conn.connect(unix_fd)
        return conn

    def raw_as(self, uid, gid=None, groups=(), connect=True, timeout=5.0):
        """A raw connection whose kernel credentials are uid, gid and the
        supplementary groups (which need not be what NSS says): a child
        takes them, connects the socket and hands it over (SO_PEERCRED is
        fixed at connect()); this process speaks SASL and D-Bus on it."""
        if os.getuid() != 0:
            raise Skip('needs root to connect as another user')
        os.chmod(self.dir, 0o755)
        path = rawdbus.parse_address(self.address)
        there, here = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            try:
                here.close()
                os.setgroups(list(groups))
                os.setgid(uid if gid is None else gid)
                os.setuid(uid)
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(path)
                socket.send_fds(there, [b'x'], [sock.fileno()])
            finally:
                os._exit(0)
        there.close()
        try:
            _, fds, _, _ = socket.recv_fds(here, 1, 1)
        finally:
            here.close()
            os.waitpid(pid, 0)
        if not fds:
            raise AssertionError('the child could not connect as uid %d'
                                 % uid)
        conn = rawdbus.RawConnection(None, timeout,
                                     sock=socket.socket(fileno=fds[0]))
        self.raw_connections.append(conn)
        if connect:
            conn.authenticate(uid=uid)
            reply = conn.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                              'org.freedesktop.DBus', 'Hello')
            conn.unique_name = rawdbus.check_reply(reply).body[0]
        return conn

    def pyclient(self):
        import pyclient
        return pyclient.PyClient(self.address)

    def session_env(self):
        """The environment of a client that finds this bus as its session
        bus (for tools that treat --address as a peer, not a bus)."""
        env = dict(self.env)
        env['DBUS_SESSION_BUS_ADDRESS'] = self.address
        return env

    def run(self, argv, timeout=10, check=True, input=None, env=None):
        """Runs a client program to completion; returns CompletedProcess."""
        try:
            res = subprocess.run(argv, env=env or self.env, timeout=timeout,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, input=input)
        except subprocess.TimeoutExpired as e:
            raise Timeout('%r did not finish in %ss' % (argv, timeout)) from e
        res.stdout = res.stdout.decode(errors='replace')
        res.stderr = res.stderr.decode(errors='replace')
        if check and res.returncode != 0:
            raise AssertionError('%r failed (rc %d): %s%s' % (
                argv, res.returncode, res.stdout, res.stderr))
        return res

    def spawn(self, argv, stdout=subprocess.PIPE, **kwargs):
        proc = subprocess.Popen(argv, env=self.env, stdin=subprocess.DEVNULL,
                                stdout=stdout, **kwargs)
        self.children.append(proc)
        return proc

    def service(self, name='org.mssf.Test', *args):
        """Starts service.py owning name; returns (process, unique name)."""
        proc = self.spawn([PYTHON, os.path.join(HERE, 'service.py'),
                           self.address, name] + list(args))
        line = read_line(proc.stdout, 10, 'service.py READY')
        assert line.startswith('READY '), line
        return proc, line.split()[1]

    def add_service_file(self, name, argv):
        """An activatable service: a .service file in the servicedir."""
        path = os.path.join(self.servicedir, name + '.service')
        with open(path, 'w') as f:
            f.write('[D-BUS Service]\nName=%s\nExec=%s\n'
                    % (name, ' '.join(argv)))
        return path

    def add_activatable_service(self, name):
        return self.add_service_file(name, [
            PYTHON, os.path.join(HERE, 'service.py'), '-', name])

    def helper(self, which, *args, ready=True):
        """Starts a C helper program in service mode; waits for READY."""
        path = getattr(self.options, which + '_helper')
        if not path:
            raise Skip('%s helper not built' % which)
        proc = self.spawn([path, self.address] + list(args))
        if ready:
            line = read_line(proc.stdout, 10, '%s READY' % which)
            assert line.startswith('READY '), line
            return proc, line.split()[1]
        return proc, None
