/*
 * Unit tests of paths.c: option beats environment beats --root beats the
 * default; --root keeps the kernel and the bus out unless smackfs is named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "paths.h"

static void clear_env(void) {
        unsetenv("MSSF_ROOT");
        for (int kind = 0; kind < _TOOL_PATH_MAX; kind++)
                unsetenv(tool_path_env(kind));
}

static void test_defaults(void **state) {
        ToolPathOptions options = { .no_reload = false };
        ToolPaths paths;

        clear_env();
        /* Keep the test away from a smackfs the host may have mounted. */
        options.no_kernel = true;
        assert_int_equal(tool_paths_init(&paths, &options), 0);
        assert_null(paths.root);
        assert_string_equal(paths.manifest_dir, "/var/lib/mssf/manifests");
        assert_string_equal(paths.origin_dir, "/var/lib/mssf/origins");
        assert_string_equal(paths.aegis_dir, "/usr/share/mssf/aegis");
        assert_string_equal(paths.apt_origin_dir, "/var/lib/mssf/apt-origins");
        assert_string_equal(paths.repositories, "/etc/mssf/repositories.conf");
        assert_string_equal(paths.policy_db, "/var/lib/mssf/policy.db");
        assert_string_equal(paths.rules_dir, "/etc/smack/accesses.d");
        assert_string_equal(paths.device_policy, "/etc/mssf/device-policy.conf");
        assert_string_equal(paths.lock_file, "/var/lib/mssf/lock");
        assert_null(paths.smackfs);
        assert_true(paths.reload_bus);
        assert_string_equal(paths.file_root, "");
        char *file = tool_paths_file(&paths, "/usr/bin/x");
        assert_string_equal(file, "/usr/bin/x");
        free(file);
        tool_paths_deinit(&paths);
}

static void test_root(void **state) {
        ToolPathOptions options = { .root = "/img/" };
        ToolPaths paths;

        clear_env();
        assert_int_equal(tool_paths_init(&paths, &options), 0);
        assert_string_equal(paths.manifest_dir, "/img/var/lib/mssf/manifests");
        assert_string_equal(paths.aegis_dir, "/img/usr/share/mssf/aegis");
        assert_string_equal(paths.repositories, "/img/etc/mssf/repositories.conf");
        assert_string_equal(paths.policy_db, "/img/var/lib/mssf/policy.db");
        assert_string_equal(paths.rules_dir, "/img/etc/smack/accesses.d");
        assert_string_equal(paths.device_policy, "/img/etc/mssf/device-policy.conf");
        assert_string_equal(paths.lock_file, "/img/var/lib/mssf/lock");
        /* No kernel, no bus under --root. */
        assert_null(paths.smackfs);
        assert_false(paths.reload_bus);
        char *file = tool_paths_file(&paths, "/usr/bin/x");
        assert_string_equal(file, "/img/usr/bin/x");
        free(file);
        tool_paths_deinit(&paths);
}

static void test_precedence(void **state) {
        ToolPathOptions options = { .root = "/img" };
        ToolPaths paths;

        clear_env();
        setenv("MSSF_ROOT", "/ignored", 1);
        setenv("MSSF_POLICY_DB", "/env/policy.db", 1);
        setenv("MSSF_RULES_DIR", "/env/rules", 1);
        setenv("MSSF_SMACKFS", "/env/smackfs", 1);
        options.paths[TOOL_PATH_RULES_DIR] = "/option/rules";
        assert_int_equal(tool_paths_init(&paths, &options), 0);
        assert_string_equal(paths.root, "/img");
        assert_string_equal(paths.policy_db, "/env/policy.db");
        assert_string_equal(paths.rules_dir, "/option/rules");
        assert_string_equal(paths.manifest_dir, "/img/var/lib/mssf/manifests");
        /* A named smackfs is used even under --root. */
        assert_string_equal(paths.smackfs, "/env/smackfs");
        tool_paths_deinit(&paths);

        /* The environment's root when no option; --no-kernel wins over all. */
        options = (ToolPathOptions) { .no_kernel = true, .no_reload = true };
        assert_int_equal(tool_paths_init(&paths, &options), 0);
        assert_string_equal(paths.root, "/ignored");
        assert_string_equal(paths.lock_file, "/ignored/var/lib/mssf/lock");
        assert_null(paths.smackfs);
        assert_false(paths.reload_bus);
        tool_paths_deinit(&paths);
        clear_env();
}

static void test_names(void **state) {
        assert_string_equal(tool_path_option(TOOL_PATH_MANIFEST_DIR), "manifest-dir");
        assert_string_equal(tool_path_env(TOOL_PATH_LOCK_FILE), "MSSF_LOCK_FILE");
        for (int kind = 0; kind < _TOOL_PATH_MAX; kind++) {
                assert_non_null(tool_path_option(kind));
                assert_non_null(tool_path_env(kind));
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults),
                cmocka_unit_test(test_root),
                cmocka_unit_test(test_precedence),
                cmocka_unit_test(test_names),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
