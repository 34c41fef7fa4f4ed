/*
 * activate-systemd: activation through systemd (--systemd-activation):
 * ActivationRequest signals and the SetEnvironment calls that
 * UpdateActivationEnvironment forwards, held back until
 * org.freedesktop.systemd1 is on the bus, as dbus-daemon queues them;
 * ActivationFailure ends the starts of its unit. Split from activate.c,
 * which owns the pending starts and their waiters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activate.h"
#include "activate-internal.h"
#include "activation.h"
#include "bus-error.h"
#include "bus.h"
#include "config.h"
#include "dispatch.h"
#include "log.h"
#include "message.h"
#include "validate.h"

#define ACTIVATE_SYSTEMD_INTERFACE "org.freedesktop.systemd1.Activator"

enum {
        ACTIVATE_E_LIMIT = 1,   /* max_pending_service_starts messages wait for systemd already */
};

static int activate_request_new(const char *unit, Message **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r;

        r = message_new_signal(BUS_DRIVER_NAME, BUS_DRIVER_PATH, ACTIVATE_SYSTEMD_INTERFACE, "ActivationRequest", &b);
        if (r == 0)
                r = message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED);
        if (r == 0)
                r = message_builder_set_destination(b, BUS_SYSTEMD_NAME);
        if (r == 0)
                r = message_builder_append_basic(b, 's', unit);
        if (r == 0)
                r = message_builder_finish(b, ret);
        return r > 0 ? -EINVAL : r;
}

/*
 * Holds m (captured already) until systemd joins, as dbus-daemon queues
 * it behind systemd's own activation; for_name: the start it is for
 * (NULL: it goes whatever becomes of starts). At most
 * max_pending_service_starts messages wait.
 */
static int activate_hold_for_systemd(Bus *bus, Message *m, const char *for_name) {
        BusActivation *a = bus->activation;
        int64_t max = bus->config->limits.max_pending_service_starts;
        BusActivationRequest *grown;
        char *name_copy = NULL;

        if (max >= 0 && a->n_backlog >= (size_t) max)
                return ACTIVATE_E_LIMIT;
        if (for_name && !(name_copy = strdup(for_name)))
                return -ENOMEM;
        grown = reallocarray(a->backlog, a->n_backlog + 1, sizeof(*grown));
        if (!grown) {
                free(name_copy);
                return -ENOMEM;
        }
        a->backlog = grown;
        a->backlog[a->n_backlog++] = (BusActivationRequest) { name_copy, message_ref(m) };
        return 0;
}

/*
 * The request is captured once, when the bus decides to send it, even
 * while systemd is not there to receive it (dbus-daemon: "log early and
 * often"), and delivered without a second capture when systemd joins.
 */
int activate_via_systemd(Bus *bus, const char *name, const char *unit) {
        _cleanup_(message_unrefp) Message *m = NULL;
        Peer *systemd = bus_lookup_peer(bus, BUS_SYSTEMD_NAME);
        int r;

        r = activate_request_new(unit, &m);
        if (r < 0)
                return r;
        if (systemd) {
                log_info("Activating via systemd: service name='%s' unit='%s'", name, unit);
                return bus_send_from_driver(bus, systemd, m);
        }
        /* As dbus-daemon: held until systemd joins; the start's timeout runs meanwhile. */
        log_info("Activating systemd to hand-off: service name='%s' unit='%s'", name, unit);
        bus_monitors_capture(bus, m, NULL);
        r = activate_hold_for_systemd(bus, m, name);
        return r == ACTIVATE_E_LIMIT ? -ENOBUFS : r;
}

/* systemd got its name: what was held back goes out, in order (requests only for starts still pending). */
void activate_flush_backlog(Bus *bus, Peer *systemd) {
        BusActivation *a = bus->activation;
        BusActivationRequest *backlog = a->backlog;
        size_t n = a->n_backlog;

        a->backlog = NULL;
        a->n_backlog = 0;
        for (size_t i = 0; i < n; i++) {
                if (!backlog[i].name || activation_is_pending(a->state, backlog[i].name)) {
                        int r = bus_deliver_from_driver(bus, systemd, backlog[i].message);

                        if (r < 0 && backlog[i].name)
                                activate_fail(bus, backlog[i].name, ACTIVATE_ERROR_FAILED,
                                              "Could not ask systemd to start %s: %s", backlog[i].name,
                                              strerror(-r));
                }
                free(backlog[i].name);
                message_unref(backlog[i].message);
        }
        free(backlog);
}

