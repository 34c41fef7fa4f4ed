#!/bin/bash
# The rpm plugin built against librpm 4.20, as a device maker on a later
# rpm would build it: this host has Debian 12's rpm 4.18, whose librpm
# installs no plugin header, so policy/rpm declares rpm 4.18's plugin
# interface itself (rpm-hooks.h) and, from 4.20 on, where librpm makes
# <rpm/rpmplugin.h> public, meson chooses that header instead. Without
# this test that second path would never be compiled here.
#
#   test-librpm420.sh SOURCE_DIR
#
# 1. Debian trixie's librpm-dev (rpm 4.20) and libpopt-dev (the one
#    header rpm's headers include from outside libc, and rpm.pc's
#    Requires) are downloaded with apt-get download, apt pointed at
#    trixie by its own configuration in the cache, as tests/uml/uml-kernel
#    fetches trixie's user-mode-linux: apt checks the archive's
#    signatures against debian-archive-keyring, and nothing is installed
#    on the host (dpkg-deb -x into the cache).
# 2. Their .pc files, their prefix moved to where they were unpacked, go
#    first on PKG_CONFIG_PATH, and `meson setup` configures this source
#    tree in a scratch build directory with -Dwerror=true -Drpm=enabled:
#    meson must find rpm 4.20 there and choose the public header
#    (-DMSSF_RPM_PUBLIC_PLUGIN_H=1 on the plugin's compile line).
# 3. ninja compiles, without linking (the 4.20 libraries are not
#    fetched), every object built from policy/rpm: the plugin (as
#    installed and as the tests' fault build) and the library under it,
#    with the flags meson gives them. The plugin's compiler dependency
#    file must name the unpacked 4.20 <rpm/rpmplugin.h> and no header of
#    the host's rpm. With the public header the hook table the plugin
#    exports (mssf_hooks) is rpm's own struct rpmPluginHooks_s, so a hook
#    of the wrong type is a compile error under -Werror.
# 4. hooks-layout.c (a target only where the public header is found)
#    checks that rpm-hooks.h's declarations, which 4.18 builds use, match
#    4.20's field by field. That check is shown to fail once: the same
#    file against a copy of rpm-hooks.h with two hooks swapped must not
#    compile.
#
# Cache: RPM_DEBIAN_CACHE (default $XDG_CACHE_HOME or ~/.cache, then
# mssf-broker/librpm-debian), one folder per suite. Packages fetched
# less than a week ago are used without asking the mirror;
# RPM_DEBIAN_REFETCH=1 asks anyway. When the mirror cannot be reached,
# packages fetched earlier are used, and said so. RPM_DEBIAN_SUITE
# (default trixie) and RPM_DEBIAN_MIRROR choose another suite or mirror.
#
# Exit 0 pass, 1 fail, 77 skip: only where apt cannot fetch the packages
# and none were fetched before (no network, the mirror refused them, a
# signature did not verify), with apt's reason.
set -u
src=$(cd "$1" && pwd)
suite=${RPM_DEBIAN_SUITE:-trixie}
mirror=${RPM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${RPM_DEBIAN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/mssf-broker/librpm-debian}/$suite
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
packages="librpm-dev libpopt-dev"
started=$(date +%s)

fail() {
    echo "not ok - $1"
    exit 1
}

skip() {
    echo "SKIP: $1"
    exit 77
}

for t in apt-get dpkg-deb meson ninja pkg-config python3; do
    command -v "$t" >/dev/null || fail "$t is not installed (tools/install-deps)"
done

# fetch: SUITE's packages downloaded and unpacked into $cache/root, their
# .pc files into $cache/pkgconfig; "Debian SUITE's PACKAGE VERSION ..."
# in $cache/fetched. Replaces the cached copy only once all of it is in
# place. apt's output in $cache/apt.log.
fetch() {
    local apt=$cache/apt new=$cache/new deb pc opts
    [ -r "$keyring" ] || { echo "$keyring is missing (debian-archive-keyring): apt could not check $suite's signatures" > "$cache/apt.log"; return 1; }
    rm -rf "$apt" "$new"
    mkdir -p "$apt"/etc/sources.list.d "$apt"/etc/preferences.d "$apt"/lists/partial \
        "$apt"/archives/partial "$new/debs" "$new/root" "$new/pkgconfig" || return 1
    echo "deb [signed-by=$keyring] $mirror $suite main" > "$apt/etc/sources.list"
    # apt's state, lists and archives live in the cache, and it is told
    # that no package is installed (Dir::State::status): the host's
    # sources, lists and dpkg database are neither read nor written
    # (its apt.conf.d, a proxy for instance, still applies).
    # The mirror may be a stored snapshot past its Valid-Until: the
    # signature is still checked, only the expiry is not.
    opts=(-o "Dir::Etc=$apt/etc" -o "Dir::State=$apt" -o "Dir::State::Lists=$apt/lists"
          -o "Dir::Cache=$apt" -o "Dir::Cache::Archives=$apt/archives"
          -o Dir::State::status=/dev/null -o Acquire::Check-Valid-Until=false
          -o APT::Architecture=amd64 -o Acquire::Languages=none -o APT::Sandbox::User=root)
    # shellcheck disable=SC2086 # packages are words
    apt-get "${opts[@]}" -q update > "$cache/apt.log" 2>&1 &&
        (cd "$new/debs" && apt-get "${opts[@]}" -q download $packages) >> "$cache/apt.log" 2>&1 ||
        return 1
    for deb in "$new"/debs/*.deb; do
        dpkg-deb -x "$deb" "$new/root" || return 1
        echo "Debian $suite's $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)"
    done > "$new/fetched" || return 1
    # The .pc files as Debian ships them say prefix=/usr: moved to the
    # unpacked tree, as a librpm installed under another prefix says.
    for pc in "$new"/root/usr/lib/*/pkgconfig/*.pc; do
        [ -f "$pc" ] || return 1
        sed "s#^\([A-Za-z_]*\)=/usr#\1=$cache/root/usr#" "$pc" > "$new/pkgconfig/${pc##*/}" || return 1
    done
    rm -rf "$apt" "$cache/root" "$cache/pkgconfig" "$cache/fetched"
    mv "$new/root" "$cache/root" && mv "$new/pkgconfig" "$cache/pkgconfig" &&
        mv "$new/fetched" "$cache/fetched" && rm -rf "$new"
}

