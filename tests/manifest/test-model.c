/* Unit tests of the model's constructors and lookups, and of the diagnostics list. */
#include <stdlib.h>

#include "test-helpers.h"
#include "model.h"
#include "policyset.h"

static void test_lookups(void **state) {
        Package *p = NULL;
        SourceLoc loc = { .file = "f", .line = 1, .column = 2 };
        assert_int_equal(package_new("pkg", NULL, "f.xml", &p), 0);
        assert_null(p->origin);

        ProvidedToken *t = NULL;
        assert_int_equal(provided_token_new("pkg", "Tok", true, loc, &t), 0);
        assert_string_equal(t->label, "pkg::Tok");
        assert_int_equal(MODEL_APPEND(p->tokens, p->n_tokens, t), 0);
        assert_ptr_equal(package_find_token(p, "Tok"), t);
        assert_null(package_find_token(p, "pkg::Tok"));

        DbusName *d = NULL;
        assert_int_equal(dbus_name_new("org.x", BUS_SESSION, loc, &d), 0);
        assert_int_equal(d->own, OWN_SELF);
        assert_int_equal(dbus_name_add_owner_label(d, "pkg", loc), 0);
        assert_int_equal(dbus_name_add_owner_label(d, "pkg", loc), 0);
        assert_int_equal(d->n_owner_labels, 1);
        assert_int_equal(MODEL_APPEND(p->names, p->n_names, d), 0);
        assert_null(package_find_name(p, BUS_SYSTEM, "org.x"));
        assert_ptr_equal(package_find_name(p, BUS_SESSION, "org.x"), d);

        Node *n = NULL;
        Interface *i = NULL;
        Member *m = NULL, *s = NULL;
        assert_int_equal(node_new("/a", loc, &n), 0);
        assert_int_equal(MODEL_APPEND(d->nodes, d->n_nodes, n), 0);
        assert_int_equal(interface_new("org.x.I", loc, &i), 0);
        assert_int_equal(MODEL_APPEND(n->interfaces, n->n_interfaces, i), 0);
        assert_int_equal(member_new(MEMBER_METHOD, "Same", loc, &m), 0);
        assert_int_equal(member_new(MEMBER_SIGNAL, "Same", loc, &s), 0);
        assert_int_equal(MODEL_APPEND(i->members, i->n_members, m), 0);
        assert_int_equal(MODEL_APPEND(i->members, i->n_members, s), 0);
        assert_ptr_equal(dbus_name_find_node(d, "/a"), n);
        assert_null(dbus_name_find_node(d, "/"));
        assert_ptr_equal(node_find_interface(n, "org.x.I"), i);
        assert_ptr_equal(interface_find_member(i, MEMBER_METHOD, "Same"), m);
        assert_ptr_equal(interface_find_member(i, MEMBER_SIGNAL, "Same"), s);
        assert_null(interface_find_member(i, MEMBER_PROPERTY, "Same"));

        /* Requirements: set, compare, copy. */
        assert_int_equal(requirement_set(&m->require, REQUIREMENT_TOKEN, "pkg::Tok", loc), 0);
        assert_int_equal(requirement_set(&s->require, REQUIREMENT_TOKEN, "Tok", loc), 0);
        assert_false(requirement_equal(&m->require, &s->require));
        assert_int_equal(requirement_copy(&s->require, &m->require), 0);
        assert_true(requirement_equal(&m->require, &s->require));
        assert_ptr_not_equal(m->require.token, s->require.token);
        assert_int_equal(requirement_set(&s->require, REQUIREMENT_OPEN, "ignored", loc), 0);
        assert_null(s->require.token);
        assert_false(requirement_equal(&m->require, &s->require));

        Request *r = NULL;
        Credential *c = NULL;
        RequestTarget *target = NULL;
        assert_int_equal(request_new(loc, &r), 0);
        assert_int_equal(credential_new(CREDENTIAL_TOKEN, "pkg::Tok", "Tok", "pkg", loc, &c), 0);
        assert_int_equal(MODEL_APPEND(r->credentials, r->n_credentials, c), 0);
        assert_int_equal(request_target_new("/usr/bin/x", NULL, "", loc, &target), 0);
        assert_int_equal(MODEL_APPEND(r->targets, r->n_targets, target), 0);
        assert_int_equal(MODEL_APPEND(p->requests, p->n_requests, r), 0);
        Grant *g = NULL;
        assert_int_equal(grant_new("pkg::Tok", CREDENTIAL_TOKEN, GRANT_GRANTED, r, c, &g), 0);
        assert_int_equal(MODEL_APPEND(p->grants, p->n_grants, g), 0);
        Account *a = NULL;
        assert_int_equal(account_new("u", NULL, loc, &a), 0);
        assert_int_equal(MODEL_APPEND(p->accounts, p->n_accounts, a), 0);
        /* Everything is freed with the package (the leak checker says so). */
        assert_null(package_free(p));
}