int bus_activation_systemd_set_environment(Bus *bus, Message *call, char *error, size_t error_size) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;
        Peer *systemd = bus_lookup_peer(bus, BUS_SYSTEMD_NAME);
        MessageReader reader;
        int r;

        if (!bus->activation->systemd)
                return 0;
        r = message_builder_new(MESSAGE_METHOD_CALL, &b);
        if (r == 0)
                r = message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED);
        if (r == 0)
                r = message_builder_set_sender(b, BUS_DRIVER_NAME);
        /* As dbus-daemon: the owner's unique name when it is there, else the well-known name. */
        if (r == 0)
                r = message_builder_set_destination(b, systemd ? systemd->unique_name : BUS_SYSTEMD_NAME);
        if (r == 0)
                r = message_builder_set_path(b, "/org/freedesktop/systemd1");
        if (r == 0)
                r = message_builder_set_interface(b, "org.freedesktop.systemd1.Manager");
        if (r == 0)
                r = message_builder_set_member(b, "SetEnvironment");
        if (r == 0)
                r = message_builder_open(b, 'a', "s");
        message_reader_init(&reader, call);
        if (r == 0)
                r = message_reader_enter(&reader, 'a', "{ss}");
        while (r == 0 && !message_reader_at_end(&reader)) {
                const char *key, *value;
                _cleanup_free_ char *line = NULL;

                r = message_reader_enter(&reader, 'e', "ss");
                if (r == 0)
                        r = message_reader_read_basic(&reader, 's', &key);
                if (r == 0)
                        r = message_reader_read_basic(&reader, 's', &value);
                if (r == 0)
                        r = message_reader_exit(&reader);
                if (r == 0 && asprintf(&line, "%s=%s", key, value) < 0)
                        r = -ENOMEM;
                if (r == 0)
                        r = message_builder_append_basic(b, 's', line);
        }
        if (r == 0)
                r = message_builder_close(b);
        if (r == 0)
                r = message_builder_finish(b, &m);
        if (r != 0)
                return r < 0 ? r : -EINVAL;
        if (systemd)
                return bus_send_from_driver(bus, systemd, m);
        bus_monitors_capture(bus, m, NULL);
        r = activate_hold_for_systemd(bus, m, NULL);
        if (r == ACTIVATE_E_LIMIT) {
                snprintf(error, error_size,
                         "The maximum number of pending activations has been reached, activation of %s failed "
                         "(max_pending_service_starts=%lld)", BUS_SYSTEMD_NAME,
                         (long long) bus->config->limits.max_pending_service_starts);
                return BUS_ERROR_LIMITS_EXCEEDED;
        }
        return r;
}

int bus_activation_systemd_failure(Bus *bus, Peer *sender, Message *m) {
        const char *unit, *error_name, *text, *name;
        char unit_copy[256];

        if (bus_lookup_peer(bus, BUS_SYSTEMD_NAME) != sender) {
                log_notice("Ignoring ActivationFailure from %s: only the owner of %s may send it",
                           sender->unique_name, BUS_SYSTEMD_NAME);
                return 0;
        }
        if (message_read(m, "sss", &unit, &error_name, &text) != 0)
                return 0;
        if (!validate_error_name(error_name, strlen(error_name)))
                error_name = ACTIVATE_ERROR_FAILED;
        snprintf(unit_copy, sizeof(unit_copy), "%s", unit);
        /* Every start waiting for this unit (one unit may provide several names). */
        while ((name = activation_name_for_unit(bus->activation->state, unit_copy)))
                activate_fail(bus, name, error_name, "%s", text);
        return 0;
}
