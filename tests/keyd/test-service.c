/*
 * The key service's operations (keyd/service.c) with a known root and
 * callers from a table: what an app sees, error by name.
 *  - app A's blob opens for A; for B (another label) it is refused, also
 *    as A's exact bytes, and B's edit of it to name B does not open;
 *  - a token's blob opens for every holder and no one else, and a token
 *    not held and one that does not exist get the same error and words;
 *  - no truncation and no single-bit flip of a blob ever opens;
 *  - Verify says which key signed and whose call made it;
 *  - limits (TooLarge names the limit), NoLabel, InvalidArgs, the root's
 *    own errors for every call, the bus's errors passed on;
 *  - storage under an own key and a token's, its quota, a moved file;
 *  - a known root: every reply of the run and every file written is
 *    scanned for the root and for every key derived in it; none is there;
 *  - the secure heap holds no key once a call returns;
 *  - every key is HKDF-SHA256's, as OpenSSL computes it, so blobs made
 *    before the derivation was split into extract and expand still open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "blob.h"
#include "cipher.h"
#include "secmem.h"
#include "service.h"
#include "store.h"

static const uint8_t known_root[ROOTKEY_SIZE] = {
        0x6b, 0x65, 0x79, 0x64, 0x2d, 0x74, 0x65, 0x73, 0x74, 0x2d, 0x72, 0x6f, 0x6f, 0x74, 0x00, 0x01,
        0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11,
};

static RootKey *root, *other_root;
static Service service;
static char store_dir[64];
static const char *const own_tokens[] = { "crypto", NULL };

/* Every byte the service handed out in this run: replies and error words. */
static uint8_t *replies;
static size_t replies_size, replies_cap;

static void record(const void *data, size_t size) {
        if (replies_size + size > replies_cap) {
                replies_cap = (replies_size + size) * 2 + 4096;
                replies = realloc(replies, replies_cap);
                assert_non_null(replies);
        }
        if (size)
                memcpy(replies + replies_size, data, size);
        replies_size += size;
}

/* A caller from the table: its label, the tokens it holds, how many times it was asked. */
typedef struct App {
        const char *label;
        const char *tokens[4];
        int answer;             /* 0: answer from tokens; else this error */
        unsigned questions;
} App;

static App app_a = { "appA" }, app_b = { "appB", { "calendar::work", "Cellular" } },
           app_c = { "appC", { "calendar::work" } }, no_label = { NULL }, floor_label = { "_" },
           star_label = { "*" };

static int holds(const char *token, bool *ret_held, void *userdata, KeydError *error) {
        App *app = userdata;

        app->questions++;
        if (app->answer)
                return keyd_fail(error, app->answer, "the bus would not say");
        *ret_held = false;
        for (size_t i = 0; i < 4 && app->tokens[i]; i++)
                *ret_held = *ret_held || strcmp(app->tokens[i], token) == 0;
        return 0;
}

static ServiceCaller as(App *app) {
        return (ServiceCaller) { .label = app->label, .holds_token = holds, .userdata = app };
}

static int done(int r, Buffer *out, const KeydError *error) {
        if (r == 0 && out)
                record(out->data, out->size);
        if (r != 0)
                record(error->message, strlen(error->message));
        return r;
}

static int encrypt_as(App *app, const char *key, const void *data, size_t size, Buffer *out, KeydError *error) {
        ServiceCaller c = as(app);

        *out = (Buffer) { 0 };
        return done(service_encrypt(&service, &c, key, data, size, out, error), out, error);
}

static int decrypt_as(App *app, const Buffer *blob, Buffer *out, KeydError *error) {
        ServiceCaller c = as(app);

        *out = (Buffer) { 0 };
        return done(service_decrypt(&service, &c, blob->data, blob->size, out, error), out, error);
}

