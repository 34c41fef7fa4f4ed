/*
 * The builder: input validation, merging of repeated declarations, the
 * derived interface-less unions, what each package serves, order
 * independence (byte-identical output), and a large policy whose every
 * rule must be found again.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "db-read.h"

typedef struct Decl {
        const char *name;
        PolicyKind kind;
        const char *path, *interface, *member, *token;
} Decl;

static const Decl decls[] = {
        { "org.example.A", POLICY_KIND_METHOD, "/a", "org.example.I1", "M", "T1" },
        { "org.example.A", POLICY_KIND_METHOD, "/a", "org.example.I2", "M", "T2" },
        { "org.example.A", POLICY_KIND_METHOD, "/a", "org.example.I2", "N", NULL },
        { "org.example.A", POLICY_KIND_METHOD, "/a", "org.example.I3", NULL, "T3" },
        { "org.example.A", POLICY_KIND_METHOD, "/a", "org.example.I1", "M", NULL },
        { "org.example.A", POLICY_KIND_SIGNAL, "/a", "org.example.I1", "S", "T1" },
        { "org.example.B", POLICY_KIND_METHOD, "/", "org.example.I1", "M", "pkg::x" },
        { "org.example.B", POLICY_KIND_PROPERTY_READ, "/", "org.example.I1", "P", "T1" },
        { "org.example.B", POLICY_KIND_PROPERTY_WRITE, "/", "org.example.I1", "P", "T2" },
};

static void build(bool reverse, uint8_t **ret, size_t *ret_size) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        const char *globals[] = { "G1", "G2", "G1" };
        uint32_t handle;

        assert_int_equal(policy_builder_new(&b), 0);
        for (size_t k = 0; k < ELEMENTSOF(decls); k++) {
                const Decl *d = &decls[reverse ? ELEMENTSOF(decls) - 1 - k : k];

                assert_int_equal(policy_builder_add_name(b, d->name, &handle), 0);
                assert_int_equal(policy_builder_set_declarer(b, handle, d->name[12] == 'A' ? "pa" : "pb"),
                                 0);
                assert_int_equal(policy_builder_add_owner(b, handle, reverse ? "z" : "y"), 0);
                assert_int_equal(policy_builder_add_owner(b, handle, reverse ? "y" : "z"), 0);
                assert_int_equal(policy_builder_add_rule(b, handle, d->kind, d->path, d->interface,
                                                         d->member, d->token), 0);
        }
        for (size_t k = 0; k < ELEMENTSOF(globals); k++)
                assert_int_equal(policy_builder_add_global_token(
                                         b, globals[reverse ? ELEMENTSOF(globals) - 1 - k : k]),
                                 0);
        assert_int_equal(policy_builder_add_provided_token(b, reverse ? "pc::own" : "pb::own"), 0);
        assert_int_equal(policy_builder_add_provided_token(b, reverse ? "pb::own" : "pc::own"), 0);
        assert_int_equal(policy_builder_build(b, ret, ret_size), 0);
}

static void test_order_independent(void **state) {
        _cleanup_free_ uint8_t *a = NULL, *b = NULL, *c = NULL;
        size_t na, nb, nc;

        build(false, &a, &na);
        build(true, &b, &nb);
        build(false, &c, &nc);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na);
        assert_int_equal(na, nc);
        assert_memory_equal(a, c, na);
}

static void expect(PolicyDb *db, const char *name, PolicyKind kind, const char *path,
                   const char *iface, const char *member, int result, const char *tokens) {
        PolicyRequirement req;
        char joined[256] = "";

        assert_int_equal(policy_db_lookup(db, name, kind, path, iface, member, &req), result);
        if (result != 0)
                return;
        for (size_t i = 0; i < req.n_tokens; i++) {
                if (i > 0)
                        strcat(joined, " ");
                strcat(joined, policy_requirement_token(&req, i));
        }
        assert_string_equal(joined, tokens);
}

static void test_merge_and_unions(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        size_t size;

        build(false, &data, &size);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        /* Declared open once and with T1 once: T1 is needed. */
        expect(db, "org.example.A", POLICY_KIND_METHOD, "/a", "org.example.I1", "M", 0, "T1");
        expect(db, "org.example.A", POLICY_KIND_METHOD, "/a", "org.example.I2", "N", 0, "");
        /* I3 has only a default. */
        expect(db, "org.example.A", POLICY_KIND_METHOD, "/a", "org.example.I3", "M", 0, "T3");
        expect(db, "org.example.A", POLICY_KIND_METHOD, "/a", "org.example.I1", "X",
               POLICY_DB_UNCOVERED, NULL);
        /* Without interface: M of I1 and I2, plus I3's default. */
        expect(db, "org.example.A", POLICY_KIND_METHOD, "/a", NULL, "M", 0, "T1 T2 T3");
        expect(db, "org.example.A", POLICY_KIND_METHOD, "/a", NULL, "N", 0, "T3");
        /* A member no interface declares: a call without interface is not covered. */
        expect(db, "org.example.A", POLICY_KIND_METHOD, "/a", NULL, "X", POLICY_DB_UNCOVERED, NULL);
        /* Kinds do not mix: the signal's union is its own. */
        expect(db, "org.example.A", POLICY_KIND_SIGNAL, "/a", NULL, "S", 0, "T1");
        expect(db, "org.example.A", POLICY_KIND_SIGNAL, "/a", NULL, "M", POLICY_DB_UNCOVERED,
               NULL);
        expect(db, "org.example.B", POLICY_KIND_PROPERTY_WRITE, "/", NULL, "P", 0, "T2");
        expect(db, "org.example.B", POLICY_KIND_PROPERTY_READ, "/", "org.example.I1", "P", 0,
               "T1");
        expect(db, "org.example.B", POLICY_KIND_METHOD, "/", "org.example.I1", "M", 0, "pkg::x");
        assert_true(policy_db_is_global_token(db, "G1"));
        assert_true(policy_db_is_global_token(db, "G2"));
}

