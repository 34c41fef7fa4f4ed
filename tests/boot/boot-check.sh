#!/bin/sh
# boot-check.sh BUS: the checks of the boot test, run inside the booted
# guest by boot-check.service (systemd is PID 1, the system bus is BUS:
# dbus-daemon, dbus-broker or mssf-broker, behind dbus.socket and
# dbus.service). Prints one "ok"/"not ok" line per check; exits 0 when all
# pass, 1 otherwise. See README.md.
set -u
bus=${1:?usage: boot-check.sh BUS}
failures=0
export SYSTEMD_PAGER= SYSTEMD_COLORS=0 LC_ALL=C.UTF-8

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failures=$((failures + 1)); }
check() { # check DESCRIPTION EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi
}
# until_true SECONDS CMD...: retry CMD every 0.2 s.
until_true() {
    local_n=$(( $1 * 5 ))
    shift
    while [ "$local_n" -gt 0 ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
        local_n=$((local_n - 1))
    done
    return 1
}
driver() { busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus "$@" 2>&1; }
boot() { busctl call org.mssf.BootTest /org/mssf/BootTest org.mssf.BootTest "$@" 2>&1; }
# A client as user tester (no CAP_MAC_OVERRIDE) with Smack label $1, started
# by systemd with SmackProcessLabel= like any unit.
as_client() {
    label=$1
    shift
    systemd-run --quiet --wait --pipe --collect -p User=tester \
        -p SmackProcessLabel="$label" "$@" 2>&1
}
# LinuxSecurityLabel out of a busctl GetConnectionCredentials reply.
creds_label() {
    awk '{ for (i = 1; i <= NF; i++) if ($i == "\"LinuxSecurityLabel\"" && $(i + 1) == "ay") {
               n = $(i + 2); s = ""
               for (j = 1; j <= n; j++) if ($(i + 2 + j) != 0) s = s sprintf("%c", $(i + 2 + j))
               print s; exit } }'
}
failed_units() { systemctl --failed --no-legend --plain 2>&1 | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//'; }

echo "# bus: $bus; systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p') as PID 1: $(cat /proc/1/comm)"
echo "# kernel: $(uname -r), LSM: $(cat /sys/kernel/security/lsm 2>/dev/null), PID 1 label: $(cat /proc/1/attr/current 2>/dev/null)"
echo "# PID 1: $(sed -n 's/^State:[[:space:]]*//p' /proc/1/status), wchan $(cat /proc/1/wchan 2>/dev/null); $(ls -l /run/systemd/private 2>&1)"
check "systemd is PID 1" systemd "$(cat /proc/1/comm)"
check "Smack is the LSM (smackfs mounted by systemd)" yes "$( [ -e /sys/fs/smackfs/load2 ] && echo yes || echo no)"
check "the root is a private tmpfs" tmpfs "$(stat -f -c %T /)"
check "/usr is read-only" ro "$( touch /usr/.boot-test 2>/dev/null && echo rw || echo ro)"

# ---- the boot ----
check "multi-user.target reached" active "$(systemctl is-active multi-user.target)"
check "no failed unit" "" "$(failed_units)"
check "dbus.socket active" active "$(systemctl is-active dbus.socket)"
check "dbus.service active" active "$(systemctl is-active dbus.service)"
main_pid=$(systemctl show -p MainPID --value dbus.service)
echo "# dbus.service: $(systemctl show -p Id,Names,ExecMainStartTimestamp --value dbus.service | tr '\n' ' '); main process: $(cat /proc/"$main_pid"/comm 2>/dev/null)"
case "$bus" in
dbus-daemon) expected_comm=dbus-daemon ;;
dbus-broker) expected_comm=dbus-broker-lau ;;
mssf-broker) expected_comm=mssf-broker ;;
esac
check "dbus.service runs $bus" "$expected_comm" "$(cat /proc/"$main_pid"/comm 2>/dev/null)"
check "systemd loaded /etc/smack/accesses.d" "BootClient BootService w" \
    "$(grep '^BootClient BootService ' /sys/fs/smackfs/load2 2>&1)"

# ---- busctl and systemctl over the system bus ----
id_reply=$(driver GetId)
case "$id_reply" in
's "'????????????????????????????????'"') ok "busctl: GetId ($id_reply)" ;;
*) not_ok "busctl: GetId: $id_reply" ;;
esac
names=$(busctl list --no-legend --acquired 2>&1 | awk '{ print $1 }' | tr '\n' ' ')
case " $names " in
*" org.freedesktop.systemd1 "*) ok "busctl list: PID 1 owns org.freedesktop.systemd1" ;;
*) not_ok "busctl list: no org.freedesktop.systemd1 among: $names" ;;
esac
# As root, systemctl talks to PID 1 over its private socket; any other user
# goes through the system bus to org.freedesktop.systemd1.
check "systemctl as tester (over the bus): multi-user.target" active \
    "$(setpriv --reuid=tester --regid=tester --init-groups systemctl is-active multi-user.target 2>&1)"
check "busctl get-property of PID 1 (Manager.Version)" \
    "s \"$(systemctl --version | sed -n '1s/^systemd [0-9]* (\(.*\))$/\1/p')\"" \
    "$(busctl get-property org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager Version 2>&1)"

