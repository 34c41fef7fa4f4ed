#!/bin/sh
# rpm killed (SIGKILL, as a power cut) at each of the plugin's hooks, then
# the next command: `mssf-policy rpm recover`, or the next rpm transaction
# (its plugin finishes first), alternately. Afterwards the registrations
# must follow rpm's database (a package rpm lists with a manifest is
# registered for that version; one it does not list is not), no file may
# carry a label no registration gives it (rpm's leftover temporary files
# included), no rule may name a label nobody owns, policy.db must be what
# the registrations compile to, and `mssf-policy verify` must find
# nothing; then a normal transaction must work. The plugin here is the
# test build with the fault switch (policy/rpm/fault, never installed).
#   test-rpm-crash.sh MSSF_POLICY FAULT_MSSF_SO
# Exit 0 pass, 1 fail, 77 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tool=$(readlink -f "$1")
plugin=$(readlink -f "$2")

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (rpm --root, security.* xattrs)"; exit 77; }
for t in rpm rpmbuild rpmsign gpg getfattr busybox; do
    command -v "$t" >/dev/null || { echo "SKIP: $t is not installed (tools/install-deps)"; exit 77; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/mssf-rpm-crash.XXXXXX") || exit 1
cleanup() {
    gpg_stop
    if [ "${MSSF_TEST_KEEP:-0}" = 1 ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
. "$here/lib.sh"
. "$here/packages.sh"

rpm_setup
make_key system
make_key store
make_key other
root=$work/root

# A service whose helper comes after its manifest in the payload (labelled
# through its descriptor), an app that holds its token, a base package
# registered before, and a package without a manifest (a transaction that
# changes nothing of ours).
svc=$(aegis crash-svc <<'EOF'
<aegis>
  <request>
    <credential name="Cellular"/>
    <for path="/usr/sbin/crash-svcd"/>
    <for path="/usr/share/zz-crash-svc/helper"/>
  </request>
  <provide>
    <credential name="Data"/>
    <dbus name="org.mssf.test.CrashSvc" own="SELF" bus="system">
      <node name="/org/mssf/test/CrashSvc">
        <interface name="org.mssf.test.CrashSvc">
          <method name="Read"><annotation name="com.maemo.Aegis" value="Data"/></method>
        </interface>
      </node>
    </dbus>
  </provide>
</aegis>
EOF
)
pkg crash-svc 1.0 "$svc" /usr/sbin/crash-svcd /usr/share/zz-crash-svc/helper
app=$(aegis crash-app <<'EOF'
<aegis>
  <request>
    <credential name="crash-svc::Data"/>
    <for path="/usr/bin/crash-app"/>
  </request>
</aegis>
EOF
)
pkg crash-app 1.0 "$app" /usr/bin/crash-app
base=$(aegis crash-base <<'EOF'
<aegis>
  <request>
    <credential name="Location"/>
    <for path="/usr/bin/crash-base"/>
  </request>
</aegis>
EOF
)
pkg crash-base 1.0 "$base" /usr/bin/crash-base
pkg crash-nothing 1.0 - /usr/bin/crash-nothing
sign system "$work"/rpms/*.rpm
svc_rpm=$(rpmfile crash-svc 1.0)
app_rpm=$(rpmfile crash-app 1.0)

fresh_root() {
    make_root "$root"
    rpm_log "$root" "$work/base.log" -i "$(rpmfile crash-base 1.0)" ||
        { cat "$work/base.log"; fail_now "installing crash-base"; }
}

# consistent NAME: the checks of the top of this file.
consistent() {
    name=$1
    rpm --root "$root" -qa --qf '%{NAME} %{EVR}\n' 2>/dev/null | sort >"$work/rpm-qa"
    registered=
    for manifest in "$root"/var/lib/mssf/manifests/*.xml; do
        [ -f "$manifest" ] || continue
        package=${manifest##*/}
        package=${package%.xml}
        registered="$registered $package"
        version=$(awk '/^Version: / { print $2 }' "$root/var/lib/mssf/origins/$package" 2>/dev/null)
        check "$name: registered $package is rpm's version" "$package $version" \
            "$(grep "^$package " "$work/rpm-qa")"
    done
    for package in crash-svc crash-app crash-base; do
        if grep -q "^$package " "$work/rpm-qa"; then
            check "$name: rpm's $package is registered" 1 \
                "$([ -f "$root/var/lib/mssf/manifests/$package.xml" ] && echo 1)"
        fi
    done
    getfattr -R -h --absolute-names -n security.SMACK64EXEC "$root" 2>/dev/null |
        awk -F'"' '/^security.SMACK64EXEC=/ { print $2 }' | sort -u >"$work/labels"
    stray=
    while read -r label; do
        case " $registered " in *" $label "*) ;; *) stray="$stray $label" ;; esac
    done <"$work/labels"
    check "$name: every SMACK64EXEC is a registered package's" "" "$stray"
    snapshot "$root" "$work/no-load2" "$work/state"
    check "$name: every rule names a label a registered package owns" "" \
        "$(unowned_labels "$work/state" | head -5)"
    mp "$root" compile --output "$work/expected.db" >/dev/null 2>&1
    check "$name: policy.db is what the registrations compile to" "" \
        "$(cmp "$work/expected.db" "$root/var/lib/mssf/policy.db" 2>&1)"
    check "$name: no record or journal left" "" \
        "$(ls "$root/var/lib/mssf/lock.rpm" "$root/var/lib/mssf/lock.journal" 2>/dev/null)"
    mp "$root" verify >"$work/verify.log" 2>&1
    check "$name: mssf-policy verify finds nothing" 0 $?
    [ "$failures" = 0 ] || sed 's/^/# /' "$work/verify.log"
}

