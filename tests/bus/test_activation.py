"""Bus activation from .service files in the configured <servicedir>:
ListActivatableNames, StartServiceByName, auto-start on a method call,
NO_AUTO_START, spawn failures, UpdateActivationEnvironment; and with
--systemd-activation, starts requested from systemd (played by the test:
fakesystemd.py)."""
import os
import time

from rawdbus import check_reply, ERROR, METHOD_RETURN, NO_AUTO_START
from busfixture import HERE, PYTHON, config, wait_until
from fakesystemd import FakeSystemd, write_service_file

TPATH, TIFACE = '/org/mssf/Test', 'org.mssf.Test'
NAME = 'org.mssf.Activatable'


def activatable(bus):
    return bus.raw()


def error_name(reply):
    assert reply.type == ERROR, reply
    return reply.error_name


@config(services=[NAME])
def test_list_activatable_names(bus):
    a = activatable(bus)
    names = check_reply(a.bus_call('ListActivatableNames')).body[0]
    assert NAME in names and 'org.freedesktop.DBus' in names, names
    # Activatable is not the same as running.
    assert check_reply(a.bus_call('NameHasOwner', 's', [NAME])).body == \
        [False]


@config(services=[NAME])
def test_start_service_by_name(bus):
    a = activatable(bus)
    reply = check_reply(a.bus_call('StartServiceByName', 'su', [NAME, 0],
                                   timeout=15))
    assert reply.body == [1], reply          # DBUS_START_REPLY_SUCCESS
    owner = check_reply(a.bus_call('GetNameOwner', 's', [NAME])).body[0]
    assert owner.startswith(':')
    reply = check_reply(a.bus_call('StartServiceByName', 'su', [NAME, 0]))
    assert reply.body == [2], reply          # ALREADY_RUNNING
    assert check_reply(a.call(NAME, TPATH, TIFACE, 'Echo', 's',
                              ['activated'])).body == ['activated']


@config(services=[NAME])
def test_auto_start_on_call(bus):
    a = activatable(bus)
    reply = a.call(NAME, TPATH, TIFACE, 'Echo', 's', ['first call'],
                   timeout=15)
    assert reply.type == METHOD_RETURN and reply.body == ['first call'], \
        reply


@config(services=[NAME])
def test_activated_service_inherits_no_descriptor(bus):
    """What a service gets is 0-2 and nothing of the bus: not its listening
    socket, epoll, timers, nor any client's socket or pidfd."""
    clients = [bus.raw() for _ in range(3)]
    for c in clients:
        check_reply(c.bus_call('GetId'))
    reply = clients[0].call(NAME, TPATH, TIFACE, 'InheritedFds', '', [],
                            timeout=15)
    assert check_reply(reply).body == [[]], reply


@config(services=[NAME])
def test_calls_queued_during_activation(bus):
    a, b = activatable(bus), bus.raw()
    serials = [(c, c.send_call(NAME, TPATH, TIFACE, 'Echo', 's', [str(i)]))
               for i, c in enumerate([a, b, a, b])]
    for i, (conn, serial) in enumerate(serials):
        reply = conn.wait_for(lambda m: m.reply_serial == serial, 15)
        assert reply.type == METHOD_RETURN and reply.body == [str(i)], reply


@config(services=[NAME])
def test_no_auto_start(bus):
    a = activatable(bus)
    reply = a.call(NAME, TPATH, TIFACE, 'Echo', 's', ['x'],
                   flags=NO_AUTO_START)
    assert error_name(reply) == 'org.freedesktop.DBus.Error.NameHasNoOwner'
    assert check_reply(a.bus_call('NameHasOwner', 's', [NAME])).body == \
        [False]


def test_service_file_added_then_reload(bus):
    a = bus.raw()
    assert NAME not in check_reply(a.bus_call('ListActivatableNames')).body[0]
    bus.add_activatable_service(NAME)
    check_reply(a.bus_call('ReloadConfig'))
    wait_until(lambda: NAME in check_reply(
        a.bus_call('ListActivatableNames')).body[0], 5, 'the new service')
    assert check_reply(a.call(NAME, TPATH, TIFACE, 'Echo', 's', ['new'],
                              timeout=15)).body == ['new']


