/* Unit tests of the manifest parser: real-style manifests, quirks, errors, bounds. */
#include <stdlib.h>

#include "test-helpers.h"
#include "model.h"

/* Parse fixtures/<dir>/<name>.xml as package <name>; returns the parser's code. */
static int parse(const char *dir, const char *name, Diagnostics **ret_diag, Package **ret) {
        char file[256];
        snprintf(file, sizeof(file), "%s.xml", name);
        assert_int_equal(diagnostics_new(ret_diag), 0);
        *ret = NULL;
        return manifest_parse_file(fixture(dir, file), name, "system", *ret_diag, ret);
}

static const Interface *find_iface(const Package *p, const char *bus_name, const char *path,
                                   const char *iface) {
        const DbusName *d = package_find_name(p, BUS_SYSTEM, bus_name);
        assert_non_null(d);
        const Node *n = dbus_name_find_node(d, path);
        assert_non_null(n);
        const Interface *i = node_find_interface(n, iface);
        assert_non_null(i);
        return i;
}

static void assert_requirement(const Member *m, RequirementKind kind, const char *token) {
        assert_non_null(m);
        assert_int_equal(m->require.kind, kind);
        if (token)
                assert_string_equal(m->require.token, token);
        else
                assert_null(m->require.token);
}

/* --------------------------------------------------------------------- */
/* Real-style manifests. */

static void test_mce(void **state) {
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse("valid", "mce", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        assert_string_equal(p->name, "mce");
        assert_string_equal(p->origin, "system");
        assert_int_equal(p->n_requests, 1);
        const Request *r = p->requests[0];
        assert_int_equal(r->n_credentials, 6);
        assert_int_equal(r->credentials[0]->kind, CREDENTIAL_TOKEN);
        assert_string_equal(r->credentials[0]->name, "mce::DeviceModeControl");
        assert_string_equal(r->credentials[0]->provider, "mce");
        assert_int_equal(r->credentials[2]->kind, CREDENTIAL_CAP);
        assert_string_equal(r->credentials[2]->name, "CAP::sys_admin");
        assert_int_equal(r->credentials[4]->kind, CREDENTIAL_GRP);
        assert_string_equal(r->credentials[5]->name, "tcb");
        assert_null(r->credentials[5]->provider);
        assert_int_equal(r->n_targets, 1);
        assert_string_equal(r->targets[0]->path, "/usr/sbin/mce");
        assert_null(r->targets[0]->package);
        assert_int_equal(r->credentials[0]->loc.line, 3);
        assert_int_equal(r->credentials[0]->loc.column, 5);

        assert_int_equal(p->n_tokens, 3);
        assert_string_equal(p->tokens[1]->label, "mce::LEDControl");
        assert_false(p->tokens[1]->check_origin);

        const DbusName *d = package_find_name(p, BUS_SYSTEM, "com.nokia.mce");
        assert_non_null(d);
        assert_null(package_find_name(p, BUS_SESSION, "com.nokia.mce"));
        assert_int_equal(d->own, OWN_SELF);
        assert_true(d->own_explicit);
        assert_int_equal(d->n_owner_labels, 1);
        assert_string_equal(d->owner_labels[0], "mce");
        const Interface *i = find_iface(p, "com.nokia.mce", "/com/nokia/mce/request",
                                        "com.nokia.mce.request");
        assert_int_equal(i->default_require.kind, REQUIREMENT_OPEN);
        assert_int_equal(i->n_members, 5);
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "req_radio_states_change"),
                           REQUIREMENT_TOKEN, "mce::DeviceModeControl");
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "req_tklock_mode_change"),
                           REQUIREMENT_TOKEN, "mce::TKLockControl");
        /* No annotation of its own: the interface's permissive default. */
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "get_version"),
                           REQUIREMENT_OPEN, NULL);
        assert_null(interface_find_member(i, MEMBER_SIGNAL, "get_version"));
        const Member *m = interface_find_member(i, MEMBER_METHOD, "req_led_pattern_activate");
        assert_int_equal(m->loc.line, 23);
        assert_int_equal(m->loc.column, 11);
        assert_int_equal(m->require.loc.line, 24);
        package_free(p);
        diagnostics_free(diag);
}

