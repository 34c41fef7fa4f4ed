/* The TPM's part of a start, done in a short-lived child process: what the TSS copies of the root die with it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "macro.h"
#include "rootkey.h"
#include "rootstate.h"
#include "tpm.h"

typedef struct TpmWork {
        /* In. */
        bool first;                             /* a first start: make, seal and check a root */
        const char *tcti;
        /* In at a later start (recorded), out at a first start (made). */
        TpmName storage_name;
        TpmName endorsement_name;
        TpmSealed sealed;
        uint8_t auth[ROOTSTATE_AUTH_SIZE];      /* in: the sealed object's authorization */
        /*
         * First start: in, libcrypto's part of the root; out, the root
         * (mixed with the TPM's random bytes). Later start: out, the root.
         */
        uint8_t secret[ROOTKEY_SIZE];
        uint8_t mix[ROOTKEY_SIZE];              /* the TPM's part (first start) */
        uint8_t check[ROOTKEY_SIZE];            /* the root unsealed again (first start) */
        /* Out. */
        bool opened;                            /* the TCTI opened (else r says why it did not) */
        int r;                                  /* 0 or a TPM_E_* code (err says why), or -errno */
        bool storage_changed;                   /* later start: the storage key is not the recorded one */
        bool endorsement_same;                  /* ... and the endorsement key is */
        bool mismatch;                          /* first start: the TPM unsealed something else */
        uint64_t commands;                      /* TPM commands the child sent */
        char err[256];
} TpmWork;

/*
 * A TpmWork in memory shared with the child, locked (mlock()) and kept
 * out of core dumps, zeroed. NULL when it cannot be locked: the root is
 * not handled in memory that could be swapped.
 */
TpmWork *tpm_work_new(void);
/* Wipes and unmaps; NULL-safe. */
TpmWork *tpm_work_free(TpmWork *work);
DEFINE_CLEANUP(TpmWork *, tpm_work_free);

/*
 * Does work's TPM part in a child process and waits for it: 0 (the
 * outcome is in work->r), or -errno when the child could not be made or
 * did not finish (it died: a crash inside the TSS), with nothing in work
 * to use.
 */
int tpm_work_run(TpmWork *work);
