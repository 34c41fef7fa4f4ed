#!/bin/sh
# boot-probe.sh: run by boot-run through uml-run before the boot. Can this
# guest run a stock system bus at all? Debian's dbus-daemon must parse
# Debian's system.conf and listen, three times in a row. On this host's
# AMX CPU linux.uml loses FPU/vector register state (tests/uml/README.md,
# "Why uml-launch"), and dbus-daemon then misreads the file ("not
# well-formed (invalid token)") or its own command line. Exit 0: the guest
# is sound; 77: it is not (the boot test cannot mean anything here).
set -u
command -v dbus-daemon >/dev/null || { echo "dbus-daemon not installed"; exit 77; }
mkdir -p /run/dbus
for i in 1 2 3; do
    out=$(timeout 5 dbus-daemon --config-file=/usr/share/dbus-1/system.conf --nofork \
        --nopidfile --address="unix:path=/tmp/boot-probe-$i" --print-address=1 2>&1 | head -n 1)
    case "$out" in
    unix:path=/tmp/boot-probe-$i,guid=*) ;;
    *) echo "run $i: $out"; exit 77 ;;
    esac
done
echo "dbus-daemon parses system.conf and listens in this guest"
