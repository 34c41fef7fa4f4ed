/*
 * EVM's key from the device root. EVM takes its HMAC key from an
 * "encrypted" kernel key (evm-key), whose blob is encrypted under a
 * master key the kernel looks up by name. On a kernel with trusted keys
 * that master would be a "trusted" key, sealed by the TPM and never seen
 * by user space; Debian 12's kernel has none (CONFIG_TRUSTED_KEYS is
 * off), so the master is a "user" key: derived here from the TPM-sealed
 * root (HKDF, info "mssf-keyd/1 evm-master") once per boot and handed to
 * the kernel. Weaker, and documented as such (docs/keyd.md): the master
 * passes through this process's memory once (the secure heap, wiped at
 * once), and while it is in the keyring root can read it back with
 * keyctl; unlink it once evm-key is loaded and EVM switched on. What it
 * gives: the master exists only where the root does, so a disk moved to
 * another device (another TPM) cannot have its EVM key loaded.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "evm.h"
#include "secmem.h"

int evm_load_master(const RootKey *root, const char *description, int32_t keyring, int32_t *ret_serial,
                    KeydError *error) {
        uint8_t *master = NULL;
        long serial;
        int r;

        if (!description || !description[0] || strchr(description, ':'))
                return keyd_fail(error, KEYD_E_INVALID_ARGS, "a key description without ':' is needed");
        r = rootkey_derive_named(root, EVM_MASTER_USE, &master);
        if (r < 0)
                return keyd_fail(error, r, "cannot derive the EVM master key: %s", strerror(-r));
        serial = syscall(SYS_add_key, "user", description, master, (size_t) EVM_MASTER_SIZE, keyring);
        r = serial < 0 ? -errno : 0;
        secmem_free(master, DERIVED_KEY_SIZE);
        if (r < 0)
                return keyd_fail(error, r, "the kernel refused the user key %s: %s", description, strerror(-r));
        *ret_serial = (int32_t) serial;
        return 0;
}
