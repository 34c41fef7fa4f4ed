#!/bin/sh
# The hostile corpus of tests/hostile, as rpm packages: each manifest of
# mssf-hostile/aegis in a package of its own (built with rpmbuild, the
# manifest copied in unchecked, as a stranger's build would), with the
# files and scriptlets its Debian package has, installed with `rpm
# --root` next to the victim (origin system) and passwd, signed by the
# store's key (thirdparty) and by a key rpm-origins.conf does not name
# (unknown), then erased; the state is judged as tests/hostile judges it
# (../hostile/lib.sh, the table in ../hostile/cases), and rpm -qa too.
#
# Where rpm differs from dpkg: a scriptlet runs before the plugin
# registers the package but after rpm can still refuse it (%post), so
# hostile-hardlink, which its scriptlet makes the victim's program, is
# installed by rpm and refused its registration (an error at its <for>,
# nothing registered, mssf-policy verify reports it), and so are
# hostile-fifo, whose %post makes its program a FIFO (shipped in the
# package, a FIFO hangs rpm 4.18 itself, which opens it to set its
# metadata), and hostile-retrigger, whose %post rewrites its manifest
# before the registration: its file no longer has the digest rpm
# recorded, which refuses it. The cases that need a dpkg database
# (diversions) are not rpm's; the ones that need a registration by hand
# are.
#   test-rpm-hostile.sh MSSF_POLICY MSSF_SO
# Exit 0 pass, 1 fail, 77 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tool=$(readlink -f "$1")
plugin=$(readlink -f "$2")

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (rpm --root, security.* xattrs)"; exit 77; }
for t in rpm rpmbuild rpmsign gpg getfattr busybox; do
    command -v "$t" >/dev/null || { echo "SKIP: $t is not installed (tools/install-deps)"; exit 77; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/mssf-rpm-hostile.XXXXXX") || exit 1
root=$work/root
cleanup() {
    gpg_stop
    race_kill
    if [ "${MSSF_TEST_KEEP:-0}" = 1 ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
. "$here/lib.sh"
corpus=$hostile/mssf-hostile

race_kill() {
    [ -f "$root/run/hostile-race.pid" ] || return 0
    kill "$(cat "$root/run/hostile-race.pid")" 2>/dev/null
    sleep 0.1
    rm -f "$root/run/hostile-race.pid" "$root/usr/bin/hostile-race.l" "$root/usr/bin/hostile-race.r"
    # Left a symlink for the erase, as the Debian package's postinst does.
    ln -sfn /usr/sbin/victimd "$root/usr/bin/hostile-race"
}

rpm_setup
for key in system store other; do
    make_key "$key"
done

# ---- the corpus as one spec: a subpackage per case ----
cases >"$work/cases"
extra() {
    cat >"$work/src/$1.aegis"
    echo "$1 $2 $3" >>"$work/extra"
}
: >"$work/extra"
extra_cases >"$work/extra-cases"
while read -r name expect key; do
    extra "$name" "$expect" "$key" <"$hostile/extra/$name.aegis"
done <"$work/extra-cases"
# rpm lets two packages ship the same file when its bytes are the same.
extra hostile-listed-twice refused =victim <<'EOF'
<aegis>
  <request>
    <credential name="Cellular"/>
    <for path="/usr/bin/hostile-listed-twice"/>
    <for path="/usr/sbin/victimd"/> <!-- hostile -->
  </request>
</aegis>
EOF
for name in $(awk '{ print $1 }' "$work/cases"); do
    cp "$corpus/aegis/$name.aegis" "$work/src/$name.aegis"
done

# What each case's package ships beyond its program and manifest: %install
# lines, %files lines, scriptlets (what its Debian package's rules and
# maintainer scripts do).
case_install() {
    case $1 in
    hostile-symlink) echo "rm %{buildroot}/usr/bin/$1; ln -s ../sbin/victimd %{buildroot}/usr/bin/$1" ;;
    hostile-dirlink) echo "mkdir -p %{buildroot}/usr/lib; ln -s ../sbin %{buildroot}/usr/lib/$1" ;;
    hostile-hardlink) echo "install -m 755 $corpus/bin/victimd %{buildroot}/usr/bin/$1" ;;
    hostile-race) echo "install -m 755 $corpus/bin/victimd %{buildroot}/usr/bin/$1"
        echo "install -D -m 755 $corpus/bin/victimd %{buildroot}/usr/lib/$1/$1" ;;
    hostile-dir) echo "install -D -m 644 $corpus/debian/copyright %{buildroot}/usr/lib/$1/README" ;;
    hostile-ima-symlink) echo "mkdir -p %{buildroot}/usr/lib/$1; ln -s /usr/bin/passwd %{buildroot}/usr/lib/$1/passwd" ;;
    hostile-retrigger) echo "install -D -m 644 $corpus/aegis/$1.late %{buildroot}/usr/lib/$1/late.aegis" ;;
    hostile-listed-twice) echo "install -D -m 755 $corpus/bin/victimd %{buildroot}/usr/sbin/victimd" ;;
    esac
}
case_files() {
    case $1 in
    hostile-setuid | hostile-setxid) echo "%attr(4755,root,root) /usr/bin/$1" ;;
    hostile-setgid) echo "%attr(2755,root,root) /usr/bin/$1" ;;
    *) echo "/usr/bin/$1" ;;
    esac
    case $1 in
    hostile-dirlink | hostile-ima-symlink) echo "/usr/lib/$1" ;;
    hostile-race) echo "/usr/lib/$1" ;;
    hostile-dir) echo "%dir /usr/lib/$1"; echo "/usr/lib/$1/README" ;;
    hostile-retrigger) echo "/usr/lib/$1/late.aegis" ;;
    hostile-listed-twice) echo "/usr/sbin/victimd" ;;
    esac
}
case_scripts() {
    case $1 in
    hostile-hardlink) printf '%%post -n %s\nln -f /usr/sbin/victimd /usr/bin/%s\n' "$1" "$1" ;;
    hostile-fifo) printf '%%post -n %s\nrm -f /usr/bin/%s\nmkfifo -m 755 /usr/bin/%s\n' "$1" "$1" "$1" ;;
    hostile-race) cat <<'EOF'
