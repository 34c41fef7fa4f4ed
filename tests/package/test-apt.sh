#!/bin/sh
# From package to policy with the real tools: mssf-broker's packages built
# with dpkg-buildpackage, test packages built with its dh_mssf, published in
# APT repositories signed with two test keys, installed, upgraded, removed
# and purged with apt-get and dpkg in a real Debian root (mmdebstrap from
# Debian's mirror, cached), with mssf-broker running there as the system
# bus. On this host there is no Smack: rules go to a stand-in smackfs
# (a load2 file), xattrs are real. README.md says what each step proves.
#   test-apt.sh SOURCE_DIR CACHE_DIR E2E_HELPER
# Exit 0 pass, 1 fail, 77 skip (not root, a tool missing, no mirror).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$1
cache=$2
helper=$(readlink -f "$3")

fail_now() {
    echo "not ok - $1"
    exit 1
}

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a chroot, dpkg in a Debian root)"; exit 77; }
for tool in dpkg-buildpackage dh apt-ftparchive gpg gpgv mmdebstrap unshare getfattr; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
# A mount namespace of our own: what is mounted in the root goes with us.
if [ -z "${MSSF_TEST_NS:-}" ]; then
    MSSF_TEST_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

. "$here/lib.sh"

work=$(mktemp -d /tmp/mssf-apt.XXXXXX) || exit 1
bus_pid=
service_pid=
cleanup() {
    [ -n "$service_pid" ] && kill "$service_pid" 2>/dev/null
    [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null
    wait 2>/dev/null
    umount "$work/root/proc" 2>/dev/null
    # MSSF_TEST_KEEP=1 keeps the root and every log (when working on the test).
    if [ "${MSSF_TEST_KEEP:-0}" = 1 ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# MSSF_TEST_DEBS: a folder of packages already built (when working on this test).
debs=${MSSF_TEST_DEBS:-$("$here/build-debs.sh" "$src" "$cache")} || fail_now "building mssf-broker's packages"
roottar=$("$here/make-root.sh" "$cache")
case $? in
0) ;;
77) exit 77 ;;
*) fail_now "making a Debian root with mmdebstrap" ;;
esac

MSSF_SMACKFS=/run/fake-smackfs
setup_root
mkdir -p "$root$MSSF_SMACKFS"
: >"$root$MSSF_SMACKFS/load2"
load2=$root$MSSF_SMACKFS/load2
rules=$root/etc/smack/accesses.d
check "mssf-policy's apt hook is in apt's configuration" /usr/share/mssf/apt-hook.conf \
    "$(readlink "$root/etc/apt/apt.conf.d/60mssf-policy")"
check "mssf-policy declares its trigger" "interest-noawait /usr/share/mssf/aegis" \
    "$(grep -v '^#' "$root/var/lib/dpkg/info/mssf-policy.triggers")"

# ---- the add-on at build time ----
unpack_addon
mkdir -p "$work/broken"
cp -r "$here/mssf-test-broken" "$work/broken/"
if build_source "$work/broken/mssf-test-broken"; then
    echo "not ok - a package with a broken manifest was built"
    failures=$((failures + 1))
else
    check_grep "a broken manifest fails the build with file:line:column" \
        '^debian/aegis:[0-9]+:[0-9]+: error: ' "$work/broken/mssf-test-broken.log"
fi
build_test_packages 1.0
build_test_packages 2.0 "$here/svc-2.aegis"
b1=$work/build-1.0
b2=$work/build-2.0
dpkg-deb -c "$b1"/mssf-test-svc_1.0_all.deb >"$work/contents"
check_grep "the manifest is installed as /usr/share/mssf/aegis/PACKAGE.aegis" \
    ' \./usr/share/mssf/aegis/mssf-test-svc\.aegis$' "$work/contents"
dpkg-deb -e "$b1"/mssf-test-app_1.0_all.deb "$work/app-control"
check_grep "postinst registers it" 'mssf-policy dpkg .*configure mssf-test-app' "$work/app-control/postinst"
check_grep "prerm takes it away" 'mssf-policy dpkg .*remove mssf-test-app' "$work/app-control/prerm"
check_grep "postrm purges it" 'mssf-policy dpkg .*purge mssf-test-app' "$work/app-control/postrm"
check_grep "it depends on mssf-policy" '^Depends:.*mssf-policy \(>= ' "$work/app-control/control"

