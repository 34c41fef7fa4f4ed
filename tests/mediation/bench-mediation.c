/*
 * Micro-benchmark of the cached Smack oracle and of mediation_check_message()
 * (built, never run by meson test):
 *
 *   build/tests/mediation/bench-mediation [ITERATIONS]
 *
 * The oracle asks a fake smackfs (tests/smack/fake-smackfs.c) on a miss;
 * every figure below is measured with a warm cache, which is the bus's
 * steady state (a miss is one access2 transaction in the kernel). The
 * policy has 201 declared names with 6 rules each, the destination owns
 * two names. Prints nanoseconds per operation, best of 5 runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builder.h"
#include "db-read.h"
#include "fake-smackfs.h"
#include "mediation.h"
#include "message.h"
#include "smack-oracle.h"

static volatile int sink;

static double now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

typedef void (*BenchFn)(void *userdata, long iterations);

static void run(const char *what, BenchFn fn, void *userdata, long iterations) {
        double best = 1e300;

        fn(userdata, iterations / 10);  /* warm up */
        for (int round = 0; round < 5; round++) {
                double start = now_ns();

                fn(userdata, iterations);
                double per_op = (now_ns() - start) / (double) iterations;
                if (per_op < best)
                        best = per_op;
        }
        printf("%-58s %8.1f ns\n", what, best);
}

static const SmackLabel *label(const char *text) {
        const SmackLabel *l = NULL;

        if (smack_label_intern(text, &l) != 0)
                abort();
        return l;
}

typedef struct OracleBench {
        SmackOracle *oracle;
        const SmackLabel *subjects[32];
        const SmackLabel *objects[32];
} OracleBench;

static void bench_one_pair(void *userdata, long iterations) {
        OracleBench *b = userdata;

        for (long i = 0; i < iterations; i++)
                sink += smack_has_access(b->oracle, b->subjects[0], b->objects[0], "w");
}

static void bench_many_pairs(void *userdata, long iterations) {
        OracleBench *b = userdata;

        for (long i = 0; i < iterations; i++)
                sink += smack_has_access(b->oracle, b->subjects[i & 31], b->objects[(i >> 5) & 31], "w");
}

static void bench_token(void *userdata, long iterations) {
        OracleBench *b = userdata;

        for (long i = 0; i < iterations; i++)
                sink += smack_has_token(b->oracle, b->subjects[0], "Cellular");
}

static void bench_refresh(void *userdata, long iterations) {
        OracleBench *b = userdata;

        for (long i = 0; i < iterations; i++)
                sink += smack_oracle_refresh(b->oracle);
}

typedef struct MessageBench {
        const MediationPeer *sender;
        const MediationPeer *receiver;
        Message *m;
        const PolicyDb *db;
        SmackOracle *oracle;
        int expected;
} MessageBench;

static void bench_message(void *userdata, long iterations) {
        MessageBench *b = userdata;
        MediationVerdict verdict;

        for (long i = 0; i < iterations; i++) {
                int r = mediation_check_message(b->sender, b->receiver, b->m, false, b->db, b->oracle, &verdict);

                if (r != b->expected)
                        abort();
                sink += r;
        }
}

static PolicyDb *build_policy(void) {
        PolicyBuilder *builder = NULL;
        PolicyDb *db = NULL;
        uint8_t *data = NULL;
        char name[64], interface[64], member[64];
        size_t size;

        if (policy_builder_new(&builder) < 0)
                abort();
        for (int n = 0; n <= 200; n++) {
                uint32_t handle;

                if (n == 200)
                        snprintf(name, sizeof(name), "org.mssf.Cellular");
                else
                        snprintf(name, sizeof(name), "org.example.Service%d", n);
                snprintf(interface, sizeof(interface), "%s", name);
                if (policy_builder_add_name(builder, name, &handle) != 0 ||
                    policy_builder_add_owner(builder, handle, "cellular-daemon") != 0)
                        abort();
                for (int m = 0; m < 4; m++) {
                        snprintf(member, sizeof(member), "Method%d", m);
                        if (policy_builder_add_rule(builder, handle, POLICY_KIND_METHOD, "/org/mssf/Cellular",
                                                    interface, member, "Cellular") != 0)
                                abort();
                }
                if (policy_builder_add_rule(builder, handle, POLICY_KIND_SIGNAL, "/org/mssf/Cellular", interface,
                                            "Changed", "Cellular") != 0 ||
                    policy_builder_add_rule(builder, handle, POLICY_KIND_PROPERTY_READ, "/org/mssf/Cellular",
                                            interface, "Imei", "Cellular") != 0)
                        abort();
        }
        if (policy_builder_build(builder, &data, &size) != 0 || policy_db_open_buffer(data, size, &db) != 0)
                abort();
        policy_builder_free(builder);
        free(data);
        return db;
}

