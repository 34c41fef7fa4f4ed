/* Unit tests for broker/wire/validate.c: names, paths, signatures, UTF-8. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "validate.h"

#define S(lit) (lit), (sizeof(lit) - 1)

static void check_all(bool (*fn)(const char *, size_t), const char *const *good, const char *const *bad) {
        for (; *good; good++)
                if (!fn(*good, strlen(*good)))
                        fail_msg("rejected valid \"%s\"", *good);
        for (; *bad; bad++)
                if (fn(*bad, strlen(*bad)))
                        fail_msg("accepted invalid \"%s\"", *bad);
}

static void test_bus_names(void **state) {
        static const char *const good_unique[] = { ":1.0", ":1.42", ":a.b-c_d", ":1.2.3", NULL };
        static const char *const bad_unique[] = { ":", ":1", ":1.", ":.1", ":1..2", "1.2", ":1.2/3", "", NULL };
        static const char *const good_wk[] = { "org.freedesktop.DBus", "a.b", "com.nokia.mce", "org.x-y._z", "A.B9", NULL };
        static const char *const bad_wk[] = { "org", "org.", ".org.x", "org..x", "org.1x", "1org.x", ":1.2", "org.x/y", "org.é", "", NULL };

        check_all(validate_unique_name, good_unique, bad_unique);
        check_all(validate_well_known_name, good_wk, bad_wk);
        assert_true(validate_bus_name(S(":1.7")));
        assert_true(validate_bus_name(S("org.example.Foo")));
        assert_false(validate_bus_name(S(":org")));
        assert_false(validate_bus_name(S("org")));
        assert_false(validate_bus_name(NULL, 0));
}

static void test_name_length(void **state) {
        char name[300];

        memset(name, 'a', sizeof(name));
        name[1] = '.';
        assert_true(validate_well_known_name(name, 255));
        assert_false(validate_well_known_name(name, 256));
        assert_true(validate_interface_name(name, 255));
        assert_false(validate_interface_name(name, 256));
        assert_true(validate_member_name(name + 2, 255));
        assert_false(validate_member_name(name + 2, 256));
        /* An embedded NUL is never part of a valid name. */
        assert_false(validate_well_known_name("org.a\0b", 7));
}

static void test_interface_member_error(void **state) {
        static const char *const good_iface[] = { "org.freedesktop.DBus", "a.b", "_a._b", "a1.b2", NULL };
        static const char *const bad_iface[] = { "a", "a.", "a.1b", "a-b.c", "a..b", ":1.2", "", NULL };
        static const char *const good_member[] = { "Hello", "_x", "a1", "GetAll", NULL };
        static const char *const bad_member[] = { "", "1a", "a.b", "a-b", "a b", NULL };

        check_all(validate_interface_name, good_iface, bad_iface);
        check_all(validate_error_name, good_iface, bad_iface);
        check_all(validate_member_name, good_member, bad_member);
}

static void test_object_paths(void **state) {
        static const char *const good[] = { "/", "/a", "/a/b", "/org/freedesktop/DBus", "/_1/A_b", NULL };
        static const char *const bad[] = { "", "a", "//", "/a/", "/a//b", "/a-b", "/a.b", "/é", NULL };

        check_all(validate_object_path, good, bad);
        assert_false(validate_object_path("/a\0b", 4));
}

static void test_signatures(void **state) {
        static const char *const good[] = {
                "", "s", "ybnqiuxtdsogvh", "as", "aas", "a{sv}", "a{oa{sa{sv}}}", "(i)", "((i))",
                "a(ii)", "(a{sv}as)", "v", "aav", "a{ya{ss}}", NULL,
        };
        static const char *const bad[] = {
                "a", "aa", "(", ")", "()", "(()", "(i", "i)", "{sv}", "a{}", "a{s}", "a{svv}",
                "a{vs}", "a{(i)s}", "a{as}", "w", "r", "e", "a)", "(a)", "a{s", "{", "}", NULL,
        };
        char sig[300];

        check_all(validate_signature, good, bad);

        memset(sig, 'a', 32);
        sig[32] = 'y';
        assert_true(validate_signature(sig, 33));
        memset(sig, 'a', 33);
        sig[33] = 'y';
        assert_false(validate_signature(sig, 34));

        /* Arrays nested through structs count too: 33 here. */
        strcpy(sig, "");
        for (int i = 0; i < 32; i++)
                strcat(sig, "a(");
        strcat(sig, "ay");
        for (int i = 0; i < 32; i++)
                strcat(sig, ")");
        assert_false(validate_signature(sig, strlen(sig)));

        memset(sig, '(', 32);
        sig[32] = 'y';
        memset(sig + 33, ')', 32);
        assert_true(validate_signature(sig, 65));
        memset(sig, '(', 33);
        sig[33] = 'y';
        memset(sig + 34, ')', 33);
        assert_false(validate_signature(sig, 67));

        memset(sig, 'y', 256);
        assert_true(validate_signature(sig, 255));
        assert_false(validate_signature(sig, 256));
        assert_false(validate_signature("s\0", 2));
}

