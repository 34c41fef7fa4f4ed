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
 * Invariants: the root and every derived key are in the secure heap
 * (secmem.c), and each derived key lives for one call and is wiped when
 * given back. Nothing here logs; errors are -ENOMEM (no secure memory)
 * or -EIO (libcrypto refused, which it does not for these inputs).
 */
#include <errno.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <stdio.h>
#include <string.h>

#include "rootkey.h"
#include "secmem.h"

#define HKDF_SALT "mssf-keyd"
#define INFO_PREFIX "mssf-keyd/1 "

struct RootKey {
        uint8_t *secret;                /* (owned) ROOTKEY_SIZE bytes in the secure heap */
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

/* HKDF-SHA256(salt, secret, info) -> out (size bytes). */
static int hkdf(const uint8_t *secret, const char *info, uint8_t *out, size_t size) {
        EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
        EVP_KDF_CTX *ctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
        OSSL_PARAM params[] = {
                OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *) "SHA256", 0),
                OSSL_PARAM_octet_string(OSSL_KDF_PARAM_KEY, (void *) secret, ROOTKEY_SIZE),
                OSSL_PARAM_octet_string(OSSL_KDF_PARAM_SALT, (void *) HKDF_SALT, strlen(HKDF_SALT)),
                OSSL_PARAM_octet_string(OSSL_KDF_PARAM_INFO, (void *) info, strlen(info)),
                OSSL_PARAM_END,
        };
        int r = ctx && EVP_KDF_derive(ctx, out, size, params) == 1 ? 0 : -EIO;

        /* EVP_KDF_CTX_free() wipes the copy of the key it kept. */
        EVP_KDF_CTX_free(ctx);
        EVP_KDF_free(kdf);
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
        root->secret = secmem_alloc(ROOTKEY_SIZE);
        if (!root->secret || !secmem_is_secure(root->secret)) {
                free(root);
                return -ENOMEM;
        }
        memcpy(root->secret, secret, ROOTKEY_SIZE);
        root->mode = mode;
        r = hkdf(root->secret, INFO_PREFIX "root-id", root->id, sizeof(root->id));
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
        secmem_free(root->secret, ROOTKEY_SIZE);
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
        r = hkdf(root->secret, info, key, DERIVED_KEY_SIZE);
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