# ---- two repositories, two keys; a third that pretends ----
make_keys
publish system "MSSF Test System" system "$b1"/mssf-test-svc_1.0_all.deb \
    "$b1"/mssf-test-app_1.0_all.deb "$b1"/mssf-test-crash_1.0_all.deb
publish store "MSSF Test Store" store "$b1"/mssf-test-store-app_1.0_all.deb \
    "$b1"/mssf-test-squatter_1.0_all.deb
publish fake "MSSF Test System" store "$b1"/mssf-test-fake-app_1.0_all.deb
configure_apt
apt_in_root update || { cat "$work/apt.log"; fail_now "apt-get update"; }
start_bus
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$root/run/dbus/system_bus_socket

# ---- 1. a transaction of two packages: origin system, one compile, one reload ----
lines=$(dpkg_log_lines)
before=$(reloads)
apt_in_root install mssf-test-svc mssf-test-app || { cat "$work/apt.log"; fail_now "apt-get install svc app"; }
cp "$work/apt.log" "$work/apt-1.log"
check_grep "apt's hook: the service's file is the system repository's" \
    '^mssf-policy: mssf-test-svc 1.0: origin system \(MSSF Test System / MSSF Test System' "$work/apt.log"
check_grep "the app is registered with origin system" \
    '^mssf-policy: mssf-test-app 1.0 registered, origin system' "$work/apt.log"
# The service depends on the app: the app, which requests the service's
# token, is configured first. Whether Radio is granted is judged at the
# run's end (the trigger), so nobody is told it is not; the app hears, in
# one line, what the service's arrival gave it.
setup_line() { grep -n "^Setting up $1 " "$work/apt-1.log" | cut -d: -f1; }
app_line=$(setup_line mssf-test-app)
svc_line=$(setup_line mssf-test-svc)
[ -n "$app_line" ] && [ -n "$svc_line" ] && [ "$app_line" -lt "$svc_line" ]
check "the consumer is configured before its provider" 0 $?
check_no_grep "no warning that the run's end makes untrue" 'is not granted' "$work/apt-1.log"
check_grep "the app hears what the service gave it, in one line" \
    '^mssf-policy: mssf-test-app: granted .*mssf-test-svc::Radio' "$work/apt-1.log"
check "one line for the app" 1 "$(grep -c '^mssf-policy: mssf-test-app: ' "$work/apt-1.log")"
check "mssf-policy list" "$(printf 'mssf-test-app\tsystem\nmssf-test-svc\tsystem')" \
    "$(inroot mssf-policy list)"
check "one trigger run for the transaction" 1 "$(trigger_runs "$lines")"
check "the bus reloaded once" $((before + 1)) "$(reloads)"
check_grep "the app holds the service's token (rule store)" '^mssf-test-app mssf-test-svc::Radio w$' \
    "$rules/mssf-mssf-test-app"
check_grep "and Cellular (system origin)" '^mssf-test-app Cellular w$' "$rules/mssf-mssf-test-app"
check_grep "the token is loaded (load2)" '^mssf-test-app mssf-test-svc::Radio w$' "$load2"
check "the app's binary is labelled (SMACK64EXEC)" mssf-test-app \
    "$(getfattr --only-values -n security.SMACK64EXEC "$root/usr/bin/mssf-test-app" 2>/dev/null)"
inroot mssf-policy dump >"$work/dump"
check_grep "policy.db declares the service's name" '^name org\.mssf\.test\.Radio$' "$work/dump"
check "apt's records were used up" "" "$(ls "$root/var/lib/mssf/apt-origins")"
check_grep "the origin file says what it was established for" '^Version: 1\.0$' \
    "$root/var/lib/mssf/origins/mssf-test-app"

# The running bus enforces the new policy (no Smack here: a token requirement denies).
"$helper" serve org.mssf.test.Radio >"$work/service.log" 2>&1 &
service_pid=$!
i=0
while ! grep -q "^ready" "$work/service.log" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check_grep "the service owns its name" '^ready org\.mssf\.test\.Radio' "$work/service.log"
call() {
    "$helper" call org.mssf.test.Radio /org/mssf/E2E org.mssf.E2E "$1" 2>&1 | cut -d: -f1
}
check "an open method answers" "reply open" "$(call Open)"
check "a method needing Radio is refused by the bus" "error org.freedesktop.DBus.Error.AccessDenied" \
    "$(call Guarded)"
