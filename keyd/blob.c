/*
 * The blob format, version 1 (docs/keyd.md has the table):
 *
 *     "MK" version type mode kind key-length key creator-length creator
 *     root-id[8] | nonce[12] payload tag[16]     (ciphertext, stored item)
 *                | mac[32]                       (signature)
 *
 * Everything before the nonce is the header, and the header is the
 * associated data of the AEAD (or the start of the HMAC's input): the
 * version, the type, the mode, which key and whose call made it, and
 * under which root, cannot be changed, nor the blob moved to another key,
 * without the tag failing. A blob names its key in clear because the
 * service must know which key to derive and whom to ask about; the name
 * of a label or a token is not a secret (the bus tells anyone a
 * connection's label).
 *
 * The parser takes untrusted bytes from any caller (and from the disk,
 * for stored items). It checks every length against what is left before
 * reading, allocates nothing, copies names into fixed buffers after
 * validating them, and answers with one of three codes; the caller
 * reports them by name (Malformed, UnsupportedVersion). It is fuzzed
 * (tests/keyd/fuzz-blob.c).
 */
#include <errno.h>
#include <string.h>

#include "blob.h"

static const uint8_t magic[2] = { 'M', 'K' };

size_t blob_header_size(const BlobHeader *header) {
        return BLOB_FIXED_HEADER_SIZE + strlen(header->key.name) + strlen(header->creator);
}

/* What a header must satisfy, in both directions: the writer refuses what the parser would. */
static bool header_valid(const BlobHeader *h) {
        if (h->type < BLOB_TYPE_CIPHERTEXT || h->type > BLOB_TYPE_STORED)
                return false;
        if (h->mode != ROOT_MODE_TPM && h->mode != ROOT_MODE_SOFTWARE)
                return false;
        if (h->key.kind != KEY_KIND_LABEL && h->key.kind != KEY_KIND_TOKEN)
                return false;
        if (!keyref_valid_label(h->creator))
                return false;
        if (h->key.kind == KEY_KIND_TOKEN ? !keyref_valid_token(h->key.name) : !keyref_valid_label(h->key.name))
                return false;
        /* An app's own key is used by that app alone: it made every blob of it. */
        return h->key.kind != KEY_KIND_LABEL || strcmp(h->key.name, h->creator) == 0;
}

int blob_write_header(const BlobHeader *header, uint8_t *out, size_t size) {
        size_t key_len, creator_len, at = 0;

        if (!header || !out || !header_valid(header) || size < blob_header_size(header))
                return -EINVAL;
        key_len = strlen(header->key.name);
        creator_len = strlen(header->creator);
        memcpy(out, magic, sizeof(magic));
        at = sizeof(magic);
        out[at++] = BLOB_VERSION;
        out[at++] = (uint8_t) header->type;
        out[at++] = (uint8_t) header->mode;
        out[at++] = (uint8_t) header->key.kind;
        out[at++] = (uint8_t) key_len;
        memcpy(out + at, header->key.name, key_len);
        at += key_len;
        out[at++] = (uint8_t) creator_len;
        memcpy(out + at, header->creator, creator_len);
        at += creator_len;
        memcpy(out + at, header->root_id, ROOTKEY_ID_SIZE);
        return 0;
}

/* A length-prefixed name at *at: copied into buf (NUL-terminated) if it fits what is left. */
static bool take_name(const uint8_t *data, size_t size, size_t *at, char *buf, size_t buf_size) {
        size_t n;

        if (*at >= size)
                return false;
        n = data[(*at)++];
        if (n == 0 || n >= buf_size || n > size - *at)
                return false;
        memcpy(buf, data + *at, n);
        buf[n] = '\0';
        /* A NUL inside would make the name two things: what was bound and what is compared. */
        if (strlen(buf) != n)
                return false;
        *at += n;
        return true;
}

int blob_parse(const uint8_t *data, size_t size, BlobType expected, BlobView *ret) {
        BlobHeader *h = &ret->header;
        size_t at = 0;

        memset(ret, 0, sizeof(*ret));
        if (!data || size < sizeof(magic) + 1 || memcmp(data, magic, sizeof(magic)) != 0)
                return BLOB_E_MALFORMED;
        at = sizeof(magic);
        if (data[at++] != BLOB_VERSION)
                return BLOB_E_VERSION;
        if (size - at < 4)
                return BLOB_E_MALFORMED;
        h->type = (BlobType) data[at++];
        h->mode = (RootMode) data[at++];
        h->key.kind = (KeyKind) data[at++];
        if (!take_name(data, size, &at, h->key.name, sizeof(h->key.name)) ||
            !take_name(data, size, &at, h->creator, sizeof(h->creator)) ||
            size - at < ROOTKEY_ID_SIZE)
                return BLOB_E_MALFORMED;
        memcpy(h->root_id, data + at, ROOTKEY_ID_SIZE);
        at += ROOTKEY_ID_SIZE;
        if (!header_valid(h))
                return BLOB_E_MALFORMED;
        ret->header_bytes = data;
        ret->header_size = at;
        if (h->type == BLOB_TYPE_SIGNATURE) {
                if (size - at != BLOB_MAC_SIZE)
                        return BLOB_E_MALFORMED;
                ret->tag = data + at;
                ret->tag_size = BLOB_MAC_SIZE;
        } else {
                if (size - at < BLOB_NONCE_SIZE + BLOB_GCM_TAG_SIZE)
                        return BLOB_E_MALFORMED;
                ret->nonce = data + at;
                ret->payload = data + at + BLOB_NONCE_SIZE;
                ret->payload_size = size - at - BLOB_NONCE_SIZE - BLOB_GCM_TAG_SIZE;
                ret->tag = data + size - BLOB_GCM_TAG_SIZE;
                ret->tag_size = BLOB_GCM_TAG_SIZE;
        }
        return h->type == expected ? 0 : BLOB_E_TYPE;
}
