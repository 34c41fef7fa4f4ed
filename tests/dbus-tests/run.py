#!/usr/bin/python3
"""Runs one case of dbus's own test suite against a given daemon.

usage: run.py --daemon PATH PROGRAM:CASE
       run.py --list
       run.py --check-registered PROGRAM:CASE...

The cases are those of Debian's dbus-tests package (the reference's own
integration tests, built against libdbus 1.14): each program runs the
daemon named by DBUS_TEST_DAEMON with the configurations under
DBUS_TEST_DATA, and `-p CASE` runs one case alone. They are run from the
package's debug build (the one the issue measured); REFERENCE_FAILS lists
the cases that dbus-daemon itself fails there, why, and what is run
instead.

Exit status, as meson expects: 0 pass, 1 fail, 77 skip (the program said
"# SKIP", or dbus-tests is not installed). Every case gets a fresh
XDG_RUNTIME_DIR and TMPDIR, a session bus address that leads nowhere, and
its own process group, which is killed at the end: a daemon or service
left running is reported and fails the case.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DEBUG_BUILD = '/usr/lib/dbus-1.0/debug-build/libexec/installed-tests/dbus'
PRODUCTION_BUILD = '/usr/lib/dbus-1.0/installed-tests/dbus'

PROGRAMS = ['test-dbus-daemon', 'test-monitor', 'test-uid-permissions',
            'test-dbus-daemon-eavesdrop', 'test-sd-activation',
            'test-header-fields', 'test-containers', 'test-fdpass']

# Cases that /usr/bin/dbus-daemon 1.14.10 fails when run from the debug
# build, and why. Each is run from the production build instead (same
# sources, built without verbose mode), where dbus-daemon passes it: the
# behaviour is still tested, against both daemons.
REFERENCE_FAILS = {
    'test-dbus-daemon:/properties/interfaces':
        'the debug build is compiled with DBUS_ENABLE_VERBOSE_MODE and so '
        'expects the driver to list org.freedesktop.DBus.Verbose in its '
        'Interfaces property; only a verbose dbus-daemon (the debug '
        'build\'s own) has that interface, Debian\'s /usr/bin/dbus-daemon '
        'does not',
    'test-dbus-daemon:/properties/get-all':
        'as /properties/interfaces: GetAll of the driver\'s properties is '
        'checked for org.freedesktop.DBus.Verbose in Interfaces',
}

# Cases that skip themselves on the project's host, against either daemon
# alike (the program prints "# SKIP" and the reason; meson shows SKIP):
# - test-dbus-daemon:/limits/pending-fd-timeout: "uid 0 is immune to this
#   limit" (the tests run as root);
# - test-dbus-daemon:/fd-limit/session, /fd-limit/system: the test cannot
#   raise RLIMIT_NOFILE in this container (EPERM), "so presumably neither
#   can the dbus-daemon";
# - test-containers, all but /containers/get-supported-arguments and
#   /containers/invalid-metadata-getters: Debian builds dbus-daemon without
#   the experimental Containers1 interface, and mssf-broker does not have
#   it either (mssf-broker(8)).

TIMEOUT = 150   # the programs' own watchdog fires first (SIGALRM)


def test_dir(case):
    return PRODUCTION_BUILD if case in REFERENCE_FAILS else DEBUG_BUILD


def list_cases():
    cases = []
    for program in PROGRAMS:
        out = subprocess.run([os.path.join(DEBUG_BUILD, program), '-l'],
                             stdout=subprocess.PIPE, check=True,
                             universal_newlines=True).stdout
        cases += ['%s:%s' % (program, line.strip())
                  for line in out.splitlines() if line.startswith('/')]
    return cases


def leftovers(pgid):
    """Processes still in the case's process group (not zombies)."""
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                fields = f.read().rpartition(')')[2].split()
            with open('/proc/%s/cmdline' % entry, 'rb') as f:
                cmdline = f.read().replace(b'\0', b' ').decode(errors='replace')
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != 'Z':
            found.append('%s %s' % (entry, cmdline.strip()))
    return found


