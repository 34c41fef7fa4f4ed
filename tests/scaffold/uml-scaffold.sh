#!/bin/sh
# mssf-policy scaffold's round trip under real Smack (one UML boot):
#   uml-run uml-scaffold.sh MSSF_POLICY MSSF_BROKER SMACK_HELPER SOURCE_DIR
# For each real Debian service that is installed (systemd-hostnamed,
# upowerd, polkitd): scaffold --xml over what the service answered to
# Introspect (data/, captured with busctl, see services.sh) writes its
# manifest, with the package's own token Tok as every interface's
# default; mssf-policy installs it, plus two apps: holder (requests
# PKG::Tok of every service) and other (requests none, and reaches each
# service by a device maker's Smack rule). mssf-broker is
# the system bus with the compiled policy and the services run labelled
# as their packages. Then, under mediation by label:
#  - scaffold --dest, run by the app without the token, walks each
#    service's live object tree (Introspect is open to all), and check
#    --dest finds the installed manifest complete;
#  - holder reads a guarded property of each service; other is refused
#    it, for want of PKG::Tok; both may Introspect and Ping;
#  - Tok revoked from holder in load2: refused at once; granted: read.
set -u
tool=$1
broker=$2
helper=$3
src=$4
t=/tmp/uml-scaffold
failures=0
pids=""

