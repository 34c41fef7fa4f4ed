/*
 * StrMap: string-keyed open addressing with Robin Hood probing.
 *
 * Job: the registry's (and the core bus's) name -> object lookups: unique
 * names to peers, well-known names to their queues, match keys to rule
 * buckets. Lookups are on the hot path of every message, so the table is
 * flat (one array of slots) and probes compare the cached 32-bit hash and
 * length before touching the key bytes.
 *
 * Invariants: n_buckets is 0 or a power of two; n_entries <= 7/8 of
 * n_buckets; every entry sits at distance d from its home slot
 * (hash & mask) and no entry between its home and its slot is closer to
 * its own home than d (Robin Hood order). Deletion shifts the following
 * cluster back by one, so there are no tombstones and the order holds.
 *
 * Trust: keys are arbitrary client bytes; the hash is keyed (hash.h), so
 * clients cannot aim for long probe sequences. The map trusts its caller
 * to keep borrowed keys alive.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "strmap.h"

#define STRMAP_MIN_BUCKETS 8

void strmap_init(StrMap *map) {
        *map = (StrMap)STRMAP_INIT;
}

void strmap_deinit(StrMap *map) {
        free(map->entries);
        strmap_init(map);
}

static bool entry_is(const StrMapEntry *e, const char *key, size_t n, uint32_t hash) {
        return e->hash == hash && e->key_len == n && memcmp(e->key, key, n) == 0;
}

/* Slot index of key, or SIZE_MAX. */
static size_t strmap_find(const StrMap *map, const char *key, size_t n, uint32_t hash) {
        if (map->n_entries == 0)
                return SIZE_MAX;

        size_t mask = map->n_buckets - 1;
        size_t i = hash & mask;
        for (uint32_t d = 0;; d++, i = (i + 1) & mask) {
                const StrMapEntry *e = &map->entries[i];

                /* Robin Hood: once d exceeds the resident's distance, key is absent. */
                if (!e->key || e->distance < d)
                        return SIZE_MAX;
                if (entry_is(e, key, n, hash))
                        return i;
        }
}

/* Places e without checking for duplicates; the table has room. */
static void strmap_place(StrMap *map, StrMapEntry e) {
        size_t mask = map->n_buckets - 1;
        size_t i = e.hash & mask;

        e.distance = 0;
        for (;; i = (i + 1) & mask, e.distance++) {
                StrMapEntry *slot = &map->entries[i];

                if (!slot->key) {
                        *slot = e;
                        break;
                }
                if (slot->distance < e.distance) {
                        StrMapEntry displaced = *slot;

                        *slot = e;
                        e = displaced;
                }
        }
        map->n_entries++;
}

static int strmap_resize(StrMap *map, size_t n_buckets) {
        StrMapEntry *entries = calloc(n_buckets, sizeof(*entries));
        if (!entries)
                return -ENOMEM;

        StrMapEntry *old = map->entries;
        size_t n_old = map->n_buckets;

        map->entries = entries;
        map->n_buckets = n_buckets;
        map->n_entries = 0;
        for (size_t i = 0; i < n_old; i++)
                if (old[i].key)
                        strmap_place(map, old[i]);
        free(old);
        return 0;
}

int strmap_reserve(StrMap *map, size_t n) {
        size_t n_buckets = map->n_buckets ? map->n_buckets : STRMAP_MIN_BUCKETS;

        if (n > SIZE_MAX / 16)
                return -ENOMEM;
        while (n > n_buckets - n_buckets / 8)
                n_buckets *= 2;
        if (n_buckets == map->n_buckets)
                return 0;
        return strmap_resize(map, n_buckets);
}

uint32_t strmap_hash(const char *key, size_t n) {
        return (uint32_t)hash_bytes(key, n);
}

void *strmap_get_hashed(const StrMap *map, const char *key, size_t n, uint32_t hash) {
        if (map->n_entries == 0 || n > UINT32_MAX)
                return NULL;

        size_t i = strmap_find(map, key, n, hash);
        return i == SIZE_MAX ? NULL : map->entries[i].value;
}

void *strmap_get_n(const StrMap *map, const char *key, size_t n) {
        if (map->n_entries == 0 || n > UINT32_MAX)
                return NULL;
        return strmap_get_hashed(map, key, n, strmap_hash(key, n));
}

void *strmap_get(const StrMap *map, const char *key) {
        return strmap_get_n(map, key, strlen(key));
}

int strmap_put_n(StrMap *map, const char *key, size_t n, void *value) {
        if (!key || !value || n > UINT32_MAX)
                return -EINVAL;

        uint32_t hash = strmap_hash(key, n);
        if (strmap_find(map, key, n, hash) != SIZE_MAX)
                return STRMAP_E_EXISTS;

        int r = strmap_reserve(map, map->n_entries + 1);
        if (r < 0)
                return r;

        strmap_place(map, (StrMapEntry){
                .key = key, .value = value, .key_len = (uint32_t)n, .hash = hash,
        });
        return 0;
}

int strmap_put(StrMap *map, const char *key, void *value) {
        if (!key)
                return -EINVAL;
        return strmap_put_n(map, key, strlen(key), value);
}

void *strmap_remove_n(StrMap *map, const char *key, size_t n) {
        if (map->n_entries == 0 || n > UINT32_MAX)
                return NULL;

        size_t i = strmap_find(map, key, n, strmap_hash(key, n));
        if (i == SIZE_MAX)
                return NULL;

        void *value = map->entries[i].value;
        size_t mask = map->n_buckets - 1;

        /* Backward shift: pull the rest of the cluster one slot closer home. */
        for (;;) {
                size_t next = (i + 1) & mask;
                StrMapEntry *e = &map->entries[next];

                if (!e->key || e->distance == 0)
                        break;
                map->entries[i] = *e;
                map->entries[i].distance--;
                i = next;
        }
        map->entries[i] = (StrMapEntry){ 0 };
        map->n_entries--;
        return value;
}

void *strmap_remove(StrMap *map, const char *key) {
        return strmap_remove_n(map, key, strlen(key));
}

bool strmap_next(const StrMap *map, size_t *iter, const char **ret_key, void **ret_value) {
        for (size_t i = *iter; i < map->n_buckets; i++) {
                const StrMapEntry *e = &map->entries[i];

                if (!e->key)
                        continue;
                *iter = i + 1;
                if (ret_key)
                        *ret_key = e->key;
                if (ret_value)
                        *ret_value = e->value;
                return true;
        }
        *iter = map->n_buckets;
        return false;
}
