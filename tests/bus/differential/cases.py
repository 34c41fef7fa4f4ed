"""Hand-written differential worlds: the corners where mssf-broker was
found to answer otherwise than dbus-daemon, whose answers clients are
written against, and the ones next to them."""
import hashlib
import os
import re

from generate import ACTIVATABLE, FIXTURE, SESSION, SYSTEM
from world import World, NO_REPLY_EXPECTED, NO_AUTO_START

NRE = NO_REPLY_EXPECTED
I1, I2 = 'org.mssf.I1', 'org.mssf.I2'
A = 'org.mssf.Diff.A'


def deny(rules):
    return '  <policy context="default">\n%s  </policy>\n' % ''.join(
        '    <deny %s/>\n' % r for r in rules)


def calls_and_replies(name, policy):
    """Requested, duplicate, unrequested and bare replies and errors."""
    return World(name, policy, [('a', 'root', True), ('b', 'root', True),
                                ('c', 'nobody', False)], [
        ('call', 'a', 'b', I1, 'Ask'),                  # 0
        ('reply', 'b', 0),                              # 1 requested
        ('reply', 'b', 0),                              # 2 duplicate
        ('reply', 'b', 0, 'org.mssf.Failed'),           # 3 duplicate error
        ('call', 'a', 'b', I1, 'Tell', NRE),            # 4
        ('reply', 'b', 4),                              # 5 nobody waits
        ('reply', 'c', 0),                              # 6 from a third party
        ('call', 'c', 'b', I2, 'Ask'),                  # 7
        ('reply', 'b', 7, 'org.mssf.Failed'),           # 8 requested error
        ('reply', 'b', 7),                              # 9 then a return
        ('close', 'a'),                                 # 10
        ('reply', 'b', 4),                              # 11 to a departed one
    ])


def observed_replies(name, policy):
    """Unrequested, duplicate and NO_REPLY_EXPECTED replies and errors,
    seen by eavesdroppers and monitors of two uids: dbus-daemon copies
    each one it delivers to every observer busconfig lets receive it."""
    return World(name, policy, [
        ('spy', 'root', True), ('nobody-spy', 'nobody', False),
        ('mon', 'root', True), ('a', 'root', True), ('b', 'root', True),
        ('c', 'nobody', False)], [
        ('driver', 'spy', 'AddMatch', 's', ["eavesdrop='true'"]),     # 0
        ('driver', 'nobody-spy', 'AddMatch', 's',
         ["type='method_return',eavesdrop='true'"]),                  # 1
        ('driver', 'nobody-spy', 'AddMatch', 's',
         ["type='error',eavesdrop='true'"]),                          # 2
        ('monitor', 'mon', []),                                       # 3
        ('call', 'a', 'b', I1, 'Ask'),                                # 4
        ('reply', 'b', 4),                                            # 5
        ('reply', 'b', 4),                                            # 6 dup
        ('reply', 'b', 4, 'org.mssf.Failed'),                         # 7 dup
        ('call', 'a', 'b', I1, 'Tell', NRE),                          # 8
        ('reply', 'b', 8),                                            # 9
        ('reply', 'b', 8, 'org.mssf.Failed'),                         # 10
        ('reply', 'c', 4),                                            # 11
        ('reply', 'c', 4, 'org.mssf.Failed'),                         # 12
        ('call', 'c', 'b', I2, 'Ask'),                                # 13
        ('reply', 'b', 13, 'org.mssf.Failed'),                        # 14
        ('reply', 'b', 13),                                           # 15
        ('reply', 'a', 13),                                           # 16
    ])