static void test_own_key(void **unused) {
        static const char secret[] = "A's diary";
        Buffer blob, plain, edited;
        KeydError error;
        BlobView view;

        assert_int_equal(encrypt_as(&app_a, "", secret, sizeof(secret), &blob, &error), 0);
        assert_null(memmem(blob.data, blob.size, secret, sizeof(secret)));
        assert_int_equal(decrypt_as(&app_a, &blob, &plain, &error), 0);
        assert_int_equal(plain.size, sizeof(secret));
        assert_memory_equal(plain.data, secret, sizeof(secret));
        buffer_wipe(&plain);
        /* B, another label (same uid: labels, not uids, decide), sending A's exact blob. */
        assert_int_equal(decrypt_as(&app_b, &blob, &plain, &error), KEYD_E_KEY_NOT_AVAILABLE);
        assert_null(plain.data);
        assert_string_equal(error.message, "this is the own key of label appA: no other caller may use it");
        /* B re-labels A's blob to name itself: the header is bound, it does not open. */
        assert_int_equal(buffer_alloc(&edited, blob.size + 0), 0);
        memcpy(edited.data, blob.data, blob.size);
        assert_int_equal(blob_parse(edited.data, edited.size, BLOB_TYPE_CIPHERTEXT, &view), 0);
        memcpy(edited.data + 7, "appB", 4);     /* the key's name */
        memcpy(edited.data + 7 + 4 + 1, "appB", 4); /* the creator's */
        assert_int_equal(decrypt_as(&app_b, &edited, &plain, &error), KEYD_E_ALTERED);
        assert_null(plain.data);
        /* The token question is never asked for an own key. */
        assert_int_equal(app_a.questions + app_b.questions, 0);
        buffer_wipe(&edited);
        buffer_wipe(&blob);
}

static void test_token_key(void **unused) {
        static const char shared[] = "the work calendar";
        Buffer blob, plain;
        KeydError error, missing;
        unsigned asked;

        assert_int_equal(encrypt_as(&app_b, "token:calendar::work", shared, sizeof(shared), &blob, &error), 0);
        /* Every holder opens it. */
        assert_int_equal(decrypt_as(&app_c, &blob, &plain, &error), 0);
        assert_memory_equal(plain.data, shared, sizeof(shared));
        buffer_wipe(&plain);
        assert_int_equal(decrypt_as(&app_b, &blob, &plain, &error), 0);
        buffer_wipe(&plain);
        /* No one else: A does not hold it. */
        assert_int_equal(decrypt_as(&app_a, &blob, &plain, &error), KEYD_E_KEY_NOT_AVAILABLE);
        assert_string_equal(error.message, "the key of token calendar::work is not available to this caller: "
                                           "only holders of the token may use it");
        /* A token it does not hold and one that does not exist: the same code, the same words. */
        assert_int_equal(encrypt_as(&app_a, "token:Cellular", "x", 1, &plain, &error), KEYD_E_KEY_NOT_AVAILABLE);
        assert_int_equal(encrypt_as(&app_a, "token:NoSuchToken", "x", 1, &plain, &missing),
                         KEYD_E_KEY_NOT_AVAILABLE);
        assert_string_equal(error.message, "the key of token Cellular is not available to this caller: only "
                                           "holders of the token may use it");
        assert_string_equal(missing.message, "the key of token NoSuchToken is not available to this caller: "
                                             "only holders of the token may use it");
        /* Asked at every call: a grant revoked is seen by the next one. */
        asked = app_c.questions;
        app_c.tokens[0] = NULL;
        assert_int_equal(decrypt_as(&app_c, &blob, &plain, &error), KEYD_E_KEY_NOT_AVAILABLE);
        assert_int_equal(app_c.questions, asked + 1);
        app_c.tokens[0] = "calendar::work";
        /* The bus's own refusal passes through by name, never as "held". */
        app_c.answer = KEYD_E_NOT_CONFIGURED;
        assert_int_equal(decrypt_as(&app_c, &blob, &plain, &error), KEYD_E_NOT_CONFIGURED);
        app_c.answer = KEYD_E_UNMEDIATED;
        assert_int_equal(decrypt_as(&app_c, &blob, &plain, &error), KEYD_E_UNMEDIATED);
        app_c.answer = 0;
        buffer_wipe(&blob);
}

