/* invalid-cases: the invalid fixtures and the error each must produce. */
#pragma once

#include <stddef.h>

#define FIXTURE(name) FIXTURE_DIR "/" name

/* Each invalid fixture, and what the user reads: file:line: message. */
static const struct {
        const char *name;
        const char *where_and_what;     /* after "<path>:" */
        const char *deviation;          /* why dbus-daemon says otherwise; NULL: same text */
} invalid_cases[] = {
        { "unknown-element", "2: Element <frobnicate> not allowed inside <busconfig> in configuration file", NULL },
        { "unknown-root", "1: Unknown element <notbusconfig> at root of configuration file", NULL },
        { "not-well-formed", "2: mismatched tag (column 11)", "dbus-daemon words XML syntax errors differently" },
        { "rule-outside-policy", "3: Element <allow> not allowed inside <busconfig> in configuration file", NULL },
        { "unknown-in-policy", "3: Element <permit> not allowed inside <policy> in configuration file", NULL },
        { "send-receive-mixed", "3: Invalid combination of attributes on element <allow>: send and receive attributes cannot be combined", NULL },
        { "own-with-send", "3: Invalid combination of attributes on element <allow>: own, own_prefix, user, group and the message-related attributes cannot be combined", NULL },
        { "user-and-group", "3: Invalid combination of attributes on element <allow>: own, own_prefix, user, group and the message-related attributes cannot be combined", NULL },
        { "no-attributes", "4: Element <deny> must have one or more attributes", NULL },
        { "member-without-interface", "3: On element <allow>, if you specify a member you must specify an interface or a path. Keep in mind that not all messages have an interface field.", NULL },
        { "error-with-member", "3: Invalid combination of attributes on element <allow>: send_error cannot be combined with send_member or send_interface", NULL },
        { "dest-and-prefix", "3: Invalid combination of attributes on element <allow>: send_destination cannot be combined with send_destination_prefix", NULL },
        { "broadcast-with-dest", "3: Rule with send_broadcast=\"true\" and send_destination=\"a.b\" cannot match anything", NULL },
        { "bad-bool", "3: Bad value \"yes\" for eavesdrop attribute, must be true or false", "dbus-daemon swaps value and attribute name in this message" },
        { "bad-type", "3: Bad message type \"method\"", NULL },
        { "bad-max-fds", "3: Bad value \"-1\" for max_fds attribute, must be an integer in range 0 to 33554432 inclusive", NULL },
        { "unknown-rule-attribute", "3: Attribute \"send_color\" is invalid on <allow> element in this context", NULL },
        { "per-user-user-rule", "3: <allow> rule cannot be per-user because it has bus-global semantics", NULL },
        { "policy-two-contexts", "2: <policy> element must have exactly one of (context|user|group|at_console) attributes", NULL },
        { "policy-bad-context", "2: context attribute on <policy> must have the value \"default\" or \"mandatory\", not \"sometimes\"", NULL },
        { "policy-bad-console", "2: Unknown value \"maybe\" for at_console in message bus configuration file", NULL },
        { "unknown-limit", "2: There is no limit called \"max_fun\"", NULL },
        { "limit-not-number", "2: <limit name=\"auth_timeout\"> element has invalid value (could not parse as integer)", NULL },
        { "limit-negative", "2: <limit name=\"max_message_size\"> must be a positive number", NULL },
        { "limit-too-large", "2: <limit name=\"auth_timeout\"> value is too large", NULL },
        { "limit-no-name", "2: <limit> element must have a \"name\" attribute", NULL },
        { "empty-include", "2: XML element <include> was expected to have content inside it", NULL },
        { "empty-listen", "2: XML element <listen> was expected to have content inside it", "dbus-daemon keeps whitespace-only text and fails later on the address" },
        { "bad-listen", "2: Invalid <listen> address \"unix:dir=/a,path=/b\": Cannot specify two of \"path\", \"dir\", \"tmpdir\", \"abstract\" and \"runtime\" at the same time", "dbus-daemon checks addresses only when it listens" },
        { "tcp-listen", "2: Invalid <listen> address \"tcp:host=localhost,port=0\": The tcp: transport is not supported by this bus; use unix: or systemd:", "dbus-daemon listens on TCP; this bus refuses it" },
        { "text-in-busconfig", "2: No text content expected inside XML element busconfig in configuration file", NULL },
        { "child-of-text-element", "2: Element <name> is not allowed in this context", NULL },
        { "attribute-on-fork", "2: Attribute \"now\" is invalid on <fork> element in this context", NULL },
        { "include-bad-flag", "2: ignore_missing attribute must have value \"yes\" or \"no\"", NULL },
        { "include-missing", "3: Failed to open \"" FIXTURE("invalid/no-such-file.conf") "\": No such file or directory", NULL },
        { "selinux-child", "3: Element <allow> not allowed inside <selinux> in configuration file", NULL },
        { "associate-incomplete", "3: Element <associate> must have attributes own=\"<servicename>\" and context=\"<selinux context>\"", NULL },
        { "apparmor-bad-mode", "2: Mode attribute on <apparmor> must have value \"required\", \"enabled\" or \"disabled\", not \"paranoid\"", NULL },
        { "entity", "2: Entity declarations are not allowed in configuration files", "dbus-daemon accepts entity declarations" },
        { "empty", "1: no element found (column 0)", "dbus-daemon words XML syntax errors differently" },
        { "child-of-allow", "4: Element <deny> is not allowed in this context", NULL },
        { "label-limit-not-number", "2: <limit name=\"max_connections_per_label\"> element has invalid value (could not parse as integer)", "dbus-daemon has no per-label limits" },
        { "label-limit-too-large", "2: <limit name=\"max_replies_per_label\"> value is too large", "dbus-daemon has no per-label limits" },
        { "label-limit-negative", "2: <limit name=\"max_queued_bytes_per_label\"> must be a positive number", "dbus-daemon has no per-label limits" },
};
