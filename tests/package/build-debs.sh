#!/bin/sh
# Builds mssf-broker's Debian packages from the source tree with
# dpkg-buildpackage -us -uc -b, once per content of the tree, and prints
# the directory that holds them. Tests that need the packages call it and
# share the build (a lock serialises them).
#   build-debs.sh SOURCE_DIR CACHE_DIR
set -eu
src=$(cd "$1" && pwd)
cache=$2
mkdir -p "$cache"
exec 9>"$cache/lock"
flock 9
# The tracked and untracked-but-not-ignored files, as a package would be built.
key=$(cd "$src" && git ls-files -z --cached --others --exclude-standard |
      xargs -0 -r sha256sum 2>/dev/null | sha256sum | cut -c1-16)
out=$cache/debs-$key
if [ -f "$out/done" ]; then
    echo "$out"
    exit 0
fi
rm -rf "$cache"/debs-* "$cache/build"
mkdir -p "$cache/build/src" "$out"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) |
    tar -xf - -C "$cache/build/src"
if ! (cd "$cache/build/src" && dpkg-buildpackage -us -uc -b >"$cache/build/build.log" 2>&1); then
    tail -40 "$cache/build/build.log" >&2
    echo "build-debs.sh: dpkg-buildpackage failed (log: $cache/build/build.log)" >&2
    exit 1
fi
mv "$cache/build"/*.deb "$out/"
cp "$cache/build/build.log" "$out/"
rm -rf "$cache/build"
touch "$out/done"
echo "$out"