check "a method the manifest does not declare is refused" \
    "error org.freedesktop.DBus.Error.AccessDenied" "$(call Undeclared)"

# ---- 2. the store's app: origin thirdparty, checkorigin keeps Radio from it ----
apt_in_root install mssf-test-store-app || { cat "$work/apt.log"; fail_now "apt-get install store-app"; }
check_grep "the store app's origin is thirdparty" \
    '^mssf-policy: mssf-test-store-app 1.0 registered, origin thirdparty' "$work/apt.log"
check_grep "and why it does not get Radio, with its shipped file:line:column" \
    '^/usr/share/mssf/aegis/mssf-test-store-app\.aegis:3:5: warning: mssf-test-svc::Radio is not granted .*checkorigin' \
    "$work/apt.log"
check "said once" 1 "$(grep -c 'Radio is not granted' "$work/apt.log")"
check_no_grep "nothing about the installed packages' manifests" '/var/lib/mssf/manifests/' "$work/apt.log"
check_no_grep "no Radio for the store app" 'Radio' "$rules/mssf-mssf-test-store-app"
check_grep "Cellular for the store app (thirdparty may have it)" '^mssf-test-store-app Cellular w$' \
    "$rules/mssf-mssf-test-store-app"

# ---- 3. a repository with the system's Origin and Label, signed by the store's key ----
apt_in_root install mssf-test-fake-app || { cat "$work/apt.log"; fail_now "apt-get install fake-app"; }
check_grep "a repository that only says it is the system's gets the unknown origin" \
    '^mssf-policy: mssf-test-fake-app 1.0: unknown origin' "$work/apt.log"
check "its origin" "-" "$(inroot mssf-policy list | awk '$1 == "mssf-test-fake-app" { print $2 }')"
check "nothing granted to the unknown origin" "" "$(cat "$rules/mssf-mssf-test-fake-app" 2>/dev/null | grep -v '^#')"

# ---- 4. a bare .deb: the unknown origin; through apt again: thirdparty ----
inroot dpkg -r mssf-test-store-app >"$work/dpkg.log" 2>&1
check_grep "dpkg -r unregisters" '^mssf-policy: mssf-test-store-app unregistered' "$work/dpkg.log"
check_grep "and revokes what it held" '^mssf-test-store-app Cellular -$' "$load2"
cp "$b1"/mssf-test-store-app_1.0_all.deb "$root/tmp/"
inroot dpkg -i /tmp/mssf-test-store-app_1.0_all.deb >"$work/dpkg.log" 2>&1
check_grep "a .deb given to dpkg has the unknown origin" \
    '^mssf-policy: mssf-test-store-app 1.0 registered with the unknown origin' "$work/dpkg.log"
check "no Cellular from a bare .deb" "" "$(cat "$rules/mssf-mssf-test-store-app" 2>/dev/null | grep -v '^#')"
apt_in_root install --reinstall mssf-test-store-app || { cat "$work/apt.log"; fail_now "apt-get reinstall"; }
check "through apt it is the store's again" thirdparty \
    "$(inroot mssf-policy list | awk '$1 == "mssf-test-store-app" { print $2 }')"
# The same version from the same repository once more: nothing changes, so
# nothing is said and the bus keeps its policy.
db=$(sha256sum <"$root/var/lib/mssf/policy.db")
before=$(reloads)
apt_in_root install --reinstall mssf-test-store-app || { cat "$work/apt.log"; fail_now "apt-get reinstall"; }
check_no_grep "a reinstall that changes nothing is quiet" 'registered|revoked|error' "$work/apt.log"
check "policy.db is unchanged" "$db" "$(sha256sum <"$root/var/lib/mssf/policy.db")"
check "the bus did not reload" "$before" "$(reloads)"
# dpkg-reconfigure runs the same unpack's configure again: the origin stays.
inroot dpkg-reconfigure mssf-test-store-app >"$work/dpkg.log" 2>&1 ||
    { cat "$work/dpkg.log"; fail_now "dpkg-reconfigure"; }
check "a reconfigure keeps the origin" thirdparty \
    "$(inroot mssf-policy list | awk '$1 == "mssf-test-store-app" { print $2 }')"
