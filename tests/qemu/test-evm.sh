#!/bin/bash
# test-evm: EVM's HMAC over mssf-policy's reference hashes and labels,
# on Debian's own kernel booted with the BPF LSM left out of lsm=, or on
# qemu-smack-kernel's (Smack, and EVM over Smack's xattrs). qemu-evm runs
# this twice on one disk, changing the disk from the host in between:
#   test-evm.sh install MSSF_POLICY [MSSF_KEYD]  first boot: key loaded,
#                                     then install and upgrade
#   test-evm.sh check [MSSF_KEYD]     second boot: same key, run the files
#   test-evm.sh foreign [MSSF_KEYD]   a third boot on another TPM: the
#                                     master key cannot be had, and the
#                                     EVM key does not load
# The files: good (untouched), tampered (content and security.ima
# rewritten offline), stripped (security.evm removed offline), relabelled
# (SMACK64EXEC rewritten offline), labelled (named only by the upgrade:
# SMACK64EXEC set on an unchanged file), upgraded (replaced, re-hashed
# and labelled by the upgrade), dropped (no longer named by the upgrade:
# label and reference hash removed, so refused from then on).
# The key: the encrypted evm-key under a master key kmk, which is
# chosen by what the kernel offers (master_kind):
#  - trusted: a kernel with trusted keys (qemu-smack-kernel's) makes the
#    master itself, 32 random bytes sealed by the TPM under a storage
#    primary kept at a persistent handle; user space only ever sees the
#    sealed blob (on the test disk), which the kernel unseals at each
#    boot. Such a kernel without a TPM, or a TPM that refuses, gets no
#    EVM key at all: nothing weaker is put in its place.
#  - user, from the TPM (MSSF_KEYD given: qemu-run --tpm): Debian's
#    kernel has no trusted keys, so mssf-keyd --evm-master derives the
#    master from the device's root key, which the TPM seals, and adds it
#    as the user key kmk at each boot, its state (the sealed root, never
#    the root) on the test disk; once EVM has its key the master is
#    dropped from the keyring.
#  - user, a stand-in (no MSSF_KEYD, Debian's kernel): random bytes, kept
#    on the test disk only so that the second boot can load the same one
#    (a device never stores it).
set -u
phase=$1
failures=0
keyd=
case "$phase" in
install) keyd=${3:-} ;;
check|foreign) keyd=${2:-} ;;
esac
keyd_state=/mnt/keyd
# The storage primary the kernel seals the trusted master under: the
# first persistent handle of the owner's range (TPM 2.0 Part 2, 2.3.1).
parent=0x81000001
export TPM2TOOLS_TCTI=device:/dev/tpmrm0
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

label_of() { getfattr --absolute-names --only-values -n security.SMACK64EXEC "$1" 2>/dev/null; }

echo "active LSMs: $(cat /sys/kernel/security/lsm)"
case ",$(cat /sys/kernel/security/lsm)," in
*,bpf,*) not_ok "the BPF LSM is active (boot with lsm= without bpf: README.md)"; exit 1 ;;
esac
smack=0
case ",$(cat /sys/kernel/security/lsm)," in *,smack,*) smack=1 ;; esac
if [ $smack = 1 ]; then
    expect_run "smackfs is mounted" 0 mount -t smackfs smackfs /sys/fs/smackfs
fi
allow_package() {  # LABEL: the package's processes may write to this script's pipes, labelled "_"
    [ $smack = 1 ] || return 0
    expect_run "Smack: $1 may write to \"_\" (the test's pipes)" 0 sh -c "echo '$1 _ rwx' > /sys/fs/smackfs/load2"
}
uuid=$(tune2fs -l /dev/vda | sed -n 's/^Filesystem UUID: *//p')
# FILE_CHECK as well as BPRM_CHECK: a file created on the disk is then a
# new file to IMA, whose first security.ima EVM lets be set (and HMACs);
# without it EVM refuses the first security xattr of any file (no_xattrs).
policy="appraise func=BPRM_CHECK fsuuid=$uuid
appraise func=FILE_CHECK fsuuid=$uuid"
bins="good tampered stripped relabelled labelled dropped upgraded"

