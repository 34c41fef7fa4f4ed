/*
 * One match rule: parsing its string form, comparing two rules, and
 * testing a rule against a message.
 *
 * Job and trust: the text comes straight from a client's AddMatch or
 * RemoveMatch, so it is treated as arbitrary bytes. Parsing is one pass
 * over at most MATCH_RULE_MAX bytes with no recursion and no allocation
 * proportional to anything but the text; every value is validated
 * (broker/wire/validate.h) before it is stored.
 *
 * The grammar is dbus-daemon's (bus/signals.c): comma-separated key=value
 * pairs, whitespace allowed around keys, values optionally quoted with
 * apostrophes; outside quotes a backslash escapes only an apostrophe (\'
 * gives '), any other \x stays as the two bytes; inside quotes every byte
 * is literal. Keys: type, sender, interface, member, path, path_namespace,
 * destination, eavesdrop, arg0..arg63, arg0path..arg63path, arg0namespace.
 * A key given twice is an error, except eavesdrop (the last one wins, as
 * dbus-daemon allows for monitors appending eavesdrop='true').
 *
 * Deliberate deviations, each stricter than dbus-daemon:
 *   - an empty key (",," or a leading "=") is refused; dbus-daemon stops
 *     scanning there and silently ignores the rest of the rule;
 *   - there is no 16-token cap; dbus-daemon silently ignores keys past
 *     the 16th, which would widen a rule the client meant narrowly;
 *   - an argument number is decimal digits only (dbus-daemon's strtoul
 *     also takes a leading '+');
 *   - a NUL byte anywhere in the text is refused.
 *
 * Matching follows dbus-daemon's match_rule_matches(): all keys AND'ed;
 * sender matches the unique name or any name the sender primary-owns;
 * a rule without eavesdrop='true' never matches a message that has a
 * destination; argN matches only string arguments, argNpath string and
 * object-path arguments, arg0namespace string arguments.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match-internal.h"
#include "message.h"
#include "names.h"
#include "validate.h"

/* What parsing collects before the rule is allocated at its exact size. */
typedef struct MatchParse {
        MatchRule head;
        MatchArgRule args[MATCH_ARGS_MAX];
        uint64_t args_seen;     /* bit i: argi given */
        bool has_type;
        char *out;              /* write position in head.strings */
} MatchParse;

static bool is_white(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool key_is(const char *key, size_t key_len, const char *literal) {
        return strlen(literal) == key_len && memcmp(key, literal, key_len) == 0;
}

static bool is_name_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
}

/*
 * A unique name as libdbus's _dbus_validate_bus_name() sees it: ':' then
 * name characters, each '.' followed by one. It takes ":", ":1" and ":.1",
 * which the specification does not; rules naming them can never match,
 * but dbus-daemon accepts them in match rules, so we do too.
 */
static bool validate_libdbus_unique_name(const char *s, size_t n) {
        if (n == 0 || n > VALIDATE_NAME_MAX || s[0] != ':')
                return false;
        for (size_t i = 1; i < n; i++) {
                if (s[i] == '.') {
                        if (i + 1 == n || !is_name_char(s[i + 1]))
                                return false;
                        i++;
                } else if (!is_name_char(s[i])) {
                        return false;
                }
        }
        return true;
}

/* sender= and destination=: a well-known name, or a unique name as libdbus takes it. */
static bool validate_rule_bus_name(const char *s, size_t n) {
        if (n > 0 && s[0] == ':')
                return validate_libdbus_unique_name(s, n);
        return validate_bus_name(s, n);
}

/* arg0namespace=: like a bus name, but a single element is allowed too. */
static bool validate_bus_namespace(const char *s, size_t n) {
        if (n > 0 && s[0] == ':')
                return validate_libdbus_unique_name(s, n);
        if (memchr(s, '.', n))
                return validate_bus_name(s, n);
        if (n == 0 || n > VALIDATE_NAME_MAX || (s[0] >= '0' && s[0] <= '9'))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!is_name_char(s[i]))
                        return false;
        return true;
}

static int parse_type(const char *value, size_t len, uint8_t *ret) {
        static const struct {
                const char *name;
                uint8_t type;
        } types[] = {
                { "method_call", MESSAGE_METHOD_CALL },
                { "method_return", MESSAGE_METHOD_RETURN },
                { "error", MESSAGE_ERROR },
                { "signal", MESSAGE_SIGNAL },
        };

        for (size_t i = 0; i < ELEMENTSOF(types); i++)
                if (key_is(value, len, types[i].name)) {
                        *ret = types[i].type;
                        return 0;
                }
        return MATCH_E_INVALID;
}

