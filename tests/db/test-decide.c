/*
 * Every rule of the token decision, both ways, as a table over the basic
 * fixture (db-fixture.c) with a mocked oracle; then ownership, per-property
 * checks, oracle failures and bad arguments.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "db-fixture.h"
#include "decide.h"

#define MCE_PATH "/com/nokia/mce/request"
#define MCE_IFACE "com.nokia.mce.request"
#define PROPS "org.freedesktop.DBus.Properties"

#define NAMES(...) ((const char *const[]) { __VA_ARGS__, NULL })
#define GRANTS(...) ((const char *const[]) { __VA_ARGS__, NULL })
#define NO_GRANTS ((const char *const[]) { NULL })

typedef struct Case {
        const char *what;
        const char *const *names;       /* NULL-terminated */
        const char *label;
        const char *const *grants;
        PolicyMessage message;
        int outcome;
        const char *token;              /* the missing token, on MISSING_TOKEN */
        const char *name;               /* the deciding name, on a denial */
} Case;

#define CALL(p, i, m) { .type = POLICY_MESSAGE_METHOD_CALL, .path = p, .interface = i, .member = m }
#define SIGNAL(p, i, m) { .type = POLICY_MESSAGE_SIGNAL, .path = p, .interface = i, .member = m }
#define PROP(m, pi, pn) { .type = POLICY_MESSAGE_METHOD_CALL, .path = "/ril_0", .interface = PROPS, \
                          .member = m, .property_interface = pi, .property = pn }

