#!/bin/sh
# mssf-policy scaffold --dest against real Debian services running on
# mssf-broker as a private system bus (systemd-hostnamed, upowerd,
# polkitd; each one that is installed):
#  - scaffold --dest walks the object tree and writes the same manifest as
#    scaffold --xml over what busctl reads from each object, on the system
#    bus (DBUS_SYSTEM_BUS_ADDRESS) and with --address;
#  - mssf-policy check accepts it; check --dest finds it complete;
#  - compiled and loaded by a second mssf-broker (no Smack on the host, so
#    every token requirement denies): the service's guarded methods and
#    properties are refused, Introspect and Peer answered.
# Exits 77 (skip) when none of the services is installed.
#   test-scaffold-live.sh MSSF_POLICY MSSF_BROKER SOURCE_DIR
set -u
tool=$1
broker=$2
src=$3
dir=$(mktemp -d /tmp/scaffold-live-XXXXXX)
chmod 755 "$dir"   # polkitd connects as user polkitd
failures=0
. "$src/services.sh"
trap 'services_cleanup; [ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failures=$((failures + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi; }
has() { if printf '%s\n' "$3" | grep -Eq -- "$2"; then ok "$1"; else not_ok "$1: no /$2/ in: $3"; fi; }
# The manifest without its comment (which names the source).
body() { sed '/^<!--$/,/^-->$/d' "$1"; }

mkdir -p "$dir/bus"
start_bus "$broker" "$dir/bus" || { echo "the bus did not start"; exit 1; }
address=$DBUS_SYSTEM_BUS_ADDRESS
tested=""
for name in org.freedesktop.hostname1 org.freedesktop.UPower org.freedesktop.PolicyKit1; do
    start_service "$name"
    case $? in
    1) echo "ok - # SKIP $name: $(service_binary "$name") is not installed"; continue ;;
    2) not_ok "$name did not start"; continue ;;
    esac
    tested="$tested $name"
    m=$dir/$name.xml
    out=$("$tool" scaffold --dest "$name" --name "$name" --token Tok 2>&1 > "$m")
    check "$name: scaffold --dest on the system bus" 0 "$?"
    "$tool" scaffold --dest "$name" --address "$address" --name "$name" --token Tok > "$dir/$name-address.xml" 2>&1
    check "$name: ... and with --address, the same" "$(body "$m")" "$(body "$dir/$name-address.xml")"
    capture "$name" "$dir/$name-objects"
    "$tool" scaffold $(for f in "$dir/$name-objects"/*.xml; do printf -- '--xml %s ' "$f"; done) \
        --name "$name" --token Tok > "$dir/$name-files.xml" 2>&1
    check "$name: ... and from busctl's introspection, the same" "$(body "$m")" "$(body "$dir/$name-files.xml")"
    check "$name: every object busctl lists (those without an interface answer Introspect)" \
        "$(ls "$dir/$name-objects"/*.xml | wc -l)" "$(grep -c '<node name=' "$m")"
    cp "$m" "$dir/svc.xml"
    out=$("$tool" check "$dir/svc.xml" 2>&1)
    check "$name: mssf-policy check accepts it" 0 "$?"
    out=$("$tool" check "$dir/svc.xml" --dest "$name" 2>&1)
    check "$name: check --dest: complete" 0 "$?"
    has "$name: ... says so" "covers everything $name offers" "$out"
done
[ -n "$tested" ] || { echo "none of the services is installed"; exit 77; }

# ---- the manifests, enforced by the bus ---------------------------------------
services_cleanup
pids=""
root=$dir/root
for name in $tested; do
    out=$("$tool" install --root "$root" --no-kernel --no-reload --origin system "pkg-$(echo "$name" | tr . -)" "$dir/$name.xml" 2>&1) ||
        not_ok "$name: install: $out"
done
mkdir -p "$dir/bus2"
start_bus "$broker" "$dir/bus2" "$root/var/lib/mssf/policy.db" || { echo "the second bus did not start"; exit 1; }
for name in $tested; do
    # Without Smack there are no labels: owning the declared name is busconfig's business only.
    start_service "$name" || { not_ok "$name did not start under the policy"; continue; }
    case $name in
    org.freedesktop.hostname1) path=/org/freedesktop/hostname1 iface=org.freedesktop.hostname1 prop=Hostname ;;
    org.freedesktop.UPower) path=/org/freedesktop/UPower iface=org.freedesktop.UPower prop=DaemonVersion ;;
    org.freedesktop.PolicyKit1) path=/org/freedesktop/PolicyKit1/Authority iface=org.freedesktop.PolicyKit1.Authority prop=BackendName ;;
    esac
    has "$name: Introspect is open" "<interface name=\"$iface\">" \
        "$(busctl --system introspect --xml-interface "$name" "$path" 2>&1)"
    busctl --system call "$name" "$path" org.freedesktop.DBus.Peer Ping > /dev/null 2>&1
    check "$name: Peer.Ping is open" 0 "$?"
    has "$name: reading $prop is refused" "Access denied" \
        "$(busctl --system get-property "$name" "$path" "$iface" "$prop" 2>&1)"
    has "$name: ... by the manifest's token (no Smack: nobody holds it)" \
        "lacks token \"pkg-[^\"]*::Tok\" required by $name for property $iface\\.$prop \\(Properties\\.Get\\)" \
        "$(cat "$dir/bus2/bus.log")"
done

if [ "$failures" -ne 0 ]; then
    echo "$failures failed"
    exit 1
fi
echo "all passed"