static void test_single_complete_type(void **state) {
        assert_true(validate_single_complete_type(S("s")));
        assert_true(validate_single_complete_type(S("a{sv}")));
        assert_true(validate_single_complete_type(S("(sa{sv}as)")));
        assert_false(validate_single_complete_type(S("")));
        assert_false(validate_single_complete_type(S("ss")));
        assert_false(validate_single_complete_type(S("a")));
        assert_false(validate_single_complete_type(S("{sv}")));

        assert_int_equal(validate_complete_type_length(S("a{sv}s")), 5);
        assert_int_equal(validate_complete_type_length(S("{sv}")), 4);
        assert_int_equal(validate_complete_type_length(S("(ii)y")), 4);
        assert_int_equal(validate_complete_type_length(S(")")), 0);
}

static void test_utf8(void **state) {
        assert_true(validate_utf8(S("")));
        assert_true(validate_utf8(S("plain ascii")));
        assert_true(validate_utf8(S("h\xc3\xa9llo")));                  /* U+00E9 */
        assert_true(validate_utf8(S("\xe4\xb8\x96")));                  /* U+4E16 */
        assert_true(validate_utf8(S("\xf0\x9f\x98\x80")));              /* U+1F600 */
        assert_true(validate_utf8(S("\xf4\x8f\xbf\xbf")));              /* U+10FFFF */
        assert_true(validate_utf8(S("\xef\xb7\x90\xef\xbf\xbf")));      /* noncharacters: allowed */

        assert_false(validate_utf8("a\0b", 3));                         /* NUL */
        assert_false(validate_utf8(S("\xc0\xaf")));                     /* overlong '/' */
        assert_false(validate_utf8(S("\xe0\x80\xaf")));                 /* overlong, 3 bytes */
        assert_false(validate_utf8(S("\xf0\x80\x80\xaf")));             /* overlong, 4 bytes */
        assert_false(validate_utf8(S("\xed\xa0\x80")));                 /* surrogate U+D800 */
        assert_false(validate_utf8(S("\xed\xbf\xbf")));                 /* surrogate U+DFFF */
        assert_false(validate_utf8(S("\xf4\x90\x80\x80")));             /* U+110000 */
        assert_false(validate_utf8(S("\xf8\x88\x80\x80\x80")));         /* 5-byte form */
        assert_false(validate_utf8(S("\x80")));                         /* lone continuation */
        assert_false(validate_utf8(S("\xc3")));                         /* truncated */
        assert_false(validate_utf8(S("\xe4\xb8")));                     /* truncated */
        assert_false(validate_utf8(S("\xc3\x28")));                     /* bad continuation */
        assert_false(validate_utf8(S("\xff")));
}

static void test_basic_types(void **state) {
        for (const char *t = "ybnqiuxtdhsog"; *t; t++)
                assert_true(validate_is_basic_type(*t));
        for (const char *t = "va({)}rezw"; *t; t++)
                assert_false(validate_is_basic_type(*t));
        assert_false(validate_is_basic_type(0));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bus_names),
                cmocka_unit_test(test_name_length),
                cmocka_unit_test(test_interface_member_error),
                cmocka_unit_test(test_object_paths),
                cmocka_unit_test(test_signatures),
                cmocka_unit_test(test_single_complete_type),
                cmocka_unit_test(test_utf8),
                cmocka_unit_test(test_basic_types),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