# ---- bus activation through systemd (SystemdService=) ----
check "boot-service.service not running before the first call" inactive \
    "$(systemctl is-active boot-service.service)"
check "activation: Ping() starts org.mssf.BootTest" 's "pong"' "$(boot Ping)"
check "boot-service.service started by the activation" active "$(systemctl is-active boot-service.service)"
if ! systemctl is-active -q boot-service.service; then
        # So that the label checks below still say something of their own.
        echo "# activation did not start boot-service.service: starting it with systemctl"
        systemctl start boot-service.service
fi
service_pid=$(systemctl show -p MainPID --value boot-service.service)
check "the name's owner is the unit's main process" "u $service_pid" \
    "$(driver GetConnectionUnixProcessID s org.mssf.BootTest)"

# ---- labels from SmackProcessLabel=, as the bus reports them ----
check "boot-service runs labelled BootService (kernel)" BootService "$(cat /proc/"$service_pid"/attr/current 2>&1)"
check "GetConnectionCredentials(org.mssf.BootTest) LinuxSecurityLabel" BootService \
    "$(driver GetConnectionCredentials s org.mssf.BootTest | creds_label)"
check "the service reads its label" 's "BootService"' "$(boot Label)"
check "client as tester labelled BootClient: the service sees its LinuxSecurityLabel" 's "BootClient"' \
    "$(as_client BootClient busctl call org.mssf.BootTest /org/mssf/BootTest org.mssf.BootTest CallerLabel)"

# A label with no rule to BootService. dbus-daemon and dbus-broker do not
# mediate by Smack label; mssf-broker must deny (sender needs w to the
# receiver's label).
case "$bus" in
mssf-broker) expected_outsider="Error org.freedesktop.DBus.Error.AccessDenied" ;;
*) expected_outsider='string "pong"' ;;
esac
# dbus-send (libdbus) prints the error name, busctl only its errno text.
outsider=$(as_client Outsider dbus-send --system --print-reply --dest=org.mssf.BootTest \
    /org/mssf/BootTest org.mssf.BootTest.Ping | tr -s ' \n' ' ')
case "$outsider" in
*"$expected_outsider"*) ok "client labelled Outsider (no rule to BootService): $outsider" ;;
*) not_ok "client labelled Outsider (no rule to BootService): expected $expected_outsider, got: $outsider" ;;
esac

# ---- sd_notify and reload ----
# mssf-broker's STATUS= (dbus-daemon sends none): what systemctl status shows.
if [ "$bus" = mssf-broker ]; then
    status_text=$(systemctl show -p StatusText --value dbus.service)
    case "$status_text" in
    "Processing requests: "[0-9]*" connection"*", "[0-9]*" name"*) ok "dbus.service StatusText: $status_text" ;;
    *) not_ok "dbus.service StatusText: '$status_text'" ;;
    esac
fi
reload_out=$(systemctl reload dbus.service 2>&1)
check "systemctl reload dbus.service" "" "$reload_out"
check "the same bus after the reload" "$main_pid active" \
    "$(systemctl show -p MainPID --value dbus.service) $(systemctl is-active dbus.service)"
check "the bus answers after the reload" "$id_reply" "$(driver GetId)"

# ---- the bus comes back by socket activation after a stop ----
systemctl stop dbus.service
check "systemctl stop dbus.service: the bus is down" inactive "$(systemctl is-active dbus.service)"
check "dbus.socket still listening" active "$(systemctl is-active dbus.socket)"
new_id=$(driver GetId)
case "$new_id" in
"$id_reply") not_ok "socket activation: the same bus ID after a restart ($new_id)" ;;
's "'????????????????????????????????'"') ok "socket activation: a call brings a new bus ($new_id)" ;;
*) not_ok "socket activation: GetId: $new_id" ;;
esac
check "dbus.service active again" active "$(systemctl is-active dbus.service)"
new_pid=$(systemctl show -p MainPID --value dbus.service)
if [ "$new_pid" != "$main_pid" ] && [ "$new_pid" != 0 ]; then
    ok "a new bus process ($main_pid -> $new_pid)"
else
    not_ok "bus process $main_pid -> $new_pid"
fi
if until_true 10 sh -c 'busctl list --no-legend --acquired | grep -q "^org.freedesktop.systemd1 "'; then
    ok "PID 1 is back on the new bus"
else
    not_ok "PID 1 did not reconnect: $(busctl list --no-legend --acquired 2>&1 | tr '\n' ' ')"
fi
until_true 10 sh -c '! systemctl is-active -q boot-service.service'
check "activation again on the new bus" 's "pong"' "$(boot Ping)"
if ! systemctl is-active -q boot-service.service; then
        echo "# activation did not start boot-service.service: starting it with systemctl"
        systemctl start boot-service.service
fi
check "client labelled BootClient on the new bus" 's "BootClient"' \
    "$(as_client BootClient busctl call org.mssf.BootTest /org/mssf/BootTest org.mssf.BootTest CallerLabel)"
check "still no failed unit" "" "$(failed_units)"

if [ "$failures" != 0 ]; then
    echo "# $failures checks failed; journal of the boot:"
    journalctl -b --no-pager -o short-monotonic 2>&1 | tail -n 80 | sed 's/^/#   /'
    exit 1
fi
echo "# all checks passed"
exit 0