static void test_dsme_timed_usb_moded(void **state) {
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse("valid", "dsme", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        assert_int_equal(p->requests[0]->policy, REQUEST_POLICY_ADD);
        assert_int_equal(p->requests[0]->n_targets, 2);
        assert_int_equal(p->requests[0]->credentials[3]->kind, CREDENTIAL_UID);
        assert_int_equal(p->requests[0]->credentials[4]->kind, CREDENTIAL_GID);
        const Interface *i = find_iface(p, "com.nokia.dsme", "/com/nokia/dsme/request",
                                        "com.nokia.dsme.request");
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "req_reboot"),
                           REQUIREMENT_TOKEN, "dsme::DeviceStateControl");
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "get_version"),
                           REQUIREMENT_OPEN, NULL);
        package_free(p);
        diagnostics_free(diag);

        /* timed: one interface three times in a node, one path in two requests. */
        assert_int_equal(parse("valid", "timed", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        assert_int_equal(p->n_requests, 2);
        assert_string_equal(p->requests[1]->targets[0]->path, "/usr/bin/timed");
        const DbusName *d = package_find_name(p, BUS_SYSTEM, "com.nokia.time");
        assert_int_equal(d->n_nodes, 1);
        assert_int_equal(d->nodes[0]->n_interfaces, 2);
        i = find_iface(p, "com.nokia.time", "/com/nokia/time", "com.nokia.time");
        assert_int_equal(i->n_members, 4);
        assert_int_equal(i->loc.line, 22);
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "backup"),
                           REQUIREMENT_TOKEN, "timed::TimeBackup");
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "get_wall_clock_info"),
                           REQUIREMENT_OPEN, NULL);
        i = find_iface(p, "com.nokia.time", "/com/nokia/time",
                       "org.freedesktop.DBus.Introspectable");
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "Introspect"),
                           REQUIREMENT_OPEN, NULL);
        package_free(p);
        diagnostics_free(diag);

        /* usb-moded: tabs, Introspectable opened by an interface default. */
        assert_int_equal(parse("valid", "usb-moded", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        i = find_iface(p, "com.meego.usb_moded", "/com/meego/usb_moded",
                       "org.freedesktop.DBus.Introspectable");
        assert_int_equal(i->default_require.kind, REQUIREMENT_OPEN);
        assert_int_equal(i->n_members, 0);
        i = find_iface(p, "com.meego.usb_moded", "/com/meego/usb_moded", "com.meego.usb_moded");
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "set_mode"),
                           REQUIREMENT_TOKEN, "usb-moded::USBControl");
        package_free(p);
        diagnostics_free(diag);
}

static void test_sensorfw_applauncherd_signon(void **state) {
        Diagnostics *diag;
        Package *p;
        /* sensorfw: own absent reads as SELF; another package's token requested. */
        assert_int_equal(parse("valid", "sensorfw", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        const DbusName *d = package_find_name(p, BUS_SYSTEM, "com.nokia.SensorService");
        assert_int_equal(d->own, OWN_SELF);
        assert_false(d->own_explicit);
        assert_null(d->own_token);
        assert_string_equal(p->requests[0]->credentials[1]->provider, "mce");
        package_free(p);
        diagnostics_free(diag);

        /* applauncherd: match, context INSTALL, pkg::/path, id="". */
        assert_int_equal(parse("valid", "applauncherd", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        assert_int_equal(p->n_requests, 3);
        assert_int_equal(p->requests[0]->credentials[4]->kind, CREDENTIAL_MATCH);
        assert_string_equal(p->requests[0]->credentials[4]->name, "CAP::*");
        assert_false(p->requests[0]->context_install);
        assert_true(p->requests[1]->context_install);
        assert_int_equal(p->requests[1]->n_targets, 0);
        const RequestTarget *t = p->requests[2]->targets[0];
        assert_string_equal(t->package, "applauncherd-launcher");
        assert_string_equal(t->path, "/usr/bin/booster-q");
        assert_null(t->id);
        t = p->requests[2]->targets[1];
        assert_null(t->package);
        assert_string_equal(t->id, "");
        package_free(p);
        diagnostics_free(diag);

        /* signon: checkorigin, own-qualified token, session bus, account. */
        assert_int_equal(parse("valid", "signon", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        assert_true(package_find_token(p, "keychain-access")->check_origin);
        assert_string_equal(package_find_token(p, "signond-access")->label, "signon::signond-access");
        assert_null(package_find_name(p, BUS_SYSTEM, "com.nokia.SingleSignOn"));
        d = package_find_name(p, BUS_SESSION, "com.nokia.SingleSignOn");
        assert_non_null(d);
        assert_int_equal(d->bus, BUS_SESSION);
        const Interface *i = node_find_interface(dbus_name_find_node(d, "/com/nokia/SingleSignOn"),
                                                 "com.nokia.SingleSignOn.AuthService");
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "clear"), REQUIREMENT_TOKEN,
                           "signon::keychain-access");
        assert_int_equal(p->n_accounts, 1);
        assert_string_equal(p->accounts[0]->user, "signon");
        assert_string_equal(p->accounts[0]->group, "signon");
        package_free(p);
        diagnostics_free(diag);
}

/* --------------------------------------------------------------------- */
/* Quirks of real files. */

static void test_empty_files(void **state) {
        static const char *const names[] = {
                "empty", "newline", "empty-aegis", "empty-aegis-selfclosing", "no-aegis",
        };
        for (size_t k = 0; k < ELEMENTSOF(names); k++) {
                Diagnostics *diag;
                Package *p;
                assert_int_equal(parse("valid", names[k], &diag, &p), 0);
                assert_int_equal(diag->n_errors + diag->n_warnings, 0);
                assert_int_equal(p->n_requests + p->n_tokens + p->n_names + p->n_accounts, 0);
                package_free(p);
                diagnostics_free(diag);
        }
}

static void test_magic_lines_and_headers(void **state) {
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse("valid", "autogenerate", &diag, &p), 0);
        assert_int_equal(diag->n_errors, 0);
        assert_int_equal(diag->n_warnings, 1);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "autogenerate.xml", 1, 1, "AutoGenerateAegisFile");
        assert_int_equal(p->n_requests, 0);
        package_free(p);
        diagnostics_free(diag);

        assert_int_equal(parse("valid", "autogenerate-commented", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        assert_string_equal(p->requests[0]->credentials[0]->name, "Location");
        package_free(p);
        diagnostics_free(diag);

        assert_int_equal(parse("valid", "checksum", &diag, &p), 0);
        assert_int_equal(diag->n_warnings, 1);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "checksum.xml", 2, 1, "XML declaration");
        assert_string_equal(p->requests[0]->credentials[0]->name, "NetService");
        package_free(p);
        diagnostics_free(diag);

        assert_int_equal(parse("valid", "crlf-tabs", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        assert_string_equal(p->requests[0]->targets[0]->path, "/usr/bin/app");
        assert_int_equal(p->requests[0]->targets[0]->loc.line, 4);
        assert_int_equal(p->requests[0]->targets[0]->loc.column, 4);
        package_free(p);
        diagnostics_free(diag);
}

static void test_misplaced(void **state) {
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse("valid", "misplaced", &diag, &p), 0);
        assert_int_equal(diag->n_errors, 0);
        assert_int_equal(diag->n_warnings, 4);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "misplaced.xml", 2, 3,
                          "<for> directly inside <aegis> is ignored: nothing is granted to /usr/bin/orphan");
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "misplaced.xml", 8, 5,
                          "<for> directly inside <provide> is ignored");
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "misplaced.xml", 10, 7,
                          "annotation directly on <dbus> is ignored");
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "misplaced.xml", 12, 9,
                          "interface org.example.Empty at / declares no member");
        /* The misplaced <for>s granted nothing: only the real request's target. */
        assert_int_equal(p->n_requests, 1);
        assert_int_equal(p->requests[0]->n_targets, 1);
        const Interface *i = find_iface(p, "org.example.Misplaced", "/", "org.example.Empty");
        /* The annotation on <dbus> did not open the empty interface. */
        assert_int_equal(i->default_require.kind, REQUIREMENT_UNSET);
        package_free(p);
        diagnostics_free(diag);
}

