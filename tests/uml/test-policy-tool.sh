#!/bin/sh
# mssf-policy against real Smack, inside user-mode-linux (run by uml-run):
#   test-policy-tool.sh MSSF_POLICY SMACK_HELPER DATA_DIR
# Installs and removes packages with the kernel's smackfs and real
# security.* xattrs on tmpfs: rules appear in and disappear from load2,
# access2 answers as granted, a SMACK64EXEC binary runs with the package's
# label, a rule two packages need survives the removal of one, and a
# failed install leaves kernel, labels and files as they were.
set -u
tool=$1
helper=$2
data=$3
failures=0

check() {
    if [ "$2" = "$3" ]; then
        echo "ok - $1"
    else
        echo "not ok - $1: expected '$2', got '$3'"
        failures=$((failures + 1))
    fi
}

[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }

# Everything the tool writes lives on the guest's tmpfs; only smackfs is
# the real system's.
t=/tmp/policy-test
bin=$t/bin
mkdir -p "$bin" "$t/etc"
export MSSF_MANIFEST_DIR=$t/manifests MSSF_ORIGIN_DIR=$t/origins
export MSSF_POLICY_DB=$t/policy.db MSSF_RULES_DIR=$t/accesses.d
export MSSF_DEVICE_POLICY=$t/etc/device-policy.conf MSSF_LOCK_FILE=$t/lock
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$t/no-bus-here
for name in mce maps broken; do
    cp /bin/cat "$bin/$name"