static void test_policy_set_lookups(void **state) {
        PolicySet *set = NULL;
        Package *a = NULL, *b = NULL;
        SourceLoc loc = { 0 };
        assert_int_equal(policy_set_new(NULL, &set), 0);
        assert_non_null(set->device);
        assert_int_equal(package_new("a", "system", "a.xml", &a), 0);
        assert_int_equal(package_new("b", NULL, "b.xml", &b), 0);
        ProvidedToken *t = NULL;
        assert_int_equal(provided_token_new("b", "T", false, loc, &t), 0);
        assert_int_equal(MODEL_APPEND(b->tokens, b->n_tokens, t), 0);
        DbusName *d = NULL;
        assert_int_equal(dbus_name_new("org.b", BUS_SYSTEM, loc, &d), 0);
        assert_int_equal(MODEL_APPEND(b->names, b->n_names, d), 0);
        /* Through policy_set_add(): it indexes what the lookups use. */
        assert_int_equal(policy_set_add(set, a, NULL), 0);
        assert_int_equal(policy_set_add(set, b, NULL), 0);
        assert_ptr_equal(policy_set_find_package(set, "b"), b);
        assert_null(policy_set_find_package(set, "c"));
        const Package *provider = NULL;
        assert_ptr_equal(policy_set_find_token(set, "b::T", &provider), t);
        assert_ptr_equal(provider, b);
        assert_null(policy_set_find_token(set, "a::T", NULL));
        const DbusName *found = NULL;
        assert_ptr_equal(policy_set_find_name_owner(set, BUS_SYSTEM, "org.b", &found), b);
        assert_ptr_equal(found, d);
        assert_null(policy_set_find_name_owner(set, BUS_SESSION, "org.b", NULL));
        policy_set_free(set);
}

static void test_device_policy_model(void **state) {
        DevicePolicy *p = NULL;
        assert_int_equal(device_policy_new(&p), 0);
        assert_null(device_policy_find_origin(p, "system"));
        assert_null(device_policy_find_origin(p, NULL));
        assert_int_equal(model_strv_append(&p->global_tokens, &p->n_global_tokens, "Cellular"), 0);
        assert_true(device_policy_has_global_token(p, "Cellular"));
        assert_false(device_policy_has_global_token(p, "cellular"));
        SourceLoc loc = { 0 };
        OriginGrant *any = NULL, *sys = NULL;
        assert_int_equal(origin_grant_new("*", loc, &any), 0);
        assert_int_equal(origin_grant_new("system", loc, &sys), 0);
        assert_int_equal(MODEL_APPEND(p->origins, p->n_origins, any), 0);
        assert_int_equal(MODEL_APPEND(p->origins, p->n_origins, sys), 0);
        assert_ptr_equal(device_policy_find_origin(p, "system"), sys);
        assert_ptr_equal(device_policy_find_origin(p, "other"), any);
        assert_ptr_equal(device_policy_find_origin(p, NULL), any);
        device_policy_free(p);
}

static void test_strings(void **state) {
        assert_string_equal(credential_kind_to_string(CREDENTIAL_CAP), "CAP");
        assert_string_equal(credential_kind_to_string(CREDENTIAL_MATCH), "match");
        assert_null(credential_kind_to_string((CredentialKind) 99));
        assert_string_equal(member_kind_to_string(MEMBER_PROPERTY), "property");
        assert_null(member_kind_to_string((MemberKind) -1));
        assert_string_equal(bus_kind_to_string(BUS_SESSION), "session");
        assert_string_equal(grant_result_to_string(GRANT_CHECKORIGIN_DENIED),
                            "checkorigin token of another origin");
        assert_null(grant_result_to_string((GrantResult) 7));
}

