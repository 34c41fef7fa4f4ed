/*
 * policy_token_resolve(): the one rule for token names, shared by the
 * manifest parser and the bus's CheckToken. Every shape a name can take,
 * and the compiled policy's provided tokens as the source of "own".
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "db-read.h"
#include "token-name.h"

/* The package "calendar" provides "read" and "work". */
static bool calendar_provides(const char *package, const char *name, void *userdata) {
        (*(unsigned *) userdata)++;
        return strcmp(package, "calendar") == 0 && (strcmp(name, "read") == 0 || strcmp(name, "work") == 0);
}

static void expect(const char *written, const char *package, const char *label) {
        char out[POLICY_TOKEN_LABEL_SIZE];
        unsigned calls = 0;

        assert_int_equal(policy_token_resolve(written, package, calendar_provides, &calls, out,
                                              sizeof(out)), 0);
        assert_string_equal(out, label);
}

static void expect_error(const char *written, const char *package, int code) {
        char out[POLICY_TOKEN_LABEL_SIZE] = "untouched";
        unsigned calls = 0;

        assert_int_equal(policy_token_resolve(written, package, calendar_provides, &calls, out,
                                              sizeof(out)), code);
        assert_string_equal(out, "untouched");
        assert_non_null(policy_token_error_to_string(code));
}

static void test_shapes(void **state) {
        /* Bare: the package's own token if it provides one of that name, else global. */
        expect("read", "calendar", "calendar::read");
        expect("work", "calendar", "calendar::work");
        expect("Cellular", "calendar", "Cellular");
        expect("read", "maps", "read");
        expect("read", NULL, "read");
        /* Qualified: as written, whoever asks. */
        expect("calendar::work", "maps", "calendar::work");
        expect("calendar::work", "calendar", "calendar::work");
        expect("mce::DeviceModeControl", NULL, "mce::DeviceModeControl");
}

static void test_refused(void **state) {
        char long_name[300];

        expect_error("UID::root", "calendar", POLICY_TOKEN_E_POSIX);
        expect_error("CAP::net_admin", NULL, POLICY_TOKEN_E_POSIX);
        expect_error("", "calendar", POLICY_TOKEN_E_INVALID);
        expect_error("two words", "calendar", POLICY_TOKEN_E_INVALID);
        expect_error("a/b", "calendar", POLICY_TOKEN_E_INVALID);
        expect_error("-dash", "calendar", POLICY_TOKEN_E_INVALID);
        expect_error("::read", "calendar", POLICY_TOKEN_E_INVALID);
        expect_error("calendar::", "calendar", POLICY_TOKEN_E_INVALID);
        expect_error("a::b::c", "calendar", POLICY_TOKEN_E_INVALID);
        expect_error("*::read", "calendar", POLICY_TOKEN_E_PACKAGE);
        expect_error("_::read", "calendar", POLICY_TOKEN_E_PACKAGE);
        memset(long_name, 'x', 256);
        long_name[256] = '\0';
        expect_error(long_name, "calendar", POLICY_TOKEN_E_INVALID);
        /* 250 characters are a label, but "calendar::" + 250 is not. */
        long_name[250] = '\0';
        expect(long_name, "maps", long_name);
}

static bool long_provides(const char *package, const char *name, void *userdata) {
        return true;
}

static void test_too_long(void **state) {
        char name[251], out[POLICY_TOKEN_LABEL_SIZE] = "untouched";

        memset(name, 'x', 250);
        name[250] = '\0';
        assert_int_equal(policy_token_resolve(name, "calendar", long_provides, NULL, out, sizeof(out)),
                         POLICY_TOKEN_E_TOO_LONG);
        assert_string_equal(out, "untouched");
        /* 245 + "calendar::" is 255: still a label. */
        name[245] = '\0';
        assert_int_equal(policy_token_resolve(name, "calendar", long_provides, NULL, out, sizeof(out)), 0);
        assert_int_equal(strlen(out), 255);
}

static void test_bad_arguments(void **state) {
        char out[POLICY_TOKEN_LABEL_SIZE];

        assert_int_equal(policy_token_resolve(NULL, "p", long_provides, NULL, out, sizeof(out)), -EINVAL);
        assert_int_equal(policy_token_resolve("t", "p", long_provides, NULL, NULL, sizeof(out)), -EINVAL);
        assert_int_equal(policy_token_resolve("t", "p", long_provides, NULL, out, 10), -EINVAL);
        assert_int_equal(policy_token_resolve("t", "p", NULL, NULL, out, sizeof(out)), -EINVAL);
        assert_null(policy_token_error_to_string(0));
}

/* The compiled policy answers "does package provide name" for the bus. */
static void test_over_policy_db(void **state) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        char out[POLICY_TOKEN_LABEL_SIZE];
        size_t size;

        assert_int_equal(policy_builder_new(&b), 0);
        assert_int_equal(policy_builder_add_provided_token(b, "calendar::work"), 0);
        assert_int_equal(policy_builder_add_global_token(b, "work"), 0);
        assert_int_equal(policy_builder_build(b, &data, &size), 0);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        /* Own before global, as in a manifest. */
        assert_int_equal(policy_token_resolve("work", "calendar", policy_db_token_provided, db, out,
                                              sizeof(out)), 0);
        assert_string_equal(out, "calendar::work");
        assert_int_equal(policy_token_resolve("work", "maps", policy_db_token_provided, db, out,
                                              sizeof(out)), 0);
        assert_string_equal(out, "work");
        assert_int_equal(policy_token_resolve("read", "calendar", policy_db_token_provided, db, out,
                                              sizeof(out)), 0);
        assert_string_equal(out, "read");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_shapes),
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_too_long),
                cmocka_unit_test(test_bad_arguments),
                cmocka_unit_test(test_over_policy_db),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
