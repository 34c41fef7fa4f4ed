"""The dbus-daemon command line that scripts and units use:
--print-address=FD, --print-pid, --address=, --address=systemd: with a
socket-activation fd (as dbus.socket hands it over, by hand and through
systemd-socket-activate), --fork with a pid file."""
import os
import shutil
import signal
import socket
import subprocess

import rawdbus
from busfixture import Skip, read_line, wait_until


def talk(address):
    conn = rawdbus.RawConnection(address)
    try:
        conn.connect()
        assert conn.unique_name.startswith(':')
        return conn.unique_name
    finally:
        conn.close()


def gone(pid):
    """The process exited (a zombie waiting for init counts as gone)."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rpartition(')')[2].split()[0] == 'Z'
    except OSError:
        return True


def start(bus, args, pass_fds=(), preexec_fn=None, env=None):
    proc = subprocess.Popen(
        [bus.options.daemon, '--config-file=' + bus.config_path] + args,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, pass_fds=pass_fds, preexec_fn=preexec_fn,
        env=env, cwd=bus.dir)
    bus.children.append(proc)
    return proc


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(5) == 0


def test_print_address_to_fd(bus):
    r, w = os.pipe()
    proc = start(bus, ['--print-address=%d' % w, '--nofork',
                       '--address=unix:path=%s/fd-bus' % bus.dir],
                 pass_fds=[w])
    os.close(w)
    with os.fdopen(r, 'rb') as pipe:
        address = read_line(pipe, 10, 'the address on the fd')
    assert address.startswith('unix:path=%s/fd-bus' % bus.dir), address
    talk(address)
    stop(proc)


def test_print_pid(bus):
    proc = start(bus, ['--print-pid', '--nofork',
                       '--address=unix:path=%s/pid-bus' % bus.dir])
    assert read_line(proc.stdout, 10, 'the pid') == str(proc.pid)
    talk('unix:path=%s/pid-bus' % bus.dir)
    stop(proc)


def test_address_option_overrides_listen(bus):
    proc = start(bus, ['--print-address', '--nofork',
                       '--address=unix:path=%s/other' % bus.dir])
    address = read_line(proc.stdout, 10, 'the address')
    assert rawdbus.parse_address(address) == bus.dir + '/other', address
    talk(address)
    stop(proc)
    assert not os.path.exists(bus.dir + '/other')


def test_systemd_socket_activation(bus):
    """--address=systemd: serves the listening socket passed as fd 3 with
    LISTEN_FDS=1 and LISTEN_PID (how dbus.socket starts the bus)."""
    path = bus.dir + '/activated'
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(16)
    env = dict(bus.env)
    env.pop('LISTEN_PID', None)
    env.pop('LISTEN_FDNAMES', None)
    # sh keeps its pid across exec: LISTEN_PID=$$ names the daemon.
    proc = subprocess.Popen(
        ['/bin/sh', '-c', 'export LISTEN_PID=$$ LISTEN_FDS=1; '
         'exec "$0" "$@" 3<&%d %d<&-' % (sock.fileno(), sock.fileno()),
         bus.options.daemon, '--config-file=' + bus.config_path,
         '--address=systemd:', '--nofork', '--print-address'],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, pass_fds=[sock.fileno()], env=env,
        cwd=bus.dir)
    bus.children.append(proc)
    sock.close()
    address = read_line(proc.stdout, 10, 'the address')
    assert address.startswith('unix:'), address
    # Clients connect to the socket the daemon was handed.
    talk('unix:path=' + path)
    talk('unix:path=' + path)
    stop(proc)
    os.unlink(path)     # systemd owns the socket file, not the daemon


def test_systemd_socket_activate(bus):
    """systemd-socket-activate (systemd's own tool for what a .socket unit
    does) binds two sockets and execs the daemon with LISTEN_FDS=2,
    LISTEN_PID and LISTEN_FDNAMES: --address=systemd: serves both."""
    tool = shutil.which('systemd-socket-activate')
    if not tool:
        raise Skip('no systemd-socket-activate (package systemd)')
    paths = [bus.dir + '/sa-one', bus.dir + '/sa-two']
    env = dict(bus.env)
    for name in ('LISTEN_FDS', 'LISTEN_PID', 'LISTEN_FDNAMES'):
        env.pop(name, None)
    proc = subprocess.Popen(
        [tool, '--listen=' + paths[0], '--listen=' + paths[1],
         '--fdname=dbus.socket:dbus.socket',
         bus.options.daemon, '--config-file=' + bus.config_path,
         '--address=systemd:', '--nofork', '--print-address'],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=env, cwd=bus.dir)
    bus.children.append(proc)
    try:
        # Without --accept the tool execs the daemon at the first connection.
        wait_until(lambda: all(os.path.exists(p) for p in paths), 5,
                   'the sockets')
        first = talk('unix:path=' + paths[0])
        address = read_line(proc.stdout, 10, 'the address')
        assert address.startswith('unix:'), address
        second = talk('unix:path=' + paths[1])
        assert first != second
        talk('unix:path=' + paths[0])
        stop(proc)
    finally:
        for path in paths:
            if os.path.exists(path):
                os.unlink(path)     # the tool's, not the daemon's


def test_fork_and_pidfile(bus):
    pidfile = bus.dir + '/bus.pid'
    sockpath = bus.dir + '/forked'
    addr_r, addr_w = os.pipe()
    pid_r, pid_w = os.pipe()
    bus.extra_config = '<pidfile>%s</pidfile>' % pidfile
    bus.write_config()
    proc = start(bus, ['--fork', '--print-address=%d' % addr_w,
                       '--print-pid=%d' % pid_w,
                       '--address=unix:path=' + sockpath],
                 pass_fds=[addr_w, pid_w])
    os.close(addr_w)
    os.close(pid_w)
    with os.fdopen(pid_r, 'rb') as pipe:
        pid = int(read_line(pipe, 10, 'the pid of the forked bus'))
    try:
        with os.fdopen(addr_r, 'rb') as pipe:
            address = read_line(pipe, 10, 'the address of the forked bus')
        assert proc.wait(10) == 0, 'the parent did not exit 0 after forking'
        assert pid != proc.pid
        with open(pidfile) as f:
            assert int(f.read().strip()) == pid
        talk(address)
    finally:
        os.kill(pid, signal.SIGTERM)
    wait_until(lambda: gone(pid), 5, 'the forked daemon to exit')
    assert not os.path.exists(pidfile), 'the pid file was left behind'
    assert not os.path.exists(sockpath), 'the socket was left behind'
