#!/bin/sh
# Builds the hostile packages (mssf-hostile/, one source package) with
# dpkg-buildpackage and the dh_mssf of mssf-broker's own dh-mssf package,
# once per content of the source and of that add-on, and prints the
# directory that holds the .debs. Tests that need them call it and share
# the build (a lock serialises them).
#   build-hostile.sh CACHE_DIR DEBS_DIR
# DEBS_DIR holds mssf-broker's packages (tests/package/build-debs.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=$(mkdir -p "$1" && cd "$1" && pwd)
debs=$(cd "$2" && pwd)
exec 9>"$cache/hostile.lock"
flock 9
key=$( (cd "$here/mssf-hostile" && find . -type f | LC_ALL=C sort | xargs sha256sum
        sha256sum "$debs"/dh-mssf_*_all.deb "$debs"/mssf-policy_*.deb | cut -d' ' -f1) |
      sha256sum | cut -c1-16)
out=$cache/hostile-debs-$key
if [ -f "$out/done" ]; then
    echo "$out"
    exit 0
fi
rm -rf "$cache"/hostile-debs-* "$cache/hostile-build"
build=$cache/hostile-build
mkdir -p "$build/addon" "$out"
dpkg-deb -x "$debs"/dh-mssf_*_all.deb "$build/addon"
dpkg-deb -x "$debs"/mssf-policy_*.deb "$build/addon"
cp -r "$here/mssf-hostile" "$build/"
addon=$build/addon
if ! (cd "$build/mssf-hostile" && PATH=$addon/usr/bin:$PATH PERL5LIB=$addon/usr/share/perl5 \
        DH_AUTOSCRIPTDIR=$addon/usr/share/debhelper/autoscripts \
        MSSF_POLICY=$addon/usr/bin/mssf-policy \
        dpkg-buildpackage -us -uc -b -d >"$build/build.log" 2>&1); then
    tail -40 "$build/build.log" >&2
    echo "build-hostile.sh: dpkg-buildpackage of mssf-hostile failed (log: $build/build.log)" >&2
    exit 1
fi
mv "$build"/*.deb "$out/"
cp "$build/build.log" "$out/"
rm -rf "$build"
touch "$out/done"
echo "$out"