mkdir -p "$cache" || fail "cannot make $cache"
exec 9>"$cache/lock"
flock 9
fresh=$(find "$cache/fetched" -mmin -$((7 * 24 * 60)) 2>/dev/null)
if [ "${RPM_DEBIAN_REFETCH:-0}" = 1 ] || [ -z "$fresh" ]; then
    echo "# fetching $packages from $mirror $suite"
    if ! fetch; then
        reason=$(tail -n 5 "$cache/apt.log" | sed 's/^/#   | /')
        [ -f "$cache/fetched" ] || { printf '%s\n' "$reason"; skip "apt cannot fetch $packages from $mirror $suite (above)"; }
        printf '%s\n' "$reason"
        echo "# apt cannot fetch them now (above): using those fetched on $(date -u -r "$cache/fetched" +%F)"
    fi
fi
# The lock stays held: a run that refetches replaces the cached tree.
sed 's/^/# built against /' "$cache/fetched"

export PKG_CONFIG_PATH=$cache/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
version=$(pkg-config --modversion rpm) || fail "pkg-config does not find rpm.pc in $cache/pkgconfig"
case $(pkg-config --variable=includedir rpm) in
"$cache/root/"*) ;;
*) fail "pkg-config's rpm is not the unpacked one: includedir $(pkg-config --variable=includedir rpm)" ;;
esac
pkg-config --atleast-version=4.20 rpm || fail "Debian $suite's librpm is $version, not 4.20 or later: this test has nothing to compile"

