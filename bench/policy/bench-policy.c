/*
 * Benchmark of the compiled policy: generates the model of N packages
 * (default 1,000, each with a system bus name, two nodes, three interfaces
 * per node, methods, signals and properties), then measures
 *  - compiling the model into the file image (goal: < 1 s for 1,000),
 *  - loading (validating) the image,
 *  - one token decision for a method call, a call without interface, a
 *    signal, a property check and an ownership check (goal: < 1 us).
 * Decisions cycle through 4,096 different queries so that one hot cache
 * line does not flatter the figure; the oracle answers "held" at once, so
 * the time is the policy's alone (the bus adds its Smack cache lookup).
 * Run pinned: taskset -c 0 build/bench/bench-policy [N]. Not a test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compile.h"
#include "decide.h"
#include "model.h"
#include "policyset.h"

#define N_QUERIES 4096
#define METHODS 6
#define SIGNALS 2
#define PROPERTIES 2

static double now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void check(int r, const char *what) {
        if (r != 0) {
                fprintf(stderr, "%s failed: %d\n", what, r);
                exit(1);
        }
}

static const SourceLoc no_loc;

static void add_member(Interface *iface, MemberKind kind, const char *name, const char *token) {
        Member *m;

        check(member_new(kind, name, no_loc, &m), "member_new");
        check(requirement_set(&m->require, token ? REQUIREMENT_TOKEN : REQUIREMENT_OPEN, token,
                              no_loc), "requirement_set");
        if (kind == MEMBER_PROPERTY)
                check(requirement_copy(&m->write, &m->require), "requirement_copy");
        check(MODEL_APPEND(iface->members, iface->n_members, m), "append member");
}

static Interface *make_interface(unsigned p, unsigned n, unsigned i) {
        Interface *iface;
        char name[128], member[64], token[128];

        snprintf(name, sizeof(name), "com.example.p%u.Iface%u", p, i);
        check(interface_new(name, no_loc, &iface), "interface_new");
        if (i == 0)
                check(requirement_set(&iface->default_require, REQUIREMENT_OPEN, NULL, no_loc),
                      "default");
        for (unsigned m = 0; m < METHODS; m++) {
                snprintf(member, sizeof(member), "Method%u", m);
                snprintf(token, sizeof(token), "pkg%u::Token%u", p, (n + i + m) % 4);
                add_member(iface, MEMBER_METHOD, member, m % 3 == 0 ? NULL : token);
        }
        for (unsigned s = 0; s < SIGNALS; s++) {
                snprintf(member, sizeof(member), "Signal%u", s);
                add_member(iface, MEMBER_SIGNAL, member, s == 0 ? "Cellular" : NULL);
        }
        for (unsigned q = 0; q < PROPERTIES; q++) {
                snprintf(member, sizeof(member), "Prop%u", q);
                snprintf(token, sizeof(token), "pkg%u::Token%u", p, q);
                add_member(iface, MEMBER_PROPERTY, member, token);
        }
        return iface;
}

static Package *make_package(unsigned p) {
        Package *package;
        DbusName *d;
        char name[128], path[128];

        snprintf(name, sizeof(name), "pkg%u", p);
        check(package_new(name, NULL, "generated", &package), "package_new");
        snprintf(name, sizeof(name), "com.example.p%u", p);
        check(dbus_name_new(name, BUS_SYSTEM, no_loc, &d), "dbus_name_new");
        check(dbus_name_add_owner_label(d, package->name, no_loc), "owner");
        for (unsigned n = 0; n < 2; n++) {
                Node *node;

                snprintf(path, sizeof(path), "/com/example/p%u/obj%u", p, n);
                check(node_new(path, no_loc, &node), "node_new");
                for (unsigned i = 0; i < 3; i++) {
                        Interface *iface = make_interface(p, n, i);

                        check(MODEL_APPEND(node->interfaces, node->n_interfaces, iface), "iface");
                }
                check(MODEL_APPEND(d->nodes, d->n_nodes, node), "node");
        }
        check(MODEL_APPEND(package->names, package->n_names, d), "name");
        return package;
}

static PolicySet *make_set(unsigned n_packages) {
        PolicySet *set;

        check(policy_set_new(NULL, &set), "policy_set_new");
        for (unsigned p = 0; p < n_packages; p++) {
                Package *package = make_package(p);

                check(MODEL_APPEND(set->packages, set->n_packages, package), "package");
        }
        check(model_strv_append(&set->device->global_tokens, &set->device->n_global_tokens,
                                "Cellular"), "global");
        return set;
}

static int hold_all(const char *label, const char *token, void *userdata) {
        (*(unsigned long *) userdata)++;
        return 1;
}

typedef struct Query {
        char name[64], path[96], interface[96], member[32];
        PolicyMessage message;
} Query;

static Query *make_queries(unsigned n_packages, int variant) {
        Query *q = calloc(N_QUERIES, sizeof(Query));

        if (!q)
                exit(1);
        srand(42);
        for (unsigned i = 0; i < N_QUERIES; i++) {
                unsigned p = (unsigned) rand() % n_packages;

                snprintf(q[i].name, sizeof(q[i].name), "com.example.p%u", p);
                snprintf(q[i].path, sizeof(q[i].path), "/com/example/p%u/obj%u", p, i % 2);
                snprintf(q[i].interface, sizeof(q[i].interface), "com.example.p%u.Iface%u", p,
                         i % 3);
                snprintf(q[i].member, sizeof(q[i].member), variant == 2 ? "Signal%u" : "Method%u",
                         variant == 2 ? 0 : i % METHODS);
                q[i].message = (PolicyMessage) {
                        .type = variant == 2 ? POLICY_MESSAGE_SIGNAL : POLICY_MESSAGE_METHOD_CALL,
                        .path = q[i].path,
                        .interface = variant == 1 ? NULL : q[i].interface,
                        .member = q[i].member,
                };
        }
        return q;
}

/* ns per decision over iterations, each query a different name and rule. */
static double time_decisions(const PolicyDb *db, const Query *q, unsigned long iterations) {
        unsigned long held = 0;
        PolicyDecision d;
        double start = now();

        for (unsigned long i = 0; i < iterations; i++) {
                const Query *one = &q[i % N_QUERIES];
                const char *names[] = { one->name };

                if (policy_db_decide(db, names, 1, "app", &one->message, hold_all, &held, &d) < 0)
                        exit(1);
        }
        return (now() - start) * 1e9 / (double) iterations;
}

