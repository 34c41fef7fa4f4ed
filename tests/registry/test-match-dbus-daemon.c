/*
 * Differential test of the match-rule parser against the reference
 * dbus-daemon: every rule of the committed corpus, of a built-in list and
 * of 5,000 generated ones is sent to a private dbus-daemon as AddMatch,
 * and its verdict (accepted, MatchRuleInvalid, LimitsExceeded) compared
 * with match_rule_parse(); then RemoveMatch of every pair of spellings of
 * a pool is compared with match_rule_equal().
 *
 * We must never accept what dbus-daemon refuses. Where we refuse what it
 * accepts, the rule must hit one of the deviations match-rule.c documents
 * (an empty key, which makes dbus-daemon stop reading the rule; more than
 * 16 keys, past which it ignores the rest; a '+' in an argument number).
 * Skipped (exit 77) without /usr/bin/dbus-daemon.
 *     test-match-dbus-daemon CORPUS-DIR
 */
#include <dbus/dbus.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "match.h"
#include "reference-daemon.h"
#include "validate.h"

enum { VERDICT_ACCEPT, VERDICT_INVALID, VERDICT_TOO_LONG, VERDICT_NOT_FOUND, VERDICT_OTHER };

static const char *const verdict_names[] = { "accepted", "invalid", "too long", "not found", "other error" };

static const char *const builtin_rules[] = {
        "type='signal'", "type='method_call'", "type='bogus'", "sender=':1.5'", "sender=':1'",
        "sender=':a.b'", "sender='a.b'", "sender='a'", "sender='a.1b'", "sender='-a.b'",
        "sender='org.freedesktop.DBus'", "sender='a-b.c'", "sender='a..b'", "sender='.a.b'",
        "interface='a.b'", "interface='a'", "interface='a-b.c'", "interface='_a._b'",
        "member='a'", "member='a-b'", "member='1a'", "member='_1'", "path='/'", "path='//'",
        "path='/a/'", "path='/a-b'", "path='/a_b/C9'", "path_namespace='/'",
        "path_namespace='/a',path='/a'", "destination=':1.1'", "destination='a.b'",
        "eavesdrop='true'", "eavesdrop='TRUE'", "eavesdrop=true", "arg0=''", "arg63=''",
        "arg64=''", "arg0path=''", "arg0path='/a/'", "arg63path='x'", "arg0namespace='a'",
        "arg0namespace='a.b'", "arg0namespace=':1'", "arg0namespace=':1.2'",
        "arg0namespace='a.'", "arg0namespace='1a'", "arg0namespace='a-b'",
        "arg0namespace=''", "arg1namespace='a'", "arg00='x'", "arg01path='/'",
        "arg='x'", "argpath='/'", "arg0='a',arg0='b'", "arg0='a',arg0path='/'",
        "  type ='signal' ,member='x'", "type= 'signal'", "type='signal' ", "type='signal',",
        "type='signal',,member='x'", ",", "=", " = x", "type", "type='signal", "arg0='a\\'b'",
        "arg0=a\\'b", "arg0=\\\\'", "", "   ", "\t", "type='signal'\t,member='x'",
        "arg0='x',arg1='x',arg2='x',arg3='x',arg4='x',arg5='x',arg6='x',arg7='x',"
        "arg8='x',arg9='x',arg10='x',arg11='x',arg12='x',arg13='x',arg14='x',arg15='x'",
        "arg0='x',arg1='x',arg2='x',arg3='x',arg4='x',arg5='x',arg6='x',arg7='x',"
        "arg8='x',arg9='x',arg10='x',arg11='x',arg12='x',arg13='x',arg14='x',arg15='x',"
        "arg16='x'",
        "arg+1='x'", "arg-1='x'", "sender=':'", "destination=':'", "sender=':1.'", "sender=':.1'",
        "arg0namespace=':'", "arg0namespace=':.'", "sender=':1..2'", "sender='\xc3\xa9.a'", "member='\xc3\xa9'",
};

static int ours(const char *text, size_t n) {
        MatchRule *rule = NULL;
        int r = match_rule_parse(text, n, &rule);
        match_rule_free(rule);
        switch (r) {
        case 0: return VERDICT_ACCEPT;
        case MATCH_E_INVALID: return VERDICT_INVALID;
        case MATCH_E_TOO_LONG: return VERDICT_TOO_LONG;
        default: return VERDICT_OTHER;
        }
}

static int call_driver(DBusConnection *conn, const char *method, const char *text, int *ret_verdict) {
        DBusMessage *call = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                         "org.freedesktop.DBus", method);
        DBusError error;

        if (!call || !dbus_message_append_args(call, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID))
                return -ENOMEM;
        dbus_error_init(&error);
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(conn, call, 10000, &error);
        dbus_message_unref(call);
        if (reply) {
                dbus_message_unref(reply);
                *ret_verdict = VERDICT_ACCEPT;
                return 0;
        }
        if (dbus_error_has_name(&error, "org.freedesktop.DBus.Error.MatchRuleInvalid"))
                *ret_verdict = VERDICT_INVALID;
        else if (dbus_error_has_name(&error, "org.freedesktop.DBus.Error.LimitsExceeded"))
                *ret_verdict = VERDICT_TOO_LONG;
        else if (dbus_error_has_name(&error, "org.freedesktop.DBus.Error.MatchRuleNotFound"))
                *ret_verdict = VERDICT_NOT_FOUND;
        else {
                fprintf(stderr, "%s: %s: %s\n", method, error.name, error.message);
                *ret_verdict = VERDICT_OTHER;
        }
        dbus_error_free(&error);
        return 0;
}

