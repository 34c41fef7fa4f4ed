/*
 * Differential test of match_rule_matches() against the reference
 * dbus-daemon's delivery: listeners add rules drawn from a pool that
 * exercises every key (argN, argNpath both ways, arg0namespace, path,
 * path_namespace, sender by unique and well-known name, interface,
 * member, type, eavesdrop); an emitter that owns a well-known name sends
 * random signals, most broadcast, some unicast to the first listener;
 * every listener must receive exactly the signals our matcher says its
 * rule matches (the addressed listener gets its unicasts anyway). Skipped (exit 77) without /usr/bin/dbus-daemon.
 */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "match.h"
#include "message.h"
#include "names.h"
#include "reference-daemon.h"

#define N_LISTENERS 8
#define N_ROUNDS 150
#define SIGNALS_PER_ROUND 24
#define EMITTER_NAME "org.example.Emitter"

static const char *const rule_pool[] = {
        "type='signal'", "type='method_call'", "interface='org.example.A'", "member='Foo'",
        "interface='org.example.A',member='Bar'", "path='/a/b'", "path_namespace='/a'",
        "path_namespace='/'", "path_namespace='/a/b/c'", "sender='" EMITTER_NAME "'",
        "sender='org.example.Other'", "arg0='x'", "arg0=''", "arg1='x'", "arg0path='/a/'",
        "arg0path='/a/b'", "arg0path='/'", "arg1path='/a/b/c'", "arg0namespace='org.example'",
        "arg0namespace='org'", "arg0namespace='org.example.x'", "arg2='y',arg0='x'",
        "member='Foo',arg0path='/a/'", "sender='" EMITTER_NAME "',path_namespace='/a',arg1='x'",
        "interface='org.example.B',arg0namespace='org.example'",
        "eavesdrop='true'", "eavesdrop='true',member='Foo'", "eavesdrop='true',arg0='x'",
        "eavesdrop='false',member='Foo'",
};

static const char *const paths[] = { "/", "/a", "/a/b", "/a/b/c", "/ab", "/x" };
static const char *const ifaces[] = { "org.example.A", "org.example.B" };
static const char *const members[] = { "Foo", "Bar" };
static const char *const strings[] = {
        "x", "", "y", "/a/", "/a/b", "/a/b/c", "/a", "/", "org.example", "org.example.x",
        "org.examplex", "org", "org.example.x.y",
};

typedef struct Signal {
        bool unicast;           /* to listener 0 rather than broadcast */
        const char *path, *iface, *member;
        MessageArg args[3];
        unsigned n_args;
} Signal;

static void random_signal(unsigned *seed, Signal *s) {
        *seed = *seed * 1103515245u + 12345u;
        unsigned x = *seed >> 4;

        s->path = paths[x % ELEMENTSOF(paths)];
        s->iface = ifaces[(x / 8) % 2];
        s->member = members[(x / 16) % 2];
        s->n_args = (x / 32) % 4;
        s->unicast = (x / 128) % 4 == 0;
        for (unsigned i = 0; i < s->n_args; i++) {
                *seed = *seed * 1103515245u + 12345u;
                unsigned y = *seed >> 4;
                const char *str = strings[y % ELEMENTSOF(strings)];
                /* Some object-path arguments, where the value is a valid path. */
                bool as_path = (y / 16) % 3 == 0 && str[0] == '/' && (str[1] == '\0' || str[strlen(str) - 1] != '/');
                s->args[i] = (MessageArg){ str, as_path ? 'o' : 's' };
        }
}

static int emit(DBusConnection *emitter, const Signal *s, const char *unicast_to) {
        DBusMessage *m = dbus_message_new_signal(s->path, s->iface, s->member);
        DBusMessageIter iter;

        if (!m || (s->unicast && !dbus_message_set_destination(m, unicast_to)))
                return -1;
        dbus_message_iter_init_append(m, &iter);
        for (unsigned i = 0; i < s->n_args; i++) {
                int type = s->args[i].type == 'o' ? DBUS_TYPE_OBJECT_PATH : DBUS_TYPE_STRING;
                if (!dbus_message_iter_append_basic(&iter, type, &s->args[i].str)) {
                        dbus_message_unref(m);
                        return -1;
                }
        }
        /* Its serial tells the listeners which signal they got. */
        bool ok = dbus_connection_send(emitter, m, NULL);
        dbus_message_unref(m);
        return ok ? 0 : -1;
}

