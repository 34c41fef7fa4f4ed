#!/bin/sh
# Inside the user-mode-linux guest (test-kernel.sh): apt-get installs the
# test packages into a Debian root on the guest's tmpfs with the kernel's
# smackfs, and real Smack decides.
#   guest-kernel.sh HERE WORK ROOT_TARBALL E2E_HELPER SMACK_HELPER
set -u
here=$1
work=$2
roottar=$3
helper=$4
smack_helper=$5
[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }

fail_now() {
    echo "not ok - $1"
    exit 1
}
. "$here/lib.sh"

bus_pid=
service_pid=
cleanup() {
    [ -n "$service_pid" ] && kill "$service_pid" 2>/dev/null
    [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null
    wait 2>/dev/null
}
trap cleanup EXIT

# The root on tmpfs (hostfs has no xattrs), the kernel's smackfs inside it.
root=/run/mssf-root
mkdir -p "$root"
tar -C "$root" -xf "$roottar" || fail_now "cannot unpack the Debian root"
mount -t proc proc "$root/proc" || fail_now "mount proc"
mkdir -p "$root/sys/fs/smackfs"
mount --bind /sys/fs/smackfs "$root/sys/fs/smackfs" || fail_now "bind smackfs"
cp -a "$work/stage/." "$root/"
chmod 1777 "$root/tmp"  # the stage's tmp has another mode; apt's _apt writes here
mkdir -p "$root/run/dbus"  # the bus's socket directory (setup_root makes it on the host)
rm -f "$root/etc/apt/sources.list"
inroot sh -c 'dpkg -i /tmp/debs/*.deb' >"$work/dpkg-i.log" 2>&1 ||
    { cat "$work/dpkg-i.log"; fail_now "installing mssf-policy and mssf-broker"; }

load_rule() { printf '%s %s %s' "$1" "$2" "$3" >/sys/fs/smackfs/load2; }
for label in mssf-test-svc mssf-test-app mssf-test-store-app; do
    load_rule "$label" System w
    load_rule System "$label" w
done
while read -r s o a; do load_rule "$s" "$o" "$a"; done <"$root/etc/smack/accesses.d/device-test"
access() { "$smack_helper" access "$1" "$2" "$3"; }

apt_in_root update || { cat "$work/apt.log"; fail_now "apt-get update"; }
apt_in_root install mssf-test-svc mssf-test-app mssf-test-store-app ||
    { cat "$work/apt.log"; fail_now "apt-get install"; }
check "the system app holds mssf-test-svc::Radio (access2)" 1 \
    "$(access mssf-test-app mssf-test-svc::Radio w)"
check "the store app does not" 0 "$(access mssf-test-store-app mssf-test-svc::Radio w)"
check "the store app holds Cellular" 1 "$(access mssf-test-store-app Cellular w)"
check "the app may reach the service, and back" "1 1" \
    "$(access mssf-test-app mssf-test-svc w) $(access mssf-test-svc mssf-test-app w)"
check "SMACK64EXEC of the app's binary" mssf-test-app \
    "$("$smack_helper" getxattr "$root/usr/bin/mssf-test-app" security.SMACK64EXEC)"
check "the binary runs with its package's label" mssf-test-app \
    "$(inroot /usr/bin/mssf-test-app | tr -d '\0\n')"

# The bus, labelled System as in tests/e2e, from the root's mssf-broker package.
(echo System >/proc/self/attr/current && exec chroot "$root" /usr/bin/env -i \
    PATH=/usr/bin:/bin mssf-broker --system --nofork --nopidfile --nosyslog) >"$work/bus.log" 2>&1 &
bus_pid=$!
i=0
while [ ! -S "$root/run/dbus/system_bus_socket" ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$root/run/dbus/system_bus_socket" ] || { cat "$work/bus.log"; fail_now "the bus did not start"; }
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$root/run/dbus/system_bus_socket
"$smack_helper" run mssf-test-svc "$helper" serve org.mssf.test.Radio >"$work/service.log" 2>&1 &
service_pid=$!
i=0
while ! grep -q "^ready" "$work/service.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check_grep "the service, labelled mssf-test-svc, owns its name" '^ready ' "$work/service.log"
call() {
    "$smack_helper" run "$1" "$helper" call org.mssf.test.Radio /org/mssf/E2E org.mssf.E2E "$2" 2>&1
}
check "the system app's call needing Radio is answered" "reply guarded" "$(call mssf-test-app Guarded)"
call mssf-test-store-app Guarded >"$work/refused"
check_grep "the store app's is refused for the token" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied: .*mssf-test-svc::Radio' "$work/refused"

# Version 2 no longer provides Radio: revoked in the kernel, and the bus reloads.
rm -rf "$root/srv/system"
mv "$root/srv/system-2" "$root/srv/system"
apt_in_root update || { cat "$work/apt.log"; fail_now "apt-get update"; }
apt_in_root install mssf-test-svc || { cat "$work/apt.log"; fail_now "upgrade of the service"; }
check "the app lost mssf-test-svc::Radio in the kernel" 0 "$(access mssf-test-app mssf-test-svc::Radio w)"
check "the bus reloaded: Guarded is open in version 2" "reply guarded" "$(call mssf-test-store-app Guarded)"

apt_in_root purge mssf-test-svc mssf-test-app mssf-test-store-app ||
    { cat "$work/apt.log"; fail_now "apt-get purge"; }
check "purged: the store app's Cellular is revoked" 0 "$(access mssf-test-store-app Cellular w)"
check "purged: no reach left" 0 "$(access mssf-test-app mssf-test-svc w)"

[ "$failures" = 0 ] || { echo "# bus log:"; tail -20 "$work/bus.log"; }
exit $((failures > 0))