def peer_interface(name, policy):
    """Messages on org.freedesktop.DBus.Peer without a destination: the
    daemon's libdbus answers them itself (Ping, GetMachineId, and
    UnknownMethod for anything else, a signal too), so nobody else,
    subscriber or monitor, ever sees one."""
    peer = 'org.freedesktop.DBus.Peer'
    return World(name, policy, [
        ('a', 'root', True), ('b', 'root', True), ('c', 'nobody', False),
        ('mon', 'root', True)], [
        ('driver', 'b', 'AddMatch', 's', ["eavesdrop='true'"]),
        ('driver', 'b', 'AddMatch', 's', ["type='signal'"]),
        ('driver', 'c', 'AddMatch', 's', ["interface='%s'" % peer]),
        ('monitor', 'mon', []),
        ('signal', 'a', None, peer, 'Changed'),
        ('signal', 'a', None, peer, 'Changed', NRE),
        ('signal', 'c', None, peer, 'Ping'),
        ('call', 'a', None, peer, 'Frobnicate'),
        ('call', 'a', None, peer, 'Frobnicate', NRE),
        ('call', 'c', None, peer, 'GetMachineId'),
        ('signal', 'a', 'b', peer, 'Changed'),
        ('call', 'a', 'b', peer, 'Frobnicate'),
        ('call', 'a', 'org.freedesktop.DBus', peer, 'Frobnicate'),
        ('signal', 'a', None, I1, 'NotPeer'),
    ])


SYSTEM_CONF = '/usr/share/dbus-1/system.conf'
SYSTEM_D = ['/usr/share/dbus-1/system.d', '/etc/dbus-1/system.d']
# Debian 12's services whose system.d files the world plays (those of
# them this machine has: tools/debian-packages.txt installs them).
DEBIAN_SERVICES = [
    'org.freedesktop.login1', 'org.freedesktop.systemd1',
    'org.freedesktop.hostname1', 'org.freedesktop.timedate1',
    'org.freedesktop.UPower', 'org.freedesktop.NetworkManager',
    'org.freedesktop.PolicyKit1', 'org.freedesktop.ModemManager1',
    'org.freedesktop.PackageKit', 'org.freedesktop.Avahi', 'org.bluez',
    'fi.w1.wpa_supplicant1', 'net.hadess.SensorProxy',
    'org.freedesktop.GeoClue2', 'org.freedesktop.resolve1']


def debian_system_conf():
    """system.conf's own <policy> elements, and this machine's system.d
    files in name order (dbus-daemon reads a directory in no defined
    order; these files do not depend on it), without those that use
    at_console (a property of sessions neither daemon here has). None
    without Debian's system.conf."""
    try:
        with open(SYSTEM_CONF) as f:
            text = re.sub(r'<!--.*?-->', '', f.read(), flags=re.S)
    except OSError:
        return None, []
    policy = '\n'.join(re.findall(r'<policy\b.*?</policy>', text, re.S))
    files = []
    for d in SYSTEM_D:
        try:
            names = sorted(n for n in os.listdir(d) if n.endswith('.conf'))
        except OSError:
            continue
        for n in names:
            with open(os.path.join(d, n)) as f:
                if 'at_console' not in f.read():
                    files.append(os.path.join(d, n))
    return policy + '\n', sorted(files, key=os.path.basename)


