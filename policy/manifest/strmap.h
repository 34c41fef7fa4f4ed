/* A hash map from borrowed strings to pointers, for the model's lookups. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/*
 * Keys are not copied: each must stay valid, unchanged, while it is in
 * the map (the model's own strings, freed only with their objects). There
 * is no removal; a map whose keys go away is cleared and refilled.
 * Zero-initialised is an empty map.
 */
typedef struct StrMapSlot {
        const char *key;                /* (not owned) NULL = free */
        void *value;
        uint64_t hash;
} StrMapSlot;

typedef struct StrMap {
        StrMapSlot *slots;              /* (owned) */
        size_t n_slots;                 /* 0 or a power of two */
        size_t n_used;
} StrMap;

/* FNV-1a, 64 bits; also for keys of several strings (strmap_hash_more). */
uint64_t strmap_hash(const char *s);
uint64_t strmap_hash_more(uint64_t hash, const char *s);

/* Set key's value (replacing an earlier one): 0 or -ENOMEM. */
int strmap_put(StrMap *map, const char *key, void *value);
/* key's value, or NULL. */
void *strmap_get(const StrMap *map, const char *key);
/* The slot of key, to update its value in place, or NULL. */
StrMapSlot *strmap_find(const StrMap *map, const char *key);
/* Forget every key (the table stays allocated). */
void strmap_clear(StrMap *map);
void strmap_deinit(StrMap *map);

/*
 * The open-addressing probe shared with other indexes: the slot index to
 * try at step i for a hash in a table of n (a power of two) slots.
 */
static inline size_t strmap_probe(uint64_t hash, size_t i, size_t n) {
        return (size_t) (hash + i) & (n - 1);
}
