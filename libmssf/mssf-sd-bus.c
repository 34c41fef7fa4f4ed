/*
 * libmssf for sd-bus: CheckToken through sd_bus, blocking
 * (sd_bus_call_method) or not (sd_bus_call_method_async), for a
 * connection by unique name or for the sender of a message.
 *
 * Fail closed: 1 only from a "b" reply that says true. The bus's error
 * names get errno values of their own (sd_bus_error_add_map(), once) so
 * that callers can switch on the return value; a driver that does not
 * know CheckToken becomes NotSupported. Arguments that cannot be a
 * question are refused before anything is sent.
 */
#include <errno.h>
#include <stdlib.h>

#include "mssf-private.h"
#include "mssf/mssf-sd-bus.h"

static const sd_bus_error_map mssf_error_map[] = {
        SD_BUS_ERROR_MAP(MSSF_ERROR_NAME_SMACK_DISABLED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(MSSF_ERROR_NAME_NO_LABEL, ENODATA),
        SD_BUS_ERROR_MAP(MSSF_ERROR_NAME_POLICY_OUTDATED, ESTALE),
        SD_BUS_ERROR_MAP(MSSF_ERROR_NAME_NOT_SUPPORTED, EPROTONOSUPPORT),
        SD_BUS_ERROR_MAP_END
};

/* sd-bus keeps the maps it was given; adding one twice is a no-op. */
static int add_error_map(void) {
        int r = sd_bus_error_add_map(mssf_error_map);

        return r < 0 ? r : 0;
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
        int held = 0, r;

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
        r = check_arguments(name, token, ret_error);
        if (r < 0)
                return r;
        r = add_error_map();
        if (r < 0)
                return sd_bus_error_set_errno(ret_error, r);
        r = sd_bus_call_method(bus, MSSF_BUS_DRIVER_NAME, MSSF_BUS_DRIVER_PATH, MSSF_BUS_INTERFACE,
                               "CheckToken", &error, &reply, "ss", name, token);
        if (r < 0)
                return translate_error(&error, r, ret_error);
        r = read_answer(reply, ret_error);
        sd_bus_message_unref(reply);
        return r;
}

/* The bus and sender of m; -EINVAL (ret_error set) when it did not come through a bus. */
static int message_caller(sd_bus_message *m, sd_bus **ret_bus, const char **ret_sender, sd_bus_error *ret_error) {
        const char *sender = m ? sd_bus_message_get_sender(m) : NULL;
        sd_bus *bus = m ? sd_bus_message_get_bus(m) : NULL;

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

        if (!bus || !callback || check_arguments(name, token, NULL) < 0)
                return -EINVAL;
        r = add_error_map();
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
