/* MD5 (RFC 1321), only to compare files with dpkg's md5sums: never as a security hash. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define MD5_DIGEST_SIZE 16

typedef struct Md5 {
        uint32_t state[4];
        uint64_t length;                /* bytes hashed so far */
        uint8_t block[64];
        size_t n_block;
} Md5;

void md5_init(Md5 *m);
void md5_update(Md5 *m, const void *data, size_t size);
void md5_final(Md5 *m, uint8_t digest[MD5_DIGEST_SIZE]);
