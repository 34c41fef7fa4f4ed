/*
 * Mediation is a pure function of (sender, receiver, message, policy,
 * kernel answers), so it is tested here exhaustively over a small
 * universe: every path, interface (exact, other case, Peer, Properties,
 * none), member and Properties body below, as a call, a unicast signal
 * and a broadcast signal, between every pair of peers of the fixture. Each
 * verdict is compared with a reference model written from the documented
 * rules (docs/manifest.md, the threat model in mediation.c) on top of the
 * policy's raw lookups, and checked for consistency (texts, error names,
 * the record of what a call needed). Then the record itself, and the
 * observers' copies of replies: an observer gets a reply exactly when it
 * could have made the call (Smack aside).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "db-internal.h"
#include "db-read.h"
#include "fake-smackfs.h"
#include "macro.h"
#include "mediation-fixture.h"
#include "message.h"
#include "smack-label.h"
#include "smack-oracle.h"

static const char *const paths[] = {
        CELLULAR_PATH, "/", CELLULAR_PATH "/0", "/org/mssf/cellular", "/org/mssf/Location",
};
static const char *const interfaces[] = {
        CELLULAR_IFACE, "org.mssf.cellular", PROPERTIES, PEER, "org.freedesktop.DBus.Introspectable",
        "org.mssf.Location", "org.mssf.Other", NULL,
};
static const char *const members[] = {
        "Dial", "dial", "Hangup", "Status", "Big", "Introspect", "Ping", "GetMachineId", "Get", "Set",
        "GetAll", "GetPosition", "CallStarted", "Imei",
};

typedef struct Body {
        const char *signature, *arg0, *arg1, *arg2;
} Body;

/* Bodies for Properties' members: exact, short, long, other types, other cases. */
static const Body property_bodies[] = {
        { NULL }, { "s", CELLULAR_IFACE }, { "s", "" }, { "s", "org.mssf.cellular" },
        { "s", "org.freedesktop.DBus.Introspectable" }, { "ss", CELLULAR_IFACE, "Imei" },
        { "ss", CELLULAR_IFACE, "imei" }, { "ss", "", "Imei" }, { "ss", CELLULAR_IFACE, "Powered" },
        { "ss", "org.mssf.cellular", "Imei" }, { "ss", CELLULAR_IFACE, "Status" },
        { "ssv", CELLULAR_IFACE, "Powered" }, { "ssv", CELLULAR_IFACE, "Imei" }, { "su", CELLULAR_IFACE },
        { "sss", CELLULAR_IFACE, "Imei", "x" }, { "u" },
};
static const Body plain_bodies[] = { { NULL }, { "ss", CELLULAR_IFACE, "Imei" } };

static const int senders[] = { APP, DIALER, PHONE, ISOLATED, CELLULAR, LOCATION, NOLABEL, DRIVER };
static const int receivers[] = { CELLULAR, CELLULAR_QUEUED, PLAIN, LOCATION, MULTI, APP, DRIVER };
static const int observers[] = { APP, DIALER, PHONE, ISOLATED, NOLABEL };

typedef enum Kind { KIND_CALL, KIND_UNICAST, KIND_BROADCAST, _KIND_MAX } Kind;

