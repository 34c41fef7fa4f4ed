/*
 * Unit tests for the configuration watch (broker/daemon/config-watch.c): a file
 * written, renamed in or removed in a watched directory reloads once per
 * burst; a directory the new configuration no longer names stops
 * triggering; missing directories are skipped. A real inotify and the
 * real loop, on a temporary directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config-watch.h"
#include "config.h"
#include "loop.h"

typedef struct Fixture {
        Loop *loop;
        ConfigWatch watch;
        char dir[64];           /* the watched <includedir> */
        char other[64];         /* a service directory */
        int reloads;
} Fixture;

static int on_reload(void *userdata) {
        Fixture *f = userdata;

        f->reloads++;
        return 0;
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));

        assert_non_null(f);
        assert_int_equal(loop_new(&f->loop), 0);
        strcpy(f->dir, "/tmp/test-config-watch-XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        strcpy(f->other, "/tmp/test-config-watch-XXXXXX");
        assert_non_null(mkdtemp(f->other));
        config_watch_init(&f->watch, f->loop, on_reload, f);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        char command[256];

        config_watch_deinit(&f->watch);
        loop_free(f->loop);
        snprintf(command, sizeof(command), "rm -rf %s %s", f->dir, f->other);
        assert_int_equal(system(command), 0);
        free(f);
        return 0;
}

/* A config naming includedir (nullable) and servicedir (nullable). */
static void watch(Fixture *f, char *includedir, char *servicedir) {
        char *includedirs[] = { includedir, NULL };
        char *servicedirs[] = { servicedir, NULL };
        BusConfig config = {
                .includedirs = includedirs,
                .n_includedirs = includedir ? 1 : 0,
                .servicedirs = servicedirs,
                .n_servicedirs = servicedir ? 1 : 0,
        };

        assert_int_equal(config_watch_set(&f->watch, &config), 0);
}

static void write_file(const char *dir, const char *name, const char *text) {
        char path[128];
        FILE *file;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        file = fopen(path, "w");
        assert_non_null(file);
        fputs(text, file);
        assert_int_equal(fclose(file), 0);
}

/* Runs the loop for about msec milliseconds. */
static void run(Fixture *f, int msec) {
        uint64_t end = loop_now() + (uint64_t) msec * 1000;

        while (loop_now() < end)
                assert_int_equal(loop_iterate(f->loop, 10), 0);
}

static void test_burst_is_one_reload(void **state) {
        Fixture *f = *state;

        watch(f, f->dir, NULL);
        run(f, 20);
        assert_int_equal(f->reloads, 0);
        write_file(f->dir, "a.conf", "<busconfig/>");
        write_file(f->dir, "b.conf", "<busconfig/>");
        write_file(f->dir, "a.conf", "<busconfig></busconfig>");
        run(f, 200);
        assert_int_equal(f->reloads, 1);
}

static void test_rename_and_remove_reload(void **state) {
        Fixture *f = *state;
        char from[128], to[128];

        watch(f, NULL, f->other);
        write_file(f->dir, "x.service", "[D-BUS Service]\n");
        snprintf(from, sizeof(from), "%s/x.service", f->dir);
        snprintf(to, sizeof(to), "%s/x.service", f->other);
        assert_int_equal(rename(from, to), 0);
        run(f, 200);
        assert_int_equal(f->reloads, 1);
        assert_int_equal(unlink(to), 0);
        run(f, 200);
        assert_int_equal(f->reloads, 2);
}

static void test_dropped_directory_stops_triggering(void **state) {
        Fixture *f = *state;

        watch(f, f->dir, NULL);
        watch(f, NULL, f->other);
        write_file(f->dir, "a.conf", "<busconfig/>");
        run(f, 200);
        assert_int_equal(f->reloads, 0);
        write_file(f->other, "y.service", "[D-BUS Service]\n");
        run(f, 200);
        assert_int_equal(f->reloads, 1);
}

static void test_missing_directory_is_skipped(void **state) {
        Fixture *f = *state;

        watch(f, "/nonexistent/conf.d", f->other);
        write_file(f->other, "z.service", "[D-BUS Service]\n");
        run(f, 200);
        assert_int_equal(f->reloads, 1);
}

static void test_deinit_of_zeroed_watch(void **state) {
        ConfigWatch zeroed = {};

        (void) state;
        config_watch_deinit(&zeroed);   /* bus_free() after a failed bus_new() */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_burst_is_one_reload, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rename_and_remove_reload, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dropped_directory_stops_triggering, setup, teardown),
                cmocka_unit_test_setup_teardown(test_missing_directory_is_skipped, setup, teardown),
                cmocka_unit_test(test_deinit_of_zeroed_watch),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
