/* The root secret in locked memory, and every key derived from it (HKDF-SHA256). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "keyref.h"
#include "macro.h"

#define ROOTKEY_SIZE 32         /* the root secret: 256 bits */
#define ROOTKEY_ID_SIZE 8       /* which root a blob was made under */
#define DERIVED_KEY_SIZE 32     /* AES-256 and HMAC-SHA256 keys */

/* Where the root lives: sealed by a TPM, or a software key only root can read (weaker). */
typedef enum RootMode {
        ROOT_MODE_TPM = 1,
        ROOT_MODE_SOFTWARE = 2,
} RootMode;

/* What a derived key is for: one key per purpose, never two uses of one key. */
typedef enum KeyPurpose {
        KEY_PURPOSE_ENCRYPT,    /* AES-256-GCM of Encrypt/Decrypt */
        KEY_PURPOSE_SIGN,       /* HMAC-SHA256 of Sign/Verify */
        KEY_PURPOSE_STORE,      /* AES-256-GCM of stored items */
        KEY_PURPOSE_STORE_NAME, /* HMAC-SHA256 naming stored items' files */
        _KEY_PURPOSE_MAX,
} KeyPurpose;

typedef struct RootKey RootKey;

/*
 * A root key from its 32 secret bytes, read once into HKDF's PRK in the
 * secure heap; the root itself is not kept (the caller wipes its copy).
 * -ENOMEM when the secure heap is not there or full: a root is never
 * held elsewhere.
 */
int rootkey_new(const uint8_t secret[ROOTKEY_SIZE], RootMode mode, RootKey **ret);
RootKey *rootkey_free(RootKey *root);
DEFINE_CLEANUP(RootKey *, rootkey_free);

RootMode rootkey_mode(const RootKey *root);
const char *root_mode_to_string(RootMode mode);
/* The root's public identity: HKDF(root, "root-id"), 8 bytes, recorded in every blob. */
const uint8_t *rootkey_id(const RootKey *root);

/*
 * The key for purpose under ref, into a new secure-heap buffer of
 * DERIVED_KEY_SIZE bytes (free it with secmem_free()). The derivation is
 * HKDF-SHA256(salt "mssf-keyd", ikm root, info "mssf-keyd/1 PURPOSE
 * label:NAME" or "... token:NAME"), docs/keyd.md. 0 or -ENOMEM.
 */
int rootkey_derive(const RootKey *root, KeyPurpose purpose, const KeyRef *ref, uint8_t **ret_key);

/* A key for a fixed use of the device (the EVM master: info "mssf-keyd/1 evm-master"). */
int rootkey_derive_named(const RootKey *root, const char *use, uint8_t **ret_key);

/* The derivation's info string for purpose (tests, and the docs' recipe). */
const char *key_purpose_to_string(KeyPurpose purpose);
