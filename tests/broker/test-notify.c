/*
 * Unit tests for broker/io/notify.c (sd_notify): the datagrams READY,
 * RELOADING (with MONOTONIC_USEC), STOPPING carry, read from a socket the
 * test binds as NOTIFY_SOCKET; NOTIFY_SOCKET is taken out of the
 * environment; STATUS= is sent only when the counts change, at most once
 * per interval, and a held-back change goes out by the timer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop.h"
#include "notify.h"

typedef struct Fixture {
        Loop *loop;
        Notify notify;
        NotifyCounts counts;    /* what the bus "has" */
        int fd;                 /* the test's NOTIFY_SOCKET */
        char path[108];
} Fixture;

static void count(void *userdata, NotifyCounts *ret) {
        Fixture *f = userdata;

        *ret = f->counts;
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        struct sockaddr_un address = { .sun_family = AF_UNIX };

        assert_non_null(f);
        snprintf(f->path, sizeof(f->path), "/tmp/test-notify-%d", (int) getpid());
        (void) unlink(f->path);
        strcpy(address.sun_path, f->path);
        f->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(f->fd >= 0);
        assert_int_equal(bind(f->fd, (struct sockaddr *) &address, sizeof(address)), 0);
        assert_int_equal(setenv("NOTIFY_SOCKET", f->path, 1), 0);
        assert_int_equal(loop_new(&f->loop), 0);
        notify_init(&f->notify, f->loop, count, f);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        notify_deinit(&f->notify);
        loop_free(f->loop);
        close(f->fd);
        unlink(f->path);
        free(f);
        return 0;
}

/* The next datagram, or "" when none is waiting. */
static const char *next(Fixture *f) {
        static char buffer[512];
        ssize_t n = recv(f->fd, buffer, sizeof(buffer) - 1, 0);

        buffer[n > 0 ? n : 0] = '\0';
        return buffer;
}

static void test_notify_socket_is_taken(void **state) {
        (void) state;
        assert_null(getenv("NOTIFY_SOCKET"));
}

static void test_ready_reloading_stopping(void **state) {
        Fixture *f = *state;
        const char *m;
        unsigned long long usec;

        f->counts = (NotifyCounts) { .n_connections = 3, .n_names = 1 };
        notify_ready(&f->notify);
        assert_string_equal(next(f), "READY=1\nSTATUS=Processing requests: 3 connections, 1 name");
        notify_reloading(&f->notify);
        m = next(f);
        assert_int_equal(sscanf(m, "RELOADING=1\nMONOTONIC_USEC=%llu", &usec), 1);
        assert_true(usec > 0);
        assert_true(usec <= loop_now());
        notify_stopping(&f->notify);
        assert_string_equal(next(f), "STOPPING=1");
        assert_string_equal(next(f), "");
}

static void test_status_only_on_change_and_rate_limited(void **state) {
        Fixture *f = *state;
        const char *m = "";
        uint64_t end;

        f->counts = (NotifyCounts) { .n_connections = 1, .n_names = 0 };
        notify_ready(&f->notify);
        assert_string_equal(next(f), "READY=1\nSTATUS=Processing requests: 1 connection, 0 names");
        notify_status_update(&f->notify);
        assert_string_equal(next(f), "");               /* nothing changed */
        f->counts.n_connections = 2;
        notify_status_update(&f->notify);
        assert_string_equal(next(f), "");               /* within the interval: held back */
        f->counts.n_connections = 5;
        notify_status_update(&f->notify);
        assert_string_equal(next(f), "");
        /* The bus goes idle: the timer still sends the last state, once. */
        end = loop_now() + NOTIFY_STATUS_INTERVAL_USEC + 300000;
        while (loop_now() < end && !m[0]) {
                assert_int_equal(loop_iterate(f->loop, 50), 0);
                m = next(f);
        }
        assert_string_equal(m, "STATUS=Processing requests: 5 connections, 0 names");
        assert_int_equal(loop_iterate(f->loop, 100), 0);
        assert_string_equal(next(f), "");
}

static void test_format(void **state) {
        char buf[128];

        (void) state;
        notify_format_status(&(NotifyCounts) { .n_connections = 1, .n_names = 2 }, buf, sizeof(buf));
        assert_string_equal(buf, "Processing requests: 1 connection, 2 names");
        notify_format_status(&(NotifyCounts) { 0 }, buf, sizeof(buf));
        assert_string_equal(buf, "Processing requests: 0 connections, 0 names");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_notify_socket_is_taken, setup, teardown),
                cmocka_unit_test_setup_teardown(test_ready_reloading_stopping, setup, teardown),
                cmocka_unit_test_setup_teardown(test_status_only_on_change_and_rate_limited, setup, teardown),
                cmocka_unit_test(test_format),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
