/* EVM keyed from the device root: the master key of EVM's encrypted key, loaded as a kernel "user" key. */
#pragma once

#include <stdint.h>

#include "keyd-error.h"
#include "rootkey.h"

/* What the derivation calls it: info "mssf-keyd/1 evm-master". */
#define EVM_MASTER_USE "evm-master"
#define EVM_MASTER_SIZE 32

/*
 * Derives the EVM master key from the root and adds it to keyring (a
 * KEY_SPEC_* value, or a serial) as a "user" key called description,
 * for `keyctl add encrypted evm-key "load BLOB"` with master
 * "user:DESCRIPTION". Its serial into *ret_serial. 0 or -errno.
 */
int evm_load_master(const RootKey *root, const char *description, int32_t keyring, int32_t *ret_serial,
                    KeydError *error);
