#!/bin/bash
# test-policy-ima: mssf-policy's reference hashes, enforced by Debian's
# own kernel (run by qemu-run --disk in the QEMU guest):
#   test-policy-ima.sh MSSF_POLICY
# The package's files are on the guest's ext4 disk (/mnt), which the IMA
# policy appraises (fsuuid=); mssf-policy's own state is on tmpfs.
#   IMA: a binary installed by mssf-policy runs; the same binary changed
#   after install is refused (EACCES, audit cause=invalid-hash); a binary
#   never installed is refused (cause=missing-hash); verify names the
#   changed file. EVM (an encrypted key under a user master key, loaded
#   with keyctl, standing in for the chipset's key): evm-part.sh.
set -u
tool=$(readlink -f "$1")
failures=0
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; failures=$((failures + 1)); }
expect_run() {  # DESCRIPTION EXPECTED-STATUS PROGRAM...
    local what=$1 want=$2 out status
    shift 2
    out=$("$@" 2>&1); status=$?
    if [ "$status" = "$want" ]; then ok "$what"; else not_ok "$what: status $status, want $want: $out"; fi
    last_out=$out
}
audit_has() {  # DESCRIPTION PATTERN (kauditd prints asynchronously)
    for _ in 1 2 3 4 5; do dmesg | grep 'type=1800' | grep -q -- "$2" && break; sleep 1; done
    if dmesg | grep 'type=1800' | grep -q -- "$2"; then
        ok "$1"; dmesg | grep 'type=1800' | grep -- "$2" | tail -n 1 | sed 's/^\[[ 0-9.]*\] /  kernel: /'
    else
        not_ok "$1 (no audit line matching $2)"
    fi
}

uuid=$(tune2fs -l /dev/vda | sed -n 's/^Filesystem UUID: *//p')
state=/tmp/mssf
mkdir -p $state/dpkg/info /mnt/pkg/bin
export DPKG_ADMINDIR=$state/dpkg
mssf() {
    "$tool" "$@" --manifest-dir $state/manifests --origin-dir $state/origins \
        --policy-db $state/policy.db --rules-dir $state/rules --lock-file $state/lock \
        --device-policy $state/device-policy.conf --no-kernel --no-reload
}
install_pkg() {  # NAME BINARY: manifest naming BINARY, dpkg list and md5sums
    cat > $state/$1.xml <<XML
<aegis>
  <request>
    <credential name="Location"/>
    <for path="$2"/>
  </request>
</aegis>
XML
    echo "$2" > $state/dpkg/info/$1.list
    md5sum "$2" | sed 's|  /|  |' > $state/dpkg/info/$1.md5sums
    mssf install "$1" $state/$1.xml
}

# The program: coreutils' echo (its libraries come from the host tree
# over 9p, which no rule appraises).
for p in maps changed never preevm; do cp /bin/echo /mnt/pkg/bin/$p; done

expect_run "the appraisal policy for the disk is accepted" 0 \
    sh -c "echo 'appraise func=BPRM_CHECK fsuuid=$uuid' > /sys/kernel/security/ima/policy"
expect_run "mssf-policy install maps" 0 install_pkg maps /mnt/pkg/bin/maps
expect_run "mssf-policy install changed" 0 install_pkg changed /mnt/pkg/bin/changed

expect_run "the installed binary runs" 0 /mnt/pkg/bin/maps hello
[ "$last_out" = hello ] && ok "and prints what it should" || not_ok "output: $last_out"

printf 'x' >> /mnt/pkg/bin/changed
expect_run "the binary changed after install is refused" 126 sh -c /mnt/pkg/bin/changed
case "$last_out" in *"Permission denied"*) ok "with EACCES" ;; *) not_ok "changed: $last_out" ;; esac
audit_has "the kernel audits it as invalid-hash" 'cause=invalid-hash.*pkg/bin/changed'

expect_run "a binary never installed is refused" 126 sh -c /mnt/pkg/bin/never
case "$last_out" in *"Permission denied"*) ok "with EACCES" ;; *) not_ok "never: $last_out" ;; esac
audit_has "the kernel audits it as missing-hash" 'cause=missing-hash.*pkg/bin/never'

expect_run "verify reports the change (exit 6)" 6 mssf verify
case "$last_out" in *"changed: /mnt/pkg/bin/changed: content changed"*) ok "naming the file" ;; *) not_ok "verify: $last_out" ;; esac

. "$(dirname "$0")/evm-part.sh"
echo "$failures failed"
[ "$failures" = 0 ]