def debian_system_bus():
    """Debian's system bus policy: root and four other uids, every one
    subscribed to everything; a root service takes the names the files
    speak of, and everyone sends it and everyone else calls and signals on
    the interfaces those files rule by destination and path (Peer,
    Properties, Introspectable, ObjectManager, the services' own)."""
    policy, files = debian_system_conf()
    needs = [SYSTEM_CONF] if policy is None else []
    peer = 'org.freedesktop.DBus.Peer'
    props = 'org.freedesktop.DBus.Properties'
    users = ['root', 'nobody', 'nopw', 'nobody+video']
    clients = [('svc', 'root', True), ('root', 'root', True),
               ('nobody', 'nobody', False), ('nopw', 'nopw', False),
               ('video', 'nobody+video', False)]
    actions = []
    for role, _, _ in clients:
        actions.append(('driver', role, 'AddMatch', 's', ['']))
        actions.append(('driver', role, 'AddMatch', 's', ["eavesdrop='true'"]))
    for name in DEBIAN_SERVICES:
        actions.append(('driver', 'svc', 'RequestName', 'su', [name, 0]))
    for sender in ('root', 'nobody'):
        for iface, member, path in [
                (peer, 'Changed', '/'), (peer, 'Ping', '/'),
                (props, 'PropertiesChanged', '/org/freedesktop/login1'),
                ('org.freedesktop.DBus.Introspectable', 'Changed', '/'),
                ('org.freedesktop.DBus.ObjectManager', 'InterfacesAdded',
                 '/'),
                ('org.freedesktop.login1.Manager', 'SessionNew',
                 '/org/freedesktop/login1')]:
            actions.append(('signal', sender, None, iface, member, 0, False,
                            path))
    for caller in ('root', 'nobody', 'video'):
        for name in DEBIAN_SERVICES[::2]:
            for iface, member, path in [
                    (peer, 'Ping', '/'), (props, 'GetAll', '/'),
                    ('org.freedesktop.DBus.Introspectable', 'Introspect', '/'),
                    (name, 'Frobnicate', '/' + name.replace('.', '/'))]:
                k = len(actions)
                actions.append(('call', caller, name, iface, member, 0, False,
                                path))
                actions.append(('reply', 'svc', k))
        actions.append(('signal', caller, 'svc', peer, 'Changed', 0, False,
                        '/'))
    assert set(c[1] for c in clients) == set(users)
    return World('debian-system-bus', policy or '', clients, actions,
                 include_files=files, needs_files=needs)


def monitors_joining(name, policy):
    """Connections becoming monitors, the first and a second one, while a
    root eavesdropper the policy refuses and a subscriber look on: what
    each monitor sees of its own names going, of what is addressed to it,
    of a leaving connection's NameLost, and of the refusals."""
    monitoring = ('  <policy user="root">\n    <allow send_destination='
                  '"org.freedesktop.DBus" send_interface='
                  '"org.freedesktop.DBus.Monitoring"/>\n  </policy>\n')
    return World(name, policy + monitoring, [
        ('spy', 'root', True), ('sub', 'root', True), ('first', 'root', True),
        ('second', 'root', True), ('a', 'root', True), ('gone', 'root', True)], [
        ('driver', 'spy', 'AddMatch', 's', ["eavesdrop='true'"]),
        ('driver', 'sub', 'AddMatch', 's', ["member='NameOwnerChanged'"]),
        ('driver', 'second', 'AddMatch', 's', ["member='NameOwnerChanged'"]),
        ('driver', 'gone', 'RequestName', 'su', [A, 0]),
        ('monitor', 'first', []),
        ('driver', 'a', 'ListNames', '', []),
        ('monitor', 'second', ["type='signal'"]),
        ('close', 'gone'),
        ('call', 'a', 'sub', I1, 'M1'),
        ('reply', 'sub', 8),
    ])