# A .deb of the same name, version and manifest, with another binary, given
# to dpkg over the store's package: nothing of the store's origin carries over.
mkdir -p "$work/tampered"
dpkg-deb -R "$b1"/mssf-test-store-app_1.0_all.deb "$work/tampered/x"
exe=$(cd "$work/tampered/x" && find usr/bin -type f | head -n 1)
[ -n "$exe" ] || fail_now "the store app ships no binary under /usr/bin"
printf '#!/bin/sh\necho tampered\n' >"$work/tampered/x/$exe"
(cd "$work/tampered/x" && find . -type f ! -path './DEBIAN/*' -printf '%P\n' | sort |
    xargs md5sum >DEBIAN/md5sums)
dpkg-deb -b "$work/tampered/x" "$root/tmp/tampered.deb" >/dev/null
inroot dpkg -i /tmp/tampered.deb >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail_now "dpkg -i tampered"; }
check_grep "the same version with another binary, given to dpkg, has the unknown origin" \
    '^mssf-policy: mssf-test-store-app 1.0 registered with the unknown origin: apt did not install' \
    "$work/dpkg.log"
check "and holds no Cellular" "" "$(cat "$rules/mssf-mssf-test-store-app" 2>/dev/null | grep -v '^#')"
# apt's hook ran for the store's file, and apt stopped before dpkg unpacked
# it: the record it left does not lend its origin to the tampered file.
apt_in_root install --reinstall mssf-test-store-app || { cat "$work/apt.log"; fail_now "apt-get reinstall"; }
printf 'VERSION 3\n\nmssf-test-store-app 1.0 all same < 1.0 all same /srv/store/mssf-test-store-app_1.0_all.deb\n' |
    inroot mssf-policy apt-hook >"$work/hook.log" 2>&1 || { cat "$work/hook.log"; fail_now "apt-hook by hand"; }
check_grep "the hook vouches for the store's file" '^mssf-policy: mssf-test-store-app 1.0: origin thirdparty' \
    "$work/hook.log"
inroot dpkg -i /tmp/tampered.deb >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail_now "dpkg -i tampered"; }
check_grep "a record for the verified file does not fit the tampered one" \
    '^mssf-policy: mssf-test-store-app 1.0 registered with the unknown origin: its files are not the ones apt verified' \
    "$work/dpkg.log"
check "no Cellular" "" "$(cat "$rules/mssf-mssf-test-store-app" 2>/dev/null | grep -v '^#')"
apt_in_root install --reinstall mssf-test-store-app || { cat "$work/apt.log"; fail_now "apt-get reinstall"; }
check "through apt the store's file is the store's again" thirdparty \
    "$(inroot mssf-policy list | awk '$1 == "mssf-test-store-app" { print $2 }')"

