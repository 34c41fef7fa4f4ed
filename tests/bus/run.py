#!/usr/bin/python3
"""Runs one bus integration test against a given daemon binary.

usage: run.py --daemon PATH [--libdbus-helper P] [--sdbus-helper P] AREA/NAME
       run.py --list
       run.py --check-registered AREA/NAME...

A test is a function test_NAME(bus) in test_AREA.py; it gets a started
private bus (busfixture.Bus) configured by its @config(...) decorator.
Exit status: 0 pass, 1 fail, 77 skip (meson's convention). After the test
body the fixture checks the daemon survived, still serves a new client and
exits cleanly on SIGTERM; any of those failing fails the test.
"""
import argparse
import glob
import importlib
import os
import signal
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import busfixture  # noqa: E402


def area_tests(area):
    """The tests of test_AREA.py (only that module is imported)."""
    module = importlib.import_module('test_' + area)
    return dict(('%s/%s' % (area, name[len('test_'):]), getattr(module, name))
                for name in dir(module)
                if name.startswith('test_') and callable(getattr(module,
                                                                 name)))


def all_tests():
    tests = {}
    for path in sorted(glob.glob(os.path.join(HERE, 'test_*.py'))):
        tests.update(area_tests(os.path.basename(path)[len('test_'):-3]))
    return tests


def on_alarm(signum, frame):
    raise busfixture.Timeout('the test ran out of time (internal alarm)')


def run_one(fn, options):
    bus = busfixture.Bus(options, **getattr(fn, 'bus_config', {}))
    status = 1
    try:
        bus.start()
        fn(bus)
        status = 0
    except busfixture.Skip as e:
        print('SKIP:', e)
        status = 77
    except Exception:
        traceback.print_exc()
    try:
        bus.stop(check=(status == 0))
    except Exception:
        traceback.print_exc()
        status = 1
    if status == 1:
        log = bus.daemon_log()
        if log:
            print('--- daemon stderr ---\n' + log[-4000:])
    bus.cleanup()
    return status


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--daemon')
    parser.add_argument('--libdbus-helper')
    parser.add_argument('--sdbus-helper')
    parser.add_argument('--list', action='store_true')
    parser.add_argument('--check-registered', action='store_true')
    parser.add_argument('--timeout', type=int, default=50)
    parser.add_argument('tests', nargs='*')
    args = parser.parse_args()
    if args.list or args.check_registered:
        tests = all_tests()
    else:
        tests = {}
        for area in sorted(set(t.split('/')[0] for t in args.tests)):
            if os.path.exists(os.path.join(HERE, 'test_%s.py' % area)):
                tests.update(area_tests(area))
    if args.list:
        print('\n'.join(sorted(tests)))
        return 0
    if args.check_registered:
        missing = sorted(set(tests) - set(args.tests))
        unknown = sorted(set(args.tests) - set(tests))
        for t in missing:
            print('not registered in meson.build:', t)
        for t in unknown:
            print('registered but no such test:', t)
        return 1 if missing or unknown else 0
    if not args.daemon or not os.access(args.daemon, os.X_OK):
        print('daemon %r is not an executable' % args.daemon)
        return 1
    # meson passes build targets relative to the build dir; the daemon
    # runs in its temp dir, so make every program path absolute.
    options = busfixture.Options(*[os.path.abspath(p) if p else None for p in
                                   (args.daemon, args.libdbus_helper,
                                    args.sdbus_helper)])
    signal.signal(signal.SIGALRM, on_alarm)
    status = 0
    for name in args.tests:
        if name not in tests:
            print('no such test:', name)
            return 1
        signal.alarm(args.timeout)
        result = run_one(tests[name], options)
        signal.alarm(0)
        print('%s: %s' % (name, {0: 'ok', 77: 'skip'}.get(result, 'FAIL')))
        if result != 0 and (status == 0 or result == 1):
            status = result
    return status


if __name__ == '__main__':
    sys.exit(main())
