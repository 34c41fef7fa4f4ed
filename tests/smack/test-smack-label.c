/* Unit tests of smack-label: validation with the kernel's rules, interning by identity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "smack-label.h"

static void test_validity(void **state) {
        static const struct {
                const char *text;
                bool valid;
        } cases[] = {
                { "Apple", true },
                { "_", true },
                { "*", true },
                { "^", true },
                { "@", true },
                { "mce::DeviceModeControl", true },
                { "a-b.c_d+e", true },
                { "", false },
                { "-Apple", false },
                { "Ap ple", false },
                { "Ap\tple", false },
                { "Ap/ple", false },
                { "Ap\\ple", false },
                { "Ap'ple", false },
                { "Ap\"ple", false },
                { "Ap\x7fple", false },
                { "Ap\nple", false },
                { "caf\xc3\xa9", false },
        };
        char long_label[300];

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const SmackLabel *label = NULL;

                if (smack_label_is_valid(cases[i].text) != cases[i].valid)
                        fail_msg("\"%s\": expected %s", cases[i].text, cases[i].valid ? "valid" : "invalid");
                assert_int_equal(smack_label_intern(cases[i].text, &label),
                                 cases[i].valid ? 0 : SMACK_E_INVALID_LABEL);
        }
        assert_false(smack_label_is_valid(NULL));

        memset(long_label, 'x', sizeof(long_label));
        long_label[SMACK_LABEL_MAX] = '\0';
        assert_true(smack_label_is_valid(long_label));
        long_label[SMACK_LABEL_MAX] = 'x';
        long_label[SMACK_LABEL_MAX + 1] = '\0';
        assert_false(smack_label_is_valid(long_label));
}

static void test_identity(void **state) {
        const SmackLabel *a = NULL, *b = NULL, *c = NULL;
        char copy[16];

        assert_int_equal(smack_label_intern("Identity", &a), 0);
        strcpy(copy, "Identity");
        assert_int_equal(smack_label_intern(copy, &b), 0);
        assert_ptr_equal(a, b);
        assert_string_equal(a->text, "Identity");
        assert_int_equal(a->length, 8);
        assert_ptr_not_equal(a->text, copy);
        assert_false(a->is_star);
        assert_int_equal(smack_label_intern("identity", &c), 0);
        assert_ptr_not_equal(a, c);
        assert_ptr_equal(smack_label_find("Identity"), a);
        assert_null(smack_label_find("NeverInterned"));
        assert_null(smack_label_find(NULL));
        assert_int_equal(smack_label_intern("*", &c), 0);
        assert_true(c->is_star);
}

/* Growing the table keeps every pointer and every label findable. */
static void test_many(void **state) {
        static const SmackLabel *labels[5000];
        size_t before = smack_label_count();
        char text[32];

        for (size_t i = 0; i < 5000; i++) {
                snprintf(text, sizeof(text), "label-%zu", i);
                assert_int_equal(smack_label_intern(text, &labels[i]), 0);
        }
        assert_int_equal(smack_label_count(), before + 5000);
        for (size_t i = 0; i < 5000; i++) {
                const SmackLabel *again = NULL;

                snprintf(text, sizeof(text), "label-%zu", i);
                assert_int_equal(smack_label_intern(text, &again), 0);
                assert_ptr_equal(again, labels[i]);
                assert_ptr_equal(smack_label_find(text), labels[i]);
                assert_string_equal(labels[i]->text, text);
        }
        assert_int_equal(smack_label_count(), before + 5000);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_validity),
                cmocka_unit_test(test_identity),
                cmocka_unit_test(test_many),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