/*
 * Each package serves what it provides and every token its names' rules
 * (any kind, defaults too) and own tokens need, nothing of another's;
 * a provided token's package is the part before "::".
 */
static void test_package_tokens(void **state) {
        static const char *const pa[] = { "T1", "T2", "T3", NULL };
        static const char *const pb[] = { "T1", "T2", "pb::own", "pkg::x", NULL };
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        const char *package;
        size_t size;

        build(false, &data, &size);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        assert_true(policy_db_knows_declarers(db));
        assert_int_equal(policy_db_name_declarer(db, "org.example.A", &package), 0);
        assert_string_equal(package, "pa");
        assert_int_equal(policy_db_name_declarer(db, "org.example.B", &package), 0);
        assert_string_equal(package, "pb");
        for (size_t i = 0; pa[i]; i++)
                assert_true(policy_db_package_serves_token(db, "pa", pa[i]));
        for (size_t i = 0; pb[i]; i++)
                assert_true(policy_db_package_serves_token(db, "pb", pb[i]));
        /* pa's method rules only: not its neighbour's token, not a global it does not use. */
        assert_false(policy_db_package_serves_token(db, "pa", "pkg::x"));
        assert_false(policy_db_package_serves_token(db, "pa", "G1"));
        assert_false(policy_db_package_serves_token(db, "pb", "T3"));
        /* pc declares no name and provides one token. */
        assert_true(policy_db_package_serves_token(db, "pc", "pc::own"));
        assert_false(policy_db_package_serves_token(db, "pc", "T1"));
        assert_false(policy_db_package_serves_token(db, "pkg", "pkg::x"));
        assert_false(policy_db_package_serves_token(db, "y", "T1"));
}