/*
 * Whether dbus-daemon's tokenizer (bus/signals.c) meets one of the
 * documented deviations: an empty key before the end, more than 16 keys,
 * or "arg+" (strtoul's sign).
 */
static bool documented_deviation(const char *s) {
        size_t n = strlen(s), pos = 0;
        unsigned tokens = 0;

        if (strstr(s, "arg+"))
                return true;
        while (pos < n) {
                while (pos < n && strchr(" \t\n\r", s[pos]))
                        pos++;
                size_t key = pos;
                while (pos < n && s[pos] != '=' && !strchr(" \t\n\r", s[pos]))
                        pos++;
                bool empty = pos == key;
                while (pos < n && strchr(" \t\n\r", s[pos]))
                        pos++;
                if (empty)
                        return pos < n;
                if (pos >= n || s[pos] != '=')
                        return false;
                if (++tokens > 16)
                        return true;
                char quote = 0;
                for (pos++; pos < n; pos++) {
                        if (quote == '\'') {
                                if (s[pos] == '\'')
                                        quote = 0;
                        } else if (quote == '\\') {
                                quote = 0;
                        } else if (s[pos] == '\'' || s[pos] == '\\') {
                                quote = s[pos];
                        } else if (s[pos] == ',') {
                                pos++;
                                break;
                        }
                }
        }
        return false;
}

static unsigned n_accepted, n_excused;

static int compare(DBusConnection *conn, const char *text, size_t n, unsigned *checked) {
        int theirs, mine;

        /* A D-Bus string is UTF-8 without NUL; anything else cannot reach the driver. */
        if (!validate_utf8(text, n) || strlen(text) != n)
                return 0;
        if (call_driver(conn, "AddMatch", text, &theirs) < 0)
                return -1;
        if (theirs == VERDICT_ACCEPT && call_driver(conn, "RemoveMatch", text, &(int){ 0 }) < 0)
                return -1;
        mine = ours(text, n);
        (*checked)++;
        if (mine == theirs) {
                n_accepted += mine == VERDICT_ACCEPT;
                return 0;
        }
        if (mine != VERDICT_ACCEPT && theirs == VERDICT_ACCEPT && documented_deviation(text)) {
                n_excused++;
                return 0;
        }
        fprintf(stderr, "\"%s\": dbus-daemon %s, mssf-broker %s\n", text, verdict_names[theirs],
                verdict_names[mine]);
        return 1;
}

static int compare_dir(DBusConnection *conn, const char *dir, unsigned *checked) {
        DIR *d = opendir(dir);
        struct dirent *de;
        int failures = 0;

        if (!d) {
                perror(dir);
                return -1;
        }
        while ((de = readdir(d))) {
                char path[4096], buf[4096];
                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
                FILE *f = fopen(path, "rb");
                if (!f)
                        continue;
                size_t n = fread(buf, 1, sizeof(buf) - 1, f);
                fclose(f);
                buf[n] = '\0';
                int r = compare(conn, buf, n, checked);
                if (r < 0) {
                        closedir(d);
                        return r;
                }
                failures += r;
        }
        closedir(d);
        return failures;
}

/*
 * Random rules from fragments that sit near the edges of the grammar:
 * keys valid and not, values valid and not, quotes, escapes, separators.
 */
static int compare_generated(DBusConnection *conn, unsigned count, unsigned *checked) {
        static const char *const keys[] = {
                "type", "sender", "interface", "member", "path", "path_namespace", "destination",
                "eavesdrop", "arg0", "arg1", "arg63", "arg64", "arg0path", "arg3path", "arg0namespace",
                "arg1namespace", "arg", "args", "Type", " type", "type ", "",
        };
        static const char *const values[] = {
                "signal", "'signal'", "error", "method_call", "'method_return'", "true", "false",
                "'a.b'", "':1.2'", "':1'", "'a'", "'a..b'", "'/'", "'/a/b'", "'/a/'", "''", "'x'",
                "x\\'y", "'it'\\''s'", "'unbalanced", "\\", "'a,b'", "a b", "'1a.b'", "'_a.b-c'",
                "'org.example.Foo'", "'Foo'", "'Foo.Bar'", "'/org/example'", "'\xc3\xa9'", "'::'",
        };
        static const char *const seps[] = { ",", ",", ",", ", ", " ,", ",,", "", " " };
        unsigned seed = 12345;
        int failures = 0;

        for (unsigned i = 0; i < count; i++) {
                char text[512] = "";
                size_t len = 0;
                seed = seed * 1103515245u + 12345u;
                unsigned n_pairs = (seed >> 16) % 5;

                for (unsigned p = 0; p < n_pairs; p++) {
                        seed = seed * 1103515245u + 12345u;
                        unsigned x = seed >> 4;
                        const char *k = keys[x % ELEMENTSOF(keys)];
                        const char *v = values[(x / 32) % ELEMENTSOF(values)];
                        const char *sep = p + 1 < n_pairs ? seps[(x / 1024) % ELEMENTSOF(seps)] : "";
                        len += (size_t)snprintf(text + len, sizeof(text) - len, "%s=%s%s", k, v, sep);
                        if (len >= sizeof(text))
                                return -1;
                }
                int r = compare(conn, text, strlen(text), checked);
                if (r < 0)
                        return r;
                failures += r;
        }
        return failures;
}

