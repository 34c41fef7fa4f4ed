/*
 * Unit tests of smack-rules.c: the access letters, the rule-file text
 * (parse with line numbers, union versus replace, byte-exact output) and
 * label validity as the kernel sees it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "smack-rules.h"

static void test_access_roundtrip(void **state) {
        char text[SMACK_ACCESS_STRING_MAX];
        unsigned access = 0;

        assert_int_equal(smack_access_parse("wr", &access), 0);
        assert_int_equal(access, SMACK_ACCESS_READ | SMACK_ACCESS_WRITE);
        smack_access_format(access, text);
        assert_string_equal(text, "rw");
        assert_int_equal(smack_access_parse("-", &access), 0);
        assert_int_equal(access, 0);
        smack_access_format(0, text);
        assert_string_equal(text, "-");
        assert_int_equal(smack_access_parse("blta xWR", &access), SMACK_RULES_E_SYNTAX);
        assert_int_equal(smack_access_parse("bltaxWR", &access), 0);
        smack_access_format(access, text);
        assert_string_equal(text, "rwxatlb");
        assert_int_equal(smack_access_parse("", &access), SMACK_RULES_E_SYNTAX);
        assert_int_equal(smack_access_parse("rq", &access), SMACK_RULES_E_SYNTAX);
}

static void test_labels(void **state) {
        assert_true(smack_label_valid("mce::DeviceModeControl"));
        assert_true(smack_label_valid("_"));
        assert_false(smack_label_valid(""));
        assert_false(smack_label_valid("-x"));
        assert_false(smack_label_valid("a b"));
        assert_false(smack_label_valid("a/b"));
        assert_false(smack_label_valid("a\"b"));
        assert_false(smack_label_valid(NULL));
        char long_label[300];
        memset(long_label, 'x', sizeof(long_label) - 1);
        long_label[sizeof(long_label) - 1] = '\0';
        assert_false(smack_label_valid(long_label));
        long_label[SMACK_LABEL_MAX] = '\0';
        assert_true(smack_label_valid(long_label));
}

static void test_parse_union_and_replace(void **state) {
        _cleanup_(smack_rules_freep) SmackRules *rules = NULL;
        unsigned line = 0;

        assert_int_equal(smack_rules_new(&rules), 0);
        assert_int_equal(smack_rules_parse(rules, "# comment with many words here\n"
                                           "\n  ; another\nA B r\nA B w\r\nC D x\n", false, &line), 0);
        assert_int_equal(rules->n_rules, 2);
        assert_int_equal(smack_rules_get(rules, "A", "B"), SMACK_ACCESS_READ | SMACK_ACCESS_WRITE);
        assert_int_equal(smack_rules_get(rules, "C", "D"), SMACK_ACCESS_EXECUTE);
        assert_int_equal(smack_rules_get(rules, "B", "A"), 0);

        /* The kernel's listing: the last write for a pair wins. */
        assert_int_equal(smack_rules_parse(rules, "A B w\nA B -\n", true, NULL), 0);
        assert_int_equal(smack_rules_get(rules, "A", "B"), 0);
}

static void test_parse_errors(void **state) {
        _cleanup_(smack_rules_freep) SmackRules *rules = NULL;
        unsigned line = 0;

        assert_int_equal(smack_rules_new(&rules), 0);
        assert_int_equal(smack_rules_parse(rules, "A B w\nA B\n", false, &line), SMACK_RULES_E_SYNTAX);
        assert_int_equal(line, 2);
        assert_int_equal(smack_rules_parse(rules, "A B w x\n", false, &line), SMACK_RULES_E_SYNTAX);
        assert_int_equal(line, 1);
        assert_int_equal(smack_rules_parse(rules, "\n\nA/x B w\n", false, &line), SMACK_RULES_E_SYNTAX);
        assert_int_equal(line, 3);
        assert_int_equal(smack_rules_parse(rules, "A B q\n", false, &line), SMACK_RULES_E_SYNTAX);
        assert_int_equal(smack_rules_add(rules, "A B", "C", SMACK_ACCESS_READ), -EINVAL);
}

static void test_format(void **state) {
        _cleanup_(smack_rules_freep) SmackRules *rules = NULL;
        _cleanup_free_ char *text = NULL, *empty = NULL;

        assert_int_equal(smack_rules_new(&rules), 0);
        assert_int_equal(smack_rules_add(rules, "maps", "mce", SMACK_ACCESS_WRITE), 0);
        assert_int_equal(smack_rules_add(rules, "maps", "Location", SMACK_ACCESS_WRITE), 0);
        assert_int_equal(smack_rules_add(rules, "gone", "x", 0), 0);
        assert_int_equal(smack_rules_add(rules, "mce", "maps", SMACK_ACCESS_WRITE), 0);
        assert_int_equal(smack_rules_add(rules, "maps", "mce", SMACK_ACCESS_READ), 0);
        assert_int_equal(smack_rules_format(rules, "header", &text), 0);
        assert_string_equal(text, "# header\nmaps Location w\nmaps mce rw\nmce maps w\n");
        /* Formatting sorts a copy: the set keeps its order. */
        assert_string_equal(rules->rules[0].object, "mce");
        smack_rules_sort(rules);
        assert_string_equal(rules->rules[0].subject, "gone");

        smack_rules_free(TAKE_PTR(rules));
        assert_int_equal(smack_rules_new(&rules), 0);
        assert_int_equal(smack_rules_format(rules, NULL, &empty), 0);
        assert_string_equal(empty, "");
}

static void test_merge(void **state) {
        _cleanup_(smack_rules_freep) SmackRules *a = NULL, *b = NULL;

        assert_int_equal(smack_rules_new(&a), 0);
        assert_int_equal(smack_rules_new(&b), 0);
        assert_int_equal(smack_rules_add(a, "X", "Y", SMACK_ACCESS_READ), 0);
        assert_int_equal(smack_rules_add(b, "X", "Y", SMACK_ACCESS_WRITE), 0);
        assert_int_equal(smack_rules_add(b, "Y", "X", SMACK_ACCESS_WRITE), 0);
        for (int i = 0; i < 100; i++) {
                char subject[16];

                snprintf(subject, sizeof(subject), "s%d", i);
                assert_int_equal(smack_rules_add(b, subject, "T", SMACK_ACCESS_WRITE), 0);
        }
        assert_int_equal(smack_rules_merge(a, b), 0);
        assert_int_equal(a->n_rules, 102);
        assert_int_equal(smack_rules_get(a, "X", "Y"), SMACK_ACCESS_READ | SMACK_ACCESS_WRITE);
        assert_int_equal(smack_rules_get(a, "s99", "T"), SMACK_ACCESS_WRITE);
        assert_null(smack_rules_free(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_access_roundtrip),
                cmocka_unit_test(test_labels),
                cmocka_unit_test(test_parse_union_and_replace),
                cmocka_unit_test(test_parse_errors),
                cmocka_unit_test(test_format),
                cmocka_unit_test(test_merge),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
