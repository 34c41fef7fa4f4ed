"""The daemon's own life: the command line (--version, a config that does
not load), and SIGTERM with clients still connected: they see the bus go,
the daemon exits 0 and leaves nothing behind."""

import busfixture
from rawdbus import check_reply


def test_sigterm_with_clients(bus):
    raw = [bus.raw() for _ in range(3)]
    check_reply(raw[0].bus_call('RequestName', 'su', ['org.mssf.Kept', 0]))
    service, unique = bus.service('org.mssf.Test')
    problems = bus.terminate()
    assert not problems, problems
    for conn in raw:
        assert conn.wait_closed(3), 'a client did not see the bus go'
    # service.py exits with status 3 when its bus connection drops.
    assert service.wait(5) == 3


def test_version(bus):
    res = bus.run([bus.options.daemon, '--version'])
    assert res.stdout.strip(), 'no version text'


def _start_fails(bus, **kwargs):
    broken = busfixture.Bus(bus.options, **kwargs)
    try:
        broken.start()
    except AssertionError:
        pass
    else:
        broken.stop(check=False)
        broken.cleanup()
        raise AssertionError('the daemon started with a broken config')
    rc = broken.proc.wait(5)
    log = broken.daemon_log()
    broken.stop(check=False)
    broken.cleanup()
    assert rc != 0, rc
    assert log.strip(), 'no message on stderr'


def test_broken_config_refuses_to_start(bus):
    _start_fails(bus, extra_config='<bogus_element/>')


def test_bad_limit_refuses_to_start(bus):
    _start_fails(bus, limits={'no_such_limit': 5})


def test_missing_config_file(bus):
    res = bus.run([bus.options.daemon, '--config-file=/nonexistent/bus.conf',
                   '--print-address', '--nofork'], check=False, timeout=10)
    assert res.returncode != 0
    assert not res.stdout.strip(), res.stdout
