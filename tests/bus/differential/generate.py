"""Random differential worlds from a seed: a base policy (session.conf's,
the test fixture's, or system.conf's defaults) with random send, receive,
own, eavesdrop and connect rules in the default, user, group and
mandatory contexts, some of them in an explicitly <include>d file (after
the policy: their order is defined) and in an <includedir> (rules that
cannot interact: dbus-daemon reads such a directory in no defined order);
three to five clients among root, nobody, a uid with no passwd entry and
nobody with a kernel group NSS does not give it; and a script of calls,
replies (requested, duplicate, to NO_REPLY_EXPECTED calls, bare), errors,
signals (broadcast and unicast), messages on org.freedesktop.DBus.Peer
with and without a destination, fds, name requests, match rules
(eavesdropping too, often from the first step), a monitor, driver
queries, calls to names nobody owns and to activatable ones, and
closes."""
import random

from world import World, NO_REPLY_EXPECTED, NO_AUTO_START

NAMES = ['org.mssf.Diff.A', 'org.mssf.Diff.B', 'org.mssf.Diff.A.Sub']
UNOWNED = 'org.mssf.Diff.Nobody'
ACTIVATABLE = {'org.mssf.Diff.Broken': ['/bin/false'],
               'org.mssf.Diff.Missing': ['/nonexistent/service']}
IFACES = ['org.mssf.I1', 'org.mssf.I2']
PEER = 'org.freedesktop.DBus.Peer'     # without destination: the bus's own
MEMBERS = ['M1', 'M2']

SESSION = '''
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
    <allow user="*"/>
  </policy>
'''
FIXTURE = '''
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
    <allow user="*"/>
    <deny send_type="method_return" send_requested_reply="false"/>
    <deny send_type="error" send_requested_reply="false"/>
  </policy>
'''
SYSTEM = '''
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow own_prefix="org.mssf.Diff"/>
    <allow send_destination_prefix="org.mssf.Diff"/>
  </policy>
'''


def rule(rng):
    verb = rng.choice(['allow', 'deny'])
    kind = rng.choice(['send', 'send', 'receive', 'own', 'eavesdrop'])
    attrs = []
    if kind == 'own':
        name = rng.choice(NAMES)
        attrs.append(rng.choice(['own="%s"' % name,
                                 'own_prefix="org.mssf.Diff.A"']))
    elif kind == 'eavesdrop':
        attrs.append('eavesdrop="%s"' % rng.choice(['true', 'false']))
        if rng.random() < 0.5:
            attrs.append('receive_type="%s"' % rng.choice(
                ['method_call', 'signal', 'method_return']))
    else:
        options = [
            '%s_interface="%s"' % (kind, rng.choice(IFACES)),
            '%s_member="%s"' % (kind, rng.choice(MEMBERS)),
            '%s_type="%s"' % (kind, rng.choice(
                ['method_call', 'method_return', 'error', 'signal'])),
            '%s_path="/diff"' % kind,
        ]
        if kind == 'send':
            options += ['send_destination="%s"' % rng.choice(NAMES),
                        'send_destination_prefix="org.mssf.Diff.A"',
                        'send_broadcast="%s"' % rng.choice(['true', 'false']),
                        'send_requested_reply="%s"' % rng.choice(
                            ['true', 'false']),
                        'max_fds="0"']
        else:
            options += ['receive_sender="%s"' % rng.choice(NAMES),
                        'receive_requested_reply="%s"' % rng.choice(
                            ['true', 'false'])]
        attrs += rng.sample(options, rng.choice([1, 1, 2]))
    return '    <%s %s/>\n' % (verb, ' '.join(attrs))


def context(rng):
    return rng.choice(['context="default"', 'context="default"',
                       'user="nobody"', 'group="video"', 'group="nogroup"',
                       'user="root"', 'context="mandatory"'])


def policies(rng, n):
    out = ''
    for _ in range(n):
        rules = ''.join(rule(rng) for _ in range(rng.randint(1, 3)))
        out += '  <policy %s>\n%s  </policy>\n' % (context(rng), rules)
    return out


def connect_rules(rng):
    if rng.random() < 0.85:
        return ''
    return '  <policy context="default">\n    <deny %s/>\n  </policy>\n' % \
        rng.choice(['group="nogroup"', 'group="video"', 'user="nobody"'])


def includedir(rng):
    """Files whose rules cannot interact (each about a name of its own)."""
    if rng.random() < 0.6:
        return []
    return [('10-own.conf', '<policy context="default"><allow own='
             '"org.mssf.Diff.Dir1"/></policy>'),
            ('20-send.conf', '<policy context="default"><%s send_destination='
             '"org.mssf.Diff.Dir2"/></policy>' % rng.choice(['allow',
                                                              'deny']))]