static void test_invalid_input(void **state) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        char long_label[300];
        uint32_t h;

        memset(long_label, 'a', sizeof(long_label) - 1);
        long_label[sizeof(long_label) - 1] = '\0';
        assert_int_equal(policy_builder_new(&b), 0);
        assert_int_equal(policy_builder_add_name(b, ":1.42", &h), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_name(b, "noDots", &h), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_name(b, "org..x", &h), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_name(b, NULL, &h), -EINVAL);
        assert_int_equal(policy_builder_add_name(b, "org.example.ok-dash", &h), 0);
        assert_int_equal(policy_builder_add_owner(b, h, "-starts-with-dash"),
                         POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_owner(b, h, "has/slash"), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_owner(b, h, "has space"), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_owner(b, h, long_label), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_owner(b, h + 1, "ok"), -EINVAL);
        assert_int_equal(policy_builder_add_rule(b, h, POLICY_KIND_METHOD, "/a/", "a.b", "c", NULL),
                         POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_rule(b, h, POLICY_KIND_METHOD, "/a", "a", "c", NULL),
                         POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_rule(b, h, POLICY_KIND_METHOD, "/a", "a.b", "c.d",
                                                 NULL), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_rule(b, h, POLICY_KIND_METHOD, "/a", "a.b", "c",
                                                 "bad\"label"), POLICY_BUILDER_E_INVALID);
        /* The interface-less rules are the builder's to derive. */
        assert_int_equal(policy_builder_add_rule(b, h, POLICY_KIND_METHOD, "/a", NULL, "c", NULL),
                         -EINVAL);
        assert_int_equal(policy_builder_add_rule(b, h, (PolicyKind) 4, "/a", "a.b", "c", NULL),
                         -EINVAL);
        assert_int_equal(policy_builder_set_own_token(b, h, "Tok"), 0);
        assert_int_equal(policy_builder_set_own_token(b, h, "Tok"), 0);
        assert_int_equal(policy_builder_set_own_token(b, h, "Other"), POLICY_BUILDER_E_CONFLICT);
        assert_int_equal(policy_builder_set_declarer(b, h, "pkg"), 0);
        assert_int_equal(policy_builder_set_declarer(b, h, "pkg"), 0);
        assert_int_equal(policy_builder_set_declarer(b, h, "other"), POLICY_BUILDER_E_CONFLICT);
        assert_int_equal(policy_builder_set_declarer(b, h, "a::b"), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_set_declarer(b, h, "_"), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_set_declarer(b, h + 1, "pkg"), -EINVAL);
        /* A provided token is "package::Token": nothing else names its package. */
        assert_int_equal(policy_builder_add_provided_token(b, "Bare"), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_provided_token(b, "::x"), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_provided_token(b, "p::"), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_provided_token(b, "p::x::y"), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_provided_token(b, "*::x"), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_provided_token(b, "p::x y"), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_provided_token(b, NULL), -EINVAL);
        assert_int_equal(policy_builder_add_global_token(b, ""), POLICY_BUILDER_E_INVALID);
        assert_int_equal(policy_builder_add_monitor_label(b, "a'b"), POLICY_BUILDER_E_INVALID);
        assert_null(policy_builder_free(NULL));
}

/* A refused declaration leaves nothing in the file: the same bytes as without it. */
static void test_refusal_leaves_nothing(void **state) {
        _cleanup_free_ uint8_t *clean = NULL, *refused = NULL;
        size_t n_clean, n_refused;

        for (int with_refusals = 0; with_refusals < 2; with_refusals++) {
                _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
                uint32_t h;

                assert_int_equal(policy_builder_new(&b), 0);
                assert_int_equal(policy_builder_add_name(b, "org.example.A", &h), 0);
                if (with_refusals) {
                        assert_int_equal(policy_builder_add_provided_token(b, "Stray"),
                                         POLICY_BUILDER_E_INVALID);
                        assert_int_equal(policy_builder_add_provided_token(b, "_::stray"),
                                         POLICY_BUILDER_E_INVALID);
                        assert_int_equal(policy_builder_set_declarer(b, h, "stray::x"),
                                         POLICY_BUILDER_E_INVALID);
                }
                assert_int_equal(policy_builder_set_declarer(b, h, "pa"), 0);
                assert_int_equal(policy_builder_add_provided_token(b, "pa::T"), 0);
                assert_int_equal(policy_builder_build(b, with_refusals ? &refused : &clean,
                                                      with_refusals ? &n_refused : &n_clean), 0);
        }
        assert_int_equal(n_clean, n_refused);
        assert_memory_equal(clean, refused, n_clean);
}

