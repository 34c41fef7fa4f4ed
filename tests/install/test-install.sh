#!/bin/sh
# Installs the build into a temporary DESTDIR and checks the layout that
# Debian's dbus and systemd expect, then runs systemd-analyze verify on the
# installed units. With the RPM side built, also where rpm looks for its
# plugin and macros (rpm loads plugins only from its %{__plugindir}).
#   test-install.sh BUILD_DIR PREFIX [RPM_PLUGINDIR RPM_MACROSDIR]
set -eu
build=$1
prefix=$2
rpm_plugindir=${3:-}
rpm_macrosdir=${4:-}
dest=$(mktemp -d /tmp/mssf-install-XXXXXX)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
root=$dest$prefix
fail=0
expect() {
    if [ ! -e "$1" ]; then
        echo "missing: ${1#$dest}"
        fail=1
    fi
}
expect "$root/bin/mssf-broker"
expect "$root/bin/mssf-policy"
[ -x "$root/bin/mssf-broker" ] || { echo "mssf-broker is not executable"; fail=1; }
units=$(find "$dest" -name mssf-broker.service -path '*system/*' | head -n 1)
[ -n "$units" ] || { echo "missing: the system mssf-broker.service"; fail=1; }
sysunits=$(dirname "${units:-/nonexistent/x}")
expect "$sysunits/mssf-broker.socket"
userunits=$(find "$dest" -name mssf-broker.service -path '*user/*' | head -n 1)
[ -n "$userunits" ] || { echo "missing: the user mssf-broker.service"; fail=1; }
expect "$root/share/mssf/manifests"
expect "$root/include/mssf/db-read.h"
pc=$(find "$dest" -name mssf-policydb.pc | head -n 1)
[ -n "$pc" ] || { echo "missing: mssf-policydb.pc"; fail=1; }
# libmssf: the library, its headers and pkg-config file, its pages.
expect "$root/include/libmssf-1/mssf/mssf-gio.h"
expect "$root/include/libmssf-1/mssf/mssf-sd-bus.h"
expect "$root/include/libmssf-1/mssf/mssf.h"
[ -n "$(find "$dest" -name 'libmssf.so.1' | head -n 1)" ] || { echo "missing: libmssf.so.1"; fail=1; }
[ -n "$(find "$dest" -name libmssf.pc | head -n 1)" ] || { echo "missing: libmssf.pc"; fail=1; }
for page in mssf-broker.8 mssf-policy.8 mssf-manifest.5 libmssf.3 mssf_check_token.3 \
        mssf_sd_bus_check_token.3 mssf_invocation_check_token.3; do
    section=${page##*.}
    expect "$root/share/man/man$section/$page"
done
# The key service: daemon, client, header, unit, activation file,
# busconfig, manifest, udev rule, and its unit runs the installed daemon.
expect "$root/include/libmssf-1/mssf/mssf-crypto.h"
expect "$root/bin/mssf-crypto"
expect "$root/libexec/mssf-keyd"
expect "$root/share/dbus-1/system-services/org.mssf.Keys1.service"
expect "$root/share/dbus-1/system.d/org.mssf.Keys1.conf"
expect "$root/share/mssf/aegis/mssf-keyd.aegis"
expect "$root/lib/udev/rules.d/60-mssf-keyd.rules"
keyd_unit=$(find "$dest" -name mssf-keyd.service -path '*system/*' | head -n 1)
[ -n "$keyd_unit" ] || { echo "missing: mssf-keyd.service"; fail=1; }
grep -q "^ExecStart=$prefix/libexec/mssf-keyd\$" "${keyd_unit:-/dev/null}" ||
    { echo "mssf-keyd.service does not run $prefix/libexec/mssf-keyd"; fail=1; }
grep -q "^Exec=$prefix/libexec/mssf-keyd\$" "$root/share/dbus-1/system-services/org.mssf.Keys1.service" ||
    { echo "org.mssf.Keys1.service does not start $prefix/libexec/mssf-keyd"; fail=1; }
if [ -n "$rpm_plugindir" ]; then
    expect "$dest$rpm_plugindir/mssf.so"
    expect "$dest$rpm_macrosdir/macros.mssf"
    expect "$dest$rpm_macrosdir/macros.transaction_mssf"
    expect "$root/share/man/man5/macros.mssf.5"
    expect "$root/share/man/man5/mssf-rpm-origins.conf.5"
    # rpm looks the hook table up by the plugin's name; nothing else of
    # mssf-policy's may be visible to rpm, dnf or the other plugins.
    if [ -e "$dest$rpm_plugindir/mssf.so" ]; then
        exported=$(nm -D --defined-only "$dest$rpm_plugindir/mssf.so" | awk '$2 != "A" { print $3 }')
        [ "$exported" = mssf_hooks ] || { echo "mssf.so exports more than mssf_hooks:" $exported; fail=1; }
    fi
    grep -q '^%__transaction_mssf %{__plugindir}/mssf.so$' "$dest$rpm_macrosdir/macros.transaction_mssf" 2>/dev/null \
        || { echo "macros.transaction_mssf does not enable %{__plugindir}/mssf.so"; fail=1; }
fi
# The units run what was installed, with Debian's dbus.service arguments.
grep -q "^ExecStart=$prefix/bin/mssf-broker --system --address=systemd: --nofork --nopidfile --systemd-activation --syslog-only\$" "$units" \
    || { echo "unexpected ExecStart in the system unit"; fail=1; }
grep -q '^Alias=dbus.service$' "$units" || { echo "no Alias=dbus.service"; fail=1; }
# systemd's own check of the units. They name the installed binary by its
# final path, so check copies that point into DESTDIR, against the host's
# units (dbus.socket, sysinit.target).
if [ -n "$units" ]; then
    check=$dest/verify
    mkdir -p "$check"
    for unit in "$sysunits/mssf-broker.socket" "$units"; do
        sed "s#=$prefix/bin/#=$root/bin/#" "$unit" > "$check/$(basename "$unit")"
    done
    keyd_check=
    if [ -n "$keyd_unit" ]; then
        keyd_check=$check/mssf-keyd.service
        sed "s#=$prefix/libexec/#=$root/libexec/#" "$keyd_unit" > "$keyd_check"
    fi
    out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
          "$check/mssf-broker.socket" "$check/mssf-broker.service" $keyd_check 2>&1) || { echo "$out"; fail=1; }
    if echo "$out" | grep -q 'mssf-broker\|mssf-keyd'; then
        echo "$out"
        fail=1
    fi
fi
[ "$fail" = 0 ] && echo "install layout ok under $prefix"
exit $fail