static const Case cases[] = {
        /* A member's own token. */
        { "token held", NAMES("com.nokia.mce"), "app", GRANTS("app mce::DeviceModeControl"),
          CALL(MCE_PATH, MCE_IFACE, "req_radio_states_change"), 0, NULL, NULL },
        { "token missing", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          CALL(MCE_PATH, MCE_IFACE, "req_radio_states_change"), POLICY_DECIDE_E_MISSING_TOKEN,
          "mce::DeviceModeControl", "com.nokia.mce" },
        { "another label's token does not count", NAMES("com.nokia.mce"), "app",
          GRANTS("other mce::DeviceModeControl"),
          CALL(MCE_PATH, MCE_IFACE, "req_radio_states_change"), POLICY_DECIDE_E_MISSING_TOKEN,
          "mce::DeviceModeControl", "com.nokia.mce" },
        /* Two tokens for one member: both needed. */
        { "both tokens", NAMES("org.ofono"), "app", GRANTS("app Cellular", "app Telephony"),
          CALL("/ril_0", "org.ofono.Modem", "Dial"), 0, NULL, NULL },
        { "one of two tokens", NAMES("org.ofono"), "app", GRANTS("app Cellular"),
          CALL("/ril_0", "org.ofono.Modem", "Dial"), POLICY_DECIDE_E_MISSING_TOKEN, "Telephony",
          "org.ofono" },
        /* Open members, defaults, undeclared methods. */
        { "explicitly open member", NAMES("org.ofono"), "app", NO_GRANTS,
          CALL("/ril_0", "org.ofono.Modem", "GetProperties"), 0, NULL, NULL },
        { "interface default open", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          CALL(MCE_PATH, MCE_IFACE, "get_tklock_mode"), 0, NULL, NULL },
        { "Introspect opened explicitly", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          CALL(MCE_PATH, "org.freedesktop.DBus.Introspectable", "Introspect"), 0, NULL, NULL },
        { "method not declared", NAMES("org.ofono"), "app", GRANTS("app Cellular"),
          CALL("/ril_0", "org.ofono.Modem", "Hangup"), POLICY_DECIDE_E_NOT_DECLARED, NULL,
          "org.ofono" },
        { "interface not declared", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          CALL(MCE_PATH, "org.freedesktop.DBus.Introspectable2", "Introspect"),
          POLICY_DECIDE_E_NOT_DECLARED, NULL, "com.nokia.mce" },
        { "path not declared", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          CALL("/com/nokia/mce", MCE_IFACE, "get_tklock_mode"), POLICY_DECIDE_E_NOT_DECLARED,
          NULL, "com.nokia.mce" },
        { "declared name without rules", NAMES("com.example.Multi"), "app", NO_GRANTS,
          CALL("/", "com.example.Multi", "Do"), POLICY_DECIDE_E_NOT_DECLARED, NULL,
          "com.example.Multi" },
        { "Introspectable not open by itself", NAMES("org.ofono"), "app", NO_GRANTS,
          CALL("/ril_0", "org.freedesktop.DBus.Introspectable", "Introspect"),
          POLICY_DECIDE_E_NOT_DECLARED, NULL, "org.ofono" },
        /* Peer's two members stay open; any other member of Peer is undeclared. */
        { "Peer.Ping", NAMES("com.example.Multi"), "app", NO_GRANTS,
          CALL("/", "org.freedesktop.DBus.Peer", "Ping"), 0, NULL, NULL },
        { "Peer.GetMachineId", NAMES("org.ofono"), "app", NO_GRANTS,
          CALL("/x", "org.freedesktop.DBus.Peer", "GetMachineId"), 0, NULL, NULL },
        { "Ping without interface", NAMES("org.ofono"), "app", NO_GRANTS,
          CALL("/ril_0", NULL, "Ping"), 0, NULL, NULL },
        { "Peer with another member", NAMES("org.ofono"), "app", GRANTS("app Cellular"),
          CALL("/ril_0", "org.freedesktop.DBus.Peer", "GetProperties"),
          POLICY_DECIDE_E_NOT_DECLARED, NULL, "org.ofono" },
        { "Peer.Get", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          CALL(MCE_PATH, "org.freedesktop.DBus.Peer", "Get"), POLICY_DECIDE_E_NOT_DECLARED,
          NULL, "com.nokia.mce" },
        { "Peer.ping (case)", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          CALL(MCE_PATH, "org.freedesktop.DBus.Peer", "ping"), POLICY_DECIDE_E_NOT_DECLARED,
          NULL, "com.nokia.mce" },
        { "Peer with another member, undeclared destination", NAMES("org.example.Free"), "app",
          NO_GRANTS, CALL("/", "org.freedesktop.DBus.Peer", "Anything"), 0, NULL, NULL },
        /* No declared name: not the manifests' business. */
        { "undeclared destination", NAMES("org.example.Free"), "app", NO_GRANTS,
          CALL("/", "org.example.Free", "Anything"), 0, NULL, NULL },
        { "unique name only", NAMES(NULL), "app", NO_GRANTS,
          CALL("/", "org.example.Free", "Anything"), 0, NULL, NULL },
        /* Several names: each covering rule must pass, one must cover. */
        { "covered by one of two names", NAMES("com.example.Multi", "org.ofono"), "app",
          GRANTS("app Cellular"), CALL("/ril_0", "org.ofono.Modem", "SetProperty"), 0, NULL,
          NULL },
        { "undeclared plus declared name", NAMES("org.example.Free", "org.ofono"), "app",
          NO_GRANTS, CALL("/ril_0", "org.ofono.Modem", "SetProperty"),
          POLICY_DECIDE_E_MISSING_TOKEN, "Cellular", "org.ofono" },
        { "covered by neither of two names", NAMES("com.example.Multi", "org.ofono"), "app",
          NO_GRANTS, CALL("/ril_0", "org.ofono.Modem", "Hangup"), POLICY_DECIDE_E_NOT_DECLARED,
          NULL, "com.example.Multi" },
        /* Without interface: every token any member of that name needs. */
        { "no interface, union held", NAMES("org.ofono"), "app", GRANTS("app ofono::Sim"),
          CALL("/ril_0", NULL, "GetProperties"), 0, NULL, NULL },
        { "no interface, union missing", NAMES("org.ofono"), "app", NO_GRANTS,
          CALL("/ril_0", NULL, "GetProperties"), POLICY_DECIDE_E_MISSING_TOKEN, "ofono::Sim",
          "org.ofono" },
        { "with interface, the open one", NAMES("org.ofono"), "app", NO_GRANTS,
          CALL("/ril_0", "org.ofono.Modem", "GetProperties"), 0, NULL, NULL },
        { "no interface, unknown member", NAMES("org.ofono"), "app", NO_GRANTS,
          CALL("/ril_0", NULL, "Hangup"), POLICY_DECIDE_E_NOT_DECLARED, NULL, "org.ofono" },
        { "no interface, only a default could cover it: not declared", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          CALL(MCE_PATH, NULL, "get_tklock_mode"), POLICY_DECIDE_E_NOT_DECLARED, NULL, "com.nokia.mce" },
        { "no interface, member token over default", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          CALL(MCE_PATH, NULL, "req_radio_states_change"), POLICY_DECIDE_E_MISSING_TOKEN,
          "mce::DeviceModeControl", "com.nokia.mce" },
        /* Signals reach only holders, where a rule covers them. */
        { "signal to holder", NAMES("org.ofono"), "listener", GRANTS("listener Cellular"),
          SIGNAL("/ril_0", "org.ofono.Modem", "PropertyChanged"), 0, NULL, NULL },
        { "signal to non-holder", NAMES("org.ofono"), "listener", NO_GRANTS,
          SIGNAL("/ril_0", "org.ofono.Modem", "PropertyChanged"), POLICY_DECIDE_E_MISSING_TOKEN,
          "Cellular", "org.ofono" },
        { "uncovered signal is open", NAMES("org.ofono"), "listener", NO_GRANTS,
          SIGNAL("/ril_0", "org.ofono.Modem", "Other"), 0, NULL, NULL },
        { "signal at another path", NAMES("org.ofono"), "listener", NO_GRANTS,
          SIGNAL("/ril_1", "org.ofono.Modem", "PropertyChanged"), 0, NULL, NULL },
        { "signal token of the mce", NAMES("com.nokia.mce"), "listener", NO_GRANTS,
          SIGNAL("/com/nokia/mce/signal", "com.nokia.mce.signal", "display_status_ind"),
          POLICY_DECIDE_E_MISSING_TOKEN, "mce::DisplayStatus", "com.nokia.mce" },
        /* Properties: judged by the property named. */
        { "Get protected, held", NAMES("org.ofono"), "app", GRANTS("app ofono::Identity"),
          PROP("Get", "org.ofono.Modem", "Serial"), 0, NULL, NULL },
        { "Get protected, missing", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("Get", "org.ofono.Modem", "Serial"), POLICY_DECIDE_E_MISSING_TOKEN,
          "ofono::Identity", "org.ofono" },
        { "Get with empty interface", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("Get", "", "Serial"), POLICY_DECIDE_E_MISSING_TOKEN, "ofono::Identity",
          "org.ofono" },
        { "Get open property", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("Get", "org.ofono.Modem", "Powered"), 0, NULL, NULL },
        { "Set needs the write token", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("Set", "org.ofono.Modem", "Powered"), POLICY_DECIDE_E_MISSING_TOKEN, "Cellular",
          "org.ofono" },
        { "Set with the write token", NAMES("org.ofono"), "app", GRANTS("app Cellular"),
          PROP("Set", "org.ofono.Modem", "Powered"), 0, NULL, NULL },
        /* Properties are judged like methods: what no line covers is not declared. */
        { "Get uncovered property", NAMES("org.ofono"), "app", GRANTS("app Cellular"),
          PROP("Get", "org.ofono.Modem", "Online"), POLICY_DECIDE_E_NOT_DECLARED, NULL,
          "org.ofono" },
        { "Get, interface in another case", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("Get", "org.ofono.modem", "Powered"), POLICY_DECIDE_E_NOT_DECLARED, NULL,
          "org.ofono" },
        { "Get, property in another case", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("Get", "org.ofono.Modem", "powered"), POLICY_DECIDE_E_NOT_DECLARED, NULL,
          "org.ofono" },
        { "Get at another path", NAMES("org.ofono"), "app", NO_GRANTS,
          { .type = POLICY_MESSAGE_METHOD_CALL, .path = "/", .interface = PROPS, .member = "Get",
            .property_interface = "org.ofono.Modem", .property = "Serial" },
          POLICY_DECIDE_E_NOT_DECLARED, NULL, "org.ofono" },
        { "Get at a child path", NAMES("org.ofono"), "app", NO_GRANTS,
          { .type = POLICY_MESSAGE_METHOD_CALL, .path = "/ril_0/x", .interface = PROPS,
            .member = "Get", .property_interface = "org.ofono.Modem", .property = "Powered" },
          POLICY_DECIDE_E_NOT_DECLARED, NULL, "org.ofono" },
        { "Get with empty interface, uncovered", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("Get", "", "Online"), POLICY_DECIDE_E_NOT_DECLARED, NULL, "org.ofono" },
        { "Set of an uncovered property", NAMES("org.ofono"), "app", GRANTS("app Cellular"),
          PROP("Set", "org.ofono.Modem", "Online"), POLICY_DECIDE_E_NOT_DECLARED, NULL,
          "org.ofono" },
        { "Get under an interface default", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          { .type = POLICY_MESSAGE_METHOD_CALL, .path = MCE_PATH, .interface = PROPS,
            .member = "Get", .property_interface = MCE_IFACE, .property = "Anything" },
          POLICY_DECIDE_E_NOT_DECLARED, NULL, "com.nokia.mce" },
        { "GetAll of a declared interface, the reply is filtered", NAMES("org.ofono"), "app",
          NO_GRANTS, PROP("GetAll", "org.ofono.Modem", NULL), 0, NULL, NULL },
        { "GetAll(\"\") where properties are declared", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("GetAll", "", NULL), 0, NULL, NULL },
        { "GetAll of an interface without properties", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("GetAll", "org.ofono.SimManager", NULL), POLICY_DECIDE_E_NOT_DECLARED, NULL,
          "org.ofono" },
        { "GetAll at another path", NAMES("org.ofono"), "app", NO_GRANTS,
          { .type = POLICY_MESSAGE_METHOD_CALL, .path = "/ril_1", .interface = PROPS,
            .member = "GetAll", .property_interface = "org.ofono.Modem" },
          POLICY_DECIDE_E_NOT_DECLARED, NULL, "org.ofono" },
        { "GetAll(\"\") where nothing is declared", NAMES("com.nokia.mce"), "app", NO_GRANTS,
          { .type = POLICY_MESSAGE_METHOD_CALL, .path = MCE_PATH, .interface = PROPS,
            .member = "GetAll", .property_interface = "" },
          POLICY_DECIDE_E_NOT_DECLARED, NULL, "com.nokia.mce" },
        { "GetAll without its argument", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("GetAll", NULL, NULL), POLICY_DECIDE_E_BAD_MESSAGE, NULL, "org.ofono" },
        { "GetAll without argument, undeclared", NAMES("org.example.Free"), "app", NO_GRANTS,
          PROP("GetAll", NULL, NULL), 0, NULL, NULL },
        { "Get without its arguments", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("Get", NULL, NULL), POLICY_DECIDE_E_BAD_MESSAGE, NULL, "org.ofono" },
        { "Get without its property", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("Get", "org.ofono.Modem", NULL), POLICY_DECIDE_E_BAD_MESSAGE, NULL, "org.ofono" },
        { "Get without arguments, undeclared", NAMES("org.example.Free"), "app", NO_GRANTS,
          PROP("Get", NULL, NULL), 0, NULL, NULL },
        { "Properties.Foo is a plain method", NAMES("org.ofono"), "app", NO_GRANTS,
          PROP("Foo", "org.ofono.Modem", "Powered"), POLICY_DECIDE_E_NOT_DECLARED, NULL,
          "org.ofono" },
};

