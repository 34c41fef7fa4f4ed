/* The TPM, through tpm2-tss's ESYS: seal and unseal one secret, name the TPM's hierarchies, count commands. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/* Expected outcomes (positive); -errno only for memory. */
enum {
        TPM_E_ABSENT = 1,       /* no TPM answers: the TCTI could not be opened, or lost it */
        TPM_E_LOCKOUT,          /* the TPM answered TPM_RC_LOCKOUT (dictionary-attack lockout) */
        TPM_E_INTEGRITY,        /* the sealed object does not belong under this TPM's storage key */
        TPM_E_AUTH,             /* the sealed object's authorization was refused */
        TPM_E_HIERARCHY_AUTH,   /* the hierarchy the service uses has an authorization (it uses none) */
        TPM_E_FAILED,           /* any other TPM or TSS error (the text says which) */
};

/* A TPM object's name (nameAlg + digest, up to TPM2B_NAME's 68 bytes). */
typedef struct TpmName {
        uint8_t bytes[68];
        size_t size;
} TpmName;

/* A sealed object as the TPM returned it: TPM2B_PUBLIC and TPM2B_PRIVATE, marshalled. */
typedef struct TpmSealed {
        uint8_t public_area[1024];
        size_t public_size;
        uint8_t private_area[1024];
        size_t private_size;
} TpmSealed;

typedef struct Tpm Tpm;

/*
 * Opens the TPM the TCTI configuration names ("device:/dev/tpmrm0",
 * "swtpm:host=127.0.0.1,port=2321"). 0, TPM_E_ABSENT (err says why: the
 * TSS's error, and for a device the errno its open() gets), or -ENOMEM.
 * Sends no command.
 */
int tpm_open(const char *tcti_conf, Tpm **ret, char *err, size_t err_size);
/*
 * Whether the kernel knows a TPM 2.0: an entry tpm* under
 * sysfs_root/class/tpm (sysfs_root NULL: "/sys"; tests pass a tree of
 * their own) whose tpm_version_major is not 1. 1 (name, when not NULL,
 * gets its sysfs path), 0 when there is none, -errno when that cannot be
 * read.
 */
int tpm_present(const char *sysfs_root, char *name, size_t name_size);

/* Flushes what it loaded and closes; NULL-safe. */
Tpm *tpm_free(Tpm *tpm);
DEFINE_CLEANUP(Tpm *, tpm_free);

/* Flushes the storage key if it is loaded (tpm_free() does too): the TPM keeps nothing of ours. */
void tpm_release(Tpm *tpm);

/* Commands sent to the TPM since tpm_open(), counted where they leave (the TCTI). */
uint64_t tpm_commands(const Tpm *tpm);

/*
 * The name of the storage primary key the service seals under (made
 * from the standard ECC P-256 template in the owner hierarchy, kept
 * loaded): the same until the TPM is cleared, which changes the owner
 * seed. 0 or a TPM_E_* code (err says why).
 */
int tpm_storage_name(Tpm *tpm, TpmName *ret, char *err, size_t err_size);
/*
 * The name of a primary key made from the same template in the
 * endorsement hierarchy: which TPM this is, surviving a clear (the
 * endorsement seed does). Flushed again at once.
 */
int tpm_endorsement_name(Tpm *tpm, TpmName *ret, char *err, size_t err_size);

/* size random bytes from the TPM's generator (at most 64). */
int tpm_random(Tpm *tpm, uint8_t *buf, size_t size, char *err, size_t err_size);

/*
 * Seals secret (at most 128 bytes) under the storage key as a keyed-hash
 * data object: fixedTPM, fixedParent, userWithAuth with the 32-byte auth,
 * noDA (a wrong authorization never counts towards lockout, so no caller
 * can lock the TPM through it), no policy. The secret travels to the TPM
 * encrypted (a session salted with the storage key, parameter
 * encryption). ESYS keeps a copy of the secret in its context until
 * tpm_free(), which frees it without wiping (docs/keyd.md).
 */
int tpm_seal(Tpm *tpm, const uint8_t *secret, size_t size, const uint8_t auth[32], TpmSealed *ret,
             char *err, size_t err_size);

/*
 * Loads sealed under the storage key and unseals it into out (exactly
 * size bytes expected), the response encrypted on its way from the TPM;
 * the copy the TSS returns and its response buffer are wiped, not the
 * stack array ESYS decrypts the response through (docs/keyd.md).
 * TPM_E_INTEGRITY when it was not sealed under this TPM's storage key
 * (another TPM, or this one since cleared), or was altered; TPM_E_AUTH
 * when auth is refused.
 */
int tpm_unseal(Tpm *tpm, const TpmSealed *sealed, const uint8_t auth[32], uint8_t *out, size_t size,
               char *err, size_t err_size);
