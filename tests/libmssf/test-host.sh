#!/bin/sh
# libmssf on the host (no Smack), through libmssf-probe driven by gdbus and
# busctl, on the built mssf-broker as a system bus with system.conf's
# default policy plus the shipped org.mssf.Broker1.conf:
#  - every form of the question (GDBus and sd-bus; async and sync; the
#    caller of a call and a connection by name) answers "not held" with
#    SmackDisabled, never "held";
#  - the bus's who-may-ask rule (AccessDenied), a gone connection
#    (NameHasNoOwner), a POSIX credential (InvalidArgs from the bus), a
#    name libmssf refuses itself (InvalidArgs, nothing sent);
#  - the sd-bus errno for each (EOPNOTSUPP, EACCES, ENXIO, EINVAL);
#  - a service running as another uid may ask (org.mssf.Broker1.conf's
#    default-context allow), and a mandatory deny in busconfig closes
#    CheckToken (AccessDenied);
#  - on dbus-daemon the same calls say NotSupported.
#   test-host.sh MSSF_BROKER LIBMSSF_PROBE TEST_SOURCE_DIR DBUS_CONF_DIR
set -u
broker=$1
probe=$2
dbus_conf=$(cd "$4" && pwd)
dir=$(mktemp -d /tmp/libmssf-host-XXXXXX)
chmod 755 "$dir"
failures=0
pids=""

cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    [ -n "${KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT

. "$(dirname "$0")/../lib/checks.sh"

# A system bus as Debian's system.conf sets it up, listening in $dir.
# $1: the config file, $2: extra XML inside <busconfig>.
write_config() {
    cat > "$1" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus-$(basename "$1" .conf)</listen>
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
  </policy>
  <policy context="default">
    <allow own_prefix="org.mssf.Probe"/>
    <allow send_destination_prefix="org.mssf.Probe" send_interface="org.mssf.Probe"/>
  </policy>
  <include>$dbus_conf/org.mssf.Broker1.conf</include>
  $2
</busconfig>
EOF
}

# start_bus NAME DAEMON [EXTRA-XML]: the bus's address in $address.
start_bus() {
    write_config "$dir/$1.conf" "${3:-}"
    "$2" --config-file="$dir/$1.conf" --nofork --nopidfile --print-address > "$dir/$1.address" 2> "$dir/$1.log" &
    pids="$pids $!"
    wait_for "$dir/$1.address" '^unix:' || exit 1
    address=$(head -n 1 "$dir/$1.address")
}

# start_probe BINDING NAME [setpriv args...]: serves NAME; its unique name in $probe_unique.
start_probe() {
    binding=$1
    name=$2
    shift 2
    DBUS_SYSTEM_BUS_ADDRESS=$address "$@" "$probe" "$binding" "$name" > "$dir/$name.out" 2>&1 &
    pids="$pids $!"
    wait_for "$dir/$name.out" "^ready $name " || exit 1
    probe_unique=$(awk '/^ready/ { print $3 }' "$dir/$name.out")
}

# ask DEST METHOD ARGS...: the probe's answer, as gdbus prints it.
ask() {
    dest=$1
    method=$2
    shift 2
    DBUS_SYSTEM_BUS_ADDRESS=$address gdbus call --system --dest "$dest" --object-path /org/mssf/Probe \
        --method "org.mssf.Probe.$method" "$@" 2>&1
}

# The same through busctl, the other client.
ask_busctl() {
    dest=$1
    method=$2
    shift 2
    DBUS_SYSTEM_BUS_ADDRESS=$address busctl --system call "$dest" /org/mssf/Probe org.mssf.Probe "$method" "$@" 2>&1
}

# --- mssf-broker, no Smack on the host --------------------------------------
start_bus broker "$broker"
start_probe gio org.mssf.Probe.Gio
gio_unique=$probe_unique
start_probe sd-bus org.mssf.Probe.SdBus
sdbus_unique=$probe_unique

# gdbus prints a string in double quotes when it holds a single quote.
q="['\"]"
for dest in org.mssf.Probe.Gio org.mssf.Probe.SdBus; do
    stranger=$sdbus_unique
    [ "$dest" = org.mssf.Probe.SdBus ] && stranger=$gio_unique
    for method in Check CheckSync; do
        has "$dest $method: SmackDisabled, not held" \
            "^\(false, ${q}org\.mssf\.Broker1\.Error\.SmackDisabled: .*Smack is not enabled" \
            "$(ask "$dest" "$method" work)"
        # The bus refuses a POSIX credential.
        has "$dest $method UID::root: InvalidArgs from the bus" \
            "^\(false, ${q}org\.freedesktop\.DBus\.Error\.InvalidArgs: .*'UID::root' is a POSIX credential" \
            "$(ask "$dest" "$method" UID::root)"
    done
    # libmssf refuses a token with a space before asking: an error, or (sd-bus's
    # asynchronous form) -EINVAL and nothing sent.
    has "$dest CheckSync 'two words': InvalidArgs from libmssf" \
        "^\(false, ${q}org\.freedesktop\.DBus\.Error\.InvalidArgs: Cannot ask whether :1\.[0-9]+ holds \"two words\"" \
        "$(ask "$dest" CheckSync 'two words')"
    # By name: a connection that is not calling the probe is not the probe's to ask about.
    for method in CheckName CheckNameSync; do
        has "$dest $method about a stranger: AccessDenied" \
            "^\(false, ${q}org\.freedesktop\.DBus\.Error\.AccessDenied: .*may ask CheckToken only about itself" \
            "$(ask "$dest" "$method" "$stranger" work)"
        has "$dest $method about nobody: NameHasNoOwner" \
            "^\(false, ${q}org\.freedesktop\.DBus\.Error\.NameHasNoOwner: .*no such name" \
            "$(ask "$dest" "$method" :1.9999 work)"
    done
    has "$dest CheckNameSync about a well-known name: InvalidArgs from libmssf" \
        "^\(false, ${q}org\.freedesktop\.DBus\.Error\.InvalidArgs: Cannot ask whether \"org\.mssf\.Probe\.Gio\"" \
        "$(ask "$dest" CheckNameSync org.mssf.Probe.Gio work)"
done
has "gio Check 'two words': InvalidArgs from libmssf, from the main loop" \
    "^\(false, ${q}org\.freedesktop\.DBus\.Error\.InvalidArgs: Cannot ask whether :1\.[0-9]+ holds \"two words\"" \
    "$(ask org.mssf.Probe.Gio Check 'two words')"
has "sd-bus async 'two words': -EINVAL, nothing sent" "^\(false, 'org\.mssf\.Probe\.NotSent: not sent \[errno 22\]'\)" \
    "$(ask org.mssf.Probe.SdBus Check 'two words')"
has "sd-bus async about a well-known name: -EINVAL, nothing sent" "\[errno 22\]'\)" \
    "$(ask org.mssf.Probe.SdBus CheckName org.mssf.Probe.Gio work)"
# Each probe about itself: allowed, and no Smack.
has "gio CheckName about itself: SmackDisabled" "org\.mssf\.Broker1\.Error\.SmackDisabled" \
    "$(ask org.mssf.Probe.Gio CheckName "$gio_unique" work)"
# sd-bus's errno for each error.
has "sd-bus: EOPNOTSUPP for SmackDisabled" "SmackDisabled: .*\[errno 95\]'\)" "$(ask org.mssf.Probe.SdBus Check work)"
has "sd-bus: EACCES for AccessDenied" "AccessDenied: .*\[errno 13\]'\)" \
    "$(ask org.mssf.Probe.SdBus CheckNameSync "$gio_unique" work)"
has "sd-bus: ENXIO for NameHasNoOwner" "NameHasNoOwner: .*\[errno 6\]$q\)" \
    "$(ask org.mssf.Probe.SdBus CheckName :1.9999 work)"
has "sd-bus: EINVAL for a bad token" "InvalidArgs: .*\[errno 22\]$q\)" \
    "$(ask org.mssf.Probe.SdBus CheckSync UID::root)"
has "busctl client: the same answer" '^bs false "org\.mssf\.Broker1\.Error\.SmackDisabled: ' \
    "$(ask_busctl org.mssf.Probe.SdBus Check s work)"

# A service of another uid: org.mssf.Broker1.conf lets it ask (the answer is SmackDisabled, not AccessDenied).
start_probe gio org.mssf.Probe.Nobody setpriv --reuid=65534 --regid=65534 --clear-groups
has "a service as uid 65534 may call CheckToken" "^\(false, ${q}org\.mssf\.Broker1\.Error\.SmackDisabled: " \
    "$(ask org.mssf.Probe.Nobody Check work)"

# --- busconfig closes CheckToken ------------------------------------------------
start_bus closed "$broker" '<policy context="mandatory">
    <deny send_destination="org.freedesktop.DBus" send_interface="org.mssf.Broker1" send_member="CheckToken"/>
  </policy>'
start_probe sd-bus org.mssf.Probe.Closed
has "busconfig's mandatory deny: AccessDenied" \
    "^\(false, 'org\.freedesktop\.DBus\.Error\.AccessDenied: .*\[errno 13\]'\)" \
    "$(ask org.mssf.Probe.Closed Check work)"

# --- dbus-daemon: no such method ------------------------------------------------
if [ -x /usr/bin/dbus-daemon ]; then
    start_bus reference /usr/bin/dbus-daemon
    start_probe gio org.mssf.Probe.RefGio
    start_probe sd-bus org.mssf.Probe.RefSdBus
    # dbus-daemon's system policy refuses the unknown interface first unless Broker1.conf allows it: it does.
    has "dbus-daemon, GDBus: NotSupported" \
        "^\(false, 'org\.freedesktop\.DBus\.Error\.NotSupported: .*not mssf-broker" \
        "$(ask org.mssf.Probe.RefGio Check work)"
    has "dbus-daemon, sd-bus: NotSupported, EPROTONOSUPPORT" \
        "^\(false, 'org\.freedesktop\.DBus\.Error\.NotSupported: .*\[errno 93\]'\)" \
        "$(ask org.mssf.Probe.RefSdBus CheckSync work)"
else
    echo "ok - # SKIP dbus-daemon is not installed"
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures failed"
    exit 1
fi
echo "all passed"
