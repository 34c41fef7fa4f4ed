# tests/package/lib.sh: a Debian root with mssf-broker's packages, two
# signed APT repositories, and the test packages built with dh_mssf.
# Sourced by test-apt.sh, test-kernel.sh (on the host) and guest-kernel.sh
# (in the Smack guest). The caller sets: here (this folder), src (the
# source tree), cache (the build's cache folder), work (a scratch folder),
# and defines fail_now MESSAGE.

failures=0

check() {
    if [ "$2" = "$3" ]; then
        echo "ok - $1"
    else
        echo "not ok - $1: expected '$2', got '$3'"
        failures=$((failures + 1))
    fi
}

# check_grep NAME PATTERN FILE: the file has a line matching the extended regexp.
check_grep() {
    if grep -qE -- "$2" "$3"; then
        echo "ok - $1"
    else
        echo "not ok - $1: no line matching '$2' in $3:"
        sed 's/^/    /' "$3" | tail -40
        failures=$((failures + 1))
    fi
}

check_no_grep() {
    if grep -qE -- "$2" "$3"; then
        echo "not ok - $1: a line matches '$2' in $3:"
        grep -E -- "$2" "$3" | sed 's/^/    /'
        failures=$((failures + 1))
    else
        echo "ok - $1"
    fi
}

# Run in the root as root, with the environment apt and dpkg get on a device.
inroot() {
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive ${MSSF_SMACKFS:+MSSF_SMACKFS=$MSSF_SMACKFS} "$@"
}

# apt-get in the root: quiet progress, every message kept in $work/apt.log.
apt_in_root() {
    inroot apt-get -q -y -o Dpkg::Use-Pty=0 -o APT::Color=0 "$@" >"$work/apt.log" 2>&1
}

