#!/bin/sh
# Multithreaded GLib programs (dbus-daemon, gdbus), with glibc's own
# string functions for this CPU, must work every time inside the guest:
# a real workload beside uml-selfcheck's register checks (a guest that
# lost vector state across its context switches failed this within the
# first calls). Run by uml-run; exit 0 pass, 1 fail.
set -u
[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
command -v dbus-daemon >/dev/null && command -v gdbus >/dev/null || {
    echo "dbus-daemon or gdbus missing"; exit 77; }
address=$(dbus-daemon --session --fork --print-address=1 --nopidfile) || {
    echo "not ok - dbus-daemon did not start"; exit 1; }
export DBUS_SESSION_BUS_ADDRESS="$address"
failures=0
for i in $(seq 1 30); do
    out=$(gdbus call --session --dest org.freedesktop.DBus \
        --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetId 2>&1)
    case "$out" in
    "('"*"',)") ;;
    *) echo "not ok - call $i: $out"; failures=$((failures + 1)) ;;
    esac
done
echo "$failures of 30 gdbus calls failed"
[ "$failures" = 0 ]
