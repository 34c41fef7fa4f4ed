#!/bin/sh
# One uid, many apps, under real Smack: apps A (label appA) and B (appB),
# both uid 1000, and a service (label quota-svc, uid 1001), on a bus with
# the Debian system.conf's default policy, holes for the test's names and
# no <limit> line (the built-in system-bus limits). B's name is declared
# by B's manifest (mssf-policy). A misbehaves in five ways in turn (the
# issue's four, its calls split in two):
#   connections  opens connections until refused
#   matches      adds match rules until refused
#   pending      calls the service in a way it never answers until refused
#   replies      floods a peer that never reads (label appS), then calls
#                the service and never reads the replies
#   names        asks for B's name, then for as many names as it may
# and each time, with A still holding all it got, B must connect, own its
# one name, subscribe and get the service's answer within a second. The
# same runs against dbus-daemon, whose outcome is printed, not required. Then
# mssf-broker's GetStats and log must show A's refusals, one log line per
# limit, and none for B.
#
#   uml-run test-label-quotas.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER QUOTA_APP
set -u
broker=$1
policy_tool=$2
helper=$3
app=$4
t=/tmp/quota
failures=0
pids=""

[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
[ -w /sys/fs/smackfs/load2 ] || { echo "smackfs not mounted"; exit 1; }

. "$(dirname "$0")/../lib/checks.sh"
# as LABEL UID CMD...: labelled, that uid and gid, no MAC capabilities.
as() {
    label=$1 uid=$2
    shift 2
    "$helper" run "$label" setpriv --reuid "$uid" --regid "$uid" --clear-groups "$@"
}
cleanup() {
    for pid in $pids; do
        kill "$pid" 2>/dev/null
    done
    wait 2>/dev/null
}
trap cleanup EXIT

mkdir -p "$t"
# The bus refuses a uid NSS does not know: give 1000 and 1001 a passwd
# entry in the guest alone (a bind mount over the host's file, in the
# guest's own mount table).
cp /etc/passwd "$t/passwd"
cp /etc/group "$t/group"
for id in 1000 1001; do
    getent passwd "$id" > /dev/null || echo "quota$id:x:$id:$id::/nonexistent:/usr/sbin/nologin" >> "$t/passwd"
    getent group "$id" > /dev/null || echo "quota$id:x:$id:" >> "$t/group"
done
mount --bind "$t/passwd" /etc/passwd
mount --bind "$t/group" /etc/group

for label in appA appB appS quota-svc; do
    load_rule "$label" System w
    load_rule System "$label" w
done
load_rule appA quota-svc w
load_rule quota-svc appA w
load_rule appB quota-svc w
load_rule quota-svc appB w
load_rule appA appS w

cat > "$t/appB.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<aegis>
  <provide>
    <dbus name="org.mssf.QuotaB" own="SELF" bus="system"/>
  </provide>
</aegis>
EOF
export MSSF_MANIFEST_DIR=$t/manifests MSSF_ORIGIN_DIR=$t/origins MSSF_POLICY_DB=$t/policy.db \
    MSSF_RULES_DIR=$t/accesses.d MSSF_LOCK_FILE=$t/lock
"$policy_tool" install --no-reload appB "$t/appB.xml" > "$t/install.out" 2>&1 ||
    { cat "$t/install.out"; echo "installing appB failed"; exit 1; }

# Debian's system.conf policy, with holes for the test's names; no <limit>.
cat > "$t/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$t/sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
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
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"
          send_member="UpdateActivationEnvironment"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Debug.Stats"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.systemd1.Activator"/>
  </policy>
  <policy user="root">
    <allow send_destination="org.freedesktop.DBus" send_interface="org.mssf.Broker1"/>
  </policy>
  <policy context="default">
    <allow own="org.mssf.QuotaSvc"/>
    <allow own="org.mssf.QuotaSink"/>
    <allow own="org.mssf.QuotaB"/>
    <allow own_prefix="org.mssf.QuotaA"/>
    <allow send_destination="org.mssf.QuotaSvc"/>
  </policy>
</busconfig>
EOF
address=unix:path=$t/sock

# start_bus NAME CMD...: the bus, labelled System as on a device; its log in $t/NAME.log.
start_bus() {
    log=$t/$1.log
    shift
    rm -f "$t/sock" "$t/bus.out"
    (echo System > /proc/self/attr/current && exec "$@" --config-file="$t/bus.conf" --nofork \
        --print-address) > "$t/bus.out" 2> "$log" &
    bus_pid=$!
    pids="$pids $bus_pid"
    wait_for "$t/bus.out" unix: 10 || { cat "$log"; echo "the bus did not start"; exit 1; }
}
stop_bus() {
    kill "$bus_pid" 2>/dev/null
    wait "$bus_pid" 2>/dev/null
}
# bg LABEL UID OUT MODE: an app in the background; its pid in last_pid
# (smack-helper and setpriv exec it: the pid is the app's).
bg() {
    # Gone before the app starts: waiting for its "holding" must not find the last one's.
    rm -f "$3"
    "$helper" run "$1" setpriv --reuid "$2" --regid "$2" --clear-groups /usr/bin/python3 "$app" "$4" \
        "$address" > "$3" 2>&1 &
    last_pid=$!
    pids="$pids $last_pid"
}

# service_settles NAME: the service answers in order, and any bus hands
# it A's calls before B's: wait (at most 30 s) until it has answered what
# it was given (no new answer for a second), so that B's second measures
# B's service, not the service's work on A's 1 MiB calls. The same for
# both buses: one whose service is stalled settles at once.
service_settles() {
    before=-1 n=0
    while [ "$n" -lt 30 ]; do
        now=$(wc -l < "$t/svc.out")
        [ "$now" = "$before" ] && break
        before=$now
        sleep 1
        n=$((n + 1))
    done
    echo "# $1, A replies: the service had answered $(grep -c '^echoed' "$t/svc.out") calls, settled after about $n s"
}

# run_daemon NAME MUST: the four misbehaviours against one bus; MUST=1:
# B must be served each time, MUST=0: say what happened.
run_daemon() {
    name=$1 must=$2
    bg quota-svc 1001 "$t/svc.out" svc
    wait_for "$t/svc.out" '^(ready|refused)' 20 || { cat "$t/svc.out"; echo "$name: no service"; exit 1; }
    for mode in connections matches pending replies names; do
        mode_start=$(date +%s)
        sink_pid=""
        if [ "$mode" = replies ]; then
            bg appS 1000 "$t/sink.out" sink
            sink_pid=$last_pid
            wait_for "$t/sink.out" '^holding' 20 || not_ok "$name: the sink did not start: $(cat "$t/sink.out")"
        fi
        bg appA 1000 "$t/a.out" "$mode"
        a_pid=$last_pid
        if ! wait_for "$t/a.out" '^holding' 60; then
            if [ "$must" = 1 ]; then not_ok "$name, A $mode: A did not finish: $(cat "$t/a.out")"
            else echo "# $name, A $mode: A did not finish: $(cat "$t/a.out")"; fi
        fi
        echo "# $name, A $mode: $(grep -v '^holding' "$t/a.out" | tr '\n' ' ')"
        [ "$mode" = replies ] && service_settles "$name"
        b_out=$(as appB 1000 timeout 20 /usr/bin/python3 "$app" b "$address" 2>&1)
        b_rc=$?
        if [ "$must" = 1 ]; then
            if [ "$b_rc" = 0 ]; then ok "$name, A $mode: B $b_out"; else not_ok "$name, A $mode: B $b_out"; fi
        else
            echo "# $name, A $mode: B $b_out (for comparison, not required)"
        fi
        kill $a_pid $sink_pid 2>/dev/null
        wait $a_pid $sink_pid 2>/dev/null
        echo "# $name, A $mode: $(($(date +%s) - mode_start)) s"
        sleep 0.3
    done
}

start=$(date +%s)
start_bus mssf-broker "$broker" --policy="$t/policy.db"
run_daemon mssf-broker 1
# B connected, so that GetStats has its label to show.
bg appB 1000 "$t/b-idle.out" idle
wait_for "$t/b-idle.out" '^holding' 20 || not_ok "B did not connect: $(cat "$t/b-idle.out")"
stats=$(timeout 20 /usr/bin/python3 "$app" stats "$address" 2>&1)
echo "$stats" | sed 's/^/# GetStats: /'
a_stats=$(echo "$stats" | grep ' Label=appA ')
has "GetStats: A refused connections" 'Refused:Connections=[1-9]' "$a_stats"
has "GetStats: A refused match rules" 'Refused:MatchRules=[1-9]' "$a_stats"
has "GetStats: A refused names" 'Refused:Names=[1-9]' "$a_stats"
has "GetStats: A refused pending replies" 'Refused:PendingReplies=[1-9]' "$a_stats"
has "GetStats: A refused queued bytes" 'Refused:QueuedBytes=[1-9]' "$a_stats"
has "GetStats: nothing refused to B" 'Refused:Connections=0 .*Refused:MatchRules=0 Refused:Names=0 Refused:PendingReplies=0 Refused:QueuedBytes=0 Refused:QueuedFds=0' \
    "$(echo "$stats" | grep ' Label=appB ')"
for limit in connections match_rules names replies queued_bytes; do
    lines=$(grep -c "Label \"appA\" (uid 1000) is at its limit max_${limit}_per_label" "$t/mssf-broker.log")
    if [ "$lines" = 1 ]; then ok "one log line for appA at max_${limit}_per_label"
    else not_ok "$lines log lines for appA at max_${limit}_per_label"; fi
done
has "no log line about B" '^0$' "$(grep -c 'Label "appB"' "$t/mssf-broker.log")"
cleanup
pids=""
echo "# mssf-broker: $(($(date +%s) - start)) s"

start=$(date +%s)
if [ -x /usr/bin/dbus-daemon ]; then
    start_bus dbus-daemon /usr/bin/dbus-daemon
    run_daemon dbus-daemon 0
    stop_bus
    echo "# dbus-daemon: $(($(date +%s) - start)) s"
else
    echo "# dbus-daemon is not installed: no comparison"
fi

if [ "$failures" != 0 ]; then
    echo "# mssf-broker's log:"
    tail -n 30 "$t/mssf-broker.log" | sed 's/^/#   /'
fi
echo "# $failures failure(s)"
[ "$failures" = 0 ]
