/* The blob format: what Encrypt returns, what Sign returns, what a stored item is on disk (docs/keyd.md). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "keyref.h"
#include "rootkey.h"

#define BLOB_VERSION 1
#define BLOB_NONCE_SIZE 12      /* AES-GCM's 96-bit nonce, random per blob */
#define BLOB_GCM_TAG_SIZE 16
#define BLOB_MAC_SIZE 32        /* HMAC-SHA256 */
/* magic 2, version, type, mode, kind, key length, creator length, root id. */
#define BLOB_FIXED_HEADER_SIZE (2 + 1 + 1 + 1 + 1 + 1 + 1 + ROOTKEY_ID_SIZE)
#define BLOB_HEADER_MAX (BLOB_FIXED_HEADER_SIZE + 2 * KEYREF_NAME_MAX)
/* The most a blob adds to what it carries. */
#define BLOB_OVERHEAD_MAX (BLOB_HEADER_MAX + BLOB_NONCE_SIZE + BLOB_GCM_TAG_SIZE)

typedef enum BlobType {
        BLOB_TYPE_CIPHERTEXT = 1,       /* Encrypt: nonce, ciphertext, GCM tag */
        BLOB_TYPE_SIGNATURE = 2,        /* Sign: an HMAC over header and data */
        BLOB_TYPE_STORED = 3,           /* a stored item's file: as ciphertext, its name bound too */
} BlobType;

/* Expected outcomes of parsing (positive); everything else is 0. */
enum {
        BLOB_E_MALFORMED = 1,           /* not a blob: short, bad magic, bad field */
        BLOB_E_VERSION,                 /* a blob of a format version this service does not know */
        BLOB_E_TYPE,                    /* a blob, of another type (a signature given to Decrypt) */
};

typedef struct BlobHeader {
        BlobType type;
        RootMode mode;                  /* the device mode it was made in */
        KeyRef key;                     /* the key it was made with */
        char creator[KEYREF_NAME_MAX + 1]; /* the label that made it (an own key's: that label) */
        uint8_t root_id[ROOTKEY_ID_SIZE];  /* the root it was made under */
} BlobHeader;

/* A parsed blob: the header, and where its parts are in the bytes parsed. */
typedef struct BlobView {
        BlobHeader header;
        const uint8_t *header_bytes;    /* the associated data: magic to root id */
        size_t header_size;
        const uint8_t *nonce;           /* NULL for a signature */
        const uint8_t *payload;         /* ciphertext; NULL for a signature */
        size_t payload_size;
        const uint8_t *tag;             /* GCM tag, or the HMAC of a signature */
        size_t tag_size;
} BlobView;

/* The header's encoded size. */
size_t blob_header_size(const BlobHeader *header);

/*
 * Encodes the header into out (at least blob_header_size() bytes): 0, or
 * -EINVAL for a header that could not be parsed back (bad names, a
 * creator that is not an own key's label).
 */
int blob_write_header(const BlobHeader *header, uint8_t *out, size_t size);

/*
 * Parses untrusted bytes as a blob of type expected. 0 with *ret filled,
 * pointing into data; BLOB_E_VERSION for another format version (checked
 * before anything but the magic, so a future blob is named as such);
 * BLOB_E_TYPE for a well-formed blob of another type; BLOB_E_MALFORMED
 * for anything else. Never reads past size, never allocates.
 */
int blob_parse(const uint8_t *data, size_t size, BlobType expected, BlobView *ret);