# The master this kernel allows: "trusted" where the kernel can seal a
# key with the TPM itself, "user" where it cannot (Debian 12's kernel:
# CONFIG_TRUSTED_KEYS off), or "none: WHY". The trusted key type only
# registers when a TPM was found at boot, so its absence alone does not
# tell a kernel without trusted keys from one whose TPM is missing:
# /proc/config.gz (qemu-smack-kernel has it, Debian's kernel does not)
# tells them apart, and the second must not fall back to the weaker
# user master. An empty payload is refused by a registered type
# (EINVAL) and by a missing one with ENODEV, and adds no key.
master_kind() {
    local built=no probe
    zcat /proc/config.gz 2>/dev/null | grep -Eqx 'CONFIG_TRUSTED_KEYS=[ym]' && built=yes
    probe=$(keyctl add trusted mssf-probe "" @u 2>&1)
    case "$built:$probe" in
    no:*"No such device"*) echo user ;;
    yes:*"No such device"*)
        echo "none: this kernel is built with CONFIG_TRUSTED_KEYS but has no trusted key type, so no TPM was found at boot" ;;
    *) echo trusted ;;
    esac
}
# Stop here: without its master EVM is not switched on, and no weaker key takes its place.
stop() {
    not_ok "$1"
    echo "EVM stays off: no master key"
    echo "$failures failed"
    exit 1
}
# The trusted master kmk: "new" makes it (the first boot) and saves its
# sealed blob on the disk, "load" has the TPM unseal that blob.
trusted_master() {  # new|load DESCRIPTION
    local out
    [ -c /dev/tpmrm0 ] && ok "the guest has a TPM (/dev/tpmrm0)" || stop "no /dev/tpmrm0 in this guest"
    if [ "$1" = new ]; then
        # Made once, as a device's provisioning would; it stays in the TPM's NV.
        out=$(tpm2_createprimary -Q -C o -c /tmp/primary.ctx 2>&1 && tpm2_evictcontrol -Q -C o -c /tmp/primary.ctx $parent 2>&1) &&
            ok "a storage primary key, persistent at $parent (tpm2-tools)" ||
            stop "the TPM refuses a storage primary at $parent: $out"
        out=$(keyctl add trusted kmk "new 32 keyhandle=$parent" @u 2>&1) &&
            keyctl pipe "$out" > /mnt/keys/kmk.blob &&
            ok "$2" || stop "the TPM refuses to seal a trusted master under $parent: $out"
    else
        out=$(keyctl add trusted kmk "load $(cat /mnt/keys/kmk.blob) keyhandle=$parent" @u 2>&1) &&
            ok "$2" || stop "the TPM refuses to unseal the trusted master's blob: $out"
    fi
    # What root can read of it is the sealed blob the disk has anyway.
    out=$(keyctl pipe "$(keyctl search @u trusted kmk)" 2>&1)
    [ "$out" = "$(cat /mnt/keys/kmk.blob)" ] && ok "reading kmk back gives its sealed blob ($(wc -c < /mnt/keys/kmk.blob) hex digits), not the key" ||
        not_ok "keyctl pipe kmk gives something other than its blob: $(echo "$out" | head -c 80)"
}
# The master, chosen by master_kind: new|load.
master_key() {
    case "$master" in
    trusted)
        if [ "$1" = new ]; then
            trusted_master new "the master key: a trusted key the kernel makes and the TPM seals, its blob saved"
        else
            trusted_master load "the same master key: its blob unsealed by the same TPM"
        fi ;;
    user-tpm)
        if [ "$1" = new ]; then
            master_from_tpm "the master key: derived from a root the TPM seals at this first start (mssf-keyd), added as kmk"
            udev_rule
        else
            master_from_tpm "the same master key, from the root the same TPM unseals"
        fi ;;
    user)
        if [ "$1" = new ]; then
            expect_run "a user master key (the chipset's stand-in) is added" 0 \
                sh -c 'head -c 32 /dev/urandom > /tmp/kmk.bin && keyctl padd user kmk @u < /tmp/kmk.bin'
        else
            expect_run "the same master key is loaded" 0 sh -c 'keyctl padd user kmk @u < /mnt/keys/kmk.bin'
        fi ;;
    esac
}
# The master key from the TPM-sealed root (mssf-keyd), as user key kmk: DESCRIPTION.
master_from_tpm() {
    [ -c /dev/tpmrm0 ] && ok "the guest has a TPM (/dev/tpmrm0)" || not_ok "no /dev/tpmrm0 in this guest"
    expect_run "$1" 0 "$keyd" --evm-master kmk --state-dir $keyd_state --tpm required
    echo "$last_out" | sed 's/^/  /'
    grep -q '^mode tpm$' $keyd_state/root.state && ok "the root's state on the disk: sealed by the TPM" ||
        not_ok "$keyd_state/root.state is not a TPM-sealed root"
}
# The package's udev rule (keyd/60-mssf-keyd.rules) against the node this
# kernel makes for the TPM's resource manager: it matches and labels it
# for the service. udevadm test runs the rules as udevd would; Smack is
# not this kernel's active LSM, so the label itself is not written.
udev_rule() {
    local rules out
    rules=$(cd "$(dirname "$0")/../../keyd" && pwd)/60-mssf-keyd.rules
    mkdir -p /run/udev/rules.d && cp "$rules" /run/udev/rules.d/ ||
        { not_ok "cannot put $rules in /run/udev/rules.d"; return; }
    out=$(udevadm test --action=add /sys/class/tpmrm/tpmrm0 2>&1)
    if echo "$out" | grep -Eq '60-mssf-keyd\.rules:[0-9]+ SECLABEL\{smack\}=.mssf-keyd.$'; then
        ok "the package's udev rule labels /dev/tpmrm0 mssf-keyd"
    else
        not_ok "the package's udev rule does not label /dev/tpmrm0: $(echo "$out" | grep -iE 'keyd|seclabel|error' | head -n 20)"
    fi
    rm -f /run/udev/rules.d/60-mssf-keyd.rules
}
# Once EVM has its key, the master may go: while it is in the keyring root can read it back.
drop_master() {
    [ "$master" = user-tpm ] || return 0
    expect_run "the master key is dropped from the keyring now that EVM has its key" 0 \
        sh -c 'keyctl unlink $(keyctl search @u user kmk) @u'
    expect_run "and it is gone" 1 keyctl search @u user kmk
}

