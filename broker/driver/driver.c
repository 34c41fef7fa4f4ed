/*
 * The bus driver, org.freedesktop.DBus: a flat table of method handlers
 * (here: Hello, activation, bus identity; in driver-names.c: names; in
 * driver-match.c: match rules; in driver-info.c: credentials,
 * properties, introspection, monitoring; driver-stats.c and
 * driver-mssf.c: Debug.Stats and org.mssf.Broker1), plus the
 * NameOwnerChanged/NameLost/NameAcquired signals.
 *
 * Every handler checks its arguments (the table already checked the
 * signature), and either sends its reply and returns 0, or returns a
 * positive BusError with a text; driver_dispatch() turns that into the
 * error reply (names from bus-error.c, texts as dbus-daemon words them,
 * since clients and tests compare them). Negative errno means the bus
 * itself failed; the peer is then dropped by the caller.
 *
 * Trust: arguments come from any peer; names are validated before they
 * reach the registry, whose contract (names.h) relies on it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activate.h"
#include "activation.h"
#include "bus-error.h"
#include "bus-hooks.h"
#include "bus-quota.h"
#include "bus.h"
#include "config.h"
#include "dispatch.h"
#include "driver-internal.h"
#include "driver-stats.h"
#include "driver.h"
#include "log.h"
#include "message.h"
#include "service-file.h"
#include "validate.h"

int driver_fail(DriverError *error, int code, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        vsnprintf(error->text, sizeof(error->text), format, ap);
        va_end(ap);
        return code;
}

/* As libdbus marks them in dbus-daemon, the driver's messages expect no reply. */
int driver_return_new(Message *call, MessageBuilder **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r = message_new_method_return(call, BUS_DRIVER_NAME, &b);

        if (r == 0)
                r = message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED);
        if (r == 0)
                *ret = TAKE_PTR(b);
        return r;
}

/* As dbus-daemon: an answer goes out even if the caller said it expects none. */
int driver_send(Bus *bus, Peer *peer, Message *call, MessageBuilder *b) {
        _cleanup_(message_unrefp) Message *reply = NULL;
        int r;

        r = message_builder_finish(b, &reply);
        if (r != 0)
                return r < 0 ? r : -EINVAL;
        return bus_send_from_driver(bus, peer, reply);
}

int driver_return_empty(Bus *bus, Peer *peer, Message *call) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r = driver_return_new(call, &b);

        return r < 0 ? r : driver_send(bus, peer, call, b);
}

/* dbus-daemon's bus_driver_send_ack_reply(): the one answer NO_REPLY_EXPECTED suppresses. */
int driver_return_ack(Bus *bus, Peer *peer, Message *call) {
        if (message_get_flags(call) & MESSAGE_FLAG_NO_REPLY_EXPECTED)
                return 0;
        return driver_return_empty(bus, peer, call);
}

int driver_return_basic(Bus *bus, Peer *peer, Message *call, char type, const void *value) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r = driver_return_new(call, &b);

        if (r == 0)
                r = message_builder_append_basic(b, type, value);
        return r < 0 ? r : driver_send(bus, peer, call, b);
}

/* One "{sv}" entry of an a{sv} being built: key, and value (of basic type) in a variant. */
int driver_append_entry(MessageBuilder *b, const char *key, char type, const void *value) {
        const char contents[2] = { type, 0 };
        int r = message_builder_open(b, '{', "sv");

        if (r == 0)
                r = message_builder_append_basic(b, 's', key);
        if (r == 0)
                r = message_builder_open(b, 'v', contents);
        if (r == 0)
                r = message_builder_append_basic(b, type, value);
        if (r == 0)
                r = message_builder_close(b);
        return r == 0 ? message_builder_close(b) : r;
}

/* Signals. */

static int driver_signal(Bus *bus, Peer *unicast_to, const char *member, const char *signature, ...) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;
        va_list ap;
        int r;

        r = message_new_signal(BUS_DRIVER_NAME, BUS_DRIVER_PATH, DRIVER_INTERFACE, member, &b);
        if (r == 0)
                r = message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED);
        if (r == 0 && unicast_to)
                r = message_builder_set_destination(b, unicast_to->unique_name);
        va_start(ap, signature);
        for (const char *t = signature; r == 0 && *t; t++)
                r = message_builder_append_basic(b, 's', va_arg(ap, const char *));
        va_end(ap);
        if (r == 0)
                r = message_builder_finish(b, &m);
        if (r != 0)
                return r < 0 ? r : -EINVAL;
        if (unicast_to)
                return bus_send_from_driver(bus, unicast_to, m);
        return bus_broadcast_from_driver(bus, m);
}

