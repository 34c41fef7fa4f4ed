#!/bin/sh
# The whole demo inside user-mode-linux (run by tests/uml/uml-run), with
# real Smack: install the five packages with mssf-policy (labels on the
# guest's tmpfs, rules into the kernel), start mssf-broker as the system
# bus with the compiled policy, start the three services (each exec gets
# its package's label from SMACK64EXEC), and run the same script as
# trusted-app and as untrusted-app, printing what each saw.
#
# usage: uml-demo.sh EXAMPLES_BUILD_DIR EXAMPLES_SOURCE_DIR MSSF_POLICY MSSF_BROKER \
#                    SMACK_HELPER [--check]
# (EXAMPLES_BUILD_DIR holds the demo binaries and smack-socket-activate.)
# It always checks the set-up (grants, labels, the bus and services
# running, both apps completing their script, trusted-app answered in
# full); with --check it also asserts the mediation DESIGN.md promises for
# untrusted-app (refused, protected signals dropped, protected properties
# hidden). Exit status 1 when a check fails.
set -u
[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
build=$1
source=$2
tool=$3
broker=$4
helper=$5
check=${6:-}

root=/tmp/mssf-demo
lib=$root/usr/lib/mssf-demo
failures=0
pids=""

say() {
    printf '\n=== %s\n' "$*"
}

cleanup() {
    for pid in $pids; do
        kill "$pid" 2>/dev/null
    done
    wait 2>/dev/null
}
trap cleanup EXIT

expect() {
    # expect FILE REGEX WHAT: FILE has a line matching REGEX.
    if grep -Eq -- "$2" "$1"; then
        echo "ok - $3"
    else
        echo "not ok - $3 (no line matching: $2)"
        failures=$((failures + 1))
    fi
}

expect_not() {
    if grep -Eq -- "$2" "$1"; then
        echo "not ok - $3 (a line matches: $2)"
        failures=$((failures + 1))
    else
        echo "ok - $3"
    fi
}

wait_for() {
    # wait_for FILE TEXT: up to 10 s for TEXT to appear in FILE.
    i=0
    while [ $i -lt 100 ]; do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    echo "timed out waiting for '$2' in $1:"
    cat "$1" 2>/dev/null
    return 1
}

mkdir -p "$lib" "$root/system.d"
for binary in mssf-demo-cellular mssf-demo-location mssf-demo-calendar trusted-app untrusted-app; do
    cp "$build/$binary" "$lib/"
done
cp "$source"/dbus/*.conf "$root/system.d/"

say "Installing the packages (mssf-policy install)"
policy() {
    "$tool" "$@" --root "$root" --smackfs /sys/fs/smackfs --no-reload
}
for package in cellular location calendar trusted-app; do
    echo "\$ mssf-policy install --origin system $package $package.xml"
    policy install --origin system "$package" "$source/manifests/$package.xml"
done
echo "\$ mssf-policy install untrusted-app untrusted-app.xml"
policy install untrusted-app "$source/manifests/untrusted-app.xml" 2>&1 | tee "$root/install.log"
expect "$root/install.log" "Cellular is not granted to untrusted-app" "untrusted-app is refused Cellular"
expect "$root/install.log" "calendar::data is not granted to untrusted-app" \
    "untrusted-app is refused calendar::data"
echo "\$ mssf-policy list"
policy list
echo "Smack rules in the kernel for the demo labels:"
grep -E '^(trusted-app|untrusted-app|cellular|location|calendar) ' /sys/fs/smackfs/load2

say "Starting mssf-broker as the system bus"
cat > "$root/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>systemd:</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Introspectable"/>
  </policy>
  <includedir>$root/system.d</includedir>
</busconfig>
EOF
# Clients of every label must be able to connect to the bus socket and be
# written back to: the socket is labelled as a systemd .socket unit with
# SmackLabel=* SmackLabelIPIn=* SmackLabelIPOut=@ does. Who may talk to
# whom is the bus's mediation, not the socket's.
"$build/smack-socket-activate" "$root/system_bus_socket" \
    "$broker" --config-file="$root/bus.conf" --nofork --print-address \
    --policy="$root/var/lib/mssf/policy.db" > "$root/bus.log" 2>&1 &
pids="$pids $!"
wait_for "$root/bus.log" "unix:" || exit 1
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$root/system_bus_socket"
echo "bus at $DBUS_SYSTEM_BUS_ADDRESS"
# The bus printed its address once it accepts: the first client (the
# unlabelled build copy of the app) must get through Hello.
if ! "$build/mssf-demo-app" listen-signals 0 > "$root/bus-check.log" 2>&1; then
    echo "the bus does not answer:"
    cat "$root/bus-check.log" "$root/bus.log"
    exit 1
fi

# Each binary carries its package's label as SMACK64EXEC, so exec gives
# the process that label, as on a device. run_as_package PACKAGE BINARY
# [ARGS...] drops root's Smack override (CAP_MAC_OVERRIDE, CAP_MAC_ADMIN)
# and executes BINARY, whose exec sets the label; PACKAGE names the label
# the process must then have (the services below are started the same way
# in the background, and their label is checked).
run_as_package() {
    shift
    "$helper" exec "$@"
}
say "SMACK64EXEC labels set by mssf-policy"
for binary in mssf-demo-cellular:cellular mssf-demo-location:location \
        mssf-demo-calendar:calendar trusted-app:trusted-app untrusted-app:untrusted-app; do
    label=$("$helper" getxattr "$lib/${binary%%:*}" security.SMACK64EXEC 2>/dev/null)
    echo "$lib/${binary%%:*}: ${label:-none}"
    if [ "$label" = "${binary#*:}" ]; then
        echo "ok - ${binary%%:*} is labelled ${binary#*:}"
    else
        echo "not ok - ${binary%%:*} is labelled '${label:-none}', not ${binary#*:}"
        failures=$((failures + 1))
    fi
done

say "Starting the services"
for name in cellular:Cellular location:Location calendar:Calendar; do
    service=${name%%:*}
    "$helper" exec "$lib/mssf-demo-$service" > "$root/$service.log" 2>&1 &
    pid=$!
    pids="$pids $pid"
    if ! wait_for "$root/$service.log" "org.mssf.${name#*:}: ready"; then
        echo "the bus said:"
        cat "$root/bus.log"
        exit 1
    fi
    label=$(cat /proc/$pid/attr/current)
    if [ "$label" = "$service" ]; then
        echo "ok - mssf-demo-$service runs as $service (the exec's SMACK64EXEC transition)"
    else
        echo "not ok - mssf-demo-$service runs as '$label', not $service"
        failures=$((failures + 1))
    fi
done
for pid in $pids; do
    printf '%s: %s\n' "$(tr '\0' ' ' < /proc/$pid/cmdline | cut -c1-60)" \
        "$(cat /proc/$pid/attr/current 2>/dev/null)"
done

cell="org.mssf.Cellular /org/mssf/Cellular org.mssf.Cellular"
loc="org.mssf.Location /org/mssf/Location org.mssf.Location"
cal="org.mssf.Calendar /org/mssf/Calendar org.mssf.Calendar"
run_app() {
    app=$1
    say "$app"
    # shellcheck disable=SC2086 # the step words are meant to split
    run_as_package "$app" "$lib/$app" \
        call $cell Dial s:+123 \
        call $cell GetCalls \
        get-property $cell Operator \
        get-property $cell SignalStrength \
        get-all $cell \
        listen-signals 2.5 org.mssf.Cellular \
        call $loc GetPosition \
        get-all $loc \
        get-managed-objects org.mssf.Location \
        listen-signals 1.5 org.mssf.Location \
        call $cal ListEvents \
        call $cal AddEvent s:Demo s:2026-12-03T10:00:00Z s:2026-12-03T10:15:00Z \
        get-property $cal Name \
        set-property $cal Name s:Stolen \
        listen-signals 0.5 org.mssf.Calendar \
        2>&1 | tee "$root/$app.out"
}
# With --check only: the mediation itself.
expect_mediated() {
    [ "$check" = --check ] || return 0
    expect "$@"
}
expect_not_mediated() {
    [ "$check" = --check ] || return 0
    expect_not "$@"
}

run_app trusted-app
run_app untrusted-app

# Smack alone is not what protects the tokens: give untrusted-app a Smack
# path to cellular by hand (as if the device maker had), and the bus must
# still refuse Dial, hide SignalStrength and drop CallStateChanged, while
# the open Operator and Introspect answer.
say "untrusted-app with a Smack path to cellular (rules added by hand)"
printf 'untrusted-app cellular w\n' > /sys/fs/smackfs/load2
printf 'cellular untrusted-app w\n' > /sys/fs/smackfs/load2
grep -E '^(untrusted-app cellular|cellular untrusted-app) ' /sys/fs/smackfs/load2
# shellcheck disable=SC2086 # the step words are meant to split
run_as_package untrusted-app "$lib/untrusted-app" \
    get-property $cell Operator \
    get-all $cell \
    get-property $cell SignalStrength \
    call $cell Dial s:+999 \
    introspect org.mssf.Cellular /org/mssf/Cellular \
    listen-signals 2.5 org.mssf.Cellular \
    2>&1 | tee "$root/untrusted-smack.out"

say "Checks"

t=$root/trusted-app.out
u=$root/untrusted-app.out
expect "$t" "Smack label trusted-app$" "trusted-app runs as trusted-app"
expect "$u" "Smack label untrusted-app$" "untrusted-app runs as untrusted-app"
expect "$t" "^trusted-app: done$" "trusted-app completes its script"
expect "$u" "^untrusted-app: done$" "untrusted-app completes its script"
expect "$t" "^Dial answered: /org/mssf/Cellular/call" "trusted-app may Dial"
expect "$t" "^SignalStrength: [0-9]+$" "trusted-app reads SignalStrength"
expect "$t" "^received CallStateChanged\(.*, alerting\)" "trusted-app receives CallStateChanged"
expect "$t" "^GetPosition answered: " "trusted-app may GetPosition"
expect "$t" "^received PositionChanged" "trusted-app receives PositionChanged"
expect "$t" "^ListEvents answered: " "trusted-app may ListEvents"
expect "$t" "^AddEvent answered: event" "trusted-app may AddEvent"
expect "$t" "^setting Name to Stolen: done" "trusted-app may set Name"
expect "$t" "^received EventAdded" "trusted-app receives EventAdded"
expect_not "$t" "hidden by the bus|refused" "nothing is hidden from or refused to trusted-app"
expect_mediated "$u" "^Dial refused: org.freedesktop.DBus.Error.AccessDenied" "untrusted-app may not Dial"
expect_mediated "$u" "^SignalStrength refused: org.freedesktop.DBus.Error.AccessDenied" \
    "untrusted-app may not read SignalStrength"
expect_mediated "$u" "^GetPosition refused: org.freedesktop.DBus.Error.AccessDenied" \
    "untrusted-app may not GetPosition"
expect_mediated "$u" "^ListEvents refused: org.freedesktop.DBus.Error.AccessDenied" \
    "untrusted-app may not ListEvents"
expect_mediated "$u" "^AddEvent refused: org.freedesktop.DBus.Error.AccessDenied" \
    "untrusted-app may not AddEvent"
expect_mediated "$u" "^setting Name to Stolen refused: org.freedesktop.DBus.Error.AccessDenied" \
    "untrusted-app may not set Name"
expect_not_mediated "$u" "^received (CallStateChanged|PositionChanged|EventAdded)" \
    "untrusted-app receives no protected signal"
expect_not_mediated "$u" "SignalStrength=|Position=" "untrusted-app sees no protected property change"

s=$root/untrusted-smack.out
expect "$s" "^Operator: MSSF Mobile$" "with a Smack path, untrusted-app reads the open Operator"
expect "$s" "^Introspect answered: /org/mssf/Cellular$" "with a Smack path, Introspect is open"
expect_mediated "$s" "^  SignalStrength: not visible \(hidden by the bus\)$" \
    "with a Smack path, GetAll still hides SignalStrength"
expect_mediated "$s" "^SignalStrength refused: org.freedesktop.DBus.Error.AccessDenied" \
    "with a Smack path, Get SignalStrength is still refused"
expect_mediated "$s" "^Dial refused: org.freedesktop.DBus.Error.AccessDenied" \
    "with a Smack path, Dial still needs Cellular"
expect_not_mediated "$s" "^received CallStateChanged|SignalStrength=" \
    "with a Smack path, protected signals and properties still do not arrive"

echo "$failures failure(s)"
[ "$failures" -eq 0 ] || exit 1
exit 0