# crash NAME POINT ARGS...: rpm ARGS killed at POINT, then the next
# command (RECOVER: "recover" or "rpm"), then the checks.
crash() {
    name=$1 point=$2
    shift 2
    MSSF_RPM_FAULT=$point
    export MSSF_RPM_FAULT
    rpm_log "$root" "$work/crash.log" "$@"
    check "$name: rpm was killed at $point" 137 $?
    unset MSSF_RPM_FAULT
    if [ "$RECOVER" = recover ]; then
        mp "$root" rpm recover >"$work/recover.log" 2>&1
        check "$name: mssf-policy rpm recover" 0 $?
    else
        rpm_log "$root" "$work/recover.log" -i "$(rpmfile crash-nothing 1.0)"
        check "$name: the next rpm transaction" 0 $?
        rpm --root "$root" -e crash-nothing >/dev/null 2>&1
    fi
    [ "${MSSF_TEST_VERBOSE:-0}" != 1 ] || sed 's/^/# /' "$work/crash.log" "$work/recover.log"
    consistent "$name"
}

# Each point with each way of recovering.
for RECOVER in ${MSSF_TEST_RECOVER:-recover rpm}; do
    for point in ${MSSF_TEST_POINTS:-tsm_pre psm_pre fsm_manifest fsm_label psm_post psm_post_done tsm_post tsm_post_done}; do
        fresh_root
        crash "install, killed at $point ($RECOVER)" "$point" -i "$svc_rpm" "$app_rpm"
        # Then rpm goes on as usual. (A second later where rpm died while it
        # wrote files: it names its temporary files after the transaction's
        # start in seconds, and those it left would be in the way within the
        # same second.)
        case $point in fsm_*) sleep 1 ;; esac
        rpm_log "$root" "$work/again.log" -U --replacepkgs "$svc_rpm" "$app_rpm"
        check "install, killed at $point ($RECOVER): rpm -U afterwards" 0 $?
        consistent "install, killed at $point ($RECOVER), then installed"
    done
    for point in ${MSSF_TEST_ERASE_POINTS:-psm_pre erase tsm_post}; do
        fresh_root
        rpm_log "$root" "$work/install.log" -i "$svc_rpm" "$app_rpm" || fail_now "installing"
        crash "erase, killed at $point ($RECOVER)" "$point" -e crash-app crash-svc
    done
done

[ "$failures" = 0 ] && echo "all crash cases passed"
exit $((failures > 0))
