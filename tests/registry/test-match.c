/*
 * Unit tests for match.c and match-rule.c: parsing (valid and invalid,
 * quoting), matching of every key, RemoveMatch equality, and the index
 * checked against a brute-force walk over every rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "match-internal.h"
#include "message.h"
#include "names.h"

static MatchRule *parse_ok(const char *text) {
        MatchRule *rule = NULL;
        int r = match_rule_parse(text, strlen(text), &rule);
        if (r != 0)
                fail_msg("rule \"%s\" refused: %d", text, r);
        return rule;
}

static void assert_invalid(const char *text) {
        MatchRule *rule = NULL;
        int r = match_rule_parse(text, strlen(text), &rule);
        if (r != MATCH_E_INVALID)
                fail_msg("rule \"%s\" gave %d, expected MATCH_E_INVALID", text, r);
        assert_null(rule);
}

static void test_parse_keys(void **state) {
        MatchRule *rule = parse_ok("type='method_call',sender=':1.5',interface='org.example.I',"
                                   "member='M',path='/a/b',destination='org.example.D',"
                                   "eavesdrop='true',arg1='x',arg2path='/p/',arg0namespace='org'");
        assert_int_equal(rule->type, MESSAGE_METHOD_CALL);
        assert_string_equal(rule->sender, ":1.5");
        assert_string_equal(rule->interface, "org.example.I");
        assert_string_equal(rule->member, "M");
        assert_string_equal(rule->path, "/a/b");
        assert_false(rule->path_is_namespace);
        assert_string_equal(rule->destination, "org.example.D");
        assert_true(rule->eavesdrop);
        assert_int_equal(rule->n_args, 3);
        assert_int_equal(rule->args[0].index, 0);
        assert_int_equal(rule->args[0].kind, MATCH_ARG_NAMESPACE);
        assert_string_equal(rule->args[0].value, "org");
        assert_int_equal(rule->args[1].index, 1);
        assert_int_equal(rule->args[1].kind, MATCH_ARG_STRING);
        assert_int_equal(rule->args[2].index, 2);
        assert_int_equal(rule->args[2].kind, MATCH_ARG_PATH);
        assert_string_equal(rule->args[2].value, "/p/");
        match_rule_free(rule);

        const char *types[] = { "method_call", "method_return", "error", "signal" };
        for (unsigned i = 0; i < 4; i++) {
                char text[64];
                snprintf(text, sizeof(text), "type='%s'", types[i]);
                rule = parse_ok(text);
                assert_int_equal(rule->type, i + 1);
                match_rule_free(rule);
        }

        /* Like libdbus, a one-element unique name (it can never match). */
        match_rule_free(parse_ok("sender=':1'"));
        match_rule_free(parse_ok("destination=':x-1'"));
        match_rule_free(parse_ok("sender=':'"));
        match_rule_free(parse_ok("sender=':.1'"));
        match_rule_free(parse_ok("arg0namespace=':'"));

        rule = parse_ok("path_namespace='/org/example'");
        assert_true(rule->path_is_namespace);
        assert_string_equal(rule->path, "/org/example");
        match_rule_free(rule);

        /* Args are stored sorted by index whatever the order given. */
        rule = parse_ok("arg63='z',arg5='y',arg10path='/x',arg00='w'");
        assert_int_equal(rule->n_args, 4);
        assert_int_equal(rule->args[0].index, 0);
        assert_int_equal(rule->args[1].index, 5);
        assert_int_equal(rule->args[2].index, 10);
        assert_int_equal(rule->args[3].index, 63);
        match_rule_free(rule);

        /* eavesdrop may repeat; the last one wins. */
        rule = parse_ok("eavesdrop='true',eavesdrop=false");
        assert_false(rule->eavesdrop);
        match_rule_free(rule);
}

