/*
 * Benchmark (not a test): broadcast matching with 1,000 peers x 10 rules,
 * a mix modelled on what desktop and system clients really register
 * (sd-bus and GDBus name tracking, PropertiesChanged on one service,
 * signals of a few interfaces, some catch-alls). Prints ns per dispatch
 * and recipients found for several kinds of message.
 *     bench-match [iterations]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "match-internal.h"
#include "message.h"
#include "names.h"

#define N_PEERS 1000
#define RULES_PER_PEER 10

static int count(void *userdata, MatchOwner *owner, bool eavesdrop) {
        (*(unsigned long *)userdata)++;
        return 0;
}

static double now_ns(void) {
        struct timespec ts;
        /* CPU time of this thread: other load on the machine does not count. */
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Copies tmpl into out with its '@' replaced by v (templates, not formats). */
static int expand(const char *tmpl, int v, char *out, size_t size) {
        const char *at = strchr(tmpl, '@');
        if (!at)
                return snprintf(out, size, "%s", tmpl);
        return snprintf(out, size, "%.*s%d%s", (int)(at - tmpl), tmpl, v, at + 1);
}

static void add_rules(MatchOwner *owner, int peer) {
        char rule[512];
        const char *templates[RULES_PER_PEER] = {
                "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.example.Svc@'",
                "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0=':1.@'",
                "type='signal',sender='org.example.Svc@',path='/org/example/Svc',"
                "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
                "type='signal',sender='org.freedesktop.NetworkManager',"
                "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                "path_namespace='/org/freedesktop/NetworkManager/Devices/@'",
                "type='signal',interface='org.example.Iface@',member='Changed'",
                "type='signal',sender='org.freedesktop.login1',interface='org.freedesktop.login1.Manager',"
                "member='PrepareForSleep',path='/org/freedesktop/login1',arg0path='/@/'",
                "type='signal',sender=':1.@',interface='org.freedesktop.DBus.ObjectManager'",
                "type='signal',path='/org/example/Obj@'",
                "type='signal',interface='org.example.Broadcast',member='Tick@'",
                "type='signal',sender='org.freedesktop.DBus',member='NameAcquired',arg0='org.x.N@'",
        };

        for (int i = 0; i < RULES_PER_PEER; i++) {
                int n = expand(templates[i], peer % (i == 3 || i == 5 ? 20 : N_PEERS), rule, sizeof(rule));
                if (match_owner_add(owner, rule, (size_t)n, 1000) != 0) {
                        fprintf(stderr, "rule refused: %s\n", rule);
                        exit(1);
                }
        }
}

typedef struct Case {
        const char *name;
        MatchMessage msg;
} Case;

