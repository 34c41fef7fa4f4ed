#!/bin/sh
# Host integration test of mssf-policy in a temporary --root:
#   test-roundtrip.sh MSSF_POLICY SMACK_HELPER DATA_DIR EXPECTED_DIR
# install/remove round trips checked byte for byte (rule files against
# golden files, manifest copies, origins, the whole tree after a remove
# equal to the tree before the install, policy.db included), real
# security.SMACK64EXEC xattrs (needs root: otherwise SKIP), the lock under
# concurrent installs, a stand-in smackfs, and the bus reload. Exit 0
# pass, 1 fail, 77 skip.
set -u
tool=$(readlink -f "$1")
helper=$(readlink -f "$2")
data=$3
expected=$4
failures=0

check() {
    if [ "$2" = "$3" ]; then
        echo "ok - $1"
    else
        echo "not ok - $1: expected '$2', got '$3'"
        failures=$((failures + 1))
    fi
}

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: setting security.* xattrs needs root"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/mssf-policy-test.XXXXXX") || exit 1
daemon_pid=""
trap '[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null; rm -rf "$work"' EXIT
root=$work/root
bin=/usr/bin
mkdir -p "$root$bin"
for name in mce maps newapp; do
    cp /bin/true "$root$bin/$name"
done
for file in "$data"/*.xml; do
    sed "s|@BIN@|$bin|g" "$file" > "$work/$(basename "$file")"
done
unset MSSF_ROOT MSSF_MANIFEST_DIR MSSF_ORIGIN_DIR MSSF_POLICY_DB MSSF_RULES_DIR \
    MSSF_DEVICE_POLICY MSSF_LOCK_FILE MSSF_SMACKFS

run() {
    "$tool" "$@" --root "$root" > "$work/out" 2>&1
}
# Every file's content and SMACK64EXEC label, except the lock file and the
# cache of parsed manifests (derived, rewritten by any run under the lock;
# tests/policy-install/test-cache.c checks it changes no result).
state() {
    (cd "$root" && find . -type f ! -name lock ! -name .mssf-policy.cache | sort | while read -r f; do
        printf '%s %s %s\n' "$f" "$(md5sum < "$f" | cut -c1-32)" \
            "$("$helper" getxattr "$f" security.SMACK64EXEC 2>/dev/null || echo -)"
    done)
}
exec_label() {
    "$helper" getxattr "$root$bin/$1" security.SMACK64EXEC 2>/dev/null || echo none
}
same_file() {
    cmp -s "$1" "$2" && echo same || echo different
}

empty_state=$(state)
run install --origin system mce "$work/mce.xml"
check "install mce" 0 $?
after_mce=$(state)
run install --origin thirdparty maps "$work/maps.xml"
check "install maps" 0 $?
check "mssf-maps byte for byte" same "$(same_file "$expected/mssf-maps" "$root/etc/smack/accesses.d/mssf-maps")"
check "mssf-mce byte for byte" same "$(same_file "$expected/mssf-mce" "$root/etc/smack/accesses.d/mssf-mce")"
check "rule files are root's alone" 600 "$(stat -c %a "$root/etc/smack/accesses.d/mssf-maps")"
chmod 0644 "$root/etc/smack/accesses.d/mssf-mce"
"$tool" install --root "$root" --origin system mce "$work/mce.xml" >/dev/null 2>&1
check "a rule file of another mode is written again" 600 "$(stat -c %a "$root/etc/smack/accesses.d/mssf-mce")"
check "manifest copied byte for byte" same "$(same_file "$work/maps.xml" "$root/var/lib/mssf/manifests/maps.xml")"
check "origin recorded" thirdparty "$(cat "$root/var/lib/mssf/origins/maps")"
check "maps binary labelled" maps "$(exec_label maps)"
check "mce binary labelled" mce "$(exec_label mce)"
check "list" "$(printf 'maps\tthirdparty\nmce\tsystem')" "$("$tool" list --root "$root")"
"$tool" dump --root "$root" | grep -q '^name com.nokia.mce$'
check "dump shows the declared name" 0 $?
after_maps=$(state)

run install --origin thirdparty maps "$work/maps.xml"
check "reinstalling the same manifest" 0 $?
check "a reinstall changes nothing" "$after_maps" "$(state)"

run compile
check "compile" 0 $?
check "compile reproduces policy.db" "$after_maps" "$(state)"
run compile --output "$work/other.db"
check "compile --output" same "$(same_file "$work/other.db" "$root/var/lib/mssf/policy.db")"

# Failures change nothing.
run install --origin thirdparty broken "$work/broken.xml"
check "a broken manifest exits 3" 3 $?
grep -q "broken.xml:[0-9]*:[0-9]*: error" "$work/out"
check "its error names file:line:column" 0 $?
check "a refused install changes nothing" "$after_maps" "$(state)"
run install --origin system mce2 "$work/mce.xml"
check "a second package declaring com.nokia.mce exits 3" 3 $?
grep -q "com.nokia.mce" "$work/out"
check "the conflict names the bus name" 0 $?
check "a conflicting install changes nothing" "$after_maps" "$(state)"
run remove nosuchpackage
check "removing an unknown package exits 4" 4 $?
run install "bad/name" "$work/maps.xml"
check "an invalid package name exits 3" 3 $?
mv "$root/var/lib/mssf/policy.db" "$work/saved.db"
mkdir "$root/var/lib/mssf/policy.db"
sed "s|$bin/maps|$bin/newapp|" "$work/maps.xml" > "$work/newapp.xml"
run install --origin thirdparty newapp "$work/newapp.xml"
check "an install that cannot write policy.db exits 1" 1 $?
grep -q "error: writing .*/var/lib/mssf/policy.db failed: Is a directory" "$work/out"
check "the error names the file" 0 $?
rmdir "$root/var/lib/mssf/policy.db"
mv "$work/saved.db" "$root/var/lib/mssf/policy.db"
check "the failed install was rolled back" "$after_maps" "$(state)"
check "newapp binary not labelled" none "$(exec_label newapp)"

