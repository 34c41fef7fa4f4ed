/* The validators of policy strings, as tables of valid and invalid examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "db-names.h"
#include "macro.h"

typedef struct Example {
        bool (*check)(const char *s);
        const char *s;
        bool valid;
} Example;

static const Example examples[] = {
        { db_name_is_bus_name, "org.ofono", true },
        { db_name_is_bus_name, "com.nokia.mce", true },
        { db_name_is_bus_name, "org.example.with-dash_1", true },
        { db_name_is_bus_name, "org", false },
        { db_name_is_bus_name, "org.", false },
        { db_name_is_bus_name, ".org.x", false },
        { db_name_is_bus_name, "org.1x", false },
        { db_name_is_bus_name, ":1.42", false },
        { db_name_is_bus_name, "org.ex ample", false },
        { db_name_is_bus_name, "", false },
        { db_name_is_interface, "org.ofono.Modem", true },
        { db_name_is_interface, "org.ofono-x.Modem", false },
        { db_name_is_interface, "Modem", false },
        { db_name_is_member, "GetProperties", true },
        { db_name_is_member, "_x9", true },
        { db_name_is_member, "9x", false },
        { db_name_is_member, "a.b", false },
        { db_name_is_member, "a-b", false },
        { db_name_is_member, "", false },
        { db_name_is_object_path, "/", true },
        { db_name_is_object_path, "/ril_0", true },
        { db_name_is_object_path, "/com/nokia/mce/request", true },
        { db_name_is_object_path, "//", false },
        { db_name_is_object_path, "/a/", false },
        { db_name_is_object_path, "/a//b", false },
        { db_name_is_object_path, "a/b", false },
        { db_name_is_object_path, "/a-b", false },
        { db_name_is_object_path, "", false },
        { db_name_is_label, "mce", true },
        { db_name_is_label, "mce::DeviceModeControl", true },
        { db_name_is_label, "_", true },
        { db_name_is_label, "a-b", true },
        { db_name_is_label, "-a", false },
        { db_name_is_label, "a b", false },
        { db_name_is_label, "a/b", false },
        { db_name_is_label, "a\"b", false },
        { db_name_is_label, "a'b", false },
        { db_name_is_label, "a\\b", false },
        { db_name_is_label, "a\tb", false },
        { db_name_is_label, "caf\xc3\xa9", false },
        { db_name_is_label, "", false },
        { db_name_is_utf8, "plain", true },
        { db_name_is_utf8, "caf\xc3\xa9", true },
        { db_name_is_utf8, "\xf0\x9f\x98\x80", true },
        { db_name_is_utf8, "\xc0\xaf", false },         /* overlong */
        { db_name_is_utf8, "\xe0\x80\xaf", false },     /* overlong */
        { db_name_is_utf8, "\xed\xa0\x80", false },     /* surrogate */
        { db_name_is_utf8, "\xf4\x90\x80\x80", false }, /* > U+10FFFF */
        { db_name_is_utf8, "\xc3", false },             /* truncated */
        { db_name_is_utf8, "\xff", false },
};

static void test_examples(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(examples); i++)
                if (examples[i].check(examples[i].s) != examples[i].valid)
                        fail_msg("example %zu \"%s\": expected %s", i, examples[i].s,
                                 examples[i].valid ? "valid" : "invalid");
}

static void test_lengths(void **state) {
        char label[258], name[300];

        memset(label, 'a', 255);
        label[255] = '\0';
        assert_true(db_name_is_label(label));
        label[255] = 'a';
        label[256] = '\0';
        assert_false(db_name_is_label(label));
        memset(name, 'a', sizeof(name));
        name[1] = '.';
        name[255] = '\0';
        assert_true(db_name_is_bus_name(name));
        name[255] = 'a';
        name[256] = '\0';
        assert_false(db_name_is_bus_name(name));
        assert_false(db_name_is_label(NULL));
        assert_false(db_name_is_object_path(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_examples),
                cmocka_unit_test(test_lengths),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
