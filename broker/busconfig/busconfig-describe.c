/*
 * busconfig-describe: the words for a verdict, so that a denied client and
 * the log can tell which rule of which file decided, as dbus-daemon's
 * "Rejected send message ..." texts do (ours also name the rule).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "busconfig-internal.h"
#include "config.h"

/* dbus-daemon's ceiling for max_fds, and the parser's value when it is absent. */
#define DBUS_MAX_MESSAGE_FDS (1u << 25)

typedef struct Out {
        char *buf;
        size_t size;
        size_t len;
} Out;

_printf_(2, 3) static void out(Out *o, const char *fmt, ...) {
        if (o->len >= o->size)
                return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
        va_end(ap);
        if (n > 0)
                o->len += (size_t)n;
        if (o->len >= o->size)
                o->len = o->size;
}

static const char *type_name(BusMessageType type) {
        static const char *const names[] = { "*", "method_call", "method_return", "error", "signal" };
        return (unsigned)type < ELEMENTSOF(names) ? names[type] : "?";
}

static void attr(Out *o, const char *name, const char *value) {
        if (value)
                out(o, " %s=\"%s\"", name, value);
}

static void tristate_attr(Out *o, const char *name, BusTristate value) {
        if (value != BUS_TRISTATE_UNSET)
                out(o, " %s=\"%s\"", name, value == BUS_TRISTATE_TRUE ? "true" : "false");
}

static void message_attrs(Out *o, const BusPolicyRule *rule, bool send) {
        const char *p = send ? "send_" : "receive_";
        char name[32];
#define A(suffix, value) (snprintf(name, sizeof(name), "%s%s", p, suffix), attr(o, name, value))
        if (send && rule->peer_is_prefix)
                attr(o, "send_destination_prefix", rule->peer);
        else
                A(send ? "destination" : "sender", rule->peer ? rule->peer : "*");
        A("interface", rule->interface);
        A("member", rule->member);
        A("error", rule->error);
        A("path", rule->path);
        if (rule->type != BUS_MESSAGE_TYPE_ANY)
                A("type", type_name(rule->type));
#undef A
        tristate_attr(o, send ? "send_requested_reply" : "receive_requested_reply", rule->requested_reply);
        if (send)
                tristate_attr(o, "send_broadcast", rule->broadcast);
        tristate_attr(o, "eavesdrop", rule->eavesdrop);
        if (rule->min_fds)
                out(o, " min_fds=\"%u\"", rule->min_fds);
        if (rule->max_fds < DBUS_MAX_MESSAGE_FDS)
                out(o, " max_fds=\"%u\"", rule->max_fds);
}

static void rule_text(Out *o, const BusPolicyRule *rule) {
        out(o, "<%s", rule->allow ? "allow" : "deny");
        switch (rule->kind) {
        case BUS_RULE_SEND:
        case BUS_RULE_RECEIVE:
                message_attrs(o, rule, rule->kind == BUS_RULE_SEND);
                break;
        case BUS_RULE_OWN:
                attr(o, rule->own_is_prefix ? "own_prefix" : "own", rule->own ? rule->own : "*");
                break;
        case BUS_RULE_USER:
        case BUS_RULE_GROUP:
                attr(o, rule->kind == BUS_RULE_USER ? "user" : "group", rule->principal ? rule->principal : "*");
                break;
        }
        out(o, "/> (%s:%u)", rule->file ? rule->file : "?", rule->line);
}

void busconfig_verdict_describe(const BusconfigVerdict *verdict, char *buf, size_t size) {
        Out o = { buf, size, 0 };
        if (size == 0)
                return;
        buf[0] = '\0';
        if (!verdict->rule) {
                out(&o, verdict->check == BUSCONFIG_CHECK_CONNECT ? "no rule allows this user to connect"
                                                                 : "no rule allows it");
                return;
        }
        out(&o, "%s by ", verdict->allow ? "allowed" : "denied");
        rule_text(&o, verdict->rule);
        if (verdict->context)
                out(&o, " in %s", verdict->context);
}