class Script:
    def __init__(self, rng, roles, shapes):
        self.rng = rng
        # Draws for the shapes added later (Peer messages, destination-less
        # calls), from a generator of their own: every older seed still
        # makes the world it made, with these on top.
        self.shapes = shapes
        self.roles = roles
        self.actions = []
        self.calls = []         # (action k, caller, callee ref)
        self.monitored = False

    def pick_dest(self):
        r = self.rng.random()
        if r < 0.45:
            return self.rng.choice(self.roles)
        if r < 0.75:
            return self.rng.choice(NAMES + ['org.mssf.Diff.Dir1',
                                            'org.mssf.Diff.Dir2'])
        if r < 0.9:
            return UNOWNED
        return self.rng.choice(sorted(ACTIVATABLE))

    def flags(self):
        return self.rng.choice([0, 0, NO_REPLY_EXPECTED, NO_AUTO_START,
                                NO_REPLY_EXPECTED | NO_AUTO_START])

    def wait_for_activation(self, src, k, dest, flags):
        """A message for an activatable name is answered when the start
        fails, whatever its type and flags (not with NO_AUTO_START): the
        script waits for that, so it lands at the same step on both."""
        if dest in ACTIVATABLE and not flags & NO_AUTO_START:
            self.add('wait', src, k)

    def add(self, *action):
        self.actions.append(action)
        return len(self.actions) - 1

    def step(self):
        rng, src = self.rng, self.rng.choice(self.roles)
        what = rng.random()
        if what < 0.2:
            dest, flags = self.pick_dest(), self.flags()
            iface, member = rng.choice(IFACES + [None]), rng.choice(MEMBERS)
            if self.shapes.random() < 0.1:
                dest = None
            if self.shapes.random() < 0.1:
                iface, member = PEER, self.shapes.choice(MEMBERS + ['Ping'])
            k = self.add('call', src, dest, iface, member, flags,
                         rng.random() < 0.15)
            self.calls.append((k, src, dest))
            self.wait_for_activation(src, k, dest, flags)
        elif what < 0.35 and self.calls:
            k, caller, callee = rng.choice(self.calls)
            replier = callee if callee in self.roles and rng.random() < 0.8 \
                else src
            self.add('reply', replier, k,
                     rng.choice([None, None, 'org.mssf.Failed']))
        elif what < 0.5:
            dest = self.pick_dest() if rng.random() < 0.4 else None
            flags = self.flags() & NO_REPLY_EXPECTED
            iface, member = rng.choice(IFACES), rng.choice(MEMBERS)
            if self.shapes.random() < 0.1:
                iface = PEER
            k = self.add('signal', src, dest, iface, member, flags,
                         rng.random() < 0.1)
            self.wait_for_activation(src, k, dest, flags)
        elif what < 0.62:
            self.add('driver', src, 'RequestName', 'su',
                     [rng.choice(NAMES + ['org.mssf.Diff.Dir1']),
                      rng.choice([0, 1, 2, 4, 6])])
        elif what < 0.67:
            self.add('driver', src, 'ReleaseName', 's', [rng.choice(NAMES)])
        elif what < 0.8:
            self.add('driver', src, 'AddMatch', 's', [rng.choice([
                "type='signal'", "interface='org.mssf.I1'",
                "eavesdrop='true'", "eavesdrop='true',type='method_call'",
                "type='method_return',eavesdrop='true'",
                "sender='org.mssf.Diff.A'", "type='signal',member='M1'",
                "member='NameOwnerChanged'"])])
        elif what < 0.83 and not self.monitored:
            self.monitored = True
            self.add('monitor', src, rng.choice(
                [[], ["type='method_call'"], ["interface='org.mssf.I2'"]]))
        elif what < 0.95:
            query = rng.choice([
                ('NameHasOwner', 's', [rng.choice(NAMES)]),
                ('GetNameOwner', 's', [rng.choice(NAMES + [UNOWNED])]),
                ('ListQueuedOwners', 's', [rng.choice(NAMES)]),
                ('ListNames', '', []),
                ('GetConnectionUnixUser', 's', [rng.choice(self.roles)]),
                ('StartServiceByName', 'su', [rng.choice(
                    sorted(ACTIVATABLE) + [UNOWNED]), 0])])
            k = self.add('driver', src, *query)
            if query[0] == 'StartServiceByName':
                self.wait_for_activation(src, k, query[2][0], 0)
        else:
            self.add('close', src)
            self.roles = [r for r in self.roles if r != src] or self.roles


def world(seed):
    rng = random.Random(seed)
    n = rng.randint(3, 5)
    identities = ['root'] + [rng.choice(['root', 'nobody', 'nobody', 'nopw',
                                         'nobody+video'])
                             for _ in range(n - 1)]
    clients = [('c%d' % i, identities[i], rng.random() < 0.7)
               for i in range(n)]
    base = rng.choice([SESSION, FIXTURE, SYSTEM])
    extra = policies(rng, rng.randint(0, 3))
    included = policies(rng, rng.randint(0, 2))
    policy = base + extra + connect_rules(rng)
    shapes = random.Random('shapes-%d' % seed)
    script = Script(rng, [c[0] for c in clients], shapes)
    # Observers from the start, often: what they are shown of replies
    # nobody asked for and of broadcasts is where daemons part ways.
    if shapes.random() < 0.5:
        script.add('driver', script.roles[0], 'AddMatch', 's',
                   [shapes.choice(["eavesdrop='true'",
                                   "type='method_return',eavesdrop='true'",
                                   "type='error',eavesdrop='true'"])])
    if shapes.random() < 0.3:
        script.add('monitor', shapes.choice(script.roles[1:]), [])
    for _ in range(rng.randint(8, 18)):
        script.step()
    return World('seed-%d' % seed, policy, clients, script.actions,
                 includes=[('included.conf', included)] if included else [],
                 includedir=includedir(rng), services=ACTIVATABLE,
                 limits={'service_start_timeout': 2000})