/*
 * org.example.Alone: at /locked a method Ping and a method Get of its own
 * interface, both needing alone::T, and an open property Open.
 */
static const Case member_alone_cases[] = {
        /* A service dispatching by member alone would run its own Ping. */
        { "Peer.Ping where the manifest declares a Ping", NAMES("org.example.Alone"), "app",
          NO_GRANTS, CALL("/locked", "org.freedesktop.DBus.Peer", "Ping"),
          POLICY_DECIDE_E_MISSING_TOKEN, "alone::T", "org.example.Alone" },
        { "Peer.Ping, that Ping's token held", NAMES("org.example.Alone"), "app",
          GRANTS("app alone::T"), CALL("/locked", "org.freedesktop.DBus.Peer", "Ping"), 0, NULL,
          NULL },
        { "Peer.Ping elsewhere under that name", NAMES("org.example.Alone"), "app", NO_GRANTS,
          CALL("/", "org.freedesktop.DBus.Peer", "Ping"), 0, NULL, NULL },
        /* A service dispatching by member alone would run its own Get. */
        { "Get where the manifest declares a method Get", NAMES("org.example.Alone"), "app",
          NO_GRANTS, { .type = POLICY_MESSAGE_METHOD_CALL, .path = "/locked", .interface = PROPS,
                       .member = "Get", .property_interface = "org.example.Alone",
                       .property = "Open" },
          POLICY_DECIDE_E_MISSING_TOKEN, "alone::T", "org.example.Alone" },
        { "Get there with that token", NAMES("org.example.Alone"), "app", GRANTS("app alone::T"),
          { .type = POLICY_MESSAGE_METHOD_CALL, .path = "/locked", .interface = PROPS,
            .member = "Get", .property_interface = "org.example.Alone", .property = "Open" },
          0, NULL, NULL },
};