/* "arg" was seen; the rest of the key is digits and an optional suffix. */
static int parse_arg_key(MatchParse *p, const char *key, size_t key_len,
                         const char *value, size_t len) {
        size_t i = 3, index = 0;

        if (i >= key_len || key[i] < '0' || key[i] > '9')
                return MATCH_E_INVALID;
        for (; i < key_len && key[i] >= '0' && key[i] <= '9'; i++) {
                index = index * 10 + (size_t)(key[i] - '0');
                if (index >= MATCH_ARGS_MAX)
                        return MATCH_E_INVALID;
        }

        uint8_t kind;
        const char *suffix = key + i;
        size_t suffix_len = key_len - i;
        if (suffix_len == 0)
                kind = MATCH_ARG_STRING;
        else if (key_is(suffix, suffix_len, "path"))
                kind = MATCH_ARG_PATH;
        else if (key_is(key, key_len, "arg0namespace"))
                kind = MATCH_ARG_NAMESPACE;
        else
                return MATCH_E_INVALID;

        if (kind == MATCH_ARG_NAMESPACE && !validate_bus_namespace(value, len))
                return MATCH_E_INVALID;
        if (p->args_seen & (UINT64_C(1) << index))
                return MATCH_E_INVALID;
        p->args_seen |= UINT64_C(1) << index;

        /* Keep args sorted by index: insertion sort into at most 64 slots. */
        size_t pos = p->head.n_args;
        while (pos > 0 && p->args[pos - 1].index > index) {
                p->args[pos] = p->args[pos - 1];
                pos--;
        }
        p->args[pos] = (MatchArgRule){
                .value = value, .len = (uint16_t)len, .index = (uint8_t)index, .kind = kind,
        };
        p->head.n_args++;
        return 0;
}

/* A name-valued key: refuse repeats and invalid values, then store. */
static int set_string(const char **field, const char *value, size_t len,
                      bool (*valid)(const char *, size_t)) {
        if (*field || !valid(value, len))
                return MATCH_E_INVALID;
        *field = value;
        return 0;
}

static int apply_key(MatchParse *p, const char *key, size_t key_len, const char *value, size_t len) {
        MatchRule *rule = &p->head;

        if (key_is(key, key_len, "type")) {
                if (p->has_type)
                        return MATCH_E_INVALID;
                p->has_type = true;
                return parse_type(value, len, &rule->type);
        }
        if (key_is(key, key_len, "sender"))
                return set_string(&rule->sender, value, len, validate_rule_bus_name);
        if (key_is(key, key_len, "interface"))
                return set_string(&rule->interface, value, len, validate_interface_name);
        if (key_is(key, key_len, "member"))
                return set_string(&rule->member, value, len, validate_member_name);
        if (key_is(key, key_len, "destination"))
                return set_string(&rule->destination, value, len, validate_rule_bus_name);
        if (key_is(key, key_len, "path") || key_is(key, key_len, "path_namespace")) {
                rule->path_is_namespace = key_len > 4;
                return set_string(&rule->path, value, len, validate_object_path);
        }
        if (key_is(key, key_len, "eavesdrop")) {
                if (key_is(value, len, "true"))
                        rule->eavesdrop = true;
                else if (key_is(value, len, "false"))
                        rule->eavesdrop = false;
                else
                        return MATCH_E_INVALID;
                return 0;
        }
        if (key_len >= 3 && memcmp(key, "arg", 3) == 0)
                return parse_arg_key(p, key, key_len, value, len);
        return MATCH_E_INVALID;
}

/*
 * Unquotes the value starting at text[*pos] into p->out (dbus-daemon's
 * find_value()), leaves *pos after the terminating comma or at the end.
 */
