#!/bin/sh
# Making mssf-broker the system bus, and switching back, as on Debian 12:
#     systemctl enable mssf-broker.service mssf-broker.socket
#     systemctl disable mssf-broker.service mssf-broker.socket
# in a scratch root (systemctl --root=, no running systemd) holding the
# build installed with its prefix and Debian's own dbus units with their
# static .wants links. After enable, the names dbus.service and dbus.socket
# (which Debian's units and every Requires=dbus.socket use) must resolve,
# the way systemd looks them up, to our units; after disable, to Debian's
# dbus-daemon again. With dbus-broker enabled (when the host has it), enable
# must refuse until dbus-broker is disabled, as docs/man/mssf-broker.8 says.
#   test-switch.sh BUILD_DIR PREFIX
set -eu
build=$1
prefix=$2
debian_units=/lib/systemd/system
if [ ! -f "$debian_units/dbus.service" ] || [ ! -f "$debian_units/dbus.socket" ]; then
    echo "SKIP: no Debian dbus units in $debian_units"
    exit 77
fi
root=$(mktemp -d /tmp/mssf-switch-XXXXXX)
trap 'rm -rf "$root"' EXIT
meson install -C "$build" --destdir "$root" --no-rebuild --quiet >/dev/null
lib=$root/usr/lib/systemd/system
mkdir -p "$lib/sockets.target.wants" "$lib/multi-user.target.wants" "$root/etc/systemd/system"
for unit in dbus.service dbus.socket sockets.target multi-user.target dbus-broker.service; do
    [ -f "$debian_units/$unit" ] && cp "$debian_units/$unit" "$lib/"
done
ln -s ../dbus.socket "$lib/sockets.target.wants/dbus.socket"
ln -s ../dbus.service "$lib/multi-user.target.wants/dbus.service"

fail=0
sc() { SYSTEMD_LOG_LEVEL=warning systemctl --root="$root" "$@"; }
check() {
    if [ "$2" = "$3" ]; then
        echo "ok - $1"
    else
        echo "not ok - $1: expected '$2', got '$3'"
        fail=1
    fi
}
# The file systemd loads for a unit name: the first directory of the
# search path that has it, symlinks followed inside the root. (A .wants
# link counts by its name, so Debian's static multi-user.target.wants/
# dbus.service follows whatever dbus.service resolves to.)
resolve() {
    for dir in etc/systemd/system run/systemd/system usr/local/lib/systemd/system usr/lib/systemd/system; do
        path=$root/$dir/$1
        [ -e "$path" ] || [ -L "$path" ] || continue
        while [ -L "$path" ]; do
            target=$(readlink "$path")
            case $target in
            /*) path=$root$target ;;
            *) path=$(dirname "$path")/$target ;;
            esac
        done
        echo "${path#$root}"
        return
    done
    echo none
}
exec_start() {
    sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$root$(resolve "$1")"
}

sysdir=$(dirname "$(find "$root" -name mssf-broker.service -path '*system/*' | head -n 1)")
sysdir=${sysdir#$root}
check "before: dbus.service is Debian's" /usr/bin/dbus-daemon "$(exec_start dbus.service)"
check "before: mssf-broker disabled" "disabled disabled" \
    "$(sc is-enabled mssf-broker.service mssf-broker.socket | tr '\n' ' ' | sed 's/ $//')"

sc enable mssf-broker.service mssf-broker.socket >/dev/null 2>&1 || { echo "not ok - enable failed"; fail=1; }
check "enable: dbus.service is an alias of mssf-broker.service" "$sysdir/mssf-broker.service" "$(resolve dbus.service)"
check "enable: dbus.socket is an alias of mssf-broker.socket" "$sysdir/mssf-broker.socket" "$(resolve dbus.socket)"
check "enable: dbus.service runs mssf-broker" "$prefix/bin/mssf-broker" "$(exec_start dbus.service)"
check "enable: mssf-broker.socket wanted by sockets.target" "$sysdir/mssf-broker.socket" \
    "$(resolve sockets.target.wants/mssf-broker.socket)"
check "enable: systemctl says so" "alias alias enabled enabled" \
    "$(sc is-enabled dbus.service dbus.socket mssf-broker.service mssf-broker.socket | tr '\n' ' ' | sed 's/ $//')"

sc disable mssf-broker.service mssf-broker.socket >/dev/null 2>&1 || { echo "not ok - disable failed"; fail=1; }
check "disable: dbus.service is Debian's again" /usr/lib/systemd/system/dbus.service "$(resolve dbus.service)"
check "disable: dbus.socket is Debian's again" /usr/lib/systemd/system/dbus.socket "$(resolve dbus.socket)"
check "disable: dbus.service runs dbus-daemon" /usr/bin/dbus-daemon "$(exec_start dbus.service)"
check "disable: nothing of ours left in /etc" "" "$(find "$root/etc" -type l)"
check "disable: systemctl says so" "static static disabled disabled" \
    "$(sc is-enabled dbus.service dbus.socket mssf-broker.service mssf-broker.socket | tr '\n' ' ' | sed 's/ $//')"

if [ -f "$lib/dbus-broker.service" ]; then
    sc enable dbus-broker.service >/dev/null 2>&1
    if sc enable mssf-broker.service mssf-broker.socket >/dev/null 2>&1; then
        check "with dbus-broker enabled, enable refuses" refused accepted
    else
        check "with dbus-broker enabled, enable refuses" refused refused
    fi
    sc disable mssf-broker.service mssf-broker.socket >/dev/null 2>&1 || true
    sc disable dbus-broker.service >/dev/null 2>&1
    sc enable mssf-broker.service mssf-broker.socket >/dev/null 2>&1 || { echo "not ok - enable after dbus-broker"; fail=1; }
    check "after disabling dbus-broker: dbus.service runs mssf-broker" "$prefix/bin/mssf-broker" \
        "$(exec_start dbus.service)"
fi
[ "$fail" = 0 ] && echo "switching to mssf-broker and back ok"
exit $fail