int main(int argc, char **argv) {
        long iterations = argc > 1 ? atol(argv[1]) : 200000;
        static MatchOwner owners[N_PEERS];
        static NamePeerState nm_names, svc_names;
        MatchRegistry *registry = NULL;
        NameRegistry *names = NULL;
        NameChange change;
        uint32_t reply;

        if (match_registry_new(&registry) < 0 || name_registry_new(&names) < 0)
                return 1;
        for (int i = 0; i < N_PEERS; i++) {
                match_owner_init(&owners[i], registry, (struct Peer *)&owners[i]);
                add_rules(&owners[i], i);
        }
        name_peer_state_init(&nm_names, NULL, ":1.5000");
        name_peer_state_init(&svc_names, NULL, ":1.5001");
        names_request(names, &nm_names, "org.freedesktop.NetworkManager", 0, 10, &change, &reply);
        names_request(names, &svc_names, "org.example.Svc7", 0, 10, &change, &reply);

        MessageArg noc_args[3] = { { "org.example.Svc42", 's' }, { "", 's' }, { ":1.99", 's' } };
        MessageArg props_args[3] = { { "org.example.Iface", 's' }, { NULL, 'a' }, { NULL, 'a' } };
        Case cases[] = {
                { "NameOwnerChanged (1,000 arg0 rules)", {
                        .type = MESSAGE_SIGNAL, .sender = "org.freedesktop.DBus",
                        .path = "/org/freedesktop/DBus", .interface = "org.freedesktop.DBus",
                        .member = "NameOwnerChanged", .args = noc_args, .n_args = 3 } },
                { "PropertiesChanged from a service", {
                        .type = MESSAGE_SIGNAL, .sender = ":1.5001", .sender_names = &svc_names,
                        .path = "/org/example/Svc", .interface = "org.freedesktop.DBus.Properties",
                        .member = "PropertiesChanged", .args = props_args, .n_args = 3 } },
                { "NetworkManager device PropertiesChanged", {
                        .type = MESSAGE_SIGNAL, .sender = ":1.5000", .sender_names = &nm_names,
                        .path = "/org/freedesktop/NetworkManager/Devices/3",
                        .interface = "org.freedesktop.DBus.Properties",
                        .member = "PropertiesChanged", .args = props_args, .n_args = 3 } },
                { "signal nobody wants", {
                        .type = MESSAGE_SIGNAL, .sender = ":1.6000", .path = "/x",
                        .interface = "org.example.Nothing", .member = "Nope" } },
                { "Tick7 broadcast", {
                        .type = MESSAGE_SIGNAL, .sender = ":1.6000", .path = "/x",
                        .interface = "org.example.Broadcast", .member = "Tick7" } },
                { "unicast method call (eavesdrop check)", {
                        .type = MESSAGE_METHOD_CALL, .sender = ":1.6000", .destination = ":1.5000",
                        .path = "/x", .interface = "org.example.Iface1", .member = "Changed" } },
        };

        printf("%d peers x %d rules = %zu rules, %ld iterations per case\n", N_PEERS, RULES_PER_PEER,
               match_registry_n_rules(registry), iterations);
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                unsigned long recipients = 0;
                double start = now_ns();
                for (long i = 0; i < iterations; i++)
                        match_registry_dispatch(registry, &cases[c].msg, count, &recipients);
                double elapsed = now_ns() - start;
                printf("  %-42s %9.1f ns/dispatch, %lu recipients\n", cases[c].name,
                       elapsed / (double)iterations, recipients / (unsigned long)iterations);
        }

        /* For scale: the same messages tested against every rule, without the index. */
        long linear_iterations = iterations / 100 > 0 ? iterations / 100 : 1;
        for (size_t c = 0; c < 2; c++) {
                unsigned long recipients = 0;
                double start = now_ns();
                for (long i = 0; i < linear_iterations; i++)
                        for (int o = 0; o < N_PEERS; o++)
                                for (IList *l = owners[o].rules.next; l != &owners[o].rules; l = l->next)
                                        if (match_rule_matches(ILIST_ENTRY(l, MatchRule, owner_link),
                                                               &cases[c].msg)) {
                                                recipients++;
                                                break;
                                        }
                double elapsed = now_ns() - start;
                printf("  %-42s %9.1f ns/dispatch, %lu recipients (every rule tested)\n", cases[c].name,
                       elapsed / (double)linear_iterations, recipients / (unsigned long)linear_iterations);
        }

        /* Churn: AddMatch + RemoveMatch of one more rule, and a whole peer leaving. */
        double start = now_ns();
        for (long i = 0; i < iterations; i++) {
                static const char rule[] = "type='signal',sender='org.example.Churn',member='X',arg0='y'";
                match_owner_add(&owners[0], rule, sizeof(rule) - 1, 1000);
                match_owner_remove(&owners[0], rule, sizeof(rule) - 1);
        }
        printf("  %-42s %9.1f ns\n", "AddMatch + RemoveMatch", (now_ns() - start) / (double)iterations);
        start = now_ns();
        for (int i = 0; i < N_PEERS; i++)
                match_owner_deinit(&owners[i]);
        printf("  %-42s %9.1f ns per peer (%d rules each)\n", "disconnect",
               (now_ns() - start) / N_PEERS, RULES_PER_PEER);
        while (names_release_next(names, &nm_names, &change) == 0)
                ;
        while (names_release_next(names, &svc_names, &change) == 0)
                ;
        name_registry_free(names);
        match_registry_free(registry);
        return 0;
}
