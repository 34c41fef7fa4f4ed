/* IMA's reference hash: the security.ima value the kernel and evmctl read and write. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "digest.h"

#define IMA_XATTR "security.ima"
#define EVM_XATTR "security.evm"
/* IMA_XATTR_DIGEST_NG (type 4), HASH_ALGO_SHA256 (4): what "evmctl ima_hash" writes. */
#define IMA_XATTR_DIGEST_NG 0x04
#define IMA_HASH_ALGO_SHA256 0x04
#define IMA_VALUE_SIZE (2 + DIGEST_SHA256_SIZE)
/* EVM_XATTR_HMAC: the kernel's HMAC over the security xattrs, owner and mode. */
#define EVM_XATTR_HMAC 0x02

typedef struct ImaDigests {
        uint8_t value[IMA_VALUE_SIZE];  /* the security.ima bytes */
        uint8_t md5[DIGEST_MD5_SIZE];   /* for dpkg's md5sums */
} ImaDigests;

/*
 * Hash a regular file through fd (opened with O_NOFOLLOW by the caller):
 * 0 and *ret, or -errno.
 */
int ima_digest_fd(int fd, ImaDigests *ret);

/* Open path (no symlink followed at the last step) and hash it: 0, -errno (-ELOOP for a symlink). */
int ima_digest_file(const char *path, ImaDigests *ret);

/* Whether value (size bytes from getxattr) is a sha256 IMA_XATTR_DIGEST_NG equal to expected. */
bool ima_value_equal(const void *value, size_t size, const uint8_t expected[IMA_VALUE_SIZE]);

/*
 * What the running kernel's EVM does: the bits of
 * /sys/kernel/security/evm (1 = HMAC key loaded), or 0 when it is absent.
 */
int ima_evm_state(void);
