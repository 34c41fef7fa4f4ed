#!/bin/sh
# The calendar's per-calendar checks under real Smack (one UML boot):
#   uml-run uml-calendar.sh EXAMPLES_BUILD_DIR EXAMPLES_SOURCE_DIR MSSF_POLICY MSSF_BROKER SMACK_HELPER
# mssf-policy installs the calendar (origin system) and two apps asking
# for calendar::read and calendar::work: calendar-reader from the "store",
# whose device policy (calendar-device-policy.conf) names calendar::read
# for it but not calendar::work (both checkorigin), and calendar-manager of
# the calendar's own origin, system (granted both). mssf-broker is the system bus with the compiled
# policy; the calendar runs labelled calendar and asks libmssf about its
# callers. The app (mssf-demo-app) runs under each app label:
#  - the reader lists and reads the personal calendar, and is refused the
#    work calendar by the service (the bus let the call through:
#    ListCalendarEvents needs only calendar::read);
#  - the manager sees both calendars;
#  - calendar::work revoked in load2 (no reload): the manager's next
#    question is refused; granted again, answered;
#  - the calendar's data-guarded ListEvents is refused to both by the bus.
set -u
build=$1
source=$2
tool=$3
broker=$4
helper=$5
root=/tmp/uml-calendar
lib=$root/usr/lib/mssf-demo
failures=0
pids=""

[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
. "$(dirname "$0")/../../tests/lib/checks.sh"
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup EXIT
app() { label=$1; shift; timeout 20 "$helper" run "$label" "$build/mssf-demo-app" "$@" 2>&1; }

mkdir -p "$lib"
cp "$build/mssf-demo-calendar" "$lib/"
# One device policy for every install: each regenerates every package's grants.
policy() {
    "$tool" "$@" --root "$root" --smackfs /sys/fs/smackfs --no-reload \
        --device-policy "$source/tests/calendar-device-policy.conf"
}
policy install --origin system calendar "$source/manifests/calendar.xml" > "$root/install.log" 2>&1 &&
    policy install --origin store calendar-reader "$source/tests/calendar-reader.xml" >> "$root/install.log" 2>&1 &&
    policy install --origin system calendar-manager "$source/tests/calendar-manager.xml" >> "$root/install.log" 2>&1 ||
    { cat "$root/install.log"; echo "mssf-policy install failed"; exit 1; }
has "calendar-reader is refused calendar::work" "calendar::work is not granted to calendar-reader" \
    "$(cat "$root/install.log")"
check "kernel: the reader holds calendar::read" 1 "$("$helper" access calendar-reader calendar::read w)"
check "kernel: the reader does not hold calendar::work" 0 "$("$helper" access calendar-reader calendar::work w)"
check "kernel: the manager holds calendar::work" 1 "$("$helper" access calendar-manager calendar::work w)"

for label in calendar calendar-reader calendar-manager; do
    load_rule "$label" System w
    load_rule System "$label" w
done
cat > "$root/bus.conf" <<EOF
<busconfig>
  <type>system</type>
  <listen>unix:path=$root/system_bus_socket</listen>
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
    exec "$broker" --config-file="$root/bus.conf" --policy="$root/var/lib/mssf/policy.db" --nofork --print-address) \
    > "$root/bus.out" 2> "$root/bus.log" &
pids="$pids $!"
wait_for "$root/bus.out" unix: 15 || exit 1
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$root/system_bus_socket
timeout 120 "$helper" run calendar "$lib/mssf-demo-calendar" > "$root/calendar.out" 2>&1 &
pids="$pids $!"
wait_for "$root/calendar.out" "org.mssf.Calendar: ready" 15 || exit 1

cal="org.mssf.Calendar /org/mssf/Calendar org.mssf.Calendar"
# shellcheck disable=SC2086 # the step words are meant to split
steps() { echo call $cal ListCalendars call $cal ListCalendarEvents s:personal call $cal ListCalendarEvents s:work \
               call $cal ListEvents; }
# shellcheck disable=SC2046
out=$(app calendar-reader $(steps))
has "reader: runs as calendar-reader" "Smack label calendar-reader$" "$out"
has "reader: ListCalendars is personal only" "^ListCalendars answered: \['personal'\]$" "$out"
has "reader: the personal calendar" "^ListCalendarEvents answered: 2 items$" "$out"
has "reader: the work calendar refused by the service" \
    "^ListCalendarEvents refused: org\.freedesktop\.DBus\.Error\.AccessDenied: the work calendar needs calendar::work$" "$out"
has "reader: ListEvents refused by the bus (calendar::data)" \
    "^ListEvents refused: org\.freedesktop\.DBus\.Error\.AccessDenied: .*calendar::data" "$out"
# shellcheck disable=SC2046
out=$(app calendar-manager $(steps))
has "manager: ListCalendars is both" "^ListCalendars answered: \['personal', 'work'\]$" "$out"
has "manager: the work calendar" "\('work1', 'Budget \(confidential\)'" "$out"
has "the service: the reader does not hold calendar::work" "^:1\.[0-9]+ does not hold calendar::work$" \
    "$(cat "$root/calendar.out")"
has "the service: the manager holds it" "^:1\.[0-9]+ holds calendar::work$" "$(cat "$root/calendar.out")"

# Revoked in the kernel, as mssf-policy does: the next question says no.
load_rule calendar-manager calendar::work -
out=$(app calendar-manager call $cal ListCalendarEvents s:work)
has "manager, calendar::work revoked: refused at once" \
    "^ListCalendarEvents refused: org\.freedesktop\.DBus\.Error\.AccessDenied: the work calendar needs calendar::work$" "$out"
load_rule calendar-manager calendar::work w
out=$(app calendar-manager call $cal ListCalendarEvents s:work)
has "granted again: answered" "^ListCalendarEvents answered: 2 items$" "$out"

if [ "$failures" -ne 0 ]; then
    echo "# bus log:"; tail -n 20 "$root/bus.log" | sed 's/^/#   /'
    echo "# calendar:"; tail -n 20 "$root/calendar.out" | sed 's/^/#   /'
    echo "# $failures failure(s)"
    exit 1
fi
echo "# all passed"