static PolicyDb *open_member_alone(void) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        PolicyDb *db = NULL;
        uint32_t name;
        size_t size;

        assert_int_equal(policy_builder_new(&b), 0);
        assert_int_equal(policy_builder_add_name(b, "org.example.Alone", &name), 0);
        assert_int_equal(policy_builder_add_rule(b, name, POLICY_KIND_METHOD, "/locked",
                                                 "org.example.Alone", "Ping", "alone::T"), 0);
        assert_int_equal(policy_builder_add_rule(b, name, POLICY_KIND_METHOD, "/locked",
                                                 "org.example.Alone", "Get", "alone::T"), 0);
        assert_int_equal(policy_builder_add_rule(b, name, POLICY_KIND_PROPERTY_READ, "/locked",
                                                 "org.example.Alone", "Open", NULL), 0);
        assert_int_equal(policy_builder_build(b, &data, &size), 0);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        return db;
}

static bool properties_member(const PolicyMessage *m) {
        return m->interface && strcmp(m->interface, PROPS) == 0 &&
               (strcmp(m->member, "Get") == 0 || strcmp(m->member, "Set") == 0 ||
                strcmp(m->member, "GetAll") == 0);
}

static void run_case_in(PolicyDb *db, const Case *c) {
        MockOracle oracle = { .grants = c->grants };
        PolicyDecision d = { .outcome = -1 };
        size_t n_names = 0;
        int r;

        while (c->names[n_names])
                n_names++;
        r = policy_db_decide(db, c->names, n_names, c->label, &c->message, mock_has_token,
                             &oracle, &d);
        if (r != c->outcome)
                fail_msg("%s: got %d (%s), expected %d", c->what, r,
                         policy_decide_outcome_to_string(r), c->outcome);
        assert_int_equal(d.outcome, r);
        assert_string_equal(d.label, c->label);
        if (c->token)
                assert_string_equal(d.token, c->token);
        else
                assert_null(d.token);
        if (c->name)
                assert_string_equal(d.name, c->name);
        else
                assert_null(d.name);
        if (r != POLICY_DECIDE_E_NOT_DECLARED)
                return;
        /* It names what is not declared: the property a Properties call names, else the member. */
        if (properties_member(&c->message) && strcmp(c->message.member, "GetAll") == 0)
                assert_null(d.member);
        else if (properties_member(&c->message))
                assert_string_equal(d.member, c->message.property);
        else
                assert_string_equal(d.member, c->message.member);
        assert_string_equal(d.path, c->message.path);
}

