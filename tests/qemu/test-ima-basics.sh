#!/bin/bash
# test-ima-basics: what Debian 12's stock kernel does with IMA appraisal,
# measured in the QEMU guest (qemu-run --disk), before mssf-policy is
# involved. Each check prints what it saw; any unexpected answer fails.
#   1. IMA and EVM are built in and their securityfs files are there.
#   2. 9p (the host tree) carries security.ima set on the host? (printed,
#      not asserted: it is why the tests appraise an ext4 disk instead).
#   3. root sets security.ima on ext4 before any policy is loaded.
#   4. With "appraise func=BPRM_CHECK fsuuid=<the disk>" written to the
#      policy file (no ima_appraise= or ima_policy= on the command line:
#      the default mode is enforce), a binary with a right reference hash
#      runs, one without is refused with EACCES, and the kernel logs an
#      integrity audit line for it.
set -u
fail=0
check() { if "$@"; then echo "ok: ${what}"; else echo "FAIL: ${what}"; fail=1; fi; }
uuid=$(tune2fs -l /dev/vda | sed -n 's/^Filesystem UUID: *//p')
echo "disk /dev/vda at /mnt, fsuuid $uuid"

dmesg | grep "evm: security" | sed "s/^\[[ 0-9.]*\] /kernel: /"
what="IMA policy and EVM files in securityfs"
check test -e /sys/kernel/security/ima/policy -a -e /sys/kernel/security/evm
echo "evm state: $(cat /sys/kernel/security/evm)"

probe=${QEMU_PROBE_FILE:-}
if [ -n "$probe" ]; then
    if getfattr -n security.ima -e hex "$probe" > /dev/null 2>&1; then
        echo "measured: 9p carries security.ima from the host ($probe)"
    else
        echo "measured: 9p does not show the host's security.ima ($probe)"
    fi
fi

# busybox (static: nothing else from the unappraised host tree is mapped)
# runs the applet its file is named after.
mkdir -p /mnt/good /mnt/never
cp /bin/busybox /mnt/good/true && cp /bin/busybox /mnt/never/true
what="root sets security.ima (evmctl ima_hash) with no policy loaded"
check sh -c "evmctl -a sha256 ima_hash /mnt/good/true > /dev/null"
getfattr --absolute-names -n security.ima -e hex /mnt/good/true | sed -n 's/^security.ima=/security.ima: /p'

what="the appraisal policy is accepted"
check sh -c "echo 'appraise func=BPRM_CHECK fsuuid=$uuid' > /sys/kernel/security/ima/policy"

what="a binary with its reference hash runs"
check /mnt/good/true
out=$(/mnt/never/true 2>&1); status=$?
echo "never-hashed binary: status $status: $out"
what="a binary without security.ima is refused with EACCES"
check sh -c "echo '$out' | grep -q 'Permission denied'"
what="the kernel's integrity audit line names it"
# kauditd prints asynchronously: give it a moment.
for i in 1 2 3 4 5; do dmesg | grep 'type=1800' | grep -q 'never/true' && break; sleep 1; done
check sh -c "dmesg | grep 'type=1800' | grep 'cause=missing-hash' | grep -q 'never/true'"
dmesg | grep -E 'audit|integrity' | tail -n 3
exit $fail