/* A round trip to the bus: everything the bus queued for us before is now read. */
static int barrier(DBusConnection *conn) {
        DBusError error;
        dbus_error_init(&error);
        char *id = dbus_bus_get_id(conn, &error);
        bool ok = id != NULL;
        dbus_free(id);
        dbus_error_free(&error);
        return ok ? 0 : -1;
}

static int add_match(DBusConnection *conn, const char *rule, bool add) {
        DBusError error;
        dbus_error_init(&error);
        if (add)
                dbus_bus_add_match(conn, rule, &error);
        else
                dbus_bus_remove_match(conn, rule, &error);
        bool ok = !dbus_error_is_set(&error);
        if (!ok)
                fprintf(stderr, "%s \"%s\": %s\n", add ? "AddMatch" : "RemoveMatch", rule, error.message);
        dbus_error_free(&error);
        return ok ? 0 : -1;
}

/* Which of this round's signals (by index) the listener received. */
static int received(DBusConnection *conn, const char *emitter_unique, unsigned first_serial,
                    bool got[SIGNALS_PER_ROUND]) {
        DBusMessage *m;

        memset(got, 0, SIGNALS_PER_ROUND * sizeof(bool));
        if (barrier(conn) < 0)
                return -1;
        while ((m = dbus_connection_pop_message(conn))) {
                const char *sender = dbus_message_get_sender(m);
                if (dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_SIGNAL && sender &&
                    strcmp(sender, emitter_unique) == 0 &&
                    !dbus_message_has_interface(m, "org.example.Probe")) {
                        unsigned i = dbus_message_get_serial(m) - first_serial;
                        if (i >= SIGNALS_PER_ROUND) {
                                dbus_message_unref(m);
                                return -1;
                        }
                        got[i] = true;
                }
                dbus_message_unref(m);
        }
        return 0;
}

