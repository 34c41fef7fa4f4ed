#!/bin/sh
# The hostile corpus without Debian: mssf-policy install --root R --origin
# ORIGIN run by hand, in a small synthetic root with a dpkg admin
# directory of its own (status, info/*.list, diversions), the victim
# registered (origin system; also a dpkg package listing /usr/sbin/victimd)
# and a second victim registered by hand only. Each manifest of
# mssf-hostile/aegis is installed with the files its package would have
# put there (what its maintainer scripts do is done here), for the origins
# store (granted nothing) and thirdparty, and removed; the state is
# compared as in test-hostile-apt.sh (lib.sh, the table in ./cases). Then
# what needs a dpkg database: a file two packages list, diversions, and a
# manifest changed between configure and the trigger
# (mssf-policy dpkg configure / triggered with that database).
#   test-hostile-install.sh MSSF_POLICY
# Exit 0 pass, 1 fail, 77 skip (not root: security.* xattrs).
set -u
hostile=$(cd "$(dirname "$0")" && pwd)
tool=$(readlink -f "$1")

[ "$(id -u)" = 0 ] || { echo "SKIP: setting security.* xattrs needs root"; exit 77; }
for t in getfattr setfattr dpkg-query perl; do
    command -v "$t" >/dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done
. "$hostile/../package/lib.sh"
. "$hostile/lib.sh"

