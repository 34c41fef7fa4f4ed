/*
 * libmssf's privacy calls: the key service (mssf-keyd, org.mssf.Keys1)
 * asked over the system bus, in the spirit of libaegis-crypto: the app
 * names a key ("mine", or a token's) and hands over bytes; it never
 * handles a key, and cannot.
 *
 * What it trusts: the system bus, and the name org.mssf.Keys1 on it
 * (owned only by the key service's label: its manifest, and busconfig).
 * It sends nothing but what the caller gives, and refuses before sending
 * what the service would refuse by size alone, with the limit in words.
 *
 * Each thread keeps its own connection (sd-bus's default system bus of
 * the thread), made on first use and again after it closed; a call
 * blocks for one round trip. The service's error names get errno values
 * of their own (sd_bus_error_add_map(), once), listed in
 * <mssf/mssf-crypto.h>; the words of the last error are kept per thread.
 * Buffers handed out are plain malloc() memory the caller frees with
 * mssf_crypto_free(), which wipes them: a plaintext is a secret.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "mssf/mssf-crypto.h"

#define TOKEN_PREFIX "token:"
#define ERROR_TEXT_SIZE 768

static const sd_bus_error_map crypto_error_map[] = {
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_FAILED, EIO),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_TOO_LARGE, EMSGSIZE),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_NO_LABEL, ENODATA),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_UNMEDIATED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_KEY_NOT_AVAILABLE, EACCES),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_NOT_CONFIGURED, EPERM),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_MALFORMED, EBADMSG),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_UNSUPPORTED_VERSION, EPROTO),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_OTHER_ROOT, ENOKEY),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_ALTERED, EKEYREJECTED),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_BAD_SIGNATURE, EKEYREJECTED),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_NO_SUCH_ITEM, ENOENT),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_QUOTA, EDQUOT),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_ROOT_KEY_LOST, EKEYREVOKED),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_FOREIGN_TPM, EXDEV),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_TPM_UNAVAILABLE, ENODEV),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_TPM_LOCKOUT, EBUSY),
        SD_BUS_ERROR_MAP(MSSF_CRYPTO_ERROR_STATE_DAMAGED, EUCLEAN),
        SD_BUS_ERROR_MAP_END
};

static __thread sd_bus *thread_bus;
static __thread char last_error[ERROR_TEXT_SIZE];

const char *mssf_crypto_last_error(void) {
        return last_error;
}

static int fail(int r, const char *format, ...) __attribute__((format(printf, 2, 3)));
static int fail(int r, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        vsnprintf(last_error, sizeof(last_error), format, ap);
        va_end(ap);
        return r;
}

/* This thread's connection to the system bus, made (again) when there is none open. */
static int get_bus(sd_bus **ret) {
        int r = sd_bus_error_add_map(crypto_error_map);

        if (r < 0)
                return fail(r, "cannot register the key service's errors: %s", strerror(-r));
        if (thread_bus && sd_bus_is_open(thread_bus) <= 0)
                thread_bus = sd_bus_flush_close_unref(thread_bus);
        if (!thread_bus) {
                r = sd_bus_open_system(&thread_bus);
                if (r < 0)
                        return fail(r, "cannot connect to the system bus: %s", strerror(-r));
        }
        *ret = thread_bus;
        return 0;
}

static int new_call(const char *method, sd_bus_message **ret) {
        sd_bus *bus;
        int r = get_bus(&bus);

        if (r < 0)
                return r;
        r = sd_bus_message_new_method_call(bus, ret, MSSF_CRYPTO_SERVICE, MSSF_CRYPTO_PATH,
                                           MSSF_CRYPTO_INTERFACE, method);
        return r < 0 ? fail(r, "cannot make the call: %s", strerror(-r)) : 0;
}

/* Sends m, waits for the reply: 0 with *ret, or the service's error as errno (its words kept). */
static int send_call(sd_bus_message *m, sd_bus_message **ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sd_bus_call(NULL, m, 0, &error, ret);

        if (r < 0) {
                fail(r, "%s: %s", error.name ? error.name : "error",
                     error.message ? error.message : strerror(-r));
                sd_bus_error_free(&error);
                return r;
        }
        last_error[0] = '\0';
        return 0;
}

/* "" for the caller's own key, "token:T" for a token's. */
static int key_name(const char *token, char *buf, size_t size) {
        if (!token) {
                buf[0] = '\0';
                return 0;
        }
        if (!token[0] || strlen(token) > 255)
                return fail(-EINVAL, "a token is named by its Smack label, 1-255 bytes");
        snprintf(buf, size, TOKEN_PREFIX "%s", token);
        return 0;
}