def verdict(returncode, output):
    """meson's exit status from the TAP the program printed."""
    results = re.findall(r'^(ok|not ok) \d+ (\S+)(.*)$', output, re.M)
    if returncode != 0 or 'Bail out!' in output or not results:
        return 1
    if any(r[0] != 'ok' for r in results):
        return 1
    if all(re.match(r'\s*#\s*SKIP', r[2]) for r in results):
        return 77
    return 0


def run_case(daemon, case):
    program, _, name = case.partition(':')
    where = test_dir(case)
    binary = os.path.join(where, program)
    if not os.access(binary, os.X_OK):
        print('SKIP: %s is not installed (Debian package dbus-tests)' % binary)
        return 77
    if case in REFERENCE_FAILS:
        print('# run from %s: %s' % (where, REFERENCE_FAILS[case]))
    scratch = tempfile.mkdtemp(prefix='mssf-dbus-tests-')
    runtime = os.path.join(scratch, 'runtime')
    tmp = os.path.join(scratch, 'tmp')
    os.mkdir(runtime, 0o700)
    os.mkdir(tmp, 0o700)
    env = dict(os.environ)
    env.update({
        'DBUS_TEST_DAEMON': daemon,
        'DBUS_TEST_EXEC': where,
        'DBUS_TEST_DATA': os.path.join(where, 'data'),
        'XDG_RUNTIME_DIR': runtime,
        'TMPDIR': tmp,
        'DBUS_SESSION_BUS_ADDRESS': 'unix:path=/nonexistent/bus',
        'DBUS_SYSTEM_BUS_ADDRESS': 'unix:path=/nonexistent/bus',
    })
    for var in ('DBUS_STARTER_ADDRESS', 'DBUS_STARTER_BUS_TYPE',
                'DBUS_TEST_DAEMON_ADDRESS', 'DBUS_TEST_DATADIR'):
        env.pop(var, None)
    # A file, not a pipe: a daemon the case left behind would hold a pipe open.
    log_path = os.path.join(scratch, 'output')
    with open(log_path, 'wb') as log:
        proc = subprocess.Popen([binary, '--tap', '-p', name], env=env,
                                stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, cwd=scratch,
                                start_new_session=True)
    try:
        returncode = proc.wait(timeout=TIMEOUT)
        late = ''
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        returncode = proc.wait()
        late = '\nrun.py: the case ran out of time\n'
    with open(log_path, 'rb') as log:
        output = log.read().decode(errors='replace') + late
    print(output)
    status = verdict(returncode, output)
    # Give what the daemon's teardown signalled a moment to go.
    deadline = time.monotonic() + 5
    left = leftovers(proc.pid)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = leftovers(proc.pid)
    if left:
        print('run.py: left running after the case (killed now):\n  ' +
              '\n  '.join(left))
        os.killpg(proc.pid, signal.SIGKILL)
        status = 1
    shutil.rmtree(scratch, ignore_errors=True)
    if returncode != 0:
        print('run.py: %s exited with %s' % (program, returncode))
    return status


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--daemon')
    parser.add_argument('--list', action='store_true')
    parser.add_argument('--check-registered', action='store_true')
    parser.add_argument('cases', nargs='*')
    args = parser.parse_args()
    if args.list or args.check_registered:
        if not os.path.isdir(DEBUG_BUILD):
            print('SKIP: dbus-tests is not installed')
            return 77
        cases = list_cases()
        if args.list:
            print('\n'.join(cases))
            return 0
        missing = sorted(set(cases) - set(args.cases))
        unknown = sorted(set(args.cases) - set(cases))
        for case in missing:
            print('not registered in meson.build:', case)
        for case in unknown:
            print('registered but not in dbus-tests:', case)
        return 1 if missing or unknown else 0
    if not args.daemon or len(args.cases) != 1:
        parser.error('--daemon and one PROGRAM:CASE are needed')
    # meson passes a built target relative to the build dir; cases run elsewhere.
    return run_case(os.path.abspath(args.daemon), args.cases[0])


if __name__ == '__main__':
    sys.exit(main())
