#!/bin/sh
# A minimal Debian 12 root (apt, dpkg, and the libraries mssf-broker's
# packages need) as a tarball made with mmdebstrap from Debian's mirror,
# cached: the first run downloads (about a minute), later ones reuse it.
# Prints the tarball's path; exit 77 (skip) when it cannot be made here
# (no mmdebstrap, or no way to the mirror).
#   make-root.sh CACHE_DIR
set -eu
cache=$1
mirror=${MSSF_TEST_MIRROR:-http://deb.debian.org/debian}
# mssf-policy's and mssf-broker's run-time dependencies; the test packages
# need nothing else.
include=libexpat1,libattr1,libssl3,libsystemd0,init-system-helpers,dbus-system-bus-common,dbus-session-bus-common
mkdir -p "$cache"
exec 9>"$cache/root.lock"
flock 9
tarball=$cache/root-bookworm-$(echo "$include $mirror" | sha256sum | cut -c1-12).tar
if [ -s "$tarball" ]; then
    echo "$tarball"
    exit 0
fi
command -v mmdebstrap >/dev/null || { echo "SKIP: mmdebstrap is not installed" >&2; exit 77; }
log=$cache/mmdebstrap.log
tmp=${tarball%.tar}.tmp.tar
if ! mmdebstrap --variant=apt --mode=root --format=tar --include="$include" \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
        --dpkgopt='path-exclude=/usr/share/doc/*' \
        bookworm "$tmp" "$mirror" >"$log" 2>&1; then
    rm -f "$tmp"
    if grep -qiE "could not resolve|failed to fetch|unable to connect|temporary failure" "$log"; then
        echo "SKIP: cannot reach $mirror to make a Debian root (see $log)" >&2
        exit 77
    fi
    tail -20 "$log" >&2
    exit 1
fi
mv "$tmp" "$tarball"
echo "$tarball"
