/*
 * security.ima as the kernel's IMA and ima-evm-utils write it: one type
 * byte (IMA_XATTR_DIGEST_NG), one hash algorithm byte (the kernel's
 * enum hash_algo: 4 = sha256, IMA's default algorithm), then the digest
 * of the whole file. "evmctl ima_hash -a sha256 FILE" writes exactly these
 * bytes, and the kernel compares them with its own hash when it appraises.
 *
 * The file is read once (digest.c): SHA-256 for the reference and MD5 for
 * dpkg's md5sums, so that what is checked is what is blessed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ima.h"
#include "macro.h"

int ima_digest_fd(int fd, ImaDigests *ret) {
        FileDigests digests;
        int r = digest_fd(fd, &digests);

        if (r < 0)
                return r;
        ret->value[0] = IMA_XATTR_DIGEST_NG;
        ret->value[1] = IMA_HASH_ALGO_SHA256;
        memcpy(ret->value + 2, digests.sha256, DIGEST_SHA256_SIZE);
        memcpy(ret->md5, digests.md5, DIGEST_MD5_SIZE);
        return 0;
}

int ima_digest_file(const char *path, ImaDigests *ret) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        struct stat st;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        return ima_digest_fd(fd, ret);
}

bool ima_value_equal(const void *value, size_t size, const uint8_t expected[IMA_VALUE_SIZE]) {
        return size == IMA_VALUE_SIZE && memcmp(value, expected, IMA_VALUE_SIZE) == 0;
}

int ima_evm_state(void) {
        const char *files[] = { "/sys/kernel/security/integrity/evm/evm",
                                "/sys/kernel/security/evm" };

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                FILE *f = fopen(files[i], "re");
                int state = 0;

                if (!f)
                        continue;
                if (fscanf(f, "%d", &state) != 1)
                        state = 0;
                fclose(f);
                return state;
        }
        return 0;
}
