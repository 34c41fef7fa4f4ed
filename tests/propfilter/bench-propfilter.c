/*
 * Micro-benchmark of propfilter_filter() (built, not run by meson test):
 * the unchanged path (nothing hidden: a scan and a reference) and the
 * rebuild (5 of 20 properties hidden) of a 20-property GetAll reply, and
 * the same for a GetManagedObjects reply of 10 objects x 3 interfaces x
 * 5 properties. The callback is a few string compares, so the figures are
 * the filter's own cost. Prints the median of 7 rounds, ns per message.
 *
 *   build-dir/tests/propfilter/bench-propfilter [iterations [only]]
 *
 * only (1-4) runs one of the four, e.g. under perf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "propfilter-testlib.h"

static const char *const hidden_names[] = { "P3", "P7", "N11", "P15", "S19" };

static int bench_visible(const char *path, const char *interface, const char *property,
                         void *userdata) {
        bool *hide = userdata;

        if (!*hide || !property)
                return 1;
        for (size_t i = 0; i < ELEMENTSOF(hidden_names); i++)
                if (strcmp(property, hidden_names[i]) == 0)
                        return 0;
        return 1;
}

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int compare_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

static unsigned only, n_benches;

static double bench(const char *what, Message *m, const PropfilterCall *call, bool hide,
                    unsigned iterations) {
        uint64_t rounds[7];

        if (only && ++n_benches != only)
                return 0;
        for (size_t round = 0; round < ELEMENTSOF(rounds); round++) {
                uint64_t start = now_ns();

                for (unsigned i = 0; i < iterations; i++) {
                        Message *out = NULL;

                        if (propfilter_filter(m, call, bench_visible, &hide, &out) != 0)
                                abort();
                        message_unref(out);
                }
                rounds[round] = now_ns() - start;
        }
        qsort(rounds, ELEMENTSOF(rounds), sizeof(rounds[0]), compare_u64);
        printf("%-44s %9.1f ns\n", what, (double) rounds[3] / iterations);
        return (double) rounds[3] / iterations;
}

int main(int argc, char **argv) {
        const char *properties = "P0,P1,P2,P3,P4,P5,P6,P7,P8,P9,N10,N11,S12,S13,P14,P15,P16,P17,V18,S19";
        static char path[] = "/org/ex\0org.ex.I";
        PropfilterCall get_all = { .kind = PROPFILTER_GET_ALL, .exact = true, .path = path,
                                   .interface = path + 8 };
        PropfilterCall managed = { .kind = PROPFILTER_GET_MANAGED_OBJECTS, .exact = true };
        unsigned iterations = argc > 1 ? (unsigned) strtoul(argv[1], NULL, 10) : 100000;
        _cleanup_(message_unrefp) Message *reply = NULL, *objects = NULL;
        char spec[4096] = "";

        only = argc > 2 ? (unsigned) strtoul(argv[2], NULL, 10) : 0;
        size_t size;

        if (testlib_get_all_reply(properties, &reply) != 0)
                return 1;
        for (unsigned o = 0; o < 10; o++) {
                size_t len = strlen(spec);

                snprintf(spec + len, sizeof(spec) - len,
                         "%s/obj%u:org.ex.A=P0,P1,P2,P3,P4;org.ex.B=P5,P6,P7,P8,P9;org.ex.C=N10,N11,S12,S13,P14",
                         o ? "|" : "", o);
        }
        if (testlib_managed_objects_reply(spec, &objects) != 0)
                return 1;
        message_get_data(reply, &size);
        printf("GetAll reply: 20 properties, %zu bytes\n", size);
        bench("GetAll, nothing hidden (unchanged)", reply, &get_all, false, iterations);
        bench("GetAll, 5 of 20 hidden (rebuilt)", reply, &get_all, true, iterations);
        message_get_data(objects, &size);
        printf("GetManagedObjects reply: 10 x 3 x 5 properties, %zu bytes\n", size);
        bench("GetManagedObjects, nothing hidden", objects, &managed, false, iterations / 10);
        bench("GetManagedObjects, 3 of 15 per object hidden", objects, &managed, true, iterations / 10);
        return 0;
}
