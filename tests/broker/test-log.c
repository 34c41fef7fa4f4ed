/*
 * Unit tests for logging (broker/io/log.c). The journal is the system
 * boundary: sd_journal_sendv() (sd_journal_sendv_with_location()) and the probe for its socket (access())
 * are wrapped at link time.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

int __real_access(const char *path, int mode);
int __wrap_access(const char *path, int mode);
/* sd-journal.h makes sd_journal_sendv() a macro around this one. */
int __wrap_sd_journal_sendv_with_location(const char *file, const char *line, const char *func,
                                          const struct iovec *iov, int n);

static char fields[16][256];
static int n_fields;
static int n_sends;

int __wrap_access(const char *path, int mode) {
        if (strcmp(path, "/run/systemd/journal/socket") == 0)
                return 0;
        return __real_access(path, mode);
}

int __wrap_sd_journal_sendv_with_location(const char *file, const char *line, const char *func,
                                          const struct iovec *iov, int n) {
        n_sends++;
        n_fields = 0;
        for (int i = 0; i < n && i < 16; i++) {
                size_t len = iov[i].iov_len < 255 ? iov[i].iov_len : 255;

                memcpy(fields[i], iov[i].iov_base, len);
                fields[i][len] = 0;
                n_fields++;
        }
        return 0;
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

static void test_errno_is_appended_and_returned(void **state) {
        log_set_target(LOG_TARGET_SYSTEM);
        assert_int_equal(log_error_errno(-ENOENT, "Cannot open %s", "x"), -ENOENT);
        assert_true(has_field("MESSAGE=Cannot open x: No such file or directory"));
        assert_int_equal(log_error_errno(EPERM, "Again"), -EPERM);
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
                cmocka_unit_test(test_errno_is_appended_and_returned),
                cmocka_unit_test(test_stderr_only_and_priority),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
