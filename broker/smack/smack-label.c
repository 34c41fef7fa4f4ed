/*
 * smack-label: the process-wide set of Smack labels.
 *
 * Linux's Smack interns every label once (smack_known) and compares labels
 * by pointer; so do we. Every label the bus handles goes through
 * smack_label_intern() once, when it enters the bus: a connection's label
 * at accept time (from SO_PEERSEC), a token when the policy first names
 * it. From then on "same label" is "same pointer", and the Smack oracle's
 * cache is keyed by pointers.
 *
 * Invariants: each distinct valid string is interned at most once; an
 * interned label is never freed or changed, so its pointer stays valid for
 * the life of the process. The set grows with the labels the kernel and
 * the compiled policy know (a process cannot invent a label without
 * CAP_MAC_ADMIN), so it needs no eviction.
 *
 * Trust: the strings come from the kernel or from a validated policy, but
 * they are validated here again with the kernel's rules, so a malformed
 * string can never reach smackfs or be confused with another label.
 * Not thread-safe; the bus is single-threaded.
 */
#include "smack-label.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

typedef struct LabelTable {
        SmackLabel **slots;     /* (owned) open addressing, linear probing */
        size_t n_slots;         /* a power of two, or 0 before the first label */
        size_t n_labels;
} LabelTable;

static LabelTable table;

/* FNV-1a over the bytes. */
static uint32_t label_hash(const char *text, size_t length) {
        uint32_t hash = 2166136261u;

        for (size_t i = 0; i < length; i++) {
                hash ^= (uint8_t) text[i];
                hash *= 16777619u;
        }
        return hash;
}

static bool label_char_is_valid(char c) {
        /* Printable ASCII without space; the kernel also refuses these four. */
        return c > ' ' && c < 0x7f && c != '/' && c != '\\' && c != '\'' && c != '"';
}

bool smack_label_is_valid(const char *text) {
        size_t length;

        if (!text || text[0] == '\0' || text[0] == '-')
                return false;
        length = strnlen(text, SMACK_LABEL_MAX + 1);
        if (length > SMACK_LABEL_MAX)
                return false;
        for (size_t i = 0; i < length; i++)
                if (!label_char_is_valid(text[i]))
                        return false;
        return true;
}

/* The slot holding text, or the empty slot where it would go. */
static SmackLabel **table_slot(SmackLabel **slots, size_t n_slots, const char *text,
                               size_t length, uint32_t hash) {
        size_t mask = n_slots - 1;

        for (size_t i = hash & mask;; i = (i + 1) & mask) {
                SmackLabel *label = slots[i];

                if (!label)
                        return &slots[i];
                if (label->hash == hash && label->length == length &&
                    memcmp(label->text, text, length) == 0)
                        return &slots[i];
        }
}

/* Keeps the table at most half full, so every probe ends at an empty slot. */
static int table_grow(void) {
        size_t n_slots = table.n_slots ? table.n_slots * 2 : 64;
        SmackLabel **slots;

        slots = calloc(n_slots, sizeof(*slots));
        if (!slots)
                return -ENOMEM;
        for (size_t i = 0; i < table.n_slots; i++) {
                SmackLabel *label = table.slots[i];

                if (label)
                        *table_slot(slots, n_slots, label->text, label->length, label->hash) = label;
        }
        free(table.slots);
        table.slots = slots;
        table.n_slots = n_slots;
        return 0;
}

static SmackLabel *label_new(const char *text, size_t length, uint32_t hash) {
        SmackLabel *label;
        char *copy;

        /* One allocation: the struct, then the text. */
        label = malloc(sizeof(*label) + length + 1);
        if (!label)
                return NULL;
        copy = (char *) (label + 1);
        memcpy(copy, text, length + 1);
        *label = (SmackLabel) {
                .text = copy,
                .length = length,
                .hash = hash,
                .is_star = length == 1 && text[0] == '*',
        };
        return label;
}

const SmackLabel *smack_label_find(const char *text) {
        size_t length;
        SmackLabel **slot;

        if (!text || table.n_slots == 0)
                return NULL;
        length = strlen(text);
        slot = table_slot(table.slots, table.n_slots, text, length, label_hash(text, length));
        return *slot;
}

int smack_label_intern(const char *text, const SmackLabel **ret) {
        SmackLabel **slot = NULL;
        size_t length;
        uint32_t hash;
        int r;

        if (!smack_label_is_valid(text))
                return SMACK_E_INVALID_LABEL;
        length = strlen(text);
        hash = label_hash(text, length);
        if (table.n_slots > 0)
                slot = table_slot(table.slots, table.n_slots, text, length, hash);
        if (slot && *slot) {
                *ret = *slot;
                return 0;
        }
        if ((table.n_labels + 1) * 2 > table.n_slots) {
                r = table_grow();
                if (r < 0)
                        return r;
                slot = table_slot(table.slots, table.n_slots, text, length, hash);
        }
        *slot = label_new(text, length, hash);
        if (!*slot)
                return -ENOMEM;
        table.n_labels++;
        *ret = *slot;
        return 0;
}

size_t smack_label_count(void) {
        return table.n_labels;
}