static bool streq(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

/* ---- the reference model ---- */

typedef struct Judgement {
        bool declared, covered, missing, error;
} Judgement;

static bool holds(SmackOracle *oracle, const SmackLabel *label, const char *token) {
        return label && smack_has_token(oracle, label, token) > 0;
}

/* Every declared name's covering rule (the raw lookup), its tokens held or not. */
static Judgement judge(SmackOracle *oracle, const MediationPeer *holder, PolicyKind kind, const char *path,
                       const char *interface, const char *member, const SmackLabel *label) {
        Judgement j = { 0 };

        for (size_t i = 0; i < holder->n_names; i++) {
                PolicyRequirement req;
                int r = policy_db_lookup(fixture_db, holder->names[i], kind, path, interface, member, &req);

                if (r == POLICY_DB_UNDECLARED)
                        continue;
                j.declared = true;
                if (r != 0)
                        continue;
                j.covered = true;
                for (size_t t = 0; t < req.n_tokens; t++)
                        if (!holds(oracle, label, policy_requirement_token(&req, t)))
                                j.missing = true;
        }
        return j;
}

/*
 * What a service dispatching by member alone would run: the rules the
 * manifest states for that member by name under another interface than
 * Peer or Properties (never an interface's default), every token held.
 */
static Judgement judge_alone(SmackOracle *oracle, const MediationPeer *holder, const char *path,
                             const char *member, const SmackLabel *label) {
        Judgement j = { 0 };

        for (size_t i = 0; i < holder->n_names; i++) {
                uint32_t index = db_find_name(fixture_db, holder->names[i]);
                const DbName *name;

                if (index == POLICY_DB_NONE)
                        continue;
                name = &fixture_db->names[index];
                for (uint32_t k = 0; k < db_le(name->rules_count); k++) {
                        const DbRule *rule = fixture_db->rules + db_le(name->rules_first) + k;
                        const char *interface = db_string(fixture_db, rule->interface);
                        const char *named = db_string(fixture_db, rule->member);
                        PolicyRequirement req;

                        if (db_le(rule->kind) != POLICY_KIND_METHOD || !interface || !named ||
                            !streq(named, member) || !streq(db_string(fixture_db, rule->path), path) ||
                            streq(interface, PEER) || streq(interface, PROPERTIES))
                                continue;
                        db_requirement_from_rule(fixture_db, rule, &req);
                        for (size_t t = 0; t < req.n_tokens; t++)
                                if (!holds(oracle, label, policy_requirement_token(&req, t)))
                                        j.missing = true;
                }
        }
        return j;
}

static bool is_peer_member(const char *member) {
        return streq(member, "Ping") || streq(member, "GetMachineId");
}

static bool declares_interface(const MediationPeer *holder, const char *path, const char *interface) {
        for (size_t i = 0; i < holder->n_names; i++)
                if (policy_db_lookup_interface(fixture_db, holder->names[i], POLICY_KIND_PROPERTY_READ, path,
                                               interface) == 0)
                        return true;
        return false;
}

/* The Properties arguments, read only from exactly "ss", "ssv" or "s". */
static bool property_arguments(const MessageSpec *spec, const char **interface, const char **property) {
        const char *expected = streq(spec->member, "Get") ? "ss" : streq(spec->member, "Set") ? "ssv" : "s";

        if (!streq(spec->signature ? spec->signature : "", expected))
                return false;
        *interface = spec->arg0[0] ? spec->arg0 : NULL;
        *property = expected[1] ? spec->arg1 : NULL;
        return true;
}

static MediationReason model_properties(SmackOracle *oracle, const MediationPeer *holder,
                                        const MessageSpec *spec, const SmackLabel *label) {
        PolicyKind kind = streq(spec->member, "Set") ? POLICY_KIND_PROPERTY_WRITE : POLICY_KIND_PROPERTY_READ;
        Judgement own = judge(oracle, holder, POLICY_KIND_METHOD, spec->path, PROPERTIES, spec->member, label);
        Judgement alone = judge_alone(oracle, holder, spec->path, spec->member, label);
        const char *interface, *property;
        Judgement j;

        if (own.missing || alone.missing)
                return MEDIATION_REASON_TOKEN;
        if (!own.declared)
                return MEDIATION_REASON_NONE;
        if (!property_arguments(spec, &interface, &property))
                return MEDIATION_REASON_BAD_MESSAGE;
        if (!property)
                return declares_interface(holder, spec->path, interface) ? MEDIATION_REASON_NONE
                                                                         : MEDIATION_REASON_NOT_DECLARED;
        j = judge(oracle, holder, kind, spec->path, interface, property, label);
        if (j.missing)
                return MEDIATION_REASON_TOKEN;
        return j.covered ? MEDIATION_REASON_NONE : MEDIATION_REASON_NOT_DECLARED;
}

/* The token step for a call of spec into holder by label (docs/manifest.md). */
static MediationReason model_call_tokens(SmackOracle *oracle, const MediationPeer *holder,
                                         const MessageSpec *spec, const SmackLabel *label) {
        Judgement j;

        if (streq(spec->interface, PEER) && is_peer_member(spec->member)) {
                j = judge_alone(oracle, holder, spec->path, spec->member, label);
                return j.missing ? MEDIATION_REASON_TOKEN : MEDIATION_REASON_NONE;
        }
        if (streq(spec->interface, PROPERTIES) &&
            (streq(spec->member, "Get") || streq(spec->member, "Set") || streq(spec->member, "GetAll")))
                return model_properties(oracle, holder, spec, label);
        j = judge(oracle, holder, POLICY_KIND_METHOD, spec->path, spec->interface, spec->member, label);
        if (j.missing)
                return MEDIATION_REASON_TOKEN;
        if (j.declared && !j.covered && !(!spec->interface && is_peer_member(spec->member)))
                return MEDIATION_REASON_NOT_DECLARED;
        return MEDIATION_REASON_NONE;
}

static MediationReason model(SmackOracle *oracle, int sender, int receiver, Kind kind, const MessageSpec *spec) {
        const MediationPeer *from = fixture_peer(sender), *to = fixture_peer(receiver);
        Judgement j;
        int r;

        if (!from || !to)
                return MEDIATION_REASON_NONE;   /* the driver */
        if (!from->label || !to->label)
                return MEDIATION_REASON_NO_LABEL;
        r = smack_has_access(oracle, from->label, to->label, "w");
        assert_true(r >= 0);
        if (r == 0)
                return MEDIATION_REASON_SMACK;
        if (kind == KIND_CALL)
                return from == to ? MEDIATION_REASON_NONE : model_call_tokens(oracle, to, spec, from->label);
        if (from == to)
                return MEDIATION_REASON_NONE;
        j = judge(oracle, from, POLICY_KIND_SIGNAL, spec->path, spec->interface, spec->member, to->label);
        if (j.missing)
                return MEDIATION_REASON_TOKEN;
        if (kind == KIND_UNICAST)
                return model_call_tokens(oracle, to, spec, from->label);
        return MEDIATION_REASON_NONE;
}

/* ---- the sweep ---- */

typedef struct Sweep {
        Fixture *f;
        size_t n_checked, n_allowed, n_by_reason[_MEDIATION_REASON_MAX], n_observed;
} Sweep;

static bool is_fixture_token(const char *token) {
        for (size_t i = 0; i < fixture_n_rules; i++)
                for (size_t t = 0; fixture_rules[i].tokens[t]; t++)
                        if (strcmp(fixture_rules[i].tokens[t], token) == 0)
                                return true;
        return false;
}

static void check_consistent(const MediationVerdict *v, int r, bool call, const char *what) {
        if (r == 0) {
                if (v->reason != MEDIATION_REASON_NONE || v->error_name || v->text[0])
                        fail_msg("%s: allowed with reason %d, text \"%s\"", what, v->reason, v->text);
                if (!call && v->needs.known)
                        fail_msg("%s: a record of needs for a message that is not a call", what);
                return;
        }
        if (r != MEDIATION_E_DENIED || v->reason == MEDIATION_REASON_NONE || !v->text[0] ||
            !streq(v->error_name, MEDIATION_ERROR_ACCESS_DENIED) || !v->destination || v->needs.known)
                fail_msg("%s: inconsistent denial (r %d, reason %d, text \"%s\")", what, r, v->reason, v->text);
}

/* Observers of the reply to an allowed call: a copy exactly when each could have made the call. */
static void check_observers(Sweep *sweep, int sender, int receiver, const MessageSpec *spec,
                            const MediationNeeds *needs, const char *what) {
        SmackOracle *oracle = sweep->f->oracle;
        _cleanup_(message_unrefp) Message *reply = fixture_message(&(MessageSpec) {
                .type = MESSAGE_METHOD_RETURN, .destination = fixture_peers[sender].unique_name });

        for (size_t o = 0; o < ELEMENTSOF(observers); o++) {
                const MediationPeer *observer = fixture_peer(observers[o]);
                MediationReason could = model_call_tokens(oracle, fixture_peer(receiver), spec, observer->label);
                MediationVerdict v;
                int r = mediation_check_observer_reply(observer, reply, needs, oracle, &v);
                bool expected = needs->known && could == MEDIATION_REASON_NONE;

                if ((r == 0) != expected)
                        fail_msg("%s: observer %s got %s the reply (could make the call: %s; needs known: %d)",
                                 what, observer->unique_name, r == 0 ? "" : "no copy of",
                                 mediation_reason_to_string(could), needs->known);
                sweep->n_observed++;
        }
}

static void check_one(Sweep *sweep, int sender, int receiver, Kind kind, const MessageSpec *spec, Message *m) {
        SmackOracle *oracle = sweep->f->oracle;
        MediationReason expected = model(oracle, sender, receiver, kind, spec);
        MediationVerdict v;
        char what[512];
        int r;

        r = mediation_check_message(fixture_peer(sender), fixture_peer(receiver), m, false, fixture_db, oracle, &v);
        snprintf(what, sizeof(what), "%s %s -> %s: %s %s.%s (%s)", kind == KIND_CALL ? "call" :
                 kind == KIND_UNICAST ? "unicast signal" : "signal", sender == DRIVER ? "driver" :
                 fixture_peers[sender].unique_name, receiver == DRIVER ? "driver" :
                 fixture_peers[receiver].unique_name, spec->path, spec->interface ? spec->interface : "-",
                 spec->member, spec->signature ? spec->signature : "");
        if (v.reason != expected)
                fail_msg("%s: %s, the model says %s (%s)", what, mediation_reason_to_string(v.reason),
                         mediation_reason_to_string(expected), v.text);
        check_consistent(&v, r, kind == KIND_CALL, what);
        sweep->n_checked++;
        sweep->n_by_reason[v.reason]++;
        if (r != 0 || kind != KIND_CALL)
                return;
        sweep->n_allowed++;
        if (!v.needs.known)
                assert_true(sender == receiver || streq(spec->member, "Big"));
        for (unsigned i = 0; v.needs.known && i < v.needs.n_tokens; i++) {
                assert_true(is_fixture_token(v.needs.tokens[i]->text));
                assert_true(holds(oracle, fixture_peers[sender].label, v.needs.tokens[i]->text));
        }
        if (sender != receiver && sender != DRIVER && receiver != DRIVER)
                check_observers(sweep, sender, receiver, spec, &v.needs, what);
}

static void sweep_spec(Sweep *sweep, MessageSpec spec) {
        for (Kind kind = 0; kind < _KIND_MAX; kind++)
                for (size_t ri = 0; ri < ELEMENTSOF(receivers); ri++) {
                        _cleanup_(message_unrefp) Message *m = NULL;
                        int receiver = receivers[ri];

                        spec.type = kind == KIND_CALL ? MESSAGE_METHOD_CALL : MESSAGE_SIGNAL;
                        spec.destination = kind == KIND_BROADCAST ? NULL :
                                           receiver == DRIVER ? "org.freedesktop.DBus" :
                                           fixture_peers[receiver].unique_name;
                        if (kind == KIND_BROADCAST && receiver == DRIVER)
                                continue;
                        if (kind != KIND_CALL && !spec.interface)
                                continue;       /* a signal always has one */
                        m = fixture_message(&spec);
                        for (size_t si = 0; si < ELEMENTSOF(senders); si++)
                                check_one(sweep, senders[si], receiver, kind, &spec, m);
                }
}

static void test_sweep(void **state) {
        Sweep sweep = { .f = *state };

        for (size_t p = 0; p < ELEMENTSOF(paths); p++)
                for (size_t i = 0; i < ELEMENTSOF(interfaces); i++)
                        for (size_t mi = 0; mi < ELEMENTSOF(members); mi++) {
                                bool properties = streq(interfaces[i], PROPERTIES) &&
                                        (streq(members[mi], "Get") || streq(members[mi], "Set") ||
                                         streq(members[mi], "GetAll"));
                                const Body *bodies = properties ? property_bodies : plain_bodies;
                                size_t n = properties ? ELEMENTSOF(property_bodies) : ELEMENTSOF(plain_bodies);

                                for (size_t b = 0; b < n; b++)
                                        sweep_spec(&sweep, (MessageSpec) {
                                                .path = paths[p], .interface = interfaces[i],
                                                .member = members[mi], .signature = bodies[b].signature,
                                                .arg0 = bodies[b].arg0, .arg1 = bodies[b].arg1,
                                                .arg2 = bodies[b].arg2,
                                        });
                        }
        /* The universe reaches every outcome, many times. */
        for (int reason = 0; reason <= MEDIATION_REASON_NO_LABEL; reason++)
                if (reason != MEDIATION_REASON_OWN && sweep.n_by_reason[reason] < 10)
                        fail_msg("only %zu verdicts %s", sweep.n_by_reason[reason], mediation_reason_to_string(reason));
        assert_true(sweep.n_checked > 50000);
        assert_true(sweep.n_observed > 1000);
        print_message("%zu verdicts, %zu calls allowed, %zu observer copies judged\n", sweep.n_checked,
                      sweep.n_allowed, sweep.n_observed);
}

/* ---- the record of what a call needed ---- */

static MediationVerdict call_verdict(Fixture *f, int sender, int receiver, const MessageSpec *spec, int expect) {
        _cleanup_(message_unrefp) Message *m = fixture_message(spec);
        MediationVerdict v;

        assert_int_equal(mediation_check_message(fixture_peer(sender), fixture_peer(receiver), m, false,
                                                 fixture_db, f->oracle, &v), expect);
        return v;
}

static bool needs_has(const MediationNeeds *needs, const char *token) {
        for (unsigned i = 0; i < needs->n_tokens; i++)
                if (strcmp(needs->tokens[i]->text, token) == 0)
                        return true;
        return false;
}

#define CALL_SPEC(iface, member_, ...) \
        (&(MessageSpec) { .type = MESSAGE_METHOD_CALL, .destination = "org.mssf.Cellular", \
                          .path = CELLULAR_PATH, .interface = iface, .member = member_, __VA_ARGS__ })

static void test_needs(void **state) {
        Fixture *f = *state;
        MediationVerdict v;

        v = call_verdict(f, PHONE, CELLULAR, CALL_SPEC(CELLULAR_IFACE, "Dial"), 0);
        assert_true(v.needs.known);
        assert_int_equal(v.needs.n_tokens, 1);
        assert_true(needs_has(&v.needs, "Cellular"));
        v = call_verdict(f, PHONE, CELLULAR, CALL_SPEC(CELLULAR_IFACE, "Hangup"), 0);
        assert_int_equal(v.needs.n_tokens, 2);
        assert_true(needs_has(&v.needs, "Cellular") && needs_has(&v.needs, "Telephony"));
        /* Without interface: the union, each token once. */
        v = call_verdict(f, PHONE, CELLULAR, CALL_SPEC(NULL, "Hangup"), 0);
        assert_int_equal(v.needs.n_tokens, 2);
        /* Open, or not the manifests' business: known, nothing needed. */
        v = call_verdict(f, APP, CELLULAR, CALL_SPEC(CELLULAR_IFACE, "Status"), 0);
        assert_true(v.needs.known);
        assert_int_equal(v.needs.n_tokens, 0);
        v = call_verdict(f, APP, PLAIN, CALL_SPEC("com.example.Plain", "Anything"), 0);
        assert_true(v.needs.known);
        assert_int_equal(v.needs.n_tokens, 0);
        /* A property read needs the property's token. */
        v = call_verdict(f, DIALER, CELLULAR, CALL_SPEC(PROPERTIES, "Get", .signature = "ss",
                                                        .arg0 = CELLULAR_IFACE, .arg1 = "Imei"), 0);
        assert_true(v.needs.known);
        assert_int_equal(v.needs.n_tokens, 1);
        assert_true(needs_has(&v.needs, "Cellular"));
        /* Five tokens: more than a record keeps, so not known (observers get nothing). */
        v = call_verdict(f, PHONE, CELLULAR, CALL_SPEC(CELLULAR_IFACE, "Big"), 0);
        assert_false(v.needs.known);
        /* A connection calling itself: recorded with its own tokens, unknown when it lacks them. */
        v = call_verdict(f, CELLULAR, CELLULAR, CALL_SPEC(CELLULAR_IFACE, "Status"), 0);
        assert_true(v.needs.known);
        assert_int_equal(v.needs.n_tokens, 0);
        v = call_verdict(f, CELLULAR, CELLULAR, CALL_SPEC(CELLULAR_IFACE, "Dial"), 0);
        assert_false(v.needs.known);
        /* Denied calls, signals and replies carry no record. */
        v = call_verdict(f, APP, CELLULAR, CALL_SPEC(CELLULAR_IFACE, "Dial"), MEDIATION_E_DENIED);
        assert_false(v.needs.known);
        v = call_verdict(f, CELLULAR, DIALER, &(MessageSpec) { .type = MESSAGE_SIGNAL, .path = CELLULAR_PATH,
                                                              .interface = CELLULAR_IFACE,
                                                              .member = "CallStarted" }, 0);
        assert_false(v.needs.known);
        v = call_verdict(f, CELLULAR, DIALER, &(MessageSpec) { .type = MESSAGE_METHOD_RETURN }, 0);
        assert_false(v.needs.known);
        /* No policy, and calls to the driver: nothing needed. */
        {
                _cleanup_(message_unrefp) Message *m = fixture_message(CALL_SPEC(CELLULAR_IFACE, "Dial"));

                assert_int_equal(mediation_check_message(&fixture_peers[APP], &fixture_peers[CELLULAR], m, false,
                                                         NULL, f->oracle, &v), 0);
                assert_true(v.needs.known);
                assert_int_equal(v.needs.n_tokens, 0);
                assert_int_equal(mediation_check_message(&fixture_peers[APP], NULL, m, false, fixture_db,
                                                         f->oracle, &v), 0);
                assert_true(v.needs.known);
        }
}

/* ---- observers' copies of replies ---- */

static void test_observer_reply(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *reply = fixture_message(&(MessageSpec) {
                .type = MESSAGE_METHOD_RETURN, .destination = ":1.11" });
        _cleanup_(message_unrefp) Message *error = fixture_message(&(MessageSpec) {
                .type = MESSAGE_ERROR, .destination = ":1.11", .member = "org.example.Error.Failed" });
        _cleanup_(message_unrefp) Message *signal = fixture_message(&(MessageSpec) {
                .type = MESSAGE_SIGNAL, .path = CELLULAR_PATH, .interface = CELLULAR_IFACE, .member = "X" });
        MediationNeeds none = { .known = true }, unknown = { 0 }, cellular = { .known = true, .n_tokens = 1 };
        MediationVerdict v;

        assert_int_equal(smack_label_intern("Cellular", &cellular.tokens[0]), 0);
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[DIALER], reply, &cellular, f->oracle, &v), 0);
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[APP], reply, &cellular, f->oracle, &v),
                         MEDIATION_E_DENIED);
        assert_int_equal(v.reason, MEDIATION_REASON_TOKEN);
        assert_string_equal(v.token, "Cellular");
        assert_string_equal(v.text, "Withheld from an observer: label \"untrusted-app\" lacks token \"Cellular\", "
                                    "which the call this reply answers needed");
        /* An error answers the same call: the same rule. */
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[APP], error, &cellular, f->oracle, &v),
                         MEDIATION_E_DENIED);
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[NOLABEL], reply, &cellular, f->oracle, &v),
                         MEDIATION_E_DENIED);
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[NOLABEL], reply, &none, f->oracle, &v), 0);
        /* Nothing known: nothing shown. */
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[PHONE], reply, &unknown, f->oracle, &v),
                         MEDIATION_E_DENIED);
        assert_string_equal(v.text, "Withheld from an observer: what the call this reply answers needed is not "
                                    "known (label \"phone\")");
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[PHONE], reply, NULL, f->oracle, &v),
                         MEDIATION_E_DENIED);
        /* Not a reply: not this check's business. */
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[APP], signal, NULL, f->oracle, &v), 0);
        /* Without Smack no label holds a token. */
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[DIALER], reply, &cellular, f->no_smack, &v),
                         MEDIATION_E_DENIED);
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[DIALER], reply, &none, f->no_smack, &v), 0);
        /* The kernel cannot answer: denied. */
        smack_oracle_flush(f->oracle);
        f->fake->answer = FAKE_ANSWER_READ_ERROR;
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[DIALER], reply, &cellular, f->oracle, &v),
                         MEDIATION_E_DENIED);
        assert_int_equal(v.reason, MEDIATION_REASON_ERROR);
        f->fake->answer = FAKE_ANSWER_KERNEL;
        /* A revoked token takes effect for the next copy. */
        fake_smackfs_revoke(f->fake, "dialer", "Cellular");
        fake_smackfs_write_file(f->fake, "load2", "dialer Cellular -");
        assert_int_equal(smack_oracle_refresh(f->oracle), 1);
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[DIALER], reply, &cellular, f->oracle, &v),
                         MEDIATION_E_DENIED);
        assert_int_equal(mediation_check_observer_reply(NULL, reply, &none, f->oracle, &v), -EINVAL);
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[APP], NULL, &none, f->oracle, &v), -EINVAL);
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[APP], reply, &none, NULL, &v), -EINVAL);
        assert_int_equal(mediation_check_observer_reply(&fixture_peers[APP], reply, &none, f->oracle, NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_sweep, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_needs, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_observer_reply, fixture_setup, fixture_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