/* Many names and rules: every one is found through the hash indexes. */
static void test_large_policy(void **state) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        char name[64], member[32], token[32];
        PolicyRequirement req;
        size_t size;

        assert_int_equal(policy_builder_new(&b), 0);
        for (unsigned n = 0; n < 200; n++) {
                uint32_t h;

                snprintf(name, sizeof(name), "org.example.N%u", n);
                assert_int_equal(policy_builder_add_name(b, name, &h), 0);
                for (unsigned m = 0; m < 50; m++) {
                        snprintf(member, sizeof(member), "M%u", m);
                        snprintf(token, sizeof(token), "pkg%u::T%u", n, m);
                        assert_int_equal(policy_builder_add_rule(b, h, POLICY_KIND_METHOD, "/o",
                                                                 "org.example.I", member, token),
                                         0);
                }
        }
        assert_int_equal(policy_builder_build(b, &data, &size), 0);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        for (unsigned n = 0; n < 200; n++)
                for (unsigned m = 0; m < 50; m++) {
                        snprintf(name, sizeof(name), "org.example.N%u", n);
                        snprintf(member, sizeof(member), "M%u", m);
                        snprintf(token, sizeof(token), "pkg%u::T%u", n, m);
                        assert_int_equal(policy_db_lookup(db, name, POLICY_KIND_METHOD, "/o",
                                                          "org.example.I", member, &req), 0);
                        assert_int_equal(req.n_tokens, 1);
                        assert_string_equal(policy_requirement_token(&req, 0), token);
                        assert_int_equal(policy_db_lookup(db, name, POLICY_KIND_METHOD, "/o",
                                                          NULL, member, &req), 0);
                        assert_string_equal(policy_requirement_token(&req, 0), token);
                }
        assert_int_equal(policy_db_lookup(db, "org.example.N0", POLICY_KIND_METHOD, "/o",
                                          "org.example.I", "M50", &req), POLICY_DB_UNCOVERED);
        assert_false(policy_db_declares_name(db, "org.example.N200"));
}

/*
 * Random policies against a direct reading of the lookup rules: for every
 * query the file must give what the declarations say, with the unions
 * computed naively here.
 */
static const char *const r_names[] = { "org.r.A", "org.r.B" };
static const char *const r_paths[] = { "/a", "/b" };
static const char *const r_ifaces[] = { "org.r.I1", "org.r.I2", "org.r.I3" };
static const char *const r_members[] = { "M1", "M2", "M3" };
static const char *const r_tokens[] = { "T1", "T2", "T3", "T4" };

typedef struct RandomDecl {
        unsigned name, kind, path, iface;
        int member;                     /* -1: interface default */
        int token;                      /* -1: open */
} RandomDecl;