def test_activation_child_exited(bus):
    bus.add_service_file('org.mssf.Broken', ['/bin/false'])
    a = bus.raw()
    check_reply(a.bus_call('ReloadConfig'))
    reply = a.bus_call('StartServiceByName', 'su', ['org.mssf.Broken', 0],
                       timeout=15)
    assert error_name(reply) == 'org.freedesktop.DBus.Error.Spawn.ChildExited'
    reply = a.call('org.mssf.Broken', TPATH, TIFACE, 'Echo', 's', ['x'],
                   timeout=15)
    assert error_name(reply) == 'org.freedesktop.DBus.Error.Spawn.ChildExited'


def test_daemonizing_service_exit_0(bus):
    """A service that "daemonizes" (its process exits 0 while a child
    takes the name) has not failed: dbus-daemon waits for the name (and
    dbus-tests' /activation/forking starts one ten times)."""
    service = os.path.join(HERE, 'service.py')
    bus.add_service_file('org.mssf.Forking', [
        '/bin/sh', '-c', '"(sleep 0.3; exec %s %s - org.mssf.Forking) &"'
        % (PYTHON, service)])
    a = bus.raw()
    check_reply(a.bus_call('ReloadConfig'))
    reply = check_reply(a.call('org.mssf.Forking', TPATH, TIFACE, 'Echo', 's',
                               ['forked'], timeout=15))
    assert reply.body == ['forked'], reply
    # It leaves (no reply) so that nothing outlives the bus.
    a.call('org.mssf.Forking', TPATH, TIFACE, 'Exit', timeout=3)


@config(extra_config='  <servicehelper>/usr/lib/dbus-1.0/dbus-daemon-launch-helper'
        '</servicehelper>\n')
def test_update_activation_environment_refused_with_servicehelper(bus):
    """dbus-daemon refuses UpdateActivationEnvironment on a bus that starts
    services through the setuid helper (the system bus), even to root."""
    a = bus.raw()
    reply = a.bus_call('UpdateActivationEnvironment', 'a{ss}', [{'A': 'b'}])
    assert error_name(reply) == 'org.freedesktop.DBus.Error.AccessDenied'


def test_activation_exec_failed(bus):
    bus.add_service_file('org.mssf.Missing', ['/nonexistent/program'])
    a = bus.raw()
    check_reply(a.bus_call('ReloadConfig'))
    reply = a.bus_call('StartServiceByName', 'su', ['org.mssf.Missing', 0],
                       timeout=15)
    assert error_name(reply) == 'org.freedesktop.DBus.Error.Spawn.ExecFailed'


@config(services=[NAME])
def test_update_activation_environment(bus):
    a = activatable(bus)
    check_reply(a.bus_call('UpdateActivationEnvironment', 'a{ss}',
                           [{'MSSF_ACTIVATION_TEST': 'passed on'}]))
    reply = check_reply(a.call(NAME, TPATH, TIFACE, 'GetEnv', 's',
                               ['MSSF_ACTIVATION_TEST'], timeout=15))
    assert reply.body == ['passed on'], reply
    reply = check_reply(a.call(NAME, TPATH, TIFACE, 'GetEnv', 's',
                               ['DBUS_STARTER_BUS_TYPE']))
    assert reply.body == ['session'], reply


@config(limits={'service_start_timeout': 500})
def test_service_start_timeout(bus):
    """A service that never takes its name: TimedOut after
    service_start_timeout, and the bus does not keep it running."""
    bus.add_service_file('org.mssf.Slow', ['/bin/sleep', '30'])
    a = bus.raw()
    check_reply(a.bus_call('ReloadConfig'))
    start = time.monotonic()
    reply = a.bus_call('StartServiceByName', 'su', ['org.mssf.Slow', 0],
                       timeout=10)
    assert error_name(reply) == 'org.freedesktop.DBus.Error.TimedOut'
    assert 0.4 < time.monotonic() - start < 5
    wait_until(lambda: not bus.child_pids(), 3, 'the slow child to go')


