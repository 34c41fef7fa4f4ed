#!/bin/sh
# The RPM side with the real tools (README.md): packages built with
# rpmbuild and %mssf_manifest, signed with throwaway keys, installed,
# upgraded and erased with `rpm --root` and the build tree's plugin, and
# from a signed repository with `dnf --installroot`. After each step the
# test compares files, xattrs, rule files, registrations, policy.db and
# `rpm -qa` with what they must be.
#   test-rpm.sh MSSF_POLICY MSSF_SO
# Exit 0 pass, 1 fail, 77 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tool=$(readlink -f "$1")
plugin=$(readlink -f "$2")

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (rpm --root, security.* xattrs)"; exit 77; }
for t in rpm rpmbuild rpmsign gpg getfattr busybox createrepo_c dnf; do
    command -v "$t" >/dev/null || { echo "SKIP: $t is not installed (tools/install-deps)"; exit 77; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/mssf-rpm.XXXXXX") || exit 1
cleanup() {
    gpg_stop
    if [ "${MSSF_TEST_KEEP:-0}" = 1 ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
. "$here/lib.sh"
. "$here/packages.sh"
if ! setfattr -n security.SMACK64EXEC -v x "$work" 2>/dev/null; then
    echo "SKIP: this file system ($work) does not take security.* xattrs"
    exit 77
fi
setfattr -x security.SMACK64EXEC "$work"

rpm_setup
for key in system store other nokey; do
    make_key "$key"
done
root=$work/root
make_root "$root"

# ---- the packages ----
svc10=$(aegis rpm-svc <<'EOF'
<aegis>
  <request>
    <credential name="Cellular"/>
    <for path="/usr/sbin/rpm-svcd"/>
    <for path="/usr/share/rpm-svc/helper"/>
  </request>
  <provide>
    <credential name="Data"/>
    <dbus name="org.mssf.test.RpmSvc" own="SELF" bus="system">
      <node name="/org/mssf/test/RpmSvc">
        <interface name="org.mssf.test.RpmSvc">
          <method name="Read"><annotation name="com.maemo.Aegis" value="Data"/></method>
        </interface>
      </node>
    </dbus>
  </provide>
</aegis>
EOF
)
pkg rpm-svc 1.0 "$svc10" /usr/sbin/rpm-svcd /usr/share/rpm-svc/helper
# 1.1 drops Cellular and no longer names its helper.
sed -e '/Cellular/d' -e '/helper/d' "$svc10" >"$work/src/rpm-svc-1.1.aegis"
pkg rpm-svc 1.1 "$work/src/rpm-svc-1.1.aegis" /usr/sbin/rpm-svcd /usr/share/rpm-svc/helper
app=$(aegis rpm-app <<'EOF'
<aegis>
  <request>
    <credential name="rpm-svc::Data"/>
    <for path="/usr/bin/rpm-app"/>
  </request>
</aegis>
EOF
)
pkg rpm-app 1.0 "$app" /usr/bin/rpm-app
printf '<aegis>\n  <request>\n    <credential name="Cellular"/>\n    <for path="/usr/sbin/rpm-svcd"/>\n  </reqest>\n</aegis>\n' \
    >"$work/src/broken.aegis"
RAW=1 pkg rpm-svc 1.2 "$work/src/broken.aegis" /usr/sbin/rpm-svcd
RAW=1 pkg rpm-bad 1.0 "$work/src/broken.aegis" /usr/sbin/rpm-bad
sed -e '/Cellular/d' -e 's|/usr/sbin/rpm-svcd|/usr/bin/rpm-dup|' -e '/helper/d' "$svc10" \
    >"$work/src/rpm-dup.aegis"
pkg rpm-dup 1.0 "$work/src/rpm-dup.aegis" /usr/bin/rpm-dup
plain=$(aegis rpm-plain <<'EOF'
<aegis>
  <request>
    <credential name="Cellular"/>
    <for path="/usr/bin/rpm-plain"/>
  </request>
</aegis>
EOF
)
# The manifest as a symlink, a directory, larger than 1 MiB.
x_install="mkdir -p %{buildroot}/usr/share/mssf/aegis; ln -s /etc/passwd %{buildroot}/usr/share/mssf/aegis/rpm-symman.aegis" \
    x_files=/usr/share/mssf/aegis/rpm-symman.aegis pkg rpm-symman 1.0 - /usr/bin/rpm-symman
x_install="mkdir -p %{buildroot}/usr/share/mssf/aegis/rpm-dirman.aegis" \
    x_files=/usr/share/mssf/aegis/rpm-dirman.aegis pkg rpm-dirman 1.0 - /usr/bin/rpm-dirman
{ printf '<aegis>\n<!-- '; head -c 1100000 /dev/zero | tr '\0' 'x'; printf ' -->\n</aegis>\n'; } \
    >"$work/src/big.aegis"
RAW=1 pkg rpm-bigman 1.0 "$work/src/big.aegis" /usr/bin/rpm-bigman
# The origin matrix: the same package, signed in several ways (one file each).
pkg rpm-plain 1.0 "$plain" /usr/bin/rpm-plain
for how in system other nokey unsigned; do
    cp "$(rpmfile rpm-plain 1.0)" "$work/plain-$how.rpm"
    [ "$how" = unsigned ] || sign "$how" "$work/plain-$how.rpm"
done
# Nothing in a package chooses its origin: a scriptlet writing the origin
# file before the registration, a file claiming the state, a file mapping
# its own key.
x_scripts='%pre
mkdir -p /var/lib/mssf/origins 2>/dev/null; echo system >/var/lib/mssf/origins/rpm-sneaky 2>/dev/null || :
%post
echo system >/var/lib/mssf/origins/rpm-sneaky' pkg rpm-sneaky 1.0 "$(sed s/rpm-plain/rpm-sneaky/ "$plain" | aegis rpm-sneaky)" /usr/bin/rpm-sneaky
x_install='mkdir -p %{buildroot}/var/lib/mssf/origins; echo system >%{buildroot}/var/lib/mssf/origins/rpm-stateful' \
    x_files=/var/lib/mssf/origins/rpm-stateful pkg rpm-stateful 1.0 "$(sed s/rpm-plain/rpm-stateful/ "$plain" | aegis rpm-stateful)" /usr/bin/rpm-stateful
printf 'Mssf-Origin: system\nSigned-By: %s\n' "$(cat "$work/other.fpr")" >"$work/src/mapper.conf"
x_install="install -D -m 644 $work/src/mapper.conf %{buildroot}/etc/mssf/rpm-origins.conf" \
    x_files='%config /etc/mssf/rpm-origins.conf' pkg rpm-mapper 1.0 "$(sed s/rpm-plain/rpm-mapper/ "$plain" | aegis rpm-mapper)" /usr/bin/rpm-mapper
for p in rpm-svc-1.0 rpm-svc-1.1 rpm-svc-1.2 rpm-app-1.0 rpm-bad-1.0 rpm-dup-1.0 rpm-symman-1.0 \
    rpm-dirman-1.0 rpm-bigman-1.0; do
    sign system "$work/rpms/$p-1.noarch.rpm"
done
# rpm's reserved MSSFDOMAIN tag (5039, which MeeGo's rpm read) saying
# "system": rpmbuild cannot write it, a byte editor can (retag.py turns the
# Vendor tag into it before the package is signed).
pkg rpm-tagged 1.0 "$(sed s/rpm-plain/rpm-tagged/ "$plain" | aegis rpm-tagged)" /usr/bin/rpm-tagged
sed -i 's/^Release: 1$/Release: 1\nVendor: system/' "$work/top/SPECS/rpm-tagged-1.0.spec"
build "$work/top/SPECS/rpm-tagged-1.0.spec"
/usr/bin/python3 "$here/retag.py" "$(rpmfile rpm-tagged 1.0)" 1011 5039 || fail_now "retag.py failed"
# A file signature for IMA (what `rpmsign --signfiles` adds; Debian 12's
# rpmsign is built without it): retag.py turns the file's %lang, the
# signature's hex, into the FILESIGNATURES tag; rpm's own ima plugin
# writes it to security.ima (a version 2 signature header, as its plugin
# wants one: 9 bytes at least, not all zero).
imasig=030204aabbccdd000401020304
x_install="install -D -m 755 $work/src/prog %{buildroot}/usr/bin/rpm-imasig-signed" \
    x_files="%lang($imasig) /usr/bin/rpm-imasig-signed" \
    pkg rpm-imasig 1.0 "$(sed s/rpm-plain/rpm-imasig/ "$plain" | aegis rpm-imasig)" /usr/bin/rpm-imasig
/usr/bin/python3 "$here/retag.py" "$(rpmfile rpm-imasig 1.0)" 1097 5090 || fail_now "retag.py failed"
sign system "$(rpmfile rpm-imasig 1.0)"
for p in rpm-sneaky rpm-stateful rpm-mapper rpm-tagged; do
    sign other "$(rpmfile $p 1.0)"
done

# ---- 1. the build side ----
spec=$work/top/SPECS/rpm-broken.spec
{ spec_head rpm-broken 1.0; printf '%%install\n%%mssf_manifest %s\n%%files\n%%mssf_manifest_file\n' \
    "$work/src/broken.aegis"; } >"$spec"
rpmbuild -bb "$spec" >"$work/broken-build.log" 2>&1
check "rpmbuild -bb fails for a manifest that does not parse" 1 "$([ $? != 0 ] && echo 1)"
check_grep "... naming it as FILE:LINE:COLUMN: error:" "^$work/src/broken.aegis:5:5: error: " \
    "$work/broken-build.log"
check "rpm -qlp lists the manifest of a package built with %mssf_manifest" \
    "/usr/share/mssf/aegis/rpm-svc.aegis" \
    "$(rpm -qlp "$(rpmfile rpm-svc 1.0)" 2>/dev/null | grep aegis)"
spec=$work/top/SPECS/rpm-sub.spec
{ spec_head rpm-sub 1.0; printf '%%package -n rpm-sub-tools\nSummary: t\n%%description -n rpm-sub-tools\nt\n'
  printf '%%install\n%%mssf_manifest -n rpm-sub-tools %s\n%%files -n rpm-sub-tools\n%%mssf_manifest_file rpm-sub-tools\n' \
      "$app"; } >"$spec"
build "$spec"
check "%mssf_manifest -n and %mssf_manifest_file NAME: a subpackage's manifest" \
    "/usr/share/mssf/aegis/rpm-sub-tools.aegis" \
    "$(rpm -qlp "$(rpmfile rpm-sub-tools 1.0)" 2>/dev/null)"

# ---- 2. install, upgrade, reinstall, erase ----
snap "$root" "$work/base"
rpm_log "$root" "$work/install.log" -i "$(rpmfile rpm-svc 1.0)" "$(rpmfile rpm-app 1.0)"
check "rpm -i rpm-svc rpm-app (one transaction)" 0 $?
check "rpm -qa" "rpm-app-1.0-1.noarch rpm-svc-1.0-1.noarch" "$(rpm --root "$root" -qa 'rpm-*' | sort | tr '\n' ' ' | sed 's/ $//')"
check "rpm-svc's origin is system (its key: rpm-origins.conf's first paragraph)" system \
    "$(head -1 "$root/var/lib/mssf/origins/rpm-svc")"
check_grep "its registration is rpm's, for 1.0-1" '^Package-Manager: rpm$' "$root/var/lib/mssf/origins/rpm-svc"
check_grep "... signed by the system key" "^Repository: signed by $(cat "$work/system.fpr")\$" \
    "$root/var/lib/mssf/origins/rpm-svc"
check "the manifest copy is the package's" "" "$(cmp "$svc10" "$root/var/lib/mssf/manifests/rpm-svc.xml" 2>&1)"
check "rpm-svcd (before the manifest in the payload) is labelled at psm_post" rpm-svc \
    "$(xattr "$root/usr/sbin/rpm-svcd" security.SMACK64EXEC)"
check "the helper (after it) is labelled through its descriptor" rpm-svc \
    "$(xattr "$root/usr/share/rpm-svc/helper" security.SMACK64EXEC)"
check_grep "rpm-svc's rule file grants Cellular" '^rpm-svc Cellular w' "$root/etc/smack/accesses.d/mssf-rpm-svc"
check_grep "rpm-app's rule file grants rpm-svc::Data" '^rpm-app rpm-svc::Data w' \
    "$root/etc/smack/accesses.d/mssf-rpm-app"
check "every file of rpm-svc has its reference hash" "2" \
    "$(getfattr -d -m security.ima -e hex "$root/usr/sbin/rpm-svcd" "$root/usr/share/rpm-svc/helper" 2>/dev/null | grep -c '^security.ima=0x0404')"
mp "$root" dump >"$work/dump" 2>&1
check_grep "policy.db has rpm-svc's bus name" 'org\.mssf\.test\.RpmSvc' "$work/dump"
check "policy.db compiled once for the two packages" 1 "$(grep -c 'policy.db compiled' "$work/install.log")"
check_no_grep "rpm-app's token, provided by rpm-svc in the same transaction, is not reported missing" \
    'rpm-svc::Data is not granted' "$work/install.log"
check "no record is left" "" "$(ls "$root/var/lib/mssf/lock.rpm" 2>/dev/null)"
mp "$root" verify >"$work/verify.log" 2>&1
check "mssf-policy verify: all as installed" 0 $?
[ "$failures" = 0 ] || sed 's/^/# /' "$work/install.log" "$work/verify.log"

rpm_log "$root" "$work/upgrade.log" -U "$(rpmfile rpm-svc 1.1)"
check "rpm -U rpm-svc 1.1" 0 $?
check "rpm -q rpm-svc" rpm-svc-1.1-1.noarch "$(rpm --root "$root" -q rpm-svc)"
check_grep "registered for 1.1 throughout (the erased 1.0 does not unregister)" '^Version: 1.1-1$' \
    "$root/var/lib/mssf/origins/rpm-svc"
check_no_grep "the rule 1.1 drops is revoked" 'Cellular' "$root/etc/smack/accesses.d/mssf-rpm-svc"
check "the helper 1.1 no longer names lost its label" "" \
    "$(xattr "$root/usr/share/rpm-svc/helper" security.SMACK64EXEC)"
check "rpm-svcd keeps its label" rpm-svc "$(xattr "$root/usr/sbin/rpm-svcd" security.SMACK64EXEC)"
check_grep "rpm-app keeps rpm-svc::Data" '^rpm-app rpm-svc::Data w' "$root/etc/smack/accesses.d/mssf-rpm-app"
snap "$root" "$work/upgraded"
rpm_log "$root" "$work/reinstall.log" -U --replacepkgs "$(rpmfile rpm-svc 1.1)"
check "rpm --reinstall of the same version" 0 $?
snap "$root" "$work/reinstalled"
check "... leaves the state as it was" "" "$(LC_ALL=C comm -3 "$work/upgraded" "$work/reinstalled")"

# What a change does to the other packages: one line each, as on the dpkg side.
rpm_log "$root" "$work/erase-svc.log" -e rpm-svc
check "rpm -e rpm-svc while rpm-app stays" 0 $?
check_no_grep "rpm-app loses rpm-svc::Data" 'rpm-svc::Data' "$root/etc/smack/accesses.d/mssf-rpm-app"
check_grep "... and rpm says so in one line" '^mssf-policy: rpm-app: revoked .*rpm-svc::Data' "$work/erase-svc.log"
rpm_log "$root" "$work/install-svc.log" -i "$(rpmfile rpm-svc 1.1)"
check "rpm -i rpm-svc 1.1 again" 0 $?
check_grep "rpm-app gets rpm-svc::Data back" '^rpm-app rpm-svc::Data w' "$root/etc/smack/accesses.d/mssf-rpm-app"
check_grep "... and rpm says so in one line" '^mssf-policy: rpm-app: granted .*rpm-svc::Data' "$work/install-svc.log"

rpm_log "$root" "$work/erase.log" -e rpm-app rpm-svc
check "rpm -e rpm-app rpm-svc" 0 $?
snap "$root" "$work/erased"
check "... and everything is as before the install (manifest copies, origins, labels, rules, hashes, policy.db)" \
    "" "$(LC_ALL=C comm -3 "$work/base" "$work/erased" | grep -v 'policydb' | head -20)"
mp "$root" dump >"$work/dump" 2>&1
check_no_grep "policy.db no longer has rpm-svc's bus name" 'RpmSvc' "$work/dump"
rpm_log "$root" "$work/app-alone.log" -i "$(rpmfile rpm-app 1.0)"
check "rpm -i rpm-app without its provider" 0 $?
check "... the missing token reported once, at the transaction's end, at its line and column" \
    "mssf-policy: rpm-app 1.0-1.noarch registered/usr/share/mssf/aegis/rpm-app.aegis:3:5: warning: rpm-svc::Data is not granted" \
    "$(grep -e 'rpm-svc::Data is not granted' -e 'registered' "$work/app-alone.log" | sed 's/, origin.*//; s/ to rpm-app.*//' | tr -d '\n')"
rpm --root "$root" -e rpm-app >/dev/null 2>&1

# ---- 2b. IMA: a file rpm carries a signature for is rpm's ----
ima_plugin=/usr/lib/x86_64-linux-gnu/rpm-plugins/ima.so
ln -sf "$ima_plugin" "$work/plugins/ima.so"
rpm_log "$root" "$work/imasig.log" -i --define '__transaction_ima %{__plugindir}/ima.so' \
    "$(rpmfile rpm-imasig 1.0)"
check "rpm -i a package with a file signature, rpm's ima plugin on" 0 $?
check "the signed file keeps the signature rpm's ima plugin wrote" "0x$imasig" \
    "$(getfattr --absolute-names -n security.ima -e hex "$root/usr/bin/rpm-imasig-signed" 2>/dev/null | sed -n 's/^security.ima=//p')"
check "the other file gets its reference hash" 0x0404 \
    "$(getfattr --absolute-names -n security.ima -e hex "$root/usr/bin/rpm-imasig" 2>/dev/null | sed -n 's/^security.ima=//p' | cut -c1-6)"
mp "$root" verify >"$work/verify.log" 2>&1
check "verify does not judge rpm's signature (exit 0)" 0 $?
rpm --root "$root" -e rpm-imasig >/dev/null 2>&1
rm -f "$work/plugins/ima.so"

# ---- 3. two packages in one transaction, one bad ----
snap "$root" "$work/before"
rpm_log "$root" "$work/two.log" -i "$(rpmfile rpm-svc 1.0)" "$(rpmfile rpm-bad 1.0)"
check "rpm -i good bad: rpm fails" 1 "$([ $? != 0 ] && echo 1)"
check "the good one is installed, the bad one is not" "rpm-svc-1.0-1.noarch" \
    "$(rpm --root "$root" -qa 'rpm-*' | tr '\n' ' ' | sed 's/ $//')"
check "the bad one's files are gone" "" "$(ls "$root/usr/sbin/rpm-bad" "$root/usr/share/mssf/aegis/rpm-bad.aegis" 2>/dev/null)"
check "the good one is registered" system "$(head -1 "$root/var/lib/mssf/origins/rpm-svc" 2>/dev/null)"
check "the bad one is not" "" "$(ls "$root/var/lib/mssf/manifests/rpm-bad.xml" 2>/dev/null)"
ours "$work/two.log" | grep 'error:' >"$work/two.errors"
check "one error line of ours" 1 "$(grep -c . "$work/two.errors")"
check_grep "... naming the package's manifest at LINE:COLUMN" \
    '^/usr/share/mssf/aegis/rpm-bad\.aegis:5:5: error: ' "$work/two.errors"
check "policy.db compiled once" 1 "$(grep -c 'policy.db compiled' "$work/two.log")"

# ---- 4. an upgrade whose manifest is bad: the old version stays ----
snap "$root" "$work/before"
rpm_log "$root" "$work/badup.log" -U "$(rpmfile rpm-svc 1.2)"
check "rpm -U to a broken manifest fails" 1 "$([ $? != 0 ] && echo 1)"
check "rpm-svc 1.0 stays installed" rpm-svc-1.0-1.noarch "$(rpm --root "$root" -q rpm-svc)"
snap "$root" "$work/after"
check "... and registered, nothing changed" "" "$(LC_ALL=C comm -3 "$work/before" "$work/after" | head)"
check_grep "one error line at the manifest's line and column" \
    '^/usr/share/mssf/aegis/rpm-svc\.aegis:5:5: error: ' "$work/badup.log"

# ---- 5. bad input: refused with one line, nothing changed ----
# refused NAME RPM KEY: rpm -i RPM fails, one line of ours matching KEY, no change.
refused() {
    snap "$root" "$work/before"
    rpm_log "$root" "$work/$1.log" -i "$2"
    check "$1: refused" 1 "$([ $? != 0 ] && echo 1)"
    snap "$root" "$work/after"
    check "$1: nothing changed (files, xattrs, rules, registrations, rpm -qa)" "" \
        "$(LC_ALL=C comm -3 "$work/before" "$work/after" | head)"
    ours "$work/$1.log" | grep 'error' >"$work/$1.errors"
    check "$1: one error line" 1 "$(grep -c . "$work/$1.errors")"
    check_grep "$1: saying why" "$3" "$work/$1.errors"
}
refused "malformed XML" "$(rpmfile rpm-bad 1.0)" '^/usr/share/mssf/aegis/rpm-bad\.aegis:5:5: error: broken XML'
refused "a manifest that is a symlink" "$(rpmfile rpm-symman 1.0)" 'rpm-symman\.aegis: error: .*not a plain file'
refused "a manifest that is a directory" "$(rpmfile rpm-dirman 1.0)" 'rpm-dirman\.aegis: error: .*not a plain file'
refused "a manifest larger than 1 MiB" "$(rpmfile rpm-bigman 1.0)" 'rpm-bigman\.aegis: error: .*larger than 1 MiB'
refused "a bus name another package declared" "$(rpmfile rpm-dup 1.0)" \
    '^/usr/share/mssf/aegis/rpm-dup\.aegis:[0-9]+:[0-9]+: error: .*rpm-svc'
refused "a package shipping mssf-policy's state" "$(rpmfile rpm-stateful 1.0)" \
    'rpm-stateful: error: .*/var/lib/mssf'
refused "a package not the device maker's shipping rpm-origins.conf" "$(rpmfile rpm-mapper 1.0)" \
    'rpm-origins.conf: error: .*first paragraph'

# ---- 6. the origin matrix ----
# origin HOW [RPM OPTIONS]: install plain-HOW.rpm, print its origin, erase it.
origin() {
    how=$1
    shift
    rpm_log "$root" "$work/origin-$how.log" -i "$@" "$work/plain-$how.rpm"
    echo "$? $(head -1 "$root/var/lib/mssf/origins/rpm-plain" 2>/dev/null)"
    rpm --root "$root" -e rpm-plain >/dev/null 2>&1
}
check "signed by the system key (rpm-origins.conf's first paragraph): system" "0 system" "$(origin system)"
check "signed by a key in rpm's keyring that rpm-origins.conf does not name: unknown" "0 -" "$(origin other)"
check_grep "... saying why" 'registered with the unknown origin: rpm-origins.conf names no key' \
    "$work/origin-other.log"
check "unsigned, under %_pkgverify_level digest: unknown" "0 -" \
    "$(origin unsigned --define '_pkgverify_level digest')"
check "signed by the system key, but the level is digest: unknown" "0 -" \
    "$(origin system --define '_pkgverify_level digest')"
check_grep "... saying why" 'verification level does not require signatures' "$work/origin-system.log"
snap "$root" "$work/before"
check "a key rpm's keyring lacks (NOKEY), level signature: rpm refuses it" "1 " "$(origin nokey | sed 's/^[1-9][0-9]* /1 /')"
check "unsigned, level signature: rpm refuses it" "1 " "$(origin unsigned | sed 's/^[1-9][0-9]* /1 /')"
snap "$root" "$work/after"
check "... and nothing is registered" "" "$(LC_ALL=C comm -3 "$work/before" "$work/after" | head)"
rpm_log "$root" "$work/sneaky.log" -i "$(rpmfile rpm-sneaky 1.0)"
check "a scriptlet writing the origin file before the registration: unknown all the same" "0 -" \
    "$? $(head -1 "$root/var/lib/mssf/origins/rpm-sneaky" 2>/dev/null)"
rpm --root "$root" -e rpm-sneaky >/dev/null 2>&1
check "a package whose MSSFDOMAIN tag says system..." system \
    "$(/usr/bin/python3 "$here/retag.py" --show "$(rpmfile rpm-tagged 1.0)" 5039)"
rpm_log "$root" "$work/tagged.log" -i "$(rpmfile rpm-tagged 1.0)"
check "... signed by a key rpm-origins.conf does not name: unknown all the same" "0 -" \
    "$? $(head -1 "$root/var/lib/mssf/origins/rpm-tagged" 2>/dev/null)"
rpm --root "$root" -e rpm-tagged >/dev/null 2>&1

# ---- 7. around the plugin: --noplugins, --test ----
rpm_log "$root" "$work/noplugins.log" -i --noplugins "$(rpmfile rpm-app 1.0)"
check "rpm -i --noplugins" 0 $?
check "... installs no registration" "" "$(ls "$root/var/lib/mssf/manifests/rpm-app.xml" 2>/dev/null)"
check "... and no label" "" "$(xattr "$root/usr/bin/rpm-app" security.SMACK64EXEC)"
mp "$root" verify >"$work/verify.log" 2>&1
check "mssf-policy verify reports it (exit 1)" 1 $?
check_grep "... naming the package" '^rpm-app: /usr/share/mssf/aegis/rpm-app\.aegis: rpm installed 1\.0-1\.noarch with a manifest, but it is not registered' \
    "$work/verify.log"
rpm --root "$root" -e --noplugins rpm-app >/dev/null 2>&1
rpm_log "$root" "$work/e-noplugins.log" -e --noplugins rpm-svc
mp "$root" verify >"$work/verify.log" 2>&1
check "an erase with --noplugins: verify reports the registration left (exit 1)" 1 $?
check_grep "... naming the package" '^rpm-svc: .*registered by rpm, but rpm no longer has the package' \
    "$work/verify.log"
mp "$root" remove rpm-svc >/dev/null 2>&1
snap "$root" "$work/before"
rpm_log "$root" "$work/test.log" -i --test "$(rpmfile rpm-svc 1.0)" "$(rpmfile rpm-app 1.0)"
check "rpm -i --test" 0 $?
snap "$root" "$work/after"
check "--test changes nothing" "" "$(LC_ALL=C comm -3 "$work/before" "$work/after" | head)"
check "--test leaves no record" "" "$(ls "$root/var/lib/mssf/lock.rpm" 2>/dev/null)"

# ---- 8. rpm-origins.conf that does not parse: rpm installs nothing ----
cp "$root/etc/mssf/rpm-origins.conf" "$work/origins.saved"
printf 'Mssf-Origin: system\nSigned-By: 1234\n' >"$root/etc/mssf/rpm-origins.conf"
rpm_log "$root" "$work/conf.log" -i "$(rpmfile rpm-svc 1.0)"
check "a broken rpm-origins.conf stops the transaction" 1 "$([ $? != 0 ] && echo 1)"
check_grep "... with its file and line" 'rpm-origins.conf:2: error: Signed-By' "$work/conf.log"
check "... nothing installed" "" "$(rpm --root "$root" -qa 'rpm-*')"
cp "$work/origins.saved" "$root/etc/mssf/rpm-origins.conf"

# ---- 8b. policy.db cannot be written at tsm_post: rpm has committed ----
# A directory in policy.db's place makes compiling it fail after rpm wrote
# its database: rpm must succeed, the package stay registered, the record
# stay for the next command, which finishes it.
rm -f "$root/var/lib/mssf/policy.db"
mkdir -p "$root/var/lib/mssf/policy.db/in-the-way"
rpm_log "$root" "$work/tsm-post.log" -i "$work/plain-system.rpm"
check "policy.db unwritable at tsm_post: rpm still succeeds" 0 $?
check "... the package is installed" rpm-plain-1.0-1.noarch "$(rpm --root "$root" -q rpm-plain)"
check "... and registered" system "$(head -1 "$root/var/lib/mssf/origins/rpm-plain" 2>/dev/null)"
check "... one line saying policy.db was not compiled" 1 \
    "$(grep -c "policy.db was not compiled" "$work/tsm-post.log")"
check "... the record stays" "$root/var/lib/mssf/lock.rpm" "$(ls "$root/var/lib/mssf/lock.rpm" 2>/dev/null)"
mp "$root" verify >"$work/verify.log" 2>&1
check "... verify reports the interrupted transaction (exit 1)" 1 $?
check_grep "... saying what to run" "an rpm transaction was interrupted: run 'mssf-policy rpm recover" \
    "$work/verify.log"
rm -rf "$root/var/lib/mssf/policy.db"
mp "$root" rpm recover >"$work/recover.log" 2>&1
check "mssf-policy rpm recover" 0 $?
check "... writes policy.db" yes "$([ -f "$root/var/lib/mssf/policy.db" ] && echo yes)"
check "... and leaves no record" "" "$(ls "$root/var/lib/mssf/lock.rpm" 2>/dev/null)"
mp "$root" verify >"$work/verify.log" 2>&1
check "... verify: all as installed" 0 $?
rpm --root "$root" -e rpm-plain >/dev/null 2>&1

# ---- 9. dnf from a signed repository made with createrepo_c ----
repo=$work/repo
mkdir -p "$repo"
cp "$(rpmfile rpm-svc 1.0)" "$(rpmfile rpm-app 1.0)" "$repo/"
createrepo_c -q "$repo" || fail_now "createrepo_c"
dnf_in() {
    dnf -y -q --installroot "$root" --setopt=reposdir=/dev/null --setopt=cachedir="$work/dnf-cache" \
        --setopt=install_weak_deps=0 --releasever=1 --repofrompath="test,file://$repo" \
        --setopt=test.gpgcheck=1 --setopt=test.gpgkey="file://$work/system.asc" "$@"
}
dnf_in install rpm-app rpm-svc >"$work/dnf.log" 2>&1
check "dnf --installroot install rpm-app rpm-svc" 0 $?
check "... origin system, through dnf" system "$(head -1 "$root/var/lib/mssf/origins/rpm-svc" 2>/dev/null)"
check "... rpm-app labelled" rpm-app "$(xattr "$root/usr/bin/rpm-app" security.SMACK64EXEC)"
check "... policy.db compiled once" 1 "$(grep -c 'policy.db compiled' "$work/dnf.log")"
dnf_in remove rpm-app rpm-svc >"$work/dnf-remove.log" 2>&1
check "dnf remove" 0 $?
check "... unregisters both" "" "$(ls "$root/var/lib/mssf/manifests/" 2>/dev/null)"
[ "$failures" = 0 ] || sed 's/^/# /' "$work/dnf.log" "$work/dnf-remove.log"

[ "$failures" = 0 ] && echo "all rpm cases passed"
exit $((failures > 0))
