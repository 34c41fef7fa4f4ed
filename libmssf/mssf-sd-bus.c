/*
 * libmssf for sd-bus: CheckToken through sd_bus, blocking
 * (sd_bus_call_method) or not (sd_bus_call_method_async), for a
 * connection by unique name or for the sender of a message.
 *
 * What it trusts: the message bus, and nothing else. A bus writes the
 * sender of every message it delivers and answers as org.freedesktop.DBus,
 * a name no client can own; so the sender of a message is the bus's word,
 * and so is an answer from org.freedesktop.DBus. On a peer-to-peer
 * connection (sd_bus_set_fd(), a server, an address without
 * sd_bus_set_bus_client()) the peer writes the sender of its messages
 * itself and receives whatever is sent "to org.freedesktop.DBus": it
 * would answer CheckToken itself. So libmssf asks only when
 * sd_bus_is_bus_client(), and believes only a reply whose sender is
 * org.freedesktop.DBus; anything else is NotABus (-EMEDIUMTYPE). sd-bus
 * writes that sender on the errors it makes up itself (a timeout, a
 * hang-up), so those keep their own errno. sd_bus_call() keeps an error
 * reply to itself, so the blocking form reports an error reply as it
 * came: not held either way. A bus the service chose to connect to is
 * trusted as its bus, as for everything else the service does.
 *
 * Fail closed: 1 only from the bus's "b" reply that says true. The bus's
 * error names get errno values of their own (sd_bus_error_add_map(),
 * once) so that callers can switch on the return value; a driver that
 * does not know CheckToken becomes NotSupported. Arguments that cannot be
 * a question are refused before anything is sent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mssf-private.h"
#include "mssf/mssf-sd-bus.h"

static const sd_bus_error_map mssf_error_map[] = {
        SD_BUS_ERROR_MAP(MSSF_ERROR_NAME_SMACK_DISABLED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(MSSF_ERROR_NAME_NO_LABEL, ENODATA),
        SD_BUS_ERROR_MAP(MSSF_ERROR_NAME_POLICY_OUTDATED, ESTALE),
        SD_BUS_ERROR_MAP(MSSF_ERROR_NAME_NOT_SUPPORTED, EPROTONOSUPPORT),
        /* Not ENOTCONN: sd-bus says that of a closed connection. "Wrong medium type": no bus. */
        SD_BUS_ERROR_MAP(MSSF_ERROR_NAME_NOT_A_BUS, EMEDIUMTYPE),
        SD_BUS_ERROR_MAP_END
};

/* sd-bus keeps the maps it was given; adding one twice is a no-op. */
static int add_error_map(void) {
        int r = sd_bus_error_add_map(mssf_error_map);

        return r < 0 ? r : 0;
}

/* -EMEDIUMTYPE (ret_error set) unless bus is a message bus connection: only a bus vouches for a sender. */
static int check_bus(sd_bus *bus, const char *name, const char *token, sd_bus_error *ret_error) {
        int r = sd_bus_is_bus_client(bus);

        if (r < 0)
                return sd_bus_error_set_errnof(ret_error, -r,
                                               "Cannot tell whether the connection is to a bus: %m");
        if (r == 0)
                return sd_bus_error_setf(ret_error, MSSF_ERROR_NAME_NOT_A_BUS,
                                         "Cannot ask whether %s holds %s: the connection is peer-to-peer, "
                                         "not to a message bus, so nobody can vouch for the sender of a "
                                         "message, nor answer", name ? name : "(null)", token ? token : "(null)");
        return 0;
}

static int check_arguments(const char *name, const char *token, sd_bus_error *ret_error) {
        const char *problem = mssf_check_name(name);

        if (problem)
                return sd_bus_error_setf(ret_error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Cannot ask whether \"%s\" holds a token: %s",
                                         name ? name : "(null)", problem);
        problem = mssf_check_token_name(token);
        if (problem)
                return sd_bus_error_setf(ret_error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Cannot ask whether %s holds \"%s\": %s", name,
                                         token ? token : "(null)", problem);
        return 0;
}

/* The bus's error (error, freed here) as the caller sees it: its own errno, NotSupported unified. */
static int translate_error(sd_bus_error *error, int r, sd_bus_error *ret_error) {
        if (sd_bus_error_is_set(error) &&
            mssf_error_kind_from_name(error->name) == MSSF_KIND_NOT_SUPPORTED) {
                r = sd_bus_error_setf(ret_error, MSSF_ERROR_NAME_NOT_SUPPORTED, MSSF_NOT_SUPPORTED_TEXT " (%s)",
                                      error->name);
                sd_bus_error_free(error);
                return r;
        }
        if (!sd_bus_error_is_set(error))
                /* sd-bus's own failure: the connection, a timeout, memory. */
                return sd_bus_error_set_errnof(ret_error, r < 0 ? -r : EIO,
                                               "Cannot ask the bus whether a token is held: %m");
        r = -sd_bus_error_get_errno(error);
        sd_bus_error_move(ret_error, error);
        return r < 0 ? r : -EIO;
}

