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
publish system "MSSF Test System" system "$hdebs"/victim_1.0_all.deb
publish store "MSSF Test Store" store $(ls "$hdebs"/*.deb | grep -v '/victim_')
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

[ "$failures" = 0 ] && echo "all hostile cases passed"
exit $((failures > 0))