static void test_decision_table(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                run_case_in(db, &cases[i]);
}

/* Peer's and Properties' members also need what a same-named member of the service needs. */
static void test_member_alone(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = open_member_alone();

        for (size_t i = 0; i < ELEMENTSOF(member_alone_cases); i++)
                run_case_in(db, &member_alone_cases[i]);
}

static void test_decision_names_the_property(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        MockOracle oracle = { .grants = NO_GRANTS };
        PolicyMessage m = PROP("Get", "org.ofono.Modem", "Serial");
        const char *names[] = { "org.ofono" };
        PolicyDecision d;

        assert_int_equal(policy_db_decide(db, names, 1, "app", &m, mock_has_token, &oracle, &d),
                         POLICY_DECIDE_E_MISSING_TOKEN);
        assert_int_equal(d.kind, POLICY_KIND_PROPERTY_READ);
        assert_string_equal(d.interface, "org.ofono.Modem");
        assert_string_equal(d.member, "Serial");
        assert_string_equal(d.path, "/ril_0");
}

static void test_oracle_failure_denies(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        MockOracle oracle = { .fail_with = -EIO };
        PolicyMessage m = CALL("/ril_0", "org.ofono.Modem", "SetProperty");
        const char *names[] = { "org.ofono" };
        PolicyDecision d = { .outcome = 12345 };

        assert_int_equal(policy_db_decide(db, names, 1, "app", &m, mock_has_token, &oracle, &d),
                         -EIO);
        assert_int_equal(d.outcome, 12345);     /* untouched on failure */
        assert_int_equal(policy_db_may_own(db, "org.ofono", "app", mock_has_token, &oracle, &d),
                         -EIO);
        /* An open rule asks nothing, so the oracle cannot fail it. */
        m = (PolicyMessage) CALL("/ril_0", "org.ofono.Modem", "GetProperties");
        oracle.calls = 0;
        assert_int_equal(policy_db_decide(db, names, 1, "app", &m, mock_has_token, &oracle, &d),
                         0);
        assert_int_equal(oracle.calls, 0);
}

