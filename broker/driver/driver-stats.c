/*
 * org.freedesktop.DBus.Debug.Stats: GetStats, GetConnectionStats and
 * GetAllMatchRules, with the reply shapes of dbus-daemon 1.14 built with
 * stats (as Debian's is).
 *
 * Access, as dbus-daemon 1.14 (measured: Debian's answers a client
 * running as nobody): any connection the busconfig policy lets call the
 * driver, no uid check. What the statistics reveal (who is connected,
 * what everyone's match rules say) is thus a matter of policy: a
 * <deny send_destination="org.freedesktop.DBus"
 * send_interface="org.freedesktop.DBus.Debug.Stats"/> closes it, as on
 * dbus-daemon. Like the other optional driver interfaces it exists only
 * at the canonical path.
 *
 * The keys are those of dbus-daemon whose meaning this bus can honour:
 * counts taken from the registries at the time of the call, peaks kept
 * here since the process started. Left out, as this bus does not keep
 * them: the ListMemPool* sizes (libdbus's allocator), the per-connection
 * peaks and PeakMatchRulesPerConnection/PeakBusNamesPerConnection, and
 * IncomingMessages. IncomingBytes/IncomingFDs are what the connection
 * sent that still waits in others' queues (the counter max_incoming_bytes
 * limits, as dbus-daemon's); Outgoing* is its own queue. Serial counts
 * the replies of each method, as dbus-daemon's does.
 *
 * Match rules are written back in dbus-daemon's key order (type,
 * interface, member, path or path_namespace, sender, destination,
 * eavesdrop, arguments), apostrophes escaped as '\''; the rule's
 * internals are read from registry/match-internal.h, as nothing else in the
 * registry formats a rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-error.h"
#include "bus.h"
#include "driver-internal.h"
#include "driver-stats.h"
#include "match-internal.h"
#include "message.h"

#define DRIVER_STATS_INTERFACE "org.freedesktop.DBus.Debug.Stats"

static uint32_t driver_stats_serial_all, driver_stats_serial_connection;
static uint32_t driver_stats_peak_rules, driver_stats_peak_names;

static uint32_t driver_stats_clamp(size_t n) {
        return n > UINT32_MAX ? UINT32_MAX : (uint32_t) n;
}

/* Every unique name and every owned well-known name (dbus-daemon's "BusNames"). */
static size_t driver_stats_n_names(Bus *bus) {
        const char *name;
        NamePeerState *owner;
        size_t iter = 0, n = bus->n_complete;

        while (names_next(bus->names, &iter, &name, &owner))
                n++;
        return n;
}

void driver_stats_update_peaks(Bus *bus) {
        uint32_t rules = driver_stats_clamp(match_registry_n_rules(bus->matches));
        uint32_t names = driver_stats_clamp(driver_stats_n_names(bus));

        if (rules > driver_stats_peak_rules)
                driver_stats_peak_rules = rules;
        if (names > driver_stats_peak_names)
                driver_stats_peak_names = names;
}


static int driver_stats_u32(MessageBuilder *b, const char *key, size_t value) {
        uint32_t v = driver_stats_clamp(value);

        return driver_append_entry(b, key, 'u', &v);
}

