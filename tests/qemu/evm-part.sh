# Sourced by test-policy-ima.sh after the IMA part: EVM with an HMAC key
# (an encrypted key under a user master key, standing in for the key the
# chipset layer holds). What Debian 12's kernel does, measured:
#  - once the key is loaded, a binary mssf-policy hashed before it (its
#    security.ima has no security.evm) is refused: cause=missing-HMAC
#    (one never run before: IMA keeps an earlier verdict per inode);
#  - verify reports the missing security.evm;
#  - creating any file (ext4 or tmpfs) with the key loaded oopses this
#    kernel as Debian boots it (the BPF LSM answers inode_init_security
#    without an xattr; tests/qemu/README.md), so nothing is installed
#    after the key here; qemu-evm boots without bpf and does.
echo "--- EVM"
expect_run "install a package before the EVM key is loaded" 0 install_pkg preevm /mnt/pkg/bin/preevm
expect_run "a user master key (the chipset's stand-in) is added" 0 \
    sh -c 'keyctl add user kmk "$(head -c 32 /dev/urandom)" @u'
expect_run "the EVM key: encrypted, 64 bytes, under the master key" 0 \
    sh -c 'keyctl add encrypted evm-key "new user:kmk 64" @u'
expect_run "EVM's HMAC is switched on" 0 sh -c 'echo 1 > /sys/kernel/security/evm'
[ "$(cat /sys/kernel/security/evm)" = 1 ] && ok "EVM reports its key initialized" || not_ok "evm: $(cat /sys/kernel/security/evm)"
expect_run "a binary whose reference hash has no HMAC is refused" 126 sh -c '/mnt/pkg/bin/preevm x'
audit_has "the kernel audits it as missing-HMAC" 'cause=missing-HMAC.*pkg/bin/preevm'
expect_run "verify reports the missing security.evm (exit 6)" 6 "$tool" verify preevm \
    --manifest-dir $state/manifests --no-kernel --no-reload
case "$last_out" in *"preevm: /mnt/pkg/bin/preevm: no security.evm"*) ok "naming the file" ;; *) not_ok "verify: $last_out" ;; esac