%post -n hostile-race
t=/usr/bin/hostile-race
( while :; do ln -sf /usr/sbin/victimd $t.l; mv -f $t.l $t; cp /usr/lib/hostile-race/hostile-race $t.r; mv -f $t.r $t; done ) </dev/null >/dev/null 2>&1 &
echo $! >/run/hostile-race.pid
sleep 0.2
EOF
        ;;
    hostile-retrigger) printf '%%post -n %s\ncp /usr/lib/%s/late.aegis /usr/share/mssf/aegis/%s.aegis\n' "$1" "$1" "$1" ;;
    esac
}
spec=$work/top/SPECS/hostile.spec
{
    spec_head mssf-hostile-rpm 1.0
    cat <<EOF
%package -n victim
Summary: the victim
%description -n victim
The victim of tests/hostile.
%package -n passwd
Summary: a set-user-ID program
%description -n passwd
Another package's set-user-ID program.
%files -n victim
/usr/sbin/victimd
/usr/share/mssf/aegis/victim.aegis
%files -n passwd
%attr(4755,root,root) /usr/bin/passwd
EOF
    for name in $(awk '{ print $1 }' "$work/cases" "$work/extra"); do
        printf '%%package -n %s\nSummary: %s\n%%description -n %s\nA hostile package.\n' "$name" "$name" "$name"
        printf '%%files -n %s\n/usr/share/mssf/aegis/%s.aegis\n' "$name" "$name"
        case_files "$name"
        case_scripts "$name"
    done
    echo '%install'
    echo "install -D -m 755 $corpus/bin/victimd %{buildroot}/usr/sbin/victimd"
    echo "install -D -m 644 $corpus/debian/victim.aegis %{buildroot}/usr/share/mssf/aegis/victim.aegis"
    echo "install -D -m 755 $corpus/bin/app %{buildroot}/usr/bin/passwd"
    for name in $(awk '{ print $1 }' "$work/cases" "$work/extra"); do
        echo "install -D -m 755 $corpus/bin/app %{buildroot}/usr/bin/$name"
        echo "install -D -m 644 $work/src/$name.aegis %{buildroot}/usr/share/mssf/aegis/$name.aegis"
        case_install "$name"
    done
} >"$spec"
build "$spec"
sign system "$work/rpms/victim-1.0-1.noarch.rpm" "$work/rpms/passwd-1.0-1.noarch.rpm"
mkdir -p "$work/thirdparty" "$work/unknown"
for name in $(awk '{ print $1 }' "$work/cases" "$work/extra"); do
    cp "$work/rpms/$name-1.0-1.noarch.rpm" "$work/thirdparty/"
    cp "$work/rpms/$name-1.0-1.noarch.rpm" "$work/unknown/"
