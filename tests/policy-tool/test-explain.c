/*
 * Unit tests of explain.c: list, dump and explain over a scratch --root,
 * with the rule store as the token oracle (no smackfs under --root).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "explain.h"
#include "tool-fixture.h"

static const char mce_xml[] =
        "<aegis><provide><credential name=\"DeviceModeControl\"/>"
        "<dbus name=\"com.nokia.mce\" own=\"SELF\" bus=\"system\"><node name=\"/com/nokia/mce\">"
        "<interface name=\"com.nokia.mce.request\"><annotation name=\"com.maemo.Aegis\" value=\"\"/>"
        "<method name=\"req_radio\"><annotation name=\"com.maemo.Aegis\" value=\"DeviceModeControl\"/>"
        "</method><method name=\"get_status\"/></interface></node></dbus></provide></aegis>\n";
static const char maps_xml[] =
        "<aegis><request><credential name=\"mce::DeviceModeControl\"/>"
        "<for path=\"/usr/bin/maps\"/></request></aegis>\n";

/* Runs with --root only: no smackfs, so the rule store answers. */
static int run_root_only(const ToolFixture *f, ToolOperation operation, void *userdata,
                         char **ret_out) {
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        ToolPathOptions options = { .root = f->root };
        ToolContext c = {};
        size_t size = 0;
        int r;

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(tool_paths_init(&c.paths, &options), 0);
        assert_null(c.paths.smackfs);
        c.diag = diag;
        c.out = open_memstream(ret_out, &size);
        c.err = stderr;
        r = operation(&c, userdata);
        fclose(c.out);
        tool_paths_deinit(&c.paths);
        return r;
}

static int do_explain(ToolContext *c, void *userdata) {
        return tool_explain(c, userdata);
}
static int do_list(ToolContext *c, void *userdata) {
        return tool_list(c);
}
static int do_dump(ToolContext *c, void *userdata) {
        return tool_dump(c);
}

static int setup(void **state) {
        ToolFixture *f = tool_fixture_new("test-explain");

        tool_fixture_write(f->input, "mce.xml", mce_xml);
        tool_fixture_write(f->input, "maps.xml", maps_xml);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        tool_fixture_free(*state);
        return 0;
}

static int explain(const ToolFixture *f, const char *label, const char *interface,
                   const char *member, char **ret_out) {
        ExplainQuery query = {
                .label = label,
                .destination = "com.nokia.mce",
                .path = "/com/nokia/mce",
                .interface = interface,
                .member = member,
        };

        return run_root_only(f, do_explain, &query, ret_out);
}

static void test_no_policy_yet(void **state) {
        const ToolFixture *f = *state;
        _cleanup_free_ char *out = NULL, *dump = NULL, *list = NULL;

        assert_int_equal(explain(f, "maps", "com.nokia.mce.request", "req_radio", &out),
                         TOOL_E_NOT_INSTALLED);
        assert_int_equal(run_root_only(f, do_dump, NULL, &dump), TOOL_E_NOT_INSTALLED);
        assert_int_equal(run_root_only(f, do_list, NULL, &list), 0);
        assert_string_equal(list, "");
}

static void test_explain(void **state) {
        const ToolFixture *f = *state;
        _cleanup_free_ char *granted = NULL, *refused = NULL, *open = NULL, *uncovered = NULL;
        _cleanup_free_ char *list = NULL, *dump = NULL;

        assert_int_equal(tool_fixture_install(f, "mce", "mce.xml", "system"), 0);
        assert_int_equal(tool_fixture_install(f, "maps", "maps.xml", "thirdparty"), 0);

        assert_int_equal(explain(f, "maps", "com.nokia.mce.request", "req_radio", &granted), 0);
        assert_string_equal(granted, "allowed\n"
                            "rule: name com.nokia.mce, method /com/nokia/mce "
                            "com.nokia.mce.request.req_radio -> mce::DeviceModeControl\n"
                            "tokens from: the rule store\n");

        assert_int_equal(explain(f, "intruder", "com.nokia.mce.request", "req_radio", &refused),
                         TOOL_E_DENIED);
        assert_non_null(strstr(refused, "denied\n"));
        assert_non_null(strstr(refused, "token: mce::DeviceModeControl (label intruder does not hold it)"));

        /* get_status has no annotation of its own: the interface's "" opens it. */
        assert_int_equal(explain(f, "intruder", "com.nokia.mce.request", "get_status", &open), 0);
        assert_non_null(strstr(open, "-> open\n"));

        /* Under a declared name, what no annotation covers is denied. */
        assert_int_equal(explain(f, "maps", "com.nokia.other", "x", &uncovered), TOOL_E_DENIED);
        assert_non_null(strstr(uncovered, "denied\n"));

        assert_int_equal(run_root_only(f, do_list, NULL, &list), 0);
        assert_string_equal(list, "maps\tthirdparty\nmce\tsystem\n");
        assert_int_equal(run_root_only(f, do_dump, NULL, &dump), 0);
        assert_non_null(strstr(dump, "name com.nokia.mce\n"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_policy_yet),
                cmocka_unit_test(test_explain),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
