/* The root key at start: sealed by the TPM at the first start, unsealed once at every start; or the software key. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "keyd-error.h"
#include "rootkey.h"

#define PROVISION_DEFAULT_TCTI "device:/dev/tpmrm0"

typedef enum TpmPolicy {
        TPM_POLICY_AUTO,        /* at the first start: the TPM if one answers, software if the device has none */
        TPM_POLICY_REQUIRED,    /* the TPM or nothing */
        TPM_POLICY_NONE,        /* software only (a device without a TPM, by decision) */
} TpmPolicy;

typedef struct ProvisionOptions {
        const char *state_dir;          /* where root.state lives (0700, the service's own) */
        const char *tcti;               /* NULL: PROVISION_DEFAULT_TCTI */
        TpmPolicy tpm_policy;
        const char *sysfs_root;         /* NULL: "/sys", where "auto" asks whether a TPM exists; tests only */
} ProvisionOptions;

typedef struct ProvisionResult {
        bool created;                   /* this start made the root (the first one) */
        uint64_t tpm_commands;          /* TPM commands this start sent */
        char tpm_note[640];             /* in software mode under "auto": why not the TPM */
} ProvisionResult;

/*
 * The root, once: from the state file, or made and (in TPM mode) sealed
 * when there is none. 0 with *ret_root; or a KEYD_E_* code with error
 * filled: KEYD_E_ROOT_KEY_LOST (this TPM was cleared), KEYD_E_FOREIGN_TPM
 * (sealed by another TPM), KEYD_E_TPM_UNAVAILABLE (the state says TPM,
 * or the policy requires one, and none answers), KEYD_E_TPM_LOCKOUT,
 * KEYD_E_STATE_DAMAGED; -errno for the file system. Under "auto" the
 * software key is made only when the kernel knows no TPM at all: a TPM
 * that exists and does not open is KEYD_E_TPM_UNAVAILABLE, and nothing is
 * written. Never makes a new
 * root over a state file it cannot use, and never sends a TPM command
 * twice: each start is one attempt.
 */
int provision_root(const ProvisionOptions *options, RootKey **ret_root, ProvisionResult *ret_result,
                   KeydError *error);
