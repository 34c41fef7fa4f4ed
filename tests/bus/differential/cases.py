"""Hand-written differential worlds: the corners where mssf-broker was
found to answer otherwise than dbus-daemon, whose answers clients are
written against, and the ones next to them."""
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


def cases():
    out = [
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
