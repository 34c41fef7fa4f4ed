#!/bin/sh
# The calendar's manifest and its per-calendar checks, on the host (no
# Smack), with the built mssf-broker as a private system bus:
#  - mssf-policy scaffold --dest, run on the service, still writes
#    calendar/calendar.scaffold.xml, where its manifest started;
#  - mssf-policy check finds manifests/calendar.xml complete for it;
#  - without Smack libmssf cannot say that anyone holds calendar::work:
#    the work calendar is refused and not listed, and the service says
#    why; the personal calendar is answered (the manifest's calendar::read
#    is the bus's business, and this bus has no policy loaded).
# The answers under real Smack: uml-calendar.sh (suite uml).
#   test-calendar.sh BUILD_DIR SOURCE_DIR MSSF_POLICY MSSF_BROKER
set -u
build=$1
src=$2
tool=$3
broker=$4
dir=$(mktemp -d /tmp/calendar-XXXXXX)
failures=0
pids=""
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
. "$(dirname "$0")/../../tests/lib/checks.sh"

cat > "$dir/bus.conf" <<EOF
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
"$broker" --config-file="$dir/bus.conf" --nofork --print-address > "$dir/bus.address" 2> "$dir/bus.log" &
pids="$pids $!"
wait_for "$dir/bus.address" unix: || exit 1
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$dir/system_bus_socket
"$build/mssf-demo-calendar" > "$dir/calendar.out" 2>&1 &
pids="$pids $!"
wait_for "$dir/calendar.out" "org.mssf.Calendar: ready" || exit 1

"$tool" scaffold --dest org.mssf.Calendar --name org.mssf.Calendar --token read > "$dir/scaffold.xml" 2>&1
check "scaffold --dest exits 0" 0 "$?"
diff -u "$src/calendar/calendar.scaffold.xml" "$dir/scaffold.xml" > "$dir/scaffold.diff"
check "scaffold still writes calendar/calendar.scaffold.xml" "" "$(cat "$dir/scaffold.diff")"
out=$("$tool" check "$src/manifests/calendar.xml" --dest org.mssf.Calendar 2>&1)
check "manifests/calendar.xml covers the service: exit 0" 0 "$?"
has "... says so" "calendar.xml covers everything org.mssf.Calendar offers" "$out"

cal="org.mssf.Calendar /org/mssf/Calendar org.mssf.Calendar"
# shellcheck disable=SC2086 # the step words are meant to split
out=$("$build/mssf-demo-app" call $cal ListCalendars call $cal ListCalendarEvents s:personal \
      call $cal ListCalendarEvents s:work call $cal ListCalendarEvents s:holidays 2>&1)
has "ListCalendars: only personal" "^ListCalendars answered: \['personal'\]$" "$out"
has "the personal calendar is answered" "^ListCalendarEvents answered: 2 items$" "$out"
has "the work calendar is refused, and says why" \
    "^ListCalendarEvents refused: org\.freedesktop\.DBus\.Error\.AccessDenied: the work calendar needs calendar::work, and the bus could not say whether you hold it$" \
    "$out"
has "an unknown calendar" "^ListCalendarEvents failed: org\.mssf\.Calendar\.Error\.NoSuchCalendar: " "$out"
has "the service logs libmssf's reason" \
    "^:1\.[0-9]+ is taken as not holding calendar::work: the bus could not tell: .*org\.mssf\.Broker1\.Error\.SmackDisabled" \
    "$(cat "$dir/calendar.out")"

if [ "$failures" -ne 0 ]; then
    echo "$failures failed"
    exit 1
fi
echo "all passed"
