/*
 * Making and opening blobs. The header (format version, type, device
 * mode, key, creator, root id) is the associated data of the AEAD, or
 * the first part of the HMAC's input, so none of it can change without
 * the tag failing: a blob re-labelled to another app, moved to another
 * token, cut short, or claiming another mode does not open. A stored
 * item also binds its name, so a file copied over another item's does
 * not open either.
 *
 * The root id is compared before any key is derived, so a blob of
 * another device (or of a root since lost) gets its own error, OtherRoot,
 * rather than the generic Altered. The derived key lives in the secure
 * heap for the one operation and is wiped at once.
 */
#include <errno.h>
#include <string.h>

#include "cipher.h"
#include "envelope.h"
#include "secmem.h"

static void key_free(uint8_t *key) {
        secmem_free(key, DERIVED_KEY_SIZE);
}
DEFINE_CLEANUP(uint8_t *, key_free);

/* The associated data: the header, then (stored items) a NUL and the item's name. */
static size_t aad_parts(const uint8_t *header, size_t header_size, const char *extra, CipherPart parts[3]) {
        parts[0] = (CipherPart) { header, header_size };
        if (!extra)
                return 1;
        parts[1] = (CipherPart) { "", 1 };
        parts[2] = (CipherPart) { extra, strlen(extra) };
        return 3;
}

static int make_header(const RootKey *root, BlobType type, const KeyRef *ref, const char *creator,
                       uint8_t *header, size_t *ret_size) {
        BlobHeader h = { .type = type, .mode = rootkey_mode(root), .key = *ref };
        int r;

        if (strlen(creator) >= sizeof(h.creator))
                return -EINVAL;
        strcpy(h.creator, creator);
        memcpy(h.root_id, rootkey_id(root), ROOTKEY_ID_SIZE);
        r = blob_write_header(&h, header, BLOB_HEADER_MAX);
        if (r < 0)
                return r;
        *ret_size = blob_header_size(&h);
        return 0;
}

int envelope_seal(const RootKey *root, BlobType type, KeyPurpose purpose, const KeyRef *ref,
                  const char *creator, const char *extra, const uint8_t *data, size_t size, Buffer *ret) {
        _cleanup_(key_freep) uint8_t *key = NULL;
        uint8_t header[BLOB_HEADER_MAX];
        CipherPart parts[3];
        size_t header_size, n_parts;
        Buffer out = { 0 };
        int r;

        if (type == BLOB_TYPE_SIGNATURE)
                return -EINVAL;
        if ((r = make_header(root, type, ref, creator, header, &header_size)) < 0 ||
            (r = rootkey_derive(root, purpose, ref, &key)) < 0 ||
            (r = buffer_alloc(&out, header_size + BLOB_NONCE_SIZE + size + BLOB_GCM_TAG_SIZE)) < 0)
                return r;
        memcpy(out.data, header, header_size);
        n_parts = aad_parts(header, header_size, extra, parts);
        r = cipher_random(out.data + header_size, BLOB_NONCE_SIZE);
        if (r == 0)
                r = cipher_seal(key, out.data + header_size, parts, n_parts, data, size,
                                out.data + header_size + BLOB_NONCE_SIZE,
                                out.data + header_size + BLOB_NONCE_SIZE + size);
        if (r < 0) {
                buffer_wipe(&out);
                return r;
        }
        *ret = out;
        return 0;
}

static int check_root(const RootKey *root, const BlobView *view, KeydError *error) {
        if (cipher_equal(view->header.root_id, rootkey_id(root), ROOTKEY_ID_SIZE))
                return 0;
        return keyd_fail(error, KEYD_E_OTHER_ROOT,
                         "made under another root key (in %s mode): on another device, or on this one "
                         "before its root key was replaced; no key here opens it",
                         root_mode_to_string(view->header.mode));
}

int envelope_open(const RootKey *root, KeyPurpose purpose, const BlobView *view, const char *extra,
                  Buffer *ret, KeydError *error) {
        _cleanup_(key_freep) uint8_t *key = NULL;
        CipherPart parts[3];
        Buffer out = { 0 };
        int r;

        if ((r = check_root(root, view, error)) != 0)
                return r;
        if ((r = rootkey_derive(root, purpose, &view->header.key, &key)) < 0 ||
            (r = buffer_alloc(&out, view->payload_size)) < 0)
                return keyd_fail(error, r, "no memory");
        r = cipher_open(key, view->nonce, parts, aad_parts(view->header_bytes, view->header_size, extra, parts),
                        view->payload, view->payload_size, view->tag, out.data);
        if (r == -EBADMSG) {
                buffer_wipe(&out);
                return keyd_fail(error, KEYD_E_ALTERED,
                                 "does not verify under the key it names: changed, truncated, or moved "
                                 "to another key");
        }
        if (r < 0) {
                buffer_wipe(&out);
                return keyd_fail(error, r, "libcrypto failed");
        }
        *ret = out;
        return 0;
}

int envelope_sign(const RootKey *root, const KeyRef *ref, const char *creator, const uint8_t *data,
                  size_t size, Buffer *ret) {
        _cleanup_(key_freep) uint8_t *key = NULL;
        uint8_t header[BLOB_HEADER_MAX];
        size_t header_size;
        Buffer out = { 0 };
        int r;

        if ((r = make_header(root, BLOB_TYPE_SIGNATURE, ref, creator, header, &header_size)) < 0 ||
            (r = rootkey_derive(root, KEY_PURPOSE_SIGN, ref, &key)) < 0 ||
            (r = buffer_alloc(&out, header_size + BLOB_MAC_SIZE)) < 0)
                return r;
        memcpy(out.data, header, header_size);
        r = cipher_hmac(key, (CipherPart[]) { { header, header_size }, { data, size } }, 2,
                        out.data + header_size);
        if (r < 0) {
                buffer_wipe(&out);
                return r;
        }
        *ret = out;
        return 0;
}

int envelope_verify(const RootKey *root, const BlobView *view, const uint8_t *data, size_t size,
                    KeydError *error) {
        _cleanup_(key_freep) uint8_t *key = NULL;
        uint8_t mac[BLOB_MAC_SIZE];
        int r;

        if ((r = check_root(root, view, error)) != 0)
                return r;
        if ((r = rootkey_derive(root, KEY_PURPOSE_SIGN, &view->header.key, &key)) < 0 ||
            (r = cipher_hmac(key, (CipherPart[]) { { view->header_bytes, view->header_size }, { data, size } },
                             2, mac)) < 0)
                return keyd_fail(error, r, "libcrypto failed");
        if (!cipher_equal(mac, view->tag, BLOB_MAC_SIZE))
                return keyd_fail(error, KEYD_E_BAD_SIGNATURE,
                                 "the signature does not verify over these bytes: the data or the "
                                 "signature was changed, or it was made with another key");
        return 0;
}