kind=$(master_kind)
case "$kind" in
none:*) stop "${kind#none: }" ;;
user) master=user; [ -n "$keyd" ] && master=user-tpm ;;
*) master=$kind ;;
esac
master_type=${master%-tpm}
echo "EVM's master key: $master_type$([ "$master" = user-tpm ] && echo ", from mssf-keyd's TPM-sealed root")$([ "$master" = user ] && echo ", a stand-in")"
[ "$phase" = foreign ] && [ "$master" = user ] && stop "foreign needs a TPM: MSSF_KEYD, or a kernel with trusted keys"

if [ "$phase" = foreign ] && [ "$master" = trusted ]; then
    [ -c /dev/tpmrm0 ] && ok "the guest has a TPM (/dev/tpmrm0)" || stop "no /dev/tpmrm0 in this guest"
    # Another TPM (a fresh swtpm state), the same disk: what a thief with the disk, or the disk in another device, gets.
    load_kmk="keyctl add trusted kmk \"load \$(cat /mnt/keys/kmk.blob) keyhandle=$parent\" @u"
    # The kernel answers a TPM's error status with EPERM; EINVAL would be the blob or the options refused before the TPM saw them.
    expect_run "another TPM: the trusted master's blob does not load (no key at $parent here)" 1 sh -c "$load_kmk"
    case "$last_out" in *"Operation not permitted"*) ok "the TPM refuses it (EPERM): $last_out" ;; *) not_ok "not the TPM's refusal: $last_out" ;; esac
    expect_run "this TPM's own storage primary, made at the same handle" 0 \
        sh -c "tpm2_createprimary -Q -C o -c /tmp/primary.ctx && tpm2_evictcontrol -Q -C o -c /tmp/primary.ctx $parent"
    expect_run "the blob does not load under it either: another TPM's primary sealed it" 1 sh -c "$load_kmk"
    case "$last_out" in *"Operation not permitted"*) ok "the TPM refuses it (EPERM): $last_out" ;; *) not_ok "not the TPM's refusal: $last_out" ;; esac
    expect_run "no master key in the keyring" 1 keyctl search @u trusted kmk
    expect_run "so the EVM key's blob does not load" 1 sh -c 'keyctl add encrypted evm-key "load $(cat /mnt/keys/evm-key.blob)" @u'
    # A new master made on this TPM is another key: the blob does not load under it either.
    expect_run "a new trusted master made on this TPM" 0 keyctl add trusted kmk "new 32 keyhandle=$parent" @u
    expect_run "under which the EVM key's blob does not load either" 1 \
        sh -c 'keyctl add encrypted evm-key "load $(cat /mnt/keys/evm-key.blob)" @u'
    expect_run "so EVM cannot be switched on with this disk's key" 0 sh -c '! keyctl search @u encrypted evm-key'
    echo "$failures failed"
    [ "$failures" = 0 ]
    exit
