/* A libFuzzer input as the C string the parsers under test take. */
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The input's bytes with a NUL after them (the input may hold NULs of its
 * own, which the harness passes on with the size), to free(); NULL when
 * there is no memory, which the harness skips.
 */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
        char *text = malloc(size + 1);

        if (!text)
                return NULL;
        memcpy(text, data, size);
        text[size] = '\0';
        return text;
}
