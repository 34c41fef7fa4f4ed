/*
 * The operations, one ladder each, the same order for all:
 *
 *  1. the caller: its Smack label, as the bus gave it; none, or one of
 *     Smack's shared labels (_ * ^ @), is NoLabel: there is nobody to key
 *     by;
 *  2. the root: without one (lost, another TPM's, a TPM that does not
 *     answer, a damaged state) every call gets that error by name;
 *  3. the arguments: sizes against the documented limits (TooLarge, with
 *     the limit in the sentence), names and blobs by their syntax
 *     (InvalidArgs, Malformed, UnsupportedVersion): what is refused here
 *     is refused whoever holds what;
 *  4. the key: an own key is the caller's own label's, so a blob naming
 *     another label is refused without a key derived (KeyNotAvailable);
 *     a token's key needs the bus to say the caller holds the token, now,
 *     and a token it does not hold and one that does not exist get the
 *     same KeyNotAvailable, in the same words;
 *  5. the work, in envelope.c and store.c.
 *
 * Everything here is pure over its inputs but for the store's files and
 * the token question, which the caller supplies (the bus in
 * service-bus.c, a table in the tests and the fuzzer). No reply ever
 * carries key material: the outputs are blobs (header, nonce,
 * ciphertext, tag), signatures (header, HMAC), plaintexts the caller
 * gave, random bytes, and names.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "blob.h"
#include "cipher.h"
#include "envelope.h"
#include "service.h"
#include "store.h"

static int check_caller(const Service *s, const ServiceCaller *caller, KeydError *error) {
        if (!caller->label || !keyref_valid_label(caller->label))
                return keyd_fail(error, KEYD_E_NO_LABEL,
                                 "the caller has no Smack label of its own (%s): there is no key to use for it",
                                 caller->label ? "one every unlabelled process shares" : "none");
        return 0;
}

static int check_root(const Service *s, KeydError *error) {
        if (s->root)
                return 0;
        return keyd_fail(error, s->state.code ? s->state.code : -EIO, "%s",
                         s->state.message[0] ? s->state.message : "the service has no root key");
}

static int check_size(const char *what, size_t size, size_t max, KeydError *error) {
        if (size <= max)
                return 0;
        return keyd_fail(error, KEYD_E_TOO_LARGE, "%s of %zu bytes is over the limit of %zu bytes", what, size,
                         max);
}

static int not_available(const KeyRef *ref, KeydError *error) {
        /* One sentence for a token not held and one that does not exist: nothing to tell them apart by. */
        if (ref->kind == KEY_KIND_TOKEN)
                return keyd_fail(error, KEYD_E_KEY_NOT_AVAILABLE,
                                 "the key of token %s is not available to this caller: only holders of "
                                 "the token may use it", ref->name);
        return keyd_fail(error, KEYD_E_KEY_NOT_AVAILABLE,
                         "this is the own key of label %s: no other caller may use it", ref->name);
}

/* Whether caller may use ref: its own label's key, or a token the bus says it holds now. */
static int check_key(const ServiceCaller *caller, const KeyRef *ref, KeydError *error) {
        bool held = false;
        int r;

        if (ref->kind == KEY_KIND_LABEL)
                return strcmp(ref->name, caller->label) == 0 ? 0 : not_available(ref, error);
        r = caller->holds_token(ref->name, &held, caller->userdata, error);
        if (r != 0)
                return r;
        return held ? 0 : not_available(ref, error);
}

/* Steps 1 and 2, and the key the caller names (its syntax, not yet whether it may use it). */
static int begin(const Service *s, const ServiceCaller *caller, const char *key, KeyRef *ref,
                 KeydError *error) {
        const char *problem;
        int r;

        if ((r = check_caller(s, caller, error)) != 0 || (r = check_root(s, error)) != 0)
                return r;
        if (!ref)
                return 0;
        if (keyref_parse(key, caller->label, s->own_tokens, ref, &problem) < 0)
                return keyd_fail(error, KEYD_E_INVALID_ARGS, "key \"%s\": %s", key ? key : "", problem);
        return 0;
}

int service_encrypt(const Service *s, const ServiceCaller *caller, const char *key, const uint8_t *data,
                    size_t size, Buffer *ret, KeydError *error) {
        KeyRef ref;
        int r;

        if ((r = begin(s, caller, key, &ref, error)) != 0 ||
            (r = check_size("a plaintext", size, SERVICE_MAX_INPUT, error)) != 0 ||
            (r = check_key(caller, &ref, error)) != 0)
                return r;
        r = envelope_seal(s->root, BLOB_TYPE_CIPHERTEXT, KEY_PURPOSE_ENCRYPT, &ref, caller->label, NULL, data,
                          size, ret);
        return r < 0 ? keyd_fail(error, r, "cannot encrypt") : 0;
}

/* Untrusted bytes as a blob of type: 0, or Malformed / UnsupportedVersion by name. */
static int parse_blob(const uint8_t *bytes, size_t size, BlobType type, BlobView *view, KeydError *error) {
        int r = blob_parse(bytes, size, type, view);

        switch (r) {
        case 0:
                return 0;
        case BLOB_E_VERSION:
                return keyd_fail(error, KEYD_E_UNSUPPORTED_VERSION,
                                 "a blob of format version %u; this service knows version %d",
                                 size > 2 ? bytes[2] : 0, BLOB_VERSION);
        case BLOB_E_TYPE:
                return keyd_fail(error, KEYD_E_MALFORMED, "%s",
                                 type == BLOB_TYPE_SIGNATURE ? "not a signature: another kind of blob" :
                                 "not an encrypted blob: another kind (a signature?)");
        }
        return keyd_fail(error, KEYD_E_MALFORMED, "not a blob of this service (%zu bytes): short, or a field "
                         "is not what it may be", size);
}

