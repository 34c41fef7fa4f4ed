#!/usr/bin/python3
"""Differential test: the same worlds played against dbus-daemon and
mssf-broker, side by side, with the same clients; every client's
transcript must be the same on both.

usage: run.py --daemon PATH [--reference PATH] --case NAME
       run.py --daemon PATH [--reference PATH] --seeds FIRST COUNT
       run.py --list
       run.py --check-registered NAME...

A world (world.py) is a configuration, clients with kernel credentials and
a script; cases.py holds the hand-written ones, generate.py makes random
ones from a seed. On a difference the world and a diff of the two
transcripts are printed. Exit status: 0 same, 1 different, 77 skipped
(not root, or no dbus-daemon).
"""
import argparse
import difflib
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases  # noqa: E402
import generate  # noqa: E402
from world import Player, Unavailable  # noqa: E402


def play(world, daemon):
    try:
        return Player(world, daemon).play()
    except Unavailable:
        raise
    except Exception:
        return ['the world broke on %s:' % os.path.basename(daemon)] + \
            traceback.format_exc().splitlines()


def compare(world, reference, daemon):
    expected = play(world, reference)
    got = play(world, daemon)
    if expected == got:
        return True
    print(world.describe())
    print('\n'.join(difflib.unified_diff(expected, got, 'dbus-daemon',
                                         'mssf-broker', lineterm='', n=4)))
    return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--daemon')
    parser.add_argument('--reference', default='/usr/bin/dbus-daemon')
    parser.add_argument('--case')
    parser.add_argument('--seeds', nargs=2, type=int)
    parser.add_argument('--list', action='store_true')
    parser.add_argument('--check-registered', nargs='*')
    args = parser.parse_args()
    if args.list:
        print('\n'.join(sorted(cases.cases())))
        return 0
    if args.check_registered is not None:
        missing = sorted(set(cases.cases()) - set(args.check_registered))
        unknown = sorted(set(args.check_registered) - set(cases.cases()))
        for name in missing:
            print('not registered in meson.build:', name)
        for name in unknown:
            print('registered but not in cases.py:', name)
        return 1 if missing or unknown else 0
    if not os.access(args.reference, os.X_OK):
        print('SKIP: no reference daemon at %s' % args.reference)
        return 77
    daemon = os.path.abspath(args.daemon)
    if args.case:
        worlds = [cases.cases()[args.case]]
    else:
        first, count = args.seeds
        worlds = [generate.world(s) for s in range(first, first + count)]
    failed = []
    try:
        for world in worlds:
            if not compare(world, args.reference, daemon):
                failed.append(world.name)
    except Unavailable as e:
        print('SKIP:', e)
        return 77
    print('%d of %d worlds differ%s' % (len(failed), len(worlds),
                                        (': ' + ', '.join(failed))
                                        if failed else ''))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
