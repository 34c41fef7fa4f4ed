#!/bin/bash
# test-evm: EVM's HMAC over mssf-policy's reference hashes, on Debian's
# own kernel booted with the BPF LSM left out of lsm= (qemu-evm runs this
# twice on one disk, changing the disk from the host in between):
#   test-evm.sh install MSSF_POLICY   first boot: key loaded, then install
#   test-evm.sh check                 second boot: same key, run the files
# The key: a user master key (the chipset's stand-in) and the encrypted
# evm-key under it. The master key is kept on the test disk only so that
# the second boot can load the same one; a device never stores it.
set -u
phase=$1
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
hex_xattr() { getfattr --absolute-names -e hex -n "$2" "$1" 2>/dev/null | sed -n "s/^$2=//p"; }

echo "active LSMs: $(cat /sys/kernel/security/lsm)"
case ",$(cat /sys/kernel/security/lsm)," in
*,bpf,*) not_ok "the BPF LSM is active (boot with lsm= without bpf: README.md)"; exit 1 ;;
esac
uuid=$(tune2fs -l /dev/vda | sed -n 's/^Filesystem UUID: *//p')
# FILE_CHECK as well as BPRM_CHECK: a file created on the disk is then a
# new file to IMA, whose first security.ima EVM lets be set (and HMACs);
# without it EVM refuses the first security xattr of any file (no_xattrs).
policy="appraise func=BPRM_CHECK fsuuid=$uuid
appraise func=FILE_CHECK fsuuid=$uuid"
bins="good tampered stripped"

if [ "$phase" = check ]; then
    expect_run "the same master key is loaded" 0 sh -c 'keyctl padd user kmk @u < /mnt/keys/kmk.bin'
    expect_run "the EVM key is loaded from its blob" 0 \
        sh -c 'keyctl add encrypted evm-key "load $(cat /mnt/keys/evm-key.blob)" @u'
    expect_run "EVM's HMAC is switched on" 0 sh -c 'echo 1 > /sys/kernel/security/evm'
    expect_run "the appraisal policy is accepted" 0 sh -c "echo '$policy' > /sys/kernel/security/ima/policy"
    expect_run "the untouched binary runs after a reboot" 0 /mnt/pkg/bin/good
    [ "$last_out" = good ] && ok "and prints what it should" || not_ok "output: $last_out"
    expect_run "content and security.ima rewritten offline: refused" 126 sh -c /mnt/pkg/bin/tampered
    case "$last_out" in *"Permission denied"*) ok "with EACCES" ;; *) not_ok "tampered: $last_out" ;; esac
    audit_has "the kernel audits it as invalid-HMAC" 'cause=invalid-HMAC.*pkg/bin/tampered'
    expect_run "security.evm removed offline: refused" 126 sh -c /mnt/pkg/bin/stripped
    audit_has "the kernel audits it as missing-HMAC" 'cause=missing-HMAC.*pkg/bin/stripped'
    echo "$failures failed"
    [ "$failures" = 0 ]
    exit
fi

tool=$(readlink -f "$2")
state=/tmp/mssf
mkdir -p $state/dpkg/info
export DPKG_ADMINDIR=$state/dpkg
expect_run "the appraisal policy (programs and opened files on the disk) is accepted" 0 \
    sh -c "echo '$policy' > /sys/kernel/security/ima/policy"
expect_run "a user master key (the chipset's stand-in) is added" 0 \
    sh -c 'head -c 32 /dev/urandom > /tmp/kmk.bin && keyctl padd user kmk @u < /tmp/kmk.bin'
# Made once (the device's provisioning), kept as its blob, and loaded
# from the blob in every boot including this one: measured, HMACs made
# with the key as "new" returned did not verify after a reboot with the
# same key loaded from its blob; made with the loaded key, they do.
expect_run "the EVM key: encrypted, 64 bytes, under the master key, saved as its blob" 0 \
    sh -c 'id=$(keyctl add encrypted evm-key "new user:kmk 64" @u) && keyctl pipe $id > /tmp/evm-key.blob && keyctl unlink $id @u'
expect_run "the EVM key is loaded from its blob" 0 \
    sh -c 'keyctl add encrypted evm-key "load $(cat /tmp/evm-key.blob)" @u'
expect_run "EVM's HMAC is switched on before anything is installed" 0 sh -c 'echo 1 > /sys/kernel/security/evm'

# The package: shell scripts, so that the host can rewrite them in place.
mkdir -p /mnt/pkg/bin /mnt/keys
for b in $bins; do printf '#!/bin/sh\necho good\n' > /mnt/pkg/bin/$b && chmod 755 /mnt/pkg/bin/$b; done
expect_run "files are created on the disk with the key loaded (no oops)" 0 test -x /mnt/pkg/bin/stripped
cat > $state/evmpkg.xml <<XML
<aegis>
  <request>
    <credential name="Location"/>
    <for path="/mnt/pkg/bin/good"/>
  </request>
</aegis>
XML
: > $state/dpkg/info/evmpkg.list
for b in $bins; do
    echo /mnt/pkg/bin/$b >> $state/dpkg/info/evmpkg.list
    md5sum /mnt/pkg/bin/$b | sed 's|  /|  |' >> $state/dpkg/info/evmpkg.md5sums
done
mssf() {
    "$tool" "$@" --manifest-dir $state/manifests --origin-dir $state/origins \
        --policy-db $state/policy.db --rules-dir $state/rules --lock-file $state/lock \
        --device-policy $state/device-policy.conf --no-kernel --no-reload
}
expect_run "mssf-policy install under EVM" 0 mssf install evmpkg $state/evmpkg.xml
want=0404$(sha256sum < /mnt/pkg/bin/good | cut -c1-64)
for b in $bins; do
    ima=$(hex_xattr /mnt/pkg/bin/$b security.ima); evm=$(hex_xattr /mnt/pkg/bin/$b security.evm)
    [ "$ima" = "0x$want" ] && ok "$b: security.ima is the sha256 reference" || not_ok "$b: security.ima $ima, want 0x$want"
    case "$evm" in 0x02????????????????????????????????????????) ok "$b: the kernel wrote security.evm, an HMAC (type 02, sha1): $evm" ;;
    *) not_ok "$b: security.evm is '$evm', want an HMAC (0x02 and 20 bytes)" ;; esac
done
expect_run "the installed binary runs" 0 /mnt/pkg/bin/good
[ "$last_out" = good ] && ok "and prints what it should" || not_ok "output: $last_out"
expect_run "verify finds hashes and HMACs in place (exit 0)" 0 mssf verify evmpkg

cp /tmp/kmk.bin /tmp/evm-key.blob /mnt/keys/
[ -s /mnt/keys/evm-key.blob ] && ok "the EVM key's blob is saved for the next boot" || not_ok "no evm-key blob"
sync
expect_run "the disk is remounted read-only (clean for the host's debugfs)" 0 mount -o remount,ro /mnt
echo "$failures failed"
[ "$failures" = 0 ]
