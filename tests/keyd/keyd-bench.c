/*
 * keyd-bench: what a call to the key service costs, through the bus, as
 * an app sees it (sd-bus, blocking calls, one at a time):
 *
 *     keyd-bench N SIZE
 *
 * N rounds of: Peer.Ping to org.mssf.Keys1 (the bus round trip: the
 * bus, the service's loop, no work), Encrypt of SIZE bytes with the
 * caller's own key, Decrypt of that blob; then N Encrypts under the
 * clock's eye of the TpmCommands property (read before and after).
 * Prints one line per measurement, microseconds:
 *
 *     ping-us MEDIAN P90
 *     encrypt-us MEDIAN P90
 *     decrypt-us MEDIAN P90
 *     tpm-commands BEFORE AFTER ENCRYPTS
 *
 * Exits 1 if any call fails (its error on stderr).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

#define SERVICE "org.mssf.Keys1"
#define PATH "/org/mssf/Keys1"
#define INTERFACE "org.mssf.Keys1"

static double now_us(void) {
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double) t.tv_sec * 1e6 + (double) t.tv_nsec / 1e3;
}

static int compare(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return (x > y) - (x < y);
}

static void report(const char *what, double *samples, int n) {
        qsort(samples, (size_t) n, sizeof(double), compare);
        printf("%s %.1f %.1f\n", what, samples[n / 2], samples[(n * 9) / 10]);
}

static int fail(const char *what, int r, const sd_bus_error *error) {
        fprintf(stderr, "keyd-bench: %s: %s: %s\n", what, error && error->name ? error->name : strerror(-r),
                error && error->message ? error->message : "");
        return 1;
}

/* Encrypt(own key, data) -> blob (malloc'd). */
static int encrypt(sd_bus *bus, const void *data, size_t size, void **ret, size_t *ret_size, sd_bus_error *error) {
        sd_bus_message *m = NULL, *reply = NULL;
        const void *p;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, SERVICE, PATH, INTERFACE, "Encrypt");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", "");
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'y', data, size);
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, error, &reply);
        if (r >= 0)
                r = sd_bus_message_read_array(reply, 'y', &p, ret_size);
        if (r >= 0 && ret) {
                *ret = malloc(*ret_size);
                if (*ret)
                        memcpy(*ret, p, *ret_size);
                else
                        r = -ENOMEM;
        }
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return r;
}

static int tpm_commands(sd_bus *bus, uint64_t *ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sd_bus_get_property_trivial(bus, SERVICE, PATH, INTERFACE, "TpmCommands", &error, 't', ret);

        sd_bus_error_free(&error);
        return r;
}

int main(int argc, char **argv) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        double *ping, *enc, *dec;
        uint64_t before = 0, after = 0;
        unsigned char *data;
        void *blob = NULL;
        size_t blob_size = 0, size;
        int n, r;

        if (argc != 3 || (n = atoi(argv[1])) < 1 || (size = (size_t) atol(argv[2])) > 65536) {
                fprintf(stderr, "usage: keyd-bench N SIZE\n");
                return 2;
        }
        ping = calloc((size_t) n, sizeof(double));
        enc = calloc((size_t) n, sizeof(double));
        dec = calloc((size_t) n, sizeof(double));
        data = malloc(size ? size : 1);
        if (!ping || !enc || !dec || !data)
                return 1;
        memset(data, 'x', size);
        r = sd_bus_open_system(&bus);
        if (r < 0)
                return fail("connect", r, NULL);
        /* One of each per round, not three runs one after the other: the
         * figures are compared with each other, and a machine whose load
         * changes during the run (a shared CI host) then weighs on all
         * three alike instead of on whichever ran in the busy part. */
        for (int i = 0; i < n; i++) {
                sd_bus_message *m = NULL, *reply = NULL;
                double t0 = now_us();

                r = sd_bus_call_method(bus, SERVICE, PATH, "org.freedesktop.DBus.Peer", "Ping", &error, &reply, "");
                ping[i] = now_us() - t0;
                reply = sd_bus_message_unref(reply);
                if (r < 0)
                        return fail("Ping", r, &error);
                free(blob);
                blob = NULL;
                t0 = now_us();
                r = encrypt(bus, data, size, &blob, &blob_size, &error);
                enc[i] = now_us() - t0;
                if (r < 0)
                        return fail("Encrypt", r, &error);
                r = sd_bus_message_new_method_call(bus, &m, SERVICE, PATH, INTERFACE, "Decrypt");
                if (r >= 0)
                        r = sd_bus_message_append_array(m, 'y', blob, blob_size);
                t0 = now_us();
                if (r >= 0)
                        r = sd_bus_call(bus, m, 0, &error, &reply);
                dec[i] = now_us() - t0;
                sd_bus_message_unref(m);
                sd_bus_message_unref(reply);
                if (r < 0)
                        return fail("Decrypt", r, &error);
        }
        report("ping-us", ping, n);
        report("encrypt-us", enc, n);
        report("decrypt-us", dec, n);
        if ((r = tpm_commands(bus, &before)) < 0)
                return fail("TpmCommands", r, NULL);
        for (int i = 0; i < n; i++) {
                size_t ignored;

                r = encrypt(bus, data, size, NULL, &ignored, &error);
                if (r < 0)
                        return fail("Encrypt", r, &error);
        }
        if ((r = tpm_commands(bus, &after)) < 0)
                return fail("TpmCommands", r, NULL);
        printf("tpm-commands %llu %llu %d\n", (unsigned long long) before, (unsigned long long) after, n);
        free(blob);
        free(data);
        free(ping);
        free(enc);
        free(dec);
        sd_bus_flush_close_unref(bus);
        return 0;
}
