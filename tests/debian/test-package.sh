#!/bin/sh
# Builds the Debian packages from a copy of the source tree with
# dpkg-buildpackage -us -uc -b (tests/package/build-debs.sh, shared with
# tests/package), checks what each package holds, and installs them into a
# scratch dpkg root to show they unpack and configure.
#   test-package.sh SOURCE_DIR CACHE_DIR
set -eu
src=$1
cache=$2
work=$(mktemp -d /tmp/mssf-deb-XXXXXX)
trap 'rm -rf "$work"' EXIT
debs=$("$src/tests/package/build-debs.sh" "$src" "$cache")
cp "$debs"/*.deb "$work/"
fail=0
holds() {
    if ! dpkg-deb -c "$work/$1"_*_amd64.deb | awk '{print $6}' | grep -qx "$2"; then
        echo "$1 does not hold $2"
        fail=1
    fi
}
holds mssf-broker ./usr/bin/mssf-broker
holds mssf-broker ./lib/systemd/system/mssf-broker.service
holds mssf-broker ./lib/systemd/system/mssf-broker.socket
holds mssf-broker ./usr/lib/systemd/user/mssf-broker.service
holds mssf-broker ./usr/share/man/man8/mssf-broker.8.gz
holds mssf-policy ./usr/bin/mssf-policy
holds mssf-policy ./usr/share/man/man5/mssf-manifest.5.gz
holds mssf-policy ./var/lib/mssf/
holds mssf-policy ./usr/share/mssf/aegis/
holds mssf-policy ./usr/share/mssf/apt-hook.conf
holds mssf-policy ./etc/apt/apt.conf.d/60mssf-policy
holds mssf-policy ./usr/share/man/man5/mssf-repositories.conf.5.gz
holds libmssf-policydb-dev ./usr/include/mssf/db-read.h
holds libmssf-policydb-dev ./usr/lib/x86_64-linux-gnu/pkgconfig/mssf-policydb.pc
holds libmssf1 ./usr/lib/x86_64-linux-gnu/libmssf.so.1
holds libmssf-dev ./usr/include/libmssf-1/mssf/mssf-gio.h
holds libmssf-dev ./usr/include/libmssf-1/mssf/mssf-sd-bus.h
holds libmssf-dev ./usr/lib/x86_64-linux-gnu/pkgconfig/libmssf.pc
holds libmssf-dev ./usr/share/man/man3/mssf_check_token.3.gz
holds libmssf-dev ./usr/include/libmssf-1/mssf/mssf-crypto.h
holds mssf-keyd ./usr/libexec/mssf-keyd
holds mssf-keyd ./usr/bin/mssf-crypto
holds mssf-keyd ./lib/systemd/system/mssf-keyd.service
holds mssf-keyd ./usr/share/dbus-1/system-services/org.mssf.Keys1.service
holds mssf-keyd ./usr/share/dbus-1/system.d/org.mssf.Keys1.conf
holds mssf-keyd ./usr/share/mssf/aegis/mssf-keyd.aegis
holds mssf-keyd ./usr/lib/udev/rules.d/60-mssf-keyd.rules
holds mssf-keyd ./usr/lib/sysusers.d/mssf-keyd.conf
holds mssf-keyd ./usr/lib/tmpfiles.d/mssf-keyd.conf
dh_holds() {
    if ! dpkg-deb -c "$work"/dh-mssf_*_all.deb | awk '{print $6}' | grep -qx "$1"; then
        echo "dh-mssf does not hold $1"
        fail=1
    fi
}
dh_holds ./usr/bin/dh_mssf
dh_holds ./usr/share/perl5/Debian/Debhelper/Sequence/mssf.pm
dh_holds ./usr/share/debhelper/autoscripts/postinst-mssf
dh_holds ./usr/share/man/man1/dh_mssf.1.gz
# dh picks the add-on up from Build-Depends: dh-sequence-mssf.
dpkg-deb -f "$work"/dh-mssf_*_all.deb Provides | grep -qx "dh-sequence-mssf" ||
    { echo "dh-mssf does not provide dh-sequence-mssf"; fail=1; }
# The trigger that batches a dpkg run, and the hook apt runs.
dpkg-deb -e "$work"/mssf-policy_*_amd64.deb "$work/policy-control"
grep -qx "interest-noawait /usr/share/mssf/aegis" "$work/policy-control/triggers" ||
    { echo "mssf-policy does not declare its trigger"; fail=1; }
# Installing must not enable or start the bus (that would replace the
# running system bus): units are never started, and enabled only when an
# earlier install was (deb-systemd-helper was-enabled keeps that state).
dpkg-deb -e "$work"/mssf-broker_*_amd64.deb "$work/control"
if cat "$work"/control/post* 2>/dev/null | awk '
        /deb-systemd-invoke|systemctl .*start/ { bad = 1 }
        /deb-systemd-helper( --user)? enable/ && prev !~ /was-enabled/ { bad = 1 }
        NF && $1 !~ /^#/ { prev = $0 }
        END { exit !bad }'; then
    echo "mssf-broker's maintainer scripts enable or start units:"
    cat "$work"/control/post*
    fail=1
fi
# Unpack and configure into a scratch dpkg root.
root=$work/root
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info"
touch "$root/var/lib/dpkg/status"
# Chrootless scripts run on this host: the maintainer scripts that call
# mssf-policy dpkg --root find the one just unpacked into the root, as they
# would find the installed one on a device.
if ! PATH="$root/usr/bin:$PATH" dpkg --root="$root" --force-depends --force-not-root --force-script-chrootless \
        --log=/dev/null -i "$work"/mssf-broker_*_amd64.deb "$work"/mssf-policy_*_amd64.deb \
        "$work"/libmssf-policydb-dev_*_amd64.deb "$work"/libmssf1_*_amd64.deb \
        "$work"/libmssf-dev_*_amd64.deb "$work"/dh-mssf_*_all.deb "$work"/mssf-keyd_*_amd64.deb \
        >"$work/install.log" 2>&1; then
    cat "$work/install.log"
    fail=1
fi
[ -x "$root/usr/bin/mssf-broker" ] || { echo "not installed: /usr/bin/mssf-broker"; fail=1; }
"$root/usr/bin/mssf-broker" --version >/dev/null || { echo "the installed mssf-broker does not run"; fail=1; }
# mssf-keyd: its user made in the root (systemd-sysusers), its manifest registered with mssf-policy.
grep -q '^mssf-keyd:' "$root/etc/passwd" 2>/dev/null || { echo "no user mssf-keyd in the root"; fail=1; }
[ -f "$root/var/lib/mssf/manifests/mssf-keyd.xml" ] ||
    { echo "mssf-keyd's manifest was not registered"; cat "$work/install.log"; fail=1; }
# and mssf-policy's trigger compiled the root's policy.db once, at the end of the run.
[ -f "$root/var/lib/mssf/policy.db" ] || { echo "the trigger compiled no policy.db"; cat "$work/install.log"; fail=1; }
[ "$fail" = 0 ] && echo "packages build, hold their files and install"
exit $fail
