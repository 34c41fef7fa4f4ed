/*
 * One program for the bus benchmarks, with sd-bus as the client library on
 * every bus so that only the bus differs between runs:
 *
 *   bench-bus server ADDR                  echo service "org.mssf.Bench"
 *   bench-bus latency ADDR COUNT SIZE      sequential calls: median, p99 (us)
 *   bench-bus throughput ADDR SECS SIZE WINDOW
 *                                          WINDOW calls kept in flight: calls/s
 *   bench-bus idle ADDR COUNT              COUNT connections that said Hello,
 *                                          held until stdin closes
 *   bench-bus connect ADDR COUNT           a storm: COUNT connections opened one
 *                                          after another, each to its Hello
 *                                          reply, all held: connects/s
 *   bench-bus names ADDR COUNT CALLS       one connection owns COUNT names;
 *                                          ListNames and GetNameOwner, CALLS of
 *                                          each: median (us)
 *   bench-bus fanout ADDR SUBS RULES COUNT SUBS connections with RULES match rules
 *                                          each, one of which matches; COUNT
 *                                          broadcasts: deliveries/s, and the
 *                                          same with no rule matching: signals/s
 *   bench-bus churn ADDR NAMES             RequestName and ReleaseName of NAMES
 *                                          names: names/s
 *
 * Results go to stdout as "key value" lines for the driver script.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"

#define BENCH_NAME "org.mssf.Bench"
#define BENCH_PATH "/org/mssf/Bench"
#define BENCH_IFACE "org.mssf.Bench"

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int bus_connect(const char *address, sd_bus **ret) {
        sd_bus *bus = NULL;
        int r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

static int method_echo(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const void *data;
        size_t size;
        int r = sd_bus_message_read_array(m, 'y', &data, &size);
        if (r < 0)
                return r;
        sd_bus_message *reply = NULL;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append_array(reply, 'y', data, size);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r < 0 ? r : 1;
}

static const sd_bus_vtable echo_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Echo", "ay", "ay", method_echo, 0),
        SD_BUS_VTABLE_END,
};

static int run_server(const char *address) {
        sd_bus *bus = NULL;
        int r = bus_connect(address, &bus);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, BENCH_PATH, BENCH_IFACE, echo_vtable, NULL);
        if (r >= 0)
                r = sd_bus_request_name(bus, BENCH_NAME, 0);
        if (r < 0) {
                fprintf(stderr, "server: %s\n", strerror(-r));
                return 1;
        }
        printf("ready\n");
        fflush(stdout);
        for (;;) {
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        break;
                if (r == 0 && sd_bus_wait(bus, UINT64_MAX) < 0)
                        break;
        }
        sd_bus_flush_close_unref(bus);
        return 0;
}

static int new_echo_call(sd_bus *bus, const void *payload, size_t size, sd_bus_message **ret) {
        sd_bus_message *m = NULL;
        int r = sd_bus_message_new_method_call(bus, &m, BENCH_NAME, BENCH_PATH, BENCH_IFACE, "Echo");
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'y', payload, size);
        if (r < 0) {
                sd_bus_message_unref(m);
                return r;
        }
        *ret = m;
        return 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

static int run_latency(const char *address, unsigned count, size_t size) {
        sd_bus *bus = NULL;
        _cleanup_free_ uint8_t *payload = calloc(1, size ? size : 1);
        _cleanup_free_ uint64_t *samples = calloc(count, sizeof(uint64_t));
        if (!payload || !samples || bus_connect(address, &bus) < 0)
                return 1;
        for (unsigned i = 0; i < count + count / 10; i++) {
                sd_bus_message *m = NULL, *reply = NULL;
                sd_bus_error error = SD_BUS_ERROR_NULL;
                if (new_echo_call(bus, payload, size, &m) < 0)
                        return 1;
                uint64_t t0 = now_ns();
                int r = sd_bus_call(bus, m, 0, &error, &reply);
                uint64_t t1 = now_ns();
                sd_bus_message_unref(m);
                sd_bus_message_unref(reply);
                if (r < 0) {
                        fprintf(stderr, "latency: %s\n", error.message ? error.message : strerror(-r));
                        return 1;
                }
                sd_bus_error_free(&error);
                if (i >= count / 10) /* the first tenth warms up */
                        samples[i - count / 10] = t1 - t0;
        }
        qsort(samples, count, sizeof(uint64_t), cmp_u64);
        printf("median_us %.1f\n", samples[count / 2] / 1000.0);
        printf("p99_us %.1f\n", samples[(size_t)count * 99 / 100] / 1000.0);
        sd_bus_flush_close_unref(bus);
        return 0;
}