static void test_merge(void **state) {
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse("valid", "merge", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        assert_int_equal(p->n_names, 1);
        const DbusName *d = p->names[0];
        assert_int_equal(d->n_nodes, 2);
        assert_int_equal(d->loc.line, 12);
        const Interface *i = find_iface(p, "org.example.Merge", "/org/example/Merge",
                                        "org.example.Merge");
        assert_int_equal(i->n_members, 3);
        /* "Control" and "merge::Control" are the same token: no conflict. */
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "A"), REQUIREMENT_TOKEN,
                           "merge::Control");
        /* B has no annotation; the default of a later block covers it. */
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "B"), REQUIREMENT_OPEN, NULL);
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "C"), REQUIREMENT_TOKEN,
                           "merge::Control");
        package_free(p);
        diagnostics_free(diag);
}

static void test_credentials(void **state) {
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse("valid", "credentials", &diag, &p), 0);
        assert_int_equal(diag->n_errors, 0);
        assert_int_equal(diag->n_warnings, 1);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "credentials.xml", 7, 5, "CAP::net_admin");
        const Request *r = p->requests[0];
        assert_int_equal(r->policy, REQUEST_POLICY_ADD | REQUEST_POLICY_SET |
                         REQUEST_POLICY_NOT_INHERITABLE | REQUEST_POLICY_TRUST_ZONE |
                         REQUEST_POLICY_SETXID);
        static const struct {
                CredentialKind kind;
                const char *name;
                const char *provider;
        } expected[] = {
                { CREDENTIAL_UID, "UID::root", NULL },
                { CREDENTIAL_GID, "GID::video", NULL },
                { CREDENTIAL_GRP, "GRP::pulse-access", NULL },
                { CREDENTIAL_CAP, "CAP::net_raw", NULL },
                { CREDENTIAL_CAP, "CAP::net_admin", NULL },
                { CREDENTIAL_MATCH, "Tracker*", NULL },
                { CREDENTIAL_TOKEN, "Cellular", NULL },
                { CREDENTIAL_TOKEN, "mce::DeviceModeControl", "mce" },
                { CREDENTIAL_TOKEN, "credentials::Own", "credentials" },
        };
        assert_int_equal(r->n_credentials, ELEMENTSOF(expected));
        for (size_t k = 0; k < ELEMENTSOF(expected); k++) {
                assert_int_equal(r->credentials[k]->kind, expected[k].kind);
                assert_string_equal(r->credentials[k]->name, expected[k].name);
                if (expected[k].provider)
                        assert_string_equal(r->credentials[k]->provider, expected[k].provider);
                else
                        assert_null(r->credentials[k]->provider);
        }
        assert_string_equal(r->credentials[4]->written, "CAP::CAP_NET_ADMIN");
        assert_int_equal(r->n_targets, 4);
        assert_string_equal(r->targets[1]->package, "sysuid");
        assert_string_equal(r->targets[1]->path, "/usr/bin/sysuid");
        assert_string_equal(r->targets[2]->id, "");
        assert_null(r->targets[3]->path);
        assert_string_equal(r->targets[3]->id, "com.example.creds");
        assert_true(p->requests[1]->context_install);
        package_free(p);
        diagnostics_free(diag);
}

