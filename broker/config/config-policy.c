/*
 * config-policy: <policy> elements and their <allow>/<deny> rules, parsed
 * into BusPolicy/BusPolicyRule with the file:line of each.
 *
 * The checks are dbus-daemon 1.14's (append_rule_from_element()): a rule
 * needs at least one attribute; send_* and receive_* never mix; own,
 * own_prefix, user, group and the message attributes each stand alone;
 * send_error excludes send_interface/send_member (same for receive_); a
 * member needs an interface or a path; send_destination excludes
 * send_destination_prefix; booleans are "true" or "false"; fd counts are
 * integers in 0..DBUS_MAXIMUM_MESSAGE_UNIX_FDS; user/group rules cannot sit
 * in a user or group <policy>. eavesdrop without any send_* attribute makes
 * a receive rule, as in dbus-daemon.
 *
 * What is not decided here: user and group names stay strings (dbus-daemon
 * resolves them while parsing and drops policies and rules naming unknown
 * ones, with a warning; the policy compiler does that resolution), and
 * requested_reply/eavesdrop stay tristate so the compiler applies
 * dbus-daemon's allow/deny-dependent defaults.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config-internal.h"

enum {
        A_SEND_INTERFACE, A_SEND_MEMBER, A_SEND_ERROR, A_SEND_DESTINATION,
        A_SEND_DESTINATION_PREFIX, A_SEND_PATH, A_SEND_TYPE, A_SEND_BROADCAST,
        A_SEND_REQUESTED_REPLY,
        A_RECEIVE_INTERFACE, A_RECEIVE_MEMBER, A_RECEIVE_ERROR, A_RECEIVE_SENDER,
        A_RECEIVE_PATH, A_RECEIVE_TYPE, A_RECEIVE_REQUESTED_REPLY,
        A_EAVESDROP, A_MAX_FDS, A_MIN_FDS,
        A_OWN, A_OWN_PREFIX, A_USER, A_GROUP, A_LOG,
        _A_MAX,
};

static const char *const rule_attributes[_A_MAX] = {
        [A_SEND_INTERFACE] = "send_interface",
        [A_SEND_MEMBER] = "send_member",
        [A_SEND_ERROR] = "send_error",
        [A_SEND_DESTINATION] = "send_destination",
        [A_SEND_DESTINATION_PREFIX] = "send_destination_prefix",
        [A_SEND_PATH] = "send_path",
        [A_SEND_TYPE] = "send_type",
        [A_SEND_BROADCAST] = "send_broadcast",
        [A_SEND_REQUESTED_REPLY] = "send_requested_reply",
        [A_RECEIVE_INTERFACE] = "receive_interface",
        [A_RECEIVE_MEMBER] = "receive_member",
        [A_RECEIVE_ERROR] = "receive_error",
        [A_RECEIVE_SENDER] = "receive_sender",
        [A_RECEIVE_PATH] = "receive_path",
        [A_RECEIVE_TYPE] = "receive_type",
        [A_RECEIVE_REQUESTED_REPLY] = "receive_requested_reply",
        [A_EAVESDROP] = "eavesdrop",
        [A_MAX_FDS] = "max_fds",
        [A_MIN_FDS] = "min_fds",
        [A_OWN] = "own",
        [A_OWN_PREFIX] = "own_prefix",
        [A_USER] = "user",
        [A_GROUP] = "group",
        [A_LOG] = "log",
};

/* The attributes of one rule, by the A_* index, and what they add up to. */
typedef struct RuleAttrs {
        const char *v[_A_MAX];
        bool any_send;
        bool any_receive;
        bool any_message;
        const char *element;
        unsigned line;
} RuleAttrs;

static void rule_clear(BusPolicyRule *rule) {
        free(rule->peer);
        free(rule->interface);
        free(rule->member);
        free(rule->error);
        free(rule->path);
        free(rule->own);
        free(rule->principal);
}

void config_policy_clear(BusPolicy *policy) {
        for (size_t i = 0; i < policy->n_rules; i++)
                rule_clear(&policy->rules[i]);
        free(policy->rules);
        free(policy->principal);
}

static bool is_wildcard(const char *value) {
        return value && strcmp(value, "*") == 0;
}

/* strdup() of an attribute value, NULL for absent or "*"; false on OOM. */
static bool dup_match(const char *value, char **ret) {
        *ret = NULL;
        if (!value || is_wildcard(value))
                return true;
        *ret = strdup(value);
        return *ret != NULL;
}