typedef struct Pipeline {
        sd_bus *bus;
        const uint8_t *payload;
        size_t size;
        uint64_t done;
        int failed;
} Pipeline;

static int send_one(Pipeline *p);

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Pipeline *p = userdata;
        if (sd_bus_message_is_method_error(reply, NULL)) {
                fprintf(stderr, "throughput: %s\n", sd_bus_message_get_error(reply)->message);
                p->failed = 1;
                return 0;
        }
        p->done++;
        if (send_one(p) < 0)
                p->failed = 1;
        return 0;
}

static int send_one(Pipeline *p) {
        sd_bus_message *m = NULL;
        int r = new_echo_call(p->bus, p->payload, p->size, &m);
        if (r >= 0)
                r = sd_bus_call_async(p->bus, NULL, m, on_reply, p, 0);
        sd_bus_message_unref(m);
        return r;
}

static int run_throughput(const char *address, double seconds, size_t size, unsigned window) {
        _cleanup_free_ uint8_t *payload = calloc(1, size ? size : 1);
        Pipeline p = { .payload = payload, .size = size };
        if (!payload || bus_connect(address, &p.bus) < 0)
                return 1;
        for (unsigned i = 0; i < window; i++)
                if (send_one(&p) < 0)
                        return 1;
        uint64_t start = now_ns(), warm = start + 200000000u, end = 0;
        uint64_t done_at_warm = 0;
        int warmed = 0;
        for (;;) {
                int r = sd_bus_process(p.bus, NULL);
                if (r < 0 || p.failed)
                        return 1;
                uint64_t t = now_ns();
                if (!warmed && t >= warm) {
                        warmed = 1;
                        done_at_warm = p.done;
                        start = t;
                        end = t + (uint64_t)(seconds * 1e9);
                }
                if (warmed && t >= end)
                        break;
                if (r == 0 && sd_bus_wait(p.bus, 100000) < 0)
                        return 1;
        }
        printf("calls_per_s %.0f\n", (p.done - done_at_warm) / ((now_ns() - start) / 1e9));
        sd_bus_close(p.bus);
        sd_bus_unref(p.bus);
        return 0;
}

static int run_idle(const char *address, unsigned count) {
        struct rlimit rl = { count + 64, count + 64 };
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                perror("setrlimit");
        sd_bus **buses = calloc(count, sizeof(sd_bus *));
        if (!buses)
                return 1;
        for (unsigned i = 0; i < count; i++) {
                int r = bus_connect(address, &buses[i]);
                if (r >= 0)
                        r = sd_bus_get_unique_name(buses[i], &(const char *){ NULL });
                if (r < 0) {
                        fprintf(stderr, "idle: connection %u: %s\n", i, strerror(-r));
                        return 1;
                }
        }
        printf("ready\n");
        fflush(stdout);
        char c;
        while (read(STDIN_FILENO, &c, 1) > 0)
                ;
        for (unsigned i = 0; i < count; i++)
                sd_bus_flush_close_unref(buses[i]);
        free(buses);
        return 0;
}

static int raise_nofile(unsigned count) {
        struct rlimit rl = { count + 64, count + 64 };

        if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
                perror("setrlimit");
                return -errno;
        }
        return 0;
}

static int run_connect(const char *address, unsigned count) {
        sd_bus **buses = calloc(count, sizeof(sd_bus *));
        uint64_t start;
        int failed = 0;

        if (!buses || raise_nofile(count) < 0)
                return 1;
        start = now_ns();
        for (unsigned i = 0; i < count; i++) {
                /* sd_bus_start() returns before Hello's reply: asking the unique name waits for it. */
                int r = bus_connect(address, &buses[i]);
                if (r >= 0)
                        r = sd_bus_get_unique_name(buses[i], &(const char *){ NULL });
                if (r < 0) {
                        fprintf(stderr, "connect: connection %u: %s\n", i, strerror(-r));
                        failed = 1;
                        count = i;
                        break;
                }
        }
        if (!failed)
                printf("connects_per_s %.0f\n", count / ((now_ns() - start) / 1e9));
        for (unsigned i = 0; i < count; i++)
                sd_bus_flush_close_unref(buses[i]);
        free(buses);
        return failed;
}