static void test_own(void **state) {
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse("valid", "own", &diag, &p), 0);
        assert_int_equal(diag->n_errors, 0);
        assert_int_equal(diag->n_warnings, 1);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "own.xml", 9, 5, "read as bus=\"system\"");
        const DbusName *d = package_find_name(p, BUS_SYSTEM, "org.example.Self");
        assert_int_equal(d->own, OWN_SELF);
        assert_int_equal(d->n_nodes, 0);
        d = package_find_name(p, BUS_SYSTEM, "org.example.Token");
        assert_int_equal(d->own, OWN_TOKEN);
        assert_string_equal(d->own_token, "own::OwnToken");
        d = package_find_name(p, BUS_SYSTEM, "org.example.Other");
        assert_string_equal(d->own_token, "mce::DeviceModeControl");
        d = package_find_name(p, BUS_SYSTEM, "org.example.Absent");
        assert_int_equal(d->own, OWN_SELF);
        assert_false(d->own_explicit);
        assert_non_null(package_find_name(p, BUS_SESSION, "org.example.Session"));
        assert_non_null(package_find_name(p, BUS_SYSTEM, "org.example.NoBus"));
        package_free(p);
        diagnostics_free(diag);
}

static void test_documented_elements(void **state) {
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse("valid", "documented", &diag, &p), 0);
        assert_int_equal(diag->n_errors, 0);
        assert_int_equal(diag->n_warnings, 2);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "documented.xml", 9, 3, "<constraint> is not enforced");
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "documented.xml", 10, 3, "<domain> is not enforced");
        assert_int_equal(p->n_accounts, 2);
        assert_null(p->accounts[1]->group);
        assert_int_equal(p->requests[0]->n_credentials, 1);
        package_free(p);
        diagnostics_free(diag);
}

static void test_extensions(void **state) {
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse("valid", "extensions", &diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        const DbusName *d = package_find_name(p, BUS_SYSTEM, "org.example.Ext");
        assert_int_equal(d->n_owner_labels, 3);
        assert_string_equal(d->owner_labels[0], "extensions");
        assert_string_equal(d->owner_labels[1], "org.example.ext-helper");
        assert_string_equal(d->owner_labels[2], "System");
        const Interface *i = find_iface(p, "org.example.Ext", "/org/example/Ext", "org.example.Ext");
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "Ping"), REQUIREMENT_OPEN, NULL);
        assert_requirement(interface_find_member(i, MEMBER_SIGNAL, "StateChanged"),
                           REQUIREMENT_TOKEN, "extensions::ReadState");
        assert_requirement(interface_find_member(i, MEMBER_SIGNAL, "Heartbeat"), REQUIREMENT_OPEN, NULL);
        const Member *m = interface_find_member(i, MEMBER_PROPERTY, "State");
        assert_requirement(m, REQUIREMENT_TOKEN, "extensions::ReadState");
        assert_int_equal(m->write.kind, REQUIREMENT_TOKEN);
        assert_string_equal(m->write.token, "extensions::WriteState");
        assert_int_equal(m->access, PROPERTY_ACCESS_READWRITE);
        /* Without a write annotation, writing needs what reading needs. */
        m = interface_find_member(i, MEMBER_PROPERTY, "Level");
        assert_int_equal(m->access, PROPERTY_ACCESS_READ);
        assert_string_equal(m->write.token, "extensions::ReadState");
        m = interface_find_member(i, MEMBER_PROPERTY, "Public");
        assert_int_equal(m->write.kind, REQUIREMENT_OPEN);

        i = find_iface(p, "org.example.Ext", "/org/example/Ext", "org.example.Ext.Secret");
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "Get"), REQUIREMENT_TOKEN,
                           "extensions::ReadState");
        assert_requirement(interface_find_member(i, MEMBER_SIGNAL, "Leak"), REQUIREMENT_TOKEN,
                           "extensions::ReadState");
        m = interface_find_member(i, MEMBER_PROPERTY, "Key");
        assert_requirement(m, REQUIREMENT_TOKEN, "extensions::ReadState");
        assert_string_equal(m->write.token, "extensions::WriteState");
        package_free(p);
        diagnostics_free(diag);
}

