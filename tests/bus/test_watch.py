"""The bus watches its <includedir>s and service directories, as
dbus-daemon does on Linux: a file dropped into one (a policy snippet, a
.service file) or removed is picked up without SIGHUP or ReloadConfig; a
broken file leaves the bus serving; after every reload the driver
broadcasts ActivatableServicesChanged."""
import os
import time

from rawdbus import check_reply, ERROR, SIGNAL
from busfixture import wait_until

NAME = 'org.mssf.Activatable'
DENY_FILE = ('<busconfig><policy context="default">'
             '<deny send_destination="org.mssf.Guarded"/>'
             '</policy></busconfig>\n')


def activatable_names(a):
    return check_reply(a.bus_call('ListActivatableNames')).body[0]


def call_guarded(a, b):
    """a calls org.mssf.Guarded (owned by b, which answers): the reply."""
    serial = a.send_call('org.mssf.Guarded', '/p', 'org.mssf.I', 'M')
    msgs = a.collect(0.3)
    for m in b.collect(0.2):
        if m.member == 'M':
            b.reply(m, 's', ['through'])
    msgs += a.collect(0.3)
    replies = [m for m in msgs if m.reply_serial == serial]
    assert len(replies) == 1, msgs
    return replies[0]


def changed_signals(msgs):
    return [m for m in msgs if m.type == SIGNAL and
            m.member == 'ActivatableServicesChanged' and
            m.interface == 'org.freedesktop.DBus' and
            m.path == '/org/freedesktop/DBus' and
            m.sender == 'org.freedesktop.DBus']


def test_service_file_dropped_is_picked_up(bus):
    a = bus.raw()
    assert NAME not in activatable_names(a)
    bus.add_activatable_service(NAME)
    wait_until(lambda: NAME in activatable_names(a), 5,
               'the new .service file without a reload request')


def with_includedir(bus, a):
    """Adds an <includedir> to the bus's configuration (by ReloadConfig)."""
    conf_d = os.path.join(bus.dir, 'conf.d')
    os.mkdir(conf_d)
    bus.extra_config = '  <includedir>%s</includedir>\n' % conf_d
    bus.write_config()
    check_reply(a.bus_call('ReloadConfig'))
    return conf_d


def write_file(path, text):
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.rename(path + '.tmp', path)


def test_file_dropped_into_includedir_applies(bus):
    a, b = bus.raw(), bus.raw()
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Guarded', 0]))
    conf_d = with_includedir(bus, a)
    assert call_guarded(a, b).body == ['through']
    write_file(os.path.join(conf_d, 'deny.conf'), DENY_FILE)

    def denied():
        reply = call_guarded(a, b)
        return reply.type == ERROR and reply.error_name == \
            'org.freedesktop.DBus.Error.AccessDenied'
    wait_until(denied, 5, 'the dropped policy to deny without SIGHUP')
    os.unlink(os.path.join(conf_d, 'deny.conf'))
    wait_until(lambda: call_guarded(a, b).type != ERROR, 5,
               'the policy to allow again once the file is removed')


def test_broken_file_dropped_keeps_bus(bus):
    a, b = bus.raw(), bus.raw()
    check_reply(b.bus_call('RequestName', 'su', ['org.mssf.Guarded', 0]))
    conf_d = with_includedir(bus, a)
    write_file(os.path.join(conf_d, 'deny.conf'), DENY_FILE)
    wait_until(lambda: call_guarded(a, b).type == ERROR, 5, 'deny')
    write_file(os.path.join(conf_d, 'broken.conf'),
               '<busconfig><policy context="default"><allow')
    time.sleep(0.5)
    assert bus.alive(), 'a broken file in an includedir killed the bus'
    assert call_guarded(a, b).error_name == \
        'org.freedesktop.DBus.Error.AccessDenied'
    assert check_reply(bus.raw().bus_call('GetId'))


def test_activatable_services_changed_after_reload(bus):
    a = bus.raw()
    a.add_match("type='signal',member='ActivatableServicesChanged'")
    assert not changed_signals(a.collect(0.2))
    check_reply(a.bus_call('ReloadConfig'))
    got = changed_signals(a.collect(0.5))
    assert len(got) == 1, got
    assert got[0].signature in (None, ''), got[0]


def test_features_lists_activatable_services_changed(bus):
    reply = check_reply(bus.raw().bus_call(
        'Get', 'ss', ['org.freedesktop.DBus', 'Features'],
        iface='org.freedesktop.DBus.Properties'))
    assert 'ActivatableServicesChanged' in reply.body[0][1], reply.body
