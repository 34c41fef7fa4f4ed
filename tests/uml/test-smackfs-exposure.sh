#!/bin/sh
# What Smack shows a process that is nobody in particular, inside
# user-mode-linux (uml-run):
#   test-smackfs-exposure.sh SMACK_HELPER MSSF_BROKER
# The bus's CheckToken answers only what an asker's manifest makes its
# business (broker/driver/driver-mssf.c). Whether that keeps grants secret depends
# on what else tells: this measures it, and fails when the kernel or the
# bus starts to tell more or less, so that the threat-model comment and
# mssf-broker(8) can be revisited.
#
# Measured (Debian forky's user-mode-linux 7.2um1 / Linux 7.2.7), for a
# process labelled appX with uid 1000 and no capabilities at all:
#  - /sys/fs/smackfs/load2 and load are 0644 and list every rule of every
#    label ("Other Cellular w": who holds Cellular); load-self2 shows
#    only its own process rules (none);
#  - access2 and access are 0666 and answer "subject object access" about
#    any two labels (smackfs files are labelled "*", so no Smack rule can
#    refuse them): "Other Cellular w" is 1, "Other Location w" is 0;
#  - it cannot write a rule (load2);
#  - /proc/PID/attr/current of a process labelled Other (a root process)
#    is refused, and readable once "appX Other rx" is loaded: Smack
#    decides, not the uid;
#  - in a mount namespace where smackfs is read-only, access2 is refused
#    (EROFS) but load2 still lists every rule;
#  - chmod 0600 on load2 and load holds until the next mount and hides
#    the list from uid 1000; chmod 0600 on access2 refuses uid 1000 too.
# The same process as root (uid 0, every capability but CAP_MAC_ADMIN and
# CAP_MAC_OVERRIDE) reads all of it, also after the chmods (it owns the
# files), and cannot write a rule either.
# mssf-broker, like dbus-daemon, gives anyone GetConnectionCredentials'
# LinuxSecurityLabel of any connection, and ListNames lists every unique
# name: with access2, any process learns whether any connection holds any
# token, without CheckToken.
set -u
helper=$1
broker=$2
t=/tmp/smackfs-exposure
failures=0
pids=""

