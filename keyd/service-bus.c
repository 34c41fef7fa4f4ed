/*
 * org.mssf.Keys1 on the system bus: the glue between D-Bus and
 * service.c.
 *
 * Who the caller is comes from the bus and from nothing the caller says:
 * the sender of the call (written by the bus), its Smack label from
 * org.freedesktop.DBus.GetConnectionCredentials (the kernel's SO_PEERSEC
 * at connect time, which never changes for a connection), and whether it
 * holds a token from org.mssf.Broker1.CheckToken, asked while the call
 * waits for our reply (the bus lets a service ask about its caller, and
 * the device policy's "checkany" line lets this service ask for any
 * token). Labels are cached by unique name, which a bus never gives
 * twice; token answers are never cached, so a revoked grant is seen by
 * the next call.
 *
 * The bus itself is checked once, at start: it must give labels and
 * answer CheckToken (mssf-broker with Smack). Otherwise the service
 * stays on the bus and refuses every call with Unmediated, by name, so
 * an app learns why rather than getting keys that protect nothing.
 *
 * Replies: blobs, signatures, plaintexts the caller sent, random bytes,
 * names, the mode. Never key material. The buffers that held a
 * plaintext are wiped once the reply is queued.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mssf/mssf-crypto.h"
#include "service-bus.h"

#define BUS_DRIVER "org.freedesktop.DBus"
#define BUS_DRIVER_PATH "/org/freedesktop/DBus"
#define BROKER_INTERFACE "org.mssf.Broker1"

/* The connection's label from GetConnectionCredentials: 1 found, 0 none, or -errno. */
static int ask_label(sd_bus *bus, const char *name, char *label, size_t size, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r, found = 0;

        r = sd_bus_call_method(bus, BUS_DRIVER, BUS_DRIVER_PATH, BUS_DRIVER, "GetConnectionCredentials", error,
                               &reply, "s", name);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        while (r > 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *key;
                const void *bytes;
                size_t n;

                if ((r = sd_bus_message_read(reply, "s", &key)) < 0)
                        return r;
                if (strcmp(key, "LinuxSecurityLabel") != 0) {
                        r = sd_bus_message_skip(reply, "v");
                } else if ((r = sd_bus_message_enter_container(reply, 'v', "ay")) >= 0 &&
                           (r = sd_bus_message_read_array(reply, 'y', &bytes, &n)) >= 0) {
                        /* The bus sends the label with its NUL, as dbus-daemon does. */
                        if (n > 0 && ((const char *) bytes)[n - 1] == '\0')
                                n--;
                        if (n > 0 && n < size && !memchr(bytes, '\0', n)) {
                                memcpy(label, bytes, n);
                                label[n] = '\0';
                                found = 1;
                        }
                        r = sd_bus_message_exit_container(reply);
                }
                if (r < 0 || (r = sd_bus_message_exit_container(reply)) < 0)
                        return r;
        }
        return r < 0 ? r : found;
}

/* The caller's label: cached, or asked. "" when it has none. */
static int caller_label(KeydBus *k, const char *sender, const char **ret, KeydError *error) {
        _cleanup_(sd_bus_error_free) sd_bus_error bus_error = SD_BUS_ERROR_NULL;
        KeydLabelEntry *e;
        int r;

        for (unsigned i = 0; i < KEYD_LABEL_CACHE_SIZE; i++)
                if (strcmp(k->labels[i].unique_name, sender) == 0) {
                        *ret = k->labels[i].label;
                        return 0;
                }
        e = &k->labels[k->next_label];
        memset(e, 0, sizeof(*e));
        r = ask_label(k->bus, sender, e->label, sizeof(e->label), &bus_error);
        if (r < 0)
                return keyd_fail(error, r, "the bus did not say who the caller is: %s",
                                 bus_error.message ? bus_error.message : strerror(-r));
        snprintf(e->unique_name, sizeof(e->unique_name), "%s", sender);
        k->next_label = (k->next_label + 1) % KEYD_LABEL_CACHE_SIZE;
        *ret = e->label;
        return 0;
}

typedef struct TokenQuestion {
        KeydBus *k;
        const char *sender;
} TokenQuestion;