/* --------------------------------------------------------------------- */
/* Refused manifests: the first error, exactly where, saying what. */

static const struct {
        const char *name;
        unsigned line, column;
        const char *message;
} invalid[] = {
        { "missing-end-request", 5, 3, "<provide> cannot be inside <request>: is </request> missing (<request> opened at line 2 column 3)?" },
        { "unclosed", 5, 1, "broken XML: the file ends inside <aegis> opened at line 1 column 1: close it with </aegis>" },
        { "junk-after", 2, 1, "a manifest has one <aegis> root element" },
        { "unknown-in-provide", 4, 5, "unknown element <service> inside <provide>: expected <credential>, <dbus> (what the policy does not understand could leave a service open)" },
        { "unknown-in-interface", 6, 11, "unknown element <methods> inside <interface>: expected <method>, <signal>, <property>, <annotation>" },
        { "child-of-leaf", 4, 7, "<for> cannot be inside <credential>: is </credential> missing (<credential> opened at line 3 column 5)?" },
        { "unknown-attribute", 3, 5, "unknown attribute 'nmae' on <credential>: it takes name, match" },
        { "bad-bus-name", 3, 5, "'org..example' is not a valid well-known bus name" },
        { "bad-path", 4, 7, "'/org/example/' is not a valid object path" },
        { "bad-interface", 5, 9, "'example' is not a valid interface name" },
        { "bad-member", 6, 11, "'9lives' is not a valid method name" },
        { "bad-label", 3, 5, "credential 'Cell/ular' is not a valid token name" },
        { "member-conflict", 14, 13, "method Set is declared with token \"member-conflict::B\" here but \"member-conflict::A\" at line 9" },
        { "root", 1, 1, "the root element must be <aegis>, not <manifest>" },
        { "doctype", 2, 0, "a DOCTYPE is not allowed in a manifest" },
        { "name-and-match", 3, 5, "needs exactly one of name" },
        { "provide-foreign", 3, 5, "a package provides only its own tokens: write name=\"DeviceModeControl\"" },
        { "annotation-list", 7, 13, "names more than one token" },
        { "annotation-posix", 6, 11, "annotation value 'UID::root' is a POSIX credential" },
        { "own-empty", 3, 5, "own=\"\": write own=\"SELF\"" },
        { "own-conflict", 5, 5, "org.example.Foo is declared again with own=\"own-conflict::T\" but has own=\"SELF\" at line 4" },
        { "bad-bus", 3, 5, "bus='user': write bus=\"system\" or bus=\"session\"" },
        { "bad-policy-flag", 2, 3, "unknown request policy flag 'sudo'" },
        { "bad-context", 2, 3, "unknown request context 'RUNTIME'" },
        { "relative-for", 4, 5, "for path 'bin/app' is not an absolute path" },
        { "dotdot-for", 4, 5, "for path '/usr/bin/../sbin/victimd' is not a normal path" },
        { "bad-owner", 4, 7, "owner label 'bad label' is not a valid Smack label" },
        { "missing-value", 6, 11, "needs a value: a token (value=\"Token\") or none (value=\"\")" },
        { "bad-access", 6, 11, "access='rw'" },
        { "bad-checkorigin", 3, 5, "checkorigin='maybe'" },
};

static void test_invalid_fixtures(void **state) {
        for (size_t k = 0; k < ELEMENTSOF(invalid); k++) {
                Diagnostics *diag;
                Package *p;
                char file[256];
                print_message("%s\n", invalid[k].name);
                assert_int_equal(parse("invalid", invalid[k].name, &diag, &p), MANIFEST_E_INVALID);
                assert_null(p);
                assert_true(diag->n_errors >= 1);
                snprintf(file, sizeof(file), "/%s.xml", invalid[k].name);
                assert_diagnostic(diag, DIAGNOSTIC_ERROR, file, invalid[k].line, invalid[k].column,
                                  invalid[k].message);
                /* The first error is the one expected. */
                const Diagnostic *first = NULL;
                for (size_t i = 0; i < diag->n_items && !first; i++)
                        if (diag->items[i]->severity == DIAGNOSTIC_ERROR)
                                first = diag->items[i];
                assert_non_null(strstr(first->message, invalid[k].message));
                diagnostics_free(diag);
        }
}

