/*
 * The root secret and what is derived from it.
 *
 * One 256-bit root per device; no key database. Every key is derived on
 * demand with HKDF-SHA256 (RFC 5869, OpenSSL's EVP_KDF "HKDF") from the
 * root and a text that says what it is for and whose it is:
 *
 *     info = "mssf-keyd/1 " PURPOSE " " ("label:" LABEL | "token:" TOKEN)
 *
 * A Smack label has no space, and "label:"/"token:" is a fixed prefix,
 * so two different (purpose, key) pairs never give the same info, and
 * an app's key and a token's key of the same name differ. The version
 * in the text ("/1") changes if the derivation ever does, so old blobs
 * keep their keys. The recipe is public (docs/keyd.md): the secret is
 * the root alone.
 *
 * HKDF is done in its two halves (RFC 5869 section 2): the extract
 * once, when the root arrives (PRK = HMAC-SHA256(salt, root)), and per
 * key the expand, which for a 32-byte key is the one block
 * HMAC-SHA256(PRK, info || 0x01); the keys are HKDF's to the bit (a test
 * compares them with OpenSSL's HKDF). Why not OpenSSL's HKDF per call:
 * it copies its key argument into the ordinary heap on every call, and
 * that argument would be the root; here the root is read once, at
 * start, and then only the PRK is kept, which OpenSSL's HMAC copies into
 * its secure heap.
 *
 * Invariants: the PRK and every derived key are in the secure heap
 * (secmem.c), the root itself is not kept, and each derived key lives
 * for one call and is wiped when given back. Nothing here logs; errors
 * are -ENOMEM (no secure memory) or -EIO (libcrypto refused, which it
 * does not for these inputs).
 */
#include <errno.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "rootkey.h"
#include "secmem.h"

#define HKDF_SALT "mssf-keyd"
#define INFO_PREFIX "mssf-keyd/1 "

/* SHA-256's output: the PRK's size, and one expand block. */
#define HASH_SIZE 32

struct RootKey {
        uint8_t *prk;                   /* (owned) HKDF's PRK of the root, HASH_SIZE bytes in the secure heap */
        RootMode mode;
        uint8_t id[ROOTKEY_ID_SIZE];    /* public: HKDF(root, "root-id") */
};

static const char *const purpose_names[_KEY_PURPOSE_MAX] = {
        [KEY_PURPOSE_ENCRYPT] = "encrypt",
        [KEY_PURPOSE_SIGN] = "sign",
        [KEY_PURPOSE_STORE] = "store",
        [KEY_PURPOSE_STORE_NAME] = "store-name",
};

const char *key_purpose_to_string(KeyPurpose purpose) {
        return purpose < _KEY_PURPOSE_MAX ? purpose_names[purpose] : NULL;
}

const char *root_mode_to_string(RootMode mode) {
        switch (mode) {
        case ROOT_MODE_TPM:
                return "tpm";
        case ROOT_MODE_SOFTWARE:
                return "software";
        }
        return "none";
}

/*
 * HMAC-SHA256(key, data || tail) into out (HASH_SIZE bytes): libcrypto's
 * MAC keeps its copy of the key in its secure heap and its digest states
 * in contexts it wipes when they are freed.
 */
static int hmac_sha256(const uint8_t *key, size_t key_size, const void *data, size_t data_size,
                       const uint8_t *tail, size_t tail_size, uint8_t *out) {
        EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
        EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
        OSSL_PARAM params[] = {
                OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *) "SHA256", 0),
                OSSL_PARAM_END,
        };
        size_t size = 0;
        int r = -EIO;

        if (ctx && EVP_MAC_init(ctx, key, key_size, params) == 1 && EVP_MAC_update(ctx, data, data_size) == 1 &&
            (tail_size == 0 || EVP_MAC_update(ctx, tail, tail_size) == 1) &&
            EVP_MAC_final(ctx, out, &size, HASH_SIZE) == 1 && size == HASH_SIZE)
                r = 0;
        EVP_MAC_CTX_free(ctx);
        EVP_MAC_free(mac);
        return r;
}