/* CheckToken(sender, token), asked now; the bus's refusals sorted into the service's errors. */
static int holds_token(const char *token, bool *ret_held, void *userdata, KeydError *error) {
        _cleanup_(sd_bus_error_free) sd_bus_error bus_error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        TokenQuestion *q = userdata;
        int held = 0, r;

        r = sd_bus_call_method(q->k->bus, BUS_DRIVER, BUS_DRIVER_PATH, BROKER_INTERFACE, "CheckToken",
                               &bus_error, &reply, "ss", q->sender, token);
        if (r >= 0 && (r = sd_bus_message_read(reply, "b", &held)) >= 0) {
                *ret_held = held != 0;
                return 0;
        }
        if (sd_bus_error_has_name(&bus_error, SD_BUS_ERROR_ACCESS_DENIED))
                return keyd_fail(error, KEYD_E_NOT_CONFIGURED,
                                 "the bus does not let the key service ask whether its callers hold a token: "
                                 "the device policy needs \"checkany <the service's label>\" (docs/keyd.md)");
        if (sd_bus_error_has_names(&bus_error, "org.mssf.Broker1.Error.SmackDisabled",
                                   SD_BUS_ERROR_UNKNOWN_METHOD, SD_BUS_ERROR_UNKNOWN_INTERFACE))
                return keyd_fail(error, KEYD_E_UNMEDIATED, "the bus cannot say who holds a token: %s",
                                 bus_error.message ? bus_error.message : "no Smack");
        if (sd_bus_error_has_name(&bus_error, "org.mssf.Broker1.Error.NoLabel"))
                return keyd_fail(error, KEYD_E_NO_LABEL, "the caller has no Smack label");
        if (sd_bus_error_has_name(&bus_error, SD_BUS_ERROR_INVALID_ARGS))
                return keyd_fail(error, KEYD_E_INVALID_ARGS, "%s", bus_error.message ? bus_error.message : "");
        if (sd_bus_error_has_name(&bus_error, "org.mssf.Broker1.Error.PolicyOutdated"))
                return keyd_fail(error, KEYD_E_NOT_CONFIGURED, "%s", bus_error.message ? bus_error.message : "");
        return keyd_fail(error, -EIO, "the bus could not say whether the caller holds %s: %s", token,
                         bus_error.message ? bus_error.message : strerror(r < 0 ? -r : EIO));
}

/* The caller of m, as the bus knows it. */
static int begin_call(KeydBus *k, sd_bus_message *m, ServiceCaller *caller, TokenQuestion *q,
                      KeydError *error) {
        const char *sender = sd_bus_message_get_sender(m), *label = NULL;
        int r;

        if (!k->mediated)
                return keyd_fail(error, KEYD_E_UNMEDIATED, "%s", k->mediation.message);
        /* Only a bus writes senders; a call without one did not come through it. */
        if (!sender)
                return keyd_fail(error, KEYD_E_UNMEDIATED, "a call that did not come through the bus");
        r = caller_label(k, sender, &label, error);
        if (r != 0)
                return r;
        *q = (TokenQuestion) { .k = k, .sender = sender };
        *caller = (ServiceCaller) { .label = label[0] ? label : NULL, .holds_token = holds_token, .userdata = q };
        return 0;
}

/* The outcome of a call: its reply (bytes, or none), or its error by name. */
static int finish_call(sd_bus_message *m, int r, const KeydError *error, Buffer *out, bool has_bytes) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

        if (r != 0) {
                buffer_wipe(out);
                return sd_bus_reply_method_errorf(m, keyd_error_name(r), "%s",
                                                  error->message[0] ? error->message : strerror(r < 0 ? -r : EIO));
        }
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0 && has_bytes)
                r = sd_bus_message_append_array(reply, 'y', out->data, out->size);
        buffer_wipe(out);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

static int read_bytes(sd_bus_message *m, const uint8_t **ret, size_t *ret_size) {
        const void *p = NULL;
        int r = sd_bus_message_read_array(m, 'y', &p, ret_size);

        *ret = p;
        return r;
}

/* Encrypt and Sign: a key reference and bytes in, bytes out. */
typedef int (*KeyDataOp)(const Service *s, const ServiceCaller *caller, const char *key, const uint8_t *data,
                         size_t size, Buffer *ret, KeydError *error);