int driver_emit_name_change(Bus *bus, const NameChange *change) {
        Peer *old_owner = change->old_owner ? change->old_owner->peer : NULL;
        Peer *new_owner = change->new_owner ? change->new_owner->peer : NULL;
        int r;

        if (old_owner)
                security_peer_names_changed(&old_owner->security);
        if (new_owner)
                security_peer_names_changed(&new_owner->security);
        if (old_owner == new_owner)
                return 0;
        if (old_owner) {
                r = driver_signal(bus, old_owner, "NameLost", "s", change->name);
                if (r < 0)
                        return r;
        }
        r = driver_signal(bus, NULL, "NameOwnerChanged", "sss", change->name,
                          old_owner ? old_owner->unique_name : "",
                          new_owner ? new_owner->unique_name : "");
        if (r < 0)
                return r;
        if (new_owner) {
                r = driver_signal(bus, new_owner, "NameAcquired", "s", change->name);
                if (r < 0)
                        return r;
                /* After NameAcquired: the service knows its name when the queued calls arrive. */
                if (change->name[0] != ':')
                        bus_activation_name_acquired(bus, change->name);
        }
        return 0;
}

/* After every reload, as dbus-daemon 1.14 sends it: the activatable names may have changed. */
int driver_emit_activatable_services_changed(Bus *bus) {
        return driver_signal(bus, NULL, "ActivatableServicesChanged", "");
}

/* Hello. */

static int driver_check_connection_limits(Bus *bus, Peer *peer, DriverError *error) {
        const BusConfigLimits *limits = &bus->config->limits;
        size_t same_user = uid_count_get(&bus->complete_by_uid, peer->creds.uid);

        if (limits->max_completed_connections >= 0 &&
            bus->n_complete >= (size_t) limits->max_completed_connections)
                return driver_fail(error, BUS_ERROR_LIMITS_EXCEEDED,
                                   "The maximum number of active connections has been reached");
        if (limits->max_connections_per_user >= 0 &&
            same_user >= (size_t) limits->max_connections_per_user)
                return driver_fail(error, BUS_ERROR_LIMITS_EXCEEDED,
                                   "The maximum number of active connections for UID %u has been reached",
                                   (unsigned) peer->creds.uid);
        return 0;
}

static bool driver_is_hello(Message *m) {
        const char *destination = message_get_destination(m);
        const char *interface = message_get_interface(m);
        const char *member = message_get_member(m);

        return message_get_type(m) == MESSAGE_METHOD_CALL &&
               destination && strcmp(destination, BUS_DRIVER_NAME) == 0 &&
               (!interface || strcmp(interface, DRIVER_INTERFACE) == 0) &&
               member && strcmp(member, "Hello") == 0;
}

static int driver_register(Bus *bus, Peer *peer) {
        int r;

        snprintf(peer->unique_name, sizeof(peer->unique_name), ":1.%llu",
                 (unsigned long long) peer->id);
        r = uid_count_add(&bus->complete_by_uid, peer->creds.uid);
        if (r < 0)
                return r;
        r = strmap_put(&bus->peers_by_name, peer->unique_name, peer);
        if (r != 0) {
                uid_count_remove(&bus->complete_by_uid, peer->creds.uid);
                return r < 0 ? r : -EEXIST;
        }
        peer->registered = true;
        loop_timer_disarm(bus->loop, &peer->auth_timer);
        bus->n_incomplete--;
        bus->n_complete++;
        bus_update_accepting(bus);
        return 0;
}

int driver_hello(Bus *bus, Peer *peer, Message *m) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        DriverError error = {};
        NameChange change = { .new_owner = &peer->names };
        int r;

        if (!driver_is_hello(m)) {
                const char *destination = message_get_destination(m);

                /*
                 * As dbus-daemon 1.14 (measured): a message for anybody but the
                 * driver, or a broadcast signal, disconnects; a call or a
                 * signal to the driver is refused (whatever its flags), a
                 * call without destination answered UnknownMethod (as after
                 * Hello), and the client may still say Hello; a reply or
                 * error is ignored.
                 */
                uint8_t type = message_get_type(m);

                if (destination ? strcmp(destination, BUS_DRIVER_NAME) != 0 : type == MESSAGE_SIGNAL)
                        return CONNECTION_E_CLOSED;
                if (type == MESSAGE_METHOD_RETURN || type == MESSAGE_ERROR)
                        return 0;
                if (!destination)
                        return bus_reply_unknown_method(bus, peer, m);
                return bus_reply_error(bus, peer, m, BUS_ERROR_ACCESS_DENIED,
                                       "Client tried to send a message other than Hello without being registered");
        }
        /* Whether this uid may connect at all was judged when it authenticated (peer.c). */
        r = driver_check_connection_limits(bus, peer, &error);
        if (r > 0) {
                log_warning("Refusing a connection from uid %u: %s", (unsigned) peer->creds.uid,
                            error.text);
                (void) bus_reply_error(bus, peer, m, r, "%s", error.text);
                return 0;
        }
        /* With Smack, its label's share too; refusals are logged there, once per label. */
        r = peer_quota_admit(peer, error.text, sizeof(error.text));
        if (r > 0) {
                (void) bus_reply_error(bus, peer, m, r, "%s", error.text);
                return 0;
        }
        if (r < 0)
                return r;
        r = driver_register(bus, peer);
        if (r < 0)
                return r;
        r = message_stamp_sender(m, peer->unique_name);
        if (r < 0)
                return r;
        bus_monitors_capture(bus, m, peer);

        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_append_basic(b, 's', peer->unique_name);
        if (r == 0)
                r = driver_send(bus, peer, m, b);
        if (r < 0)
                return r;
        strncpy(change.name, peer->unique_name, sizeof(change.name) - 1);
        driver_stats_update_peaks(bus);
        r = driver_emit_name_change(bus, &change);
        if (r < 0)
                return r;
        bus_eavesdrop_driver_message(bus, peer, m);
        return 0;
}