static Message *message(uint8_t type, const char *destination, const char *interface, const char *member,
                        const char *arg0, const char *arg1) {
        MessageBuilder *builder = NULL;
        Message *m = NULL;

        if (message_builder_new(type, &builder) < 0 || message_builder_set_path(builder, "/org/mssf/Cellular") < 0 ||
            message_builder_set_interface(builder, interface) < 0 || message_builder_set_member(builder, member) < 0 ||
            (destination && message_builder_set_destination(builder, destination) < 0) ||
            (arg0 && message_builder_append_basic(builder, 's', arg0) < 0) ||
            (arg1 && message_builder_append_basic(builder, 's', arg1) < 0) ||
            message_builder_finish(builder, &m) != 0)
                abort();
        message_builder_free(builder);
        return m;
}

int main(int argc, char **argv) {
        static const char *const cellular_names[] = { "com.example.Other", "org.mssf.Cellular" };
        static const char *const plain_names[] = { "com.example.Plain" };
        long iterations = argc > 1 ? atol(argv[1]) : 2000000;
        FakeSmackfs *fake = fake_smackfs_new(true);
        SmackOracle *oracle = NULL, *no_smack = NULL;
        PolicyDb *db = build_policy();
        OracleBench ob = {};
        MediationPeer app = { .unique_name = ":1.10" }, phone = { .unique_name = ":1.11" };
        MediationPeer cellular = { .unique_name = ":1.1", .names = cellular_names, .n_names = 2 };
        MediationPeer plain = { .unique_name = ":1.2", .names = plain_names, .n_names = 1 };
        char text[32];

        if (iterations <= 0)
                return 2;
        fake_smackfs_grant(fake, "phone", "Cellular", "w");
        fake_smackfs_grant(fake, "phone", "cellular-daemon", "w");
        fake_smackfs_grant(fake, "untrusted-app", "cellular-daemon", "w");
        fake_smackfs_grant(fake, "untrusted-app", "plain-daemon", "w");
        fake_smackfs_grant(fake, "cellular-daemon", "phone", "w");
        if (smack_oracle_new(fake->dir, &oracle) < 0 || smack_oracle_new("/nonexistent", &no_smack) < 0)
                return 1;
        app.label = label("untrusted-app");
        phone.label = label("phone");
        cellular.label = label("cellular-daemon");
        plain.label = label("plain-daemon");

        ob.oracle = oracle;
        for (int i = 0; i < 32; i++) {
                snprintf(text, sizeof(text), "subject%d", i);
                ob.subjects[i] = label(text);
                snprintf(text, sizeof(text), "object%d", i);
                ob.objects[i] = label(text);
        }
        printf("%ld iterations per run; cache %u slots\n", iterations, SMACK_ORACLE_CACHE_SLOTS);
        run("smack_has_access, cached, one pair", bench_one_pair, &ob, iterations * 5);
        run("smack_has_access, cached, 1024 pairs round robin", bench_many_pairs, &ob, iterations * 5);
        run("smack_has_token, cached (token looked up by name)", bench_token, &ob, iterations * 5);
        run("smack_oracle_refresh, nothing pending (one read)", bench_refresh, &ob, iterations / 10);

        {
                MessageBench cases[] = {
                        { &app, &plain, message(MESSAGE_METHOD_CALL, "com.example.Plain", "com.example.Plain",
                                                "Frob", NULL, NULL), db, oracle, 0 },
                        { &phone, &cellular, message(MESSAGE_METHOD_CALL, "org.mssf.Cellular", "org.mssf.Cellular",
                                                     "Method2", NULL, NULL), db, oracle, 0 },
                        { &phone, &cellular, message(MESSAGE_METHOD_CALL, "org.mssf.Cellular",
                                                     "org.freedesktop.DBus.Properties", "Get",
                                                     "org.mssf.Cellular", "Imei"), db, oracle, 0 },
                        { &cellular, &phone, message(MESSAGE_SIGNAL, NULL, "org.mssf.Cellular", "Changed", NULL,
                                                     NULL), db, oracle, 0 },
                        { &app, &cellular, message(MESSAGE_METHOD_CALL, "org.mssf.Cellular", "org.mssf.Cellular",
                                                   "Method2", NULL, NULL), db, oracle, MEDIATION_E_DENIED },
                        { &app, &plain, message(MESSAGE_METHOD_CALL, "com.example.Plain", "com.example.Plain",
                                                "Frob", NULL, NULL), db, no_smack, 0 },
                };
                static const char *const names[] = {
                        "mediation: call to an undeclared service (Smack only)",
                        "mediation: call under a declared name, token held",
                        "mediation: Properties.Get of a protected property",
                        "mediation: protected signal to one recipient",
                        "mediation: call denied (token missing, text built)",
                        "mediation: no Smack, undeclared service",
                };

                for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                        run(names[i], bench_message, &cases[i], iterations);
                        message_unref(cases[i].m);
                }
        }
        {
                SmackOracleStats stats;

                smack_oracle_get_stats(oracle, &stats);
                printf("oracle: %llu questions, %llu cache hits, %llu to the (fake) kernel\n",
                       (unsigned long long) stats.queries, (unsigned long long) stats.cache_hits,
                       (unsigned long long) stats.kernel_queries);
        }
        smack_oracle_free(oracle);
        smack_oracle_free(no_smack);
        policy_db_free(db);
        fake_smackfs_free(fake);
        return 0;
}
