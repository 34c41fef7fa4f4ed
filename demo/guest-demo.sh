#!/bin/bash
# guest-demo.sh: the MSSF demo, run inside user-mode-linux (tests/uml/uml-run)
# with real Smack. Run by ../run-demo; by hand:
#
#   DEMO_ROOT_TAR=$(demo/make-packages build-demo /tmp/stage) DEMO_STAGE=/tmp/stage \
#   build-demo/tests/uml/uml-run --timeout 900 --mem 1500M demo/guest-demo.sh BUILD SOURCE [--check]
#
# BUILD is a plain (no sanitizer) build dir of the project, SOURCE the
# source tree. Everything it prints comes from the real programs: the
# packages installed with apt-get into a Debian root on the guest's tmpfs
# (so SMACK64EXEC can be set; hostfs has no xattrs) from the two signed
# repositories demo/make-packages prepared, mssf-broker as the system
# bus at /run/dbus/system_bus_socket with Debian's system.conf and the
# examples' system.d snippets, the three services under their package
# labels, and trusted-app and untrusted-app calling, listening and reading
# properties. Every outcome the MSSF model promises is compared with what
# happened ("ok" / "NOT AS EXPECTED"); with --check the script exits 1 when
# any differs. DEMO_OUTPUT=FILE sends all output to FILE (run-demo shows it
# live from the host).
set -u
[ "${UML_GUEST:-}" = 1 ] || { echo "guest-demo.sh: run me through tests/uml/uml-run"; exit 2; }
[ $# -ge 2 ] || { echo "usage: guest-demo.sh BUILD SOURCE [--check]"; exit 2; }
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
check=${3:-}
[ -n "${DEMO_OUTPUT:-}" ] && exec >"$DEMO_OUTPUT" 2>&1

# The bus socket labelled as systemd's mssf-broker.socket labels it
# (examples/tests/smack-socket-activate.c).
sock_activate=$build/examples/smack-socket-activate
broker=$build/broker/mssf-broker
helper=$build/tests/uml/smack-helper
examples=$build/examples
demo=$source/demo

root=/tmp/mssf-demo          # the "device": tmpfs, so labels can be set
lib=$root/usr/lib/mssf-demo  # the packages' binaries (their <for path>)
out=$root/out                # what each step printed, for the checks
buslog=$root/mssf-broker.log
mkdir -p "$lib" "$out"

pids=""
passed=0
failed=0
failures=""
step_no=0

cleanup() {
        for pid in $pids; do
                kill "$pid" 2>/dev/null
        done
        wait 2>/dev/null
}
trap cleanup EXIT

step() {
        step_no=$((step_no + 1))
        printf '\n== %d. %s\n' "$step_no" "$1"
        shift
        [ $# -gt 0 ] && printf '%s\n' "$@"
        printf '\n'
}

# verdict OK WHAT: count and print one expected outcome.
verdict() {
        if [ "$1" = 0 ]; then
                passed=$((passed + 1))
                echo "   [ok: $2]"
        else
                failed=$((failed + 1))
                failures="$failures
   - $2"
                echo "   [NOT AS EXPECTED: $2]"
        fi
}

# expect FILE REGEX WHAT / expect_not FILE REGEX WHAT
expect() {
        grep -Eq -- "$2" "$1"
        verdict $? "$3"
}
expect_not() {
        ! grep -Eq -- "$2" "$1"
        verdict $? "$3"
}

wait_for() {    # wait_for FILE TEXT [SECONDS]
        local i=0 n=$((${3:-10} * 10))
        while [ $i -lt $n ]; do
                grep -q -- "$2" "$1" 2>/dev/null && return 0
                sleep 0.1
                i=$((i + 1))
        done
        echo "(timed out waiting for '$2' in $1)"
        return 1
}

# indent [FILE]: the lines of FILE (or stdin), indented.
indent() {
        local line
        if [ $# -gt 0 ]; then
                while IFS= read -r line || [ -n "$line" ]; do
                        printf '   %s\n' "$line"
                done < "$1"
        else
                while IFS= read -r line || [ -n "$line" ]; do
                        printf '   %s\n' "$line"
                done
        fi
}

# The label mssf-policy gave a package's binary (its SMACK64EXEC).
label_of() {
        "$helper" getxattr "$lib/$1" security.SMACK64EXEC
}

# run_labelled BINARY ARGS...: execute one of the packages' binaries as a
# device would: the exec itself gives the process the label its
# SMACK64EXEC names (the kernel's transition), and root's Smack override
# (CAP_MAC_OVERRIDE, CAP_MAC_ADMIN) is dropped first so that the kernel
# judges it like any app.
run_labelled() {
        local binary=$1
        shift
        exec "$helper" exec "$lib/$binary" "$@"
}

# app NAME OUTFILE STEP...: run one package's app binary with the steps.
app() {
        local name=$1 file=$2
        shift 2
        local shown=" $*"
        shown=${shown//" $cell "/ ... }
        shown=${shown//" $loc "/ ... }
        shown=${shown//" $cal "/ ... }
        printf '$ %s%s\n' "$name" "$shown"
        timeout 20 "$helper" exec "$lib/$name" --timeout-ms 5000 "$@" > "$file" 2>&1
        indent "$file"
}

# app_bg NAME OUTFILE STEP...: the same in the background (a listener);
# returns once it is connected.
app_bg() {
        local name=$1 file=$2
        shift 2
        timeout 20 "$helper" exec "$lib/$name" --timeout-ms 5000 "$@" > "$file" 2>&1 &
        bg_pid=$!
        wait_for "$file" "connected to the system bus" 10 || true
}

# inroot CMD...: run in the device's Debian root, as apt and dpkg run there.
inroot() {
        chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
                DEBIAN_FRONTEND=noninteractive "$@"
}

# The root's own mssf-policy, from its package.
policy() {
        inroot mssf-policy "$@"
}

cell="org.mssf.Cellular /org/mssf/Cellular org.mssf.Cellular"
loc="org.mssf.Location /org/mssf/Location org.mssf.Location"
cal="org.mssf.Calendar /org/mssf/Calendar org.mssf.Calendar"
denied="refused: org.freedesktop.DBus.Error.AccessDenied"

##########################################################################
step "A device with Smack" \
     "A user-mode-linux kernel with the Smack LSM; this shell runs as root," \
     "which bypasses Smack, so every app below is started without the" \
     "MAC capabilities (smack-helper run)."
uname -sr | { read -r kernel; echo "kernel: $kernel (user-mode-linux), booted with lsm=smack"; }
echo "smackfs: $(grep -o '^smackfs [^ ]*' /proc/mounts)"
echo "this shell's Smack label: $(cat /proc/self/attr/current)"
echo "Smack rules loaded: $(wc -l < /sys/fs/smackfs/load2)"

##########################################################################
step "The device maker's policy" \
     "Which global tokens exist, and what packages of each origin may be" \
     "granted ($demo/device-policy.conf):"
grep -Ev '^(#|$)' "$demo/device-policy.conf" | indent
echo
echo "and its own Smack rules ($demo/device-rules): store apps may"
echo "reach the demo services at the label level; tokens decide the rest:"
grep -Ev '^(#|$)' "$demo/device-rules" | indent
mkdir -p "$root/etc/smack/accesses.d"
cp "$demo/device-rules" "$root/etc/smack/accesses.d/demo-device-rules"
# Loaded as systemd loads /etc/smack/accesses.d at boot.
grep -Ev '^(#|$)' "$demo/device-rules" | while read -r rule; do
        echo "$rule" > /sys/fs/smackfs/load2
done

##########################################################################
step "Installing the five packages with apt-get" \
     "The device's Debian root (debootstrapped, on a tmpfs: hostfs keeps no" \
     "xattrs) gets mssf-policy and mssf-broker, then apt-get installs the" \
     "demo's packages (built with dh_mssf) from two repositories signed with" \
     "different keys: the device maker's (the services, trusted-app) and the" \
     "store's (untrusted-app). The origin is the repository apt verified," \
     "mapped by /etc/mssf/repositories.conf; dpkg's trigger has mssf-policy" \
     "label each binary (SMACK64EXEC), load its Smack rules into the kernel" \
     "and compile the bus policy, once per apt-get run."
if [ -z "${DEMO_ROOT_TAR:-}" ] || [ -z "${DEMO_STAGE:-}" ]; then
        echo "DEMO_ROOT_TAR and DEMO_STAGE are not set: run me through demo/run-guest"
        exit 1
fi
tar -C "$root" -xf "$DEMO_ROOT_TAR" || { echo "cannot unpack $DEMO_ROOT_TAR"; exit 1; }
mount -t proc proc "$root/proc" && mkdir -p "$root/sys/fs/smackfs" &&
        mount --bind /sys/fs/smackfs "$root/sys/fs/smackfs" || { echo "cannot mount in $root"; exit 1; }
cp -a "$DEMO_STAGE/." "$root/"
chmod 1777 "$root/tmp"
rm -f "$root/etc/apt/sources.list"
echo "\$ grep -v '^#' /etc/mssf/repositories.conf"
grep -v '^#' "$root/etc/mssf/repositories.conf" | indent
echo "\$ dpkg -i mssf-policy_*.deb mssf-broker_*.deb"
inroot sh -c 'dpkg -i /tmp/debs/*.deb' > "$out/dpkg-i" 2>&1
status=$?
echo "   (exit status $status)"
[ $status = 0 ] || { indent "$out/dpkg-i"; exit 1; }
inroot apt-get -q update > "$out/apt-update" 2>&1 || { indent "$out/apt-update"; exit 1; }
# apt_install NAME PACKAGE...: one apt-get run, what it and mssf-policy said.
apt_install() {
        local file=$out/install-$1
        shift
        echo "\$ apt-get install $*"
        inroot apt-get -q -y -o Dpkg::Use-Pty=0 install "$@" > "$file" 2>&1
        echo "   (exit status $?)"
        grep -E '^(Get:|Setting up|Processing triggers|mssf-policy|/)' "$file" |
                sed -e 's|^/usr/share/mssf/aegis/||' | indent
}
lines=$(wc -l < "$root/var/log/dpkg.log")
apt_install system cellular location calendar trusted-app
apt_install untrusted-app untrusted-app
expect "$out/install-system" "^mssf-policy: trusted-app 1.0 registered, origin system" \
        "trusted-app has origin system (the device maker's repository)"
expect "$out/install-untrusted-app" "^mssf-policy: untrusted-app 1.0 registered, origin store" \
        "untrusted-app has origin store (the store's repository)"
[ "$(tail -n +$((lines + 1)) "$root/var/log/dpkg.log" | grep -c 'trigproc mssf-policy')" = 2 ]
verdict $? "mssf-policy's trigger ran once per apt-get run (dpkg.log)"
expect_not "$out/install-system" "is not granted to trusted-app" \
        "trusted-app, configured before calendar, is told nothing false: the grant is judged at the run's end"
expect "$out/install-untrusted-app" "Cellular is not granted to untrusted-app" \
        "untrusted-app is not granted Cellular"
expect "$out/install-untrusted-app" "Location is not granted to untrusted-app" \
        "untrusted-app is not granted Location"
expect "$out/install-untrusted-app" "calendar::data is not granted to untrusted-app" \
        "untrusted-app is not granted calendar::data"
expect "$out/install-untrusted-app" "calendar::work is not granted to untrusted-app" \
        "untrusted-app is not granted calendar::work"
echo
echo "\$ mssf-policy list"
policy list | indent
echo "Labels the packages' binaries carry (security.SMACK64EXEC):"
for binary in mssf-demo-cellular mssf-demo-location mssf-demo-calendar trusted-app untrusted-app; do
        printf '   %-20s %s\n' "$binary" "$("$helper" getxattr "$lib/$binary" security.SMACK64EXEC 2>&1)"
done
echo "Smack rules of the demo labels now in the kernel (/sys/fs/smackfs/load2):"
grep -E '^(trusted-app|untrusted-app|cellular|location|calendar) ' /sys/fs/smackfs/load2 \
        | sort | indent
echo "Who holds which token, as the kernel says (smackfs access2, 'LABEL TOKEN w'):"
for label in trusted-app untrusted-app; do
        line="  "
        for token in Cellular Location calendar::data; do
                line="$line $label $token: $("$helper" access "$label" "$token" w)"
        done
        echo " $line"
done
for token in Cellular Location calendar::data; do
        [ "$("$helper" access trusted-app "$token" w)" = 1 ]
        verdict $? "the kernel says trusted-app holds $token"
        [ "$("$helper" access untrusted-app "$token" w)" = 0 ]
        verdict $? "the kernel says untrusted-app does not hold $token"
done

echo
echo "What the compiled policy decides for a Dial (mssf-policy explain runs the"
echo "bus's own decision code over policy.db; tokens as the kernel says):"
for label in trusted-app untrusted-app; do
        echo "\$ mssf-policy explain --label $label --dest org.mssf.Cellular --path /org/mssf/Cellular --interface org.mssf.Cellular --member Dial"
        policy explain --label "$label" --dest org.mssf.Cellular --path /org/mssf/Cellular \
                --interface org.mssf.Cellular --member Dial > "$out/explain-$label" 2>&1
        echo "   (exit status $?)"
        indent "$out/explain-$label"
done
expect "$out/explain-trusted-app" "^allowed" "the policy allows trusted-app's Dial"
expect "$out/explain-untrusted-app" "^denied" "the policy denies untrusted-app's Dial"

##########################################################################
step "Starting mssf-broker as the system bus" \
     "Debian's own /usr/share/dbus-1/system.conf, with the examples'" \
     "busconfig snippets and mssf-broker's own as the only system.d files," \
     "the compiled MSSF policy, on /run/dbus/system_bus_socket (socket-activated as systemd's" \
     "dbus.socket would: socket labelled * in, @ out). Denials are logged" \
     "to stderr, kept in $buslog (no journald in this guest)."
# Guest-only mounts: the host's own system.d files stay out of the demo.
mount -t tmpfs demo-system.d /etc/dbus-1/system.d
mount -t tmpfs demo-system.d /usr/share/dbus-1/system.d
cp "$source"/examples/dbus/*.conf /etc/dbus-1/system.d/
# mssf-broker's own snippet, as its package installs it (lets services ask CheckToken).
cp "$source"/dbus-conf/org.mssf.Broker1.conf /usr/share/dbus-1/system.d/
for f in /etc/dbus-1/system.d/* /usr/share/dbus-1/system.d/*; do echo "   $f"; done
mkdir -p /run/dbus
echo "\$ mssf-broker --config-file=/usr/share/dbus-1/system.conf --nofork --nosyslog --address=systemd: --policy=$root/var/lib/mssf/policy.db"
"$sock_activate" /run/dbus/system_bus_socket \
        "$broker" --config-file=/usr/share/dbus-1/system.conf --nofork --nosyslog --address=systemd: --print-address \
        --print-pid --policy="$root/var/lib/mssf/policy.db" > "$buslog" 2>&1 &
bus_pid=$!
pids="$pids $bus_pid"
unset DBUS_SYSTEM_BUS_ADDRESS
i=0
until timeout 5 "$examples/mssf-demo-app" listen-signals 0 > "$out/bus-check" 2>&1; do
        i=$((i + 1))
        if [ $i -ge 30 ] || ! kill -0 $bus_pid 2>/dev/null; then
                echo "the bus does not answer:"
                cat "$out/bus-check" "$buslog"
                exit 1
        fi
        sleep 0.2
done
echo "   the bus answers (pid $bus_pid, running as $(ps -o user= -p $bus_pid), label $(cat /proc/$bus_pid/attr/current))"

##########################################################################
step "Starting the three services" \
     "Executing a labelled binary switches the process to its package's" \
     "label: the kernel reads the binary's SMACK64EXEC at exec, as it does" \
     "for every app below."
echo "The services, each under its package's label; only that label may own"
echo "the service's bus name:"
for name in cellular:Cellular:"--alert-ms 300 --answer-ms 600 --duration-ms 2000 --strength-ms 1000" \
            location:Location:"--interval-ms 500 --rise-period 2" \
            calendar:Calendar:""; do
        service=${name%%:*}
        rest=${name#*:}
        bus_name=org.mssf.${rest%%:*}
        # shellcheck disable=SC2086 # the options are meant to split
        (run_labelled "mssf-demo-$service" ${rest#*:}) > "$out/service-$service" 2>&1 &
        pid=$!
        pids="$pids $pid"
        if wait_for "$out/service-$service" "$bus_name: ready"; then
                pid_label=$(cat "/proc/$pid/attr/current")
                printf '   %s: ready (pid %s, Smack label %s)\n' "$bus_name" "$pid" "$pid_label"
                [ "$pid_label" = "$(label_of "mssf-demo-$service")" ]
                verdict $? "mssf-demo-$service runs under its SMACK64EXEC label, set by the exec"
        else
                cat "$out/service-$service" "$buslog"
                exit 1
        fi
done

##########################################################################
step "Cellular: who may dial" \
     "Dial, GetCalls and the SignalStrength property need the Cellular token;" \
     "Operator is open to everyone."
app trusted-app "$out/t-cell" call $cell Dial s:+358401234567 call $cell GetCalls \
        get-property $cell Operator get-property $cell SignalStrength get-all $cell
app untrusted-app "$out/u-cell" call $cell Dial s:+358401234567 call $cell GetCalls \
        get-property $cell Operator get-property $cell SignalStrength get-all $cell
expect "$out/t-cell" "^Dial answered: /org/mssf/Cellular/call" "trusted-app may Dial"
expect "$out/t-cell" "^SignalStrength: [0-9]+$" "trusted-app reads SignalStrength"
expect "$out/t-cell" "^GetAll org.mssf.Cellular answered: 2 properties" "trusted-app's GetAll has both properties"
expect "$out/u-cell" "^Dial $denied" "untrusted-app may not Dial (AccessDenied)"
expect "$out/u-cell" "^GetCalls $denied" "untrusted-app may not GetCalls"
expect "$out/u-cell" "^Operator: MSSF Mobile" "untrusted-app reads the open Operator property"
expect "$out/u-cell" "^SignalStrength $denied" "untrusted-app may not Get SignalStrength"
expect "$out/u-cell" "^  SignalStrength: not visible \(hidden by the bus\)" \
        "SignalStrength is hidden from untrusted-app's GetAll"

##########################################################################
step "Cellular: who hears about calls" \
     "untrusted-app listens while trusted-app dials: CallStateChanged and" \
     "SignalStrength changes reach only holders of Cellular."
app_bg untrusted-app "$out/u-cell-sig" introspect org.mssf.Cellular /org/mssf/Cellular \
        listen-signals 3.5 org.mssf.Cellular
u_pid=$bg_pid
app trusted-app "$out/t-cell-sig" call $cell Dial s:112 listen-signals 3 org.mssf.Cellular
wait $u_pid 2>/dev/null
echo "\$ untrusted-app introspect ... listen-signals 3.5 org.mssf.Cellular   (at the same time)"
indent "$out/u-cell-sig"
expect "$out/t-cell-sig" "^received CallStateChanged\(.*, alerting\)" "trusted-app receives CallStateChanged"
expect "$out/t-cell-sig" "SignalStrength=" "trusted-app sees SignalStrength change"
expect "$out/u-cell-sig" "^untrusted-app: done" "untrusted-app listened to the end"
expect_not "$out/u-cell-sig" "^received CallStateChanged" "untrusted-app receives no CallStateChanged"
expect_not "$out/u-cell-sig" "SignalStrength=" "untrusted-app sees no SignalStrength value"

##########################################################################
step "Location: who may know where the device is" \
     "GetPosition, PositionChanged, Position and the satellites' Elevation" \
     "and Azimuth need Location; Accuracy, Prn and the object manager are open."
app_bg untrusted-app "$out/u-loc-sig" introspect org.mssf.Location /org/mssf/Location \
        listen-signals 2 org.mssf.Location
u_pid=$bg_pid
app trusted-app "$out/t-loc" call $loc GetPosition get-all $loc \
        get-managed-objects org.mssf.Location listen-signals 1.2 org.mssf.Location
wait $u_pid 2>/dev/null
app untrusted-app "$out/u-loc" call $loc GetPosition get-property $loc Position get-all $loc \
        get-managed-objects org.mssf.Location
echo "\$ untrusted-app introspect ... listen-signals 2 org.mssf.Location   (while trusted-app ran)"
indent "$out/u-loc-sig"
expect "$out/t-loc" "^GetPosition answered: " "trusted-app may GetPosition"
expect "$out/t-loc" "^received PositionChanged" "trusted-app receives PositionChanged"
expect_not "$out/t-loc" "hidden by the bus" "nothing is hidden from trusted-app"
expect "$out/u-loc" "^GetPosition $denied" "untrusted-app may not GetPosition"
expect "$out/u-loc" "^Position $denied" "untrusted-app may not Get Position"
expect "$out/u-loc" "^  Position: not visible \(hidden by the bus\)" "Position is hidden from untrusted-app's GetAll"
expect "$out/u-loc" "^  Accuracy: " "untrusted-app's GetAll has the open Accuracy"
expect "$out/u-loc" "Elevation: not visible \(hidden by the bus\)" \
        "satellites' Elevation is hidden from untrusted-app's GetManagedObjects"
expect "$out/u-loc-sig" "^received PropertiesChanged\(org.mssf.Location: Accuracy=" \
        "untrusted-app receives PropertiesChanged with the open Accuracy"
expect "$out/u-loc-sig" "^received InterfacesAdded" "untrusted-app receives the open InterfacesAdded"
expect_not "$out/u-loc-sig" "^received PositionChanged" "untrusted-app receives no PositionChanged"
expect_not "$out/u-loc-sig" "Position=" "untrusted-app sees no Position in PropertiesChanged"

##########################################################################
step "Calendar: the calendar's own token" \
     "calendar::data is the calendar package's own checkorigin token: only" \
     "packages of its origin get it. Reading Name is open; setting it is not."
app_bg untrusted-app "$out/u-cal-sig" introspect org.mssf.Calendar /org/mssf/Calendar \
        listen-signals 2 org.mssf.Calendar
u_pid=$bg_pid
app trusted-app "$out/t-cal" call $cal ListEvents \
        call $cal AddEvent s:Demo s:2026-12-03T10:00:00Z s:2026-12-03T10:15:00Z \
        get-property $cal EventCount set-property $cal Name s:Work listen-signals 1 org.mssf.Calendar
wait $u_pid 2>/dev/null
app untrusted-app "$out/u-cal" call $cal ListEvents \
        call $cal AddEvent s:Spam s:2026-12-03T11:00:00Z s:2026-12-03T11:15:00Z \
        get-property $cal Name get-property $cal EventCount set-property $cal Name s:Stolen
echo "\$ untrusted-app introspect ... listen-signals 2 org.mssf.Calendar   (while trusted-app added an event)"
indent "$out/u-cal-sig"
expect "$out/t-cal" "^ListEvents answered: " "trusted-app may ListEvents"
expect "$out/t-cal" "^AddEvent answered: " "trusted-app may AddEvent"
expect "$out/t-cal" "^setting Name to Work: done" "trusted-app may set Name"
expect "$out/t-cal" "^received EventAdded" "trusted-app receives EventAdded"
expect "$out/u-cal" "^ListEvents $denied" "untrusted-app may not ListEvents"
expect "$out/u-cal" "^AddEvent $denied" "untrusted-app may not AddEvent"
expect "$out/u-cal" "^Name: Work" "untrusted-app reads the open Name"
expect "$out/u-cal" "^EventCount $denied" "untrusted-app may not Get EventCount"
expect "$out/u-cal" "^setting Name to Stolen $denied" "untrusted-app may not set Name"
expect_not "$out/u-cal-sig" "^received EventAdded" "untrusted-app receives no EventAdded"

##########################################################################
step "Calendar: which calendars, decided by the service" \
     "ListCalendars and ListCalendarEvents need calendar::read (the bus" \
     "checks that); the work calendar also needs calendar::work, which the" \
     "calendar service checks itself: it asks the bus with libmssf whether" \
     "the caller holds it. The store granted untrusted-app calendar::read only."
app untrusted-app "$out/u-cals" call $cal ListCalendars call $cal ListCalendarEvents s:personal \
        call $cal ListCalendarEvents s:work
app trusted-app "$out/t-cals" call $cal ListCalendars call $cal ListCalendarEvents s:work
echo "What the calendar service printed (libmssf's answers):"
grep 'calendar::work' "$out/service-calendar" | indent
expect "$out/u-cals" "^ListCalendars answered: \['personal'\]" "untrusted-app lists the personal calendar only"
expect "$out/u-cals" "^ListCalendarEvents answered: " "untrusted-app reads the personal calendar"
expect "$out/u-cals" "^ListCalendarEvents $denied: the work calendar needs calendar::work" \
        "the calendar refuses untrusted-app the work calendar"
expect "$out/t-cals" "^ListCalendars answered: \['personal', 'work'\]" "trusted-app lists both calendars"
expect "$out/t-cals" "Budget \(confidential\)" "trusted-app reads the work calendar"

##########################################################################
step "What the bus logged" \
     "mssf-broker logs every denial once (structured journal fields when" \
     "journald runs; here its stderr):"
grep -E 'Rejected|[Dd]enied' "$buslog" > "$out/log-denials"
if [ -s "$out/log-denials" ]; then
        echo "   ($(wc -l < "$out/log-denials") lines; the first 12:)"
        head -n 12 "$out/log-denials" | indent
else
        echo "   (no denial in the log; the whole log:)"
        head -n 20 "$buslog" | indent
fi
expect "$out/log-denials" "untrusted-app.*Cellular.*Dial" "the log has untrusted-app's denied Dial"
expect "$out/log-denials" "untrusted-app.*CallStateChanged" "the log has the CallStateChanged withheld from untrusted-app"

##########################################################################
step "Revoking a token live" \
     "The kernel is the only record of who holds a token. Withdraw Location" \
     "from trusted-app with one Smack rule write; no reload, no restart:" \
     "the bus sees the write (inotify) and its next decision asks again."
echo "\$ smack-helper access trusted-app Location w    (the kernel: holds it?)"
echo "   $("$helper" access trusted-app Location w)"
app trusted-app "$out/t-before" call $loc GetPosition
echo "\$ echo 'trusted-app Location -' > /sys/fs/smackfs/load2"
echo 'trusted-app Location -' > /sys/fs/smackfs/load2
echo "\$ smack-helper access trusted-app Location w"
echo "   $("$helper" access trusted-app Location w)"
app trusted-app "$out/t-after" call $loc GetPosition call $cell GetCalls \
        listen-signals 1.5 org.mssf.Location
expect "$out/t-before" "^GetPosition answered: " "before: trusted-app may GetPosition"
expect "$out/t-after" "^GetPosition $denied" "after the revocation: GetPosition is denied"
expect "$out/t-after" "^GetCalls answered" "after the revocation: Cellular still works"
expect_not "$out/t-after" "^received PositionChanged" "after the revocation: PositionChanged is withheld"
expect_not "$out/t-after" "Position=" "after the revocation: Position is hidden from PropertiesChanged"
kill -0 $bus_pid 2>/dev/null
verdict $? "the same bus process (pid $bus_pid) still runs: nothing was reloaded"

##########################################################################
step "Summary"
echo "$passed outcome(s) as the MSSF model expects, $failed not ($SECONDS s in the guest)."
if [ "$failed" -gt 0 ]; then
        echo "Not as expected:$failures"
fi
echo
echo "Halting the guest."
if [ "$check" = --check ] && [ "$failed" -gt 0 ]; then
        exit 1
fi
exit 0