static int driver_method_hello(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        return driver_fail(error, BUS_ERROR_FAILED, "Already handled an Hello message");
}

/* The owner of a name argument; the driver answers for itself with *ret == NULL. */
int driver_resolve(Bus *bus, const char *name, Peer **ret) {
        if (strcmp(name, BUS_DRIVER_NAME) == 0) {
                *ret = NULL;
                return 0;
        }
        /* dbus-daemon answers an invalid name as one nobody owns. */
        if (!validate_bus_name(name, strlen(name)))
                return BUS_ERROR_NAME_HAS_NO_OWNER;
        *ret = bus_lookup_peer(bus, name);
        return *ret && !(*ret)->monitor ? 0 : BUS_ERROR_NAME_HAS_NO_OWNER;
}

/* Activation (activate.c starts and waits). */

static int driver_method_start_service_by_name(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        uint32_t flags;
        int r;

        r = message_read(m, "su", &name, &flags);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        return bus_activation_start(bus, peer, m, name, error->text, sizeof(error->text));
}

static int driver_method_update_activation_environment(Bus *bus, Peer *peer, Message *m,
                                                       DriverError *error) {
        MessageReader reader;
        int r;

        if (!peer_is_privileged(peer))
                return driver_fail(error, BUS_ERROR_ACCESS_DENIED,
                                   "Caller \"%s\" is not allowed to update the activation environment",
                                   peer->unique_name);
        /* As dbus-daemon: services of a bus that starts them through a setuid helper get a clean slate. */
        if (bus->config->servicehelper)
                return driver_fail(error, BUS_ERROR_ACCESS_DENIED,
                                   "Cannot change activation environment on a system bus.");
        message_reader_init(&reader, m);
        r = message_reader_enter(&reader, 'a', "{ss}");
        while (r == 0 && !message_reader_at_end(&reader)) {
                const char *key, *value;

                r = message_reader_enter(&reader, 'e', "ss");
                if (r == 0)
                        r = message_reader_read_basic(&reader, 's', &key);
                if (r == 0)
                        r = message_reader_read_basic(&reader, 's', &value);
                if (r == 0)
                        r = message_reader_exit(&reader);
                if (r == 0 && (key[0] == 0 || strchr(key, '=')))
                        return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                           "Environment variable name \"%s\" is not valid", key);
                if (r == 0)
                        r = activation_set_env(bus->activation->state, key, value);
                if (r == ACTIVATION_E_INVALID)
                        return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                           "Environment variable \"%.64s\" is too long", key);
                if (r == ACTIVATION_E_LIMIT)
                        return driver_fail(error, BUS_ERROR_LIMITS_EXCEEDED,
                                           "Too many activation environment variables");
        }
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = bus_activation_systemd_set_environment(bus, m, error->text, sizeof(error->text));
        if (r != 0)
                return r;
        return driver_return_ack(bus, peer, m);
}

static int driver_method_get_id(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        return driver_return_basic(bus, peer, m, 's', bus->guid);
}

static int driver_method_reload_config(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        int r = bus->hooks->reload(bus);

        if (r != 0)
                return driver_fail(error, BUS_ERROR_FAILED, "Failed to reload the configuration");
        return driver_return_empty(bus, peer, m);
}

static int driver_method_ping(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        return driver_return_ack(bus, peer, m);
}

static int driver_method_get_machine_id(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        return driver_return_basic(bus, peer, m, 's', bus->machine_id);
}

static const DriverMethod driver_methods[] = {
        { DRIVER_INTERFACE, "Hello", "", driver_method_hello },
        { DRIVER_INTERFACE, "StartServiceByName", "su", driver_method_start_service_by_name },
        { DRIVER_INTERFACE, "UpdateActivationEnvironment", "a{ss}",
          driver_method_update_activation_environment, true },
        { DRIVER_INTERFACE, "ReloadConfig", "", driver_method_reload_config },
        { DRIVER_INTERFACE, "GetId", "", driver_method_get_id },
        { "org.freedesktop.DBus.Peer", "Ping", "", driver_method_ping },
        { "org.freedesktop.DBus.Peer", "GetMachineId", "", driver_method_get_machine_id },
};

