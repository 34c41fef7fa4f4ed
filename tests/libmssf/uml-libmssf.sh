#!/bin/sh
# libmssf and org.mssf.Broker1.CheckToken under real Smack (one UML boot):
#   uml-run uml-libmssf.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER LIBMSSF_PROBE DATA_DIR
# mssf-policy installs the test packages (data/: probe provides read and
# work (checkorigin) and guards methods with Cellular and Location;
# holder, of origin system, is granted both and Cellular; reader, of no
# origin, only probe::read), mssf-broker runs as
# the system bus with the compiled policy, and libmssf-probe serves under
# the label probe, once with GDBus and once with sd-bus. Real clients
# (gdbus, busctl) call it under app labels; the probe asks libmssf about
# them in every form, and the reply carries libmssf's answer.
#  - the holder's tokens are held; the reader holds read, not work (a
#    plain "no", not an error); bare names resolve as probe's manifest
#    would (read is probe::read, Cellular the global one); a token probe
#    neither provides nor guards is not its to ask (AccessDenied);
#  - a revocation written to load2 is seen by the next question, on the
#    same connections, with no reload; granting again is seen too;
#  - a connection that may not reach the probe is not the probe's to ask
#    about (AccessDenied); root's floor label holds nothing;
#  - CheckToken asked directly: about oneself answered; another connection
#    of the same label, whose package provides and guards nothing, and a
#    caller with no Smack rule from the holder (the stranger, root's floor
#    label) are refused (AccessDenied).
set -u
broker=$1
policy_tool=$2
helper=$3
probe=$4
data=$5
t=/tmp/uml-libmssf
failures=0
pids=""

[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
[ -w /sys/fs/smackfs/load2 ] || { echo "smackfs not mounted"; exit 1; }

. "$(dirname "$0")/../lib/checks.sh"
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup EXIT
as() { label=$1; shift; timeout 20 "$helper" run "$label" "$@" 2>&1; }
# ask LABEL DEST METHOD ARGS...: the probe's (held, error) answer, as gdbus prints it.
ask() {
    label=$1 dest=$2 method=$3
    shift 3
    as "$label" gdbus call --system --timeout 10 --dest "$dest" --object-path /org/mssf/Probe \
        --method "org.mssf.Probe.$method" "$@"
}
# serve LABEL BINDING NAME: a probe labelled LABEL; its unique name in $unique.
serve() {
    timeout 120 "$helper" run "$1" "$probe" "$2" "$3" > "$t/$3.out" 2>&1 &
    pids="$pids $!"
    wait_for "$t/$3.out" "^ready $3 " 15 || { not_ok "$3 did not start"; exit 1; }
    unique=$(awk '/^ready/ { print $3 }' "$t/$3.out")
}

mkdir -p "$t"
export MSSF_MANIFEST_DIR=$t/manifests MSSF_ORIGIN_DIR=$t/origins MSSF_POLICY_DB=$t/policy.db
export MSSF_RULES_DIR=$t/accesses.d MSSF_LOCK_FILE=$t/lock
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$t/system_bus_socket
unset DBUS_SESSION_BUS_ADDRESS DBUS_STARTER_ADDRESS DBUS_STARTER_BUS_TYPE MSSF_DEVICE_POLICY
for label in probe holder reader stranger _; do
    load_rule "$label" System w
    load_rule System "$label" w
done
"$policy_tool" install --no-reload probe "$data/probe.xml" > "$t/install.log" 2>&1 &&
    "$policy_tool" install --no-reload --origin system holder "$data/holder.xml" >> "$t/install.log" 2>&1 &&
    "$policy_tool" install --no-reload reader "$data/reader.xml" >> "$t/install.log" 2>&1 ||
    { cat "$t/install.log"; echo "mssf-policy install failed"; exit 1; }
check "kernel: holder holds probe::work" 1 "$("$helper" access holder probe::work w)"
check "kernel: reader holds probe::read" 1 "$("$helper" access reader probe::read w)"
check "kernel: reader does not hold probe::work" 0 "$("$helper" access reader probe::work w)"

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
    exec "$broker" --config-file="$t/bus.conf" --policy="$t/policy.db" --nofork --print-address) \
    > "$t/bus.out" 2> "$t/bus.log" &
pids="$pids $!"
wait_for "$t/bus.out" unix: 10 || { cat "$t/bus.log"; echo "the bus did not start"; exit 1; }

serve probe gio org.mssf.Probe.Gio
serve probe sd-bus org.mssf.Probe.SdBus