/* A reply to CheckToken: 1 or 0, or a negative errno (ret_error set). */
static int read_answer(sd_bus_message *reply, sd_bus_error *ret_error) {
        const char *sender = sd_bus_message_get_sender(reply);
        int held = 0, r;

        /* Before anything in it is read: an error from someone else is no more the bus's than a yes. */
        if (!sender || strcmp(sender, MSSF_BUS_DRIVER_NAME) != 0)
                return sd_bus_error_setf(ret_error, MSSF_ERROR_NAME_NOT_A_BUS,
                                         "Cannot tell whether a token is held: the answer came from %s, not from "
                                         "the bus (" MSSF_BUS_DRIVER_NAME ")",
                                         sender ? sender : "a peer that named no sender");
        if (sd_bus_message_is_method_error(reply, NULL)) {
                sd_bus_error error = SD_BUS_ERROR_NULL;

                r = sd_bus_error_copy(&error, sd_bus_message_get_error(reply));
                return translate_error(&error, r, ret_error);
        }
        /* Anything but exactly one boolean is no answer (an empty reply must not read as "no"). */
        r = sd_bus_message_has_signature(reply, "b") ? sd_bus_message_read(reply, "b", &held) : -EBADMSG;
        if (r <= 0)
                return sd_bus_error_set_errnof(ret_error, r < 0 ? -r : EBADMSG,
                                               "The bus's answer to CheckToken is not a boolean");
        return held ? 1 : 0;
}

int mssf_sd_bus_check_token(sd_bus *bus, const char *name, const char *token, sd_bus_error *ret_error) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        if (!bus)
                return sd_bus_error_set_errnof(ret_error, EINVAL, "No bus to ask");
        /* First: the errno of libmssf's own error names comes from the map. */
        r = add_error_map();
        if (r < 0)
                return sd_bus_error_set_errno(ret_error, r);
        r = check_bus(bus, name, token, ret_error);
        if (r < 0)
                return r;
        r = check_arguments(name, token, ret_error);
        if (r < 0)
                return r;
        r = sd_bus_call_method(bus, MSSF_BUS_DRIVER_NAME, MSSF_BUS_DRIVER_PATH, MSSF_BUS_INTERFACE,
                               "CheckToken", &error, &reply, "ss", name, token);
        if (r < 0)
                return translate_error(&error, r, ret_error);
        r = read_answer(reply, ret_error);
        sd_bus_message_unref(reply);
        return r;
}

/*
 * The bus and sender of m; -EMEDIUMTYPE (ret_error set) when m came over
 * a peer-to-peer connection, whose peer wrote its sender, -EINVAL when it
 * has no sender or no bus.
 */
static int message_caller(sd_bus_message *m, sd_bus **ret_bus, const char **ret_sender, sd_bus_error *ret_error) {
        const char *sender = m ? sd_bus_message_get_sender(m) : NULL;
        sd_bus *bus = m ? sd_bus_message_get_bus(m) : NULL;
        int r = add_error_map();

        if (r < 0)
                return sd_bus_error_set_errno(ret_error, r);
        if (bus && sd_bus_is_bus_client(bus) == 0)
                return sd_bus_error_setf(ret_error, MSSF_ERROR_NAME_NOT_A_BUS,
                                         "Cannot ask whether the sender%s%s of a message holds a token: the "
                                         "message came over a peer-to-peer connection, not through a message "
                                         "bus, so its sender is whatever the peer wrote",
                                         sender ? " " : "", sender ? sender : "");
        if (!sender || !bus)
                return sd_bus_error_setf(ret_error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Cannot ask whether the sender of a message holds a token: the "
                                         "message has no sender (it did not come through a message bus)");
        *ret_bus = bus;
        *ret_sender = sender;
        return 0;
}

int mssf_sd_bus_message_check_token(sd_bus_message *m, const char *token, sd_bus_error *ret_error) {
        const char *sender = NULL;
        sd_bus *bus = NULL;
        int r = message_caller(m, &bus, &sender, ret_error);

        return r < 0 ? r : mssf_sd_bus_check_token(bus, sender, token, ret_error);
}

typedef struct Question {
        mssf_sd_bus_check_token_handler_t callback;
        void *userdata;
} Question;

static int question_answered(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        const Question *q = userdata;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int held = read_answer(reply, &error), r;

        r = q->callback(held, held < 0 ? &error : NULL, q->userdata);
        sd_bus_error_free(&error);
        return r;
}

static void question_free(void *userdata) {
        free(userdata);
}

int mssf_sd_bus_check_token_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *name, const char *token,
                                  mssf_sd_bus_check_token_handler_t callback, void *userdata) {
        sd_bus_slot *slot = NULL;
        Question *q;
        int r;

        if (!bus || !callback)
                return -EINVAL;
        r = add_error_map();
        if (r < 0)
                return r;
        r = check_bus(bus, name, token, NULL);
        if (r < 0)
                return r;
        r = check_arguments(name, token, NULL);
        if (r < 0)
                return r;
        q = malloc(sizeof(*q));
        if (!q)
                return -ENOMEM;
        *q = (Question) { .callback = callback, .userdata = userdata };
        r = sd_bus_call_method_async(bus, &slot, MSSF_BUS_DRIVER_NAME, MSSF_BUS_DRIVER_PATH, MSSF_BUS_INTERFACE,
                                     "CheckToken", question_answered, q, "ss", name, token);
        if (r < 0) {
                free(q);
                return r;
        }
        /* The slot owns q from here on, whoever ends it. */
        sd_bus_slot_set_destroy_callback(slot, question_free);
        if (ret_slot)
                *ret_slot = slot;
        else {
                sd_bus_slot_set_floating(slot, 1);
                sd_bus_slot_unref(slot);
        }
        return 0;
}

int mssf_sd_bus_message_check_token_async(sd_bus_message *m, sd_bus_slot **ret_slot, const char *token,
                                          mssf_sd_bus_check_token_handler_t callback, void *userdata) {
        const char *sender = NULL;
        sd_bus *bus = NULL;
        int r = message_caller(m, &bus, &sender, NULL);

        return r < 0 ? r : mssf_sd_bus_check_token_async(bus, ret_slot, sender, token, callback, userdata);
}