static int parse_bool(ConfigFile *file, const RuleAttrs *a, int which, BusTristate *ret) {
        const char *value = a->v[which];

        *ret = BUS_TRISTATE_UNSET;
        if (!value)
                return 0;
        if (strcmp(value, "true") == 0)
                *ret = BUS_TRISTATE_TRUE;
        else if (strcmp(value, "false") == 0)
                *ret = BUS_TRISTATE_FALSE;
        else
                return config_file_fail(file, a->line, "Bad value \"%s\" for %s attribute, must be true or false",
                                        value, rule_attributes[which]);
        return 0;
}

static int parse_fds(ConfigFile *file, const RuleAttrs *a, int which, unsigned def, unsigned *ret) {
        const char *value = a->v[which];
        char *end = NULL;
        long long n;

        *ret = def;
        if (!value)
                return 0;
        errno = 0;
        n = strtoll(value, &end, 10);
        if (errno != 0 || end == value || *end != '\0' || n < 0 || n > CONFIG_MAX_MESSAGE_UNIX_FDS)
                return config_file_fail(file, a->line,
                                        "Bad value \"%s\" for %s attribute, must be an integer in range %d to %u inclusive",
                                        value, rule_attributes[which], 0, CONFIG_MAX_MESSAGE_UNIX_FDS);
        *ret = (unsigned)n;
        return 0;
}

static int parse_type(ConfigFile *file, const RuleAttrs *a, int which, BusMessageType *ret) {
        static const char *const types[] = {
                [BUS_MESSAGE_TYPE_METHOD_CALL] = "method_call",
                [BUS_MESSAGE_TYPE_METHOD_RETURN] = "method_return",
                [BUS_MESSAGE_TYPE_ERROR] = "error",
                [BUS_MESSAGE_TYPE_SIGNAL] = "signal",
        };
        const char *value = a->v[which];

        *ret = BUS_MESSAGE_TYPE_ANY;
        if (!value || is_wildcard(value))
                return 0;
        for (size_t i = 1; i < ELEMENTSOF(types); i++)
                if (strcmp(value, types[i]) == 0) {
                        *ret = (BusMessageType)i;
                        return 0;
                }
        return config_file_fail(file, a->line, "Bad message type \"%s\"", value);
}

static void classify(RuleAttrs *a) {
        for (int i = A_SEND_INTERFACE; i <= A_SEND_REQUESTED_REPLY; i++)
                a->any_send |= a->v[i] != NULL;
        for (int i = A_RECEIVE_INTERFACE; i <= A_RECEIVE_REQUESTED_REPLY; i++)
                a->any_receive |= a->v[i] != NULL;
        /* <allow eavesdrop="true"/> means <allow receive_sender="*" eavesdrop="true"/>. */
        if (!a->any_send && a->v[A_EAVESDROP])
                a->any_receive = true;
        a->any_message = a->any_send || a->any_receive || a->v[A_EAVESDROP] || a->v[A_MAX_FDS] ||
                         a->v[A_MIN_FDS];
}

static int check_combination(ConfigFile *file, const RuleAttrs *a) {
        const char *const *v = a->v;
        int standalone = a->any_message + !!v[A_OWN] + !!v[A_OWN_PREFIX] + !!v[A_USER] + !!v[A_GROUP];

        if (!a->any_send && !a->any_receive && !v[A_OWN] && !v[A_OWN_PREFIX] && !v[A_USER] && !v[A_GROUP])
                return config_file_fail(file, a->line, "Element <%s> must have one or more attributes", a->element);
        if ((v[A_SEND_MEMBER] && !v[A_SEND_INTERFACE] && !v[A_SEND_PATH]) ||
            (v[A_RECEIVE_MEMBER] && !v[A_RECEIVE_INTERFACE] && !v[A_RECEIVE_PATH]))
                return config_file_fail(file, a->line,
                                        "On element <%s>, if you specify a member you must specify an interface or a path. Keep in mind that not all messages have an interface field.",
                                        a->element);
        if (standalone > 1)
                return config_file_fail(file, a->line,
                                        "Invalid combination of attributes on element <%s>: own, own_prefix, user, group and the message-related attributes cannot be combined",
                                        a->element);
        if (a->any_send && a->any_receive)
                return config_file_fail(file, a->line,
                                        "Invalid combination of attributes on element <%s>: send and receive attributes cannot be combined",
                                        a->element);
        if ((v[A_SEND_MEMBER] || v[A_SEND_INTERFACE]) && v[A_SEND_ERROR])
                return config_file_fail(file, a->line,
                                        "Invalid combination of attributes on element <%s>: send_error cannot be combined with send_member or send_interface",
                                        a->element);
        if (v[A_SEND_DESTINATION] && v[A_SEND_DESTINATION_PREFIX])
                return config_file_fail(file, a->line,
                                        "Invalid combination of attributes on element <%s>: send_destination cannot be combined with send_destination_prefix",
                                        a->element);
        if ((v[A_RECEIVE_MEMBER] || v[A_RECEIVE_INTERFACE]) && v[A_RECEIVE_ERROR])
                return config_file_fail(file, a->line,
                                        "Invalid combination of attributes on element <%s>: receive_error cannot be combined with receive_member or receive_interface",
                                        a->element);
        return 0;
}