# --systemd-activation: the bus asks systemd (fakesystemd.FakeSystemd).
SD = {'daemon_args': ['--systemd-activation']}
SD_NAME, SD_UNIT = 'org.mssf.SystemdActivated', 'mssf-test-activated.service'
NO_SUCH_UNIT = 'org.freedesktop.systemd1.NoSuchUnit'


def systemd_service(bus, name=SD_NAME, unit=SD_UNIT):
    """A SystemdService= .service file, loaded; the caller's connection."""
    write_service_file(bus, name, unit)
    a = bus.raw()
    check_reply(a.bus_call('ReloadConfig'))
    wait_until(lambda: name in check_reply(
        a.bus_call('ListActivatableNames')).body[0], 5, 'the service file')
    return a


@config(**SD)
def test_systemd_call_queued_until_service_appears(bus):
    """Calls to a SystemdService= name wait; systemd is asked once, by
    unit; Exec= is not run; the service systemd starts answers them all, in
    order."""
    systemd = FakeSystemd(bus)
    a = systemd_service(bus)
    b = bus.raw()
    serials = [(c, c.send_call(SD_NAME, TPATH, TIFACE, 'Echo', 's', [str(i)]))
               for i, c in enumerate([a, b, a])]
    assert systemd.wait_request() == SD_UNIT
    # Still queued: nobody got an answer, and one request was enough.
    for conn, serial in serials:
        conn.expect_nothing(lambda m: m.reply_serial == serial, 0.2)
    systemd.no_request()
    assert not bus.child_pids(), 'the bus ran Exec= itself'
    systemd.start(SD_NAME)
    for i, (conn, serial) in enumerate(serials):
        reply = conn.wait_for(lambda m: m.reply_serial == serial, 10)
        assert reply.type == METHOD_RETURN and reply.body == [str(i)], reply
    # Running now: no new request.
    assert check_reply(a.call(SD_NAME, TPATH, TIFACE, 'Echo', 's',
                              ['again'])).body == ['again']
    systemd.no_request()


@config(**SD)
def test_systemd_activation_failure_fails_every_caller(bus):
    """ActivationFailure(unit, error, text) from systemd: every queued
    caller gets that error name and text; the next call asks again."""
    systemd = FakeSystemd(bus)
    a = systemd_service(bus)
    b = bus.raw()
    calls = [(c, c.send_call(SD_NAME, TPATH, TIFACE, 'Echo', 's', ['x']))
             for c in (a, b, b)]
    start_serial = a.send_call('org.freedesktop.DBus',
                               '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                               'StartServiceByName', 'su', [SD_NAME, 0])
    calls.append((a, start_serial))
    assert systemd.wait_request() == SD_UNIT
    systemd.fail(SD_UNIT, NO_SUCH_UNIT, 'Unit %s not found.' % SD_UNIT)
    for conn, serial in calls:
        reply = conn.wait_for(lambda m: m.reply_serial == serial, 10)
        assert error_name(reply) == NO_SUCH_UNIT, reply
        assert reply.body == ['Unit %s not found.' % SD_UNIT], reply
    serial = a.send_call(SD_NAME, TPATH, TIFACE, 'Echo', 's', ['retry'])
    assert systemd.wait_request() == SD_UNIT
    systemd.start(SD_NAME)
    assert a.wait_for(lambda m: m.reply_serial == serial, 10).body == \
        ['retry']


@config(**SD)
def test_systemd_activation_failure_only_from_systemd(bus):
    """Only the owner of org.freedesktop.systemd1 may fail a start: the
    same signal from another peer changes nothing."""
    systemd = FakeSystemd(bus)
    a = systemd_service(bus)
    serial = a.send_call(SD_NAME, TPATH, TIFACE, 'Echo', 's', ['kept'])
    assert systemd.wait_request() == SD_UNIT
    systemd.fail(SD_UNIT, NO_SUCH_UNIT, 'forged', conn=bus.raw())
    a.expect_nothing(lambda m: m.reply_serial == serial, 0.3)
    systemd.start(SD_NAME)
    assert a.wait_for(lambda m: m.reply_serial == serial, 10).body == \
        ['kept']


@config(**SD)
def test_systemd_start_service_by_name(bus):
    systemd = FakeSystemd(bus)
    a = systemd_service(bus)
    serial = a.send_call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                         'org.freedesktop.DBus', 'StartServiceByName', 'su',
                         [SD_NAME, 0])
    assert systemd.wait_request() == SD_UNIT
    a.expect_nothing(lambda m: m.reply_serial == serial, 0.2)
    systemd.start(SD_NAME)
    reply = check_reply(a.wait_for(lambda m: m.reply_serial == serial, 10))
    assert reply.body == [1], reply                 # SUCCESS
    reply = check_reply(a.bus_call('StartServiceByName', 'su', [SD_NAME, 0]))
    assert reply.body == [2], reply                 # ALREADY_RUNNING
    systemd.no_request()