work=$(mktemp -d "${TMPDIR:-/tmp}/mssf-librpm420.XXXXXX") || exit 1
cleanup() {
    if [ "${MSSF_TEST_KEEP:-0}" = 1 ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The user-mode-linux tests are not part of this build; they would only
# make meson look for their kernel.
if ! meson setup "$work/build" "$src" -Dwerror=true -Drpm=enabled -Duml_tests=disabled -Db_colorout=never > "$work/setup.log" 2>&1; then
    tail -n 20 "$work/setup.log" | sed 's/^/#   | /'
    fail "meson setup with librpm $version on PKG_CONFIG_PATH failed (above)"
fi
grep -q "^Run-time dependency rpm found: YES $version\$" "$work/setup.log" ||
    fail "meson did not find librpm $version: $(grep -m 1 'dependency rpm' "$work/setup.log")"
grep -q '^Has header "rpm/rpmplugin.h" with dependency rpm: YES' "$work/setup.log" ||
    fail "meson did not find librpm $version's <rpm/rpmplugin.h>"
echo "ok - meson setup finds librpm $version and its <rpm/rpmplugin.h>"

# Every object compiled from policy/rpm (and tests/rpm's layout check),
# with its compile line, from meson's compile_commands.json.
python3 - "$work/build/compile_commands.json" "$src" > "$work/objects" <<'EOF' || fail "cannot read compile_commands.json"
import json, os, sys
build = os.path.dirname(sys.argv[1])
for entry in json.load(open(sys.argv[1])):
    source = os.path.normpath(os.path.join(build, entry["file"]))
    rel = os.path.relpath(source, sys.argv[2])
    if rel.startswith("policy/rpm/") or rel == "tests/rpm/hooks-layout.c":
        print(entry["output"], rel, entry["command"], sep="\t")
EOF
plugin_object=$(awk -F'\t' '$2 == "policy/rpm/plugin.c" && $1 !~ /fault/ { print $1 }' "$work/objects")
layout_object=$(awk -F'\t' '$2 == "tests/rpm/hooks-layout.c" { print $1 }' "$work/objects")
[ -n "$plugin_object" ] || fail "no object for policy/rpm/plugin.c in the build"
[ -n "$layout_object" ] || fail "no object for tests/rpm/hooks-layout.c: meson did not choose the public header"
awk -F'\t' '$2 == "policy/rpm/plugin.c" && $1 !~ /fault/ { print $3 }' "$work/objects" |
    grep -q -- '-DMSSF_RPM_PUBLIC_PLUGIN_H=1' ||
    fail "the plugin is not compiled with -DMSSF_RPM_PUBLIC_PLUGIN_H=1 against librpm $version"

# shellcheck disable=SC2046 # object names are words without spaces
if ! ninja -C "$work/build" $(awk -F'\t' '$2 ~ /^policy\/rpm\// { print $1 }' "$work/objects") > "$work/ninja.log" 2>&1; then
    grep -v '^\[' "$work/ninja.log" | head -n 40 | sed 's/^/#   | /'
    fail "policy/rpm does not compile against librpm $version's public <rpm/rpmplugin.h> (above)"
fi
# The headers the compiler read, as ninja recorded them from its
# dependency file.
deps=$work/deps
ninja -C "$work/build" -t deps "$plugin_object" > "$deps" || fail "ninja has no dependencies for $plugin_object"
grep -q "$cache/root/usr/include/rpm/rpmplugin.h" "$deps" ||
    fail "$plugin_object was not compiled with librpm $version's rpmplugin.h"
! grep -q '^ */usr/include/rpm/' "$deps" ||
    fail "$plugin_object includes the host's rpm headers: $(grep -o '/usr/include/rpm/[^ ]*' "$deps" | head -n 3 | tr '\n' ' ')"
echo "ok - policy/rpm compiles with -Werror against librpm $version's <rpm/rpmplugin.h> ($(grep -c '	policy/rpm/' "$work/objects") objects)"

if ! ninja -C "$work/build" "$layout_object" > "$work/ninja.log" 2>&1; then
    grep -v '^\[' "$work/ninja.log" | head -n 40 | sed 's/^/#   | /'
    fail "rpm-hooks.h's hook table, which rpm 4.18 builds export, is not librpm $version's (above)"
fi
echo "ok - hooks-layout.c: rpm-hooks.h's hook table (rpm 4.18 builds) is librpm $version's, field by field"

# The layout check can fail: its compile line again, against a copy of
# rpm-hooks.h with two hooks swapped, which -iquote puts before the -I
# folders for its #include "rpm-hooks.h".
mkdir "$work/swapped"
python3 - "$src/policy/rpm/rpm-hooks.h" "$work/swapped/rpm-hooks.h" <<'EOF' || fail "cannot swap two hooks in rpm-hooks.h"
import re, sys
text = open(sys.argv[1]).read()
pre = re.search(r"^ *plugin_fsm_file_pre_func fsm_file_pre;\n", text, re.M)
post = re.search(r"^ *plugin_fsm_file_post_func fsm_file_post;\n", text, re.M)
assert pre and post and pre.end() == post.start()
open(sys.argv[2], "w").write(text[:pre.start()] + post.group(0) + pre.group(0) + text[post.end():])
EOF
layout_command=$(awk -F'\t' '$2 == "tests/rpm/hooks-layout.c" { print $3 }' "$work/objects")
# The compile line is meson's, one shell word per argument.
if (cd "$work/build" && eval "$layout_command -iquote $work/swapped -fsyntax-only") > "$work/swapped.log" 2>&1; then
    fail "hooks-layout.c compiles with fsm_file_pre and fsm_file_post swapped: it checks nothing"
fi
grep -q 'fsm_file_pre is at another offset' "$work/swapped.log" ||
    fail "hooks-layout.c failed on swapped hooks, but not for their offsets: $(head -n 3 "$work/swapped.log")"
echo "ok - hooks-layout.c refuses a hook table with fsm_file_pre and fsm_file_post swapped"
echo "# $(($(date +%s) - started)) s"
