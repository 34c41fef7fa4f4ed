/*
 * Where key material lives. The root secret and every key derived from
 * it are allocated from OpenSSL's secure heap: one mapping, mlock()ed so
 * it is never written to swap, with guard pages on both sides and
 * MADV_DONTDUMP, and every allocation wiped when it is given back
 * (OPENSSL_secure_clear_free). It is made before any key exists, and a
 * heap that could not be locked is refused: the service then holds no
 * key at all rather than one that could reach the disk.
 *
 * The process also refuses to dump core and to be ptrace()d by other
 * processes of its uid (PR_SET_DUMPABLE 0, which also makes its /proc
 * files root's), so a crash or a debugger of the same user cannot copy
 * the heap out.
 *
 * What this does not cover: OpenSSL's per-call contexts (an AES-GCM key
 * schedule, an HMAC state) are ordinary heap memory for the duration of
 * one call and wiped by OpenSSL when freed (EVP_CIPHER_CTX_free and
 * EVP_MAC_CTX_free clear them); the TPM stack's copies of the root stay
 * in the child process that uses the TPM (tpmwork.c). docs/keyd.md lists
 * both.
 */
#include <errno.h>
#include <openssl/crypto.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "secmem.h"

/* OpenSSL's smallest allocation unit of the secure heap (a power of two). */
#define SECMEM_MIN_SIZE 32

int secmem_init(void) {
        struct rlimit no_core = { 0, 0 };
        int r;

        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                return -errno;
        if (setrlimit(RLIMIT_CORE, &no_core) < 0)
                return -errno;
        if (CRYPTO_secure_malloc_initialized())
                return 0;
        /* 1: made and locked; 2: made but mlock() or the guard pages failed; 0: not made. */
        r = CRYPTO_secure_malloc_init(SECMEM_HEAP_SIZE, SECMEM_MIN_SIZE);
        if (r == 1)
                return 0;
        if (r == 2)
                CRYPTO_secure_malloc_done();
        return -ENOMEM;
}

void *secmem_alloc(size_t n) {
        if (!CRYPTO_secure_malloc_initialized())
                return NULL;
        return OPENSSL_secure_zalloc(n);
}

void *secmem_free(void *p, size_t n) {
        if (p)
                OPENSSL_secure_clear_free(p, n);
        return NULL;
}

bool secmem_is_secure(const void *p) {
        return p && CRYPTO_secure_allocated(p);
}

size_t secmem_used(void) {
        return CRYPTO_secure_used();
}