# ---- 5. a failed configure changes nothing and says why ----
snapshot() {
    (cd "$root" && { inroot mssf-policy list; sha256sum var/lib/mssf/policy.db etc/smack/accesses.d/*; })
}
state=$(snapshot)
if apt_in_root install mssf-test-squatter; then
    echo "not ok - a package declaring a name another declares was configured"
    failures=$((failures + 1))
fi
check_grep "the name conflict, with both file:line:column" \
    'mssf-test-squatter\.aegis:3:5: error: bus name org\.mssf\.test\.Radio \(system bus\) is already declared by package mssf-test-svc at /var/lib/mssf/manifests/mssf-test-svc\.xml:8:5' \
    "$work/apt.log"
check "the installed state is as it was" "$state" "$(snapshot)"
inroot dpkg --purge mssf-test-squatter >"$work/dpkg.log" 2>&1
check "the half-configured squatter can be purged" "" \
    "$(inroot dpkg-query -W -f='${Status}' mssf-test-squatter 2>/dev/null | grep -v 'not-installed')"
# A broken manifest in a package built without dh_mssf's check.
mkdir -p "$work/repack"
dpkg-deb -R "$b1"/mssf-test-store-app_1.0_all.deb "$work/repack/x"
sed -i 's/^Version: 1.0$/Version: 1.1/' "$work/repack/x/DEBIAN/control"
printf '<aegis>\n  <request>\n    <credential name="Cellular"/>\n</aegis>\n' \
    >"$work/repack/x/usr/share/mssf/aegis/mssf-test-store-app.aegis"
dpkg-deb -b "$work/repack/x" "$root/tmp/broken.deb" >/dev/null
state=$(snapshot)
inroot dpkg -i /tmp/broken.deb >"$work/dpkg.log" 2>&1
check_grep "a broken manifest fails the configure with file:line:column" \
    '^/usr/share/mssf/aegis/mssf-test-store-app\.aegis:4:3: error: broken XML' "$work/dpkg.log"
check "nothing changed" "$state" "$(snapshot)"
apt_in_root install --allow-downgrades mssf-test-store-app=1.0 ||
    { cat "$work/apt.log"; fail_now "apt-get back to store-app 1.0"; }

# ---- 6. an upgrade that drops a token revokes it ----
publish system "MSSF Test System" system "$b2"/mssf-test-svc_2.0_all.deb \
    "$b1"/mssf-test-app_1.0_all.deb "$b1"/mssf-test-crash_1.0_all.deb
apt_in_root update >/dev/null
before=$(reloads)
apt_in_root install mssf-test-svc || { cat "$work/apt.log"; fail_now "apt-get upgrade svc"; }
check_grep "the upgrade says what it revokes, one line for the app" \
    '^mssf-policy: mssf-test-app: revoked .*mssf-test-svc::Radio' "$work/apt.log"
check "one line for the app" 1 "$(grep -c '^mssf-policy: mssf-test-app: ' "$work/apt.log")"
check_no_grep "the app's rule file no longer lists Radio" 'Radio' "$rules/mssf-mssf-test-app"
check "the kernel's rule is revoked" "mssf-test-app mssf-test-svc::Radio -" \
    "$(grep '^mssf-test-app mssf-test-svc::Radio ' "$load2" | tail -1)"
check "the bus reloaded" $((before + 1)) "$(reloads)"
check "and enforces version 2 (Guarded is open now)" "reply guarded" "$(call Guarded)"

# ---- 7. a crash in the middle of a dpkg run, then dpkg --configure -a ----
touch "$root/run/mssf-test-crash-once"
apt_in_root install mssf-test-crash
check_grep "dpkg died in the middle" 'dpkg.*(signal|exited unexpectedly|Killed)' "$work/apt.log"
inroot dpkg --configure -a >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail_now "dpkg --configure -a"; }
check "after dpkg --configure -a the package is installed" "install ok installed" \
    "$(inroot dpkg-query -W -f='${Status}' mssf-test-crash)"
inroot mssf-policy compile --output /tmp/fresh.db >/dev/null 2>&1
check "policy.db is what the installed manifests compile to" \
    "$(sha256sum <"$root/tmp/fresh.db")" "$(sha256sum <"$root/var/lib/mssf/policy.db")"
inroot mssf-policy list >"$work/list"
check_grep "the crashed package is registered with its origin" '^mssf-test-crash	system$' "$work/list"
check "no journal left" "" "$(ls "$root/var/lib/mssf/" | grep journal)"

# ---- 8. purge everything in one transaction ----
lines=$(dpkg_log_lines)
before=$(reloads)
apt_in_root purge mssf-test-app mssf-test-store-app mssf-test-fake-app mssf-test-crash mssf-test-svc ||
    { cat "$work/apt.log"; fail_now "apt-get purge"; }
check "one trigger run for five packages" 1 "$(trigger_runs "$lines")"
check "the bus reloaded once" $((before + 1)) "$(reloads)"
check "nothing registered" "" "$(inroot mssf-policy list)"
check "no rule files of ours" "" "$(ls "$rules" | grep '^mssf-')"
check "the store app's Cellular is revoked in the kernel" "mssf-test-store-app Cellular -" \
    "$(grep '^mssf-test-store-app Cellular ' "$load2" | tail -1)"
inroot mssf-policy dump >"$work/dump"
check_no_grep "policy.db declares no name" '^name ' "$work/dump"
check "the bus no longer guards the name (Undeclared answers)" "reply undeclared" "$(call Undeclared)"
check "no records left" "" "$(ls -A "$root/var/lib/mssf/apt-origins")$(ls -A "$root/var/lib/mssf/origins")"

[ "$failures" = 0 ] && echo "all package steps passed"
exit $((failures > 0))