@config(**SD)
def test_systemd_joins_later(bus):
    """A start requested before systemd is on the bus is sent once it
    takes its name (a boot: the bus starts before PID 1 connects)."""
    a = systemd_service(bus)
    serial = a.send_call(SD_NAME, TPATH, TIFACE, 'Echo', 's', ['early'])
    a.expect_nothing(lambda m: m.reply_serial == serial, 0.2)
    systemd = FakeSystemd(bus)
    assert systemd.wait_request() == SD_UNIT
    systemd.start(SD_NAME)
    assert a.wait_for(lambda m: m.reply_serial == serial, 10).body == \
        ['early']


@config(services=[NAME])
def test_without_systemd_activation_exec_is_used(bus):
    """Without --systemd-activation a SystemdService= file is spawned by
    Exec=, and nothing is asked of a systemd on the bus."""
    systemd = FakeSystemd(bus)
    write_service_file(bus, SD_NAME, SD_UNIT, ' '.join(
        [PYTHON, os.path.join(HERE, 'service.py'), '-', SD_NAME]))
    a = bus.raw()
    check_reply(a.bus_call('ReloadConfig'))
    wait_until(lambda: SD_NAME in check_reply(
        a.bus_call('ListActivatableNames')).body[0], 5, 'the service file')
    assert check_reply(a.call(SD_NAME, TPATH, TIFACE, 'Echo', 's', ['spawned'],
                              timeout=15)).body == ['spawned']
    systemd.no_request()


@config(**SD)
def test_systemd_failure_of_a_unit_fails_all_its_names(bus):
    """Two names provided by one unit: one ActivationFailure for the unit
    fails the callers of both."""
    systemd = FakeSystemd(bus)
    other = SD_NAME + 'Too'
    write_service_file(bus, other, SD_UNIT)
    a = systemd_service(bus)
    serials = [a.send_call(n, TPATH, TIFACE, 'Echo', 's', ['x'])
               for n in (SD_NAME, other)]
    assert [systemd.wait_request(), systemd.wait_request()] == [SD_UNIT] * 2
    systemd.fail(SD_UNIT, NO_SUCH_UNIT, 'gone')
    for serial in serials:
        reply = a.wait_for(lambda m: m.reply_serial == serial, 10)
        assert error_name(reply) == NO_SUCH_UNIT, reply


@config(limits={'service_start_timeout': 500}, **SD)
def test_systemd_start_timeout(bus):
    """systemd never answers and the name never appears: TimedOut after
    service_start_timeout, as for a spawned service."""
    systemd = FakeSystemd(bus)
    a = systemd_service(bus)
    start = time.monotonic()
    serial = a.send_call(SD_NAME, TPATH, TIFACE, 'Echo', 's', ['x'])
    assert systemd.wait_request() == SD_UNIT
    reply = a.wait_for(lambda m: m.reply_serial == serial, 10)
    assert error_name(reply) == 'org.freedesktop.DBus.Error.TimedOut', reply
    assert 0.4 < time.monotonic() - start < 5
