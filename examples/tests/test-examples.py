#!/usr/bin/python3
"""The demo services and mssf-demo-app on a private system-type bus.

Starts a bus (dbus-daemon, or any drop-in given with --daemon) whose
policy is system.conf's restrictive default plus the busconfig snippets of
examples/dbus, so that the snippets are shown to be enough for the services
to own their names and be called; starts the three services (with short
timers) and a mock service that behaves the way the MSSF bus makes a
service look to an app without tokens; runs the app's steps and checks the
lines it prints; at the end, with the services stopped, checks that the
shipped activation files (dbus/*.service.in) start them on the first call. The bus here mediates nothing by label or token: what the
MSSF mediation changes is checked by test-manifests.sh (the decisions) and
by the mock (how the app reports them).

usage: test-examples.py --build-dir DIR --source-dir DIR [--daemon PATH]
                        [--skip-activation]
"""
import argparse
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <!-- system.conf's default: nothing is owned or called unless allowed. -->
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
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <policy user="{user}">
    <allow own="org.mssf.Mock"/>
  </policy>
  <policy context="default">
    <allow send_destination="org.mssf.Mock"/>
  </policy>
  <servicedir>{services}</servicedir>
{includes}
</busconfig>
"""

SERVICES = {
    "org.mssf.Cellular": ["mssf-demo-cellular", "--alert-ms", "200", "--answer-ms", "300",
                          "--duration-ms", "800", "--strength-ms", "150"],
    "org.mssf.Location": ["mssf-demo-location", "--interval-ms", "150", "--rise-period", "3"],
    "org.mssf.Calendar": ["mssf-demo-calendar"],
}

CELL = ["org.mssf.Cellular", "/org/mssf/Cellular", "org.mssf.Cellular"]
LOC = ["org.mssf.Location", "/org/mssf/Location", "org.mssf.Location"]
CAL = ["org.mssf.Calendar", "/org/mssf/Calendar", "org.mssf.Calendar"]
MOCK = ["org.mssf.Mock", "/org/mssf/Mock", "org.mssf.Mock"]


class Failures:
    def __init__(self):
        self.count = 0

    def check(self, condition, message, output=None):
        if condition:
            return
        self.count += 1
        print(f"FAIL: {message}")
        if output is not None:
            print("---- output ----\n" + output + "---- end ----")


def write_activation_files(tmp, source_dir, build_dir):
    """The shipped .service templates, pointing at the build's binaries."""
    services = os.path.join(tmp, "services")
    os.mkdir(services)
    conf_dir = os.path.join(source_dir, "dbus")
    for name in sorted(os.listdir(conf_dir)):
        if name.endswith(".service.in"):
            with open(os.path.join(conf_dir, name)) as f:
                text = f.read().replace("@DEMO_DIR@", os.path.abspath(build_dir))
            with open(os.path.join(services, name[:-len(".in")]), "w") as f:
                f.write(text)
    return services


def write_config(tmp, source_dir, build_dir):
    user = pwd.getpwuid(os.geteuid()).pw_name
    includes = []
    conf_dir = os.path.join(source_dir, "dbus")
    for name in sorted(os.listdir(conf_dir)):
        if not name.endswith(".conf"):
            continue
        with open(os.path.join(conf_dir, name)) as f:
            text = f.read()
        # The snippets let root own the names; the test may run as another user.
        text = text.replace('user="root"', f'user="{user}"')
        copy = os.path.join(tmp, name)
        with open(copy, "w") as f:
            f.write(text)
        includes.append(f"  <include>{copy}</include>")
    path = os.path.join(tmp, "bus.conf")
    with open(path, "w") as f:
        f.write(CONFIG.format(socket=os.path.join(tmp, "socket"), user=user,
                              services=write_activation_files(tmp, source_dir, build_dir),
                              includes="\n".join(includes)))
    return path