/* No prefix and no single-bit change of a blob ever gives a plaintext. */
static void test_tampering(void **unused) {
        static const char secret[] = "0123456789abcdef";
        Buffer blob, plain, changed;
        KeydError error;
        int r;

        assert_int_equal(encrypt_as(&app_a, "", secret, sizeof(secret), &blob, &error), 0);
        for (size_t n = 0; n < blob.size; n++) {
                Buffer cut = { .data = blob.data, .size = n };

                r = decrypt_as(&app_a, &cut, &plain, &error);
                if (r != KEYD_E_MALFORMED && r != KEYD_E_ALTERED && r != KEYD_E_UNSUPPORTED_VERSION)
                        fail_msg("a blob cut to %zu of %zu bytes: %d (%s)", n, blob.size, r, error.message);
                assert_null(plain.data);
        }
        assert_int_equal(buffer_alloc(&changed, blob.size), 0);
        for (size_t i = 0; i < blob.size; i++)
                for (int bit = 0; bit < 8; bit++) {
                        memcpy(changed.data, blob.data, blob.size);
                        changed.data[i] ^= (uint8_t) (1 << bit);
                        r = decrypt_as(&app_a, &changed, &plain, &error);
                        if (r == 0)
                                fail_msg("byte %zu bit %d changed: it opened", i, bit);
                        assert_null(plain.data);
                }
        /* One byte more at the end: the tag moves, it does not verify. */
        buffer_wipe(&changed);
        assert_int_equal(buffer_alloc(&changed, blob.size + 1), 0);
        memcpy(changed.data, blob.data, blob.size);
        assert_int_equal(decrypt_as(&app_a, &changed, &plain, &error), KEYD_E_ALTERED);
        buffer_wipe(&changed);
        /* Another format version: named as such. */
        blob.data[2] = 2;
        assert_int_equal(decrypt_as(&app_a, &blob, &plain, &error), KEYD_E_UNSUPPORTED_VERSION);
        assert_non_null(strstr(error.message, "format version 2"));
        buffer_wipe(&blob);
}

/* A blob of another device (another root): OtherRoot, not Altered, once the caller may use the key. */
static void test_other_root(void **unused) {
        Buffer blob, plain;
        KeydError error;
        Service other = service;

        other.root = other_root;
        {
                ServiceCaller c = as(&app_a);

                assert_int_equal(service_encrypt(&other, &c, "", (const uint8_t *) "x", 1, &blob, &error), 0);
        }
        assert_int_equal(decrypt_as(&app_a, &blob, &plain, &error), KEYD_E_OTHER_ROOT);
        assert_non_null(strstr(error.message, "made under another root key"));
        assert_int_equal(decrypt_as(&app_b, &blob, &plain, &error), KEYD_E_KEY_NOT_AVAILABLE);
        buffer_wipe(&blob);
}

static int verify_as(App *app, const void *data, size_t size, const Buffer *signature, ServiceSigner *signer,
                     KeydError *error) {
        ServiceCaller c = as(app);
        int r = service_verify(&service, &c, data, size, signature->data, signature->size, signer, error);

        if (r == 0)
                record(signer, sizeof(*signer));
        return done(r, NULL, error);
}

static void test_sign_verify(void **unused) {
        static const char data[] = "settings v2";
        ServiceCaller a = as(&app_a), b = as(&app_b);
        ServiceSigner signer;
        Buffer signature, token_signature;
        KeydError error;

        assert_int_equal(service_sign(&service, &a, "", (const uint8_t *) data, sizeof(data), &signature, &error), 0);
        record(signature.data, signature.size);
        /* Which key made it, whose call, which mode; for anyone who asks (B too). */
        assert_int_equal(verify_as(&app_b, data, sizeof(data), &signature, &signer, &error), 0);
        assert_int_equal(signer.key.kind, KEY_KIND_LABEL);
        assert_string_equal(signer.key.name, "appA");
        assert_string_equal(signer.signer, "appA");
        assert_int_equal(signer.mode, ROOT_MODE_TPM);
        /* Other data, or another signature: BadSignature. */
        assert_int_equal(verify_as(&app_b, "settings v3", sizeof(data), &signature, &signer, &error),
                         KEYD_E_BAD_SIGNATURE);
        signature.data[signature.size - 1] ^= 1;
        assert_int_equal(verify_as(&app_a, data, sizeof(data), &signature, &signer, &error), KEYD_E_BAD_SIGNATURE);
        /* A signature is not a ciphertext, nor the reverse. */
        assert_int_equal(decrypt_as(&app_a, &signature, &token_signature, &error), KEYD_E_MALFORMED);
        /* A token's signature: made by B, checked by C (a holder), who learns it was B. */
        assert_int_equal(service_sign(&service, &b, "token:calendar::work", (const uint8_t *) data, sizeof(data),
                                      &token_signature, &error), 0);
        record(token_signature.data, token_signature.size);
        assert_int_equal(verify_as(&app_c, data, sizeof(data), &token_signature, &signer, &error), 0);
        assert_int_equal(signer.key.kind, KEY_KIND_TOKEN);
        assert_string_equal(signer.key.name, "calendar::work");
        assert_string_equal(signer.signer, "appB");
        /* Only holders may check it. */
        assert_int_equal(verify_as(&app_a, data, sizeof(data), &token_signature, &signer, &error),
                         KEYD_E_KEY_NOT_AVAILABLE);
        buffer_wipe(&signature);
        buffer_wipe(&token_signature);
}