int service_decrypt(const Service *s, const ServiceCaller *caller, const uint8_t *blob, size_t size,
                    Buffer *ret, KeydError *error) {
        BlobView view;
        int r;

        if ((r = begin(s, caller, NULL, NULL, error)) != 0 ||
            (r = check_size("a blob", size, SERVICE_MAX_BLOB, error)) != 0 ||
            (r = parse_blob(blob, size, BLOB_TYPE_CIPHERTEXT, &view, error)) != 0 ||
            (r = check_key(caller, &view.header.key, error)) != 0)
                return r;
        return envelope_open(s->root, KEY_PURPOSE_ENCRYPT, &view, NULL, ret, error);
}

int service_sign(const Service *s, const ServiceCaller *caller, const char *key, const uint8_t *data,
                 size_t size, Buffer *ret, KeydError *error) {
        KeyRef ref;
        int r;

        if ((r = begin(s, caller, key, &ref, error)) != 0 ||
            (r = check_size("data to sign", size, SERVICE_MAX_INPUT, error)) != 0 ||
            (r = check_key(caller, &ref, error)) != 0)
                return r;
        r = envelope_sign(s->root, &ref, caller->label, data, size, ret);
        return r < 0 ? keyd_fail(error, r, "cannot sign") : 0;
}

/*
 * Anyone may check an app's own-key signature (it says no more than the
 * signature claims: which label signed); only holders of a token may
 * check a token's, as only they may make one.
 */
int service_verify(const Service *s, const ServiceCaller *caller, const uint8_t *data, size_t size,
                   const uint8_t *signature, size_t signature_size, ServiceSigner *ret, KeydError *error) {
        BlobView view;
        int r;

        if ((r = begin(s, caller, NULL, NULL, error)) != 0 ||
            (r = check_size("signed data", size, SERVICE_MAX_INPUT, error)) != 0 ||
            (r = check_size("a signature", signature_size, BLOB_HEADER_MAX + BLOB_MAC_SIZE, error)) != 0 ||
            (r = parse_blob(signature, signature_size, BLOB_TYPE_SIGNATURE, &view, error)) != 0 ||
            (view.header.key.kind == KEY_KIND_TOKEN && (r = check_key(caller, &view.header.key, error)) != 0) ||
            (r = envelope_verify(s->root, &view, data, size, error)) != 0)
                return r;
        ret->key = view.header.key;
        snprintf(ret->signer, sizeof(ret->signer), "%s", view.header.creator);
        ret->mode = view.header.mode;
        return 0;
}

/* Random bytes need no root: only a caller the bus vouches for, and a bounded size. */
int service_random(const Service *s, const ServiceCaller *caller, uint32_t size, Buffer *ret, KeydError *error) {
        int r;

        if ((r = check_caller(s, caller, error)) != 0 ||
            (r = check_size("a request for random bytes", size, SERVICE_MAX_RANDOM, error)) != 0)
                return r;
        if ((r = buffer_alloc(ret, size)) < 0 || (r = cipher_random(ret->data, size)) < 0) {
                buffer_wipe(ret);
                return keyd_fail(error, r, "no random bytes");
        }
        return 0;
}

static int check_item(const char *name, KeydError *error) {
        if (store_valid_name(name))
                return 0;
        return keyd_fail(error, KEYD_E_INVALID_ARGS,
                         "an item's name is 1-%d of A-Z a-z 0-9 . _ -, not starting with '.'", STORE_NAME_MAX);
}

int service_store(const Service *s, const ServiceCaller *caller, const char *key, const char *name,
                  const uint8_t *data, size_t size, KeydError *error) {
        KeyRef ref;
        int r;

        if ((r = begin(s, caller, key, &ref, error)) != 0 || (r = check_item(name, error)) != 0 ||
            (r = check_size("an item", size, SERVICE_MAX_INPUT, error)) != 0 ||
            (r = check_key(caller, &ref, error)) != 0)
                return r;
        return store_put(s->store_dir, s->root, &ref, caller->label, name, data, size, error);
}

int service_load(const Service *s, const ServiceCaller *caller, const char *key, const char *name,
                 Buffer *ret, KeydError *error) {
        KeyRef ref;
        int r;

        if ((r = begin(s, caller, key, &ref, error)) != 0 || (r = check_item(name, error)) != 0 ||
            (r = check_key(caller, &ref, error)) != 0)
                return r;
        return store_get(s->store_dir, s->root, &ref, name, ret, error);
}

int service_remove(const Service *s, const ServiceCaller *caller, const char *key, const char *name,
                   KeydError *error) {
        KeyRef ref;
        int r;

        if ((r = begin(s, caller, key, &ref, error)) != 0 || (r = check_item(name, error)) != 0 ||
            (r = check_key(caller, &ref, error)) != 0)
                return r;
        return store_remove(s->store_dir, s->root, &ref, name, error);
}