[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
[ -w /sys/fs/smackfs/load2 ] || { echo "smackfs not mounted"; exit 1; }

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failures=$((failures + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi; }
has() { if printf '%s\n' "$3" | grep -Eq -- "$2"; then ok "$1"; else not_ok "$1: no /$2/ in: $3"; fi; }
lacks() { if printf '%s\n' "$3" | grep -Eq -- "$2"; then not_ok "$1: /$2/ in: $3"; else ok "$1"; fi; }
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup EXIT
load_rule() { printf '%s %s %s' "$1" "$2" "$3" > /sys/fs/smackfs/load2; }
as() { label=$1; shift; timeout 20 "$helper" run "$label" "$@" 2>&1; }

# The services: bus name, binary, package (its label), an object, an interface, a property.
services() {
    cat <<EOF
org.freedesktop.hostname1 /lib/systemd/systemd-hostnamed hostnamed /org/freedesktop/hostname1 org.freedesktop.hostname1 Hostname
org.freedesktop.UPower /usr/libexec/upowerd upower /org/freedesktop/UPower org.freedesktop.UPower DaemonVersion
org.freedesktop.PolicyKit1 /usr/lib/polkit-1/polkitd polkit /org/freedesktop/PolicyKit1/Authority org.freedesktop.PolicyKit1.Authority BackendName
EOF
}

mkdir -p "$t"
chmod 755 "$t"   # polkitd connects as user polkitd
export MSSF_MANIFEST_DIR=$t/manifests MSSF_ORIGIN_DIR=$t/origins MSSF_POLICY_DB=$t/policy.db
export MSSF_RULES_DIR=$t/accesses.d MSSF_LOCK_FILE=$t/lock
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$t/system_bus_socket
unset DBUS_SESSION_BUS_ADDRESS DBUS_STARTER_ADDRESS DBUS_STARTER_BUS_TYPE MSSF_DEVICE_POLICY

# ---- scaffold --xml over each service's captured data; install -------------
tested="" request=""
while read -r name binary package path iface prop; do
    if [ ! -x "$binary" ]; then
        echo "ok - # SKIP $name: $binary is not installed"
        continue
    fi
    "$tool" scaffold --name "$name" --token Tok \
        $(for f in "$src/data/$name"/*.xml; do printf -- '--xml %s ' "$f"; done) > "$t/$package.xml" 2> "$t/scaffold.err"
    check "$name: scaffold --xml over its captured introspection" 0 "$?"
    # The platform's services: the system origin, to whom org.freedesktop.* is reserved.
    out=$("$tool" install --no-reload --origin system "$package" "$t/$package.xml" 2>&1)
    status=$?
    [ "$status" -eq 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
    check "$name: the scaffolded manifest installs" 0 "$status"
    tested="$tested $name"
    request="$request<credential name=\"$package::Tok\"/>"
done <<EOF
$(services)
EOF
[ -n "$tested" ] || { echo "none of the services is installed"; exit 77; }
printf '<aegis><request>%s</request></aegis>\n' "$request" > "$t/holder-manifest.xml"
printf '<aegis><request><credential name="Cellular"/></request></aegis>\n' > "$t/other-manifest.xml"
out=$("$tool" install --no-reload holder "$t/holder-manifest.xml" 2>&1) && \
    out=$("$tool" install --no-reload other "$t/other-manifest.xml" 2>&1)
check "the apps install" 0 "$?"
for label in hostnamed upower polkit holder other; do
    load_rule "$label" System w
    load_rule System "$label" w
done
# Before other may reach a service, a device maker's rule: reach, not the token.
for label in hostnamed upower polkit; do
    has "other may not reach $label without a rule" "^0" "$("$helper" access other "$label" w)"
    load_rule other "$label" w
    load_rule "$label" other w
done

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
n=100
until grep -q unix: "$t/bus.out" 2>/dev/null || [ "$n" -eq 0 ]; do sleep 0.1; n=$((n - 1)); done
grep -q unix: "$t/bus.out" || { cat "$t/bus.log"; echo "the bus did not start"; exit 1; }

# ---- the services under their labels; the manifests enforced ----------------
while read -r name binary package path iface prop; do
    case " $tested " in *" $name "*) ;; *) continue ;; esac
    SYSTEMD_LOG_TARGET=console timeout 120 "$helper" run "$package" "$binary" > "$t/$package.log" 2>&1 &
    pids="$pids $!"
    n=100
    until timeout 5 busctl --system list 2>/dev/null | grep -q "^$name " || [ "$n" -eq 0 ]; do
        sleep 0.1
        n=$((n - 1))
    done
    if [ "$n" -eq 0 ]; then
        not_ok "$name did not appear on the bus under label $package"
        sed 's/^/#   /' "$t/$package.log"
        timeout 5 busctl --system list 2>&1 | sed 's/^/#   /'
        tail -n 10 "$t/bus.log" | sed 's/^/#   /'
        continue
    fi
    ok "$name runs labelled $package and owns its name"

    # The walk, by an app that holds none of the service's tokens.
    live=$(as other "$tool" scaffold --dest "$name" --name "$name" --token Tok)
    check "$name: scaffold --dest, run as other, walks the live tree" 0 "$?"
    check "$name: ... and finds every object of the captured data" \
        "$(grep -c '<node name=' "$t/$package.xml")" "$(printf '%s\n' "$live" | grep -c '<node name=')"
    out=$(as other "$tool" check "$t/$package.xml" --dest "$name")
    check "$name: check --dest: the installed manifest is complete" 0 "$?"
    has "$name: ... says so" "covers everything $name offers" "$out"

    has "$name: holder reads $prop (holds $package::Tok)" "^[a-z]+ " \
        "$(as holder busctl --system get-property "$name" "$path" "$iface" "$prop")"
    has "$name: other is refused $prop" "Access denied" \
        "$(as other busctl --system get-property "$name" "$path" "$iface" "$prop")"
    has "$name: ... for want of $package::Tok" \
        "label \"other\" lacks token \"$package::Tok\" required by $name for property $iface\\.$prop" "$(cat "$t/bus.log")"
    has "$name: other may Introspect" "<interface name=\"$iface\">" \
        "$(as other busctl --system introspect --xml-interface "$name" "$path")"
    as other busctl --system call "$name" "$path" org.freedesktop.DBus.Peer Ping > /dev/null 2>&1
    check "$name: other may Ping" 0 "$?"

    load_rule holder "$package::Tok" -
    has "$name: Tok revoked from holder: refused at once" "Access denied" \
        "$(as holder busctl --system get-property "$name" "$path" "$iface" "$prop")"
    load_rule holder "$package::Tok" w
    lacks "$name: granted again: read" "Access denied" \
        "$(as holder busctl --system get-property "$name" "$path" "$iface" "$prop")"
done <<EOF
$(services)
EOF

if [ "$failures" -ne 0 ]; then
    echo "# bus log:"; tail -n 20 "$t/bus.log" | sed 's/^/#   /'
    echo "# $failures failure(s)"
    exit 1
fi
echo "# all passed"