static int call_driver(sd_bus *bus, const char *member, const char *name, uint64_t *ret_ns) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        uint64_t start = now_ns();
        int r = name ? sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                          "org.freedesktop.DBus", member, &error, &reply, "s", name) :
                       sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                          "org.freedesktop.DBus", member, &error, &reply, "");

        *ret_ns = now_ns() - start;
        if (r < 0)
                fprintf(stderr, "names: %s: %s\n", member, error.message ? error.message : strerror(-r));
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        return r;
}

static int run_names(const char *address, unsigned count, unsigned calls) {
        uint64_t *list = calloc(calls, sizeof(uint64_t)), *owner = calloc(calls, sizeof(uint64_t));
        sd_bus *bus = NULL;
        char name[64];
        int r;

        if (!list || !owner || bus_connect(address, &bus) < 0)
                return 1;
        for (unsigned i = 0; i < count; i++) {
                snprintf(name, sizeof(name), "org.mssf.BenchName.n%u", i);
                r = sd_bus_request_name(bus, name, 0);
                if (r < 0) {
                        fprintf(stderr, "names: RequestName %s: %s\n", name, strerror(-r));
                        return 1;
                }
        }
        srand(42);
        for (unsigned i = 0; i < calls; i++) {
                snprintf(name, sizeof(name), "org.mssf.BenchName.n%u", (unsigned) rand() % count);
                if (call_driver(bus, "ListNames", NULL, &list[i]) < 0 ||
                    call_driver(bus, "GetNameOwner", name, &owner[i]) < 0)
                        return 1;
        }
        qsort(list, calls, sizeof(uint64_t), cmp_u64);
        qsort(owner, calls, sizeof(uint64_t), cmp_u64);
        printf("listnames_us %.1f\n", list[calls / 2] / 1000.0);
        printf("getnameowner_us %.1f\n", owner[calls / 2] / 1000.0);
        sd_bus_flush_close_unref(bus);
        free(list);
        free(owner);
        return 0;
}

