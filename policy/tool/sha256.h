/* SHA-256 (FIPS 180-4), for matching package files to what apt verified. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32
#define SHA256_HEX_SIZE (2 * SHA256_DIGEST_SIZE + 1)

typedef struct Sha256 {
        uint32_t state[8];
        uint64_t length;                /* bytes hashed so far */
        uint8_t block[64];
        size_t n_block;                 /* bytes waiting in block */
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t size);
void sha256_final(Sha256 *s, uint8_t digest[SHA256_DIGEST_SIZE]);

/* The lower-case hex digest of data. */
void sha256_hex(const void *data, size_t size, char hex[SHA256_HEX_SIZE]);
void sha256_digest_to_hex(const uint8_t digest[SHA256_DIGEST_SIZE], char hex[SHA256_HEX_SIZE]);
/* The hex digest of a file's content: 0, or -errno. */
int sha256_file(const char *path, char hex[SHA256_HEX_SIZE], uint64_t *ret_size);