static void test_diagnostics(void **state) {
        Diagnostics *diag = NULL;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(diagnostics_add(NULL, DIAGNOSTIC_ERROR, "f", 1, 1, "ignored"), 0);
        assert_int_equal(diagnostics_add(diag, DIAGNOSTIC_ERROR, "f.xml", 3, 7, "bad %s", "thing"), 0);
        assert_int_equal(diagnostics_add(diag, DIAGNOSTIC_WARNING, "f.xml", 3, 0, "line only"), 0);
        assert_int_equal(diagnostics_add(diag, DIAGNOSTIC_WARNING, "f.xml", 0, 0, "whole file"), 0);
        assert_int_equal(diagnostics_add(diag, DIAGNOSTIC_WARNING, NULL, 0, 0, "nowhere"), 0);
        static const char *const expected[] = {
                "f.xml:3:7: error: bad thing",
                "f.xml:3: warning: line only",
                "f.xml: warning: whole file",
                "warning: nowhere",
        };
        assert_int_equal(diag->n_items, ELEMENTSOF(expected));
        for (size_t i = 0; i < ELEMENTSOF(expected); i++) {
                char *s = NULL;
                assert_int_equal(diagnostic_format(diag->items[i], &s), 0);
                assert_string_equal(s, expected[i]);
                free(s);
        }
        assert_ptr_equal(diagnostics_find(diag, "whole"), diag->items[2]);
        assert_null(diagnostics_find(diag, "absent"));
        /* Past max_items only the counters grow. */
        diag->max_items = 5;
        for (int i = 0; i < 10; i++)
                assert_int_equal(diagnostics_add(diag, DIAGNOSTIC_ERROR, "f", 1, 1, "e%d", i), 0);
        assert_int_equal(diag->n_items, 5);
        assert_int_equal(diag->n_errors, 11);
        assert_int_equal(diag->n_warnings, 3);
        diagnostics_free(diag);
}

static bool keep_file_g(Diagnostic *d, void *userdata) {
        int *asked = userdata;

        (*asked)++;
        return d->severity == DIAGNOSTIC_ERROR || (d->file && strcmp(d->file, "g.xml") == 0);
}

static bool rename_judged(Diagnostic *d, void *userdata) {
        if (!d->judged)
                return false;
        free(d->file);
        d->file = strdup("shipped.aegis");
        return d->file != NULL;
}

/* A filter is asked as items are added: what it refuses is not counted and never crowds out the rest. */
static void test_diagnostics_keep_and_judged(void **state) {
        Diagnostics *diag = NULL;
        int asked = 0;

        assert_int_equal(diagnostics_new(&diag), 0);
        diag->max_items = 3;
        diagnostics_set_keep(diag, keep_file_g, &asked);
        for (int i = 0; i < 100; i++)
                assert_int_equal(diagnostics_add(diag, DIAGNOSTIC_WARNING, "other.xml", 1, 1, "w%d", i), 0);
        assert_int_equal(diagnostics_add(diag, DIAGNOSTIC_WARNING, "g.xml", 2, 3, "mine"), 0);
        assert_int_equal(diagnostics_add(diag, DIAGNOSTIC_ERROR, "other.xml", 4, 5, "fatal"), 0);
        assert_int_equal(asked, 102);
        assert_int_equal(diag->n_items, 2);
        assert_int_equal(diag->n_warnings, 1);
        assert_int_equal(diag->n_errors, 1);
        assert_string_equal(diag->items[0]->message, "mine");
        assert_false(diag->items[0]->judged);

        /* Judging marks what is added until it stops; the previous state comes back. */
        diagnostics_set_keep(diag, NULL, NULL);
        assert_false(diagnostics_judging(diag, true));
        assert_int_equal(diagnostics_add(diag, DIAGNOSTIC_WARNING, "g.xml", 6, 7, "judged"), 0);
        assert_true(diagnostics_judging(diag, false));
        assert_true(diag->items[2]->judged);

        /* A filter may rename the file it keeps. */
        diagnostics_filter(diag, rename_judged, NULL);
        assert_int_equal(diag->n_items, 1);
        assert_int_equal(diag->n_warnings, 1);
        assert_int_equal(diag->n_errors, 0);
        assert_string_equal(diag->items[0]->file, "shipped.aegis");
        diagnostics_free(diag);
        assert_false(diagnostics_judging(NULL, true));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_diagnostics_keep_and_judged),
                cmocka_unit_test(test_lookups),
                cmocka_unit_test(test_policy_set_lookups),
                cmocka_unit_test(test_device_policy_model),
                cmocka_unit_test(test_strings),
                cmocka_unit_test(test_diagnostics),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
