#!/bin/sh
# Inside the user-mode-linux guest (test-rpm-kernel.sh): rpm installs and
# erases the service and the app with the plugin, on a device root (not
# `rpm --root`: there the kernel is left alone), and real Smack and the bus
# decide. The root is the guest's tmpfs (hostfs keeps no xattrs) with the
# host's programs and libraries bound in read-only, its own /etc, /var,
# /opt and /usr/share, and the kernel's smackfs.
#   guest-rpm-kernel.sh HERE WORK MSSF_SO MSSF_BROKER E2E_HELPER SMACK_HELPER
set -u
here=$1
work=$2
plugin=$3
broker=$4
e2e=$5
smack_helper=$6
[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
[ -w /sys/fs/smackfs/load2 ] || { echo "smackfs not mounted"; exit 1; }
. "$here/../package/lib.sh"

fail_now() {
    echo "not ok - $1"
    exit 1
}
pids=
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup EXIT

root=/run/rpm-root
mkdir -p "$root/usr/share" "$root/etc/mssf" "$root/var/lib/rpm" "$root/var/tmp" "$root/opt" \
    "$root/proc" "$root/sys/fs/smackfs" "$root/dev" "$root/tmp" "$root/run/dbus" "$root/root" \
    "$root/host"
for dir in bin sbin lib lib32 lib64 libexec; do
    [ -d "/usr/$dir" ] || continue
    mkdir -p "$root/usr/$dir"
    mount --bind "/usr/$dir" "$root/usr/$dir" || fail_now "bind /usr/$dir"
    ln -s "usr/$dir" "$root/$dir"
done
cp -a /etc/passwd /etc/group /etc/nsswitch.conf /etc/ld.so.cache /etc/ld.so.conf "$root/etc/"
cp -a /etc/ld.so.conf.d "$root/etc/"
mount -t proc proc "$root/proc" || fail_now "mount proc"
mount --bind /dev "$root/dev" || fail_now "bind /dev"
mount --bind /sys/fs/smackfs "$root/sys/fs/smackfs" || fail_now "bind smackfs"
mount --bind / "$root/host" || fail_now "bind the host's files"
cp "$here/device-policy.conf" "$root/etc/mssf/device-policy.conf"
printf 'Mssf-Origin: system\nSigned-By: %s\n' "$(cat "$work/system.fpr")" >"$root/etc/mssf/rpm-origins.conf"
# rpm's configuration on the device: the plugin as the macros install it,
# from the build tree (/host), and signatures required.
mkdir -p "$root/root/plugins"
ln -s "/host$plugin" "$root/root/plugins/mssf.so"
cat >"$root/root/.rpmmacros" <<'EOF'
%_dbpath /var/lib/rpm
%__plugindir /root/plugins
%__transaction_mssf %{__plugindir}/mssf.so
%_pkgverify_level signature
EOF
inroot() {
    chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/bin:/usr/sbin LC_ALL=C \
        DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket "$@"
}
rpm_device() {
    inroot rpm --nodeps "$@" 2>&1 | grep -v -e 'use Alien instead' -e 'assuming you know what you are doing'
}
inroot rpm --import "/host$work/system.asc" || fail_now "rpm --import"

# Everyone may talk to the bus (labelled System) and the bus to everyone;
# the device maker lets rpm-kother reach the service, so that what refuses
# it is the token.
load_rule() { printf '%s %s %s' "$1" "$2" "$3" >/sys/fs/smackfs/load2; }
for label in rpm-ksvc rpm-kapp rpm-kother; do
    load_rule "$label" System w
    load_rule System "$label" w
done
load_rule rpm-kother rpm-ksvc w
load_rule rpm-ksvc rpm-kother w
access() { "$smack_helper" access "$1" "$2" "$3"; }

# The bus, outside the root, listening in it; it reads the policy.db the
# plugin writes there, and reloads when the plugin asks.
cat >"$work/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$root/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
EOF
(echo System >/proc/self/attr/current &&
    exec "$broker" --config-file="$work/bus.conf" --policy="$root/var/lib/mssf/policy.db" --nofork \
        --print-address) >"$work/bus.out" 2>"$work/bus.log" &
bus_pid=$!
pids="$pids $!"
i=0
while [ ! -S "$root/run/dbus/system_bus_socket" ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$root/run/dbus/system_bus_socket" ] || { cat "$work/bus.log"; fail_now "the bus did not start"; }
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$root/run/dbus/system_bus_socket

# ---- rpm -i: labels, kernel rules, policy.db, the bus told ----
rpm_device -i "/host$work/rpms/rpm-ksvc-1.0-1.noarch.rpm" "/host$work/rpms/rpm-kapp-1.0-1.noarch.rpm" \
    >"$work/install.log"
check "rpm -i rpm-ksvc rpm-kapp on the device" "rpm-kapp-1.0-1.noarch rpm-ksvc-1.0-1.noarch" \
    "$(inroot rpm -qa 'rpm-k*' | sort | tr '\n' ' ' | sed 's/ $//')"
check "the app holds rpm-ksvc::Radio in the kernel (access2)" 1 "$(access rpm-kapp rpm-ksvc::Radio w)"
check "another label does not" 0 "$(access rpm-kother rpm-ksvc::Radio w)"
check "the service holds Cellular" 1 "$(access rpm-ksvc Cellular w)"
check "SMACK64EXEC of the app's binary" rpm-kapp \
    "$("$smack_helper" getxattr "$root/opt/rpm-kernel/bin/rpm-kapp" security.SMACK64EXEC)"
check "the app runs with its package's label (exec'd without the MAC capabilities)" rpm-kapp \
    "$("$smack_helper" exec "$root/opt/rpm-kernel/bin/rpm-kapp" /proc/self/attr/current | tr -d '\0\n')"
check_grep "the plugin compiled policy.db" '^mssf-policy: policy.db compiled' "$work/install.log"
check_no_grep "and the bus reloaded (no warning)" 'did not (reload|answer)' "$work/install.log"

"$smack_helper" run rpm-ksvc "$e2e" serve org.mssf.test.RpmRadio >"$work/service.log" 2>&1 &
pids="$pids $!"
i=0
while ! grep -q "^ready" "$work/service.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check_grep "the service, labelled rpm-ksvc, owns its name" '^ready ' "$work/service.log"
call() {
    "$smack_helper" run "$1" "$e2e" call org.mssf.test.RpmRadio /org/mssf/E2E org.mssf.E2E "$2" 2>&1
}
check "the app's call needing Radio is answered" "reply guarded" "$(call rpm-kapp Guarded)"
call rpm-kother Guarded >"$work/refused"
check_grep "another label's is refused for the token" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied: .*rpm-ksvc::Radio' "$work/refused"

# ---- rpm -e: revoked in the kernel, and the bus reloads ----
rpm_device -e rpm-kapp rpm-ksvc >"$work/erase.log"
check "rpm -e" "" "$(inroot rpm -qa 'rpm-k*')"
check "the app's rpm-ksvc::Radio is revoked in the kernel" 0 "$(access rpm-kapp rpm-ksvc::Radio w)"
check "the service's Cellular too" 0 "$(access rpm-ksvc Cellular w)"
check "the app's reach to the service is gone" 0 "$(access rpm-kapp rpm-ksvc w)"
check "the bus reloaded: Guarded is no longer guarded" "reply guarded" "$(call rpm-kother Guarded)"
check "nothing registered" "" "$(find "$root/var/lib/mssf/manifests" "$root/etc/smack/accesses.d" -type f ! -name ".*" 2>/dev/null)"

# ---- a bus that does not answer: rpm does not wait for it ----
kill -STOP "$bus_pid"
start=$(date +%s)
rpm_device -i "/host$work/rpms/rpm-ksvc-1.0-1.noarch.rpm" >"$work/stopped.log"
end=$(date +%s)
kill -CONT "$bus_pid"
check "rpm -i with the bus stopped" rpm-ksvc-1.0-1.noarch "$(inroot rpm -q rpm-ksvc)"
check "... returns without the bus (under 15 s here; the plugin waits 2 s)" yes \
    "$([ $((end - start)) -lt 15 ] && echo yes)"
check_grep "... with one warning" 'warning: the system bus did not answer within 2 s' "$work/stopped.log"
check "... and the kernel has the service's rules all the same" 1 "$(access rpm-ksvc Cellular w)"
rpm_device -e rpm-ksvc >>"$work/erase.log"
check "rpm -e once the bus is back" "" "$(inroot rpm -qa 'rpm-k*')"

if [ "$failures" != 0 ]; then
    sed 's/^/# install: /' "$work/install.log"
    sed 's/^/# erase: /' "$work/erase.log"
    tail -20 "$work/bus.log" | sed 's/^/# bus: /'
fi
exit $((failures > 0))
