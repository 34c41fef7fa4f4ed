/*
 * The primitives, all from OpenSSL's libcrypto (EVP): AES-256-GCM for
 * encryption (confidentiality and integrity of the payload and its
 * header in one), HMAC-SHA256 for signatures (a device-local MAC: the
 * service verifies, so no public key is needed), RAND_bytes for nonces
 * and GetRandom. None of it is ours to get wrong.
 *
 * Nonces are random, 96 bits, one per blob: with a key per label or
 * token, GCM's limit of 2^32 messages per key under random nonces is far
 * beyond what one app encrypts on one device.
 *
 * A failed tag check wipes whatever the decryption wrote: the caller
 * never sees a partial plaintext. Contexts are freed (and so wiped by
 * OpenSSL) before returning.
 */
#include <errno.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <limits.h>
#include <string.h>

#include "cipher.h"
#include "macro.h"

static void cipher_ctx_freep(EVP_CIPHER_CTX **ctx) {
        EVP_CIPHER_CTX_free(*ctx);
}

/* Feeds the associated data parts; 1 on success. */
static int feed_aad(EVP_CIPHER_CTX *ctx, const CipherPart *aad, size_t n_aad) {
        int len;

        for (size_t i = 0; i < n_aad; i++) {
                if (aad[i].size == 0)
                        continue;
                if (aad[i].size > INT_MAX ||
                    EVP_CipherUpdate(ctx, NULL, &len, aad[i].data, (int) aad[i].size) != 1)
                        return 0;
        }
        return 1;
}

int cipher_seal(const uint8_t key[32], const uint8_t nonce[12], const CipherPart *aad, size_t n_aad,
                const uint8_t *plaintext, size_t size, uint8_t *ciphertext, uint8_t tag[16]) {
        _cleanup_(cipher_ctx_freep) EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        int len = 0, final = 0;

        if (!ctx || size > INT_MAX ||
            EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, nonce) != 1 ||
            !feed_aad(ctx, aad, n_aad) ||
            (size > 0 && EVP_EncryptUpdate(ctx, ciphertext, &len, plaintext, (int) size) != 1) ||
            EVP_EncryptFinal_ex(ctx, ciphertext + len, &final) != 1 ||
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1)
                return -EIO;
        return 0;
}

int cipher_open(const uint8_t key[32], const uint8_t nonce[12], const CipherPart *aad, size_t n_aad,
                const uint8_t *ciphertext, size_t size, const uint8_t tag[16], uint8_t *plaintext) {
        _cleanup_(cipher_ctx_freep) EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        uint8_t tag_copy[16];
        int len = 0, final = 0;

        memcpy(tag_copy, tag, sizeof(tag_copy));
        if (!ctx || size > INT_MAX ||
            EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, nonce) != 1 ||
            !feed_aad(ctx, aad, n_aad) ||
            (size > 0 && EVP_DecryptUpdate(ctx, plaintext, &len, ciphertext, (int) size) != 1) ||
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, tag_copy) != 1)
                return -EIO;
        if (EVP_DecryptFinal_ex(ctx, plaintext + len, &final) != 1) {
                /* GCM decrypts before it verifies: what was written is not a plaintext. */
                if (size > 0)
                        OPENSSL_cleanse(plaintext, size);
                return -EBADMSG;
        }
        return 0;
}

int cipher_hmac(const uint8_t key[32], const CipherPart *parts, size_t n_parts, uint8_t mac[32]) {
        EVP_MAC *hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
        EVP_MAC_CTX *ctx = hmac ? EVP_MAC_CTX_new(hmac) : NULL;
        OSSL_PARAM params[] = {
                OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *) "SHA256", 0),
                OSSL_PARAM_END,
        };
        size_t out = 0;
        int r = -EIO;

        if (!ctx || EVP_MAC_init(ctx, key, 32, params) != 1)
                goto done;
        for (size_t i = 0; i < n_parts; i++)
                if (parts[i].size > 0 && EVP_MAC_update(ctx, parts[i].data, parts[i].size) != 1)
                        goto done;
        if (EVP_MAC_final(ctx, mac, &out, 32) == 1 && out == 32)
                r = 0;
done:
        /* EVP_MAC_CTX_free() wipes the HMAC's copy of the key. */
        EVP_MAC_CTX_free(ctx);
        EVP_MAC_free(hmac);
        return r;
}

bool cipher_equal(const void *a, const void *b, size_t size) {
        return CRYPTO_memcmp(a, b, size) == 0;
}

int cipher_random(void *buf, size_t size) {
        if (size > INT_MAX)
                return -EINVAL;
        return size == 0 || RAND_bytes(buf, (int) size) == 1 ? 0 : -EIO;
}