static int check_input(const void *data, size_t len, size_t max, const char *what) {
        if (!data && len > 0)
                return fail(-EINVAL, "no %s", what);
        if (len > max)
                return fail(-EMSGSIZE, "%s: %s of %zu bytes is over the limit of %zu bytes",
                            MSSF_CRYPTO_ERROR_TOO_LARGE, what, len, max);
        return 0;
}

/* The reply's one "ay", copied out. */
static int read_bytes(sd_bus_message *reply, void **ret, size_t *ret_len) {
        const void *p = NULL;
        size_t n = 0;
        void *copy;
        int r = sd_bus_message_read_array(reply, 'y', &p, &n);

        if (r < 0)
                return fail(r, "the key service's reply is not what it should be");
        copy = malloc(n ? n : 1);
        if (!copy)
                return fail(-ENOMEM, "no memory for the reply");
        if (n)
                memcpy(copy, p, n);
        *ret = copy;
        *ret_len = n;
        return 0;
}

/* method(s key, ay data) -> ay: Encrypt and Sign. */
static int keyed_bytes(const char *method, const void *data, size_t len, const char *token, void **ret,
                       size_t *ret_len, const char *what) {
        sd_bus_message *m = NULL, *reply = NULL;
        char key[sizeof(TOKEN_PREFIX) + 256];
        int r;

        if (!ret || !ret_len)
                return fail(-EINVAL, "nowhere to put the result");
        if ((r = check_input(data, len, MSSF_CRYPTO_MAX_INPUT, what)) < 0 || (r = key_name(token, key, sizeof(key))) < 0 ||
            (r = new_call(method, &m)) < 0)
                return r;
        if ((r = sd_bus_message_append(m, "s", key)) < 0 || (r = sd_bus_message_append_array(m, 'y', data, len)) < 0)
                r = fail(r, "cannot make the call: %s", strerror(-r));
        else if ((r = send_call(m, &reply)) == 0)
                r = read_bytes(reply, ret, ret_len);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return r;
}

int mssf_crypto_encrypt(const void *data, size_t len, const char *token, void **ret_out, size_t *ret_out_len) {
        return keyed_bytes("Encrypt", data, len, token, ret_out, ret_out_len, "a plaintext");
}

int mssf_crypto_sign(const void *data, size_t len, const char *token, void **ret_signature,
                     size_t *ret_signature_len) {
        return keyed_bytes("Sign", data, len, token, ret_signature, ret_signature_len, "data to sign");
}

int mssf_crypto_decrypt(const void *blob, size_t len, void **ret_out, size_t *ret_out_len) {
        sd_bus_message *m = NULL, *reply = NULL;
        int r;

        if (!ret_out || !ret_out_len)
                return fail(-EINVAL, "nowhere to put the plaintext");
        if ((r = check_input(blob, len, MSSF_CRYPTO_MAX_INPUT + 1024, "a blob")) < 0 ||
            (r = new_call("Decrypt", &m)) < 0)
                return r;
        if ((r = sd_bus_message_append_array(m, 'y', blob, len)) < 0)
                r = fail(r, "cannot make the call: %s", strerror(-r));
        else if ((r = send_call(m, &reply)) == 0)
                r = read_bytes(reply, ret_out, ret_out_len);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return r;
}

static MssfCryptoMode mode_from_string(const char *s) {
        if (s && strcmp(s, "tpm") == 0)
                return MSSF_CRYPTO_MODE_TPM;
        if (s && strcmp(s, "software") == 0)
                return MSSF_CRYPTO_MODE_SOFTWARE;
        return MSSF_CRYPTO_MODE_UNKNOWN;
}

const char *mssf_crypto_mode_to_string(MssfCryptoMode mode) {
        switch (mode) {
        case MSSF_CRYPTO_MODE_TPM:
                return "tpm";
        case MSSF_CRYPTO_MODE_SOFTWARE:
                return "software";
        case MSSF_CRYPTO_MODE_UNKNOWN:
                break;
        }
        return "unknown";
}

/* "label:NAME" or "token:NAME" into the signer. */
static int parse_signer(const char *key, const char *signer, const char *mode, MssfCryptoSigner *ret) {
        const char *colon = strchr(key, ':');

        memset(ret, 0, sizeof(*ret));
        if (!colon || strlen(colon + 1) >= sizeof(ret->key) || strlen(signer) >= sizeof(ret->signer) ||
            (strncmp(key, "label:", 6) != 0 && strncmp(key, "token:", 6) != 0))
                return fail(-EBADMSG, "the key service named the signer's key \"%s\", which is not a key name", key);
        ret->token = strncmp(key, "token:", 6) == 0;
        strcpy(ret->key, colon + 1);
        strcpy(ret->signer, signer);
        ret->mode = mode_from_string(mode);
        return 0;
}

