#!/bin/sh
# Hostile packages installed the way a device installs software: in the
# Debian root of tests/package (mmdebstrap, cached), with mssf-broker's
# packages and the victim (from the system repository) installed first,
# each package of the hostile corpus (mssf-hostile/, built once with
# dpkg-buildpackage and this tree's dh_mssf) is installed with dpkg -i
# (the unknown origin) and with apt-get from the store's signed repository
# (origin thirdparty), then purged. The state before and after each step
# (every file's security.SMACK64EXEC and security.ima, every rule file,
# policy.db, the stand-in smackfs load2, the registrations) says whether
# the package was refused (nothing changed, one error line with the
# manifest's line and column), confined (installed, a warning, nothing
# but its own artefacts changed) or let past its own namespace. The case
# table is ./cases; README.md says what each case attacks.
#   test-hostile-apt.sh SOURCE_DIR CACHE_DIR
# Exit 0 pass, 1 fail, 77 skip (not root, a tool missing, no mirror).
set -u
hostile=$(cd "$(dirname "$0")" && pwd)
here=$(cd "$hostile/../package" && pwd)
src=$1
cache=$2

fail_now() {
    echo "not ok - $1"
    exit 1
}

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a chroot, dpkg in a Debian root)"; exit 77; }
for tool in dpkg-buildpackage dh apt-ftparchive gpg gpgv mmdebstrap unshare getfattr setfattr timeout; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
# A mount namespace of our own: what is mounted in the root goes with us.
if [ -z "${MSSF_TEST_NS:-}" ]; then
    MSSF_TEST_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

. "$here/lib.sh"
. "$hostile/lib.sh"

work=$(mktemp -d /tmp/mssf-hostile-apt.XXXXXX) || exit 1
race_pidfile=
cleanup() {
    stop_race
    umount "$work/root/proc" 2>/dev/null
    # MSSF_TEST_KEEP=1 keeps the root and every log (when working on the test).
    if [ "${MSSF_TEST_KEEP:-0}" = 1 ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# hostile-race's postinst leaves its loop's pid here; the loop must be gone
# once the postinst has exited.
stop_race() {
    [ -n "$race_pidfile" ] && [ -s "$race_pidfile" ] || return 0
    pid=$(cat "$race_pidfile")
    rm -f "$race_pidfile"
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        return 1
    fi
    return 0
}

debs=${MSSF_TEST_DEBS:-$("$here/build-debs.sh" "$src" "$cache")} || fail_now "building mssf-broker's packages"
roottar=$("$here/make-root.sh" "$cache")
case $? in
0) ;;
77) exit 77 ;;
*) fail_now "making a Debian root with mmdebstrap" ;;
esac
hdebs=$("$hostile/build-hostile.sh" "$cache" "$debs") || fail_now "building the hostile packages"

MSSF_SMACKFS=/run/fake-smackfs
setup_root
load2=$root$MSSF_SMACKFS/load2
mkdir -p "$root$MSSF_SMACKFS"
: >"$load2"
race_pidfile=$root/run/hostile-race.pid

# In the root, bounded: a configure that hangs (a FIFO opened for reading)
# fails its case instead of the whole run.
in_root() {
    log=$1
    shift
    timeout -k 5 60 chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive MSSF_SMACKFS=$MSSF_SMACKFS "$@" </dev/null >"$log" 2>&1
}
apt_q() {
    log=$1
    shift
    in_root "$log" apt-get -q -y -o Dpkg::Use-Pty=0 -o APT::Color=0 "$@"
}

