/*
 * The bus driver, org.freedesktop.DBus: a flat table of method handlers
 * (here: Hello, names, match rules, activation, bus identity; in
 * driver-info.c: credentials, properties, introspection, monitoring),
 * plus the NameOwnerChanged/NameLost/NameAcquired signals.
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

#include "activation.h"
#include "bus-error.h"
#include "bus.h"
#include "config.h"
#include "driver-stats.h"
#include "driver.h"
#include "log.h"
#include "mediate.h"
#include "message.h"
#include "ratelimit.h"
#include "service-file.h"
#include "validate.h"

#define DRIVER_INTERFACE "org.freedesktop.DBus"

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

static int driver_return_basic(Bus *bus, Peer *peer, Message *call, char type, const void *value) {
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

int bus_emit_name_change(Bus *bus, const NameChange *change) {
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
int bus_emit_activatable_services_changed(Bus *bus) {
        return driver_signal(bus, NULL, "ActivatableServicesChanged", "");
}

/* Hello. */

static int driver_check_connection_limits(Bus *bus, Peer *peer, DriverError *error) {
        const BusConfigLimits *limits = &bus->config->limits;
        size_t same_user = 0;
        IList *node;

        if (limits->max_completed_connections >= 0 &&
            bus->n_complete >= (size_t) limits->max_completed_connections)
                return driver_fail(error, BUS_ERROR_LIMITS_EXCEEDED,
                                   "The maximum number of active connections has been reached");
        for (node = bus->peers.next; node != &bus->peers; node = node->next) {
                Peer *other = ILIST_ENTRY(node, Peer, link);

                if (other->registered && other->creds.uid == peer->creds.uid)
                        same_user++;
        }
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
        r = strmap_put(&bus->peers_by_name, peer->unique_name, peer);
        if (r != 0)
                return r < 0 ? r : -EEXIST;
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
        r = bus_emit_name_change(bus, &change);
        if (r < 0)
                return r;
        bus_eavesdrop_driver_message(bus, peer, m);
        return 0;
}

static int driver_method_hello(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        return driver_fail(error, BUS_ERROR_FAILED, "Already handled an Hello message");
}

/* Names. */

static int driver_method_request_name(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        MediateVerdict verdict;
        const char *name;
        uint32_t flags, reply;
        NameChange change;
        int64_t max = bus->config->limits.max_names_per_connection;
        int r;

        r = message_read(m, "su", &name, &flags);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        if (!validate_bus_name(name, strlen(name)))
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Requested bus name \"%s\" is not valid", name);
        if (name[0] == ':')
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Cannot acquire a service starting with ':' such as \"%s\"", name);
        if (strcmp(name, BUS_DRIVER_NAME) == 0)
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Connection \"%s\" is not allowed to own the service \"%s\"because it is reserved for D-Bus' use only",
                                   peer->unique_name, name);
        if (mediate_own(peer, name, &verdict) != 0)
                return driver_fail(error, verdict.error, "%s", verdict.text);
        r = names_request(bus->names, &peer->names, name, flags, max < 0 ? SIZE_MAX : (size_t) max,
                          &change, &reply);
        if (r == NAMES_E_LIMIT)
                return driver_fail(error, BUS_ERROR_LIMITS_EXCEEDED,
                                   "Connection \"%s\" is not allowed to own more services (increase limits in configuration file if required; max_names_per_connection=%lld)",
                                   peer->unique_name, (long long) max);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_FAILED;
        /* Queued or owner: either way its names changed for the policy checks. */
        security_peer_names_changed(&peer->security);
        driver_stats_update_peaks(bus);
        /*
         * As dbus-daemon's transaction orders them: NameOwnerChanged,
         * NameAcquired and the calls queued for an activated name reach
         * their recipients before the caller's reply.
         */
        r = bus_emit_name_change(bus, &change);
        if (r < 0)
                return r;
        return driver_return_basic(bus, peer, m, 'u', &reply);
}

