/*
 * Fuzzer over every method's arguments (keyd/service.c), as the bus hands
 * them over: one input is a method, a caller, a key name, an item name
 * and data, in the layout below. Whatever they are, a call ends in 0 or
 * one of the service's codes, never a crash, and what succeeds holds:
 * an encryption decrypts to its plaintext for its caller, a signature
 * verifies, a stored item loads back.
 *
 *     byte 0     method: Encrypt, Decrypt, Sign, Verify, GetRandom, Store, Load, Remove
 *     byte 1     caller: appA, appB (holds calendar::work), no label, "_", a bus that would not say
 *     then       key NUL name NUL data (each may be cut short)
 */
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keyd-error.h"
#include "keyref.h"
#include "secmem.h"
#include "service.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fuzz_root[ROOTKEY_SIZE] = { 'f', 'u', 'z', 'z' };
static RootKey *root;
static char store_dir[64];

static int holds(const char *token, bool *ret_held, void *userdata, KeydError *error) {
        int who = (int) (intptr_t) userdata;

        if (who == 4)
                return keyd_fail(error, KEYD_E_NOT_CONFIGURED, "the bus would not say");
        *ret_held = who == 1 && strcmp(token, "calendar::work") == 0;
        return 0;
}

static void check(int r) {
        if (r < 0 ? r != -ENOMEM && r != -EIO && r != -ENOENT && r != -ENOTDIR && r != -EEXIST && r != -ENAMETOOLONG
                  : r >= _KEYD_E_MAX)
                abort();
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return ftw->level == 0 ? 0 : remove(path);
}

/* At exit: the root given back, the scratch store gone. */
static void done(void) {
        nftw(store_dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
        rmdir(store_dir);
        root = rootkey_free(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char *const labels[] = { "appA", "appB", NULL, "_", "appD" };
        char fields[2][300] = { "", "" };
        Service s;
        ServiceCaller c;
        ServiceSigner signer;
        KeydError error;
        Buffer out = { 0 }, back = { 0 };
        const uint8_t *rest;
        size_t n, field = 0;
        int r;

        if (!root) {
                snprintf(store_dir, sizeof(store_dir), "/tmp/keyd-fuzz-XXXXXX");
                if (secmem_init() < 0 || !mkdtemp(store_dir) || rootkey_new(fuzz_root, ROOT_MODE_TPM, &root) < 0 ||
                    atexit(done) != 0)
                        abort();
        }
        if (size < 2)
                return 0;
        s = (Service) { .root = root, .store_dir = store_dir, .own_tokens = keyref_own_tokens };
        c = (ServiceCaller) { .label = labels[data[1] % 5], .holds_token = holds,
                              .userdata = (void *) (intptr_t) (data[1] % 5) };
        rest = data + 2;
        n = size - 2;
        /* Two NUL-terminated fields (at most 299 bytes each), then the data. */
        while (field < 2 && n > 0) {
                const uint8_t *nul = memchr(rest, '\0', n);
                size_t len = nul ? (size_t) (nul - rest) : n;

                snprintf(fields[field++], sizeof(fields[0]), "%.*s", (int) (len < 299 ? len : 299), rest);
                rest += nul ? len + 1 : len;
                n -= nul ? len + 1 : len;
        }
        switch (data[0] % 8) {
        case 0:
                r = service_encrypt(&s, &c, fields[0], rest, n, &out, &error);
                if (r == 0) {
                        if (service_decrypt(&s, &c, out.data, out.size, &back, &error) != 0 || back.size != n ||
                            (n && memcmp(back.data, rest, n) != 0))
                                abort();
                }
                break;
        case 1:
                r = service_decrypt(&s, &c, rest, n, &out, &error);
                break;
        case 2:
                r = service_sign(&s, &c, fields[0], rest, n, &out, &error);
                if (r == 0 && service_verify(&s, &c, rest, n, out.data, out.size, &signer, &error) != 0)
                        abort();
                break;
        case 3:
                /* The first field's bytes are the signed data, the rest the signature. */
                r = service_verify(&s, &c, (const uint8_t *) fields[0], strlen(fields[0]), rest, n, &signer, &error);
                break;
        case 4:
                r = service_random(&s, &c, n > 0 ? rest[0] * 32u : 0, &out, &error);
                break;
        case 5:
                r = service_store(&s, &c, fields[0], fields[1], rest, n, &error);
                if (r == 0) {
                        if (service_load(&s, &c, fields[0], fields[1], &back, &error) != 0 || back.size != n ||
                            (n && memcmp(back.data, rest, n) != 0))
                                abort();
                }
                break;
        case 6:
                r = service_load(&s, &c, fields[0], fields[1], &out, &error);
                break;
        default:
                r = service_remove(&s, &c, fields[0], fields[1], &error);
                break;
        }
        check(r);
        buffer_wipe(&out);
        buffer_wipe(&back);
        /* The store does not grow from one input to the next. */
        nftw(store_dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
        return 0;
}