static int method_key_data(sd_bus_message *m, KeydBus *k, KeyDataOp op) {
        KeydError error = { 0 };
        ServiceCaller caller;
        TokenQuestion q;
        const uint8_t *data;
        const char *key;
        Buffer out = { 0 };
        size_t size;
        int r;

        if ((r = sd_bus_message_read(m, "s", &key)) < 0 || (r = read_bytes(m, &data, &size)) < 0)
                return r;
        r = begin_call(k, m, &caller, &q, &error);
        if (r == 0)
                r = op(k->service, &caller, key, data, size, &out, &error);
        return finish_call(m, r, &error, &out, true);
}

static int method_encrypt(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        return method_key_data(m, userdata, service_encrypt);
}

static int method_decrypt(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        KeydBus *k = userdata;
        KeydError error = { 0 };
        ServiceCaller caller;
        TokenQuestion q;
        const uint8_t *blob;
        Buffer out = { 0 };
        size_t size;
        int r;

        if ((r = read_bytes(m, &blob, &size)) < 0)
                return r;
        r = begin_call(k, m, &caller, &q, &error);
        if (r == 0)
                r = service_decrypt(k->service, &caller, blob, size, &out, &error);
        return finish_call(m, r, &error, &out, true);
}

static int method_sign(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        return method_key_data(m, userdata, service_sign);
}

static int method_verify(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        KeydBus *k = userdata;
        KeydError error = { 0 };
        ServiceCaller caller;
        ServiceSigner signer;
        TokenQuestion q;
        const uint8_t *data, *signature;
        size_t size, signature_size;
        char key[KEYREF_FORMAT_MAX];
        Buffer none = { 0 };
        int r;

        if ((r = read_bytes(m, &data, &size)) < 0 || (r = read_bytes(m, &signature, &signature_size)) < 0)
                return r;
        r = begin_call(k, m, &caller, &q, &error);
        if (r == 0)
                r = service_verify(k->service, &caller, data, size, signature, signature_size, &signer, &error);
        if (r != 0)
                return finish_call(m, r, &error, &none, false);
        keyref_format(&signer.key, key, sizeof(key));
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "sss", key, signer.signer, root_mode_to_string(signer.mode));
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

static int method_random(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        KeydBus *k = userdata;
        KeydError error = { 0 };
        ServiceCaller caller;
        TokenQuestion q;
        Buffer out = { 0 };
        uint32_t size;
        int r;

        if ((r = sd_bus_message_read(m, "u", &size)) < 0)
                return r;
        r = begin_call(k, m, &caller, &q, &error);
        if (r == 0)
                r = service_random(k->service, &caller, size, &out, &error);
        return finish_call(m, r, &error, &out, true);
}

static int method_store(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        KeydBus *k = userdata;
        KeydError error = { 0 };
        ServiceCaller caller;
        TokenQuestion q;
        const char *key, *name;
        const uint8_t *data;
        Buffer none = { 0 };
        size_t size;
        int r;

        if ((r = sd_bus_message_read(m, "ss", &key, &name)) < 0 || (r = read_bytes(m, &data, &size)) < 0)
                return r;
        r = begin_call(k, m, &caller, &q, &error);
        if (r == 0)
                r = service_store(k->service, &caller, key, name, data, size, &error);
        return finish_call(m, r, &error, &none, false);
}

static int method_load(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        KeydBus *k = userdata;
        KeydError error = { 0 };
        ServiceCaller caller;
        TokenQuestion q;
        const char *key, *name;
        Buffer out = { 0 };
        int r;

        if ((r = sd_bus_message_read(m, "ss", &key, &name)) < 0)
                return r;
        r = begin_call(k, m, &caller, &q, &error);
        if (r == 0)
                r = service_load(k->service, &caller, key, name, &out, &error);
        return finish_call(m, r, &error, &out, true);
}

static int method_remove(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        KeydBus *k = userdata;
        KeydError error = { 0 };
        ServiceCaller caller;
        TokenQuestion q;
        const char *key, *name;
        Buffer none = { 0 };
        int r;

        if ((r = sd_bus_message_read(m, "ss", &key, &name)) < 0)
                return r;
        r = begin_call(k, m, &caller, &q, &error);
        if (r == 0)
                r = service_remove(k->service, &caller, key, name, &error);
        return finish_call(m, r, &error, &none, false);
}

static int property_mode(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        KeydBus *k = userdata;

        return sd_bus_message_append(reply, "s", k->service->root ?
                                     root_mode_to_string(rootkey_mode(k->service->root)) : "none");
}