[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
[ -w /sys/fs/smackfs/load2 ] || { echo "smackfs not mounted"; exit 1; }

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failures=$((failures + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi; }
has() { if printf '%s\n' "$3" | grep -Eq -- "$2"; then ok "$1"; else not_ok "$1: no /$2/ in: $3"; fi; }
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup EXIT
load_rule() { printf '%s %s %s' "$1" "$2" "$3" > /sys/fs/smackfs/load2; }
# app CMD...: labelled appX, uid and gid 1000, no capability left.
app() {
    timeout 20 "$helper" run appX setpriv --reuid 1000 --regid 1000 --clear-groups \
        --inh-caps=-all --bounding-set=-all "$@" 2>&1
}
# rootx CMD...: labelled appX, root without CAP_MAC_ADMIN and CAP_MAC_OVERRIDE.
rootx() { timeout 20 "$helper" run appX "$@" 2>&1; }
mode() { stat -c %a "/sys/fs/smackfs/$1"; }
# access1 SUBJECT OBJECT ACCESS: the old access file's fixed-width question, asked as app:
# exactly 54 bytes (two 24-byte labels, 6 of access) in one write (the kernel allows one
# write per open, and takes 54 bytes of a longer one), the answer read from the same
# descriptor.
access1() {
    printf '%-24s%-24s%-6s' "$1" "$2" "$3" > "$t/question"
    chmod 644 "$t/question"
    app sh -c 'exec 3<>/sys/fs/smackfs/access && cat "$1" >&3 && head -c 1 <&3' access1 "$t/question"
}

mkdir -p "$t"
chmod 755 "$t"
load_rule Other Cellular w
for label in appX Other; do
    load_rule "$label" System w
    load_rule System "$label" w
done

# ---- what the kernel shows ----------------------------------------------------
check "load2 is 0644" 644 "$(mode load2)"
check "load is 0644" 644 "$(mode load)"
check "access2 is 0666" 666 "$(mode access2)"
check "access is 0666" 666 "$(mode access)"
has "the test process has no capability" '^CapEff:[[:space:]]+0+$' "$(app grep CapEff /proc/self/status)"
check "the test process is uid 1000 labelled appX" "1000 appX" "$(app sh -c 'echo "$(id -u) $(cat /proc/self/attr/current)"')"
check "uid 1000 reads another label's grant from load2" "Other Cellular w" \
    "$(app grep '^Other Cellular ' /sys/fs/smackfs/load2)"
has "uid 1000 reads it from load too" '^Other +Cellular +w' "$(app cat /sys/fs/smackfs/load)"
check "load-self2 shows only its own process rules: none" "" "$(app cat /sys/fs/smackfs/load-self2)"
check "uid 1000 asks access2 about two other labels: held" 1 "$(app "$helper" access Other Cellular w)"
check "uid 1000 asks access2 about two other labels: not held" 0 "$(app "$helper" access Other Location w)"
check "uid 1000 asks the old access file: held" 1 "$(access1 Other Cellular w)"
check "uid 1000 asks the old access file: not held" 0 "$(access1 Other Location w)"
app sh -c 'printf "appX Cellular w" > /sys/fs/smackfs/load2' > /dev/null 2>&1
check "uid 1000 cannot load a rule" 0 "$("$helper" access appX Cellular w)"

"$helper" run Other sleep 120 &
other_pid=$!
pids="$pids $other_pid"
sleep 0.2
check "a process labelled Other" Other "$(cat /proc/$other_pid/attr/current)"
has "uid 1000 cannot read its label from /proc" 'Permission denied' "$(app cat /proc/$other_pid/attr/current)"
has "root labelled appX without the MAC capabilities cannot either" 'Permission denied' \
    "$(rootx cat /proc/$other_pid/attr/current)"
load_rule appX Other rx
check "with 'appX Other rx' it can" Other "$(rootx cat /proc/$other_pid/attr/current)"
check "uid 1000 too (another uid's process: Smack decides)" Other "$(app cat /proc/$other_pid/attr/current)"
load_rule appX Other -

# A sandbox whose smackfs is read-only cannot ask, and still lists.
ro() {
    unshare -m sh -c 'mount -o remount,bind,ro /sys/fs/smackfs && exec "$@"' ro "$@" 2>&1
}
has "read-only smackfs: access2 refused" 'Read-only file system' \
    "$(ro "$helper" run appX setpriv --reuid 1000 --regid 1000 --clear-groups --inh-caps=-all \
        --bounding-set=-all "$helper" access Other Cellular w)"
check "read-only smackfs: load2 still lists the grant" "Other Cellular w" \
    "$(ro "$helper" run appX setpriv --reuid 1000 --regid 1000 --clear-groups --inh-caps=-all \
        --bounding-set=-all grep '^Other Cellular ' /sys/fs/smackfs/load2)"

check "root labelled appX without the MAC capabilities reads load2" "Other Cellular w" \
    "$(rootx grep '^Other Cellular ' /sys/fs/smackfs/load2)"
check "... asks access2" 1 "$(rootx "$helper" access Other Cellular w)"
rootx sh -c 'printf "appX Cellular w" > /sys/fs/smackfs/load2' > /dev/null 2>&1
check "... and cannot load a rule" 0 "$("$helper" access appX Cellular w)"

# ---- what the bus shows -------------------------------------------------------
cat > "$t/bus.conf" <<EOF
<busconfig>
  <type>system</type>
  <listen>unix:path=$t/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
(echo System > /proc/self/attr/current &&
    exec "$broker" --config-file="$t/bus.conf" --nofork --print-address) > "$t/bus.out" 2> "$t/bus.log" &
pids="$pids $!"
n=100
while [ "$n" -gt 0 ] && ! grep -q unix: "$t/bus.out"; do sleep 0.1; n=$((n - 1)); done
grep -q unix: "$t/bus.out" || { cat "$t/bus.log"; echo "the bus did not start"; exit 1; }
chmod 666 "$t/system_bus_socket"
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$t/system_bus_socket
# A connection labelled Other that stays, printing its unique name.
timeout 60 "$helper" run Other /usr/bin/python3 -c '
import sys, time, dbus
bus = dbus.SystemBus()
print(bus.get_unique_name(), flush=True)
time.sleep(50)' > "$t/other.out" 2>&1 &
pids="$pids $!"
n=100
while [ "$n" -gt 0 ] && ! grep -q '^:' "$t/other.out"; do sleep 0.1; n=$((n - 1)); done
other_unique=$(grep '^:' "$t/other.out")
[ -n "$other_unique" ] || { cat "$t/other.out"; echo "the Other connection did not start"; exit 1; }
has "uid 1000 finds the connection in ListNames" "'$other_unique'" \
    "$(app gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
       --method org.freedesktop.DBus.ListNames)"
creds=$(app busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
    GetConnectionCredentials s "$other_unique")
label=$(printf '%s\n' "$creds" | awk '{ for (i = 1; i <= NF; i++) if ($i == "\"LinuxSecurityLabel\"" && $(i + 1) == "ay") {
               n = $(i + 2); s = ""
               for (j = 1; j <= n; j++) if ($(i + 2 + j) != 0) s = s sprintf("%c", $(i + 2 + j))
               print s; exit } }')
check "uid 1000 gets the connection's label from GetConnectionCredentials" Other "$label"
check "so it learns that $other_unique holds Cellular, without CheckToken" 1 \
    "$(app "$helper" access "$label" Cellular w)"

# ---- what a device maker's chmod changes (in memory, until smackfs is mounted again) ----
chmod 0600 /sys/fs/smackfs/load2 /sys/fs/smackfs/load
check "chmod 0600 load2 holds" 600 "$(mode load2)"
has "uid 1000 no longer reads load2" 'Permission denied' "$(app cat /sys/fs/smackfs/load2)"
has "nor load" 'Permission denied' "$(app cat /sys/fs/smackfs/load)"
check "root without the MAC capabilities still reads load2 (root owns it)" "Other Cellular w" \
    "$(rootx grep '^Other Cellular ' /sys/fs/smackfs/load2)"
check "access2 still answers uid 1000" 1 "$(app "$helper" access Other Cellular w)"
chmod 0600 /sys/fs/smackfs/access2
has "chmod 0600 access2: uid 1000 refused" 'Permission denied' "$(app "$helper" access Other Cellular w)"
check "root without the MAC capabilities still asks" 1 "$(rootx "$helper" access Other Cellular w)"
chmod 0644 /sys/fs/smackfs/load2 /sys/fs/smackfs/load
chmod 0666 /sys/fs/smackfs/access2

if [ "$failures" -ne 0 ]; then
    echo "# bus log:"; tail -n 20 "$t/bus.log" | sed 's/^/#   /'
    echo "# $failures failure(s)"
    exit 1
fi
echo "# all passed"