static int run(const ReferenceDaemon *daemon, DBusConnection *emitter, DBusConnection **listeners) {
        NameRegistry *names = NULL;
        NamePeerState emitter_names;
        NameChange change;
        uint32_t reply;
        DBusError error;
        const char *current[N_LISTENERS] = { 0 };
        unsigned seed = 99, compared = 0, delivered = 0, eavesdropped = 0;
        int failures = 0;

        dbus_error_init(&error);
        if (dbus_bus_request_name(emitter, EMITTER_NAME, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error) != 1) {
                fprintf(stderr, "RequestName: %s\n", error.message);
                dbus_error_free(&error);
                return -1;
        }
        const char *emitter_unique = dbus_bus_get_unique_name(emitter);
        if (name_registry_new(&names) < 0)
                return -1;
        name_peer_state_init(&emitter_names, NULL, emitter_unique);
        NamePeerState target_names;
        name_peer_state_init(&target_names, NULL, dbus_bus_get_unique_name(listeners[0]));
        names_request(names, &emitter_names, EMITTER_NAME, 0, SIZE_MAX, &change, &reply);

        for (int round = 0; round < N_ROUNDS && failures == 0; round++) {
                MatchRule *rules[N_LISTENERS] = { 0 };
                Signal signals[SIGNALS_PER_ROUND];

                for (size_t l = 0; l < N_LISTENERS; l++) {
                        seed = seed * 1103515245u + 12345u;
                        const char *rule = rule_pool[(seed >> 8) % ELEMENTSOF(rule_pool)];
                        if ((current[l] && add_match(listeners[l], current[l], false) < 0) ||
                            add_match(listeners[l], rule, true) < 0 ||
                            match_rule_parse(rule, strlen(rule), &rules[l]) != 0)
                                return -1;
                        current[l] = rule;
                }
                /* Everything before (the previous round, Hello's signals) is out of the way. */
                for (size_t l = 0; l < N_LISTENERS; l++) {
                        bool ignored[SIGNALS_PER_ROUND];
                        if (received(listeners[l], "", 0, ignored) < 0)
                                return -1;
                }

                for (size_t i = 0; i < SIGNALS_PER_ROUND; i++) {
                        random_signal(&seed, &signals[i]);
                        if (emit(emitter, &signals[i], dbus_bus_get_unique_name(listeners[0])) < 0)
                                return -1;
                }
                /* libdbus numbers messages in order: recover the first serial from a probe. */
                DBusMessage *probe = dbus_message_new_signal("/", "org.example.Probe", "P");
                dbus_uint32_t probe_serial = 0;
                if (!probe || !dbus_connection_send(emitter, probe, &probe_serial))
                        return -1;
                dbus_message_unref(probe);
                unsigned first_serial = probe_serial - SIGNALS_PER_ROUND;
                if (barrier(emitter) < 0)
                        return -1;

                for (size_t l = 0; l < N_LISTENERS; l++) {
                        bool got[SIGNALS_PER_ROUND];
                        if (received(listeners[l], emitter_unique, first_serial, got) < 0)
                                return -1;
                        for (size_t i = 0; i < SIGNALS_PER_ROUND; i++) {
                                MatchMessage msg = {
                                        .type = MESSAGE_SIGNAL, .sender = emitter_unique,
                                        .sender_names = &emitter_names, .path = signals[i].path,
                                        .interface = signals[i].iface, .member = signals[i].member,
                                        .args = signals[i].args, .n_args = signals[i].n_args,
                                };
                                if (signals[i].unicast) {
                                        msg.destination = dbus_bus_get_unique_name(listeners[0]);
                                        msg.destination_names = &target_names;
                                }
                                /* The addressed listener gets it by routing, whatever its rule. */
                                bool expected = (signals[i].unicast && l == 0) ||
                                                match_rule_matches(rules[l], &msg);
                                compared++;
                                delivered += got[i];
                                eavesdropped += got[i] && signals[i].unicast && l != 0;
                                if (expected != got[i]) {
                                        fprintf(stderr, "rule \"%s\", signal %s %s.%s (%u args: %s%c): "
                                                "dbus-daemon %s, ours %s\n", current[l], signals[i].path,
                                                signals[i].iface, signals[i].member, signals[i].n_args,
                                                signals[i].n_args ? signals[i].args[0].str : "",
                                                signals[i].n_args ? signals[i].args[0].type : ' ',
                                                got[i] ? "delivered" : "not delivered",
                                                expected ? "matches" : "does not match");
                                        failures++;
                                }
                        }
                        match_rule_free(rules[l]);
                }
        }

        while (names_release_next(names, &emitter_names, &change) == 0)
                ;
        name_registry_free(names);
        printf("%u (rule, signal) pairs compared with dbus-daemon, %u delivered (%u eavesdropped), "
               "%d differences\n", compared, delivered, eavesdropped, failures);
        if (delivered < compared / 10 || delivered > compared - compared / 10 || eavesdropped == 0)
                return 1;
        return failures;
}

int main(void) {
        ReferenceDaemon daemon;
        DBusConnection *emitter = NULL, *listeners[N_LISTENERS] = { 0 };
        int r = -1;

        if (!reference_daemon_available()) {
                printf("no %s: skipped\n", REFERENCE_DAEMON);
                return 77;
        }
        if (reference_daemon_start(&daemon, 16, 512) < 0)
                return 1;
        emitter = reference_daemon_connect(&daemon);
        for (size_t l = 0; l < N_LISTENERS; l++)
                listeners[l] = reference_daemon_connect(&daemon);
        if (emitter && listeners[N_LISTENERS - 1])
                r = run(&daemon, emitter, listeners);
        if (r < 0)
                fprintf(stderr, "talking to dbus-daemon failed\n");
        reference_daemon_disconnect(emitter);
        for (size_t l = 0; l < N_LISTENERS; l++)
                reference_daemon_disconnect(listeners[l]);
        reference_daemon_stop(&daemon);
        return r == 0 ? 0 : 1;
}