/* Fields common to send and receive rules; base is A_SEND_* or A_RECEIVE_*. */
static int fill_message_rule(ConfigFile *file, const RuleAttrs *a, BusPolicyRule *rule, bool send) {
        const char *const *v = a->v;
        int type = send ? A_SEND_TYPE : A_RECEIVE_TYPE;
        int r;

        r = parse_type(file, a, type, &rule->type);
        if (r == 0)
                r = parse_bool(file, a, A_EAVESDROP, &rule->eavesdrop);
        if (r == 0)
                r = parse_bool(file, a, send ? A_SEND_REQUESTED_REPLY : A_RECEIVE_REQUESTED_REPLY,
                               &rule->requested_reply);
        if (r == 0)
                r = parse_fds(file, a, A_MAX_FDS, CONFIG_MAX_MESSAGE_UNIX_FDS, &rule->max_fds);
        if (r == 0)
                r = parse_fds(file, a, A_MIN_FDS, 0, &rule->min_fds);
        if (r != 0)
                return r;
        /* dbus-daemon honours log= on send rules only. */
        rule->log = send && v[A_LOG] && strcmp(v[A_LOG], "true") == 0;
        if (!dup_match(v[send ? A_SEND_INTERFACE : A_RECEIVE_INTERFACE], &rule->interface) ||
            !dup_match(v[send ? A_SEND_MEMBER : A_RECEIVE_MEMBER], &rule->member) ||
            !dup_match(v[send ? A_SEND_ERROR : A_RECEIVE_ERROR], &rule->error) ||
            !dup_match(v[send ? A_SEND_PATH : A_RECEIVE_PATH], &rule->path))
                return config_error_oom(file->loader->err);
        return 0;
}

static int fill_send_rule(ConfigFile *file, const RuleAttrs *a, BusPolicyRule *rule) {
        const char *const *v = a->v;
        int r;

        rule->kind = BUS_RULE_SEND;
        r = parse_bool(file, a, A_SEND_BROADCAST, &rule->broadcast);
        if (r != 0)
                return r;
        if (v[A_SEND_DESTINATION] && !is_wildcard(v[A_SEND_DESTINATION]) &&
            rule->broadcast == BUS_TRISTATE_TRUE)
                return config_file_fail(file, a->line,
                                        "Rule with send_broadcast=\"true\" and send_destination=\"%s\" cannot match anything",
                                        v[A_SEND_DESTINATION]);
        r = fill_message_rule(file, a, rule, true);
        if (r != 0)
                return r;
        if (v[A_SEND_DESTINATION_PREFIX]) {
                /* dbus-daemon takes the prefix literally, "*" included. */
                rule->peer_is_prefix = true;
                rule->peer = strdup(v[A_SEND_DESTINATION_PREFIX]);
                return rule->peer ? 0 : config_error_oom(file->loader->err);
        }
        return dup_match(v[A_SEND_DESTINATION], &rule->peer) ? 0 : config_error_oom(file->loader->err);
}

static int fill_receive_rule(ConfigFile *file, const RuleAttrs *a, BusPolicyRule *rule) {
        rule->kind = BUS_RULE_RECEIVE;
        rule->broadcast = BUS_TRISTATE_UNSET;
        if (!dup_match(a->v[A_RECEIVE_SENDER], &rule->peer))
                return config_error_oom(file->loader->err);
        return fill_message_rule(file, a, rule, false);
}

static int fill_other_rule(ConfigFile *file, const RuleAttrs *a, BusPolicyRule *rule) {
        const char *const *v = a->v;
        bool ok;

        rule->broadcast = rule->eavesdrop = rule->requested_reply = BUS_TRISTATE_UNSET;
        rule->max_fds = CONFIG_MAX_MESSAGE_UNIX_FDS;
        if (v[A_OWN] || v[A_OWN_PREFIX]) {
                rule->kind = BUS_RULE_OWN;
                rule->own_is_prefix = v[A_OWN_PREFIX] != NULL;
                /* own="*" is any name; own_prefix is taken literally. */
                if (rule->own_is_prefix)
                        ok = (rule->own = strdup(v[A_OWN_PREFIX])) != NULL;
                else
                        ok = dup_match(v[A_OWN], &rule->own);
        } else {
                rule->kind = v[A_USER] ? BUS_RULE_USER : BUS_RULE_GROUP;
                ok = dup_match(v[A_USER] ? v[A_USER] : v[A_GROUP], &rule->principal);
        }
        return ok ? 0 : config_error_oom(file->loader->err);
}

