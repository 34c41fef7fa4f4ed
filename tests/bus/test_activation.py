"""Bus activation from .service files in the configured <servicedir>:
ListActivatableNames, StartServiceByName, auto-start on a method call,
NO_AUTO_START, spawn failures, UpdateActivationEnvironment."""
import time

from rawdbus import check_reply, ERROR, METHOD_RETURN, NO_AUTO_START
from busfixture import config, wait_until

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