/*
 * RemoveMatch equality: for each pair (added, removed) of a pool of
 * spellings, dbus-daemon's "removed or MatchRuleNotFound" must be our
 * match_rule_equal().
 */
static int compare_equality(DBusConnection *conn, unsigned *checked) {
        static const char *const pool[] = {
                "type='signal'", "type=signal", "type='signal',eavesdrop='false'",
                "type='signal',eavesdrop='true'", "eavesdrop='true',type='signal'", "",
                "eavesdrop='false'", "member='M',type='signal'", "type='signal',member='M'",
                "arg0='a'", "arg0=a", "arg00='a'", "arg0='a',arg1='b'", "arg1='b',arg0='a'",
                "arg1='b'", "arg0path='a'", "arg0namespace='a'", "path='/a'", "path_namespace='/a'",
                "sender=':1.1'", "sender='a.b'", "destination='a.b'", "interface='a.b'",
                "arg0='it'\\''s'", "arg0=it\\'s", "arg0='a\\b'", "arg0=a\\b", "arg0=''", "arg0=",
        };
        int failures = 0;

        for (size_t i = 0; i < ELEMENTSOF(pool); i++)
                for (size_t j = 0; j < ELEMENTSOF(pool); j++) {
                        MatchRule *a = NULL, *b = NULL;
                        int added, removed, cleanup;

                        if (match_rule_parse(pool[i], strlen(pool[i]), &a) != 0 ||
                            match_rule_parse(pool[j], strlen(pool[j]), &b) != 0)
                                return -1;
                        bool mine = match_rule_equal(a, b);
                        match_rule_free(a);
                        match_rule_free(b);

                        if (call_driver(conn, "AddMatch", pool[i], &added) < 0 || added != VERDICT_ACCEPT ||
                            call_driver(conn, "RemoveMatch", pool[j], &removed) < 0)
                                return -1;
                        if (removed != VERDICT_ACCEPT &&
                            call_driver(conn, "RemoveMatch", pool[i], &cleanup) < 0)
                                return -1;
                        (*checked)++;
                        if (mine != (removed == VERDICT_ACCEPT)) {
                                fprintf(stderr, "AddMatch \"%s\", RemoveMatch \"%s\": dbus-daemon %s, "
                                        "mssf-broker %s\n", pool[i], pool[j],
                                        removed == VERDICT_ACCEPT ? "removed" : "not found",
                                        mine ? "equal" : "different");
                                failures++;
                        }
                }
        return failures;
}

int main(int argc, char **argv) {
        ReferenceDaemon daemon;
        unsigned checked = 0;
        int failures = 0;

        if (!reference_daemon_available()) {
                printf("no %s: skipped\n", REFERENCE_DAEMON);
                return 77;
        }
        if (argc != 2 || reference_daemon_start(&daemon, 512, 100000) < 0) {
                fprintf(stderr, "could not start %s\n", REFERENCE_DAEMON);
                return 1;
        }

        DBusConnection *conn = reference_daemon_connect(&daemon);
        if (!conn)
                failures = -1;
        for (size_t i = 0; failures >= 0 && i < sizeof(builtin_rules) / sizeof(builtin_rules[0]); i++) {
                int r = compare(conn, builtin_rules[i], strlen(builtin_rules[i]), &checked);
                failures = r < 0 ? r : failures + r;
        }
        if (failures >= 0) {
                int r = compare_dir(conn, argv[1], &checked);
                failures = r < 0 ? r : failures + r;
        }
        if (failures >= 0) {
                int r = compare_generated(conn, 5000, &checked);
                failures = r < 0 ? r : failures + r;
        }
        if (failures >= 0) {
                unsigned pairs = 0;
                int r = compare_equality(conn, &pairs);
                failures = r < 0 ? r : failures + r;
                printf("%u RemoveMatch pairs compared\n", pairs);
        }

        reference_daemon_disconnect(conn);
        reference_daemon_stop(&daemon);

        printf("%u rules compared with dbus-daemon: %u accepted by both, %u refused only by us "
               "as documented, %d differences\n", checked, n_accepted, n_excused, failures);
        /* The comparison must have seen both verdicts in number to mean anything. */
        if (checked < 1000 || n_accepted < 100 || checked - n_accepted < 100)
                return 1;
        return failures == 0 ? 0 : 1;
}