static int driver_method_stats_get_stats(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r;

        driver_stats_update_peaks(bus);
        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_open(b, 'a', "{sv}");
        if (r == 0)
                r = driver_stats_u32(b, "Serial", driver_stats_serial_all++);
        if (r == 0)
                r = driver_stats_u32(b, "ActiveConnections", bus->n_complete);
        if (r == 0)
                r = driver_stats_u32(b, "IncompleteConnections", bus->n_incomplete);
        if (r == 0)
                r = driver_stats_u32(b, "MatchRules", match_registry_n_rules(bus->matches));
        if (r == 0)
                r = driver_stats_u32(b, "PeakMatchRules", driver_stats_peak_rules);
        if (r == 0)
                r = driver_stats_u32(b, "BusNames", driver_stats_n_names(bus));
        if (r == 0)
                r = driver_stats_u32(b, "PeakBusNames", driver_stats_peak_names);
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

/* Its unique name and the well-known names it owns (not those it waits for). */
static size_t driver_stats_peer_names(const Peer *peer) {
        const IList *iter = NULL;
        const char *name;
        size_t n = 1;
        bool primary;

        while (name_peer_state_next(&peer->names, &iter, &name, &primary))
                n += primary;
        return n;
}

static int driver_stats_connection(MessageBuilder *b, const Peer *target) {
        const Connection *c = &target->connection;
        int r = driver_stats_u32(b, "MatchRules", target->matches.n_rules);

        if (r == 0)
                r = driver_stats_u32(b, "BusNames", driver_stats_peer_names(target));
        if (r == 0)
                r = driver_append_entry(b, "UniqueName", 's', target->unique_name);
        if (r == 0)
                r = driver_stats_u32(b, "IncomingBytes", target->charge->bytes);
        if (r == 0)
                r = driver_stats_u32(b, "IncomingFDs", target->charge->fds);
        if (r == 0)
                r = driver_stats_u32(b, "OutgoingMessages", c->out_count);
        if (r == 0)
                r = driver_stats_u32(b, "OutgoingBytes", c->out_bytes);
        if (r == 0)
                r = driver_stats_u32(b, "OutgoingFDs", c->out_fds);
        return r;
}

static int driver_method_stats_get_connection_stats(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        const char *name;
        Peer *target;
        int r;

        r = message_read(m, "s", &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        if (strcmp(name, BUS_DRIVER_NAME) == 0)
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "GetConnectionStats is not meaningful for the message bus \"%s\" itself",
                                   BUS_DRIVER_NAME);
        target = bus_lookup_peer(bus, name);
        if (!target || target->dead || target->monitor)
                return driver_fail(error, BUS_ERROR_NAME_HAS_NO_OWNER,
                                   "Could not get statistics of name '%s': no such name", name);
        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_open(b, 'a', "{sv}");
        if (r == 0)
                r = driver_stats_u32(b, "Serial", driver_stats_serial_connection++);
        if (r == 0)
                r = driver_stats_connection(b, target);
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

/* Appends key='value' (with a ',' unless first), escaping apostrophes as dbus-daemon does. */
static void driver_stats_rule_key(char *buf, size_t *len, const char *key, const char *value) {
        size_t n = *len;

        if (!value)
                return;
        n += (size_t) snprintf(buf + n, n < DRIVER_STATS_RULE_MAX ? DRIVER_STATS_RULE_MAX - n : 0,
                               "%s%s='", n > 0 ? "," : "", key);
        for (const char *p = value; *p && n < DRIVER_STATS_RULE_MAX; p++) {
                if (*p == '\'')
                        n += (size_t) snprintf(buf + n, DRIVER_STATS_RULE_MAX - n, "'\\''");
                else
                        buf[n++] = *p;
        }
        if (n < DRIVER_STATS_RULE_MAX)
                buf[n++] = '\'';
        *len = n < DRIVER_STATS_RULE_MAX ? n : DRIVER_STATS_RULE_MAX - 1;
        buf[*len] = 0;
}

static const char *driver_stats_type_name(uint8_t type) {
        static const char *const names[] = {
                [MESSAGE_METHOD_CALL] = "method_call",
                [MESSAGE_METHOD_RETURN] = "method_return",
                [MESSAGE_ERROR] = "error",
                [MESSAGE_SIGNAL] = "signal",
        };

        return type < ELEMENTSOF(names) ? names[type] : NULL;
}

void driver_stats_format_rule(const MatchRule *rule, char buf[DRIVER_STATS_RULE_MAX]) {
        size_t len = 0;

        buf[0] = 0;
        driver_stats_rule_key(buf, &len, "type", driver_stats_type_name(rule->type));
        driver_stats_rule_key(buf, &len, "interface", rule->interface);
        driver_stats_rule_key(buf, &len, "member", rule->member);
        driver_stats_rule_key(buf, &len, rule->path_is_namespace ? "path_namespace" : "path", rule->path);
        driver_stats_rule_key(buf, &len, "sender", rule->sender);
        driver_stats_rule_key(buf, &len, "destination", rule->destination);
        driver_stats_rule_key(buf, &len, "eavesdrop", rule->eavesdrop ? "true" : NULL);
        for (size_t i = 0; i < rule->n_args; i++) {
                const MatchArgRule *arg = &rule->args[i];
                char key[32];

                snprintf(key, sizeof(key), "arg%u%s", (unsigned) arg->index,
                         arg->kind == MATCH_ARG_PATH ? "path" :
                         arg->kind == MATCH_ARG_NAMESPACE ? "namespace" : "");
                driver_stats_rule_key(buf, &len, key, arg->value);
        }
}

static int driver_stats_peer_rules(MessageBuilder *b, const Peer *peer) {
        char text[DRIVER_STATS_RULE_MAX];
        int r = message_builder_open(b, 'e', "sas");

        if (r == 0)
                r = message_builder_append_basic(b, 's', peer->unique_name);
        if (r == 0)
                r = message_builder_open(b, 'a', "s");
        /* Newest first, as dbus-daemon lists them. */
        for (const IList *node = peer->matches.rules.prev; r == 0 && node != &peer->matches.rules;
             node = node->prev) {
                driver_stats_format_rule(ILIST_ENTRY(node, MatchRule, owner_link), text);
                r = message_builder_append_basic(b, 's', text);
        }
        if (r == 0)
                r = message_builder_close(b);
        return r == 0 ? message_builder_close(b) : r;
}

static int driver_method_stats_get_all_match_rules(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r = driver_return_new(m, &b);

        if (r == 0)
                r = message_builder_open(b, 'a', "{sas}");
        for (const IList *node = bus->peers.next; r == 0 && node != &bus->peers; node = node->next) {
                const Peer *other = ILIST_ENTRY(node, Peer, link);

                if (other->registered && !other->monitor)
                        r = driver_stats_peer_rules(b, other);
        }
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

const DriverMethod driver_stats_methods[] = {
        { DRIVER_STATS_INTERFACE, "GetStats", "", driver_method_stats_get_stats, true },
        { DRIVER_STATS_INTERFACE, "GetConnectionStats", "s", driver_method_stats_get_connection_stats, true },
        { DRIVER_STATS_INTERFACE, "GetAllMatchRules", "", driver_method_stats_get_all_match_rules, true },
};

const unsigned driver_n_stats_methods = ELEMENTSOF(driver_stats_methods);