def start_bus(daemon, config):
    bus = subprocess.Popen([daemon, "--config-file=" + config, "--nofork", "--print-address"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = bus.stdout.readline().strip()
    if not address:
        raise RuntimeError(f"{daemon} printed no address")
    return bus, address


def wait_ready(process, log, name, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(log) as f:
            if f"{name}: ready\n" in f.read():
                return True
        if process.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def start_service(argv, name, tmp, env):
    log = os.path.join(tmp, name + ".log")
    with open(log, "w") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
    if not wait_ready(process, log, name):
        with open(log) as f:
            raise RuntimeError(f"{name} did not become ready:\n{f.read()}")
    return process, log


def run_app(app, steps, env, timeout=60):
    result = subprocess.run([app] + steps, env=env, capture_output=True, text=True,
                            timeout=timeout)
    return result.returncode, result.stdout, result.stderr


def expect_lines(failures, what, output, patterns):
    """Every pattern matches a whole line, and the lines come in this order."""
    lines = output.splitlines()
    position = 0
    for pattern in patterns:
        regex = re.compile(pattern)
        for i in range(position, len(lines)):
            if regex.fullmatch(lines[i]):
                position = i + 1
                break
        else:
            failures.check(False, f"{what}: no line matching {pattern!r} (in order)", output)
            return


def expect_any(failures, what, output, patterns):
    """Every pattern matches some line, in any order."""
    lines = output.splitlines()
    for pattern in patterns:
        regex = re.compile(pattern)
        failures.check(any(regex.fullmatch(line) for line in lines),
                       f"{what}: no line matching {pattern!r}", output)


def test_cellular(failures, app, env):
    status, out, err = run_app(app, [
        "call", *CELL, "Dial", "s:+123",
        "call", *CELL, "GetCalls",
        "get-property", *CELL, "SignalStrength",
        "get-property", *CELL, "Operator",
        "get-all", *CELL,
        "listen-signals", "1.8", "org.mssf.Cellular",
        "call", *CELL, "Hangup", "o:/org/mssf/Cellular/call0",
        "call", *CELL, "Dial", "s:+456",
        "call", *CELL, "Hangup", "o:/org/mssf/Cellular/call1",
        "call", *CELL, "GetCalls",
        "listen-signals", "0.3", "org.mssf.Cellular",
        "call", *CELL, "Dial", "s:12ab",
        "call", *CELL, "Dial", "s:+",
        "introspect", "org.mssf.Cellular", "/org/mssf/Cellular",
    ], env)
    failures.check(status == 0, f"cellular: exit status {status}: {err}", out)
    expect_lines(failures, "cellular", out, [
        r"trusted-app: connected to the system bus as :1\.\d+, Smack label .*",
        r"Dial answered: /org/mssf/Cellular/call0",
        r"GetCalls answered: \[/org/mssf/Cellular/call0\]",
        r"SignalStrength: \d+",
        r"Operator: MSSF Mobile",
        r"GetAll org\.mssf\.Cellular answered: 2 properties",
        r"listening for signals from org\.mssf\.Cellular for 1\.8 s",
        r"received CallStateChanged\(/org/mssf/Cellular/call0, dialing\) from org\.mssf\.Cellular",
        r"received CallStateChanged\(/org/mssf/Cellular/call0, alerting\) from org\.mssf\.Cellular",
        r"received CallStateChanged\(/org/mssf/Cellular/call0, active\) from org\.mssf\.Cellular",
        r"received CallStateChanged\(/org/mssf/Cellular/call0, disconnected\) "
        r"from org\.mssf\.Cellular",
        r"\d+ signals received",
        r"Hangup failed: org\.mssf\.Cellular\.Error\.NoSuchCall: .*",
        r"Dial answered: /org/mssf/Cellular/call1",
        r"Hangup answered: no values",
        r"GetCalls answered: \[\]",
        r"received CallStateChanged\(/org/mssf/Cellular/call1, dialing\) from org\.mssf\.Cellular",
        r"received CallStateChanged\(/org/mssf/Cellular/call1, disconnected\) "
        r"from org\.mssf\.Cellular",
        r"Dial failed: org\.mssf\.Cellular\.Error\.InvalidNumber: .*",
        r"Dial failed: org\.mssf\.Cellular\.Error\.InvalidNumber: .*",
        r"Introspect answered: /org/mssf/Cellular",
        r"  interface org\.mssf\.Cellular; methods Dial, Hangup, GetCalls; "
        r"signals CallStateChanged; properties SignalStrength, Operator",
        r"trusted-app: done",
    ])
    expect_any(failures, "cellular", out, [
        r"  SignalStrength: \d+",
        r"  Operator: MSSF Mobile",
        r"received PropertiesChanged\(org\.mssf\.Cellular: SignalStrength=\d+\) "
        r"from org\.mssf\.Cellular",
    ])
    failures.check("hidden by the bus" not in out, "cellular: something hidden on a plain bus",
                   out)


def test_location(failures, app, env):
    status, out, err = run_app(app, [
        "call", *LOC, "GetPosition",
        "get-property", *LOC, "Position",
        "get-property", *LOC, "Accuracy",
        "get-all", *LOC,
        "get-managed-objects", "org.mssf.Location",
        "get-property", "org.mssf.Location", "/org/mssf/Location/Satellite/G13",
        "org.mssf.Location.Satellite", "Elevation",
        "listen-signals", "1.2", "org.mssf.Location",
        "introspect", "org.mssf.Location", "/org/mssf/Location",
    ], env)
    number = r"-?\d+(\.\d+)?"
    position = rf"60\.\d+, 24\.\d+"
    failures.check(status == 0, f"location: exit status {status}: {err}", out)
    expect_lines(failures, "location", out, [
        rf"GetPosition answered: {position}",
        rf"Position: \({position}\)",
        rf"Accuracy: {number}",
        r"GetAll org\.mssf\.Location answered: 2 properties",
        r"GetManagedObjects answered: [34] objects",
        r"  /org/mssf/Location",
        r"    org\.mssf\.Location",
        r"  /org/mssf/Location/Satellite/G07",
        r"    org\.mssf\.Location\.Satellite",
        r"  /org/mssf/Location/Satellite/G13",
        r"Elevation: 35\.5",
        r"listening for signals from org\.mssf\.Location for 1\.2 s",
        rf"received PositionChanged\({position}\) from org\.mssf\.Location",
        rf"received PropertiesChanged\(org\.mssf\.Location: Position=\({position}\), "
        rf"Accuracy={number}\) from org\.mssf\.Location",
        r"\d+ signals received",
        r"  interface org\.mssf\.Location; methods GetPosition; signals PositionChanged; "
        r"properties Position, Accuracy",
        r"  child nodes Satellite",
    ])
    expect_any(failures, "location", out, [
        rf"  Position: \({position}\)",
        rf"  Accuracy: {number}",
        r"      Prn: 7",
        r"      Elevation: 62",
        rf"      Azimuth: {number}",
        r"received Interfaces(Added|Removed)\(/org/mssf/Location/Satellite/G21, .*\) "
        r"from org\.mssf\.Location",
    ])


def test_calendar(failures, app, env):
    status, out, err = run_app(app, [
        "call", *CAL, "ListEvents",
        "call", *CAL, "AddEvent", "s:Lunch", "s:2026-12-03T12:00:00Z", "s:2026-12-03T13:00:00Z",
        "get-property", *CAL, "EventCount",
        "get-property", *CAL, "Name",
        "set-property", *CAL, "Name", "s:Work",
        "get-all", *CAL,
        "call", *CAL, "AddEvent", "s:Late", "s:2026-12-03T12:00:00Z", "s:2026-12-03T11:00:00Z",
        "set-property", *CAL, "EventCount", "u:7",
        "listen-signals", "0.4", "org.mssf.Calendar",
    ], env)
    failures.check(status == 0, f"calendar: exit status {status}: {err}", out)
    expect_lines(failures, "calendar", out, [
        r"ListEvents answered: 2 items",
        r"  \('event1', 'Demo rehearsal', '2026-12-03T09:00:00Z/2026-12-03T09:30:00Z'\)",
        r"  \('event2', 'MSSF review', '2026-12-04T13:00:00Z/2026-12-04T14:00:00Z'\)",
        r"AddEvent answered: event3",
        r"EventCount: 3",
        r"Name: Personal",
        r"setting Name to Work: done",
        r"GetAll org\.mssf\.Calendar answered: 2 properties",
        r"AddEvent failed: org\.freedesktop\.DBus\.Error\.InvalidArgs: "
        r"the event ends before it starts",
        r"setting EventCount to 7 failed: org\.freedesktop\.DBus\.Error\.InvalidArgs: .*",
        r"received EventAdded\(event3\) from org\.mssf\.Calendar",
        r"received PropertiesChanged\(org\.mssf\.Calendar: EventCount=3\) from org\.mssf\.Calendar",
        r"received PropertiesChanged\(org\.mssf\.Calendar: Name=Work\) from org\.mssf\.Calendar",
        r"3 signals received",
    ])
    expect_any(failures, "calendar", out, [r"  EventCount: 3", r"  Name: Work"])


def test_filtered(failures, app, env):
    """How the app words what the MSSF bus does (played by the mock)."""
    status, out, err = run_app(app, [
        "call", *MOCK, "Secret",
        "get-property", *MOCK, "Hidden",
        "get-property", *MOCK, "Visible",
        "get-all", *MOCK,
        "get-managed-objects", "org.mssf.Mock", "/org/mssf/Mock",
        "call", *MOCK, "Emit",
        "listen-signals", "0.3", "org.mssf.Mock",
    ], env)
    failures.check(status == 0, f"filtered: exit status {status}: {err}", out)
    expect_lines(failures, "filtered", out, [
        r"Secret refused: org\.freedesktop\.DBus\.Error\.AccessDenied: "
        r"label test lacks token Secret for org\.mssf\.Mock\.Secret",
        r"Hidden refused: org\.freedesktop\.DBus\.Error\.AccessDenied: .*",
        r"Visible: yes",
        r"GetAll org\.mssf\.Mock answered: 1 property",
        r"  Visible: yes",
        r"  Hidden: not visible \(hidden by the bus\)",
        r"GetManagedObjects answered: 1 object",
        r"  /org/mssf/Mock",
        r"    org\.mssf\.Mock",
        r"      Visible: yes",
        r"      Hidden: not visible \(hidden by the bus\)",
        r"Emit answered: no values",
        r"received PropertiesChanged\(org\.mssf\.Mock: no property left \(hidden by the bus\)\) "
        r"from org\.mssf\.Mock",
        r"1 signal received",
    ])


def test_errors(failures, app, env, services):
    """Bad scripts stop before any step; an absent name is a failure, not a crash."""
    for steps in (["frobnicate"], ["call", "org.mssf.Cellular", "not-a-path", "a.b", "C"],
                  ["call", *CELL, "Dial", "z:1"], ["call", *CELL, "Dial", "u:-1"],
                  ["listen-signals", "forever"], ["set-property", *CAL, "Name"], []):
        status, out, err = run_app(app, steps, env)
        failures.check(status == 2 and out == "",
                       f"script {steps}: expected exit status 2 and no output, got {status}",
                       out + err)
    status, out, err = run_app(app, ["call", "org.mssf.Nobody", "/", "org.mssf.Nobody", "Hello",
                                     "get-all", "org.mssf.Nobody", "/", "org.mssf.Nobody"], env)
    failures.check(status == 0, f"absent name: exit status {status}", out + err)
    expect_lines(failures, "absent name", out, [
        r"Hello failed: org\.freedesktop\.DBus\.Error\.(ServiceUnknown|NameHasNoOwner): .*",
        r"GetAll org\.mssf\.Nobody failed: org\.freedesktop\.DBus\.Error\."
        r"(ServiceUnknown|NameHasNoOwner): .*",
    ])
    # A second cellular cannot take the name; it says so and exits 1.
    result = subprocess.run(services["org.mssf.Cellular"], env=env, capture_output=True,
                            text=True, timeout=20)
    failures.check(result.returncode == 1 and "the name is not ours" in result.stderr,
                   f"second cellular: exit status {result.returncode}",
                   result.stdout + result.stderr)
    bad = dict(env, DBUS_SYSTEM_BUS_ADDRESS="unix:path=/nonexistent/socket")
    status, out, err = run_app(app, ["listen-signals", "0"], bad)
    failures.check(status == 1 and "cannot connect" in err,
                   f"no bus: exit status {status}", out + err)


def test_activation(failures, app, env):
    """With the services gone, the first call starts each (dbus/*.service.in)."""
    status, out, err = run_app(app, [
        "call", *CAL, "ListEvents",
        "get-property", *CELL, "Operator",
        "call", *LOC, "GetPosition",
    ] + [word for name in ("org.mssf.Calendar", "org.mssf.Cellular", "org.mssf.Location")
         for word in ("call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                      "org.freedesktop.DBus", "GetConnectionUnixProcessID", "s:" + name)], env)
    failures.check(status == 0, f"activation: exit status {status}: {err}", out)
    expect_lines(failures, "activation", out, [
        r"ListEvents answered: 2 items",
        r"Operator: MSSF Mobile",
        r"GetPosition answered: 60\.\d+, 24\.\d+",
    ])
    pids = [int(pid) for pid in
            re.findall(r"^GetConnectionUnixProcessID answered: (\d+)$", out, re.M)]
    failures.check(len(pids) == 3, "activation: the three activated services' pids", out)
    # The bus started them; stop them the way a system would.
    for pid in pids:
        os.kill(pid, signal.SIGTERM)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True, help="the build's examples folder")
    parser.add_argument("--source-dir", required=True, help="the examples source folder")
    parser.add_argument("--daemon", default="/usr/bin/dbus-daemon")
    parser.add_argument("--skip-activation", action="store_true",
                        help="leave out the activation test (for a bus without it yet)")
    args = parser.parse_args()
    if not shutil.which(args.daemon):
        print(f"SKIP: no {args.daemon}")
        return 77

    failures = Failures()
    tmp = tempfile.mkdtemp(prefix="mssf-examples-")
    processes = []
    try:
        bus, address = start_bus(args.daemon,
                                 write_config(tmp, args.source_dir, args.build_dir))
        processes.append(bus)
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address)
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        services = {}
        for name, argv in SERVICES.items():
            services[name] = [os.path.join(args.build_dir, argv[0])] + argv[1:]
            process, _ = start_service(services[name], name, tmp, env)
            processes.append(process)
        mock = os.path.join(args.source_dir, "tests", "mock-filtering-service.py")
        process, _ = start_service(["/usr/bin/python3", mock], "org.mssf.Mock", tmp, env)
        processes.append(process)

        app = os.path.join(args.build_dir, "trusted-app")
        test_cellular(failures, app, env)
        test_location(failures, app, env)
        test_calendar(failures, app, env)
        test_filtered(failures, app, env)
        test_errors(failures, app, env, services)

        # Services stop cleanly on SIGTERM (exit status 0).
        for process in processes[1:4]:
            process.send_signal(signal.SIGTERM)
            try:
                status = process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                status = None
            failures.check(status == 0, f"{process.args[0]}: exit status {status} on SIGTERM")
        if args.skip_activation:
            print("activation test skipped (--skip-activation)")
        else:
            test_activation(failures, app, env)
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(tmp, ignore_errors=True)

    if failures.count:
        print(f"{failures.count} failure(s)")
        return 1
    print("all example checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
