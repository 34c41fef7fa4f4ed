/*
 * Unit tests of broker/io/service-env.c: what systemd says in the
 * environment (LISTEN_PID/LISTEN_FDS, WATCHDOG_USEC/WATCHDOG_PID) read as
 * sd_listen_fds(3) and sd_watchdog_enabled(3) read it, for this process
 * only, malformed values refused, and the listen variables gone after.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "service-env.h"

static void set_pid(const char *name, pid_t pid) {
        char text[32];

        snprintf(text, sizeof(text), "%ld", (long) pid);
        assert_int_equal(setenv(name, text, 1), 0);
}

static void test_listen_fds(void **state) {
        int null = open("/dev/null", O_RDONLY);

        assert_true(null >= 0);
        assert_int_equal(dup2(null, 3), 3);
        assert_int_equal(dup2(null, 4), 4);
        assert_int_equal(service_env_listen_fds(), 0);
        set_pid("LISTEN_PID", getpid());
        setenv("LISTEN_FDS", "2", 1);
        setenv("LISTEN_FDNAMES", "a:b", 1);
        assert_int_equal(service_env_listen_fds(), 2);
        assert_true(fcntl(3, F_GETFD) & FD_CLOEXEC);
        assert_true(fcntl(4, F_GETFD) & FD_CLOEXEC);
        assert_null(getenv("LISTEN_PID"));
        assert_null(getenv("LISTEN_FDS"));
        assert_null(getenv("LISTEN_FDNAMES"));
        /* Another process's sockets are not ours. */
        set_pid("LISTEN_PID", getpid() + 1);
        setenv("LISTEN_FDS", "2", 1);
        assert_int_equal(service_env_listen_fds(), 0);
        set_pid("LISTEN_PID", getpid());
        setenv("LISTEN_FDS", "2x", 1);
        assert_int_equal(service_env_listen_fds(), -EINVAL);
        setenv("LISTEN_PID", "-1", 1);
        setenv("LISTEN_FDS", "1", 1);
        assert_int_equal(service_env_listen_fds(), -EINVAL);
        set_pid("LISTEN_PID", getpid());
        setenv("LISTEN_FDS", "99999999999", 1);
        assert_int_equal(service_env_listen_fds(), -EINVAL);
        assert_null(getenv("LISTEN_FDS"));
        close(3);
        close(4);
        close(null);
}

static void test_watchdog(void **state) {
        uint64_t usec = 1;

        unsetenv("WATCHDOG_USEC");
        unsetenv("WATCHDOG_PID");
        assert_int_equal(service_env_watchdog_usec(&usec), 0);
        assert_int_equal(usec, 0);
        setenv("WATCHDOG_USEC", "400000", 1);
        assert_int_equal(service_env_watchdog_usec(&usec), 1);
        assert_int_equal(usec, 400000);
        set_pid("WATCHDOG_PID", getpid());
        assert_int_equal(service_env_watchdog_usec(&usec), 1);
        set_pid("WATCHDOG_PID", getpid() + 1);
        assert_int_equal(service_env_watchdog_usec(&usec), 0);
        unsetenv("WATCHDOG_PID");
        setenv("WATCHDOG_USEC", "0", 1);
        assert_int_equal(service_env_watchdog_usec(&usec), -EINVAL);
        setenv("WATCHDOG_USEC", "soon", 1);
        assert_int_equal(service_env_watchdog_usec(&usec), -EINVAL);
        unsetenv("WATCHDOG_USEC");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_listen_fds),
                cmocka_unit_test(test_watchdog),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
