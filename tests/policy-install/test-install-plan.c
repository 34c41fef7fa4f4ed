/*
 * Unit tests of install-plan.c through install and remove in a scratch
 * --root with a stand-in smackfs: every package's rule file follows the
 * installed set, the kernel gets the union of the rule store (the device
 * maker's files included), and a reinstall repairs the kernel.
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

#include "tool-fixture.h"

static const char mce_xml[] =
        "<aegis><request><credential name=\"Cellular\"/><for path=\"/usr/bin/mce\"/></request>"
        "<provide><credential name=\"DeviceModeControl\"/></provide></aegis>\n";
static const char maps_xml[] =
        "<aegis><request><credential name=\"Location\"/><credential name=\"mce::DeviceModeControl\"/>"
        "<for path=\"/usr/bin/maps\"/></request></aegis>\n";

#define W SMACK_ACCESS_WRITE
#define RW (SMACK_ACCESS_READ | SMACK_ACCESS_WRITE)

static int setup(void **state) {
        ToolFixture *f = tool_fixture_new("test-install-plan");
        _cleanup_free_ char *rules = fileio_join(f->root, "etc/smack/accesses.d");

        tool_fixture_write(f->input, "mce.xml", mce_xml);
        tool_fixture_write(f->input, "maps.xml", maps_xml);
        assert_int_equal(fileio_mkdir_p(rules, 0755), 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        tool_fixture_free(*state);
        return 0;
}

static char *rule_file(const ToolFixture *f, const char *name) {
        _cleanup_free_ char *dir = fileio_join(f->root, "etc/smack/accesses.d");
        _cleanup_free_ char *path = fileio_join(dir, name);
        char *text = NULL;

        if (fileio_read(path, &text, NULL) < 0)
                return NULL;
        return text;
}

static void remove_file(const char *dir, const char *name) {
        _cleanup_free_ char *path = fileio_join(dir, name);

        assert_int_equal(unlink(path), 0);
}

static void test_rules_follow_other_packages(void **state) {
        const ToolFixture *f = *state;
        _cleanup_free_ char *before = NULL, *with_mce = NULL, *after = NULL;

        /* maps first: mce::DeviceModeControl does not exist yet. */
        assert_int_equal(tool_fixture_install(f, "maps", "maps.xml", "thirdparty"), 0);
        before = rule_file(f, "mssf-maps");
        assert_string_equal(before, "# Smack rules of package maps, written by mssf-policy: do not edit\n"
                                    "maps Location w\n");
        assert_int_equal(tool_fixture_kernel(f, "maps", "Location"), W);
        assert_int_equal(tool_fixture_kernel(f, "maps", "mce::DeviceModeControl"), 0);

        /* Installing mce rewrites maps's file too, and loads the new pairs. */
        assert_int_equal(tool_fixture_install(f, "mce", "mce.xml", "system"), 0);
        with_mce = rule_file(f, "mssf-maps");
        assert_string_equal(with_mce, "# Smack rules of package maps, written by mssf-policy: do not edit\n"
                                      "maps Location w\nmaps mce w\nmaps mce::DeviceModeControl w\n"
                                      "mce maps w\n");
        assert_int_equal(tool_fixture_kernel(f, "maps", "mce::DeviceModeControl"), W);
        assert_int_equal(tool_fixture_kernel(f, "mce", "maps"), W);
        assert_int_equal(tool_fixture_kernel(f, "mce", "Cellular"), W);

        /* Removing mce takes back what only it made possible. */
        assert_int_equal(tool_fixture_remove(f, "mce"), 0);
        after = rule_file(f, "mssf-maps");
        assert_string_equal(after, before);
        assert_null(rule_file(f, "mssf-mce"));
        assert_int_equal(tool_fixture_kernel(f, "maps", "mce::DeviceModeControl"), 0);
        assert_int_equal(tool_fixture_kernel(f, "maps", "mce"), 0);
        assert_int_equal(tool_fixture_kernel(f, "mce", "maps"), 0);
        assert_int_equal(tool_fixture_kernel(f, "mce", "Cellular"), 0);
        assert_int_equal(tool_fixture_kernel(f, "maps", "Location"), W);
        assert_int_equal(tool_fixture_remove(f, "maps"), 0);
        assert_int_equal(tool_fixture_kernel(f, "maps", "Location"), 0);
        assert_int_equal(tool_fixture_remove(f, "maps"), TOOL_E_NOT_INSTALLED);
}