done
for file in "$data"/*.xml; do
    sed "s|@BIN@|$bin|g" "$file" > "$t/$(basename "$file")"
done

in_kernel() {
    # The access the kernel lists for a pair, "" when none.
    awk -v s="$1" -v o="$2" '$1 == s && $2 == o && $3 != "-" { print $3 }' /sys/fs/smackfs/load2
}
access() {
    "$helper" access "$1" "$2" "$3"
}
exec_label() {
    "$helper" getxattr "$1" security.SMACK64EXEC 2>/dev/null || echo none
}

# install
"$tool" install --origin system mce "$t/mce.xml" > "$t/out" 2>&1
check "install mce succeeds" 0 $?
grep -q "no system bus is running" "$t/out"
check "no bus running is a note" 0 $?
"$tool" install --origin thirdparty maps "$t/maps.xml" > "$t/out" 2>&1
check "install maps succeeds" 0 $?
check "load2 has mce Cellular" w "$(in_kernel mce Cellular)"
check "load2 has maps Location" w "$(in_kernel maps Location)"
check "load2 has maps mce::DeviceModeControl" w "$(in_kernel maps mce::DeviceModeControl)"
check "load2 lets maps reach mce" w "$(in_kernel maps mce)"
check "load2 lets mce answer maps" w "$(in_kernel mce maps)"
check "access2: maps holds Location" 1 "$(access maps Location w)"
check "access2: maps does not hold Cellular" 0 "$(access maps Cellular w)"
check "maps binary carries SMACK64EXEC" maps "$(exec_label "$bin/maps")"
check "maps binary runs as maps" maps "$("$bin/maps" /proc/self/attr/current)"
check "mce binary runs as mce" mce "$("$helper" run _ "$bin/mce" /proc/self/attr/current)"
check "rule file on disk" "maps Location w" "$(grep '^maps Location' "$t/accesses.d/mssf-maps")"
out=$("$tool" explain --label maps --dest com.nokia.mce --path /com/nokia/mce/request \
    --interface com.nokia.mce.request --member req_radio_states_change)
check "explain (kernel oracle): maps may change radio states" "allowed" "$(echo "$out" | head -n 1)"
out=$("$tool" explain --label intruder --dest com.nokia.mce --path /com/nokia/mce/request \
    --interface com.nokia.mce.request --member req_radio_states_change)
check "explain (kernel oracle): intruder may not" "denied" "$(echo "$out" | head -n 1)"
echo "$out" | grep -q "tokens from: the kernel"
check "explain used access2" 0 $?

# A rule two packages need: both plugins give the launcher Location. A
# package grants to another package's binary only where the device policy
# lets its origin name that label (the built-in one: system), and only
# while that package is installed.
echo '<aegis/>' > "$t/launcher.xml"
"$tool" install --origin system launcher "$t/launcher.xml" >/dev/null 2>&1
check "install the launcher" 0 $?
load_before=$(sort /sys/fs/smackfs/load2)
out=$("$tool" install --origin thirdparty plugin-a "$t/plugin-a.xml" 2>&1)
check "a store plugin may not grant to the launcher" 3 $?
echo "$out" | grep -qE "plugin-a.xml:4:5: error: the package of binary 'launcher' is package launcher's"
check "the refusal names file:line:column" 0 $?
check "the refused store plugin changed no kernel rule" "$load_before" "$(sort /sys/fs/smackfs/load2)"
check "launcher does not hold Location" 0 "$(access launcher Location w)"
"$tool" install --origin system plugin-a "$t/plugin-a.xml" >/dev/null 2>&1 &&
    "$tool" install --origin system plugin-b "$t/plugin-b.xml" >/dev/null 2>&1
check "install both plugins" 0 $?
check "launcher holds Location" 1 "$(access launcher Location w)"
"$tool" remove plugin-a >/dev/null 2>&1
check "remove plugin-a" 0 $?
check "launcher still holds Location (plugin-b lists it)" 1 "$(access launcher Location w)"
"$tool" remove plugin-b >/dev/null 2>&1
check "launcher lost Location with the last plugin" 0 "$(access launcher Location w)"
"$tool" remove launcher >/dev/null 2>&1

# A failed install changes nothing: policy.db cannot be replaced (a
# directory is in its way), after manifest, labels, rule files and kernel
# rules were already changed.
before_load2=$(sort /sys/fs/smackfs/load2 | md5sum)
before_files=$(cd "$t" && find manifests origins accesses.d -type f | sort | xargs cat | md5sum)
mv "$t/policy.db" "$t/policy.db.saved"
mkdir "$t/policy.db"
sed "s|maps|newapp|" "$t/maps.xml" > "$t/newapp.xml"
cp /bin/cat "$bin/newapp"
sed -i "s|$bin/maps|$bin/newapp|" "$t/newapp.xml"
"$tool" install --origin thirdparty newapp "$t/newapp.xml" > "$t/out" 2>&1
status=$?
check "install fails when policy.db cannot be written" 1 "$status"
rmdir "$t/policy.db"
mv "$t/policy.db.saved" "$t/policy.db"
check "kernel rules unchanged after the failure" "$before_load2" "$(sort /sys/fs/smackfs/load2 | md5sum)"
check "no newapp rule in the kernel" "" "$(in_kernel newapp Location)"
check "files unchanged after the failure" "$before_files" \
    "$(cd "$t" && find manifests origins accesses.d -type f | sort | xargs cat | md5sum)"
check "newapp binary not labelled" none "$(exec_label "$bin/newapp")"

# An invalid manifest is refused with file:line:column.
"$tool" install broken "$t/broken.xml" > "$t/out" 2>&1
check "broken manifest refused (exit 3)" 3 $?
grep -q "broken.xml:[0-9]*:[0-9]*: error" "$t/out"
check "the error names file:line:column" 0 $?

# remove
"$tool" remove maps >/dev/null 2>&1
check "remove maps succeeds" 0 $?
check "load2: maps Location gone" "" "$(in_kernel maps Location)"
check "load2: maps reach mce gone" "" "$(in_kernel maps mce)"
check "load2: mce answer maps gone" "" "$(in_kernel mce maps)"
check "access2: maps no longer holds Location" 0 "$(access maps Location w)"
check "load2: mce keeps Cellular" w "$(in_kernel mce Cellular)"
check "maps binary lost SMACK64EXEC" none "$(exec_label "$bin/maps")"
check "maps binary runs with the caller's label" _ "$("$bin/maps" /proc/self/attr/current)"
check "maps rule file removed" absent "$([ -e "$t/accesses.d/mssf-maps" ] && echo present || echo absent)"
"$tool" remove mce >/dev/null 2>&1
check "remove mce succeeds" 0 $?
check "load2: mce Cellular gone" "" "$(in_kernel mce Cellular)"
check "rule store empty" "" "$(ls "$t/accesses.d")"
check "list is empty" "" "$("$tool" list)"

[ "$failures" = 0 ] || cat "$t/out"
echo "$failures failure(s)"
[ "$failures" = 0 ]