# ---- two repositories: the victim in the system's, the corpus in the store's ----
make_keys
publish system "MSSF Test System" system "$hdebs"/victim_1.0_all.deb "$hdebs"/etc-trusted_1.0_all.deb
publish store "MSSF Test Store" store $(ls "$hdebs"/*.deb | grep -v -e '/victim_' -e '/etc-trusted_')
configure_apt
# No third repository here.
awk -v RS= -v ORS='\n\n' '!/\/srv\/fake/' "$root/etc/apt/sources.list.d/mssf-test.sources" \
    >"$work/sources" && cp "$work/sources" "$root/etc/apt/sources.list.d/mssf-test.sources"
apt_q "$work/update.log" update || { cat "$work/update.log"; fail_now "apt-get update"; }

apt_q "$work/victim.log" install victim || { cat "$work/victim.log"; fail_now "apt-get install victim"; }
check_grep "the victim is registered with origin system" '^mssf-policy: victim 1.0 registered, origin system' \
    "$work/victim.log"
check "the victim's program carries its label" victim \
    "$(getfattr --only-values -n security.SMACK64EXEC "$root/usr/sbin/victimd" 2>/dev/null)"
check "/usr/bin/passwd is set-user-ID, of package passwd" "passwd: /usr/bin/passwd 4755" \
    "$(inroot dpkg -S /usr/bin/passwd) $(stat -c %a "$root/usr/bin/passwd")"
mkdir -p "$root/tmp/hostile"
cp "$hdebs"/*.deb "$root/tmp/hostile/"

# The state every case starts from, and what puts it back when a case
# left something behind (so that one hole does not spoil the next case).
snapshot "$root" "$load2" "$work/base"
(cd "$root" && tar -cf "$work/base-mssf.tar" var/lib/mssf etc/smack/accesses.d)
cp "$load2" "$work/base-load2"
(cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \) -prune \
    -o -print0 | xargs -0 getfattr -h -d -m '^security\.(SMACK64EXEC|ima)$' -e hex 2>/dev/null) \
    >"$work/base-xattrs"
restore() {
    # Every xattr the baseline does not have, then the baseline's.
    LC_ALL=C comm -13 "$work/base" "$1" | awk -F "$TAB" '$1 == "xattr" { print $2 "\t" $3 }' |
        while IFS="$TAB" read -r path name; do setfattr -h -x "$name" "$root$path"; done
    (cd "$root" && setfattr -h --restore="$work/base-xattrs")
    rm -rf "$root/var/lib/mssf" "$root/etc/smack/accesses.d"
    tar -C "$root" -xf "$work/base-mssf.tar"
    cp "$work/base-load2" "$load2"
}

# case_extras CASE ROUTE: what the table cannot say.
case_extras() {
    case $1 in
    hostile-retrigger)
        check_grep "$1 ($2): its postinst did rewrite its manifest" victimd \
            "$root/usr/share/mssf/aegis/hostile-retrigger.aegis"
        check_no_grep "$1 ($2): the registered copy is the one configured" victimd \
            "$root/var/lib/mssf/manifests/hostile-retrigger.xml"
        inroot mssf-policy dump >"$work/dump" 2>&1
        check_no_grep "$1 ($2): the trigger compiled the registered copy (no late name)" \
            'org\.mssf\.hostile\.Late' "$work/dump"
        ;;
    hostile-race)
        check "$1 ($2): its loop ran" yes "$([ -s "$race_pidfile" ] && echo yes)"
        stop_race
        check "$1 ($2): its loop was gone when the postinst was" 0 $?
        ;;
    esac
}

# ---- each case, by dpkg -i and by apt-get ----
cases >"$work/cases"
while read -r name expect key; do
    manifest=$hostile/mssf-hostile/aegis/$name.aegis
    for route in dpkg apt; do
        log=$work/$name-$route.log
        writes=$(wc -l <"$load2")
        if [ "$route" = dpkg ]; then
            origin=unknown
            in_root "$log" dpkg -i "/tmp/hostile/${name}_1.0_all.deb"
        else
            origin=thirdparty
            apt_q "$log" install "$name"
        fi
        status=$?
        [ "$route" = dpkg ] ||
            check_grep "$name ($route): apt's hook gave it the store's origin" \
                "^mssf-policy: $name 1.0: origin thirdparty" "$log"
        case_extras "$name" "$route"
        snapshot "$root" "$load2" "$work/after"
        writes=$(($(wc -l <"$load2") - writes))
        # Its own files: what dpkg lists for it, but the directories (shared).
        while read -r path; do
            [ -d "$root$path" ] && [ ! -L "$root$path" ] || echo "$path"
        done <"$root/var/lib/dpkg/info/$name.list" >"$work/own" 2>/dev/null
        verdict "$name ($route)" "$expect" "$key" "$status" "$log" "$manifest" \
            "/usr/share/mssf/aegis/$name.aegis" "$name" "$origin" "$work/own" \
            "$work/base" "$work/after" "$writes"
        if [ "$status" != 0 ] || [ "${MSSF_TEST_VERBOSE:-0}" = 1 ]; then
            grep -E 'mssf-policy|error|warning' "$log" | sed 's/^/# /'
        fi

        in_root "$log.purge" dpkg --purge "$name"
        check "$name ($route): purged" "" \
            "$(inroot dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -v not-installed)"
        stop_race
        snapshot "$root" "$load2" "$work/purged"
        check "$name ($route): after the purge the state is as before" "" \
            "$(LC_ALL=C comm -3 "$work/base" "$work/purged" | head -20)"
        LC_ALL=C cmp -s "$work/base" "$work/purged" || restore "$work/purged"
    done
done <"$work/cases"

# ---- the device's MSSF configuration: only the most trusted origin ships it ----
# The device maker's device-policy.conf (the built-in one written out),
# which no package owns, compiled in; then the state every case starts
# from, and every file of the configuration as it is.
cp "$hostile/builtin-device-policy.conf" "$root/etc/mssf/device-policy.conf"
inroot mssf-policy compile >"$work/etc-compile.log" 2>&1 ||
    { cat "$work/etc-compile.log"; fail_now "compiling with the device maker's device-policy.conf"; }
(cd "$root" && tar -cf "$work/base-etc.tar" etc/mssf etc/smack/accesses.d var/lib/mssf)
conf_state() {
    (cd "$root" && find etc/mssf etc/smack/accesses.d ! -type d -print0 | LC_ALL=C sort -z |
        xargs -0 -r sha256sum)
}
# mssf-policy's own part of a state: what a refusal must leave as it was
# (a file dpkg -i unpacks is there before any of mssf-policy's code runs).
mssf_state() {
    grep -v "^rule$TAB" "$1" >"$2"
    grep "^rule${TAB}mssf-" "$1" >>"$2"
    LC_ALL=C sort -o "$2" "$2"
}
snapshot "$root" "$load2" "$work/etc-base"
mssf_state "$work/etc-base" "$work/etc-base-mssf"
conf_state >"$work/etc-base-conf"
cp "$load2" "$work/etc-base-load2"
etc_restore() {
    rm -rf "$root/etc/mssf" "$root/etc/smack/accesses.d" "$root/var/lib/mssf"
    tar -C "$root" -xf "$work/base-etc.tar"
    cp "$work/etc-base-load2" "$load2"
}
re_quote() {
    printf '%s' "$1" | sed 's/[].[^$*+?(){}|\\]/\\&/g'
}
etc_cases >"$work/etc-cases"
while read -r name expect file; do
    file_re=$(re_quote "$file")
    # apt-get: from the store (thirdparty), or the trusted one from the system's.
    log=$work/$name-apt.log
    writes=$(wc -l <"$load2")
    apt_q "$log" install "$name"
    status=$?
    snapshot "$root" "$load2" "$work/after"
    conf_state >"$work/after-conf"
    writes=$(($(wc -l <"$load2") - writes))
    if [ "$expect" != trusted ]; then
        check "$name (apt): refused (exit status non-zero)" yes "$([ "$status" != 0 ] && echo yes)"
        check_grep "$name (apt): apt's hook names the package file, the path and why" \
            "^/[^ ]*/${name}_1\.0_all\.deb: error: apt-hook: package $name 1\.0 ships .*$file_re.*, the device's MSSF configuration.*only a package of the most trusted origin may \(system, .*its origin is thirdparty" "$log"
        check_grep "$name (apt): apt stopped before dpkg ran" \
            "Sub-process /usr/bin/mssf-policy apt-hook returned an error code" "$log"
        check "$name (apt): not installed" "" \
            "$(inroot dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -v not-installed)"
        check "$name (apt): every file of the configuration as it was" "" \
            "$(diff "$work/etc-base-conf" "$work/after-conf")"
        check "$name (apt): nothing changed" "" \
            "$(LC_ALL=C comm -3 "$work/etc-base" "$work/after" | head -20)"
        check "$name (apt): no rule written to load2" 0 "$writes"
    else
        check "$name (apt): installed (exit status)" 0 "$status"
        check_grep "$name (apt): apt's hook gave it the system's origin" \
            "^mssf-policy: $name 1\.0: origin system" "$log"
        check_grep "$name (apt): registered with the system's origin" \
            "^mssf-policy: $name 1\.0 registered, origin system" "$log"
        check "$name (apt): it ships $file" yes "$([ -f "$root$file" ] && echo yes)"
        while read -r path; do
            [ -d "$root$path" ] && [ ! -L "$root$path" ] || echo "$path"
        done <"$root/var/lib/dpkg/info/$name.list" >"$work/own" 2>/dev/null
        check "$name (apt): nothing changed but its own artefacts" "" \
            "$(foreign_changes "$name" system "$work/own" installed "$work/etc-base" "$work/after" | head -20)"
        # Another package's configure checks the configuration too, and passes.
        in_root "$log.reconfigure" dpkg-reconfigure victim
        check "$name (apt): another package's configure accepts the file" 0 $?
    fi
    if [ "$status" != 0 ] || [ "${MSSF_TEST_VERBOSE:-0}" = 1 ]; then
        grep -E 'mssf-policy|error' "$log" | sed 's/^/# /'
    fi
    in_root "$log.purge" dpkg --purge "$name"
    snapshot "$root" "$load2" "$work/purged"
    check "$name (apt): after the purge the state is as before" "" \
        "$(LC_ALL=C comm -3 "$work/etc-base" "$work/purged" | head -20)"
    LC_ALL=C cmp -s "$work/etc-base" "$work/purged" || etc_restore
    if [ "$expect" = hook ]; then
        echo "# $name (dpkg): not tried: without apt's hook, dpkg unpacks it (docs/packaging.md)"
        continue
    fi

    # dpkg -i: no hook. dpkg unpacks the file; its configure and the trigger refuse.
    log=$work/$name-dpkg.log
    writes=$(wc -l <"$load2")
    in_root "$log" dpkg -i "/tmp/hostile/${name}_1.0_all.deb"
    status=$?
    snapshot "$root" "$load2" "$work/after"
    mssf_state "$work/after" "$work/after-mssf"
    writes=$(($(wc -l <"$load2") - writes))
    check "$name (dpkg): refused (exit status non-zero)" yes "$([ "$status" != 0 ] && echo yes)"
    check_grep "$name (dpkg): its configure names the file, the package and why" \
        "^$file_re: error: package $name owns this file of the device's MSSF configuration.*its origin is the unknown one" "$log"
    check "$name (dpkg): and the trigger refuses too" 2 \
        "$(grep -c "^$file_re: error: package $name owns this file" "$log")"
    check "$name (dpkg): not registered; policy.db and mssf-policy's rules as they were" "" \
        "$(LC_ALL=C comm -3 "$work/etc-base-mssf" "$work/after-mssf" | head -20)"
    check "$name (dpkg): no rule written to load2" 0 "$writes"
    if [ "$status" = 0 ] || [ "${MSSF_TEST_VERBOSE:-0}" = 1 ]; then
        grep -E 'mssf-policy|error' "$log" | sed 's/^/# /'
    fi
    in_root "$log.purge" dpkg --purge "$name"
    check "$name (dpkg): purged" "" \
        "$(inroot dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -v not-installed)"
    in_root "$log.pending" dpkg --configure -a
    check "$name (dpkg): once it is gone, dpkg --configure -a compiles again" 0 $?
    conf_state >"$work/purged-conf"
    # The hole this cannot close: dpkg replaced the device maker's file
    # before mssf-policy ran, and removed it with the package.
    cmp -s "$work/etc-base-conf" "$work/purged-conf" ||
        echo "# note: $name (dpkg): dpkg -i changed files of the configuration no package owned (restored):" \
            $(diff "$work/etc-base-conf" "$work/purged-conf" | awk '/^[<>]/ { print $1, $3 }')
    snapshot "$root" "$load2" "$work/purged"
    check "$name (dpkg): after the purge mssf-policy's state is as before" "" \
        "$(LC_ALL=C comm -3 "$work/etc-base" "$work/purged" | head -20)"
    etc_restore
done <"$work/etc-cases"

[ "$failures" = 0 ] && echo "all hostile cases passed"
exit $((failures > 0))