static void test_foreign_rules_stay(void **state) {
        const ToolFixture *f = *state;
        _cleanup_free_ char *dir = fileio_join(f->root, "etc/smack/accesses.d");
        _cleanup_free_ char *vendor = NULL, *broken = NULL;

        /* The device maker's file lists the pair with more access. */
        tool_fixture_write(dir, "vendor", "# the maker's\nmaps Location rw\n");
        /* A file that is not rules is reported and ignored. */
        tool_fixture_write(dir, "broken", "this is not a rule\n");
        assert_int_equal(tool_fixture_install(f, "maps", "maps.xml", "thirdparty"), 0);
        assert_int_equal(tool_fixture_kernel(f, "maps", "Location"), RW);
        assert_int_equal(tool_fixture_remove(f, "maps"), 0);
        assert_int_equal(tool_fixture_kernel(f, "maps", "Location"), RW);
        /* mssf-policy never writes other files. */
        vendor = rule_file(f, "vendor");
        broken = rule_file(f, "broken");
        assert_string_equal(vendor, "# the maker's\nmaps Location rw\n");
        assert_string_equal(broken, "this is not a rule\n");
        remove_file(dir, "vendor");
        remove_file(dir, "broken");
}

static void test_reinstall_repairs_kernel(void **state) {
        const ToolFixture *f = *state;

        assert_int_equal(tool_fixture_install(f, "maps", "maps.xml", "thirdparty"), 0);
        /* The kernel lost its rules (a reboot without the loader). */
        tool_fixture_write(f->smackfs, "load2", "");
        assert_int_equal(tool_fixture_install(f, "maps", "maps.xml", "thirdparty"), 0);
        assert_int_equal(tool_fixture_kernel(f, "maps", "Location"), W);
        assert_int_equal(tool_fixture_remove(f, "maps"), 0);
}

static void test_refusals_change_nothing(void **state) {
        const ToolFixture *f = *state;
        _cleanup_free_ char *manifests = fileio_join(f->root, "var/lib/mssf/manifests");

        tool_fixture_write(f->input, "bad.xml", "<aegis><request></aegis>");
        assert_int_equal(tool_fixture_install(f, "bad", "bad.xml", NULL), TOOL_E_INVALID);
        assert_int_equal(tool_fixture_install(f, "no/slash", "maps.xml", NULL), TOOL_E_INVALID);
        assert_int_equal(tool_fixture_install(f, "maps", "absent.xml", NULL), TOOL_E_INVALID);
        assert_int_equal(tool_fixture_install(f, "maps", "maps.xml", "bad origin"), TOOL_E_INVALID);
        assert_int_equal(tool_fixture_install(f, "maps", "maps.xml", "*"), TOOL_E_INVALID);
        assert_null(rule_file(f, "mssf-bad"));
        /* An installed manifest that no longer loads refuses every change. */
        assert_int_equal(fileio_mkdir_p(manifests, 0755), 0);
        tool_fixture_write(manifests, "old.xml", "<aegis><oops/></aegis>");
        assert_int_equal(tool_fixture_install(f, "maps", "maps.xml", NULL), TOOL_E_INVALID);
        assert_null(rule_file(f, "mssf-maps"));
        remove_file(manifests, "old.xml");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_rules_follow_other_packages, setup, teardown),
                cmocka_unit_test_setup_teardown(test_foreign_rules_stay, setup, teardown),
                cmocka_unit_test_setup_teardown(test_reinstall_repairs_kernel, setup, teardown),
                cmocka_unit_test_setup_teardown(test_refusals_change_nothing, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