# Round trips.
run remove maps
check "remove maps" 0 $?
check "remove maps restores the state before its install" "$after_mce" "$(state)"
run remove mce
check "remove mce" 0 $?
check "remove mce restores the empty state (and policy)" "$empty_state" \
    "$(state | grep -v policy.db)"
check "rule store empty" "" "$(ls "$root/etc/smack/accesses.d")"

# Concurrent installs are serialised by the lock.
run install --origin system mce "$work/mce.xml"
for i in 1 2 3 4; do
    sed "s|$bin/maps|/usr/bin/app$i|" "$work/maps.xml" > "$work/app$i.xml"
    "$tool" install --root "$root" --origin thirdparty "app$i" "$work/app$i.xml" \
        > "$work/out$i" 2>&1 &
done
wait
check "four concurrent installs all land" 5 "$("$tool" list --root "$root" | wc -l)"
rules=$(cat "$root"/etc/smack/accesses.d/mssf-app* | grep -c ' Location w$')
check "each has its rule file" 4 "$rules"
for i in 1 2 3 4; do
    "$tool" remove --root "$root" "app$i" > /dev/null 2>&1 &
done
wait
run remove mce
check "concurrent removes leave nothing" " " "$(ls "$root/etc/smack/accesses.d") $("$tool" list --root "$root")"

# A stand-in smackfs: every load2 write is appended, last one wins.
fake=$work/smackfs
mkdir -p "$fake"
: > "$fake/load2"
run install --smackfs "$fake" --origin system mce "$work/mce.xml"
check "install with --smackfs" 0 $?
check "the rule went to load2" "mce Cellular w" "$(cat "$fake/load2")"
run remove --smackfs "$fake" mce
check "remove revokes it" "$(printf 'mce Cellular w\nmce Cellular -')" "$(cat "$fake/load2")"
run install --no-kernel --smackfs "$fake" --origin system mce "$work/mce.xml"
check "--no-kernel leaves load2 alone" 2 "$(wc -l < "$fake/load2")"
run remove mce

# The bus: told after a real (not --root) install, through DBUS_SYSTEM_BUS_ADDRESS.
export MSSF_MANIFEST_DIR=$root/m MSSF_ORIGIN_DIR=$root/o MSSF_POLICY_DB=$root/p.db
export MSSF_RULES_DIR=$root/r MSSF_DEVICE_POLICY=$root/d.conf MSSF_LOCK_FILE=$root/lock
export MSSF_SMACKFS=$fake
# Without --root binary paths are the system's: name one under $work.
sed "s|@BIN@|$root$bin|g" "$data/mce.xml" > "$work/mce-system.xml"
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/nobus "$tool" install --origin system mce \
    "$work/mce-system.xml" > "$work/out" 2>&1
check "install with no bus running succeeds" 0 $?
grep -q "note: no system bus is running" "$work/out"
check "and says so" 0 $?
if command -v dbus-daemon > /dev/null; then
    dbus-daemon --session --nofork --nopidfile --print-address=3 --address="unix:path=$work/bus" \
        3> "$work/address" &
    daemon_pid=$!
    for i in $(seq 1 50); do [ -s "$work/address" ] && break; sleep 0.1; done
    DBUS_SYSTEM_BUS_ADDRESS=$(cat "$work/address") "$tool" remove mce > "$work/out" 2>&1
    check "remove with a bus running succeeds" 0 $?
    check "and the bus reloaded without complaint" "" "$(cat "$work/out")"
fi

echo "$failures failure(s)"
[ "$failures" = 0 ]