static int append_rule(ConfigFile *file, BusPolicy *policy, BusPolicyRule *rule) {
        BusPolicyRule *grown;

        grown = realloc(policy->rules, (policy->n_rules + 1) * sizeof(*grown));
        if (!grown)
                return config_error_oom(file->loader->err);
        policy->rules = grown;
        policy->rules[policy->n_rules++] = *rule;
        return 0;
}

int config_rule_add(ConfigFile *file, unsigned line, const char *element, bool allow,
                    const char **atts) {
        BusPolicy *policy = &file->config->policies[file->config->n_policies - 1];
        RuleAttrs a = { .element = element, .line = line };
        BusPolicyRule rule = { .allow = allow, .file = file->name, .line = line };
        int r;

        r = config_file_locate(file, line, element, atts, rule_attributes, a.v, _A_MAX);
        if (r != 0)
                return r;
        classify(&a);
        r = check_combination(file, &a);
        if (r != 0)
                return r;
        if (a.any_send)
                r = fill_send_rule(file, &a, &rule);
        else if (a.any_receive)
                r = fill_receive_rule(file, &a, &rule);
        else
                r = fill_other_rule(file, &a, &rule);
        if (r == 0 && (rule.kind == BUS_RULE_USER || rule.kind == BUS_RULE_GROUP) &&
            (policy->context == BUS_POLICY_USER || policy->context == BUS_POLICY_GROUP))
                r = config_file_fail(file, line, "<%s> rule cannot be per-%s because it has bus-global semantics",
                                     element, policy->context == BUS_POLICY_USER ? "user" : "group");
        if (r == 0)
                r = append_rule(file, policy, &rule);
        if (r != 0)
                rule_clear(&rule);
        return r;
}

static int policy_context(ConfigFile *file, unsigned line, const char *const *v, BusPolicy *policy) {
        if (v[0]) {
                if (strcmp(v[0], "default") == 0)
                        policy->context = BUS_POLICY_DEFAULT;
                else if (strcmp(v[0], "mandatory") == 0)
                        policy->context = BUS_POLICY_MANDATORY;
                else
                        return config_file_fail(file, line,
                                                "context attribute on <policy> must have the value \"default\" or \"mandatory\", not \"%s\"",
                                                v[0]);
                return 0;
        }
        if (v[3]) {
                policy->context = BUS_POLICY_AT_CONSOLE;
                if (strcmp(v[3], "true") == 0)
                        policy->at_console = true;
                else if (strcmp(v[3], "false") != 0)
                        return config_file_fail(file, line,
                                                "Unknown value \"%s\" for at_console in message bus configuration file",
                                                v[3]);
                return 0;
        }
        /* Literal: dbus-daemon does not read "*" as a wildcard here. */
        policy->context = v[1] ? BUS_POLICY_USER : BUS_POLICY_GROUP;
        policy->principal = strdup(v[1] ? v[1] : v[2]);
        return policy->principal ? 0 : config_error_oom(file->loader->err);
}

int config_policy_start(ConfigFile *file, unsigned line, const char **atts) {
        static const char *const names[] = { "context", "user", "group", "at_console" };
        const char *v[ELEMENTSOF(names)];
        BusConfig *config = file->config;
        BusPolicy policy = { .file = file->name, .line = line };
        BusPolicy *grown;
        int r;

        r = config_file_locate(file, line, "policy", atts, names, v, ELEMENTSOF(names));
        if (r != 0)
                return r;
        if (!!v[0] + !!v[1] + !!v[2] + !!v[3] != 1)
                return config_file_fail(file, line,
                                        "<policy> element must have exactly one of (context|user|group|at_console) attributes");
        r = policy_context(file, line, v, &policy);
        if (r == 0) {
                grown = realloc(config->policies, (config->n_policies + 1) * sizeof(*grown));
                if (!grown)
                        r = config_error_oom(file->loader->err);
                else {
                        config->policies = grown;
                        config->policies[config->n_policies++] = policy;
                        return 0;
                }
        }
        config_policy_clear(&policy);
        return r;
}