int mssf_crypto_verify(const void *data, size_t len, const void *signature, size_t signature_len,
                       MssfCryptoSigner *ret_signer) {
        sd_bus_message *m = NULL, *reply = NULL;
        const char *key, *signer, *mode;
        MssfCryptoSigner ignored;
        int r;

        if ((r = check_input(data, len, MSSF_CRYPTO_MAX_INPUT, "signed data")) < 0 ||
            (r = check_input(signature, signature_len, 1024, "a signature")) < 0 ||
            (r = new_call("Verify", &m)) < 0)
                return r;
        if ((r = sd_bus_message_append_array(m, 'y', data, len)) < 0 ||
            (r = sd_bus_message_append_array(m, 'y', signature, signature_len)) < 0)
                r = fail(r, "cannot make the call: %s", strerror(-r));
        else if ((r = send_call(m, &reply)) == 0) {
                r = sd_bus_message_read(reply, "sss", &key, &signer, &mode);
                r = r < 0 ? fail(r, "the key service's reply is not what it should be") :
                    parse_signer(key, signer, mode, ret_signer ? ret_signer : &ignored);
        }
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return r;
}

int mssf_crypto_random(void *buf, size_t len) {
        sd_bus_message *m = NULL, *reply = NULL;
        const void *p = NULL;
        size_t n = 0;
        int r;

        if ((r = check_input(buf, len, MSSF_CRYPTO_MAX_RANDOM, "a request for random bytes")) < 0 ||
            (r = new_call("GetRandom", &m)) < 0)
                return r;
        if ((r = sd_bus_message_append(m, "u", (uint32_t) len)) < 0)
                r = fail(r, "cannot make the call: %s", strerror(-r));
        else if ((r = send_call(m, &reply)) == 0) {
                r = sd_bus_message_read_array(reply, 'y', &p, &n);
                if (r < 0 || n != len)
                        r = fail(-EBADMSG, "the key service gave %zu random bytes, not %zu", n, len);
                else if (len)
                        memcpy(buf, p, len);
        }
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return r < 0 ? r : 0;
}

/* Store, Load, Remove: (s key, s name [, ay data]). */
static int item_call(const char *method, const char *token, const char *name, const void *data, size_t len,
                     bool has_data, void **ret, size_t *ret_len) {
        sd_bus_message *m = NULL, *reply = NULL;
        char key[sizeof(TOKEN_PREFIX) + 256];
        int r;

        if (!name)
                return fail(-EINVAL, "no item name");
        if ((has_data && (r = check_input(data, len, MSSF_CRYPTO_MAX_INPUT, "an item")) < 0) ||
            (r = key_name(token, key, sizeof(key))) < 0 || (r = new_call(method, &m)) < 0)
                return r;
        if ((r = sd_bus_message_append(m, "ss", key, name)) < 0 ||
            (has_data && (r = sd_bus_message_append_array(m, 'y', data, len)) < 0))
                r = fail(r, "cannot make the call: %s", strerror(-r));
        else if ((r = send_call(m, &reply)) == 0 && ret)
                r = read_bytes(reply, ret, ret_len);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return r;
}

int mssf_crypto_store(const char *token, const char *name, const void *data, size_t len) {
        return item_call("Store", token, name, data, len, true, NULL, NULL);
}

int mssf_crypto_load(const char *token, const char *name, void **ret_data, size_t *ret_len) {
        if (!ret_data || !ret_len)
                return fail(-EINVAL, "nowhere to put the item");
        return item_call("Load", token, name, NULL, 0, false, ret_data, ret_len);
}

int mssf_crypto_remove(const char *token, const char *name) {
        return item_call("Remove", token, name, NULL, 0, false, NULL, NULL);
}

int mssf_crypto_mode(MssfCryptoMode *ret_mode) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char *mode = NULL;
        sd_bus *bus;
        int r;

        if (!ret_mode)
                return fail(-EINVAL, "nowhere to put the mode");
        if ((r = get_bus(&bus)) < 0)
                return r;
        r = sd_bus_get_property_string(bus, MSSF_CRYPTO_SERVICE, MSSF_CRYPTO_PATH, MSSF_CRYPTO_INTERFACE, "Mode",
                                       &error, &mode);
        if (r < 0) {
                fail(r, "%s: %s", error.name ? error.name : "error", error.message ? error.message : strerror(-r));
                sd_bus_error_free(&error);
                return r;
        }
        *ret_mode = mode_from_string(mode);
        free(mode);
        last_error[0] = '\0';
        return 0;
}

void mssf_crypto_free(void *p, size_t len) {
        if (!p)
                return;
        explicit_bzero(p, len);
        free(p);
}
