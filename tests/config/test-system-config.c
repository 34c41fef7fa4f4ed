/*
 * test-system-config: every busconfig file this Debian system ships must
 * load: system.conf and session.conf with all they include (strict, so a
 * file dbus-daemon would merely skip fails the test), and each file of
 * system.d/session.d on its own. Missing top-level files are a skip, not a
 * pass.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"

static const char *const conf_dirs[] = {
        "/usr/share/dbus-1/system.d",
        "/etc/dbus-1/system.d",
        "/usr/share/dbus-1/session.d",
        "/etc/dbus-1/session.d",
};

static BusConfig *load_strict(const char *path) {
        BusConfig *config = NULL;
        ConfigError err = {};
        int r = bus_config_load_file(path, BUS_CONFIG_STRICT, &config, &err);

        if (r != 0)
                fail_msg("%s does not load (r=%d): %s", path, r, err.message);
        return config;
}

static size_t count_rules(const BusConfig *config) {
        size_t n = 0;

        for (size_t i = 0; i < config->n_policies; i++)
                n += config->policies[i].n_rules;
        return n;
}

static void test_system_conf(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = NULL;

        if (access("/usr/share/dbus-1/system.conf", R_OK) < 0)
                skip();
        config = load_strict("/usr/share/dbus-1/system.conf");
        assert_string_equal(config->type, "system");
        assert_string_equal(config->user, "messagebus");
        assert_true(config->n_listen >= 1);
        assert_true(config->n_policies >= 2);
        assert_true(config->n_files > 1); /* system.d was followed */
        assert_int_equal(config->n_warnings, 0);
        print_message("system.conf: %zu files, %zu policies, %zu rules\n", config->n_files,
                      config->n_policies, count_rules(config));
}

static void test_session_conf(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = NULL;

        if (access("/usr/share/dbus-1/session.conf", R_OK) < 0)
                skip();
        config = load_strict("/usr/share/dbus-1/session.conf");
        assert_string_equal(config->type, "session");
        assert_true(config->n_listen >= 1);
        assert_true(config->n_servicedirs >= 1);
        assert_int_equal(config->n_warnings, 0);
}

static void test_each_file_standalone(void **state) {
        size_t n = 0;

        for (size_t i = 0; i < ELEMENTSOF(conf_dirs); i++) {
                DIR *d = opendir(conf_dirs[i]);
                struct dirent *de;

                if (!d)
                        continue;
                while ((de = readdir(d))) {
                        size_t len = strlen(de->d_name);
                        char path[4096];
                        BusConfig *config;

                        if (len < 5 || strcmp(de->d_name + len - 5, ".conf") != 0)
                                continue;
                        snprintf(path, sizeof(path), "%s/%s", conf_dirs[i], de->d_name);
                        config = load_strict(path);
                        assert_int_equal(config->n_warnings, 0);
                        bus_config_free(config);
                        n++;
                }
                closedir(d);
        }
        if (n == 0)
                skip();
        print_message("%zu system.d/session.d files load standalone\n", n);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_system_conf),
                cmocka_unit_test(test_session_conf),
                cmocka_unit_test(test_each_file_standalone),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