static void test_format(void **state) {
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse("invalid", "bad-member", &diag, &p), MANIFEST_E_INVALID);
        char *s = NULL;
        assert_int_equal(diagnostic_format(diag->items[0], &s), 0);
        assert_true(ends_with(s, "/bad-member.xml:6:11: error: '9lives' is not a valid method "
                              "name: one element of [A-Za-z0-9_], not starting with a digit"));
        free(s);
        diagnostics_free(diag);
}

/* --------------------------------------------------------------------- */
/* Buffers: labels, bounds, hostile input. */

static int parse_string(const char *xml, const char *name, Diagnostics **ret_diag, Package **ret) {
        assert_int_equal(diagnostics_new(ret_diag), 0);
        *ret = NULL;
        return manifest_parse_buffer(xml, strlen(xml), "buf.xml", name, NULL, *ret_diag, ret);
}

/*
 * A bare name means the package's own token wherever the file declares it,
 * also after its first use: the parser then parses again knowing every
 * provided name, and reports each problem once.
 */
static void test_own_token_used_before_declared(void **state) {
        static const char xml[] =
                "<aegis>\n"
                "  <request>\n"
                "    <credential name=\"Radio\"/>\n"
                "    <credential name=\"Cellular\"/>\n"
                "    <credential name=\"CAP::NET_ADMIN\"/>\n"
                "  </request>\n"
                "  <provide>\n"
                "    <dbus name=\"org.example.Radio\" own=\"Radio\" bus=\"system\">\n"
                "      <node name=\"/\"><interface name=\"org.example.Radio\">\n"
                "        <method name=\"Tune\"><annotation name=\"com.maemo.Aegis\" value=\"Radio\"/></method>\n"
                "      </interface></node>\n"
                "    </dbus>\n"
                "    <credential name=\"Radio\"/>\n"
                "  </provide>\n"
                "</aegis>\n";
        Diagnostics *diag;
        Package *p;

        assert_int_equal(parse_string(xml, "radio", &diag, &p), 0);
        assert_string_equal(p->requests[0]->credentials[0]->name, "radio::Radio");
        assert_string_equal(p->requests[0]->credentials[0]->provider, "radio");
        assert_string_equal(p->requests[0]->credentials[1]->name, "Cellular");
        assert_string_equal(p->names[0]->own_token, "radio::Radio");
        const Interface *i = find_iface(p, "org.example.Radio", "/", "org.example.Radio");
        assert_requirement(interface_find_member(i, MEMBER_METHOD, "Tune"), REQUIREMENT_TOKEN,
                           "radio::Radio");
        assert_int_equal(p->n_tokens, 1);
        /* The CAP:: spelling warning, once (not once per pass). */
        assert_int_equal(diag->n_warnings, 1);
        assert_int_equal(diag->n_items, 1);
        assert_non_null(diagnostics_find(diag, "CAP_"));
        package_free(p);
        diagnostics_free(diag);
}

static void test_package_labels(void **state) {
        static const char *const bad[] = { "_", "*", "^", "@", "-x", "a b", "a/b", "a::b", "", "q\"" };
        for (size_t k = 0; k < ELEMENTSOF(bad); k++) {
                Diagnostics *diag;
                Package *p;
                assert_int_equal(parse_string("<aegis/>", bad[k], &diag, &p), MANIFEST_E_INVALID);
                assert_non_null(diagnostics_find(diag, "is not a valid package label"));
                diagnostics_free(diag);
        }
        char longname[300];
        memset(longname, 'a', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        assert_false(manifest_valid_package_label(longname));
        longname[255] = '\0';
        assert_true(manifest_valid_package_label(longname));
        assert_true(manifest_valid_package_label("_x"));
        assert_true(manifest_valid_label("_"));
        assert_true(manifest_valid_label("mce::DeviceModeControl"));
        assert_false(manifest_valid_label("back\\slash"));
        assert_false(manifest_valid_label("tab\there"));
        assert_false(manifest_valid_label(NULL));

        /* A token label too long once the package name is added. */
        char xml[600];
        snprintf(xml, sizeof(xml), "<aegis><provide><credential name=\"%.252s\"/></provide></aegis>",
                 longname);
        Diagnostics *diag;
        Package *p;
        assert_int_equal(parse_string(xml, "pkg", &diag, &p), MANIFEST_E_INVALID);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "buf.xml", 1, 17, "is not a valid token name");
        diagnostics_free(diag);
}

static void test_names_from_paths(void **state) {
        static const struct {
                const char *path, *name;
        } cases[] = {
                { "debian/mce.aegis", "mce" },
                { "/var/lib/mssf/manifests/usb-moded.xml", "usb-moded" },
                { "debian/timed.aegis.xml", "timed" },
                { "plain", "plain" },
        };
        for (size_t k = 0; k < ELEMENTSOF(cases); k++) {
                char *name = NULL;
                assert_int_equal(manifest_package_name_from_path(cases[k].path, &name), 0);
                assert_string_equal(name, cases[k].name);
                free(name);
        }
        char *name = NULL;
        assert_int_equal(manifest_package_name_from_path("dir/.aegis", &name), MANIFEST_E_INVALID);
        assert_int_equal(manifest_package_name_from_path("dir/_.xml", &name), MANIFEST_E_INVALID);
        assert_null(name);
}