static int subscribe(sd_bus *bus, unsigned rules, bool match) {
        char rule[160];

        for (unsigned i = 0; i < rules; i++) {
                int r;

                /* The one matching rule last: every other one is looked at first. */
                if (match && i == rules - 1)
                        snprintf(rule, sizeof(rule), "type='signal',interface='org.mssf.Fan',member='Tick'");
                else    /* the same interface: no index by interface spares a look at it */
                        snprintf(rule, sizeof(rule), "type='signal',interface='org.mssf.Fan',member='M%u'", i);
                r = sd_bus_add_match(bus, NULL, rule, NULL, NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A round trip to the driver: everything sent before it was handled. */
static int sync_bus(sd_bus *bus) {
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus.Peer", "Ping", NULL, &reply, "");

        sd_bus_message_unref(reply);
        return r;
}

static int emit(sd_bus *sender, unsigned count) {
        for (unsigned i = 0; i < count; i++) {
                int r = sd_bus_emit_signal(sender, "/org/mssf/Fan", "org.mssf.Fan", "Tick", "u", i);
                if (r < 0)
                        return r;
                /* Not faster than the bus reads: its queue toward us is bounded. */
                if (i % 64 == 63) {
                        r = sd_bus_flush(sender);
                        if (r < 0)
                                return r;
                }
        }
        return sd_bus_flush(sender);
}

static int run_fanout_one(const char *address, unsigned subs, unsigned rules, unsigned count, bool match,
                          double *ret) {
        sd_bus **buses = calloc(subs, sizeof(sd_bus *)), *sender = NULL;
        unsigned *got = calloc(subs, sizeof(unsigned));
        uint64_t start, total = 0;
        int r = 0;

        if (!buses || !got || raise_nofile(subs + 16) < 0 || bus_connect(address, &sender) < 0)
                return -ENOMEM;
        for (unsigned i = 0; r >= 0 && i < subs; i++) {
                r = bus_connect(address, &buses[i]);
                if (r >= 0)
                        r = subscribe(buses[i], rules, match);
        }
        for (unsigned i = 0; r >= 0 && i < subs; i++)
                r = sync_bus(buses[i]);         /* every rule is in place */
        if (r < 0)
                goto out;
        start = now_ns();
        r = emit(sender, count);
        if (r >= 0 && !match)
                r = sync_bus(sender);
        while (r >= 0 && match && total < (uint64_t) subs * count) {
                bool progress = false;

                for (unsigned i = 0; r >= 0 && i < subs; i++) {
                        sd_bus_message *m = NULL;

                        while (got[i] < count && (r = sd_bus_process(buses[i], &m)) > 0) {
                                if (m && sd_bus_message_is_signal(m, "org.mssf.Fan", "Tick")) {
                                        got[i]++;
                                        total++;
                                }
                                sd_bus_message_unref(m);
                                m = NULL;
                                progress = true;
                        }
                }
                if (r >= 0 && !progress)
                        r = sd_bus_wait(buses[0], 1000);
        }
        if (r >= 0)
                *ret = (match ? (double) subs * count : (double) count) / ((now_ns() - start) / 1e9);
out:
        for (unsigned i = 0; i < subs; i++)
                sd_bus_flush_close_unref(buses[i]);
        sd_bus_flush_close_unref(sender);
        free(buses);
        free(got);
        return r < 0 ? r : 0;
}

static int run_fanout(const char *address, unsigned subs, unsigned rules, unsigned count) {
        double delivered = 0, unmatched = 0;
        int r = run_fanout_one(address, subs, rules, count, true, &delivered);

        if (r >= 0)
                r = run_fanout_one(address, subs, rules, count * 4, false, &unmatched);
        if (r < 0) {
                fprintf(stderr, "fanout: %s\n", strerror(-r));
                return 1;
        }
        printf("fanout_per_s %.0f\n", delivered);
        printf("nomatch_per_s %.0f\n", unmatched);
        return 0;
}

static int run_churn(const char *address, unsigned names) {
        sd_bus *bus = NULL;
        char name[64];
        uint64_t start;

        if (bus_connect(address, &bus) < 0)
                return 1;
        start = now_ns();
        for (unsigned i = 0; i < names; i++) {
                snprintf(name, sizeof(name), "org.mssf.BenchChurn.n%u", i);
                if (sd_bus_request_name(bus, name, 0) < 0 || sd_bus_release_name(bus, name) < 0) {
                        fprintf(stderr, "churn: %s\n", name);
                        return 1;
                }
        }
        printf("churn_per_s %.0f\n", names / ((now_ns() - start) / 1e9));
        sd_bus_flush_close_unref(bus);
        return 0;
}

int main(int argc, char **argv) {
        if (argc >= 3 && !strcmp(argv[1], "server"))
                return run_server(argv[2]);
        if (argc >= 5 && !strcmp(argv[1], "latency"))
                return run_latency(argv[2], (unsigned)atoi(argv[3]), (size_t)atoi(argv[4]));
        if (argc >= 6 && !strcmp(argv[1], "throughput"))
                return run_throughput(argv[2], atof(argv[3]), (size_t)atoi(argv[4]), (unsigned)atoi(argv[5]));
        if (argc >= 4 && !strcmp(argv[1], "idle"))
                return run_idle(argv[2], (unsigned)atoi(argv[3]));
        if (argc >= 4 && !strcmp(argv[1], "connect"))
                return run_connect(argv[2], (unsigned)atoi(argv[3]));
        if (argc >= 5 && !strcmp(argv[1], "names"))
                return run_names(argv[2], (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]));
        if (argc >= 6 && !strcmp(argv[1], "fanout"))
                return run_fanout(argv[2], (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]),
                                  (unsigned)atoi(argv[5]));
        if (argc >= 4 && !strcmp(argv[1], "churn"))
                return run_churn(argv[2], (unsigned)atoi(argv[3]));
        fprintf(stderr, "usage: %s server|latency|throughput|idle|connect|names|fanout|churn ADDR ...\n",
                argv[0]);
        return 2;
}