# ---- answers, every form, both bindings ------------------------------------
for dest in org.mssf.Probe.Gio org.mssf.Probe.SdBus; do
    for method in Check CheckSync; do
        check "$dest $method: holder holds read (probe::read)" "(true, '')" "$(ask holder "$dest" "$method" read)"
        check "$dest $method: holder holds work" "(true, '')" "$(ask holder "$dest" "$method" work)"
        check "$dest $method: holder holds probe::work, named in full" "(true, '')" \
            "$(ask holder "$dest" "$method" probe::work)"
        check "$dest $method: holder holds the global Cellular" "(true, '')" \
            "$(ask holder "$dest" "$method" Cellular)"
        check "$dest $method: holder does not hold Location" "(false, '')" \
            "$(ask holder "$dest" "$method" Location)"
        check "$dest $method: reader holds read" "(true, '')" "$(ask reader "$dest" "$method" read)"
        check "$dest $method: reader does not hold work (an answer, not an error)" "(false, '')" \
            "$(ask reader "$dest" "$method" work)"
        # A bare name that is not probe's own is the global token of that name, and
        # probe may ask about it only if it guards it.
        has "$dest $method: 'nothing' is not probe's to ask about" \
            "^\(false, '.*AccessDenied: .*only for a token its package provides or guards; whether \":1\.[0-9]+\" holds nothing is not its to ask" \
            "$(ask holder "$dest" "$method" nothing)"
    done
done
has "busctl as reader: read held" '^bs true ""' \
    "$(as reader busctl --system call org.mssf.Probe.SdBus /org/mssf/Probe org.mssf.Probe Check s read)"
# Root's label "_" may reach the probe (a device maker's rule), and holds no token.
load_rule _ probe w
load_rule probe _ w
has "root's floor label holds nothing" "^\(false, ''\)" \
    "$(gdbus call --system --dest org.mssf.Probe.Gio --object-path /org/mssf/Probe --method org.mssf.Probe.Check read 2>&1)"

# ---- by name, on long-lived connections: revocation seen at once ------------
serve holder gio org.mssf.Probe.Holder
holder_unique=$unique
serve stranger gio org.mssf.Probe.Stranger
stranger_unique=$unique
for dest in org.mssf.Probe.Gio org.mssf.Probe.SdBus; do
    for method in CheckName CheckNameSync; do
        check "$dest $method: the holder's connection holds work" "(true, '')" \
            "$(ask reader "$dest" "$method" "$holder_unique" work)"
        has "$dest $method: the stranger's connection is not the probe's to ask about" \
            "AccessDenied: .*may ask CheckToken only about itself" \
            "$(ask reader "$dest" "$method" "$stranger_unique" read)"
    done
done
# The bus method itself, asked directly (gdbus, no libmssf).
driver_ask() {
    as "$1" gdbus call --system --timeout 10 --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.mssf.Broker1.CheckToken "$2" "$3"
}
# self_ask LABEL TOKEN: a connection labelled LABEL asks about itself (python3-dbus knows its unique name).
self_ask() {
    as "$1" /usr/bin/python3 -c '
import sys, dbus
bus = dbus.SystemBus()
broker = dbus.Interface(bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"), "org.mssf.Broker1")
try:
    print(bool(broker.CheckToken(bus.get_unique_name(), sys.argv[1])))
except dbus.DBusException as e:
    print("error %s: %s" % (e.get_dbus_name(), e.get_dbus_message()))' "$2"
}
check "CheckToken: holder about itself, probe::work" True "$(self_ask holder probe::work)"
check "CheckToken: a bare name is the asker's package's own or global: 'work' is not probe's for holder" \
    False "$(self_ask holder work)"
# Another connection of the holder's label is not the holder's probe: its package provides and guards nothing.
has "CheckToken: another holder connection about the holder's probe is refused" \
    "AccessDenied: .*may ask CheckToken only about itself" "$(driver_ask holder "$holder_unique" probe::work)"
# A caller with no Smack rule to or from the holder learns nothing about it.
has "CheckToken: the stranger (no Smack rule with holder) is refused" \
    "AccessDenied: .*may ask CheckToken only about itself" "$(driver_ask stranger "$holder_unique" probe::work)"
has "CheckToken: root's floor label (no rule from holder) is refused" \
    "AccessDenied: .*may ask CheckToken only about itself" \
    "$(gdbus call --system --timeout 10 --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
       --method org.mssf.Broker1.CheckToken "$holder_unique" probe::work 2>&1)"
load_rule holder probe::work -
check "kernel: work revoked from holder" 0 "$("$helper" access holder probe::work w)"
for dest in org.mssf.Probe.Gio org.mssf.Probe.SdBus; do
    for method in CheckName CheckNameSync; do
        check "$dest $method: revoked, and the next question says so" "(false, '')" \
            "$(ask reader "$dest" "$method" "$holder_unique" work)"
        check "$dest $method: read is still held" "(true, '')" \
            "$(ask reader "$dest" "$method" "$holder_unique" read)"
    done
done
load_rule holder probe::work w
check "granted again: held again" "(true, '')" "$(ask reader org.mssf.Probe.SdBus CheckName "$holder_unique" work)"
# The holder's reach to the probe goes: not the probe's to ask about any more.
load_rule holder probe -
has "the holder's Smack rule to the probe revoked: AccessDenied" "AccessDenied" \
    "$(ask reader org.mssf.Probe.Gio CheckNameSync "$holder_unique" work)"
load_rule holder probe w
if grep -q eload "$t/bus.log"; then not_ok "the bus was reloaded"; else ok "no reload in between"; fi

if [ "$failures" -ne 0 ]; then
    echo "# bus log:"; tail -n 20 "$t/bus.log" | sed 's/^/#   /'
    echo "# $failures failure(s)"
    exit 1
fi
echo "# all passed"