static void test_limits_and_names(void **unused) {
        uint8_t *big = calloc(1, SERVICE_MAX_INPUT + 1);
        ServiceCaller a = as(&app_a);
        Buffer out;
        KeydError error;

        assert_non_null(big);
        assert_int_equal(encrypt_as(&app_a, "", big, SERVICE_MAX_INPUT, &out, &error), 0);
        buffer_wipe(&out);
        assert_int_equal(encrypt_as(&app_a, "", big, SERVICE_MAX_INPUT + 1, &out, &error), KEYD_E_TOO_LARGE);
        assert_string_equal(error.message, "a plaintext of 65537 bytes is over the limit of 65536 bytes");
        assert_int_equal(service_sign(&service, &a, "", big, SERVICE_MAX_INPUT + 1, &out, &error), KEYD_E_TOO_LARGE);
        assert_int_equal(service_store(&service, &a, "", "item", big, SERVICE_MAX_INPUT + 1, &error),
                         KEYD_E_TOO_LARGE);
        assert_int_equal(service_random(&service, &a, SERVICE_MAX_RANDOM + 1, &out, &error), KEYD_E_TOO_LARGE);
        assert_non_null(strstr(error.message, "over the limit of 4096 bytes"));
        assert_int_equal(service_random(&service, &a, 32, &out, &error), 0);
        assert_int_equal(out.size, 32);
        record(out.data, out.size);
        buffer_wipe(&out);
        free(big);
        /* Keys are "" or token:LABEL, and the service's own tokens only in full: refused before the bus is asked. */
        app_a.questions = 0;
        static const char *const bad_keys[] = {
                "appA", "label:appA", "token:", "token:UID::root", "token:GRP::video", "token:crypto",
                "token:a b", "token:a/b", "token:-x", "token:_", "token:*",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad_keys); i++) {
                assert_int_equal(encrypt_as(&app_a, bad_keys[i], "x", 1, &out, &error), KEYD_E_INVALID_ARGS);
                assert_int_equal(app_a.questions, 0);
        }
        /* Without a label of its own, nothing: no key to use. */
        App *unlabelled[] = { &no_label, &floor_label, &star_label };
        for (size_t i = 0; i < ELEMENTSOF(unlabelled); i++) {
                ServiceCaller c = as(unlabelled[i]);

                assert_int_equal(encrypt_as(unlabelled[i], "", "x", 1, &out, &error), KEYD_E_NO_LABEL);
                assert_int_equal(service_random(&service, &c, 1, &out, &error), KEYD_E_NO_LABEL);
                assert_int_equal(service_load(&service, &c, "", "item", &out, &error), KEYD_E_NO_LABEL);
        }
}

/* Without a root (a cleared TPM), every call that needs it gets that error, by name. */
static void test_no_root(void **unused) {
        Service lost = { .store_dir = store_dir, .own_tokens = own_tokens };
        ServiceCaller a = as(&app_a);
        ServiceSigner signer;
        Buffer out, blob;
        KeydError error;

        keyd_fail(&lost.state, KEYD_E_ROOT_KEY_LOST, "root key lost: this TPM was cleared");
        assert_int_equal(encrypt_as(&app_a, "", "x", 1, &blob, &error), 0);
        assert_int_equal(service_encrypt(&lost, &a, "", (const uint8_t *) "x", 1, &out, &error), KEYD_E_ROOT_KEY_LOST);
        assert_string_equal(error.message, "root key lost: this TPM was cleared");
        assert_int_equal(service_decrypt(&lost, &a, blob.data, blob.size, &out, &error), KEYD_E_ROOT_KEY_LOST);
        assert_int_equal(service_sign(&lost, &a, "", blob.data, 1, &out, &error), KEYD_E_ROOT_KEY_LOST);
        assert_int_equal(service_verify(&lost, &a, blob.data, 1, blob.data, blob.size, &signer, &error),
                         KEYD_E_ROOT_KEY_LOST);
        assert_int_equal(service_store(&lost, &a, "", "item", blob.data, 1, &error), KEYD_E_ROOT_KEY_LOST);
        assert_int_equal(service_load(&lost, &a, "", "item", &out, &error), KEYD_E_ROOT_KEY_LOST);
        assert_int_equal(service_remove(&lost, &a, "", "item", &error), KEYD_E_ROOT_KEY_LOST);
        buffer_wipe(&blob);
}