static double time_properties(const PolicyDb *db, const Query *q, unsigned long iterations) {
        unsigned long held = 0;
        PolicyDecision d;
        double start = now();

        for (unsigned long i = 0; i < iterations; i++) {
                const Query *one = &q[i % N_QUERIES];
                const char *names[] = { one->name };

                if (policy_db_check_property(db, names, 1, "app", POLICY_KIND_PROPERTY_READ,
                                             one->path, one->interface, "Prop1", hold_all, &held,
                                             &d) < 0)
                        exit(1);
        }
        return (now() - start) * 1e9 / (double) iterations;
}

static double time_may_own(const PolicyDb *db, const Query *q, unsigned long iterations) {
        unsigned long held = 0;
        PolicyDecision d;
        double start = now();

        for (unsigned long i = 0; i < iterations; i++)
                if (policy_db_may_own(db, q[i % N_QUERIES].name, "pkg1", hold_all, &held, &d) < 0)
                        exit(1);
        return (now() - start) * 1e9 / (double) iterations;
}

int main(int argc, char **argv) {
        unsigned n_packages = argc > 1 ? (unsigned) strtoul(argv[1], NULL, 10) : 1000;
        unsigned long iterations = 4000000;
        double best_compile = 1e9, best_load = 1e9, start;
        PolicySet *set;
        PolicyDb *db = NULL;
        uint8_t *data = NULL;
        size_t size = 0;
        Query *queries[3];

        if (n_packages == 0)
                return 2;
        start = now();
        set = make_set(n_packages);
        printf("model: %u packages generated in %.1f ms\n", n_packages, (now() - start) * 1e3);
        for (int run = 0; run < 5; run++) {
                start = now();
                free(data);
                check(policy_compile(set, &data, &size, NULL), "policy_compile");
                if (now() - start < best_compile)
                        best_compile = now() - start;
        }
        for (int run = 0; run < 5; run++) {
                policy_db_free(db);
                start = now();
                check(policy_db_open_buffer(data, size, &db), "policy_db_open_buffer");
                if (now() - start < best_load)
                        best_load = now() - start;
        }
        printf("compile: %.1f ms (best of 5), %zu bytes\n", best_compile * 1e3, size);
        printf("load+validate: %.2f ms (best of 5)\n", best_load * 1e3);
        for (int v = 0; v < 3; v++)
                queries[v] = make_queries(n_packages, v);
        printf("decide method call: %.0f ns\n", time_decisions(db, queries[0], iterations));
        printf("decide call without interface: %.0f ns\n",
               time_decisions(db, queries[1], iterations));
        printf("decide signal: %.0f ns\n", time_decisions(db, queries[2], iterations));
        printf("check property: %.0f ns\n", time_properties(db, queries[0], iterations));
        printf("may own: %.0f ns\n", time_may_own(db, queries[0], iterations));
        for (int v = 0; v < 3; v++)
                free(queries[v]);
        policy_db_free(db);
        free(data);
        policy_set_free(set);
        return 0;
}
