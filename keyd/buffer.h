/* A heap buffer that is wiped when freed: plaintexts, blobs, stored items on their way out. */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct Buffer {
        uint8_t *data;          /* (owned) (nullable) */
        size_t size;
} Buffer;

/* size bytes, zeroed (at least one byte allocated, so data is never NULL on success). */
static inline int buffer_alloc(Buffer *b, size_t size) {
        b->data = calloc(1, size ? size : 1);
        b->size = size;
        return b->data ? 0 : -ENOMEM;
}

static inline void buffer_wipe(Buffer *b) {
        if (b->data) {
                explicit_bzero(b->data, b->size);
                free(b->data);
        }
        b->data = NULL;
        b->size = 0;
}
