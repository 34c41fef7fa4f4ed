/*
 * Unit tests for broker/propfilter/propfilter-policy.c: the filter's
 * question answered from a policy compiled with the policy builder (a
 * property rule, an interface default, an explicitly open member, the
 * union when the interface is unknown, what the manifest does not cover
 * (other paths, a subtree, other interfaces, case variants: hidden),
 * undeclared names, oracle errors), then whole messages filtered through it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "builder.h"
#include "propfilter-policy.h"
#include "propfilter-testlib.h"

/* The token oracle: label "trusted" holds T1 and T2, "app" holds T1, "broken" fails. */
static int has_token(const char *label, const char *token, void *userdata) {
        if (strcmp(label, "broken") == 0)
                return -EIO;
        if (strcmp(label, "trusted") == 0)
                return 1;
        return strcmp(label, "app") == 0 && strcmp(token, "T1") == 0;
}

static PolicyDb *policy(void) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        PolicyDb *db = NULL;
        uint32_t name;
        size_t size;

        assert_int_equal(policy_builder_new(&b), 0);
        assert_int_equal(policy_builder_add_name(b, "org.ex", &name), 0);
        assert_int_equal(policy_builder_add_owner(b, name, "service"), 0);
        assert_int_equal(policy_builder_add_rule(b, name, POLICY_KIND_PROPERTY_READ, "/o",
                                                 "org.ex.A", "Secret", "T1"), 0);
        assert_int_equal(policy_builder_add_rule(b, name, POLICY_KIND_PROPERTY_READ, "/o",
                                                 "org.ex.B", NULL, "T2"), 0);
        assert_int_equal(policy_builder_add_rule(b, name, POLICY_KIND_PROPERTY_READ, "/o",
                                                 "org.ex.B", "Open", NULL), 0);
        assert_int_equal(policy_builder_build(b, &data, &size), 0);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        return db;
}

static const char *const names[] = { "org.example.Other", "org.ex" };

static PropfilterPolicy for_label(const PolicyDb *db, const char *label) {
        return (PropfilterPolicy) {
                .db = db, .names = names, .n_names = ELEMENTSOF(names), .label = label,
                .has_token = has_token,
        };
}

static int ask(PropfilterPolicy *p, const char *path, const char *interface, const char *property) {
        return propfilter_policy_visible(path, interface, property, p);
}

static void test_questions(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = policy();
        PropfilterPolicy app = for_label(db, "app"), nobody = for_label(db, "nobody");
        PropfilterPolicy trusted = for_label(db, "trusted");

        /* A property's own rule. */
        assert_int_equal(ask(&app, "/o", "org.ex.A", "Secret"), 1);
        assert_int_equal(ask(&nobody, "/o", "org.ex.A", "Secret"), 0);
        /* Under a declared name what no line covers is hidden, whatever the tokens. */
        assert_int_equal(ask(&trusted, "/o", "org.ex.A", "Other"), 0);
        assert_int_equal(ask(&trusted, "/p", "org.ex.A", "Secret"), 0);
        assert_int_equal(ask(&trusted, "/o/child", "org.ex.A", "Secret"), 0);
        assert_int_equal(ask(&trusted, "/", "org.ex.A", "Secret"), 0);
        assert_int_equal(ask(&trusted, "/o", "org.ex.a", "Secret"), 0);
        assert_int_equal(ask(&trusted, "/o", "org.ex.A", "secret"), 0);
        /* The interface default covers unlisted members; an open member stays open. */
        assert_int_equal(ask(&app, "/o", "org.ex.B", "X"), 0);
        assert_int_equal(ask(&trusted, "/o", "org.ex.B", "X"), 1);
        assert_int_equal(ask(&nobody, "/o", "org.ex.B", "Open"), 1);
        assert_int_equal(ask(&trusted, "/o/child", "org.ex.B", "Open"), 0);
        /* The interfaces themselves: declared at that path, their default held. */
        assert_int_equal(ask(&app, "/o", "org.ex.B", NULL), 0);
        assert_int_equal(ask(&trusted, "/o", "org.ex.B", NULL), 1);
        assert_int_equal(ask(&nobody, "/o", "org.ex.A", NULL), 1);
        assert_int_equal(ask(&trusted, "/o", "org.ex.C", NULL), 0);
        assert_int_equal(ask(&trusted, "/o/child", "org.ex.A", NULL), 0);
        assert_int_equal(ask(&trusted, "/o", "org.ex.b", NULL), 0);
        /* Unknown interface: the union (Secret needs T1, and B's default T2 may apply). */
        assert_int_equal(ask(&app, "/o", NULL, "Secret"), 0);
        assert_int_equal(ask(&trusted, "/o", NULL, "Secret"), 1);
        assert_int_equal(ask(&app, "/o", NULL, "Other"), 0);
        assert_int_equal(ask(&trusted, "/o", NULL, "Other"), 1);
        assert_int_equal(ask(&app, "/o", NULL, NULL), 0);
        assert_int_equal(ask(&trusted, "/o", NULL, NULL), 1);
        assert_int_equal(ask(&trusted, "/p", NULL, NULL), 0);
        assert_int_equal(ask(&trusted, "/p", NULL, "Secret"), 0);
}