static void test_may_own(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        MockOracle oracle = { .grants = GRANTS("holder ofono::OwnName", "app Locked") };
        PolicyDecision d;

        assert_int_equal(policy_db_may_own(db, "org.ofono", "ofono", mock_has_token, &oracle,
                                           &d), 0);
        assert_int_equal(policy_db_may_own(db, "org.ofono", "holder", mock_has_token, &oracle,
                                           &d), 0);
        assert_int_equal(policy_db_may_own(db, "org.ofono", "squatter", mock_has_token, &oracle,
                                           &d), POLICY_DECIDE_E_OWN_REFUSED);
        assert_int_equal(d.outcome, POLICY_DECIDE_E_OWN_REFUSED);
        assert_string_equal(d.name, "org.ofono");
        assert_string_equal(d.token, "ofono::OwnName");
        assert_string_equal(d.label, "squatter");
        assert_int_equal(policy_db_may_own(db, "com.nokia.mce", "mce", mock_has_token, &oracle,
                                           &d), 0);
        assert_int_equal(policy_db_may_own(db, "com.nokia.mce", "app", mock_has_token, &oracle,
                                           &d), POLICY_DECIDE_E_OWN_REFUSED);
        assert_null(d.token);
        assert_int_equal(policy_db_may_own(db, "com.example.Multi", "multi-helper",
                                           mock_has_token, &oracle, &d), 0);
        assert_int_equal(policy_db_may_own(db, "com.example.Multi", "multi", mock_has_token,
                                           &oracle, &d), 0);
        assert_int_equal(policy_db_may_own(db, "com.example.Multi", "mult", mock_has_token,
                                           &oracle, &d), POLICY_DECIDE_E_OWN_REFUSED);
        assert_int_equal(policy_db_may_own(db, "org.example.Locked", "app", mock_has_token,
                                           &oracle, &d), 0);
        assert_int_equal(policy_db_may_own(db, "org.example.Locked", "locked", mock_has_token,
                                           &oracle, &d), POLICY_DECIDE_E_OWN_REFUSED);
        /* Undeclared names are busconfig's business only. */
        assert_int_equal(policy_db_may_own(db, "org.example.Free", "anyone", mock_has_token,
                                           &oracle, &d), 0);
}

static void test_check_property(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        MockOracle none = { .grants = NO_GRANTS };
        MockOracle holder = { .grants = GRANTS("app ofono::Identity") };
        const char *names[] = { "org.example.Free", "org.ofono" };
        PolicyRequirement req;
        PolicyDecision d;

        assert_int_equal(policy_db_check_property(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                  "/ril_0", "org.ofono.Modem", "Serial",
                                                  mock_has_token, &none, &d),
                         POLICY_DECIDE_E_MISSING_TOKEN);
        assert_string_equal(d.token, "ofono::Identity");
        assert_int_equal(policy_db_check_property(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                  "/ril_0", "org.ofono.Modem", "Serial",
                                                  mock_has_token, &holder, &d), 0);
        assert_int_equal(policy_db_check_property(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                  "/ril_0", "org.ofono.Modem", "Powered",
                                                  mock_has_token, &none, &d), 0);
        /* Under a declared name, what no rule covers is not shown. */
        assert_int_equal(policy_db_check_property(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                  "/ril_0", "org.ofono.Modem", "Online",
                                                  mock_has_token, &holder, &d),
                         POLICY_DECIDE_E_NOT_DECLARED);
        assert_string_equal(d.name, "org.ofono");
        assert_string_equal(d.member, "Online");
        assert_int_equal(policy_db_check_property(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                  "/ril_0/child", "org.ofono.Modem", "Powered",
                                                  mock_has_token, &holder, &d),
                         POLICY_DECIDE_E_NOT_DECLARED);
        assert_int_equal(policy_db_check_property(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                  "/ril_0", "org.ofono.MODEM", "Powered",
                                                  mock_has_token, &holder, &d),
                         POLICY_DECIDE_E_NOT_DECLARED);
        assert_int_equal(policy_db_check_property(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                  "/ril_0", "", "Powered", mock_has_token, &none,
                                                  &d), 0);
        assert_int_equal(policy_db_check_property(db, names, 1, "app", POLICY_KIND_PROPERTY_READ,
                                                  "/anywhere", "org.x.Y", "Z", mock_has_token,
                                                  &none, &d), 0);
        assert_int_equal(policy_db_check_property(db, names, 2, "app",
                                                  POLICY_KIND_PROPERTY_WRITE, "/ril_0",
                                                  "org.ofono.Modem", "Powered", mock_has_token,
                                                  &none, &d), POLICY_DECIDE_E_MISSING_TOKEN);
        assert_int_equal(policy_db_check_property(db, names, 2, "app", POLICY_KIND_METHOD,
                                                  "/ril_0", "org.ofono.Modem", "Powered",
                                                  mock_has_token, &none, &d), -EINVAL);
        assert_int_equal(policy_db_property_requirement(db, "org.ofono",
                                                        POLICY_KIND_PROPERTY_READ, "/ril_0",
                                                        "org.ofono.Modem", "Serial", &req), 0);
        assert_int_equal(req.n_tokens, 1);
        assert_string_equal(policy_requirement_token(&req, 0), "ofono::Identity");
        assert_int_equal(policy_db_property_requirement(db, "org.ofono",
                                                        POLICY_KIND_PROPERTY_READ, "/ril_0",
                                                        "", "Serial", &req), 0);
        assert_null(req.interface);
        assert_int_equal(policy_db_property_requirement(db, "org.ofono",
                                                        POLICY_KIND_PROPERTY_READ, "/ril_0",
                                                        "org.ofono.Modem", "Online", &req),
                         POLICY_DB_UNCOVERED);
        assert_int_equal(policy_db_property_requirement(db, "org.example.Free",
                                                        POLICY_KIND_PROPERTY_READ, "/ril_0",
                                                        "org.ofono.Modem", "Serial", &req),
                         POLICY_DB_UNDECLARED);
}