/* "ready", or the error that stops every call, as the last element of its D-Bus name ("RootKeyLost"). */
static int property_state(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        KeydBus *k = userdata;
        const char *name, *dot;

        if (!k->mediated)
                name = keyd_error_name(KEYD_E_UNMEDIATED);
        else if (!k->service->root)
                name = keyd_error_name(k->service->state.code);
        else
                return sd_bus_message_append(reply, "s", "ready");
        dot = strrchr(name, '.');
        return sd_bus_message_append(reply, "s", dot ? dot + 1 : name);
}

static int property_max_input(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        return sd_bus_message_append(reply, "u", (uint32_t) SERVICE_MAX_INPUT);
}

static int property_tpm_commands(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        KeydBus *k = userdata;

        return sd_bus_message_append(reply, "t", k->tpm_commands);
}

static const sd_bus_vtable keys_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("Encrypt", SD_BUS_ARGS("s", key, "ay", data), SD_BUS_RESULT("ay", blob),
                                method_encrypt, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Decrypt", SD_BUS_ARGS("ay", blob), SD_BUS_RESULT("ay", data),
                                method_decrypt, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Sign", SD_BUS_ARGS("s", key, "ay", data), SD_BUS_RESULT("ay", signature),
                                method_sign, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Verify", SD_BUS_ARGS("ay", data, "ay", signature),
                                SD_BUS_RESULT("s", key, "s", signer, "s", mode), method_verify,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetRandom", SD_BUS_ARGS("u", size), SD_BUS_RESULT("ay", data),
                                method_random, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Store", SD_BUS_ARGS("s", key, "s", name, "ay", data), SD_BUS_NO_RESULT,
                                method_store, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Load", SD_BUS_ARGS("s", key, "s", name), SD_BUS_RESULT("ay", data),
                                method_load, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Remove", SD_BUS_ARGS("s", key, "s", name), SD_BUS_NO_RESULT,
                                method_remove, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Mode", "s", property_mode, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("State", "s", property_state, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("MaxInput", "u", property_max_input, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("TpmCommands", "t", property_tpm_commands, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
};

/* Whether the bus mediates: it gives our label, and answers CheckToken about us. */
static void check_mediation(KeydBus *k) {
        _cleanup_(sd_bus_error_free) sd_bus_error bus_error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *self = NULL;
        char label[256];
        int r;

        k->mediated = false;
        if (sd_bus_get_unique_name(k->bus, &self) < 0 || !self) {
                keyd_fail(&k->mediation, KEYD_E_UNMEDIATED, "the key service is not on a message bus");
                return;
        }
        r = ask_label(k->bus, self, label, sizeof(label), &bus_error);
        if (r <= 0) {
                keyd_fail(&k->mediation, KEYD_E_UNMEDIATED,
                          "the bus gives no Smack labels (%s): it runs without Smack, so it cannot say who "
                          "a caller is, and the key service refuses every call",
                          r < 0 && bus_error.message ? bus_error.message : "none for the key service itself");
                return;
        }
        sd_bus_error_free(&bus_error);
        r = sd_bus_call_method(k->bus, BUS_DRIVER, BUS_DRIVER_PATH, BROKER_INTERFACE, "CheckToken", &bus_error,
                               &reply, "ss", self, label);
        if (r < 0) {
                keyd_fail(&k->mediation, KEYD_E_UNMEDIATED,
                          "the bus does not answer org.mssf.Broker1.CheckToken (%s): it is not mssf-broker with "
                          "Smack, so nobody checks tokens, and the key service refuses every call",
                          bus_error.name ? bus_error.name : strerror(-r));
                return;
        }
        k->mediated = true;
        k->mediation = (KeydError) { 0 };
}

int keyd_bus_start(KeydBus *k, sd_bus *bus, Service *service, uint64_t tpm_commands) {
        *k = (KeydBus) { .bus = bus, .service = service, .tpm_commands = tpm_commands };
        check_mediation(k);
        return sd_bus_add_object_vtable(bus, &k->slot, KEYD_BUS_PATH, KEYD_BUS_INTERFACE, keys_vtable, k);
}

void keyd_bus_stop(KeydBus *k) {
        k->slot = sd_bus_slot_unref(k->slot);
}