done
sign store "$work"/thirdparty/*.rpm
sign other "$work"/unknown/*.rpm

# ---- the root: the victim from the system's key, passwd, victim2 by hand ----
setup_root() {
    make_root "$root"
    rpm_log "$root" "$work/victim.log" -i "$work/rpms/victim-1.0-1.noarch.rpm" \
        "$work/rpms/passwd-1.0-1.noarch.rpm" || { cat "$work/victim.log"; fail_now "installing the victim"; }
    mkdir -p "$root/opt/victim2"
    cp "$corpus/bin/victimd" "$root/opt/victim2/victim2d"
    printf '<aegis>\n  <request>\n    <credential name="Location"/>\n    <for path="/opt/victim2/victim2d"/>\n  </request>\n</aegis>\n' \
        >"$work/victim2.aegis"
    mp "$root" install --origin system victim2 "$work/victim2.aegis" >"$work/victim2.log" 2>&1 ||
        fail_now "registering victim2 by hand"
    snapshot "$root" "$work/no-load2" "$work/base"
    rpm --root "$root" -qa | sort >"$work/base.rpm"
}
setup_root
check "the victim is registered, origin system" system "$(head -1 "$root/var/lib/mssf/origins/victim" 2>/dev/null)"
check "the victim's program carries its label" victim "$(xattr "$root/usr/sbin/victimd" security.SMACK64EXEC)"

# attempt CASE EXPECT KEY ORIGIN
attempt() {
    name=$1 expect=$2 key=$3 origin=$4
    file=$work/$origin/$name-1.0-1.noarch.rpm
    log=$work/$name-$origin.log
    manifest=$work/src/$name.aegis
    rpm -qlp "$file" 2>/dev/null >"$work/own"
    rpm_log "$root" "$log.all" -i "$file"
    status=$?
    [ "$name" != hostile-race ] || race_kill
    ours "$log.all" >"$log"
    snapshot "$root" "$work/no-load2" "$work/after"
    rpm --root "$root" -qa | sort >"$work/after.rpm"
    if [ "$status" = 0 ]; then
        check "$name ($origin): rpm lists it" "$name-1.0-1.noarch" \
            "$(LC_ALL=C comm -13 "$work/base.rpm" "$work/after.rpm" | tr '\n' ' ' | sed 's/ $//')"
    else
        check "$name ($origin): rpm -qa as before" "" "$(LC_ALL=C comm -3 "$work/base.rpm" "$work/after.rpm")"
    fi
    verdict_expect=$expect
    [ "$expect" = unregistered ] && verdict_expect=installed
    verdict "$name ($origin)" "$verdict_expect" "$key" "$status" "$log" "$manifest" \
        "/usr/share/mssf/aegis/$name.aegis" "$name" "$(echo "$origin" | sed 's/unknown/store/')" \
        "$work/own" "$work/base" "$work/after" 0
    if [ "$expect" = unregistered ]; then
        check_grep "$name ($origin): its registration refused at $(marked_position "$manifest")" \
            "^/usr/share/mssf/aegis/$name\\.aegis$(marked_position "$manifest"): error: .*($(key_regexp "$key"))" "$log"
        check "$name ($origin): not registered" "" "$(ls "$root/var/lib/mssf/manifests/$name.xml" 2>/dev/null)"
        mp "$root" verify >"$work/verify.log" 2>&1
        check_grep "$name ($origin): mssf-policy verify lists it" "^$name: .*not registered" "$work/verify.log"
    fi
    [ "$status" = 0 ] && [ "${MSSF_TEST_VERBOSE:-0}" != 1 ] || sed 's/^/# /' "$log"
    if rpm --root "$root" -q "$name" >/dev/null 2>&1; then
        rpm_log "$root" "$log.erase" -e "$name"
        check "$name ($origin): erased" 0 $?
    fi
    snapshot "$root" "$work/no-load2" "$work/removed"
    rpm --root "$root" -qa | sort >"$work/removed.rpm"
    check "$name ($origin): after the erase the state is as before" "" \
        "$(LC_ALL=C comm -3 "$work/base" "$work/removed" | head -20; LC_ALL=C comm -3 "$work/base.rpm" "$work/removed.rpm")"
    if ! LC_ALL=C cmp -s "$work/base" "$work/removed" || ! cmp -s "$work/base.rpm" "$work/removed.rpm"; then
        setup_root >/dev/null
    fi
}

# rpm's expectations where they differ from dpkg's (see the top): EXPECT KEY.
rpm_expect() {
    case $1 in
    hostile-hardlink | hostile-fifo) echo "unregistered $3" ;;
    hostile-retrigger) echo "unregistered changed.after.rpm.installed" ;;
    *) echo "$2 $3" ;;
    esac
}
for origin in thirdparty unknown; do
    while read -r name expect key; do
        attempt "$name" $(rpm_expect "$name" "$expect" "$key") "$origin"
    done <"$work/cases"
done
while read -r name expect key; do
    attempt "$name" "$expect" "$key" thirdparty
done <"$work/extra"

[ "$failures" = 0 ] && echo "all hostile rpm cases passed"
exit $((failures > 0))
