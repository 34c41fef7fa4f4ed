/* Locked memory for key material: OpenSSL's secure heap, and a process that never dumps core. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The secure heap's size: the root (32 bytes), at most a handful of
 * derived keys at a time (32 bytes each) and OpenSSL's own secure
 * allocations. A power of two, as OpenSSL wants.
 */
#define SECMEM_HEAP_SIZE (64 * 1024)

/*
 * Once per process, before any key exists: no core dumps and no ptrace
 * by other processes of the same uid (PR_SET_DUMPABLE 0, RLIMIT_CORE 0),
 * and the secure heap, mlock()ed, with guard pages, excluded from core
 * dumps. 0, or -errno: -ENOMEM when the heap could not be made or locked
 * (RLIMIT_MEMLOCK too low). Fails closed: no key is held elsewhere.
 */
int secmem_init(void);

/* n zeroed bytes of the secure heap, or NULL (not initialised, or full). */
void *secmem_alloc(size_t n);

/* Wipes n bytes at p and gives them back; NULL-safe. Returns NULL. */
void *secmem_free(void *p, size_t n);

/* Whether p lies in the secure heap (tests, and assertions on key buffers). */
bool secmem_is_secure(const void *p);

/* Bytes of the secure heap in use now (tests: every key given back). */
size_t secmem_used(void);