static void test_undeclared_and_errors(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = policy();
        PropfilterPolicy undeclared = for_label(db, "nobody"), broken = for_label(db, "broken");

        undeclared.names = names;
        undeclared.n_names = 1;         /* only org.example.Other, not declared */
        assert_int_equal(ask(&undeclared, "/o", "org.ex.A", "Secret"), 1);
        assert_int_equal(ask(&undeclared, "/o", "org.ex.B", NULL), 1);
        undeclared.n_names = 0;
        assert_int_equal(ask(&undeclared, "/o", "org.ex.B", "X"), 1);

        assert_int_equal(ask(&broken, "/o", "org.ex.A", "Secret"), -EIO);
        assert_int_equal(ask(&broken, "/o", "org.ex.B", NULL), -EIO);
        /* No token needed, or nothing declared: the oracle is not asked. */
        assert_int_equal(ask(&broken, "/o", "org.ex.B", "Open"), 1);
        assert_int_equal(ask(&broken, "/o", "org.ex.A", "Other"), 0);
        assert_int_equal(ask(&broken, "/o", "org.ex.C", NULL), 0);

        assert_int_equal(propfilter_policy_visible("/o", "org.ex.A", "Secret", NULL), -EINVAL);
        broken.db = NULL;
        assert_int_equal(ask(&broken, "/o", "org.ex.A", "Secret"), -EINVAL);
}

static void check(Message *in, const PropfilterCall *call, PropfilterPolicy *p, Message *expected) {
        _cleanup_(message_unrefp) Message *out = NULL;
        size_t n_out, n_expected;
        const void *body_out, *body_expected;

        assert_int_equal(propfilter_filter(in, call, propfilter_policy_visible, p, &out), 0);
        body_out = message_get_body(out, &n_out);
        body_expected = message_get_body(expected, &n_expected);
        assert_int_equal(n_out, n_expected);
        assert_memory_equal(body_out, body_expected, n_out);
}

static void test_messages(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = policy();
        _cleanup_(message_unrefp) Message *in = NULL, *for_app = NULL, *for_nobody = NULL;
        _cleanup_(message_unrefp) Message *pc = NULL, *pc_nobody = NULL, *dropped = NULL;
        _cleanup_(message_unrefp) Message *for_trusted = NULL, *covered = NULL;
        PropfilterPolicy app = for_label(db, "app"), nobody = for_label(db, "nobody");
        PropfilterPolicy trusted = for_label(db, "trusted");
        const PropfilterCall objects = { .kind = PROPFILTER_GET_MANAGED_OBJECTS, .exact = true };
        Message *out = NULL;

        assert_int_equal(testlib_managed_objects_reply(
                "/o:org.ex.A=Secret,Other;org.ex.B=X,Open;org.ex.C=|/q:org.ex.B=X", &in), 0);
        /*
         * Other, C and everything at /q are not in the manifest: hidden from
         * all; A stays (declared, unprotected) even when nothing of it is left.
         */
        assert_int_equal(testlib_managed_objects_reply("/o:org.ex.A=Secret;org.ex.B=Open", &for_app), 0);
        assert_int_equal(testlib_managed_objects_reply("/o:org.ex.A=;org.ex.B=Open", &for_nobody), 0);
        assert_int_equal(testlib_managed_objects_reply("/o:org.ex.A=Secret;org.ex.B=X,Open",
                                                       &for_trusted), 0);
        check(in, &objects, &app, for_app);
        check(in, &objects, &nobody, for_nobody);
        check(in, &objects, &trusted, for_trusted);
        assert_int_equal(testlib_managed_objects_reply("/o:org.ex.A=Secret;org.ex.B=X,Open", &covered), 0);
        assert_int_equal(propfilter_filter(covered, &objects, propfilter_policy_visible, &trusted, &out), 0);
        assert_ptr_equal(out, covered);
        message_unref(out);

        /* B at /o with only X: protected, nothing visible: gone. */
        assert_int_equal(testlib_properties_changed("/o", "org.ex.B", "X", "Open", &pc), 0);
        assert_int_equal(testlib_properties_changed("/o", "org.ex.B", "", "Open", &pc_nobody), 0);
        check(pc, NULL, &nobody, pc_nobody);
        assert_int_equal(testlib_interfaces_added("/o", "org.ex.B=X", &dropped), 0);
        out = NULL;
        assert_int_equal(propfilter_filter(dropped, NULL, propfilter_policy_visible, &app, &out),
                         PROPFILTER_E_DROP);
        assert_null(out);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_questions),
                cmocka_unit_test(test_undeclared_and_errors),
                cmocka_unit_test(test_messages),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