fi
if [ "$phase" = foreign ]; then
    # Another TPM (a fresh swtpm state), the same disk: what a thief with the disk, or the disk in another device, gets.
    expect_run "another TPM: mssf-keyd cannot unseal the root" 1 "$keyd" --evm-master kmk --state-dir $keyd_state --tpm required
    case "$last_out" in *org.mssf.Keys1.Error.ForeignTpm*"sealed by another TPM"*) ok "and says so by name: $(echo "$last_out" | head -c 120)" ;;
    *) not_ok "not ForeignTpm: $last_out" ;; esac
    expect_run "no master key in the keyring" 1 keyctl search @u user kmk
    expect_run "so the EVM key's blob does not load" 1 sh -c 'keyctl add encrypted evm-key "load $(cat /mnt/keys/evm-key.blob)" @u'
    # A new root on this TPM gives another master key: the blob does not load under it either.
    expect_run "a new root made on this TPM gives a master key" 0 "$keyd" --evm-master kmk --state-dir /tmp/new-root --tpm required
    expect_run "under which the EVM key's blob does not load either" 1 \
        sh -c 'keyctl add encrypted evm-key "load $(cat /mnt/keys/evm-key.blob)" @u'
    expect_run "so EVM cannot be switched on with this disk's key" 0 sh -c '! keyctl search @u encrypted evm-key'
    echo "$failures failed"
    [ "$failures" = 0 ]
    exit
fi

if [ "$phase" = check ]; then
    master_key load
    expect_run "the EVM key is loaded from its blob" 0 \
        sh -c 'keyctl add encrypted evm-key "load $(cat /mnt/keys/evm-key.blob)" @u'
    expect_run "EVM's HMAC is switched on" 0 sh -c 'echo 1 > /sys/kernel/security/evm'
    drop_master
    expect_run "the appraisal policy is accepted" 0 sh -c "echo '$policy' > /sys/kernel/security/ima/policy"
    label=$(cat /mnt/keys/label)
    allow_package "$label"
    expect_run "the untouched binary runs after a reboot" 0 /mnt/pkg/bin/good
    [ "$last_out" = good ] && ok "and prints what it should" || not_ok "output: $last_out"
    expect_run "the binary the upgrade replaced runs after a reboot" 0 /mnt/pkg/bin/upgraded
    # It prints its Smack label: the package's, given by SMACK64EXEC (another LSM's context elsewhere).
    want_label=; [ $smack = 1 ] && want_label=$label
    case "$last_out" in "v2 $want_label"*) ok "as the new version: $last_out" ;; *) not_ok "upgraded printed '$last_out', want 'v2 $want_label'" ;; esac
    expect_run "the binary the upgrade labelled runs after a reboot" 0 /mnt/pkg/bin/labelled
    case "$last_out" in "labelled $want_label"*) ok "printing its Smack label (another LSM's context without Smack): $last_out" ;;
    *) not_ok "labelled printed '$last_out', want 'labelled $want_label'" ;; esac
    expect_run "the binary the upgrade no longer names is refused: it has no reference hash" 126 sh -c /mnt/pkg/bin/dropped
    audit_has "the kernel audits it as missing-hash" 'cause=missing-hash.*pkg/bin/dropped'
    if [ $smack = 1 ]; then
        expect_run "SMACK64EXEC rewritten offline: refused" 126 sh -c /mnt/pkg/bin/relabelled
        audit_has "the kernel audits it as invalid-HMAC" 'cause=invalid-HMAC.*pkg/bin/relabelled'
    else
        # Debian's kernel lists SMACK64* as disabled in EVM: measured, not hoped.
        expect_run "SMACK64EXEC rewritten offline still runs here: this kernel's EVM does not cover Smack's xattrs" \
            0 sh -c /mnt/pkg/bin/relabelled
    fi
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
# The keys first: the service's state is written to the disk before the
# appraisal policy exists (a file made before it carries no reference
# hash, and is read again, in the next boot, before the policy is
# written there too).
mkdir -p /mnt/keys
master_key new
# Made once (the device's provisioning), kept as its blob, and loaded
# from the blob in every boot including this one: measured, HMACs made
# with the key as "new" returned did not verify after a reboot with the
# same key loaded from its blob; made with the loaded key, they do.
expect_run "the EVM key: encrypted, 64 bytes, under the $master_type master key, saved as its blob" 0 \
    sh -c "id=\$(keyctl add encrypted evm-key 'new $master_type:kmk 64' @u) && keyctl pipe \$id > /tmp/evm-key.blob && keyctl unlink \$id @u"
