/* A package's model as bytes and back, for mssf-policy's cache of parsed manifests. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "model.h"

/*
 * Bump when any struct of model.h that a Package holds changes (a field
 * added, a meaning changed): a cache written by another version is then
 * ignored and every manifest parsed again. tests/policy-install/test-cache.c
 * compiles every fixture both ways and compares the policy and rules.
 */
#define MODEL_CODEC_VERSION 2

/* Bytes being written; error is sticky (-ENOMEM), checked once at the end. */
typedef struct CodecWriter {
        uint8_t *data;                  /* (owned) */
        size_t size;
        size_t allocated;
        int error;
} CodecWriter;

/* Bytes being read; bad is sticky: any overrun or nonsense sets it. */
typedef struct CodecReader {
        const uint8_t *p;
        const uint8_t *end;
        bool bad;
} CodecReader;

void codec_put_raw(CodecWriter *w, const void *data, size_t size);
void codec_put_u8(CodecWriter *w, uint8_t v);
void codec_put_u32(CodecWriter *w, uint32_t v);
void codec_put_u64(CodecWriter *w, uint64_t v);
void codec_put_str(CodecWriter *w, const char *s);       /* s nullable */
void codec_writer_deinit(CodecWriter *w);

uint8_t codec_get_u8(CodecReader *r);
uint32_t codec_get_u32(CodecReader *r);
uint64_t codec_get_u64(CodecReader *r);
/* A copy (NULL for a NULL string, or when bad: check r->bad). */
char *codec_get_str(CodecReader *r);
/* A count of items of at least min_size bytes each that the rest can hold. */
uint32_t codec_get_count(CodecReader *r, size_t min_size);

/* Everything a parsed Package holds but its grants (recomputed by resolve). */
void model_codec_put_package(CodecWriter *w, const Package *package);
/*
 * The package written by model_codec_put_package(), as package name with
 * origin (nullable) read from file (its SourceLocs point at the new
 * package's file): 0, -EBADMSG (r->bad), or -ENOMEM.
 */
int model_codec_get_package(CodecReader *r, const char *name, const char *origin,
                            const char *file, Package **ret);