static int store_as(App *app, const char *key, const char *name, const char *data, KeydError *error) {
        ServiceCaller c = as(app);

        return done(service_store(&service, &c, key, name, (const uint8_t *) data, strlen(data), error), NULL, error);
}

static int load_as(App *app, const char *key, const char *name, Buffer *out, KeydError *error) {
        ServiceCaller c = as(app);

        *out = (Buffer) { 0 };
        return done(service_load(&service, &c, key, name, out, error), out, error);
}

/* The only two files of the store's one namespace for ref, with their names (hex). */
static void namespace_files(const char *ns_path, char names[2][64]) {
        DIR *d = opendir(ns_path);
        struct dirent *e;
        int n = 0;

        assert_non_null(d);
        while ((e = readdir(d)))
                if (e->d_name[0] != '.' && n < 2)
                        snprintf(names[n++], 64, "%.63s", e->d_name);
        closedir(d);
        assert_int_equal(n, 2);
}

static void test_storage(void **unused) {
        ServiceCaller a = as(&app_a);
        KeydError error;
        Buffer out;
        char name[32];

        assert_int_equal(store_as(&app_a, "", "password", "hunter2", &error), 0);
        assert_int_equal(load_as(&app_a, "", "password", &out, &error), 0);
        assert_int_equal(out.size, 7);
        assert_memory_equal(out.data, "hunter2", 7);
        buffer_wipe(&out);
        /* Replaced in place. */
        assert_int_equal(store_as(&app_a, "", "password", "correct horse", &error), 0);
        assert_int_equal(load_as(&app_a, "", "password", &out, &error), 0);
        assert_int_equal(out.size, 13);
        buffer_wipe(&out);
        /* B's "" is B's own namespace: A's item is not there, and there is no way to name A's. */
        assert_int_equal(load_as(&app_b, "", "password", &out, &error), KEYD_E_NO_SUCH_ITEM);
        /* Under a token: any holder, no one else; not held and not existing alike. */
        assert_int_equal(store_as(&app_b, "token:calendar::work", "shared", "team secret", &error), 0);
        assert_int_equal(load_as(&app_c, "token:calendar::work", "shared", &out, &error), 0);
        assert_memory_equal(out.data, "team secret", 11);
        buffer_wipe(&out);
        assert_int_equal(load_as(&app_a, "token:calendar::work", "shared", &out, &error), KEYD_E_KEY_NOT_AVAILABLE);
        assert_int_equal(load_as(&app_a, "token:calendar::none", "shared", &out, &error), KEYD_E_KEY_NOT_AVAILABLE);
        assert_int_equal(service_remove(&service, &a, "token:calendar::work", "shared", &error),
                         KEYD_E_KEY_NOT_AVAILABLE);
        /* Names: bounded, no path. */
        static const char *const bad_names[] = { "", ".hidden", "../x", "a/b", "a b", NULL };
        for (size_t i = 0; i < ELEMENTSOF(bad_names); i++)
                assert_int_equal(store_as(&app_a, "", bad_names[i], "x", &error), KEYD_E_INVALID_ARGS);
        /* Remove, then it is gone. */
        assert_int_equal(service_remove(&service, &a, "", "password", &error), 0);
        assert_int_equal(load_as(&app_a, "", "password", &out, &error), KEYD_E_NO_SUCH_ITEM);
        assert_int_equal(service_remove(&service, &a, "", "password", &error), KEYD_E_NO_SUCH_ITEM);
        /* The quota: STORE_ITEMS_MAX items; one more refused, a replacement still fine. */
        for (int i = 0; i < STORE_ITEMS_MAX; i++) {
                snprintf(name, sizeof(name), "item%d", i);
                assert_int_equal(store_as(&app_c, "", name, "v", &error), 0);
        }
        assert_int_equal(store_as(&app_c, "", "one-more", "v", &error), KEYD_E_QUOTA);
        assert_non_null(strstr(error.message, "the most there may be (256)"));
        assert_int_equal(store_as(&app_c, "", "item7", "w", &error), 0);
}

