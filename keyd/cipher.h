/* AES-256-GCM and HMAC-SHA256 from libcrypto, over byte ranges. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One part of a MAC's or an AEAD's associated data (they are concatenated). */
typedef struct CipherPart {
        const void *data;
        size_t size;
} CipherPart;

/*
 * AES-256-GCM with a 96-bit nonce and a 128-bit tag: ciphertext (size
 * bytes, may be 0) and tag out, the associated data the n_aad parts.
 * 0 or -EIO.
 */
int cipher_seal(const uint8_t key[32], const uint8_t nonce[12], const CipherPart *aad, size_t n_aad,
                const uint8_t *plaintext, size_t size, uint8_t *ciphertext, uint8_t tag[16]);

/*
 * The reverse: 0 with the plaintext written, or -EBADMSG when the tag
 * does not verify (then plaintext holds nothing: it is wiped, never
 * handed out partly), -EIO if libcrypto failed otherwise.
 */
int cipher_open(const uint8_t key[32], const uint8_t nonce[12], const CipherPart *aad, size_t n_aad,
                const uint8_t *ciphertext, size_t size, const uint8_t tag[16], uint8_t *plaintext);

/* HMAC-SHA256 over the parts. 0 or -EIO. */
int cipher_hmac(const uint8_t key[32], const CipherPart *parts, size_t n_parts, uint8_t mac[32]);

/* Constant-time comparison (CRYPTO_memcmp). */
bool cipher_equal(const void *a, const void *b, size_t size);

/* Cryptographically strong random bytes (RAND_bytes, seeded from getrandom()). 0 or -EIO. */
int cipher_random(void *buf, size_t size);
