/* SHA-256 and MD5, from OpenSSL's libcrypto. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define DIGEST_SHA256_SIZE 32
#define DIGEST_MD5_SIZE 16
#define DIGEST_SHA256_HEX_SIZE (2 * DIGEST_SHA256_SIZE + 1)

/* What one read of a file gives: its SHA-256 (IMA's reference) and MD5 (dpkg's md5sums). */
typedef struct FileDigests {
        uint8_t sha256[DIGEST_SHA256_SIZE];
        uint8_t md5[DIGEST_MD5_SIZE];
} FileDigests;

/* The lower-case hex form of size bytes into hex (2 * size + 1 bytes). */
void digest_to_hex(const uint8_t *digest, size_t size, char *hex);

/* SHA-256 of data, as lower-case hex: 0 or -ENOMEM. */
int digest_sha256_hex(const void *data, size_t size, char hex[DIGEST_SHA256_HEX_SIZE]);

/* SHA-256 of a file's content, as lower-case hex, and its size: 0 or -errno. */
int digest_sha256_file(const char *path, char hex[DIGEST_SHA256_HEX_SIZE], uint64_t *ret_size);

/* SHA-256 and MD5 of everything fd reads from where it is, in one pass: 0 or -errno. */
int digest_fd(int fd, FileDigests *ret);
