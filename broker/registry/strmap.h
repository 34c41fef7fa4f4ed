/* StrMap: a string-keyed open-addressing hash map. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/*
 * Robin Hood hashing with backward-shift deletion: no tombstones, lookups
 * stop early, the table stays at most 7/8 full and doubles when it would
 * get fuller (it never shrinks below what it held; strmap_deinit() frees
 * it). Hashes are keyed (hash.h), so clients cannot force collisions.
 *
 * Keys are BORROWED: the map stores the caller's pointer and length, so
 * the key string must stay valid and unchanged while it is in the map
 * (typically it lives in the value object). Values are opaque non-NULL
 * pointers; the map never frees keys or values. Keys may contain any
 * bytes; the _n variants take an explicit length and need no NUL.
 *
 * Return codes: 0 on success, STRMAP_E_EXISTS when putting a key that is
 * already there (the map is unchanged), -ENOMEM.
 */

enum {
        STRMAP_E_EXISTS = 1,
};

typedef struct StrMapEntry {
        const char *key;        /* (borrowed) NULL marks an empty slot */
        void *value;
        uint32_t key_len;
        uint32_t hash;          /* low 32 bits of the key's hash */
        uint32_t distance;      /* probe distance from the home slot */
} StrMapEntry;

typedef struct StrMap {
        StrMapEntry *entries;   /* (owned) n_buckets slots, NULL when empty */
        size_t n_buckets;       /* 0 or a power of two */
        size_t n_entries;
} StrMap;

#define STRMAP_INIT { NULL, 0, 0 }

void strmap_init(StrMap *map);
/* Frees the table, not keys or values; the map is empty and reusable. */
void strmap_deinit(StrMap *map);

/* Make room for n entries in total without further allocation. */
int strmap_reserve(StrMap *map, size_t n);

void *strmap_get(const StrMap *map, const char *key);
void *strmap_get_n(const StrMap *map, const char *key, size_t n);

/*
 * The hash the map uses for a key: compute it once to look the same key
 * up in several maps (strmap_get_hashed() with a wrong hash finds nothing).
 */
uint32_t strmap_hash(const char *key, size_t n);
void *strmap_get_hashed(const StrMap *map, const char *key, size_t n, uint32_t hash);

/* value must not be NULL (-EINVAL). */
int strmap_put(StrMap *map, const char *key, void *value);
int strmap_put_n(StrMap *map, const char *key, size_t n, void *value);

/* Removes key and returns its value, or NULL if it was absent. */
void *strmap_remove(StrMap *map, const char *key);
void *strmap_remove_n(StrMap *map, const char *key, size_t n);

static inline size_t strmap_size(const StrMap *map) {
        return map->n_entries;
}

/*
 * Iteration: start with *iter = 0; each call returns the next entry and
 * advances *iter, false at the end. The map must not be modified while
 * iterating (except strmap_remove of nothing at all).
 */
bool strmap_next(const StrMap *map, size_t *iter, const char **ret_key, void **ret_value);
