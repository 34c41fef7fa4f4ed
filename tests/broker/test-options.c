/* Unit tests for the command line (broker/daemon/options.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "options.h"

#define PARSE(o, ...) parse((o), (char *[]) { "mssf-broker", __VA_ARGS__, NULL })

static int parse(Options *o, char **argv) {
        int argc = 0;

        while (argv[argc])
                argc++;
        return options_parse(argc, argv, o);
}

static void test_system_and_defaults(void **state) {
        Options o;

        assert_int_equal(PARSE(&o, "--system"), 0);
        assert_string_equal(o.config_file, OPTIONS_SYSTEM_CONF);
        assert_int_equal(o.print_address_fd, -1);
        assert_int_equal(o.print_pid_fd, -1);
        assert_int_equal(o.fork_mode, OPTIONS_FORK_DEFAULT);
        assert_int_equal(o.syslog_mode, OPTIONS_SYSLOG_DEFAULT);
        assert_null(o.address);
        assert_null(o.policy);
        options_deinit(&o);
}

static void test_dbus_daemon_command_lines(void **state) {
        Options o;

        /* The system unit's command line. */
        assert_int_equal(PARSE(&o, "--system", "--address=systemd:", "--nofork", "--nopidfile",
                               "--systemd-activation", "--syslog-only"), 0);
        assert_string_equal(o.address, "systemd:");
        assert_int_equal(o.fork_mode, OPTIONS_FORK_NO);
        assert_true(o.nopidfile);
        assert_true(o.systemd_activation);
        assert_int_equal(o.syslog_mode, OPTIONS_SYSLOG_ONLY);
        options_deinit(&o);

        /* dbus-launch style, with separate values and fds. */
        assert_int_equal(PARSE(&o, "--fork", "--print-pid=5", "--print-address=7", "--config-file",
                               "/x/session.conf", "--session"), 0);
        /* the last bus selection wins */
        assert_string_equal(o.config_file, OPTIONS_SESSION_CONF);
        assert_int_equal(o.print_pid_fd, 5);
        assert_int_equal(o.print_address_fd, 7);
        assert_int_equal(o.fork_mode, OPTIONS_FORK_YES);
        options_deinit(&o);

        assert_int_equal(PARSE(&o, "--session", "--config-file=/y.conf", "--print-address",
                               "--syslog", "--policy", "/var/lib/mssf/policy.db"), 0);
        assert_string_equal(o.config_file, "/y.conf");
        assert_int_equal(o.print_address_fd, 1);
        assert_int_equal(o.syslog_mode, OPTIONS_SYSLOG_BOTH);
        assert_string_equal(o.policy, "/var/lib/mssf/policy.db");
        options_deinit(&o);

        assert_int_equal(PARSE(&o, "--session", "--nosyslog"), 0);
        assert_int_equal(o.syslog_mode, OPTIONS_SYSLOG_NONE);
        options_deinit(&o);
}

static void test_errors(void **state) {
        Options o;

        assert_int_equal(PARSE(&o, "--session", "--bogus"), OPTIONS_E_USAGE);
        assert_int_equal(PARSE(&o, "--session", "extra"), OPTIONS_E_USAGE);
        assert_int_equal(PARSE(&o, "--nofork"), OPTIONS_E_USAGE);
        assert_int_equal(PARSE(&o, "--session", "--print-address=x"), OPTIONS_E_USAGE);
        assert_int_equal(PARSE(&o, "--session", "--config-file"), OPTIONS_E_USAGE);
}

static void test_help_and_version(void **state) {
        Options o;

        assert_int_equal(PARSE(&o, "--version"), OPTIONS_E_EXIT);
        assert_int_equal(PARSE(&o, "--help"), OPTIONS_E_EXIT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_system_and_defaults),
                cmocka_unit_test(test_dbus_daemon_command_lines),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_help_and_version),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
