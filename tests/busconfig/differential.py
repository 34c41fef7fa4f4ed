#!/usr/bin/python3
"""Differential test of the busconfig policy against dbus-daemon.

For each seed: generate a configuration (random <policy> contexts and
rules over a small vocabulary of names, interfaces, members, paths and
types), run it in the real dbus-daemon with a service (uid daemon) that
requests names, emits a broadcast and a unicast signal and answers every
call, and a caller (uid bin) that makes random calls; record what each
saw. Then ask busconfig-oracle (our compiled policy, same configuration)
what should have happened, and compare every observation.

    differential.py ORACLE [--daemon DBUS_DAEMON] [--seeds N] [--first S]

Runs as root (clients drop to the daemon and bin users). Exits 77 when it
cannot (not root, no dbus-daemon), 1 on any disagreement, printing the
configuration and the observations that differ.
"""
import argparse
import os
import pwd
import random
import shutil
import subprocess
import sys
import tempfile
import time

NAMES = ["org.mssf.A", "org.mssf.B.sub"]
IFACES = ["org.mssf.I1", "org.mssf.I2"]
MEMBERS = ["M1", "M2", "M3"]
PATHS = ["/a", "/b"]
TYPES = ["method_call", "method_return", "error", "signal"]
SERVICE_USER, CALLER_USER = "daemon", "bin"
SIGNAL_PATH, SIGNAL_IFACE = "/a", "org.mssf.I1"


def attr(name, value):
    return ' %s="%s"' % (name, value)


def random_send(rng):
    a = ""
    if rng.random() < 0.6:
        if rng.random() < 0.15:
            a += attr("send_destination_prefix", "org.mssf")
        else:
            a += attr("send_destination", rng.choice(NAMES + ["*"]))
    if rng.random() < 0.4:
        a += attr("send_interface", rng.choice(IFACES + ["*"]))
        if rng.random() < 0.4:
            a += attr("send_member", rng.choice(MEMBERS))
    if rng.random() < 0.2:
        a += attr("send_path", rng.choice(PATHS))
    if rng.random() < 0.3:
        a += attr("send_type", rng.choice(TYPES + ["*"]))
    if rng.random() < 0.1:
        a += attr("send_requested_reply", rng.choice(["true", "false"]))
    if rng.random() < 0.1 and "send_destination=" not in a:
        a += attr("send_broadcast", rng.choice(["true", "false"]))
    return a or attr("send_type", rng.choice(TYPES))


def random_receive(rng):
    a = ""
    if rng.random() < 0.5:
        a += attr("receive_sender", rng.choice(NAMES + ["*"]))
    if rng.random() < 0.4:
        a += attr("receive_interface", rng.choice(IFACES))
        if rng.random() < 0.4:
            a += attr("receive_member", rng.choice(MEMBERS))
    if rng.random() < 0.2:
        a += attr("receive_path", rng.choice(PATHS))
    if rng.random() < 0.3:
        a += attr("receive_type", rng.choice(TYPES))
    if rng.random() < 0.1:
        a += attr("receive_requested_reply", rng.choice(["true", "false"]))
    return a or attr("receive_type", rng.choice(TYPES))


def random_rule(rng):
    verb = "allow" if rng.random() < 0.65 else "deny"
    kind = rng.random()
    if kind < 0.5:
        body = random_send(rng)
    elif kind < 0.8:
        body = random_receive(rng)
    elif rng.random() < 0.2:
        body = attr("own_prefix", "org.mssf")
    else:
        body = attr("own", rng.choice(NAMES + ["*"]))
    return "<%s%s/>" % (verb, body)