static void test_parse_syntax(void **state) {
        MatchRule *rule;

        /* Empty rules and whitespace. */
        rule = parse_ok("");
        assert_int_equal(rule->type, 0);
        match_rule_free(rule);
        match_rule_free(parse_ok("   \t\n"));
        rule = parse_ok("  type ='signal',\t member\n='Foo',");
        assert_int_equal(rule->type, MESSAGE_SIGNAL);
        assert_string_equal(rule->member, "Foo");
        match_rule_free(rule);
        rule = parse_ok("type=signal");
        assert_int_equal(rule->type, MESSAGE_SIGNAL);
        match_rule_free(rule);

        /* Quoting and escapes as dbus-daemon's find_value(). */
        static const struct {
                const char *text;
                const char *value;
        } cases[] = {
                { "arg0='it'\\''s'", "it's" },
                { "arg0=\\'", "'" },
                { "arg0='a\\b'", "a\\b" },
                { "arg0=a\\b", "a\\b" },
                { "arg0=a\\", "a\\" },
                { "arg0='a,b'", "a,b" },
                { "arg0=''", "" },
                { "arg0=", "" },
                { "arg0='x'y'z'", "xyz" },
                { "arg0=' spaced '", " spaced " },
                { "arg0=a b", "a b" },
                { "arg0='a=b'", "a=b" },
                { "arg0=\\\\x", "\\\\x" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                rule = parse_ok(cases[i].text);
                assert_int_equal(rule->n_args, 1);
                if (strcmp(rule->args[0].value, cases[i].value) != 0)
                        fail_msg("%s gave \"%s\", expected \"%s\"", cases[i].text,
                                 rule->args[0].value, cases[i].value);
                assert_int_equal(rule->args[0].len, strlen(cases[i].value));
                match_rule_free(rule);
        }
}

static void test_parse_invalid(void **state) {
        static const char *const invalid[] = {
                "type='foo'", "type=''", "type='Signal'", "type='signal',type='signal'",
                "sender='bad name'", "sender=''", "sender='a.b',sender='a.b'",
                "sender=':1.'", "sender='a'", "destination=':1..2'",
                "interface='nodot'", "interface='a..b'", "member='a.b'", "member='1a'",
                "path='/a/'", "path='x'", "path=''", "path='/a',path_namespace='/b'",
                "path_namespace='/a',path='/a'", "destination='9bad.x'",
                "eavesdrop='yes'", "eavesdrop=''",
                "arg64='x'", "arg100='x'", "arg99999999999999999999='x'", "arg='x'",
                "argx='x'", "arg+1='x'", "arg-1='x'", "arg0foo='x'", "arg1namespace='a'",
                "arg00namespace='a'", "arg0namespace='a..b'", "arg0namespace=''",
                "arg0namespace='1a'", "arg0namespace='a.'", "arg0='a',arg0='b'",
                "arg0='a',arg0path='/b'", "arg3path='/a',arg3='a'",
                "unknown='x'", "Type='signal'", "type", "type 'signal'", "type='signal",
                "arg0='", ",", ",,", "=x", " = 'x'", "type='signal',,member='a'",
                "type='signal' member='a'",
                /* Whitespace is allowed around keys, not in values. */
                "type= 'signal'", "type='signal' ,member='a'",
                /* \\ is two bytes, so the apostrophe opens an unbalanced quote. */
                "arg0=\\\\'",
        };

        for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
                assert_invalid(invalid[i]);

        /* An embedded NUL is refused, whatever follows. */
        MatchRule *rule = NULL;
        assert_int_equal(match_rule_parse("type='signal'\0x", 15, &rule), MATCH_E_INVALID);
        assert_int_equal(match_rule_parse(NULL, 0, &rule), 0);
        rule = match_rule_free(rule);
}

static void test_parse_length(void **state) {
        char text[MATCH_RULE_MAX + 2];
        MatchRule *rule = NULL;

        /* arg0='xxxx...' of exactly MATCH_RULE_MAX bytes is fine; one more is not. */
        memset(text, 'x', sizeof(text));
        memcpy(text, "arg0='", 6);
        text[MATCH_RULE_MAX - 1] = '\'';
        assert_int_equal(match_rule_parse(text, MATCH_RULE_MAX, &rule), 0);
        assert_int_equal(rule->args[0].len, MATCH_RULE_MAX - 7);
        rule = match_rule_free(rule);
        text[MATCH_RULE_MAX] = '\'';
        text[MATCH_RULE_MAX - 1] = 'x';
        assert_int_equal(match_rule_parse(text, MATCH_RULE_MAX + 1, &rule), MATCH_E_TOO_LONG);
        assert_null(rule);
}

/* A message with the given args; sender_names/destination_names optional. */
typedef struct TestMessage {
        MatchMessage msg;
        MessageArg args[MATCH_ARGS_MAX];
} TestMessage;

static void tm_init(TestMessage *t, uint8_t type) {
        memset(t, 0, sizeof(*t));
        t->msg.type = type;
        t->msg.sender = ":1.1";
        t->msg.path = "/org/example/Obj";
        t->msg.interface = "org.example.Iface";
        t->msg.member = "Changed";
        t->msg.args = t->args;
}

static void tm_arg(TestMessage *t, size_t i, char type, const char *str) {
        t->args[i].type = type;
        t->args[i].str = str;
        if (t->msg.n_args <= i)
                t->msg.n_args = i + 1;
}

static bool matches(const char *text, const TestMessage *t) {
        MatchRule *rule = parse_ok(text);
        bool r = match_rule_matches(rule, &t->msg);
        match_rule_free(rule);
        return r;
}

static void test_match_header(void **state) {
        TestMessage t;

        tm_init(&t, MESSAGE_SIGNAL);
        assert_true(matches("", &t));
        assert_true(matches("type='signal'", &t));
        assert_false(matches("type='method_call'", &t));
        assert_true(matches("interface='org.example.Iface'", &t));
        assert_false(matches("interface='org.example.Other'", &t));
        assert_true(matches("member='Changed'", &t));
        assert_false(matches("member='Other'", &t));
        assert_true(matches("sender=':1.1'", &t));
        assert_false(matches("sender=':1.2'", &t));
        assert_true(matches("path='/org/example/Obj'", &t));
        assert_false(matches("path='/org/example'", &t));

        /* path_namespace: the path itself or below a '/' boundary. */
        assert_true(matches("path_namespace='/'", &t));
        assert_true(matches("path_namespace='/org'", &t));
        assert_true(matches("path_namespace='/org/example/Obj'", &t));
        assert_false(matches("path_namespace='/org/exam'", &t));
        assert_false(matches("path_namespace='/org/example/Obj/Child'", &t));

        /* Absent header fields never match a rule that names them. */
        t.msg.interface = NULL;
        t.msg.member = NULL;
        t.msg.path = NULL;
        assert_false(matches("interface='org.example.Iface'", &t));
        assert_false(matches("member='Changed'", &t));
        assert_false(matches("path='/'", &t));
        assert_false(matches("path_namespace='/'", &t));
        assert_true(matches("type='signal'", &t));
}

static void test_match_sender_names(void **state) {
        NameRegistry *names = NULL;
        NamePeerState owner, queued;
        NameChange change;
        uint32_t reply;
        TestMessage t;

        assert_int_equal(name_registry_new(&names), 0);
        name_peer_state_init(&owner, NULL, ":1.1");
        name_peer_state_init(&queued, NULL, ":1.2");
        assert_int_equal(names_request(names, &owner, "org.example.Svc", 0, 10, &change, &reply), 0);
        assert_int_equal(names_request(names, &queued, "org.example.Svc", 0, 10, &change, &reply), 0);

        tm_init(&t, MESSAGE_SIGNAL);
        t.msg.sender_names = &owner;
        assert_true(matches("sender='org.example.Svc'", &t));
        assert_true(matches("sender=':1.1'", &t));
        assert_false(matches("sender='org.example.Other'", &t));
        /* A queued peer does not own the name. */
        t.msg.sender = ":1.2";
        t.msg.sender_names = &queued;
        assert_false(matches("sender='org.example.Svc'", &t));
        /* The driver. */
        t.msg.sender = "org.freedesktop.DBus";
        t.msg.sender_names = NULL;
        assert_true(matches("sender='org.freedesktop.DBus'", &t));
        assert_false(matches("sender='org.example.Svc'", &t));

        /* Eavesdropping with destination='well.known': the addressed peer owns it. */
        tm_init(&t, MESSAGE_METHOD_CALL);
        t.msg.destination = "org.example.Svc";
        t.msg.destination_names = &owner;
        assert_true(matches("eavesdrop='true',destination='org.example.Svc'", &t));
        assert_true(matches("eavesdrop='true',destination=':1.1'", &t));
        assert_false(matches("eavesdrop='true',destination=':1.2'", &t));
        assert_false(matches("destination='org.example.Svc'", &t));

        while (names_release_next(names, &owner, &change) == 0)
                ;
        while (names_release_next(names, &queued, &change) == 0)
                ;
        name_registry_free(names);
}

static void test_match_eavesdrop(void **state) {
        TestMessage t;

        /* A broadcast: every rule may match, a destination rule may not. */
        tm_init(&t, MESSAGE_SIGNAL);
        assert_true(matches("type='signal'", &t));
        assert_true(matches("type='signal',eavesdrop='true'", &t));
        assert_false(matches("eavesdrop='true',destination=':1.9'", &t));

        /* A unicast: only eavesdroppers. */
        tm_init(&t, MESSAGE_METHOD_CALL);
        t.msg.destination = ":1.9";
        assert_false(matches("", &t));
        assert_false(matches("type='method_call'", &t));
        assert_false(matches("eavesdrop='false'", &t));
        assert_true(matches("eavesdrop='true'", &t));
        assert_true(matches("type='method_call',eavesdrop='true'", &t));
        /* Without the addressed peer's names, the header destination counts. */
        assert_true(matches("eavesdrop='true',destination=':1.9'", &t));
        assert_false(matches("eavesdrop='true',destination=':1.8'", &t));
        assert_false(matches("destination=':1.9'", &t));

        /* A monitor's rule is made eavesdropping: it then sees the unicast. */
        MatchRule *rule = parse_ok("type='method_call'");
        assert_false(match_rule_matches(rule, &t.msg));
        match_rule_set_eavesdrop(rule, true);
        assert_true(match_rule_matches(rule, &t.msg));
        match_rule_free(rule);
}

static void test_match_args(void **state) {
        TestMessage t;

        tm_init(&t, MESSAGE_SIGNAL);
        tm_arg(&t, 0, 's', "org.example.Name");
        tm_arg(&t, 1, 'o', "/org/example/Obj");
        tm_arg(&t, 2, 'u', NULL);
        tm_arg(&t, 3, 's', "/aa/bb/");
        tm_arg(&t, 4, 'g', "a{sv}");
        tm_arg(&t, 5, 's', "");

        assert_true(matches("arg0='org.example.Name'", &t));
        assert_false(matches("arg0='org.example'", &t));
        assert_false(matches("arg0='org.example.Name.'", &t));
        /* argN is for strings only: not object paths, signatures or numbers. */
        assert_false(matches("arg1='/org/example/Obj'", &t));
        assert_false(matches("arg4='a{sv}'", &t));
        assert_false(matches("arg2=''", &t));
        assert_true(matches("arg5=''", &t));
        /* Beyond the last argument. */
        assert_false(matches("arg6=''", &t));
        assert_false(matches("arg63='x'", &t));
        /* Several args AND together. */
        assert_true(matches("arg0='org.example.Name',arg3='/aa/bb/'", &t));
        assert_false(matches("arg0='org.example.Name',arg3='/aa/bb'", &t));

        /* argNpath, both directions of prefix, strings and object paths. */
        assert_true(matches("arg1path='/org/example/Obj'", &t));
        assert_true(matches("arg1path='/org/'", &t));
        assert_true(matches("arg1path='/'", &t));
        assert_false(matches("arg1path='/org'", &t));
        assert_false(matches("arg1path='/org/example/Obj/'", &t));
        assert_false(matches("arg1path='/org/example/Ob'", &t));
        assert_true(matches("arg3path='/aa/bb/cc'", &t));
        assert_true(matches("arg3path='/aa/bb/'", &t));
        assert_true(matches("arg3path='/aa/'", &t));
        assert_false(matches("arg3path='/aa/b'", &t));
        assert_false(matches("arg3path='/aa/bbc'", &t));
        assert_false(matches("arg4path='a{sv}'", &t));
        assert_false(matches("arg2path='/'", &t));
        /* The empty string is no prefix ending in '/'. */
        assert_false(matches("arg5path='/'", &t));
        assert_true(matches("arg5path=''", &t));
        assert_false(matches("arg0path=''", &t));

        /* arg0namespace: the name itself or a '.'-child. */
        assert_true(matches("arg0namespace='org.example.Name'", &t));
        assert_true(matches("arg0namespace='org.example'", &t));
        assert_true(matches("arg0namespace='org'", &t));
        assert_false(matches("arg0namespace='org.exam'", &t));
        assert_false(matches("arg0namespace='org.example.Name.Sub'", &t));
        tm_arg(&t, 0, 'o', "/org");
        assert_false(matches("arg0namespace='org'", &t));
}

static void assert_equal_rules(const char *a, const char *b, bool expected) {
        MatchRule *x = parse_ok(a), *y = parse_ok(b);
        if (match_rule_equal(x, y) != expected)
                fail_msg("\"%s\" vs \"%s\": expected %s", a, b, expected ? "equal" : "different");
        match_rule_free(x);
        match_rule_free(y);
}

static void test_equal(void **state) {
        assert_equal_rules("type='signal',member='A'", "member='A',type='signal'", true);
        assert_equal_rules("type='signal'", "type=signal", true);
        assert_equal_rules("arg0='it'\\''s'", "arg0=it\\'s", true);
        assert_equal_rules("", "eavesdrop='false'", true);
        assert_equal_rules("arg1='x',arg0='y'", "arg0='y',arg1='x'", true);
        assert_equal_rules("type='signal'", "type='signal',eavesdrop='true'", false);
        assert_equal_rules("type='signal'", "type='error'", false);
        assert_equal_rules("path='/a'", "path_namespace='/a'", false);
        assert_equal_rules("arg0='/a'", "arg0path='/a'", false);
        assert_equal_rules("arg0='a'", "arg1='a'", false);
        assert_equal_rules("arg0='a'", "arg0='ab'", false);
        assert_equal_rules("arg0='a'", "arg0='a',arg1='b'", false);
        assert_equal_rules("sender=':1.1'", "", false);
        assert_equal_rules("interface='a.b'", "interface='a.c'", false);
        assert_equal_rules("destination='a.b'", "destination='a.c'", false);
}

/* --- the registry ------------------------------------------------------- */

#define N_OWNERS 64

typedef struct Seen {
        unsigned count[N_OWNERS];
        bool eavesdrop[N_OWNERS];
        MatchOwner *base;
        int stop_after;
        unsigned calls;
} Seen;

static int record(void *userdata, MatchOwner *owner, bool eavesdrop) {
        Seen *seen = userdata;
        size_t i = (size_t)(owner - seen->base);
        assert_true(i < N_OWNERS);
        seen->count[i]++;
        seen->eavesdrop[i] = eavesdrop;
        seen->calls++;
        if (seen->stop_after && (int)seen->calls >= seen->stop_after)
                return 42;
        return 0;
}

typedef struct RegFixture {
        MatchRegistry *registry;
        MatchOwner owners[N_OWNERS];
} RegFixture;

static int reg_setup(void **state) {
        RegFixture *f = calloc(1, sizeof(*f));
        assert_non_null(f);
        assert_int_equal(match_registry_new(&f->registry), 0);
        for (size_t i = 0; i < N_OWNERS; i++)
                match_owner_init(&f->owners[i], f->registry, (struct Peer *)&f->owners[i]);
        *state = f;
        return 0;
}

static int reg_teardown(void **state) {
        RegFixture *f = *state;
        for (size_t i = 0; i < N_OWNERS; i++)
                match_owner_deinit(&f->owners[i]);
        assert_int_equal(match_registry_n_rules(f->registry), 0);
        f->registry = match_registry_free(f->registry);
        free(f);
        return 0;
}

static int add(MatchOwner *owner, const char *text, size_t max) {
        return match_owner_add(owner, text, strlen(text), max);
}

static int del(MatchOwner *owner, const char *text) {
        return match_owner_remove(owner, text, strlen(text));
}

static void dispatch(RegFixture *f, const MatchMessage *msg, Seen *seen) {
        memset(seen->count, 0, sizeof(seen->count));
        seen->base = f->owners;
        seen->calls = 0;
        assert_int_equal(match_registry_dispatch(f->registry, msg, record, seen), 0);
}

static void test_add_remove(void **state) {
        RegFixture *f = *state;
        MatchOwner *a = &f->owners[0];
        TestMessage t;
        Seen seen = { 0 };

        tm_init(&t, MESSAGE_SIGNAL);
        assert_int_equal(add(a, "member='Changed'", 10), 0);
        assert_int_equal(add(a, "member =Changed", 10), 0);
        assert_int_equal(add(a, "bogus='x'", 10), MATCH_E_INVALID);
        assert_int_equal(a->n_rules, 2);
        dispatch(f, &t.msg, &seen);
        assert_int_equal(seen.count[0], 1);

        /* Removing one of two identical rules leaves the other working. */
        assert_int_equal(del(a, "member='Changed'"), 0);
        assert_int_equal(a->n_rules, 1);
        dispatch(f, &t.msg, &seen);
        assert_int_equal(seen.count[0], 1);
        assert_int_equal(del(a, "member='Changed'"), 0);
        dispatch(f, &t.msg, &seen);
        assert_int_equal(seen.count[0], 0);
        assert_int_equal(del(a, "member='Changed'"), MATCH_E_NOT_FOUND);
        assert_int_equal(del(a, "member="), MATCH_E_INVALID);
        /* Another owner's equal rule is not ours to remove. */
        assert_int_equal(add(&f->owners[1], "type='signal'", 10), 0);
        assert_int_equal(del(a, "type='signal'"), MATCH_E_NOT_FOUND);
        assert_int_equal(match_registry_n_rules(f->registry), 1);

        /* Quota. */
        assert_int_equal(add(a, "type='signal'", 2), 0);
        assert_int_equal(add(a, "type='error'", 2), 0);
        assert_int_equal(add(a, "type='method_call'", 2), MATCH_E_QUOTA);
        assert_int_equal(del(a, "type='error'"), 0);
        assert_int_equal(add(a, "type='method_call'", 2), 0);
}

/* A tally counts several owners' rules, through add, remove, a departed sender and deinit. */
static void test_tally(void **state) {
        RegFixture *f = *state;
        MatchOwner *a = &f->owners[0], *b = &f->owners[1];
        size_t tally = 0;

        assert_int_equal(add(a, "member='M'", 10), 0);
        match_owner_set_tally(a, &tally);
        match_owner_set_tally(b, &tally);
        assert_int_equal(tally, 1);
        assert_int_equal(add(b, "sender=':1.9',member='M'", 10), 0);
        assert_int_equal(add(b, "member='N'", 10), 0);
        assert_int_equal(add(b, "bogus='x'", 10), MATCH_E_INVALID);
        assert_int_equal(tally, 3);
        assert_int_equal(del(a, "member='M'"), 0);
        assert_int_equal(tally, 2);
        /* The registry drops rules for a sender that left by itself. */
        match_registry_forget_sender(f->registry, ":1.9");
        assert_int_equal(tally, 1);
        match_owner_deinit(b);
        assert_int_equal(tally, 0);
        match_owner_set_tally(a, NULL);
        assert_int_equal(add(a, "member='M'", 10), 0);
        assert_int_equal(tally, 0);
}

static void test_dispatch_once_and_skip(void **state) {
        RegFixture *f = *state;
        TestMessage t;
        Seen seen = { 0 };

        tm_init(&t, MESSAGE_SIGNAL);
        /* Three matching rules in three different buckets: one callback. */
        assert_int_equal(add(&f->owners[0], "member='Changed'", 10), 0);
        assert_int_equal(add(&f->owners[0], "interface='org.example.Iface'", 10), 0);
        assert_int_equal(add(&f->owners[0], "sender=':1.1'", 10), 0);
        assert_int_equal(add(&f->owners[1], "member='Other'", 10), 0);
        assert_int_equal(add(&f->owners[2], "type='signal'", 10), 0);
        dispatch(f, &t.msg, &seen);
        assert_int_equal(seen.count[0], 1);
        assert_int_equal(seen.count[1], 0);
        assert_int_equal(seen.count[2], 1);
        assert_false(seen.eavesdrop[0]);

        /* The addressed recipient is skipped; only eavesdroppers see unicasts. */
        assert_int_equal(add(&f->owners[3], "eavesdrop='true'", 10), 0);
        assert_int_equal(add(&f->owners[4], "eavesdrop='true',type='method_call'", 10), 0);
        t.msg.destination = ":1.9";
        t.msg.recipient = (struct Peer *)&f->owners[3];
        dispatch(f, &t.msg, &seen);
        assert_int_equal(seen.calls, 0);
        t.msg.recipient = NULL;
        dispatch(f, &t.msg, &seen);
        assert_int_equal(seen.calls, 1);
        assert_int_equal(seen.count[3], 1);
        assert_true(seen.eavesdrop[3]);

        /* A non-zero callback result stops the walk and is returned. */
        t.msg.destination = NULL;
        seen.stop_after = 1;
        seen.calls = 0;
        assert_int_equal(match_registry_dispatch(f->registry, &t.msg, record, &seen), 42);
        assert_int_equal(seen.calls, 1);
}

static void test_forget_sender(void **state) {
        RegFixture *f = *state;
        TestMessage t;
        Seen seen = { 0 };

        assert_int_equal(add(&f->owners[0], "sender=':1.1',member='A'", 10), 0);
        assert_int_equal(add(&f->owners[0], "sender=':1.1'", 10), 0);
        assert_int_equal(add(&f->owners[1], "sender=':1.1',interface='a.b'", 10), 0);
        assert_int_equal(add(&f->owners[1], "sender=':1.1',arg0='x'", 10), 0);
        assert_int_equal(add(&f->owners[1], "sender=':1.1',arg0='y',member='A'", 10), 0);
        assert_int_equal(add(&f->owners[2], "sender=':1.1',path_namespace='/p'", 10), 0);
        assert_int_equal(add(&f->owners[2], "sender=':1.1',path='/p',eavesdrop=true", 10), 0);
        assert_int_equal(add(&f->owners[1], "sender=':1.2'", 10), 0);
        assert_int_equal(add(&f->owners[2], "member='A'", 10), 0);
        /* destination=':1.1' goes too; destination='a well-known name' stays. */
        assert_int_equal(add(&f->owners[3], "eavesdrop='true',destination=':1.1'", 10), 0);
        assert_int_equal(add(&f->owners[3], "destination=':1.1',member='A'", 10), 0);
        assert_int_equal(add(&f->owners[3], "eavesdrop='true',destination='org.example.A'", 10), 0);
        assert_int_equal(add(&f->owners[4], "eavesdrop='true',destination=':1.2'", 10), 0);
        match_registry_forget_sender(f->registry, ":1.1");
        match_registry_forget_sender(f->registry, ":1.77");
        /*
         * Left: the sender=':1.2' set with its bucket, the wildcard (*, A)
         * bucket, the eavesdrop index's wildcard (*, *) bucket and the
         * destination=':1.2' list.
         */
        assert_int_equal(match_registry_n_index_nodes(f->registry), 5);
        assert_int_equal(f->owners[0].n_rules, 0);
        assert_int_equal(f->owners[1].n_rules, 1);
        assert_int_equal(f->owners[3].n_rules, 1);
        assert_int_equal(f->owners[4].n_rules, 1);
        assert_int_equal(match_registry_n_rules(f->registry), 4);
        assert_int_equal(del(&f->owners[3], "eavesdrop='true',destination=':1.1'"), MATCH_E_NOT_FOUND);
        tm_init(&t, MESSAGE_SIGNAL);
        t.msg.sender = ":1.2";
        dispatch(f, &t.msg, &seen);
        assert_int_equal(seen.count[1], 1);
        assert_int_equal(del(&f->owners[0], "sender=':1.1'"), MATCH_E_NOT_FOUND);
}

/* The index must find exactly what testing every rule finds. */
static void test_index_against_brute_force(void **state) {
        RegFixture *f = *state;
        static const char *const senders[] = { NULL, ":1.1", ":1.2", "org.example.Svc", "org.freedesktop.DBus" };
        static const char *const ifaces[] = { NULL, "org.example.A", "org.example.B" };
        static const char *const members[] = { NULL, "Foo", "Bar" };
        static const char *const extras[] = {
                "", ",type='signal'", ",type='method_call',eavesdrop='true'", ",path_namespace='/a'",
                ",arg0='x'", ",eavesdrop='true'", ",path='/a/b'", ",arg0='y'", ",arg0path='/a/'",
                ",path_namespace='/'", ",arg0='x',path='/c'", ",path_namespace='/a/b'",
                ",arg1='x',path='/a'", ",eavesdrop='true',arg0='x'", ",eavesdrop='true',path='/c'",
        };
        const size_t n_extras = sizeof(extras) / sizeof(extras[0]);
        NameRegistry *names = NULL;
        NamePeerState svc;
        NameChange change;
        uint32_t reply;
        unsigned seed = 7;
        static char texts[N_OWNERS][6][256];

        assert_int_equal(name_registry_new(&names), 0);
        name_peer_state_init(&svc, NULL, ":1.2");
        assert_int_equal(names_request(names, &svc, "org.example.Svc", 0, 10, &change, &reply), 0);

        for (size_t o = 0; o < N_OWNERS; o++) {
                for (int k = 0; k < 6; k++) {
                        char text[256] = "";
                        seed = seed * 1103515245u + 12345u;
                        unsigned x = seed >> 8;
                        const char *s = senders[x % 5], *i = ifaces[(x / 5) % 3];
                        const char *m = members[(x / 15) % 3], *e = extras[(x / 45) % n_extras];
                        size_t len = 0;

                        if (s)
                                len += (size_t)snprintf(text + len, sizeof(text) - len, "sender='%s',", s);
                        if (i)
                                len += (size_t)snprintf(text + len, sizeof(text) - len, "interface='%s',", i);
                        if (m)
                                len += (size_t)snprintf(text + len, sizeof(text) - len, "member='%s',", m);
                        snprintf(text + len, sizeof(text) - len, "%s", e[0] ? e + 1 : "");
                        memcpy(texts[o][k], text, sizeof(text));
                        int r = add(&f->owners[o], text, 100);
                        if (r != 0)
                                fail_msg("rule \"%s\": %d", text, r);
                }
        }

        size_t total = 0;
        for (int round = 0; round < 20000; round++) {
                TestMessage t;
                Seen seen = { 0 };
                seed = seed * 1103515245u + 12345u;
                unsigned x = seed >> 8;

                tm_init(&t, (x % 2) ? MESSAGE_SIGNAL : MESSAGE_METHOD_CALL);
                const char *sender_pick[] = { ":1.1", ":1.2", "org.freedesktop.DBus", ":1.3" };
                t.msg.sender = sender_pick[(x / 2) % 4];
                t.msg.sender_names = strcmp(t.msg.sender, ":1.2") == 0 ? &svc : NULL;
                t.msg.interface = ifaces[(x / 8) % 3];
                t.msg.member = members[(x / 24) % 3];
                const char *paths[] = { "/a/b", "/c", "/a", "/", "/a/b/c", "/ab" };
                t.msg.path = paths[(x / 72) % 6];
                t.msg.destination = (x / 432) % 3 == 0 ? ":1.5" : NULL;
                switch ((x / 1296) % 5) {
                case 0: tm_arg(&t, 0, 's', "x"); break;
                case 1: tm_arg(&t, 0, 's', "y"); break;
                case 2: tm_arg(&t, 0, 'o', "/a/b"); break;
                case 3: tm_arg(&t, 0, 's', "y"); tm_arg(&t, 1, 's', "x"); break;
                default: break;
                }

                dispatch(f, &t.msg, &seen);
                for (size_t o = 0; o < N_OWNERS; o++) {
                        bool expected = false;
                        for (IList *l = f->owners[o].rules.next; l != &f->owners[o].rules; l = l->next)
                                if (match_rule_matches(ILIST_ENTRY(l, MatchRule, owner_link), &t.msg))
                                        expected = true;
                        total += expected;
                        if (seen.count[o] != (expected ? 1u : 0u))
                                fail_msg("round %d owner %zu: called %u times, expected %d",
                                         round, o, seen.count[o], expected);
                }
        }

        /* The mix must produce plenty of matches, or the comparison proves little. */
        assert_true(total > 20000);

        /* Removing every rule again through RemoveMatch empties the index. */
        for (int k = 5; k >= 0; k--)
                for (size_t o = 0; o < N_OWNERS; o++)
                        assert_int_equal(del(&f->owners[o], texts[o][k]), 0);
        assert_int_equal(match_registry_n_rules(f->registry), 0);
        assert_int_equal(match_registry_n_index_nodes(f->registry), 0);

        while (names_release_next(names, &svc, &change) == 0)
                ;
        name_registry_free(names);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_keys),
                cmocka_unit_test(test_parse_syntax),
                cmocka_unit_test(test_parse_invalid),
                cmocka_unit_test(test_parse_length),
                cmocka_unit_test(test_match_header),
                cmocka_unit_test(test_match_sender_names),
                cmocka_unit_test(test_match_eavesdrop),
                cmocka_unit_test(test_match_args),
                cmocka_unit_test(test_equal),
                cmocka_unit_test_setup_teardown(test_add_remove, reg_setup, reg_teardown),
                cmocka_unit_test_setup_teardown(test_tally, reg_setup, reg_teardown),
                cmocka_unit_test_setup_teardown(test_dispatch_once_and_skip, reg_setup, reg_teardown),
                cmocka_unit_test_setup_teardown(test_forget_sender, reg_setup, reg_teardown),
                cmocka_unit_test_setup_teardown(test_index_against_brute_force, reg_setup, reg_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