work=$(mktemp -d "${TMPDIR:-/var/tmp}/mssf-hostile-install.XXXXXX") || exit 1
race_pid=
cleanup() {
    [ -z "$race_pid" ] || kill "$race_pid" 2>/dev/null
    if [ "${MSSF_TEST_KEEP:-0}" = 1 ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
root=$work/root
smackfs=$work/smackfs
load2=$smackfs/load2
if ! setfattr -n security.SMACK64EXEC -v x "$work" 2>/dev/null; then
    echo "SKIP: this file system ($work) does not take security.* xattrs"
    exit 77
fi
setfattr -x security.SMACK64EXEC "$work"

mp() { "$tool" "$@" --root "$root" --smackfs "$smackfs" --no-reload </dev/null; }

# ---- the synthetic root ----
# dpkg's database: PACKAGE FILE... makes PACKAGE installed, listing FILEs.
dpkg_package() {
    package=$1
    shift
    printf 'Package: %s\nStatus: install ok installed\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: t\n\n' \
        "$package" >>"$root/var/lib/dpkg/status"
    printf '/.\n/usr\n' >"$root/var/lib/dpkg/info/$package.list"
    for file in "$@"; do echo "$file"; done >>"$root/var/lib/dpkg/info/$package.list"
}
dpkg_forget() {
    awk -v RS= -v ORS='\n\n' -v p="Package: $1" 'index($0, p "\n") != 1' "$root/var/lib/dpkg/status" \
        >"$work/status" && cp "$work/status" "$root/var/lib/dpkg/status"
    rm -f "$root/var/lib/dpkg/info/$1".*
}

# make_root: the root, its dpkg database, the victims registered; its
# state in $work/base. Made again when a case left it changed, so that
# one hole does not spoil the next case.
make_root() {
    rm -rf "$root" "$smackfs"
    mkdir -p "$smackfs" "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib" "$root/dev" "$root/opt/victim2" \
        "$root/var/lib/dpkg/info" "$root/usr/share/mssf/aegis" "$root/etc/mssf"
    : >"$load2"
    printf '#!/bin/sh\necho victimd\n' >"$root/usr/sbin/victimd"
    printf '#!/bin/sh\necho victim2d\n' >"$root/opt/victim2/victim2d"
    printf '#!/bin/sh\necho passwd\n' >"$root/usr/bin/passwd"
    printf '#!/bin/sh\necho chfn\n' >"$root/usr/bin/chfn.distrib"
    printf '#!/bin/sh\necho tool of the diverter\n' >"$root/usr/bin/tool"
    printf '#!/bin/sh\necho tool of hostile-diverted\n' >"$root/usr/bin/tool.distrib"
    chmod 755 "$root"/usr/sbin/* "$root"/opt/victim2/* "$root"/usr/bin/*
    chmod 4755 "$root/usr/bin/passwd" "$root/usr/bin/chfn.distrib"
    mknod "$root/dev/null" c 1 3 || { echo "not ok - mknod /dev/null"; exit 1; }
    # A merged-/usr root, as Debian's.
    ln -s usr/bin "$root/bin"
    # The built-in device policy (docs/manifest.md), and a monitor label.
    { cat "$hostile/builtin-device-policy.conf"; echo "monitor hostile-monitor"; } >"$root/etc/mssf/device-policy.conf"

    : >"$root/var/lib/dpkg/status"
    dpkg_package victim /usr/sbin /usr/sbin/victimd
    dpkg_package passwd /usr/bin /usr/bin/passwd /usr/bin/chfn
    dpkg_package diverter /usr/bin /usr/bin/tool
    # passwd's /usr/bin/chfn is at /usr/bin/chfn.distrib (a local diversion);
    # hostile-diverted's /usr/bin/tool is at /usr/bin/tool.distrib (diverter's).
    printf '/usr/bin/chfn\n/usr/bin/chfn.distrib\n:\n/usr/bin/tool\n/usr/bin/tool.distrib\ndiverter\n' \
        >"$root/var/lib/dpkg/diversions"
    check "dpkg-query reads the synthetic database" "1.0" \
        "$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' victim 2>&1)"

    mp install --origin system victim "$hostile/mssf-hostile/debian/victim.aegis" >"$work/victim.log" 2>&1
    check "the victim is registered (origin system)" 0 $?
    cat >"$work/victim2.aegis" <<'EOF'
<aegis>
  <request>
    <credential name="Location"/>
    <for path="/opt/victim2/victim2d"/>
  </request>
</aegis>
EOF
    mp install --origin system victim2 "$work/victim2.aegis" >"$work/victim2.log" 2>&1
    check "a second victim, registered by hand only (no dpkg package)" 0 $?
    check "the victim's program carries its label" victim \
        "$(getfattr --only-values -n security.SMACK64EXEC "$root/usr/sbin/victimd" 2>/dev/null)"
    snapshot "$root" "$load2" "$work/base"
}
make_root
cp "$work/base" "$work/base0"

# again: the state differs from $work/base after CASE; make the root again.
again() {
    LC_ALL=C cmp -s "$work/base" "$1" && return 0
    make_root >/dev/null
    check "$2: the root made again is as before" "" "$(LC_ALL=C comm -3 "$work/base0" "$work/base")"
}

# One attempt: install CASE's MANIFEST as PKG with ORIGIN, judge it
# against the table's EXPECT and KEY, remove it, and check that the state
# is as before.
attempt() {
    name=$1 pkg=$2 manifest=$3 origin=$4 expect=$5 key=$6
    log=$work/$name-$origin.log
    hand_setup "$name" >"$work/own"
    writes=$(wc -l <"$load2")
    mp install --origin "$origin" "$pkg" "$manifest" >"$log" 2>&1
    status=$?
    race_stop
    snapshot "$root" "$load2" "$work/after"
    writes=$(($(wc -l <"$load2") - writes))
    verdict "$name ($origin)" "$expect" "$key" "$status" "$log" "$manifest" "$manifest" "$pkg" \
        "$origin" "$work/own" "$work/base" "$work/after" "$writes"
    [ "$status" = 0 ] && [ "${MSSF_TEST_VERBOSE:-0}" != 1 ] || sed 's/^/# /' "$log"
    if [ "$name" = hostile-alias ]; then
        check "$name ($origin): its program, named through /bin, carries its label" "$name" \
            "$(getfattr --only-values -n security.SMACK64EXEC "$root/usr/bin/$name" 2>/dev/null)"
    fi
    if [ -f "$root/var/lib/mssf/manifests/$pkg.xml" ]; then
        mp remove "$pkg" >"$log.remove" 2>&1
        check "$name ($origin): removed" 0 $?
    fi
    hand_teardown "$name"
    snapshot "$root" "$load2" "$work/removed"
    check "$name ($origin): after the removal the state is as before" "" \
        "$(LC_ALL=C comm -3 "$work/base" "$work/removed" | head -20)"
    again "$work/removed" "$name ($origin)"
}

# ---- the corpus, by hand ----
cases >"$work/cases"
while read -r name expect key; do
    for origin in store thirdparty; do
        attempt "$name" "$name" "$hostile/mssf-hostile/aegis/$name.aegis" "$origin" "$expect" "$key"
    done
done <"$work/cases"

# ---- by hand: what only a registration or a diversion says ----
extra() {
    name=$1 expect=$2 key=$3
    cat >"$work/$name.aegis"
    attempt "$name" "$name" "$work/$name.aegis" store "$expect" "$key"
}
extra_cases >"$work/extra-cases"
while read -r name expect key; do
    extra "$name" "$expect" "$key" <"$hostile/extra/$name.aegis"
done <"$work/extra-cases"
extra hostile-for-diverted refused =passwd <<'EOF'
<aegis>
  <request>
    <credential name="Cellular"/>
    <for path="/usr/bin/hostile-for-diverted"/>
    <for path="/usr/bin/chfn.distrib"/> <!-- hostile -->
  </request>
</aegis>
EOF

# ---- controls: what the device policy lets the system origin do ----
# The refusals above are for the origin, not blanket: the same manifests
# from the system origin ("origin system *", "label system *").
control() {
    name=$1
    hand_setup "$name" >/dev/null
    mp install --origin system "$name" "$hostile/mssf-hostile/aegis/$name.aegis" >"$work/$name-system.log" 2>&1
    check "$name (system): installed" 0 $?
    [ "$(cat "$work/$name-system.log")" = "" ] || sed 's/^/# /' "$work/$name-system.log"
    mp remove "$name" >/dev/null 2>&1
    hand_teardown "$name"
    snapshot "$root" "$load2" "$work/removed"
    check "$name (system): after the removal the state is as before" "" \
        "$(LC_ALL=C comm -3 "$work/base" "$work/removed" | head -20)"
    again "$work/removed" "$name (system)"
}
control hostile-owner-system
control hostile-setxid

# ---- as dpkg runs it, with the synthetic database ----
# dpkg_attempt CASE EXPECT KEY FILE...: CASE, a dpkg package listing FILEs
# (its manifest on stdin), configured and purged. dpkg_own: one more file
# of its own (where a diversion put one).
dpkg_own=
dpkg_attempt() {
    name=$1 expect=$2 key=$3
    shift 3
    aegis=$root/usr/share/mssf/aegis/$name.aegis
    cat >"$aegis"
    hand_setup "$name" >/dev/null
    dpkg_package "$name" /usr/share/mssf/aegis/$name.aegis "/usr/bin/$name" "$@"
    { echo "/usr/share/mssf/aegis/$name.aegis"; echo "/usr/bin/$name"; echo "$dpkg_own"; } >"$work/own"
    log=$work/$name-dpkg.log
    writes=$(wc -l <"$load2")
    mp dpkg configure "$name" >"$log" 2>&1
    status=$?
    snapshot "$root" "$load2" "$work/after"
    writes=$(($(wc -l <"$load2") - writes))
    cp "$aegis" "$work/$name.source"
    verdict "$name (dpkg)" "$expect" "$key" "$status" "$log" "$work/$name.source" "$aegis" "$name" \
        - "$work/own" "$work/base" "$work/after" "$writes"
    [ "$status" = 0 ] && [ "${MSSF_TEST_VERBOSE:-0}" != 1 ] || sed 's/^/# /' "$log"
    mp dpkg purge "$name" >"$log.purge" 2>&1
    check "$name (dpkg): purged" 0 $?
    dpkg_forget "$name"
    rm -f "$aegis"
    hand_teardown "$name"
    snapshot "$root" "$load2" "$work/removed"
    check "$name (dpkg): after the purge the state is as before" "" \
        "$(LC_ALL=C comm -3 "$work/base" "$work/removed" | head -20)"
    again "$work/removed" "$name (dpkg)"
}
dpkg_attempt hostile-listed-twice refused =victim /usr/sbin/victimd <<'EOF'
<aegis>
  <!-- Its dpkg list names the victim's program too (as if it had shipped it). -->
  <request>
    <credential name="Cellular"/>
    <for path="/usr/bin/hostile-listed-twice"/>
    <for path="/usr/sbin/victimd"/> <!-- hostile -->
  </request>
</aegis>
EOF
dpkg_attempt hostile-diverted refused =diverter /usr/bin/tool <<'EOF'
<aegis>
  <!-- Its /usr/bin/tool is at /usr/bin/tool.distrib: /usr/bin/tool is the diverter's. -->
  <request>
    <credential name="Cellular"/>
    <for path="/usr/bin/hostile-diverted"/>
    <for path="/usr/bin/tool"/> <!-- hostile -->
  </request>
</aegis>
EOF
dpkg_own=/usr/bin/tool.distrib
# Its own file where the diversion put it: by the letter of "in its list
# and in no other package's list" not its own (diverter lists
# /usr/bin/tool too), by where dpkg put it its own. Either reading is
# safe; the diverter's file must stay untouched.
dpkg_attempt hostile-diverted-own unharmed - /usr/bin/tool <<'EOF'
<aegis>
  <!-- Its own /usr/bin/tool, where the diversion put it. -->
  <request>
    <credential name="Cellular"/>
    <for path="/usr/bin/hostile-diverted-own"/>
    <for path="/usr/bin/tool.distrib"/>
  </request>
</aegis>
EOF
dpkg_own=

# A manifest changed on disk between configure and the trigger: the
# trigger compiles the registered copy.
aegis=$root/usr/share/mssf/aegis/hostile-retrigger.aegis
cp "$hostile/mssf-hostile/aegis/hostile-retrigger.aegis" "$aegis"
hand_setup hostile-retrigger >/dev/null
dpkg_package hostile-retrigger /usr/share/mssf/aegis/hostile-retrigger.aegis /usr/bin/hostile-retrigger
mp dpkg configure hostile-retrigger >"$work/retrigger.log" 2>&1
check "hostile-retrigger (dpkg): configured" 0 $?
snapshot "$root" "$load2" "$work/configured"
cp "$hostile/mssf-hostile/aegis/hostile-retrigger.late" "$aegis"
mp dpkg triggered >>"$work/retrigger.log" 2>&1
check "hostile-retrigger (dpkg): the trigger ran" 0 $?
snapshot "$root" "$load2" "$work/triggered"
check "hostile-retrigger (dpkg): the trigger changed nothing (policy.db, labels)" "" \
    "$(LC_ALL=C comm -3 "$work/configured" "$work/triggered")"
mp dump >"$work/dump" 2>&1
check_no_grep "hostile-retrigger (dpkg): policy.db has no late name" 'org\.mssf\.hostile\.Late' "$work/dump"
mp dpkg purge hostile-retrigger >/dev/null 2>&1
dpkg_forget hostile-retrigger
rm -f "$aegis"
hand_teardown hostile-retrigger
snapshot "$root" "$load2" "$work/removed"
check "hostile-retrigger (dpkg): after the purge the state is as before" "" \
    "$(LC_ALL=C comm -3 "$work/base" "$work/removed" | head -20)"

# What dh_mssf runs at build time: a ".." path is reported there already.
manifest=$hostile/mssf-hostile/aegis/hostile-dotdot.aegis
"$tool" check "$manifest" >"$work/check.log" 2>&1
check_grep "mssf-policy check (dh_mssf) reports the \"..\" path at its <for>" \
    "^$manifest$(marked_position "$manifest"): (error|warning): " "$work/check.log"

[ "$failures" = 0 ] && echo "all hostile install cases passed"
exit $((failures > 0))