static int driver_method_release_name(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        uint32_t reply;
        NameChange change;
        int r;

        r = message_read(m, "s", &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        if (!validate_bus_name(name, strlen(name)))
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Given bus name \"%s\" is not valid", name);
        if (name[0] == ':')
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Cannot release a service starting with ':' such as \"%s\"", name);
        if (strcmp(name, BUS_DRIVER_NAME) == 0)
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Cannot release the service \"%s\" because it is owned by the bus", name);
        r = names_release(bus->names, &peer->names, name, &change, &reply);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_FAILED;
        security_peer_names_changed(&peer->security);
        /* NameLost and NameOwnerChanged first, as from RequestName. */
        r = bus_emit_name_change(bus, &change);
        if (r < 0)
                return r;
        return driver_return_basic(bus, peer, m, 'u', &reply);
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

static int driver_method_get_name_owner(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        Peer *owner;
        int r;

        r = message_read(m, "s", &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = driver_resolve(bus, name, &owner);
        if (r != 0)
                return driver_fail(error, r, "Could not get owner of name '%s': no such name", name);
        return driver_return_basic(bus, peer, m, 's', owner ? owner->unique_name : BUS_DRIVER_NAME);
}

static int driver_method_name_has_owner(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        Peer *owner;
        int r, has;

        r = message_read(m, "s", &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = driver_resolve(bus, name, &owner);
        has = r == 0;
        return driver_return_basic(bus, peer, m, 'b', &has);
}

static int driver_append_names(Bus *bus, MessageBuilder *b) {
        const char *name;
        NamePeerState *owner;
        size_t iter = 0;
        IList *node;
        int r;

        r = message_builder_append_basic(b, 's', BUS_DRIVER_NAME);
        for (node = bus->peers.next; r == 0 && node != &bus->peers; node = node->next) {
                Peer *p = ILIST_ENTRY(node, Peer, link);

                if (p->registered && !p->monitor)
                        r = message_builder_append_basic(b, 's', p->unique_name);
        }
        while (r == 0 && names_next(bus->names, &iter, &name, &owner))
                r = message_builder_append_basic(b, 's', name);
        return r;
}

static int driver_method_list_names(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r;

        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_open(b, 'a', "s");
        if (r == 0)
                r = driver_append_names(bus, b);
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

static int driver_method_list_activatable_names(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        const ServiceTable *table = activation_get_services(bus->activation.state);
        const char *const *names = NULL;
        size_t n = table ? service_table_names(table, &names) : 0;
        int r;

        /* dbus-daemon always lists itself first. */
        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_open(b, 'a', "s");
        if (r == 0)
                r = message_builder_append_basic(b, 's', BUS_DRIVER_NAME);
        for (size_t i = 0; r == 0 && i < n; i++)
                r = message_builder_append_basic(b, 's', names[i]);
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

static int driver_append_queue(Bus *bus, MessageBuilder *b, const char *name, Peer *owner) {
        _cleanup_free_ NamePeerState **owners = NULL;
        size_t n = 0;
        int r;

        if (!owner)
                return message_builder_append_basic(b, 's', BUS_DRIVER_NAME);
        if (name[0] == ':')
                return message_builder_append_basic(b, 's', owner->unique_name);
        r = names_list_queued_owners(bus->names, name, &owners, &n);
        if (r != 0)
                return r < 0 ? r : -ENOENT;
        for (size_t i = 0; r == 0 && i < n; i++)
                r = message_builder_append_basic(b, 's', owners[i]->unique_name);
        return r;
}

static int driver_method_list_queued_owners(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        const char *name;
        Peer *owner;
        int r;

        r = message_read(m, "s", &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = driver_resolve(bus, name, &owner);
        if (r != 0)
                return driver_fail(error, r, "Could not get owners of name '%s': no such name", name);
        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_open(b, 'a', "s");
        if (r == 0)
                r = driver_append_queue(bus, b, name, owner);
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
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
                        r = activation_set_env(bus->activation.state, key, value);
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

/* Match rules. */

/*
 * Whether a rule text eavesdrops: the registry has no accessor, but its
 * equality compares the eavesdrop flag, so compare it with itself minus
 * that flag. Only AddMatch/RemoveMatch pay for this, never routing.
 */
static bool driver_rule_eavesdrops(const char *rule) {
        _cleanup_(match_rule_freep) MatchRule *as_given = NULL, *without = NULL;

        if (match_rule_parse(rule, strlen(rule), &as_given) != 0 ||
            match_rule_parse(rule, strlen(rule), &without) != 0)
                return true;    /* an over-count only costs time */
        match_rule_set_eavesdrop(without, false);
        return !match_rule_equal(as_given, without);
}

static void driver_count_eavesdrop(Bus *bus, Peer *peer, const char *rule, bool added) {
        if (!driver_rule_eavesdrops(rule))
                return;
        if (added) {
                peer->n_eavesdrop_rules++;
                bus->n_eavesdrop_rules++;
        } else if (peer->n_eavesdrop_rules > 0) {
                peer->n_eavesdrop_rules--;
                bus->n_eavesdrop_rules--;
        }
}

/* Refused privileged calls, logged as dbus-daemon logs them, at most 20 per 10 s. */
static void driver_log_refusal(const char *text) {
        static RateLimit limit = RATELIMIT_INIT(10ull * 1000 * 1000, 20);
        uint64_t held = 0;

        if (!ratelimit_below(&limit, loop_now(), &held))
                return;
        if (held > 0)
                log_notice("%llu more refused calls were not logged (rate limit)", (unsigned long long) held);
        log_notice("%s", text);
}

/*
 * An eavesdropping rule sees messages addressed to others: as dbus-daemon
 * since 1.11.14, only uid 0 and the bus's own uid may add one (whatever
 * the busconfig eavesdrop rules say: they judge each copy afterwards),
 * and with Smack the label must be a monitor label of the device policy
 * (mediate_monitor()). Checked after the quota and the rule's syntax, as
 * dbus-daemon orders them; logged, as dbus-daemon logs the attempt.
 */
static int driver_check_eavesdrop(Bus *bus, Peer *peer, const char *rule, int64_t max, DriverError *error) {
        _cleanup_(match_rule_freep) MatchRule *parsed = NULL;
        MediateVerdict verdict;

        if (max >= 0 && peer->matches.n_rules >= (size_t) max)
                return 0;       /* match_owner_add() refuses it: LimitsExceeded */
        if (match_rule_parse(rule, strlen(rule), &parsed) != 0 || !driver_rule_eavesdrops(rule))
                return 0;       /* MatchRuleInvalid, or no eavesdropping */
        if (!peer_is_privileged(peer)) {
                driver_fail(error, BUS_ERROR_ACCESS_DENIED,
                            "Rejected attempt to call AddMatch by connection %s (uid=%u pid=%d) with uid %u: "
                            "only uid 0 and the bus's own uid may add a match rule with eavesdrop='true'",
                            peer->unique_name, (unsigned) peer->creds.uid, (int) peer->creds.pid,
                            (unsigned) peer->creds.uid);
                driver_log_refusal(error->text);
                return BUS_ERROR_ACCESS_DENIED;
        }
        if (mediate_monitor(peer, &verdict) != 0)
                return driver_fail(error, verdict.error, "%s", verdict.text);
        return 0;
}

static int driver_method_add_match(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        int64_t max = bus->config->limits.max_match_rules_per_connection;
        const char *rule;
        int r;

        r = message_read(m, "s", &rule);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = driver_check_eavesdrop(bus, peer, rule, max, error);
        if (r != 0)
                return r;
        r = match_owner_add(&peer->matches, rule, strlen(rule), max < 0 ? SIZE_MAX : (size_t) max);
        if (r == MATCH_E_INVALID)
                return driver_fail(error, BUS_ERROR_MATCH_RULE_INVALID, "Invalid match rule \"%s\"", rule);
        if (r == MATCH_E_TOO_LONG)
                return driver_fail(error, BUS_ERROR_LIMITS_EXCEEDED, "Match rule is too long");
        if (r == MATCH_E_QUOTA)
                return driver_fail(error, BUS_ERROR_LIMITS_EXCEEDED,
                                   "Connection \"%s\" is not allowed to add more match rules (increase limits in configuration file if required; max_match_rules_per_connection=%lld)",
                                   peer->unique_name, (long long) max);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_FAILED;
        driver_count_eavesdrop(bus, peer, rule, true);
        driver_stats_update_peaks(bus);
        return driver_return_ack(bus, peer, m);
}

static int driver_method_remove_match(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *rule;
        int r;

        r = message_read(m, "s", &rule);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = match_owner_remove(&peer->matches, rule, strlen(rule));
        if (r == MATCH_E_INVALID || r == MATCH_E_TOO_LONG)
                return driver_fail(error, BUS_ERROR_MATCH_RULE_INVALID, "Invalid match rule \"%s\"", rule);
        if (r == MATCH_E_NOT_FOUND)
                return driver_fail(error, BUS_ERROR_MATCH_RULE_NOT_FOUND,
                                   "The given match rule wasn't found and can't be removed");
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_FAILED;
        driver_count_eavesdrop(bus, peer, rule, false);
        return driver_return_ack(bus, peer, m);
}

/* The bus itself. */

static int driver_method_get_id(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        return driver_return_basic(bus, peer, m, 's', bus->guid);
}

static int driver_method_reload_config(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        int r = bus->reload ? bus->reload(bus) : 0;

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
        { DRIVER_INTERFACE, "RequestName", "su", driver_method_request_name },
        { DRIVER_INTERFACE, "ReleaseName", "s", driver_method_release_name },
        { DRIVER_INTERFACE, "StartServiceByName", "su", driver_method_start_service_by_name },
        { DRIVER_INTERFACE, "UpdateActivationEnvironment", "a{ss}",
          driver_method_update_activation_environment, true },
        { DRIVER_INTERFACE, "NameHasOwner", "s", driver_method_name_has_owner },
        { DRIVER_INTERFACE, "ListNames", "", driver_method_list_names },
        { DRIVER_INTERFACE, "ListActivatableNames", "", driver_method_list_activatable_names },
        { DRIVER_INTERFACE, "AddMatch", "s", driver_method_add_match },
        { DRIVER_INTERFACE, "RemoveMatch", "s", driver_method_remove_match },
        { DRIVER_INTERFACE, "GetNameOwner", "s", driver_method_get_name_owner },
        { DRIVER_INTERFACE, "ListQueuedOwners", "s", driver_method_list_queued_owners },
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

static const DriverMethod *driver_find_in(const DriverMethod *table, size_t n, const char *interface,
                                          const char *member, bool canonical, bool *found_interface) {
        for (size_t i = 0; i < n; i++) {
                if (interface && strcmp(table[i].interface, interface) != 0)
                        continue;
                if (!driver_method_visible(&table[i], canonical))
                        continue;
                *found_interface = true;
                if (strcmp(table[i].member, member) == 0)
                        return &table[i];
        }
        return NULL;
}

static const DriverMethod *driver_find(const char *interface, const char *member, bool canonical,
                                       bool *found_interface) {
        const DriverMethod *method;

        *found_interface = false;
        method = driver_find_in(driver_methods, ELEMENTSOF(driver_methods), interface, member, canonical,
                                found_interface);
        if (!method)
                method = driver_find_in(driver_info_methods, driver_n_info_methods, interface,
                                        member, canonical, found_interface);
        if (!method)
                method = driver_find_in(driver_stats_methods, driver_n_stats_methods, interface,
                                        member, canonical, found_interface);
        if (!method)
                method = driver_find_in(driver_mssf_methods, driver_n_mssf_methods, interface,
                                        member, canonical, found_interface);
        return method;
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

bool driver_is_activation_failure(Message *m) {
        const char *interface = message_get_interface(m);
        const char *member = message_get_member(m);

        return message_get_type(m) == MESSAGE_SIGNAL && interface &&
               strcmp(interface, "org.freedesktop.systemd1.Activator") == 0 && member &&
               strcmp(member, "ActivationFailure") == 0;
}

int driver_dispatch(Bus *bus, Peer *peer, Message *m) {
        DriverError error = {};
        int r;

        if (driver_is_activation_failure(m))
                return bus_activation_systemd_failure(bus, peer, m);
        if (message_get_type(m) != MESSAGE_METHOD_CALL)
                return 0;       /* other signals and replies to the bus go nowhere */
        r = driver_call(bus, peer, m, &error);
        if (r <= 0)
                return r;
        if (!error.text[0])
                snprintf(error.text, sizeof(error.text), "Invalid arguments");
        r = bus_reply_error(bus, peer, m, r, "%s", error.text);
        return r < 0 ? r : DRIVER_E_FAILED;
}