/*
 * As dbus-daemon: away from the canonical path only the interfaces that
 * live at every path exist (org.freedesktop.DBus, Introspectable, Peer);
 * a canonical-only method of the bus interface is found, to be refused
 * with AccessDenied, one of another interface (Properties, Monitoring,
 * Debug.Stats, org.mssf.Broker1) is an unknown interface.
 */
static bool driver_method_visible(const DriverMethod *method, bool canonical) {
        return canonical || !method->canonical_path_only || strcmp(method->interface, DRIVER_INTERFACE) == 0;
}

/* The member first: it tells most entries apart at its first character,
 * where the interface is the same long string for most of them. */
static const DriverMethod *driver_find_in(const DriverMethod *table, size_t n, const char *interface,
                                          const char *member, bool canonical) {
        for (size_t i = 0; i < n; i++)
                if (table[i].member[0] == member[0] && strcmp(table[i].member, member) == 0 &&
                    (!interface || strcmp(table[i].interface, interface) == 0) &&
                    driver_method_visible(&table[i], canonical))
                        return &table[i];
        return NULL;
}

/* Whether some method of the interface is visible here (NULL: any is). */
static bool driver_has_interface(const DriverMethod *table, size_t n, const char *interface, bool canonical) {
        for (size_t i = 0; i < n; i++)
                if ((!interface || strcmp(table[i].interface, interface) == 0) &&
                    driver_method_visible(&table[i], canonical))
                        return true;
        return false;
}

/* The method, or NULL; then *found_interface says whether the interface is known here. */
static const DriverMethod *driver_find(const char *interface, const char *member, bool canonical,
                                       bool *found_interface) {
        const struct {
                const DriverMethod *table;
                size_t n;
        } tables[] = {
                { driver_methods, ELEMENTSOF(driver_methods) },
                { driver_names_methods, driver_n_names_methods },
                { driver_match_methods, driver_n_match_methods },
                { driver_info_methods, driver_n_info_methods },
                { driver_stats_methods, driver_n_stats_methods },
                { driver_mssf_methods, driver_n_mssf_methods },
        };
        const DriverMethod *method;

        *found_interface = false;
        for (size_t k = 0; k < ELEMENTSOF(tables); k++) {
                method = driver_find_in(tables[k].table, tables[k].n, interface, member, canonical);
                if (method)
                        return method;
        }
        for (size_t k = 0; k < ELEMENTSOF(tables) && !*found_interface; k++)
                *found_interface = driver_has_interface(tables[k].table, tables[k].n, interface, canonical);
        return NULL;
}

static int driver_call(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *interface = message_get_interface(m);
        const char *member = message_get_member(m);
        const char *signature = message_get_signature(m) ?: "";
        const DriverMethod *method;
        bool found_interface;

        method = driver_find(interface, member, strcmp(message_get_path(m), BUS_DRIVER_PATH) == 0,
                             &found_interface);
        if (!method)
                return driver_fail(error, found_interface ? BUS_ERROR_UNKNOWN_METHOD :
                                   BUS_ERROR_UNKNOWN_INTERFACE,
                                   "org.freedesktop.DBus does not understand message %s", member);
        /* dbus-daemon's order: the path, then the arguments. */
        if (method->canonical_path_only && strcmp(message_get_path(m), BUS_DRIVER_PATH) != 0)
                return driver_fail(error, BUS_ERROR_ACCESS_DENIED,
                                   "Method '%s' is only available at the canonical object path '%s'",
                                   member, BUS_DRIVER_PATH);
        if (strcmp(signature, method->signature) != 0)
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Call to %s has wrong args (%s, expected %s)",
                                   member, signature, method->signature);
        return method->handler(bus, peer, m, error);
}

int driver_dispatch(Bus *bus, Peer *peer, Message *m) {
        DriverError error;              /* a string: not all its 512 bytes cleared per call */
        int r;

        if (bus_is_activation_failure(m))
                return bus_activation_systemd_failure(bus, peer, m);
        if (message_get_type(m) != MESSAGE_METHOD_CALL)
                return 0;       /* other signals and replies to the bus go nowhere */
        error.text[0] = '\0';
        r = driver_call(bus, peer, m, &error);
        if (r <= 0)
                return r;
        if (!error.text[0])
                snprintf(error.text, sizeof(error.text), "Invalid arguments");
        r = bus_reply_error(bus, peer, m, r, "%s", error.text);
        return r < 0 ? r : DRIVER_E_FAILED;
}