/* HKDF-Expand(PRK, info) for at most one block: T(1) = HMAC(PRK, info || 0x01), its first size bytes. */
static int expand(const RootKey *root, const char *info, uint8_t *out, size_t size) {
        static const uint8_t counter = 1;
        uint8_t *block;
        int r;

        if (size > HASH_SIZE)
                return -EINVAL;
        block = secmem_alloc(HASH_SIZE);
        if (!block || !secmem_is_secure(block)) {
                secmem_free(block, HASH_SIZE);
                return -ENOMEM;
        }
        r = hmac_sha256(root->prk, HASH_SIZE, info, strlen(info), &counter, 1, block);
        if (r == 0)
                memcpy(out, block, size);
        secmem_free(block, HASH_SIZE);
        return r;
}

int rootkey_new(const uint8_t secret[ROOTKEY_SIZE], RootMode mode, RootKey **ret) {
        RootKey *root;
        int r;

        if (!secret || !ret || (mode != ROOT_MODE_TPM && mode != ROOT_MODE_SOFTWARE))
                return -EINVAL;
        root = calloc(1, sizeof(*root));
        if (!root)
                return -ENOMEM;
        root->prk = secmem_alloc(HASH_SIZE);
        if (!root->prk || !secmem_is_secure(root->prk)) {
                rootkey_free(root);
                return -ENOMEM;
        }
        root->mode = mode;
        /* HKDF-Extract: the salt is HMAC's key, the root its message. */
        r = hmac_sha256((const uint8_t *) HKDF_SALT, strlen(HKDF_SALT), secret, ROOTKEY_SIZE, NULL, 0, root->prk);
        if (r == 0)
                r = expand(root, INFO_PREFIX "root-id", root->id, sizeof(root->id));
        if (r < 0) {
                rootkey_free(root);
                return r;
        }
        *ret = root;
        return 0;
}

RootKey *rootkey_free(RootKey *root) {
        if (!root)
                return NULL;
        secmem_free(root->prk, HASH_SIZE);
        free(root);
        return NULL;
}

RootMode rootkey_mode(const RootKey *root) {
        return root->mode;
}

const uint8_t *rootkey_id(const RootKey *root) {
        return root->id;
}

static int derive_info(const RootKey *root, const char *info, uint8_t **ret_key) {
        uint8_t *key = secmem_alloc(DERIVED_KEY_SIZE);
        int r;

        if (!key || !secmem_is_secure(key))
                return -ENOMEM;
        r = expand(root, info, key, DERIVED_KEY_SIZE);
        if (r < 0) {
                secmem_free(key, DERIVED_KEY_SIZE);
                return r;
        }
        *ret_key = key;
        return 0;
}

int rootkey_derive(const RootKey *root, KeyPurpose purpose, const KeyRef *ref, uint8_t **ret_key) {
        char info[sizeof(INFO_PREFIX) + 16 + KEYREF_FORMAT_MAX];
        char key_name[KEYREF_FORMAT_MAX];

        if (!root || !ref || purpose >= _KEY_PURPOSE_MAX || !ret_key)
                return -EINVAL;
        keyref_format(ref, key_name, sizeof(key_name));
        snprintf(info, sizeof(info), INFO_PREFIX "%s %s", purpose_names[purpose], key_name);
        return derive_info(root, info, ret_key);
}

int rootkey_derive_named(const RootKey *root, const char *use, uint8_t **ret_key) {
        char info[sizeof(INFO_PREFIX) + 64];

        if (!root || !use || strlen(use) > 63 || strchr(use, ' ') || !ret_key)
                return -EINVAL;
        snprintf(info, sizeof(info), INFO_PREFIX "%s", use);
        return derive_info(root, info, ret_key);
}
