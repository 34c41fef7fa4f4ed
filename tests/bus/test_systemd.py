"""What the bus tells systemd through NOTIFY_SOCKET (sd_notify).

Each test starts its own daemon with NOTIFY_SOCKET naming an abstract
AF_UNIX datagram socket the test bound (no file left in the bus dir), on
its own --address (the fixture's bus holds the <listen> path), and reads
the datagrams the way systemd does.

dbus-daemon 1.14 sends READY=1 at start-up, RELOADING=1 then READY=1
around every reload (also one that fails), STOPPING=1 at SIGTERM; those
are asserted for both daemons, and that activated services do not
inherit NOTIFY_SOCKET. mssf-broker also sends, and only its run
asserts: MONOTONIC_USEC= with RELOADING=1 (Type=notify-reload needs it),
STATUS= with the number of connections and names, kept current but at
most once a second, and WATCHDOG=1 when WATCHDOG_USEC is set. For the
reference run, the status test still checks that no datagram is sent per
message.
"""
import os
import signal
import socket
import subprocess
import time

import rawdbus
from busfixture import read_line, wait_until


class Notifier:
    """The service manager's end: an abstract datagram socket."""

    def __init__(self):
        self.name = 'mssf-notify-test-%d-%d' % (os.getpid(),
                                               time.monotonic_ns())
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind('\0' + self.name)
        self.seen = []

    @property
    def env_value(self):
        return '@' + self.name

    def recv(self, timeout):
        """One datagram as a dict, or None after timeout seconds."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096).decode()
        except socket.timeout:
            return None
        fields = dict(line.split('=', 1) for line in data.split('\n')
                      if line)
        self.seen.append(fields)
        return fields

    def wait_for(self, key, timeout=5.0):
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            fields = self.recv(max(remaining, 0.01))
            if fields is not None and key in fields:
                return fields
            if remaining <= 0:
                raise AssertionError('no %s= in %ss; got %r'
                                     % (key, timeout, self.seen))

    def drain(self, duration):
        out = []
        deadline = time.monotonic() + duration
        while time.monotonic() < deadline:
            fields = self.recv(max(deadline - time.monotonic(), 0.01))
            if fields is not None:
                out.append(fields)
        return out

    def close(self):
        self.sock.close()


def monotonic_usec():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def start(bus, notifier, env_extra=None):
    address = 'unix:path=%s/notify-bus' % bus.dir
    env = dict(bus.env)
    env['NOTIFY_SOCKET'] = notifier.env_value
    env.update(env_extra or {})
    proc = subprocess.Popen(
        [bus.options.daemon, '--config-file=' + bus.config_path,
         '--address=' + address, '--nofork', '--print-address'],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=env, cwd=bus.dir)
    bus.children.append(proc)
    read_line(proc.stdout, 10, 'the address')
    return proc, address


def connect(address):
    conn = rawdbus.RawConnection(address)
    conn.connect()
    return conn


def stop(proc, notifier):
    proc.send_signal(signal.SIGTERM)
    assert notifier.wait_for('STOPPING')['STOPPING'] == '1'
    assert proc.wait(5) == 0


def check_reload(bus, notifier, before):
    """RELOADING=1 (with MONOTONIC_USEC for the broker), then READY=1."""
    reloading = notifier.wait_for('RELOADING')
    assert reloading['RELOADING'] == '1', reloading
    if not bus.options.is_reference:
        stamp = int(reloading['MONOTONIC_USEC'])
        assert before <= stamp <= monotonic_usec(), (before, stamp)
    ready = notifier.wait_for('READY')
    assert ready['READY'] == '1', ready


def test_ready_reload_stopping(bus):
    notifier = Notifier()
    try:
        proc, address = start(bus, notifier)
        first = notifier.wait_for('READY')
        assert first['READY'] == '1', first
        if not bus.options.is_reference:
            assert first['STATUS'].startswith('Processing requests: '), first
        before = monotonic_usec()
        proc.send_signal(signal.SIGHUP)
        check_reload(bus, notifier, before)
        conn = connect(address)
        before = monotonic_usec()
        rawdbus.check_reply(conn.bus_call('ReloadConfig'))
        check_reload(bus, notifier, before)
        conn.close()
        stop(proc, notifier)
    finally:
        notifier.close()


def test_failed_reload_is_ready_again(bus):
    """A configuration that does not load leaves the old one in force:
    the bus still says READY=1 after RELOADING=1."""
    notifier = Notifier()
    try:
        proc, address = start(bus, notifier)
        notifier.wait_for('READY')
        with open(bus.config_path, 'w') as f:
            f.write('<busconfig><broken')
        before = monotonic_usec()
        proc.send_signal(signal.SIGHUP)
        check_reload(bus, notifier, before)
        connect(address).close()
        stop(proc, notifier)
    finally:
        notifier.close()


def test_status_counts_and_rate(bus):
    notifier = Notifier()
    try:
        proc, address = start(bus, notifier)
        notifier.wait_for('READY')
        a, b = connect(address), connect(address)
        rawdbus.check_reply(b.bus_call('RequestName', 'su',
                                       ['org.mssf.Status', 0]))
        if not bus.options.is_reference:
            want = 'Processing requests: 2 connections, 1 name'
            wait_until(lambda: any(f.get('STATUS') == want for f in
                                   notifier.drain(0.2)),
                       5, 'STATUS=' + want)
        # 300 calls and 20 short connections in about a second: at most
        # a datagram or two, never one per message or connection.
        notifier.drain(0.1)
        start_time = time.monotonic()
        for i in range(300):
            rawdbus.check_reply(a.bus_call('GetId'))
        for i in range(20):
            connect(address).close()
        seen = notifier.drain(max(0.2, 1.2 - (time.monotonic() -
                                              start_time)))
        assert len(seen) <= 2, seen
        if not bus.options.is_reference:
            # The last state gets out, even with the bus idle afterwards.
            b.close()
            want = 'Processing requests: 1 connection, 0 names'
            wait_until(lambda: any(f.get('STATUS') == want for f in
                                   notifier.drain(0.2)),
                       3, 'STATUS=' + want)
        a.close()
        stop(proc, notifier)
    finally:
        notifier.close()


def test_watchdog(bus):
    """WatchdogSec=: the broker pings at half the interval (dbus-daemon
    1.14 does not support the watchdog: only the broker is checked)."""
    notifier = Notifier()
    try:
        proc, address = start(bus, notifier, {'WATCHDOG_USEC': '400000'})
        notifier.wait_for('READY')
        if not bus.options.is_reference:
            notifier.wait_for('WATCHDOG', 2)
            notifier.wait_for('WATCHDOG', 2)
        stop(proc, notifier)
    finally:
        notifier.close()


def test_activated_service_does_not_inherit_notify_socket(bus):
    """A service the bus spawns must not talk to systemd in the bus's
    name: NOTIFY_SOCKET is not passed on (dbus-daemon does the same)."""
    notifier = Notifier()
    try:
        bus.add_activatable_service('org.mssf.NotifyEnv')
        proc, address = start(bus, notifier)
        notifier.wait_for('READY')
        conn = connect(address)
        reply = rawdbus.check_reply(conn.call(
            'org.mssf.NotifyEnv', '/org/mssf/Test', 'org.mssf.Test',
            'GetEnv', 's', ['NOTIFY_SOCKET'], timeout=15))
        assert reply.body == ['<unset>'], reply
        conn.close()
        stop(proc, notifier)
    finally:
        notifier.close()