expect_run "the EVM key is loaded from its blob" 0 \
    sh -c 'keyctl add encrypted evm-key "load $(cat /tmp/evm-key.blob)" @u'
expect_run "EVM's HMAC is switched on before anything is installed" 0 sh -c 'echo 1 > /sys/kernel/security/evm'
drop_master
expect_run "the appraisal policy (programs and opened files on the disk) is accepted" 0 \
    sh -c "echo '$policy' > /sys/kernel/security/ima/policy"

# The package: shell scripts, so that the host can rewrite them in place.
mkdir -p /mnt/pkg/bin
for b in $bins; do printf '#!/bin/sh\necho good\n' > /mnt/pkg/bin/$b && chmod 755 /mnt/pkg/bin/$b; done
# It prints its Smack label (another LSM's context where Smack is not active).
printf '#!/bin/sh\necho labelled $(cat /proc/self/attr/current 2>/dev/null)\n' > /mnt/pkg/bin/labelled
expect_run "files are created on the disk with the key loaded (no oops)" 0 test -x /mnt/pkg/bin/stripped
manifest() {  # FILE BINARY...: a manifest naming these binaries (they get SMACK64EXEC)
    local file=$1 b
    shift
    { echo "<aegis><request><credential name=\"Location\"/>"
      for b in "$@"; do echo "<for path=\"/mnt/pkg/bin/$b\"/>"; done
      echo "</request></aegis>"; } > "$file"
}
# What dpkg records for the package as unpacked now. Installed by hand,
# the binaries the manifest names are checked against these md5sums; the
# list is dpkg's business only when dpkg runs mssf-policy (docs/integrity.md).
dpkg_files() {
    : > $state/dpkg/info/evmpkg.list; : > $state/dpkg/info/evmpkg.md5sums
    for b in $bins; do
        echo /mnt/pkg/bin/$b >> $state/dpkg/info/evmpkg.list
        md5sum /mnt/pkg/bin/$b | sed 's|  /|  |' >> $state/dpkg/info/evmpkg.md5sums
    done
}
mssf() {
    "$tool" "$@" --manifest-dir $state/manifests --origin-dir $state/origins \
        --policy-db $state/policy.db --rules-dir $state/rules --lock-file $state/lock \
        --device-policy $state/device-policy.conf --no-kernel --no-reload
}
check_xattrs() {  # BINARY WANT-SMACK64EXEC: reference hash, HMAC and label as they should be
    local b=$1 want_label=$2 ima evm want
    want=0x0404$(sha256sum < /mnt/pkg/bin/$b | cut -c1-64)
    ima=$(hex_xattr /mnt/pkg/bin/$b security.ima); evm=$(hex_xattr /mnt/pkg/bin/$b security.evm)
    [ "$ima" = "$want" ] && ok "$b: security.ima is the sha256 reference" || not_ok "$b: security.ima $ima, want $want"
    case "$evm" in 0x02????????????????????????????????????????) ok "$b: the kernel wrote security.evm, an HMAC (type 02, sha1): $evm" ;;
    *) not_ok "$b: security.evm is '$evm', want an HMAC (0x02 and 20 bytes)" ;; esac
    [ "$(label_of /mnt/pkg/bin/$b)" = "$want_label" ] && ok "$b: SMACK64EXEC is '$want_label'" ||
        not_ok "$b: SMACK64EXEC is '$(label_of /mnt/pkg/bin/$b)', want '$want_label'"
}
manifest $state/evmpkg.xml good relabelled dropped
dpkg_files
expect_run "mssf-policy install under EVM" 0 mssf install evmpkg $state/evmpkg.xml
label=$(label_of /mnt/pkg/bin/good)
[ -n "$label" ] && ok "the binaries the manifest names carry the package's label '$label'" || not_ok "good has no SMACK64EXEC"
for b in good tampered stripped relabelled labelled dropped; do
    case $b in good|relabelled|dropped) check_xattrs $b "$label" ;; *) check_xattrs $b "" ;; esac
