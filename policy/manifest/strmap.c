/*
 * A string-keyed hash map: open addressing with linear probing, at most
 * half full, so a lookup touches one or two slots on average.
 *
 * It exists because the installed set is looked up by name many times per
 * package (tokens by label, bus names, packages), and a device has
 * thousands of packages: linear scans made compiling quadratic. The keys
 * come from manifests, i.e. from package authors; FNV-1a is not keyed, so
 * names crafted to collide can make lookups linear again, but never worse
 * than the scans this replaced, and only at install time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

#define STRMAP_MIN_SLOTS 16

uint64_t strmap_hash_more(uint64_t hash, const char *s) {
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                hash ^= *p;
                hash *= 0x100000001b3ULL;
        }
        /* A separator, so ("ab", "c") and ("a", "bc") differ. */
        hash ^= 0xff;
        return hash * 0x100000001b3ULL;
}

uint64_t strmap_hash(const char *s) {
        return strmap_hash_more(0xcbf29ce484222325ULL, s);
}

static StrMapSlot *slot_for(const StrMapSlot *slots, size_t n_slots, const char *key,
                            uint64_t hash) {
        for (size_t i = 0; i < n_slots; i++) {
                StrMapSlot *slot = (StrMapSlot *) &slots[strmap_probe(hash, i, n_slots)];

                if (!slot->key || (slot->hash == hash && strcmp(slot->key, key) == 0))
                        return slot;
        }
        return NULL;    /* unreachable: the table is never full */
}

static int grow(StrMap *map) {
        size_t n = map->n_slots ? map->n_slots * 2 : STRMAP_MIN_SLOTS;
        StrMapSlot *slots;

        if (n > SIZE_MAX / sizeof(StrMapSlot))
                return -ENOMEM;
        slots = calloc(n, sizeof(StrMapSlot));
        if (!slots)
                return -ENOMEM;
        for (size_t i = 0; i < map->n_slots; i++) {
                const StrMapSlot *old = &map->slots[i];

                if (old->key)
                        *slot_for(slots, n, old->key, old->hash) = *old;
        }
        free(map->slots);
        map->slots = slots;
        map->n_slots = n;
        return 0;
}

int strmap_put(StrMap *map, const char *key, void *value) {
        uint64_t hash = strmap_hash(key);
        StrMapSlot *slot;

        if ((map->n_used + 1) * 2 > map->n_slots) {
                int r = grow(map);

                if (r < 0)
                        return r;
        }
        slot = slot_for(map->slots, map->n_slots, key, hash);
        if (!slot->key) {
                slot->key = key;
                slot->hash = hash;
                map->n_used++;
        }
        slot->value = value;
        return 0;
}

StrMapSlot *strmap_find(const StrMap *map, const char *key) {
        StrMapSlot *slot;

        if (map->n_used == 0)
                return NULL;
        slot = slot_for(map->slots, map->n_slots, key, strmap_hash(key));
        return slot && slot->key ? slot : NULL;
}

void *strmap_get(const StrMap *map, const char *key) {
        StrMapSlot *slot = strmap_find(map, key);

        return slot ? slot->value : NULL;
}

void strmap_clear(StrMap *map) {
        if (map->slots)
                memset(map->slots, 0, map->n_slots * sizeof(StrMapSlot));
        map->n_used = 0;
}

void strmap_deinit(StrMap *map) {
        free(map->slots);
        *map = (StrMap) {};
}