static void test_bounds(void **state) {
        Diagnostics *diag;
        Package *p;
        /* Too deep. */
        char deep[2048] = "<aegis>";
        for (int k = 0; k < 20; k++)
                strcat(deep, "<docstring>");
        assert_int_equal(parse_string(deep, "pkg", &diag, &p), MANIFEST_E_INVALID);
        assert_non_null(diagnostics_find(diag, "nested deeper than 16"));
        diagnostics_free(diag);

        /* Too many elements. */
        size_t n = MANIFEST_MAX_ITEMS + 10;
        char *many = malloc(n * 12 + 32);
        assert_non_null(many);
        strcpy(many, "<aegis>");
        char *s = many + strlen(many);
        for (size_t k = 0; k < n; k++)
                s = stpcpy(s, "<docstring/>");
        strcpy(s, "</aegis>");
        assert_int_equal(parse_string(many, "pkg", &diag, &p), MANIFEST_E_INVALID);
        assert_non_null(diagnostics_find(diag, "more than 20000 elements"));
        diagnostics_free(diag);
        free(many);

        /* Too large. */
        size_t big = MANIFEST_MAX_FILE_SIZE + 1;
        char *huge = malloc(big);
        assert_non_null(huge);
        memset(huge, ' ', big);
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_parse_buffer(huge, big, "big.xml", "pkg", NULL, diag, &p),
                         MANIFEST_E_INVALID);
        assert_non_null(diagnostics_find(diag, "file too large"));
        diagnostics_free(diag);
        free(huge);

        /* A NUL byte is broken XML, not the end of the file. */
        static const char nul[] = "<aegis>\0<request/></aegis>";
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_parse_buffer(nul, sizeof(nul) - 1, "nul.xml", "pkg", NULL, diag, &p),
                         MANIFEST_E_INVALID);
        assert_non_null(diagnostics_find(diag, "broken XML"));
        diagnostics_free(diag);
}

static void test_misc_errors_and_warnings(void **state) {
        Diagnostics *diag;
        Package *p;
        /* A method nothing covers: accepted, but the warning says it is denied. */
        assert_int_equal(parse_string("<aegis><provide><dbus name=\"a.b\" own=\"SELF\" bus=\"system\">\n"
                                      "<node name=\"/\"><interface name=\"a.b\">\n"
                                      "  <method name=\"M\"/></interface></node></dbus></provide></aegis>",
                                      "pkg", &diag, &p), 0);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "buf.xml", 3, 3,
                          "method a.b.M at / has no com.maemo.Aegis annotation and its interface "
                          "no default: calls to it are denied");
        assert_int_equal(p->names[0]->nodes[0]->interfaces[0]->members[0]->require.kind,
                         REQUIREMENT_UNSET);
        package_free(p);
        diagnostics_free(diag);

        /* Other annotations and stray text are ignored with a warning. */
        assert_int_equal(parse_string("<aegis>text<provide><dbus name=\"a.b\" bus=\"system\" own=\"SELF\">"
                                      "<node name=\"/\"><interface name=\"a.b\">"
                                      "<annotation name=\"org.freedesktop.DBus.Deprecated\" value=\"true\"/>"
                                      "<method name=\"M\"><annotation name=\"com.maemo.Aegis.Write\" value=\"X\"/>"
                                      "<annotation name=\"com.maemo.Aegis\" value=\"\"/></method>"
                                      "</interface></node></dbus></provide></aegis>",
                                      "pkg", &diag, &p), 0);
        assert_non_null(diagnostics_find(diag, "text inside an element is ignored"));
        assert_non_null(diagnostics_find(diag, "annotation 'org.freedesktop.DBus.Deprecated' is ignored"));
        assert_non_null(diagnostics_find(diag, "com.maemo.Aegis.Write on method M is ignored"));
        package_free(p);
        diagnostics_free(diag);

        /* An own-qualified token the package does not provide. */
        assert_int_equal(parse_string("<aegis><request><credential name=\"pkg::Missing\"/></request></aegis>",
                                      "pkg", &diag, &p), 0);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "buf.xml", 1, 17,
                          "token pkg::Missing is not provided by this package");
        package_free(p);
        diagnostics_free(diag);

        /* Conflicting interface defaults and property access. */
        assert_int_equal(parse_string("<aegis><provide><dbus name=\"a.b\" bus=\"system\">"
                                      "<node name=\"/\"><interface name=\"a.b\">"
                                      "<annotation name=\"com.maemo.Aegis\" value=\"\"/></interface>"
                                      "<interface name=\"a.b\"><annotation name=\"com.maemo.Aegis\" value=\"T\"/>"
                                      "<property name=\"P\" access=\"read\"/></interface>"
                                      "<interface name=\"a.b\"><property name=\"P\" access=\"write\"/>"
                                      "</interface></node></dbus></provide></aegis>",
                                      "pkg", &diag, &p), MANIFEST_E_INVALID);
        assert_non_null(diagnostics_find(diag, "the default of interface a.b is declared with token \"T\""));
        assert_non_null(diagnostics_find(diag, "property P is declared again with access=\"write\""));
        assert_int_equal(diag->n_errors, 2);
        diagnostics_free(diag);

        /* Unknown attribute on an element that takes none; an unknown element under aegis. */
        /* An element that is nobody's child anywhere. */
        assert_int_equal(parse_string("<aegis><request><credential name=\"a\"><x/></credential></request></aegis>",
                                      "pkg", &diag, &p), MANIFEST_E_INVALID);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "buf.xml", 1, 38,
                          "unknown element <x> inside <credential>: <credential> has no children");
        diagnostics_free(diag);

        assert_int_equal(parse_string("<aegis><provide x=\"1\"/><services/></aegis>", "pkg", &diag, &p),
                         MANIFEST_E_INVALID);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "buf.xml", 1, 8, "unknown attribute 'x' on <provide>: it takes none");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "buf.xml", 1, 24, "unknown element <services> inside <aegis>: expected <request>, <provide>, <account>");
        diagnostics_free(diag);

        /* The driver's name is nobody's. */
        assert_int_equal(parse_string("<aegis><provide>\n  <dbus name=\"org.freedesktop.DBus\" bus=\"system\"/>"
                                      "</provide></aegis>", "pkg", &diag, &p), MANIFEST_E_INVALID);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "buf.xml", 2, 3,
                          "org.freedesktop.DBus is the bus itself: no package can declare it");
        diagnostics_free(diag);

        /* Entities are refused before they can expand. */
        assert_int_equal(parse_string("<!DOCTYPE aegis [<!ENTITY a \"x\">]><aegis>&a;</aegis>",
                                      "pkg", &diag, &p), MANIFEST_E_INVALID);
        assert_non_null(diagnostics_find(diag, "DOCTYPE is not allowed"));
        diagnostics_free(diag);

        /* A missing file is an errno, not a diagnostic. */
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_parse_file("/nonexistent/x.xml", "x", NULL, diag, &p), -ENOENT);
        diagnostics_free(diag);
}