done
allow_package "$label"
expect_run "the installed binary runs" 0 /mnt/pkg/bin/good
[ "$last_out" = good ] && ok "and prints what it should" || not_ok "output: $last_out"

echo "--- an upgrade under the key: one binary replaced and labelled, one labelled, one no longer named"
evm_labelled=$(hex_xattr /mnt/pkg/bin/labelled security.evm)
evm_upgraded=$(hex_xattr /mnt/pkg/bin/upgraded security.evm)
# As dpkg unpacks: the new version beside the old, renamed over it.
printf '#!/bin/sh\necho v2 $(cat /proc/self/attr/current 2>/dev/null)\n' > /mnt/pkg/bin/upgraded.dpkg-new &&
    chmod 755 /mnt/pkg/bin/upgraded.dpkg-new && mv -f /mnt/pkg/bin/upgraded.dpkg-new /mnt/pkg/bin/upgraded
manifest $state/evmpkg-2.xml good relabelled labelled upgraded
dpkg_files
expect_run "mssf-policy upgrade under EVM" 0 mssf install evmpkg $state/evmpkg-2.xml
check_xattrs upgraded "$label"
check_xattrs labelled "$label"
[ "$(hex_xattr /mnt/pkg/bin/upgraded security.evm)" != "$evm_upgraded" ] &&
    ok "upgraded: the kernel re-HMACed the new file" || not_ok "upgraded: security.evm unchanged"
if [ $smack = 1 ]; then
    # EVM covers SMACK64EXEC here: setting it must change the HMAC.
    [ "$(hex_xattr /mnt/pkg/bin/labelled security.evm)" != "$evm_labelled" ] &&
        ok "labelled: SMACK64EXEC set under the key changed its HMAC" || not_ok "labelled: security.evm unchanged"
else
    # Measured, not assumed: Debian's kernel leaves Smack's xattrs out of the HMAC.
    [ "$(hex_xattr /mnt/pkg/bin/labelled security.evm)" = "$evm_labelled" ] &&
        ok "labelled: its HMAC is unchanged: this kernel's EVM does not cover SMACK64EXEC" ||
        not_ok "labelled: security.evm changed on a kernel whose EVM lists SMACK64EXEC as disabled"
fi
# No longer the package's binary: mssf-policy removes its label and its reference hash.
[ -z "$(label_of /mnt/pkg/bin/dropped)" ] && [ -z "$(hex_xattr /mnt/pkg/bin/dropped security.ima)" ] &&
    ok "dropped: its SMACK64EXEC and security.ima are removed" ||
    not_ok "dropped: SMACK64EXEC '$(label_of /mnt/pkg/bin/dropped)', security.ima '$(hex_xattr /mnt/pkg/bin/dropped security.ima)'"
want_label=; [ $smack = 1 ] && want_label=$label
expect_run "the upgraded binary runs" 0 /mnt/pkg/bin/upgraded
case "$last_out" in "v2 $want_label"*) ok "as the new version: $last_out" ;; *) not_ok "upgraded printed '$last_out', want 'v2 $want_label'" ;; esac
expect_run "the binary labelled by the upgrade runs" 0 /mnt/pkg/bin/labelled
case "$last_out" in "labelled $want_label"*) ok "printing its Smack label (another LSM's context without Smack): $last_out" ;; *) not_ok "labelled printed '$last_out'" ;; esac
expect_run "verify finds hashes, labels and HMACs in place (exit 0)" 0 mssf verify evmpkg

cp /tmp/evm-key.blob /mnt/keys/ && printf %s "$label" > /mnt/keys/label
if [ "$master" = user ]; then cp /tmp/kmk.bin /mnt/keys/; fi
[ -s /mnt/keys/evm-key.blob ] && ok "the EVM key's blob is saved for the next boot" || not_ok "no evm-key blob"
sync
expect_run "the disk is remounted read-only (clean for the host's debugfs)" 0 mount -o remount,ro /mnt
echo "$failures failed"
[ "$failures" = 0 ]
