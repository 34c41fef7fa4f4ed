/* Blobs made and opened: header, derived key, AES-GCM or HMAC, in one place for Encrypt, Sign and storage. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "blob.h"
#include "buffer.h"
#include "keyd-error.h"
#include "rootkey.h"

/*
 * A ciphertext (or stored item) blob of data under ref, made by creator:
 * the header, a random nonce, AES-256-GCM with the key of purpose
 * (ENCRYPT or STORE) and the header plus extra (a stored item's name;
 * NULL for none) as associated data. 0 or -errno.
 */
int envelope_seal(const RootKey *root, BlobType type, KeyPurpose purpose, const KeyRef *ref,
                  const char *creator, const char *extra, const uint8_t *data, size_t size, Buffer *ret);

/*
 * Opens a parsed blob the caller may use: KEYD_E_OTHER_ROOT when it names
 * another root (checked before any key is derived), KEYD_E_ALTERED when
 * the tag fails (no byte of plaintext is returned), else 0 with the
 * plaintext in ret.
 */
int envelope_open(const RootKey *root, KeyPurpose purpose, const BlobView *view, const char *extra,
                  Buffer *ret, KeydError *error);

/* A signature blob over data under ref, made by creator: HMAC-SHA256(sign key, header || data). */
int envelope_sign(const RootKey *root, const KeyRef *ref, const char *creator, const uint8_t *data,
                  size_t size, Buffer *ret);

/* 0 when the parsed signature is valid over data; KEYD_E_OTHER_ROOT, KEYD_E_BAD_SIGNATURE. */
int envelope_verify(const RootKey *root, const BlobView *view, const uint8_t *data, size_t size,
                    KeydError *error);