def random_config(rng, sock):
    contexts = ['context="default"'] * 4 + [
        'context="mandatory"', 'user="%s"' % SERVICE_USER, 'user="%s"' % CALLER_USER,
        'group="%s"' % SERVICE_USER, 'group="%s"' % CALLER_USER, 'at_console="false"']
    policies = []
    if rng.random() < 0.8:
        # A system.conf-like base, so that the random rules punch holes
        # and plug them rather than deny nearly everything.
        base = ['<allow send_type="method_call"/>', '<allow send_type="signal"/>',
                '<allow send_requested_reply="true" send_type="method_return"/>',
                '<allow receive_type="method_call"/>', '<allow receive_type="method_return"/>',
                '<allow receive_type="signal"/>', '<allow own="*"/>']
        keep = [b for b in base if rng.random() < 0.85]
        policies.append('  <policy context="default">\n    %s\n  </policy>' % "\n    ".join(keep))
    for _ in range(rng.randint(1, 4)):
        rules = "\n    ".join(random_rule(rng) for _ in range(rng.randint(1, 7)))
        policies.append('  <policy %s>\n    %s\n  </policy>' % (rng.choice(contexts), rules))
    return """<busconfig>
  <type>system</type>
  <listen>unix:path=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow user="*"/></policy>
%s
  <!-- Fixed: everyone may talk to the bus driver and hear from it. -->
  <policy context="mandatory">
    <allow send_destination="org.freedesktop.DBus"/>
    <allow receive_sender="org.freedesktop.DBus"/>
  </policy>
</busconfig>
""" % (sock, "\n".join(policies))


def random_calls(rng, n):
    return [(rng.choice(NAMES + ["unique"]), rng.choice(PATHS), rng.choice(IFACES + [None]),
             rng.choice(MEMBERS)) for _ in range(n)]


def drop_to(user):
    pw = pwd.getpwnam(user)

    def preexec():
        os.initgroups(pw.pw_name, pw.pw_gid)
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
    return preexec


CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "differential-client.py")