/* An interface as a whole: declared at that path, and its default satisfied. */
static void test_check_interface(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        MockOracle none = { .grants = NO_GRANTS };
        const char *names[] = { "org.example.Free", "org.ofono" };
        const char *mce[] = { "com.nokia.mce" };
        PolicyDecision d;

        /* Declared by its members' rules (no default). */
        assert_int_equal(policy_db_check_interface(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                   "/ril_0", "org.ofono.Modem", mock_has_token,
                                                   &none, &d), 0);
        assert_int_equal(policy_db_check_interface(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                   "/ril_0", NULL, mock_has_token, &none, &d), 0);
        assert_int_equal(policy_db_check_interface(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                   "/ril_0", "", mock_has_token, &none, &d), 0);
        /* Methods only, another path, another case: not declared for properties. */
        assert_int_equal(policy_db_check_interface(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                   "/ril_0", "org.ofono.SimManager", mock_has_token,
                                                   &none, &d), POLICY_DECIDE_E_NOT_DECLARED);
        assert_string_equal(d.name, "org.ofono");
        assert_string_equal(d.interface, "org.ofono.SimManager");
        assert_null(d.member);
        assert_int_equal(policy_db_check_interface(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                   "/ril_1", "org.ofono.Modem", mock_has_token,
                                                   &none, &d), POLICY_DECIDE_E_NOT_DECLARED);
        assert_int_equal(policy_db_check_interface(db, names, 2, "app", POLICY_KIND_PROPERTY_READ,
                                                   "/ril_0", "org.ofono.modem", mock_has_token,
                                                   &none, &d), POLICY_DECIDE_E_NOT_DECLARED);
        assert_int_equal(policy_db_check_interface(db, mce, 1, "app", POLICY_KIND_PROPERTY_READ,
                                                   MCE_PATH, NULL, mock_has_token, &none, &d),
                         POLICY_DECIDE_E_NOT_DECLARED);
        /* No declared name: not the manifests' business. */
        assert_int_equal(policy_db_check_interface(db, names, 1, "app", POLICY_KIND_PROPERTY_READ,
                                                   "/", "org.x.Y", mock_has_token, &none, &d), 0);
        assert_int_equal(policy_db_check_interface(db, names, 2, "app", POLICY_KIND_METHOD,
                                                   "/ril_0", "org.ofono.Modem", mock_has_token,
                                                   &none, &d), -EINVAL);
        assert_int_equal(policy_db_lookup_interface(db, "org.ofono", POLICY_KIND_METHOD, "/ril_0",
                                                    "org.ofono.SimManager"), 0);
        assert_int_equal(policy_db_lookup_interface(db, "org.ofono", POLICY_KIND_SIGNAL, "/ril_0",
                                                    "org.ofono.SimManager"), POLICY_DB_UNCOVERED);
        assert_int_equal(policy_db_lookup_interface(db, "org.ofono", POLICY_KIND_SIGNAL, "/ril_0",
                                                    "org.ofono.Modem"), 0);
        assert_int_equal(policy_db_lookup_interface(db, "org.ofono", POLICY_KIND_METHOD, "/ril_0",
                                                    "org.ofono.Modem2"), POLICY_DB_UNCOVERED);
        assert_int_equal(policy_db_lookup_interface(db, "org.ofono", POLICY_KIND_METHOD, "/ril_0",
                                                    "org.ofono.Mode"), POLICY_DB_UNCOVERED);
        assert_int_equal(policy_db_lookup_interface(db, "com.nokia.mce", POLICY_KIND_METHOD,
                                                    MCE_PATH, MCE_IFACE), 0);
        assert_int_equal(policy_db_lookup_interface(db, "org.example.Free", POLICY_KIND_METHOD,
                                                    "/", "a.b"), POLICY_DB_UNDECLARED);
}