# The root: the cached Debian tarball, then mssf-policy and mssf-broker as
# bare .debs (they have no manifest), the device maker's configuration.
setup_root() {
    root=$work/root
    mkdir -p "$root"
    tar -C "$root" -xf "$roottar" || fail_now "cannot unpack $roottar"
    mount -t proc proc "$root/proc" || fail_now "cannot mount proc in the root"
    mkdir -p "$root/tmp/debs" "$root/run/dbus" "$root/etc/mssf/keys" "$root/etc/apt/keyrings"
    cp "$debs"/mssf-policy_*.deb "$debs"/mssf-broker_*.deb "$root/tmp/debs/"
    rm -f "$root/etc/apt/sources.list"
    inroot dpkg -i $(cd "$root" && ls tmp/debs/*.deb | sed 's|^|/|') >"$work/dpkg-i.log" 2>&1 ||
        { cat "$work/dpkg-i.log"; fail_now "installing mssf-policy and mssf-broker failed"; }
}

# Two signing keys, the test's own, in a scratch GnuPG home.
make_keys() {
    GNUPGHOME=$work/gnupg
    export GNUPGHOME
    mkdir -m 700 "$GNUPGHOME"
    for who in system store; do
        gpg --batch --quiet --pinentry-mode loopback --passphrase '' \
            --quick-gen-key "MSSF Test $who <$who@mssf.test>" ed25519 sign never 2>/dev/null ||
            fail_now "gpg cannot make a key"
        gpg --batch --export "$who@mssf.test" >"$work/$who.gpg"
        cp "$work/$who.gpg" "$root/etc/mssf/keys/$who.gpg"
        cp "$work/$who.gpg" "$root/etc/apt/keyrings/$who.gpg"
    done
}

# dpkg-buildpackage with the dh-mssf and mssf-policy of this build,
# unpacked, not installed on the host.
build_source() {
    (cd "$1" && PATH=$work/addon/usr/bin:$PATH PERL5LIB=$work/addon/usr/share/perl5 \
        DH_AUTOSCRIPTDIR=$work/addon/usr/share/debhelper/autoscripts \
        MSSF_POLICY=$work/addon/usr/bin/mssf-policy \
        dpkg-buildpackage -us -uc -b -d >"$1.log" 2>&1)
}

# The test source at VERSION into DIR, built.
build_test_packages() {
    version=$1
    dir=$work/build-$version
    mkdir -p "$dir"
    cp -r "$here/mssf-test" "$dir/"
    cat >"$dir/mssf-test/debian/changelog" <<EOF
mssf-test ($version) unstable; urgency=medium

  * Test packages of mssf-broker's tests/package.

 -- mssf-broker tests <mssf-broker@localhost>  Thu, 03 Dec 2026 08:00:00 +0000
EOF
    [ -z "${2:-}" ] || cp "$2" "$dir/mssf-test/debian/mssf-test-svc.aegis"
    build_source "$dir/mssf-test" ||
        { tail -30 "$dir/mssf-test.log"; fail_now "dpkg-buildpackage of mssf-test $version failed"; }
}

unpack_addon() {
    mkdir -p "$work/addon"
    dpkg-deb -x "$debs"/dh-mssf_*_all.deb "$work/addon"
    dpkg-deb -x "$debs"/mssf-policy_*.deb "$work/addon"
}

# publish NAME ORIGIN KEY DEB...: a flat repository in the root's /srv/NAME
# whose Release says Origin and Label ORIGIN, signed by KEY.
publish() {
    name=$1 origin=$2 key=$3
    shift 3
    repo=$root/srv/$name
    rm -rf "$repo"
    mkdir -p "$repo"
    cp "$@" "$repo/"
    (cd "$repo" && apt-ftparchive packages . >Packages 2>/dev/null &&
        apt-ftparchive -o APT::FTPArchive::Release::Origin="$origin" \
            -o APT::FTPArchive::Release::Label="$origin" \
            -o APT::FTPArchive::Release::Suite=test release . >Release 2>/dev/null &&
        gpg --batch --yes --quiet --local-user "$key@mssf.test" --clearsign -o InRelease Release) ||
        fail_now "cannot publish the repository $name"
}

configure_apt() {
    cat >"$root/etc/apt/sources.list.d/mssf-test.sources" <<EOF
Types: deb
URIs: file:/srv/system
Suites: ./
Signed-By: /etc/apt/keyrings/system.gpg

Types: deb
URIs: file:/srv/store
Suites: ./
Signed-By: /etc/apt/keyrings/store.gpg

Types: deb
URIs: file:/srv/fake
Suites: ./
Signed-By: /etc/apt/keyrings/store.gpg
EOF
    cat >"$root/etc/mssf/repositories.conf" <<EOF
# The test device maker: its own repository, and its store.
Mssf-Origin: system
Release-Origin: MSSF Test System
Release-Label: MSSF Test System
Signed-By: /etc/mssf/keys/system.gpg

Mssf-Origin: thirdparty
Release-Origin: MSSF Test Store
Release-Label: MSSF Test Store
Signed-By: /etc/mssf/keys/store.gpg
EOF
}

# The bus of the root, started from the root's mssf-broker package, with a
# busconfig that lets the test service own its name and anyone call it, so
# that what refuses a call is MSSF. Its log counts the reloads.
start_bus() {
    write_busconfig
    inroot mssf-broker --system --nofork --nopidfile --nosyslog >"$work/bus.log" 2>&1 &
    bus_pid=$!
    i=0
    while [ ! -S "$root/run/dbus/system_bus_socket" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -S "$root/run/dbus/system_bus_socket" ] || { cat "$work/bus.log"; fail_now "the bus did not start"; }
}

# The test service may own its name (as root), and anyone may call it.
write_busconfig() {
    mkdir -p "$root/etc/dbus-1/system.d"
    cat >"$root/etc/dbus-1/system.d/mssf-test.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root">
    <allow own="org.mssf.test.Radio"/>
  </policy>
  <policy context="default">
    <allow send_destination="org.mssf.test.Radio"/>
  </policy>
</busconfig>
EOF
}

reloads() {
    grep -c "Reloaded the configuration" "$work/bus.log" || true
}

# How many times dpkg ran mssf-policy's trigger since the log had $1 lines.
trigger_runs() {
    tail -n +"$(($1 + 1))" "$root/var/log/dpkg.log" | grep -c "trigproc mssf-policy" || true
}

dpkg_log_lines() {
    wc -l <"$root/var/log/dpkg.log"
}