/* An item's file copied over another's (same key): bound to its name, it does not open. */
static void test_moved_item(void **unused) {
        char names[2][64], from[600], to[600], ns_path[400], command[1300];
        KeydError error;
        Buffer out;
        DIR *d;
        struct dirent *e;

        assert_int_equal(store_as(&app_b, "", "first", "one", &error), 0);
        assert_int_equal(store_as(&app_b, "", "second", "two", &error), 0);
        /* B's namespace: the directory holding exactly these two. */
        ns_path[0] = '\0';
        d = opendir(store_dir);
        assert_non_null(d);
        while ((e = readdir(d))) {
                char path[400];
                DIR *inner;
                int n = 0;

                if (e->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "%s/%s", store_dir, e->d_name);
                inner = opendir(path);
                assert_non_null(inner);
                for (struct dirent *f; (f = readdir(inner));)
                        n += f->d_name[0] != '.';
                closedir(inner);
                if (n == 2) {
                        assert_true(ns_path[0] == '\0');
                        snprintf(ns_path, sizeof(ns_path), "%s", path);
                }
        }
        closedir(d);
        assert_true(ns_path[0] != '\0');
        namespace_files(ns_path, names);
        snprintf(from, sizeof(from), "%s/%s", ns_path, names[0]);
        snprintf(to, sizeof(to), "%s/%s", ns_path, names[1]);
        snprintf(command, sizeof(command), "cp '%s' '%s'", from, to);
        assert_int_equal(system(command), 0);
        /* One of the two now holds the other's bytes: that one does not open. */
        int first = load_as(&app_b, "", "first", &out, &error);
        buffer_wipe(&out);
        int second = load_as(&app_b, "", "second", &out, &error);
        buffer_wipe(&out);
        assert_true((first == 0 && second == KEYD_E_ALTERED) || (first == KEYD_E_ALTERED && second == 0));
}

/* Every byte handed out, and every file written: no root, no derived key, not even half of one. */
static void test_no_key_material(void **unused) {
        static const char *const labels[] = { "appA", "appB", "appC" };
        static const char *const tokens[] = { "calendar::work", "Cellular", "NoSuchToken", "calendar::none" };
        char command[300], path[] = "/tmp/keyd-files-XXXXXX";
        uint8_t *files;
        size_t files_size;
        int fd;

        assert_true(replies_size > 100000);
        /* The files the service wrote, in one place. */
        fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        snprintf(command, sizeof(command), "find '%s' -type f -exec cat {} + > '%s'", store_dir, path);
        assert_int_equal(system(command), 0);
        {
                FILE *f = fopen(path, "rb");

                assert_non_null(f);
                files = malloc(8 * 1024 * 1024);
                assert_non_null(files);
                files_size = fread(files, 1, 8 * 1024 * 1024, f);
                fclose(f);
        }
        unlink(path);
        assert_true(files_size > 1000);
        assert_null(memmem(replies, replies_size, known_root, 16));
        assert_null(memmem(replies, replies_size, known_root + 16, 16));
        assert_null(memmem(files, files_size, known_root, 16));
        for (int purpose = 0; purpose < _KEY_PURPOSE_MAX; purpose++)
                for (size_t i = 0; i < ELEMENTSOF(labels) + ELEMENTSOF(tokens); i++) {
                        KeyRef ref = { .kind = i < ELEMENTSOF(labels) ? KEY_KIND_LABEL : KEY_KIND_TOKEN };
                        uint8_t *key = NULL;

                        snprintf(ref.name, sizeof(ref.name), "%s",
                                 i < ELEMENTSOF(labels) ? labels[i] : tokens[i - ELEMENTSOF(labels)]);
                        assert_int_equal(rootkey_derive(root, (KeyPurpose) purpose, &ref, &key), 0);
                        for (int half = 0; half < 2; half++) {
                                assert_null(memmem(replies, replies_size, key + 16 * half, 16));
                                assert_null(memmem(files, files_size, key + 16 * half, 16));
                        }
                        secmem_free(key, DERIVED_KEY_SIZE);
                }
        free(files);
}