/* The reference: covered? and the token bitmask. */
static bool reference(const RandomDecl *d, size_t n, unsigned name, unsigned kind,
                      unsigned path, int iface, int member, unsigned *ret_tokens) {
        bool member_rule = false, default_rule = false;
        unsigned member_tokens = 0, default_tokens = 0;

        for (size_t i = 0; i < n; i++) {
                unsigned bit = d[i].token < 0 ? 0 : 1u << d[i].token;

                if (d[i].name != name || d[i].kind != kind || d[i].path != path)
                        continue;
                if (iface >= 0 && (int) d[i].iface != iface)
                        continue;
                if (d[i].member < 0) {
                        default_rule = true;
                        default_tokens |= bit;
                } else if (d[i].member == member) {
                        member_rule = true;
                        member_tokens |= bit;
                }
        }
        if (member_rule) {
                /* With an interface the member's own rule wins; without, all add up. */
                *ret_tokens = iface >= 0 ? member_tokens : member_tokens | default_tokens;
                return true;
        }
        *ret_tokens = default_tokens;
        /* Defaults alone never cover a method call without interface. */
        if (iface < 0 && kind == POLICY_KIND_METHOD)
                return false;
        return default_rule;
}

static unsigned token_mask(const PolicyRequirement *req) {
        unsigned mask = 0;

        for (size_t i = 0; i < req->n_tokens; i++) {
                const char *t = policy_requirement_token(req, i);

                assert_true(t[0] == 'T' && t[1] >= '1' && t[1] <= '4' && t[2] == '\0');
                mask |= 1u << (t[1] - '1');
        }
        return mask;
}

static void check_random_policy(unsigned seed) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        RandomDecl decls_r[40];
        size_t size, n = 10 + seed % 30;

        srand(seed);
        assert_int_equal(policy_builder_new(&b), 0);
        for (size_t i = 0; i < n; i++) {
                RandomDecl *d = &decls_r[i];
                uint32_t h;

                *d = (RandomDecl) {
                        .name = (unsigned) rand() % 2, .kind = (unsigned) rand() % 4,
                        .path = (unsigned) rand() % 2, .iface = (unsigned) rand() % 3,
                        .member = rand() % 4 - 1, .token = rand() % 5 - 1,
                };
                assert_int_equal(policy_builder_add_name(b, r_names[d->name], &h), 0);
                assert_int_equal(policy_builder_add_rule(b, h, (PolicyKind) d->kind,
                                                         r_paths[d->path], r_ifaces[d->iface],
                                                         d->member < 0 ? NULL
                                                                       : r_members[d->member],
                                                         d->token < 0 ? NULL
                                                                      : r_tokens[d->token]),
                                 0);
        }
        assert_int_equal(policy_builder_build(b, &data, &size), 0);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        for (unsigned name = 0; name < 2; name++)
                for (unsigned kind = 0; kind < 4; kind++)
                        for (unsigned path = 0; path < 2; path++)
                                for (int iface = -1; iface < 3; iface++)
                                        for (int member = 0; member < 4; member++) {
                                                PolicyRequirement req;
                                                unsigned expected = 0;
                                                bool covered = reference(decls_r, n, name, kind,
                                                                         path, iface, member,
                                                                         &expected);
                                                int r = policy_db_lookup(
                                                        db, r_names[name], (PolicyKind) kind,
                                                        r_paths[path],
                                                        iface < 0 ? NULL : r_ifaces[iface],
                                                        member < 3 ? r_members[member] : "M9",
                                                        &req);

                                                if (r == POLICY_DB_UNDECLARED)
                                                        continue;
                                                if ((r == 0) != covered ||
                                                    (covered && token_mask(&req) != expected))
                                                        fail_msg("seed %u: name %u kind %u path "
                                                                 "%u iface %d member %d: got %d "
                                                                 "%#x, expected %d %#x",
                                                                 seed, name, kind, path, iface,
                                                                 member, r,
                                                                 r == 0 ? token_mask(&req) : 0,
                                                                 covered, expected);
                                        }
}

static void test_random_against_reference(void **state) {
        for (unsigned seed = 1; seed <= 300; seed++)
                check_random_policy(seed);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_order_independent),
                cmocka_unit_test(test_merge_and_unions),
                cmocka_unit_test(test_package_tokens),
                cmocka_unit_test(test_refusal_leaves_nothing),
                cmocka_unit_test(test_invalid_input),
                cmocka_unit_test(test_large_policy),
                cmocka_unit_test(test_random_against_reference),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