/* A protected interface default hides the interface from a label without its token. */
static void test_check_interface_default(void **state) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        MockOracle none = { .grants = NO_GRANTS };
        MockOracle holder = { .grants = GRANTS("app vault::T") };
        const char *names[] = { "org.example.Vault" };
        PolicyDecision d;
        uint32_t name;
        size_t size;

        assert_int_equal(policy_builder_new(&b), 0);
        assert_int_equal(policy_builder_add_name(b, "org.example.Vault", &name), 0);
        assert_int_equal(policy_builder_add_rule(b, name, POLICY_KIND_PROPERTY_READ, "/v",
                                                 "org.example.Vault", NULL, "vault::T"), 0);
        assert_int_equal(policy_builder_add_rule(b, name, POLICY_KIND_PROPERTY_READ, "/v",
                                                 "org.example.Vault", "Open", NULL), 0);
        assert_int_equal(policy_builder_build(b, &data, &size), 0);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        assert_int_equal(policy_db_check_interface(db, names, 1, "app", POLICY_KIND_PROPERTY_READ,
                                                   "/v", "org.example.Vault", mock_has_token, &none,
                                                   &d), POLICY_DECIDE_E_MISSING_TOKEN);
        assert_string_equal(d.token, "vault::T");
        assert_int_equal(policy_db_check_interface(db, names, 1, "app", POLICY_KIND_PROPERTY_READ,
                                                   "/v", "org.example.Vault", mock_has_token,
                                                   &holder, &d), 0);
        /* Its own rule opens Open; any other property needs the default's token. */
        assert_int_equal(policy_db_check_property(db, names, 1, "app", POLICY_KIND_PROPERTY_READ,
                                                  "/v", "org.example.Vault", "Open",
                                                  mock_has_token, &none, &d), 0);
        assert_int_equal(policy_db_check_property(db, names, 1, "app", POLICY_KIND_PROPERTY_READ,
                                                  "/v", "org.example.Vault", "Other",
                                                  mock_has_token, &none, &d),
                         POLICY_DECIDE_E_MISSING_TOKEN);
}

static void test_bad_arguments(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        MockOracle oracle = { .grants = NO_GRANTS };
        PolicyMessage m = CALL("/", "a.b", "c");
        PolicyMessage no_member = CALL("/", "a.b", NULL);
        PolicyMessage bad_type = { .type = (PolicyMessageType) 7, .path = "/", .member = "c" };
        const char *names[] = { "org.ofono", NULL };
        PolicyDecision d;

        assert_int_equal(policy_db_decide(NULL, names, 1, "app", &m, mock_has_token, &oracle,
                                          &d), -EINVAL);
        assert_int_equal(policy_db_decide(db, NULL, 1, "app", &m, mock_has_token, &oracle, &d),
                         -EINVAL);
        assert_int_equal(policy_db_decide(db, names, 2, "app", &m, mock_has_token, &oracle, &d),
                         -EINVAL);
        assert_int_equal(policy_db_decide(db, names, 1, NULL, &m, mock_has_token, &oracle, &d),
                         -EINVAL);
        assert_int_equal(policy_db_decide(db, names, 1, "app", &no_member, mock_has_token,
                                          &oracle, &d), -EINVAL);
        assert_int_equal(policy_db_decide(db, names, 1, "app", &bad_type, mock_has_token,
                                          &oracle, &d), -EINVAL);
        assert_int_equal(policy_db_decide(db, names, 1, "app", &m, NULL, &oracle, &d), -EINVAL);
        assert_int_equal(policy_db_may_own(db, NULL, "app", mock_has_token, &oracle, &d),
                         -EINVAL);
}

static void test_outcome_strings(void **state) {
        assert_non_null(policy_decide_outcome_to_string(0));
        for (int o = POLICY_DECIDE_E_MISSING_TOKEN; o <= POLICY_DECIDE_E_BAD_MESSAGE; o++)
                assert_non_null(policy_decide_outcome_to_string(o));
        assert_null(policy_decide_outcome_to_string(POLICY_DECIDE_E_BAD_MESSAGE + 1));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decision_table),
                cmocka_unit_test(test_member_alone),
                cmocka_unit_test(test_decision_names_the_property),
                cmocka_unit_test(test_oracle_failure_denies),
                cmocka_unit_test(test_may_own),
                cmocka_unit_test(test_check_property),
                cmocka_unit_test(test_check_interface),
                cmocka_unit_test(test_check_interface_default),
                cmocka_unit_test(test_bad_arguments),
                cmocka_unit_test(test_outcome_strings),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
