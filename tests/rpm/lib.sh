# tests/rpm/lib.sh: rpm with the plugin from the build tree, throwaway
# signing keys, test packages built with rpmbuild, and a root to install
# them in with `rpm --root`. Sourced by the tests here; the caller sets
# here (this folder), work (a scratch folder), tool (the build tree's
# mssf-policy), plugin (the build tree's mssf.so), and defines nothing
# else. tests/package/lib.sh gives check, check_grep, check_no_grep and
# failures; tests/hostile/lib.sh the state of a root as lines (state,
# snapshot) and the verdicts.

hostile=$here/../hostile
. "$here/../package/lib.sh"
. "$hostile/lib.sh"

fail_now() {
    echo "not ok - $1"
    exit 1
}

# rpm's configuration for the test: HOME holds the .rpmmacros rpm, rpmbuild,
# rpmsign, dnf and mssf-policy read (Debian's rpm keeps its database in
# ~/.rpmdb otherwise), with the plugin directory holding the build tree's
# mssf.so (rpm loads only the plugins it finds there) and the build tree's
# mssf-policy for %mssf_manifest.
rpm_setup() {
    HOME=$work/home
    GNUPGHOME=$work/gnupg
    export HOME GNUPGHOME
    mkdir -p "$HOME" "$work/plugins" "$work/top/SPECS" "$work/rpms" "$work/src" "$work/tmp"
    mkdir -m 700 -p "$GNUPGHOME"
    ln -sf "$plugin" "$work/plugins/mssf.so"
    {
        cat "$here/../../policy/rpm/macros.mssf"
        cat <<EOF
%_dbpath /var/lib/rpm
%__plugindir $work/plugins
%__transaction_mssf %{__plugindir}/mssf.so
%_pkgverify_level signature
%__gpg /usr/bin/gpg
%_topdir $work/top
%_tmppath $work/tmp
%__mssf_policy $tool
%_binaries_in_noarch_packages_terminate_build 0
EOF
    } >"$HOME/.rpmmacros"
}

# gpg_stop: the gpg-agent that making and using the keys started (it
# would outlive the test).
gpg_stop() {
    [ -d "${GNUPGHOME:-}" ] && gpgconf --kill gpg-agent 2>/dev/null
    :
}

# make_key NAME: a signing key (NAME@rpm.test); its fingerprint in
# $work/NAME.fpr, its public key in $work/NAME.asc.
make_key() {
    gpg --batch --quiet --no-auto-check-trustdb --pinentry-mode loopback --passphrase '' \
        --quick-gen-key "MSSF rpm test $1 <$1@rpm.test>" ed25519 sign never 2>/dev/null ||
        fail_now "gpg cannot make a key"
    gpg --batch --with-colons --list-keys "$1@rpm.test" | awk -F: '/^fpr/ { print $10; exit }' \
        >"$work/$1.fpr"
    gpg --batch --armor --export "$1@rpm.test" >"$work/$1.asc"
}

# spec_head NAME VERSION: the start of a test package's spec (no
# dependencies of its own, so that rpm --root needs no base system).
spec_head() {
    cat <<EOF
Name: $1
Version: $2
Release: 1
Summary: mssf-broker rpm test package
License: MIT
BuildArch: noarch
AutoReqProv: no
%description
A test package of mssf-broker's tests/rpm.
EOF
}

# build SPEC: rpmbuild -bb, its packages moved to $work/rpms.
build() {
    rpmbuild -bb "$1" >"$1.log" 2>&1 || { tail -20 "$1.log"; fail_now "rpmbuild $1 failed"; }
    find "$work/top/RPMS" -name '*.rpm' -exec mv {} "$work/rpms/" \;
}

# sign KEY RPM...: the header signed with KEY (in place).
sign() {
    key=$1
    shift
    rpmsign --define "_gpg_name $key@rpm.test" --addsign "$@" >/dev/null 2>&1 ||
        fail_now "rpmsign $* failed"
}

# make_root ROOT: an empty root with the device maker's configuration, the
# keys in rpm's keyring, and a shell for scriptlets (busybox).
#   system: rpm-origins.conf's first paragraph; store: thirdparty;
#   other: in rpm's keyring, mapped to nothing; nokey: not imported.
make_root() {
    r=$1
    rm -rf "$r"
    mkdir -p "$r/etc/mssf" "$r/usr/bin" "$r/usr/sbin" "$r/run" "$r/tmp" "$r/var/lib/rpm" "$r/dev"
    mknod "$r/dev/null" c 1 3 && chmod 666 "$r/dev/null" || fail_now "mknod $r/dev/null"
    ln -s usr/bin "$r/bin"
    cp /bin/busybox "$r/usr/bin/busybox"
    for applet in sh ln mkfifo mkdir rm cp mv sleep cat echo kill chmod; do
        ln -s busybox "$r/usr/bin/$applet"
    done
    cp "$here/device-policy.conf" "$r/etc/mssf/device-policy.conf"
    printf 'Mssf-Origin: system\nSigned-By: %s\n\nMssf-Origin: thirdparty\nSigned-By: %s\n' \
        "$(cat "$work/system.fpr")" "$(cat "$work/store.fpr")" >"$r/etc/mssf/rpm-origins.conf"
    for key in system store other; do
        rpm --root "$r" --import "$work/$key.asc" || fail_now "rpm --import $key"
    done
}

# rpm_log ROOT LOG ARGS...: rpm on ROOT, all output in LOG; its exit status.
rpm_log() {
    rl_root=$1 rl_log=$2
    shift 2
    rpm --root "$rl_root" --nodeps "$@" >"$rl_log.raw" 2>&1
    rl_status=$?
    grep -v -e 'use Alien instead' -e 'assuming you know what you are doing' "$rl_log.raw" >"$rl_log"
    return $rl_status
}

# ours LOG: the lines of LOG that are not rpm's own (rpm says "error:",
# "warning:" and its verification at the start of a line; mssf-policy's
# lines start with the manifest's path, "mssf-policy:" or "note:").
ours() {
    grep -v -e '^error: ' -e '^warning: ' -e '^	package .* does not verify' "$1"
}

# mp ROOT ARGS...: the build tree's mssf-policy on ROOT.
mp() {
    r=$1
    shift
    "$tool" "$@" --root "$r" </dev/null
}

# snap ROOT FILE: the root's state (tests/hostile/lib.sh: xattrs, rule
# files, registrations, policy.db) and what rpm's database lists.
snap() {
    { state "$1" "$work/no-load2"; rpm --root "$1" -qa 2>/dev/null | sed 's/^/rpm\t/'; } |
        LC_ALL=C sort >"$2"
}

xattr() {
    getfattr --only-values -n "$2" "$1" 2>/dev/null
}