static void test_validators(void **state) {
        assert_true(manifest_valid_bus_name("com.nokia.mce"));
        assert_true(manifest_valid_bus_name("com.meego.usb_moded"));
        assert_true(manifest_valid_bus_name("org.example.foo-bar"));
        assert_false(manifest_valid_bus_name("com"));
        assert_false(manifest_valid_bus_name(":1.42"));
        assert_false(manifest_valid_bus_name("com.9nokia"));
        assert_false(manifest_valid_bus_name("com.nokia."));
        assert_false(manifest_valid_bus_name(""));
        assert_true(manifest_valid_interface_name("com.nokia.mce.request"));
        assert_false(manifest_valid_interface_name("org.example.foo-bar"));
        assert_true(manifest_valid_member_name("req_reboot"));
        assert_false(manifest_valid_member_name("a.b"));
        assert_false(manifest_valid_member_name(""));
        assert_true(manifest_valid_object_path("/"));
        assert_true(manifest_valid_object_path("/com/nokia/mce/request"));
        assert_false(manifest_valid_object_path("//"));
        assert_false(manifest_valid_object_path("/a//b"));
        assert_false(manifest_valid_object_path("a/b"));
        assert_false(manifest_valid_object_path("/a-b"));
        char name[300];
        memset(name, 'a', sizeof(name));
        name[0] = 'x';
        name[1] = '.';
        name[256] = '\0';
        assert_false(manifest_valid_bus_name(name));
        name[255] = '\0';
        assert_true(manifest_valid_bus_name(name));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mce),
                cmocka_unit_test(test_own_token_used_before_declared),
                cmocka_unit_test(test_dsme_timed_usb_moded),
                cmocka_unit_test(test_sensorfw_applauncherd_signon),
                cmocka_unit_test(test_empty_files),
                cmocka_unit_test(test_magic_lines_and_headers),
                cmocka_unit_test(test_misplaced),
                cmocka_unit_test(test_merge),
                cmocka_unit_test(test_credentials),
                cmocka_unit_test(test_own),
                cmocka_unit_test(test_documented_elements),
                cmocka_unit_test(test_extensions),
                cmocka_unit_test(test_invalid_fixtures),
                cmocka_unit_test(test_format),
                cmocka_unit_test(test_package_labels),
                cmocka_unit_test(test_names_from_paths),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_misc_errors_and_warnings),
                cmocka_unit_test(test_validators),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