static int parse_value(MatchParse *p, const char *text, size_t n, size_t *pos,
                       const char **ret_value, size_t *ret_len) {
        char *start = p->out;
        char quote = 0;
        size_t i = *pos;

        for (; i < n; i++) {
                char c = text[i];

                if (quote == '\'') {
                        if (c == '\'')
                                quote = 0;
                        else
                                *p->out++ = c;
                } else if (quote == '\\') {
                        if (c != '\'')
                                *p->out++ = '\\';
                        *p->out++ = c;
                        quote = 0;
                } else if (c == '\'' || c == '\\') {
                        quote = c;
                } else if (c == ',') {
                        i++;
                        break;
                } else {
                        *p->out++ = c;
                }
        }
        if (quote == '\'')
                return MATCH_E_INVALID;
        if (quote == '\\')
                *p->out++ = '\\';

        *ret_len = (size_t)(p->out - start);
        *p->out++ = '\0';
        *ret_value = start;
        *pos = i;
        return 0;
}

static int parse_pairs(MatchParse *p, const char *text, size_t n) {
        size_t pos = 0;

        while (pos < n) {
                while (pos < n && is_white(text[pos]))
                        pos++;
                size_t key_start = pos;
                while (pos < n && text[pos] != '=' && !is_white(text[pos]))
                        pos++;
                size_t key_len = pos - key_start;
                while (pos < n && is_white(text[pos]))
                        pos++;

                if (key_len == 0) {
                        /* Empty rules and trailing whitespace are fine; empty keys are not. */
                        if (pos == n)
                                break;
                        return MATCH_E_INVALID;
                }
                if (pos == n || text[pos] != '=')
                        return MATCH_E_INVALID;
                pos++;

                const char *value;
                size_t len;
                int r = parse_value(p, text, n, &pos, &value, &len);
                if (r != 0)
                        return r;
                r = apply_key(p, text + key_start, key_len, value, len);
                if (r != 0)
                        return r;
        }
        return 0;
}

/* Re-points a value from the scratch buffer into the exact-size copy. */
static const char *rebase(const char *value, const char *from, char *to) {
        return value ? to + (value - from) : NULL;
}

/* Moves the parsed rule and its strings into allocations of their exact size. */
static int parse_finish(MatchParse *p, MatchRule **ret) {
        const char *scratch = p->head.strings;
        size_t used = (size_t)(p->out - scratch);

        /* The args array follows the rule in one allocation (both 8-byte aligned). */
        MatchRule *rule = malloc(sizeof(*rule) + p->head.n_args * sizeof(MatchArgRule));
        if (!rule)
                return -ENOMEM;
        char *strings = malloc(used ? used : 1);
        if (!strings) {
                free(rule);
                return -ENOMEM;
        }
        memcpy(strings, scratch, used);

        *rule = p->head;
        rule->args = (MatchArgRule *)(rule + 1);
        rule->strings = strings;
        rule->sender = rebase(p->head.sender, scratch, strings);
        rule->interface = rebase(p->head.interface, scratch, strings);
        rule->member = rebase(p->head.member, scratch, strings);
        rule->path = rebase(p->head.path, scratch, strings);
        rule->destination = rebase(p->head.destination, scratch, strings);
        for (size_t i = 0; i < p->head.n_args; i++) {
                rule->args[i] = p->args[i];
                rule->args[i].value = rebase(p->args[i].value, scratch, strings);
        }
        ilist_init(&rule->owner_link);
        ilist_init(&rule->leaf_link);
        ilist_init(&rule->target_link);
        *ret = rule;
        return 0;
}

int match_rule_parse(const char *text, size_t n, MatchRule **ret) {
        if (n > MATCH_RULE_MAX)
                return MATCH_E_TOO_LONG;
        if (n > 0 && memchr(text, '\0', n))
                return MATCH_E_INVALID;

        /* Unquoting never grows a value; each needs one NUL (or one '\\' kept). */
        MatchParse p = { 0 };
        p.head.args = p.args;
        p.head.strings = malloc(2 * n + 2);
        if (!p.head.strings)
                return -ENOMEM;
        p.out = p.head.strings;

        int r = parse_pairs(&p, text, n);
        if (r == 0)
                r = parse_finish(&p, ret);
        free(p.head.strings);
        return r;
}

MatchRule *match_rule_free(MatchRule *rule) {
        if (!rule)
                return NULL;
        free(rule->strings);
        free(rule);
        return NULL;
}

void match_rule_set_eavesdrop(MatchRule *rule, bool eavesdrop) {
        /* An indexed rule's place depends on the flag. */
        assert(!rule->owner);
        rule->eavesdrop = eavesdrop;
}

static bool str_equal(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}

