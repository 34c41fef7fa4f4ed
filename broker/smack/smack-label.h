/* Smack labels, interned once: two labels are the same label exactly when their pointers are. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's limit (SMK_LONGLABEL - 1). */
#define SMACK_LABEL_MAX 255

/* Expected outcomes (positive). */
enum {
        SMACK_E_INVALID_LABEL = 1,      /* not a string the kernel accepts as a label */
};

/*
 * An interned label. It lives until the process exits (the kernel never
 * forgets a label either), so a pointer to one may be kept anywhere.
 * Read-only for everyone but smack-label.c.
 */
typedef struct SmackLabel {
        const char *text;               /* NUL-terminated, length bytes */
        size_t length;
        uint32_t hash;
        bool is_star;                   /* "*": the kernel's one label that may not access itself */
} SmackLabel;

/*
 * Whether text is a valid Smack label: 1-255 bytes of printable ASCII
 * other than space, '/', '\\', '\'' and '"', not starting with '-'.
 */
bool smack_label_is_valid(const char *text);

/*
 * The interned label for text (created on first use). Returns 0,
 * SMACK_E_INVALID_LABEL, or -ENOMEM. Not thread-safe: one thread (the
 * bus loop) interns.
 */
int smack_label_intern(const char *text, const SmackLabel **ret);

/* The interned label for text, or NULL when nobody interned it (no allocation). */
const SmackLabel *smack_label_find(const char *text);

/* How many labels are interned (for the bus's statistics and for tests). */
size_t smack_label_count(void);
