#!/bin/sh
# The kernel side of tests/package, under real Smack: what test-apt.sh
# does with a stand-in smackfs, here with the kernel's, in the
# user-mode-linux guest of tests/uml. The host prepares the packages,
# keys and signed repositories (so the guest runs no gpg signing); the
# guest (guest-kernel.sh) unpacks the Debian root on its tmpfs (xattrs),
# installs with apt-get and checks rules loaded (access2), SMACK64EXEC
# and the label a binary runs with, the bus reloading, and an app from
# the store repository refused the token the system repository's app
# holds.
#   test-kernel.sh SOURCE_DIR CACHE_DIR E2E_HELPER SMACK_HELPER UML_RUN
# Exit 0 pass, 1 fail, 77 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$1
cache=$2
helper=$(readlink -f "$3")
smack_helper=$(readlink -f "$4")
uml_run=$5

fail_now() {
    echo "not ok - $1"
    exit 1
}

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
for tool in dpkg-buildpackage dh apt-ftparchive gpg mmdebstrap; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
. "$here/lib.sh"
work=$(mktemp -d /tmp/mssf-kernel.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT

debs=${MSSF_TEST_DEBS:-$("$here/build-debs.sh" "$src" "$cache")} || fail_now "building mssf-broker's packages"
roottar=$("$here/make-root.sh" "$cache")
case $? in
0) ;;
77) exit 77 ;;
*) fail_now "making a Debian root with mmdebstrap" ;;
esac
# What the guest copies into its root: repositories, keys, apt and mssf configuration.
root=$work/stage
mkdir -p "$root/etc/mssf/keys" "$root/etc/apt/keyrings" "$root/etc/apt/sources.list.d" \
    "$root/tmp/debs" "$root/etc/dbus-1/system.d" "$root/etc/smack/accesses.d"
cp "$debs"/mssf-policy_*.deb "$debs"/mssf-broker_*.deb "$root/tmp/debs/"
unpack_addon
build_test_packages 1.0
build_test_packages 2.0 "$here/svc-2.aegis"
make_keys
publish system "MSSF Test System" system "$work"/build-1.0/mssf-test-svc_1.0_all.deb \
    "$work"/build-1.0/mssf-test-app_1.0_all.deb
publish store "MSSF Test Store" store "$work"/build-1.0/mssf-test-store-app_1.0_all.deb
publish fake "MSSF Test System" store "$work"/build-1.0/mssf-test-fake-app_1.0_all.deb
# The system repository once it has the service's version 2 (the guest swaps it in).
publish system-2 "MSSF Test System" system "$work"/build-2.0/mssf-test-svc_2.0_all.deb \
    "$work"/build-1.0/mssf-test-app_1.0_all.deb
configure_apt
write_busconfig
# The device maker's rules: the store app may reach the service (so that
# what refuses it is the token), everyone the bus (labelled System).
printf '%s\n' "mssf-test-store-app mssf-test-svc w" "mssf-test-svc mssf-test-store-app w" \
    >"$root/etc/smack/accesses.d/device-test"
exec "$uml_run" --timeout 900 --mem 1500M --keep "$work" "$here/guest-kernel.sh" "$here" "$work" \
    "$roottar" "$helper" "$smack_helper"