bool match_rule_equal(const MatchRule *a, const MatchRule *b) {
        if (a->type != b->type || a->eavesdrop != b->eavesdrop ||
            a->path_is_namespace != b->path_is_namespace || a->n_args != b->n_args)
                return false;
        if (!str_equal(a->sender, b->sender) || !str_equal(a->interface, b->interface) ||
            !str_equal(a->member, b->member) || !str_equal(a->path, b->path) ||
            !str_equal(a->destination, b->destination))
                return false;
        for (size_t i = 0; i < a->n_args; i++) {
                const MatchArgRule *x = &a->args[i], *y = &b->args[i];
                if (x->index != y->index || x->kind != y->kind || x->len != y->len ||
                    memcmp(x->value, y->value, x->len) != 0)
                        return false;
        }
        return true;
}

/* argNpath: equal, or one is a prefix of the other that ends in '/'. */
static bool arg_path_matches(const char *expected, size_t expected_len, const char *actual) {
        size_t actual_len = strlen(actual);

        if (actual_len < expected_len && (actual_len == 0 || actual[actual_len - 1] != '/'))
                return false;
        if (expected_len < actual_len && (expected_len == 0 || expected[expected_len - 1] != '/'))
                return false;
        return memcmp(actual, expected, actual_len < expected_len ? actual_len : expected_len) == 0;
}

/* arg0namespace: equal, or actual continues with '.' after the namespace. */
static bool arg_namespace_matches(const char *expected, size_t expected_len, const char *actual) {
        if (strncmp(actual, expected, expected_len) != 0)
                return false;
        return actual[expected_len] == '\0' || actual[expected_len] == '.';
}

static bool arg_matches(const MatchArgRule *arg, const MatchMessage *msg) {
        if (arg->index >= msg->n_args)
                return false;

        const MessageArg *actual = &msg->args[arg->index];
        if (!actual->str)
                return false;

        switch (arg->kind) {
        case MATCH_ARG_STRING:
                return actual->type == 's' && strlen(actual->str) == arg->len &&
                       memcmp(actual->str, arg->value, arg->len) == 0;
        case MATCH_ARG_PATH:
                return (actual->type == 's' || actual->type == 'o') &&
                       arg_path_matches(arg->value, arg->len, actual->str);
        case MATCH_ARG_NAMESPACE:
                return actual->type == 's' && arg_namespace_matches(arg->value, arg->len, actual->str);
        }
        return false;
}

static bool path_matches(const MatchRule *rule, const char *path) {
        if (!path)
                return false;
        if (!rule->path_is_namespace)
                return strcmp(path, rule->path) == 0;

        size_t len = strlen(rule->path);
        if (strncmp(path, rule->path, len) != 0)
                return false;
        /* "/" is the one valid path ending in '/': it covers everything. */
        return len == 1 || path[len] == '\0' || path[len] == '/';
}

static bool sender_matches(const MatchRule *rule, const MatchMessage *msg) {
        if (msg->sender && strcmp(rule->sender, msg->sender) == 0)
                return true;
        return msg->sender_names && name_peer_state_owns(msg->sender_names, rule->sender);
}

static bool destination_matches(const MatchRule *rule, const MatchMessage *msg) {
        if (!rule->destination)
                /* Without eavesdrop a rule sees broadcasts only. */
                return rule->eavesdrop || !msg->destination;
        if (!msg->destination || !rule->eavesdrop)
                return false;
        if (!msg->destination_names)
                /* The driver, or a name still being activated: compare the header. */
                return strcmp(rule->destination, msg->destination) == 0;
        return str_equal(rule->destination, msg->destination_names->unique_name) ||
               name_peer_state_owns(msg->destination_names, rule->destination);
}

bool match_rule_matches(const MatchRule *rule, const MatchMessage *msg) {
        if (rule->type && rule->type != msg->type)
                return false;
        if (rule->interface && !str_equal(rule->interface, msg->interface))
                return false;
        if (rule->member && !str_equal(rule->member, msg->member))
                return false;
        if (rule->sender && !sender_matches(rule, msg))
                return false;
        if (!destination_matches(rule, msg))
                return false;
        if (rule->path && !path_matches(rule, msg->path))
                return false;
        for (size_t i = 0; i < rule->n_args; i++)
                if (!arg_matches(&rule->args[i], msg))
                        return false;
        return true;
}