def cases():
    out = [
        debian_system_bus(),
        monitors_joining('monitors-joining-system', SYSTEM),
        monitors_joining('monitors-joining-session', SESSION),
        observed_replies('observed-replies-session', SESSION),
        observed_replies('observed-replies-fixture', FIXTURE),
        observed_replies('observed-replies-system', SYSTEM),
        peer_interface('peer-interface-session', SESSION),
        peer_interface('peer-interface-system', SYSTEM),
        World('uids', FIXTURE + deny(['group="video"']), [
            ('root', 'root', True), ('nobody', 'nobody', False),
            ('nopw', 'nopw', False), ('video', 'nobody+video', False)], [
            ('driver', 'root', 'GetConnectionUnixUser', 's', ['nobody']),
            ('driver', 'root', 'GetConnectionUnixUser', 's', ['video']),
            ('call', 'nobody', 'root', I1, 'M1'),
            ('call', 'video', 'nobody', I1, 'M1', NRE),
            ('driver', 'root', 'ListNames'),
        ]),
        World('connect-rules-nss-groups', FIXTURE + deny(['group="nogroup"']),
              [('root', 'root', True), ('nobody', 'nobody', False),
               ('video', 'nobody+video', False)],
              [('driver', 'root', 'ListNames')]),
        World('group-context-kernel-groups', FIXTURE +
              '  <policy group="video">\n    <deny send_interface="%s"/>\n'
              '  </policy>\n' % I1,
              [('root', 'root', True), ('video', 'nobody+video', False),
               ('nobody', 'nobody', False)], [
            ('call', 'video', 'root', I1, 'M1'),
            ('call', 'nobody', 'root', I1, 'M1'),
            ('signal', 'video', None, I1, 'S'),
            ('driver', 'root', 'AddMatch', 's', ["type='signal'"]),
            ('signal', 'video', None, I1, 'S'),
            ('signal', 'nobody', None, I1, 'S'),
        ]),
        calls_and_replies('replies-session', SESSION),
        calls_and_replies('replies-fixture', FIXTURE),
        calls_and_replies('replies-system', SYSTEM),
        World('no-reply-expected', FIXTURE + deny(['send_interface="%s"' % I2]),
              [('a', 'root', True), ('b', 'root', True)], [
            ('driver', 'a', 'ListNames', '', [], NRE),
            ('driver', 'a', 'AddMatch', 's', ["member='X'"], NRE),
            ('driver', 'a', 'NoSuchMethod', '', [], NRE),
            ('call', 'a', 'b', I2, 'Denied', NRE),
            ('signal', 'a', 'b', I2, 'Denied', NRE),
            ('signal', 'a', 'b', I2, 'Denied'),
            ('call', 'a', None, I1, 'NoDestination'),
            ('call', 'a', None, I1, 'NoDestination', NRE),
        ]),
        World('unowned-and-activatable', FIXTURE,
              [('a', 'root', True), ('gone', 'root', True)], [
            ('call', 'a', 'org.mssf.Diff.Nobody', I1, 'M1'),
            ('call', 'a', 'org.mssf.Diff.Nobody', I1, 'M1', NRE),
            ('call', 'a', 'org.mssf.Diff.Nobody', I1, 'M1', NO_AUTO_START),
            ('signal', 'a', 'org.mssf.Diff.Nobody', I1, 'S', NRE),
            ('call', 'a', 'org.mssf.Diff.Broken', I1, 'M1'),
            ('wait', 'a', 4),
            ('call', 'a', 'org.mssf.Diff.Missing', I1, 'M1'),
            ('wait', 'a', 6),
            ('call', 'a', 'org.mssf.Diff.Broken', I1, 'M1', NO_AUTO_START),
            ('driver', 'a', 'StartServiceByName', 'su',
             ['org.mssf.Diff.Broken', 0]),
            ('wait', 'a', 9),
            ('signal', 'a', 'org.mssf.Diff.Missing', I1, 'S'),
            ('wait', 'a', 11),
            ('close', 'gone'),
            ('call', 'a', 'gone', I1, 'M1'),
        ], services=ACTIVATABLE, limits={'service_start_timeout': 2000}),
        World('observers-of-several-uids', SESSION +
              deny(['send_interface="%s"' % I2]),
              [('root-spy', 'root', True), ('nobody-spy', 'nobody', False),
               ('mon', 'root', True), ('nobody-mon', 'nobody', False),
               ('a', 'root', True), ('b', 'nobody', True)], [
            ('driver', 'root-spy', 'AddMatch', 's', ["eavesdrop='true'"]),
            ('driver', 'nobody-spy', 'AddMatch', 's', ["eavesdrop='true'"]),
            ('driver', 'nobody-spy', 'AddMatch', 's', ["interface='%s'" % I1]),
            ('monitor', 'mon', []),
            ('monitor', 'nobody-mon', []),
            ('call', 'a', 'b', I1, 'M1'),
            ('reply', 'b', 5),
            ('call', 'a', 'b', I2, 'Denied'),
            ('signal', 'a', 'b', I1, 'Unicast'),
            ('signal', 'a', None, I1, 'Broadcast'),
            ('signal', 'a', None, I2, 'DeniedBroadcast'),
            ('driver', 'b', 'RequestName', 'su', [A, 0]),
            ('call', 'a', A, I1, 'M2'),
            ('reply', 'b', 12, 'org.mssf.Failed'),
        ]),
        World('signals', FIXTURE + deny([
            'send_interface="%s" send_broadcast="true"' % I2,
            'receive_interface="%s" receive_member="Hidden"' % I1]),
              [('a', 'root', True), ('b', 'root', True),
               ('c', 'nobody', False)], [
            ('driver', 'b', 'AddMatch', 's', ["type='signal'"]),
            ('driver', 'c', 'AddMatch', 's', ["interface='%s'" % I1]),
            ('signal', 'a', None, I1, 'Shown'),
            ('signal', 'a', None, I1, 'Hidden'),
            ('signal', 'a', None, I2, 'NoBroadcast'),
            ('signal', 'a', 'c', I2, 'UnicastOk'),
            ('signal', 'a', 'c', I1, 'Hidden'),
            ('driver', 'c', 'RemoveMatch', 's', ["interface='%s'" % I1]),
            ('signal', 'a', None, I1, 'Shown'),
        ]),
        World('fds', FIXTURE, [('a', 'root', True), ('fd', 'root', True),
                               ('nofd', 'root', False)], [
            ('driver', 'fd', 'AddMatch', 's', ["type='signal'"]),
            ('driver', 'nofd', 'AddMatch', 's', ["type='signal'"]),
            ('call', 'a', 'fd', I1, 'WithFd', 0, True),
            ('call', 'a', 'nofd', I1, 'WithFd', 0, True),
            ('call', 'a', 'nofd', I1, 'WithFd', NRE, True),
            ('signal', 'a', None, I1, 'FdBroadcast', 0, True),
            ('signal', 'a', 'nofd', I1, 'FdUnicast', 0, True),
        ]),
        World('includes-in-order', FIXTURE + deny(['send_interface="%s"' % I1]),
              [('a', 'root', True), ('b', 'root', True)], [
            ('call', 'a', 'b', I1, 'AllowedByTheLastInclude'),
            ('call', 'a', 'b', I2, 'DeniedByTheFirst'),
            ('driver', 'a', 'RequestName', 'su', ['org.mssf.Diff.Dir1', 0]),
            ('driver', 'a', 'RequestName', 'su', ['org.mssf.Diff.Dir2', 0]),
            ('call', 'b', 'org.mssf.Diff.Dir2', I2, 'Denied'),
        ], includes=[
            ('first.conf', '<policy context="default"><deny send_interface='
             '"%s"/></policy>' % I2),
            ('second.conf', '<policy context="default"><allow send_interface='
             '"%s"/></policy>' % I1)],
            includedir=[
            ('10-own.conf', '<policy context="default"><deny own='
             '"org.mssf.Diff.Dir1"/></policy>'),
            ('20-send.conf', '<policy context="default"><deny '
             'send_destination="org.mssf.Diff.Dir2"/></policy>')]),
        World('names-and-queues', FIXTURE, [('a', 'root', True),
                                            ('b', 'nobody', True)], [
            ('driver', 'a', 'AddMatch', 's', ["member='NameOwnerChanged'"]),
            ('driver', 'a', 'RequestName', 'su', [A, 1]),
            ('driver', 'b', 'RequestName', 'su', [A, 0]),
            ('driver', 'b', 'RequestName', 'su', [A, 2]),
            ('driver', 'a', 'ListQueuedOwners', 's', [A]),
            ('driver', 'b', 'ReleaseName', 's', [A]),
            ('driver', 'a', 'GetNameOwner', 's', [A]),
            ('close', 'a'),
            ('driver', 'b', 'NameHasOwner', 's', [A]),
        ]),
    ]
    return dict((w.name, w) for w in out)