def run_scenario(daemon, config_text, calls, tmp):
    sock = os.path.join(tmp, "bus")
    conf = os.path.join(tmp, "bus.conf")
    with open(conf, "w") as f:
        f.write(config_text)
    bus = subprocess.Popen([daemon, "--config-file=" + conf, "--nofork", "--nopidfile",
                            "--print-address"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
    try:
        address = bus.stdout.readline().strip()
        if not address:
            raise RuntimeError("the bus did not start")
        os.chmod(sock, 0o777)
        service = subprocess.Popen([sys.executable, CLIENT, "service", address] + NAMES,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                   preexec_fn=drop_to(SERVICE_USER))
        header = service.stdout.readline().split()
        if not header or header[0] != "ready":
            raise RuntimeError("the service did not start")
        unique = header[1]
        owned = dict(w.split("=") for w in header[2:])
        spec = ["%s|%s|%s|%s" % (unique if d == "unique" else d, p, i or "-", m) for d, p, i, m in calls]
        caller = subprocess.Popen([sys.executable, CLIENT, "caller", address, unique] + spec,
                                  stdout=subprocess.PIPE, text=True, preexec_fn=drop_to(CALLER_USER))
        first = caller.stdout.readline()
        if first.startswith("caller "):
            service.stdin.write("emit %s\n" % first.split()[1])
            service.stdin.flush()
        output = first + caller.stdout.read()
        caller.wait(60)
        service.stdin.close()
        seen = service.stdout.read().split("\n")
        service.wait(10)
        return unique, owned, output.split("\n"), [s for s in seen if s]
    finally:
        bus.terminate()
        bus.wait(10)


class Oracle:
    def __init__(self, exe, conf):
        self.proc = subprocess.Popen([exe, conf], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)

    def ask(self, *fields):
        self.proc.stdin.write(" ".join(str(f) if f is not None else "-" for f in fields) + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip() == "allow"

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(10)


def predict(oracle, unique, owned, calls, caller_unique):
    svc_uid = pwd.getpwnam(SERVICE_USER).pw_uid
    caller_uid = pwd.getpwnam(CALLER_USER).pw_uid
    expect = {}
    for name in NAMES:
        expect["own " + name] = "allow" if oracle.ask("own", svc_uid, name) else "deny"
    names = ",".join([unique] + [n for n in NAMES if owned.get(n) == "1"])
    caller = caller_unique
    outcomes = []
    for d, p, i, m in calls:
        dest = unique if d == "unique" else d
        if d != "unique" and owned.get(d) != "1":
            outcomes.append("ServiceUnknown-or-NameHasNoOwner")
            continue
        sent = oracle.ask("send", caller_uid, names, 1, 0, 0, p, i, m, None, dest)
        got = sent and oracle.ask("recv", svc_uid, caller, 1, 0, 0, 0, p, i, m, None, dest, caller)
        if not got:
            outcomes.append("org.freedesktop.DBus.Error.AccessDenied")
            continue
        back = oracle.ask("send", svc_uid, caller, 2, 1, 1, None, None, None, None, caller) and \
            oracle.ask("recv", caller_uid, names, 2, 1, 1, 0, None, None, None, None, caller, unique)
        outcomes.append("reply" if back else "timeout")
    sig = {}
    for kind, dest in (("broadcast", None), ("unicast", caller)):
        ok = oracle.ask("send", svc_uid, caller, 4, 0, 0, SIGNAL_PATH, SIGNAL_IFACE, kind, None, dest) and \
            oracle.ask("recv", caller_uid, names, 4, 0, 0, 0, SIGNAL_PATH, SIGNAL_IFACE, kind, None, dest, unique)
        sig[kind] = ok
    return expect, outcomes, sig


def compare(seed, config, calls, result, oracle_exe, tmp):
    unique, owned, caller_out, service_seen = result
    caller_lines = [l for l in caller_out if l]
    if not caller_lines or not caller_lines[0].startswith("caller "):
        return ["caller did not run: %r" % caller_out]
    caller_unique = caller_lines[0].split()[1]
    conf = os.path.join(tmp, "bus.conf")
    oracle = Oracle(oracle_exe, conf)
    try:
        expect_own, outcomes, sig = predict(oracle, unique, owned, calls, caller_unique)
    finally:
        oracle.close()
    problems = []
    for name in NAMES:
        got = "allow" if owned.get(name) == "1" else "deny"
        if got != expect_own["own " + name]:
            problems.append("RequestName(%s): dbus-daemon %s, busconfig %s" % (name, got, expect_own["own " + name]))
    results = caller_lines[1:1 + len(calls)]
    for call, want, got in zip(calls, outcomes, results):
        if want == "ServiceUnknown-or-NameHasNoOwner":
            continue
        got_kind = got.split(" ", 1)[0]
        if got_kind != want:
            problems.append("call %s: dbus-daemon %s, busconfig %s" % ("|".join(c or "-" for c in call), got, want))
    received = set(l.split()[1] for l in caller_lines if l.startswith("signal "))
    for kind, ok in sig.items():
        if (kind in received) != ok:
            problems.append("%s signal: dbus-daemon %s, busconfig %s" % (
                kind, "delivered" if kind in received else "withheld", "delivers" if ok else "withholds"))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("oracle")
    ap.add_argument("--daemon", default="/usr/bin/dbus-daemon")
    ap.add_argument("--seeds", type=int, default=12)
    ap.add_argument("--first", type=int, default=1)
    args = ap.parse_args()
    if os.getuid() != 0 or not shutil.which(args.daemon):
        print("SKIP: needs root and %s" % args.daemon)
        return 77
    failures = 0
    checked = 0
    for seed in range(args.first, args.first + args.seeds):
        rng = random.Random(seed)
        tmp = tempfile.mkdtemp(prefix="mssf-diff-")
        os.chmod(tmp, 0o755)
        try:
            config = random_config(rng, os.path.join(tmp, "bus"))
            calls = random_calls(rng, 6)
            result = run_scenario(args.daemon, config, calls, tmp)
            problems = compare(seed, config, calls, result, args.oracle, tmp)
            checked += len(calls) + len(NAMES) + 2
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if problems:
            failures += 1
            print("seed %d disagrees:\n%s\n  %s" % (seed, config, "\n  ".join(problems)))
    print("%d seeds, %d verdicts compared, %d seeds disagree" % (args.seeds, checked, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
