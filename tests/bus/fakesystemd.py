"""systemd's part in bus activation, played by a test (over rawdbus).

With --systemd-activation the bus does not spawn a service whose .service
file names a SystemdService= unit: it sends the signal

    org.freedesktop.systemd1.Activator.ActivationRequest(s unit)

from org.freedesktop.DBus, path /org/freedesktop/DBus, to the owner of
org.freedesktop.systemd1, and waits for the name to appear. systemd
starts the unit; if the start job fails it sends back, to the driver,

    org.freedesktop.systemd1.Activator.ActivationFailure(s unit,
        s error_name, s error_message)

and the bus fails every caller waiting for that unit's names. FakeSystemd
owns the name, subscribes the way PID 1 does (systemd's bus_setup_api:
a match on the driver's ActivationRequest), and lets the test answer each
request: start() runs service.py for the name, fail() sends the failure.
"""
import os

from rawdbus import SIGNAL, check_reply

NAME = 'org.freedesktop.systemd1'
IFACE = 'org.freedesktop.systemd1.Activator'
DRIVER = 'org.freedesktop.DBus'
DRIVER_PATH = '/org/freedesktop/DBus'


def write_service_file(bus, name, unit, exec_line='/bin/false'):
    """A .service file with SystemdService=; Exec= must not be used."""
    path = os.path.join(bus.servicedir, name + '.service')
    with open(path, 'w') as f:
        f.write('[D-BUS Service]\nName=%s\nExec=%s\nSystemdService=%s\n'
                % (name, exec_line, unit))
    return path


class FakeSystemd:
    def __init__(self, bus, connect=True):
        self.bus = bus
        self.conn = None
        self.requests = []
        if connect:
            self.connect()

    def connect(self):
        self.conn = self.bus.raw()
        self.conn.add_match(
            "type='signal',sender='%s',path='%s',interface='%s',"
            "member='ActivationRequest'" % (DRIVER, DRIVER_PATH, IFACE))
        reply = check_reply(self.conn.bus_call('RequestName', 'su',
                                               [NAME, 0]))
        assert reply.body == [1], reply      # PRIMARY_OWNER
        return self

    @staticmethod
    def is_request(m):
        return (m.type == SIGNAL and m.interface == IFACE and
                m.member == 'ActivationRequest')

    def wait_request(self, timeout=5.0):
        """The next ActivationRequest's unit; checks where it came from."""
        m = self.conn.wait_for(self.is_request, timeout)
        assert m.sender == DRIVER and m.path == DRIVER_PATH, m
        assert m.signature == 's', m
        self.requests.append(m.body[0])
        return m.body[0]

    def no_request(self, duration=0.3):
        self.conn.expect_nothing(self.is_request, duration)

    def start(self, name):
        """The unit's service: service.py owning name."""
        return self.bus.service(name)

    def fail(self, unit, error_name, text, conn=None):
        """ActivationFailure, as PID 1 sends it when the start job fails
        (conn: someone else pretending to be systemd)."""
        (conn or self.conn).signal(DRIVER_PATH, IFACE, 'ActivationFailure',
                                   'sss', [unit, error_name, text],
                                   dest=DRIVER)