/* OpenSSL's HKDF-SHA256 in one call, the recipe docs/keyd.md gives. */
static void openssl_hkdf(const char *info, uint8_t *out, size_t size) {
        EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
        EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
        OSSL_PARAM params[] = {
                OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *) "SHA256", 0),
                OSSL_PARAM_octet_string(OSSL_KDF_PARAM_KEY, (void *) known_root, ROOTKEY_SIZE),
                OSSL_PARAM_octet_string(OSSL_KDF_PARAM_SALT, (void *) "mssf-keyd", 9),
                OSSL_PARAM_octet_string(OSSL_KDF_PARAM_INFO, (void *) info, strlen(info)),
                OSSL_PARAM_END,
        };

        assert_non_null(ctx);
        assert_int_equal(EVP_KDF_derive(ctx, out, size, params), 1);
        EVP_KDF_CTX_free(ctx);
        EVP_KDF_free(kdf);
}

static void test_keys_are_hkdf(void **unused) {
        static const char *const names[] = { "label:app-a", "token:T", "label:x" };
        uint8_t expected[DERIVED_KEY_SIZE], *key = NULL;
        char info[128];

        openssl_hkdf("mssf-keyd/1 root-id", expected, ROOTKEY_ID_SIZE);
        assert_memory_equal(rootkey_id(root), expected, ROOTKEY_ID_SIZE);
        for (int purpose = 0; purpose < _KEY_PURPOSE_MAX; purpose++)
                for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                        KeyRef ref = { .kind = names[i][0] == 't' ? KEY_KIND_TOKEN : KEY_KIND_LABEL };

                        snprintf(ref.name, sizeof(ref.name), "%s", strchr(names[i], ':') + 1);
                        snprintf(info, sizeof(info), "mssf-keyd/1 %s %s",
                                 key_purpose_to_string((KeyPurpose) purpose), names[i]);
                        openssl_hkdf(info, expected, sizeof(expected));
                        assert_int_equal(rootkey_derive(root, (KeyPurpose) purpose, &ref, &key), 0);
                        assert_true(secmem_is_secure(key));
                        assert_memory_equal(key, expected, DERIVED_KEY_SIZE);
                        key = secmem_free(key, DERIVED_KEY_SIZE);
                }
        openssl_hkdf("mssf-keyd/1 evm-master", expected, sizeof(expected));
        assert_int_equal(rootkey_derive_named(root, "evm-master", &key), 0);
        assert_memory_equal(key, expected, DERIVED_KEY_SIZE);
        secmem_free(key, DERIVED_KEY_SIZE);
        explicit_bzero(expected, sizeof(expected));
}

static size_t heap_before;

/* Last: with the roots gone, the secure heap is as it was before the first key (nothing kept). */
static void test_heap_given_back(void **unused) {
        root = rootkey_free(root);
        other_root = rootkey_free(other_root);
        assert_int_equal(secmem_used(), heap_before);
}

static int setup(void **unused) {
        uint8_t other[ROOTKEY_SIZE];

        /* libcrypto's random generator keeps its state in the secure heap for good: made first. */
        if (cipher_random(other, sizeof(other)) < 0)
                return -1;
        heap_before = secmem_used();
        snprintf(store_dir, sizeof(store_dir), "/tmp/keyd-store-XXXXXX");
        if (!mkdtemp(store_dir) || rootkey_new(known_root, ROOT_MODE_TPM, &root) < 0)
                return -1;
        memset(other, 0x5a, sizeof(other));
        if (rootkey_new(other, ROOT_MODE_SOFTWARE, &other_root) < 0)
                return -1;
        service = (Service) { .root = root, .store_dir = store_dir, .own_tokens = own_tokens };
        return 0;
}

static int teardown(void **unused) {
        char command[200];

        rootkey_free(root);
        rootkey_free(other_root);
        free(replies);
        snprintf(command, sizeof(command), "rm -rf '%s'", store_dir);
        return system(command) == 0 ? 0 : -1;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_own_key),
                cmocka_unit_test(test_token_key),
                cmocka_unit_test(test_tampering),
                cmocka_unit_test(test_other_root),
                cmocka_unit_test(test_sign_verify),
                cmocka_unit_test(test_limits_and_names),
                cmocka_unit_test(test_no_root),
                cmocka_unit_test(test_storage),
                cmocka_unit_test(test_moved_item),
                cmocka_unit_test(test_no_key_material),
                cmocka_unit_test(test_keys_are_hkdf),
                cmocka_unit_test(test_heap_given_back),
        };

        if (secmem_init() < 0) {
                printf("cannot lock memory for the keys (RLIMIT_MEMLOCK)\n");
                return 1;
        }
        return cmocka_run_group_tests(tests, setup, teardown);
}
