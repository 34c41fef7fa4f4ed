/*
 * Unit tests for logging (broker/io/log.c). The journal is the system
 * boundary: the datagram sent to its socket (sendto()), the probe for the
 * socket (access()) and the syslog(3) fallback are wrapped at link time;
 * each datagram is read back in the journal's native protocol.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

int __real_access(const char *path, int mode);
int __wrap_access(const char *path, int mode);
ssize_t __wrap_sendto(int fd, const void *buf, size_t size, int flags, const struct sockaddr *to,
                      socklen_t to_size);
void __wrap_syslog(int priority, const char *format, ...);

static char fields[16][512];
static int n_fields;
static int n_sends;
static int n_syslog;
static int send_error;

int __wrap_access(const char *path, int mode) {
        if (strcmp(path, "/run/systemd/journal/socket") == 0)
                return 0;
        return __real_access(path, mode);
}

/* Fields of one native-protocol datagram, a binary one as "KEY=value". */
ssize_t __wrap_sendto(int fd, const void *buf, size_t size, int flags, const struct sockaddr *to,
                      socklen_t to_size) {
        const struct sockaddr_un *un = (const struct sockaddr_un *) to;
        const char *p = buf, *end = p + size;

        assert_string_equal(un->sun_path, "/run/systemd/journal/socket");
        n_sends++;
        if (send_error) {
                errno = send_error;
                return -1;
        }
        n_fields = 0;
        while (p < end && n_fields < 16) {
                const char *nl = memchr(p, '\n', (size_t) (end - p)), *eq;

                assert_non_null(nl);
                eq = memchr(p, '=', (size_t) (nl - p));
                if (eq) {
                        snprintf(fields[n_fields++], sizeof(fields[0]), "%.*s", (int) (nl - p), p);
                        p = nl + 1;
                        continue;
                }
                /* KEY\n, then the value's length, little endian, the value and a newline. */
                uint64_t len = 0;
                for (int i = 0; i < 8; i++)
                        len |= (uint64_t) (unsigned char) nl[1 + i] << (8 * i);
                assert_true(nl + 9 + len < end && nl[9 + len] == '\n');
                snprintf(fields[n_fields++], sizeof(fields[0]), "%.*s=%.*s", (int) (nl - p), p, (int) len,
                         nl + 9);
                p = nl + 10 + len;
        }
        assert_ptr_equal(p, end);
        return (ssize_t) size;
}

void __wrap_syslog(int priority, const char *format, ...) {
        n_syslog++;
}

static bool has_field(const char *field) {
        for (int i = 0; i < n_fields; i++)
                if (strcmp(fields[i], field) == 0)
                        return true;
        return false;
}

static void test_journal_gets_structured_fields(void **state) {
        const char *const extra[] = { "MSSF_SENDER=:1.7", "MSSF_RULE=deny", NULL };

        log_set_target(LOG_TARGET_SYSTEM);
        n_sends = 0;
        assert_int_equal(log_fields(LOG_WARNING, 0, extra, "denied %s", "Foo"), 0);
        assert_int_equal(n_sends, 1);
        assert_true(has_field("MESSAGE=denied Foo"));
        assert_true(has_field("PRIORITY=4"));
        assert_true(has_field("SYSLOG_IDENTIFIER=mssf-broker"));
        assert_true(has_field("MSSF_SENDER=:1.7"));
        assert_true(has_field("MSSF_RULE=deny"));
}

/* A value with a newline goes length-prefixed: the journal keeps it whole. */
static void test_newline_in_a_value(void **state) {
        const char *const extra[] = { "MSSF_TEXT=a\nb", NULL };

        log_set_target(LOG_TARGET_SYSTEM);
        assert_int_equal(log_fields(LOG_NOTICE, 0, extra, "two\nlines"), 0);
        assert_true(has_field("MESSAGE=two\nlines"));
        assert_true(has_field("MSSF_TEXT=a\nb"));
        assert_true(has_field("PRIORITY=5"));
}

static void test_errno_is_appended_and_returned(void **state) {
        log_set_target(LOG_TARGET_SYSTEM);
        assert_int_equal(log_error_errno(-ENOENT, "Cannot open %s", "x"), -ENOENT);
        assert_true(has_field("MESSAGE=Cannot open x: No such file or directory"));
        assert_int_equal(log_error_errno(EPERM, "Again"), -EPERM);
}

/* An entry the journal does not take goes to syslog(3): never lost silently. */
static void test_journal_refusing_falls_back(void **state) {
        log_set_target(LOG_TARGET_SYSTEM);
        n_syslog = 0;
        send_error = ENOBUFS;
        log_warning("kept somewhere");
        send_error = 0;
        assert_int_equal(n_syslog, 1);
        log_warning("journal again");
        assert_int_equal(n_syslog, 1);
}

static void test_stderr_only_and_priority(void **state) {
        log_set_target(LOG_TARGET_STDERR);
        n_sends = 0;
        assert_int_equal(log_error("to stderr only"), 0);
        assert_int_equal(n_sends, 0);
        log_set_target(LOG_TARGET_SYSTEM);
        log_set_max_priority(LOG_WARNING);
        assert_int_equal(log_info("not worth a line"), 0);
        assert_int_equal(n_sends, 0);
        errno = EBUSY;
        log_warning("kept");
        assert_int_equal(errno, EBUSY);
        assert_int_equal(n_sends, 1);
        log_set_max_priority(LOG_INFO);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_journal_gets_structured_fields),
                cmocka_unit_test(test_newline_in_a_value),
                cmocka_unit_test(test_errno_is_appended_and_returned),
                cmocka_unit_test(test_journal_refusing_falls_back),
                cmocka_unit_test(test_stderr_only_and_priority),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
