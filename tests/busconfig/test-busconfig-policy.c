/*
 * Table-driven tests of the <policy> language: each case is a config
 * snippet, a connection identity, a message and its peer, and the verdict
 * dbus-daemon gives (from its documentation and bus/policy.c semantics),
 * with the line of the rule that decides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "busconfig-policy.h"
#include "config.h"

#define CALL 1
#define RETURN 2
#define ERROR 3
#define SIGNAL 4
#define DRIVER ((const char *)1) /* peer is the bus driver */

typedef struct Case {
        const char *name;
        const char *xml;                /* inside <busconfig>, first rule on line 2 */
        uid_t uid;
        gid_t gids[3];
        size_t n_gids;
        bool console;
        BusconfigCheck check;
        uint8_t type;
        bool is_reply;
        const char *path, *iface, *member, *error, *dest, *sender;
        unsigned n_fds;
        const char *peer;               /* unique name, DRIVER, or NULL for :1.9 */
        const char *names[3];           /* well-known names the peer owns or is queued for */
        bool requested, eavesdropping;
        const char *own;
        bool allow;
        unsigned line;                  /* deciding rule's line; 0: no rule matched */
} Case;

static const Case cases[] = {
        { "no rules: denied", "<policy context=\"default\"/>", .check = BUSCONFIG_CHECK_SEND,
          .type = CALL, .iface = "a.B", .member = "M", .dest = "org.foo", .names = { "org.foo" } },
        { "send_destination matches an owned name",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .iface = "a.B", .member = "M", .dest = ":1.9",
          .names = { "org.bar", "org.foo" }, .allow = true, .line = 3 },
        { "send_destination: receiver does not own it",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .iface = "a.B", .member = "M", .dest = "org.bar",
          .names = { "org.bar" } },
        { "send_destination matches the unique name",
          "<policy context=\"default\">\n<allow send_destination=\":1.9\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = ":1.9", .allow = true, .line = 3 },
        { "last match wins",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\"/>\n"
          "<deny send_destination=\"org.foo\" send_interface=\"org.foo.I\" send_member=\"Bad\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .iface = "org.foo.I", .member = "Bad",
          .dest = "org.foo", .names = { "org.foo" }, .line = 4 },
        { "last match wins, other member",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\"/>\n"
          "<deny send_destination=\"org.foo\" send_interface=\"org.foo.I\" send_member=\"Bad\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .iface = "org.foo.I", .member = "Good",
          .dest = "org.foo", .names = { "org.foo" }, .allow = true, .line = 3 },
        { "allow with interface never matches a message without one",
          "<policy context=\"default\">\n<allow send_interface=\"org.foo.I\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = "org.foo", .names = { "org.foo" } },
        { "deny with interface matches a message without one",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\"/>\n"
          "<deny send_destination=\"org.foo\" send_interface=\"org.foo.I\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = "org.foo",
          .names = { "org.foo" }, .line = 4 },
        { "path and member absent from the message still match",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\" send_path=\"/x\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = ERROR, .error = "a.E", .dest = "org.foo",
          .names = { "org.foo" }, .is_reply = true, .requested = true, .allow = true, .line = 3 },
        { "send_path differs",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\" send_path=\"/x\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .path = "/y", .member = "M", .dest = "org.foo",
          .names = { "org.foo" } },
        { "send_type",
          "<policy context=\"default\">\n<allow send_type=\"signal\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = "org.foo", .names = { "org.foo" } },
        { "send_error",
          "<policy context=\"default\">\n<allow send_type=\"error\" send_requested_reply=\"false\"/>\n"
          "<deny send_error=\"a.Bad\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = ERROR, .is_reply = true, .error = "a.Bad", .dest = ":1.9", .line = 4 },
        /* requested_reply: allow defaults to true, deny to false */
        { "allow reply: unrequested denied",
          "<policy context=\"default\">\n<allow send_type=\"method_return\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = RETURN, .is_reply = true, .dest = ":1.9" },
        { "allow reply: requested allowed",
          "<policy context=\"default\">\n<allow send_type=\"method_return\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = RETURN, .is_reply = true, .requested = true, .dest = ":1.9",
          .allow = true, .line = 3 },
        { "allow reply requested_reply=false: unrequested allowed",
          "<policy context=\"default\">\n<allow send_type=\"method_return\" send_requested_reply=\"false\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = RETURN, .is_reply = true, .dest = ":1.9", .allow = true, .line = 3 },
        { "deny reply (default false) spares requested replies",
          "<policy context=\"default\">\n<allow send_type=\"method_return\" send_requested_reply=\"false\"/>\n"
          "<deny send_type=\"method_return\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = RETURN, .is_reply = true, .requested = true, .dest = ":1.9",
          .allow = true, .line = 3 },
        { "deny reply (default false) hits unrequested replies",
          "<policy context=\"default\">\n<allow send_type=\"method_return\" send_requested_reply=\"false\"/>\n"
          "<deny send_type=\"method_return\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = RETURN, .is_reply = true, .dest = ":1.9", .line = 4 },
        { "deny requested_reply=true hits requested replies",
          "<policy context=\"default\">\n<allow send_type=\"method_return\"/>\n"
          "<deny send_type=\"method_return\" send_requested_reply=\"true\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = RETURN, .is_reply = true, .requested = true, .dest = ":1.9", .line = 4 },
        /* send_broadcast */
        { "send_broadcast=true: broadcast",
          "<policy context=\"default\">\n<allow send_type=\"signal\" send_broadcast=\"true\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = SIGNAL, .path = "/a", .iface = "a.B", .member = "S",
          .allow = true, .line = 3 },
        { "send_broadcast=true: unicast signal",
          "<policy context=\"default\">\n<allow send_type=\"signal\" send_broadcast=\"true\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = SIGNAL, .path = "/a", .iface = "a.B", .member = "S",
          .dest = ":1.9" },
        { "send_broadcast=false: unicast signal",
          "<policy context=\"default\">\n<allow send_type=\"signal\" send_broadcast=\"false\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = SIGNAL, .path = "/a", .iface = "a.B", .member = "S",
          .dest = ":1.9", .allow = true, .line = 3 },
        /* fds */
        { "min_fds reached",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\"/>\n"
          "<deny send_destination=\"org.foo\" min_fds=\"2\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = "org.foo", .names = { "org.foo" },
          .n_fds = 3, .line = 4 },
        { "min_fds not reached",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\"/>\n"
          "<deny send_destination=\"org.foo\" min_fds=\"2\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = "org.foo", .names = { "org.foo" },
          .n_fds = 1, .allow = true, .line = 3 },
        { "max_fds exceeded",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\" max_fds=\"1\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = "org.foo", .names = { "org.foo" },
          .n_fds = 2 },
        { "blanket min_fds deny drops the earlier allow (dbus-daemon quirk)",
          "<policy context=\"default\">\n<allow send_destination=\"*\"/>\n<deny min_fds=\"2\" send_destination=\"*\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = ":1.9", .n_fds = 1 },
        /* send_destination_prefix */
        { "prefix: a name below it",
          "<policy context=\"default\">\n<allow send_destination_prefix=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = ":1.9",
          .names = { "org.foo.bar" }, .allow = true, .line = 3 },
        { "prefix: the name itself",
          "<policy context=\"default\">\n<allow send_destination_prefix=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = ":1.9",
          .names = { "org.foo" }, .allow = true, .line = 3 },
        { "prefix: not at a dot",
          "<policy context=\"default\">\n<allow send_destination_prefix=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = ":1.9", .names = { "org.foobar" } },
        /* the bus driver as receiver and sender */
        { "to the driver: destination string",
          "<policy context=\"default\">\n<deny send_type=\"method_call\"/>\n"
          "<allow send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .iface = "org.freedesktop.DBus", .member = "ListNames",
          .dest = "org.freedesktop.DBus", .peer = DRIVER, .allow = true, .line = 4 },
        { "from the driver: sender string",
          "<policy context=\"default\">\n<allow receive_sender=\"org.freedesktop.DBus\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_RECEIVE, .type = SIGNAL, .iface = "org.freedesktop.DBus",
          .member = "NameAcquired", .dest = ":1.3", .sender = "org.freedesktop.DBus", .peer = DRIVER,
          .allow = true, .line = 3 },
        /* receive and eavesdrop */
        { "receive: allow without eavesdrop, eavesdropping",
          "<policy context=\"default\">\n<allow receive_type=\"signal\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_RECEIVE, .type = SIGNAL, .member = "S", .iface = "a.B", .dest = ":1.4",
          .eavesdropping = true },
        { "receive: allow eavesdrop=true, eavesdropping",
          "<policy context=\"default\">\n<allow eavesdrop=\"true\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_RECEIVE, .type = SIGNAL, .member = "S", .iface = "a.B", .dest = ":1.4",
          .eavesdropping = true, .allow = true, .line = 3 },
        { "receive: deny eavesdrop=true only when eavesdropping",
          "<policy context=\"default\">\n<allow receive_type=\"signal\" eavesdrop=\"true\"/>\n"
          "<deny receive_type=\"signal\" eavesdrop=\"true\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_RECEIVE, .type = SIGNAL, .member = "S", .iface = "a.B", .dest = ":1.4",
          .eavesdropping = false, .allow = true, .line = 3 },
        { "receive: deny eavesdrop=true when eavesdropping",
          "<policy context=\"default\">\n<allow receive_type=\"signal\" eavesdrop=\"true\"/>\n"
          "<deny receive_type=\"signal\" eavesdrop=\"true\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_RECEIVE, .type = SIGNAL, .member = "S", .iface = "a.B", .dest = ":1.4",
          .eavesdropping = true, .line = 4 },
        { "receive_sender by well-known name",
          "<policy context=\"default\">\n<allow receive_sender=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_RECEIVE, .type = CALL, .member = "M", .dest = ":1.2",
          .names = { "org.foo" }, .allow = true, .line = 3 },
        { "receive_sender: other sender",
          "<policy context=\"default\">\n<allow receive_sender=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_RECEIVE, .type = CALL, .member = "M", .dest = ":1.2", .names = { "org.bar" } },
        /* own */
        { "own exact", "<policy context=\"default\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .own = "org.foo", .allow = true, .line = 3 },
        { "own exact, other name", "<policy context=\"default\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .own = "org.foo.bar" },
        { "own_prefix below", "<policy context=\"default\">\n<allow own_prefix=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .own = "org.foo.bar", .allow = true, .line = 3 },
        { "own_prefix not at a dot", "<policy context=\"default\">\n<allow own_prefix=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .own = "org.foobar" },
        { "own: deny * then allow one",
          "<policy context=\"default\">\n<deny own=\"*\"/>\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .own = "org.foo", .allow = true, .line = 4 },
        { "own: allow one then deny *",
          "<policy context=\"default\">\n<allow own=\"org.foo\"/>\n<deny own=\"*\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .own = "org.foo", .line = 4 },
        /* contexts and their order */
        { "user context applies to that uid",
          "<policy context=\"default\">\n<deny own=\"*\"/>\n</policy>\n<policy user=\"0\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .uid = 0, .own = "org.foo", .allow = true, .line = 6 },
        { "user context by name (root)",
          "<policy user=\"root\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .uid = 0, .own = "org.foo", .allow = true, .line = 3 },
        { "user context: other uid",
          "<policy user=\"0\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .uid = 1000, .own = "org.foo" },
        { "group context by gid",
          "<policy group=\"100\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .uid = 1000, .gids = { 1000, 100 }, .n_gids = 2, .own = "org.foo",
          .allow = true, .line = 3 },
        { "user beats group beats default, whatever the file order",
          "<policy user=\"1000\">\n<allow own=\"org.foo\"/>\n</policy>\n<policy group=\"100\">\n<deny own=\"org.foo\"/>\n"
          "</policy>\n<policy context=\"default\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .uid = 1000, .gids = { 100 }, .n_gids = 1, .own = "org.foo",
          .allow = true, .line = 3 },
        { "group beats default",
          "<policy group=\"100\">\n<deny own=\"org.foo\"/>\n</policy>\n<policy context=\"default\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .uid = 1000, .gids = { 100 }, .n_gids = 1, .own = "org.foo", .line = 3 },
        { "mandatory beats user",
          "<policy context=\"mandatory\">\n<deny own=\"org.foo\"/>\n</policy>\n<policy user=\"1000\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .uid = 1000, .own = "org.foo", .line = 3 },
        { "at_console=true (ofono.conf's pattern)",
          "<policy at_console=\"true\">\n<allow send_destination=\"org.ofono\"/>\n</policy>\n"
          "<policy context=\"default\">\n<deny send_destination=\"org.ofono\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .uid = 1000, .console = true, .type = CALL, .member = "M",
          .dest = "org.ofono", .names = { "org.ofono" }, .allow = true, .line = 3 },
        { "at_console=true, not at console",
          "<policy at_console=\"true\">\n<allow send_destination=\"org.ofono\"/>\n</policy>\n"
          "<policy context=\"default\">\n<deny send_destination=\"org.ofono\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .uid = 1000, .type = CALL, .member = "M", .dest = "org.ofono",
          .names = { "org.ofono" }, .line = 6 },
        { "at_console=false",
          "<policy at_console=\"false\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .uid = 1000, .own = "org.foo", .allow = true, .line = 3 },
        { "unknown user: context skipped",
          "<policy user=\"no-such-user-mssf\">\n<allow own=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_OWN, .uid = 1000, .own = "org.foo" },
        /* dbus-daemon's blanket-rule drop, which ignores send_broadcast */
        { "blanket rule drops earlier rules of its kind",
          "<policy context=\"default\">\n<allow send_destination=\"org.foo\"/>\n<deny send_broadcast=\"true\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = "org.foo", .names = { "org.foo" } },
        { "blanket rule keeps later rules",
          "<policy context=\"default\">\n<deny send_broadcast=\"true\"/>\n<allow send_destination=\"org.foo\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_SEND, .type = CALL, .member = "M", .dest = "org.foo", .names = { "org.foo" },
          .allow = true, .line = 4 },
        /* connecting */
        { "connect: only the bus's user by default", "<policy context=\"default\"/>",
          .check = BUSCONFIG_CHECK_CONNECT, .uid = 1000 },
        { "connect: the bus's user", "<policy context=\"default\"/>",
          .check = BUSCONFIG_CHECK_CONNECT, .uid = 4242, .allow = true },
        { "connect: allow user=*", "<policy context=\"default\">\n<allow user=\"*\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_CONNECT, .uid = 1000, .allow = true, .line = 3 },
        { "connect: deny one user",
          "<policy context=\"default\">\n<allow user=\"*\"/>\n<deny user=\"1000\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_CONNECT, .uid = 1000, .line = 4 },
        { "connect: allow group",
          "<policy context=\"default\">\n<allow group=\"100\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_CONNECT, .uid = 1000, .gids = { 100 }, .n_gids = 1, .allow = true, .line = 3 },
        { "connect: mandatory after default",
          "<policy context=\"mandatory\">\n<deny user=\"1000\"/>\n</policy>\n<policy context=\"default\">\n<allow user=\"*\"/>\n</policy>",
          .check = BUSCONFIG_CHECK_CONNECT, .uid = 1000, .line = 3 },
};

static void run_case(const Case *c) {
        char xml[4096];
        snprintf(xml, sizeof(xml), "<busconfig>\n%s\n</busconfig>\n", c->xml);
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        ConfigError err = { { 0 } };
        int r = bus_config_load_string("case.conf", xml, strlen(xml), BUS_CONFIG_NO_INCLUDES, &config, &err);
        if (r != 0)
                fail_msg("%s: config: %s", c->name, err.message);
        _cleanup_(busconfig_policy_unrefp) BusconfigPolicy *policy = NULL;
        assert_int_equal(busconfig_policy_new(config, 4242, &policy, NULL), 0);
        BusconfigIdentity id = { c->uid, c->gids, c->n_gids, c->console };
        BusconfigVerdict v;
        if (c->check == BUSCONFIG_CHECK_CONNECT) {
                busconfig_policy_check_connect(policy, &id, &v);
        } else {
                _cleanup_(busconfig_client_unrefp) BusconfigClient *client = NULL;
                assert_int_equal(busconfig_policy_get_client(policy, &id, &client), 0);
                size_t n_names = 0;
                while (n_names < 3 && c->names[n_names])
                        n_names++;
                BusconfigPeer peer = { c->peer && c->peer != DRIVER ? c->peer : ":1.9", c->names, n_names };
                const BusconfigPeer *p = c->peer == DRIVER ? NULL : &peer;
                BusconfigMessage m = { c->type, c->is_reply, c->path, c->iface, c->member, c->error,
                                       c->dest, c->sender ? c->sender : ":1.1", c->n_fds };
                if (c->check == BUSCONFIG_CHECK_SEND)
                        busconfig_client_check_send(client, &m, p, c->requested, &v);
                else if (c->check == BUSCONFIG_CHECK_RECEIVE)
                        busconfig_client_check_receive(client, &m, p, c->eavesdropping, c->requested, &v);
                else
                        busconfig_client_check_own(client, c->own, &v);
        }
        if (v.allow != c->allow)
                fail_msg("%s: expected %s, got %s", c->name, c->allow ? "allow" : "deny",
                         v.allow ? "allow" : "deny");
        unsigned line = v.rule ? v.rule->line : 0;
        if (line != c->line)
                fail_msg("%s: expected deciding rule on line %u, got %u", c->name, c->line, line);
        assert_int_equal(v.check, c->check);
}

static void test_table(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                run_case(&cases[i]);
}

static void test_clients_shared(void **state) {
        const char *xml = "<busconfig><policy group=\"100\"><allow own=\"a.b\"/></policy></busconfig>";
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        assert_int_equal(bus_config_load_string("t.conf", xml, strlen(xml), BUS_CONFIG_NO_INCLUDES, &config, NULL), 0);
        _cleanup_(busconfig_policy_unrefp) BusconfigPolicy *policy = NULL;
        assert_int_equal(busconfig_policy_new(config, 0, &policy, NULL), 0);
        gid_t g1[] = { 5, 100 }, g2[] = { 100, 7 }, g3[] = { 5 };
        BusconfigIdentity a = { 1000, g1, 2, false }, b = { 1000, g2, 2, false }, c = { 1000, g3, 1, false };
        _cleanup_(busconfig_client_unrefp) BusconfigClient *ca = NULL, *cb = NULL, *cc = NULL;
        assert_int_equal(busconfig_policy_get_client(policy, &a, &ca), 0);
        assert_int_equal(busconfig_policy_get_client(policy, &b, &cb), 0);
        assert_int_equal(busconfig_policy_get_client(policy, &c, &cc), 0);
        /* groups without rules do not split clients; the one with rules does */
        assert_ptr_equal(ca, cb);
        assert_ptr_not_equal(ca, cc);
        BusconfigVerdict v;
        busconfig_client_check_own(ca, "a.b", &v);
        assert_true(v.allow);
        busconfig_client_check_own(cc, "a.b", &v);
        assert_false(v.allow);
}

/* Only a policy with at_console rules makes asking for the console state worth it. */
static void test_uses_console(void **state) {
        static const struct {
                const char *xml;
                bool uses;
        } policies[] = {
                { "<busconfig><policy context=\"default\"><allow own=\"a.b\"/></policy></busconfig>", false },
                { "<busconfig><policy at_console=\"true\"><allow own=\"a.b\"/></policy></busconfig>", true },
                { "<busconfig><policy at_console=\"false\"><deny own=\"a.b\"/></policy></busconfig>", true },
                { "<busconfig><policy at_console=\"true\"></policy></busconfig>", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(policies); i++) {
                _cleanup_(bus_config_freep) BusConfig *config = NULL;
                _cleanup_(busconfig_policy_unrefp) BusconfigPolicy *policy = NULL;

                assert_int_equal(bus_config_load_string("t.conf", policies[i].xml, strlen(policies[i].xml),
                                                        BUS_CONFIG_NO_INCLUDES, &config, NULL), 0);
                assert_int_equal(busconfig_policy_new(config, 0, &policy, NULL), 0);
                assert_int_equal(busconfig_policy_uses_console(policy), policies[i].uses);
        }
        assert_false(busconfig_policy_uses_console(NULL));
}

/* Only a connect rule of the default or mandatory context that names a group makes NSS's groups worth asking. */
static void test_connect_uses_groups(void **state) {
        static const struct {
                const char *xml;
                bool uses;
        } policies[] = {
                { "<busconfig><policy context=\"default\"><allow user=\"*\"/></policy></busconfig>", false },
                { "<busconfig><policy context=\"default\"><allow user=\"root\"/></policy></busconfig>", false },
                { "<busconfig><policy context=\"default\"><allow group=\"root\"/></policy></busconfig>", true },
                { "<busconfig><policy context=\"mandatory\"><deny group=\"root\"/></policy></busconfig>", true },
                { "<busconfig><policy group=\"root\"><allow own=\"a.b\"/></policy></busconfig>", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(policies); i++) {
                _cleanup_(bus_config_freep) BusConfig *config = NULL;
                _cleanup_(busconfig_policy_unrefp) BusconfigPolicy *policy = NULL;

                assert_int_equal(bus_config_load_string("t.conf", policies[i].xml, strlen(policies[i].xml),
                                                        BUS_CONFIG_NO_INCLUDES, &config, NULL), 0);
                assert_int_equal(busconfig_policy_new(config, 0, &policy, NULL), 0);
                assert_int_equal(busconfig_policy_connect_uses_groups(policy), policies[i].uses);
        }
        assert_false(busconfig_policy_connect_uses_groups(NULL));
}

static void test_unknown_names_warned(void **state) {
        const char *xml = "<busconfig>\n<policy user=\"no-such-user-mssf\"/>\n<policy context=\"default\">\n"
                          "<allow group=\"no-such-group-mssf\"/>\n</policy>\n</busconfig>";
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        assert_int_equal(bus_config_load_string("w.conf", xml, strlen(xml), BUS_CONFIG_NO_INCLUDES, &config, NULL), 0);
        _cleanup_(busconfig_policy_unrefp) BusconfigPolicy *policy = NULL;
        char **warnings = NULL;
        assert_int_equal(busconfig_policy_new(config, 0, &policy, &warnings), 0);
        assert_non_null(warnings);
        assert_non_null(warnings[0]);
        assert_non_null(warnings[1]);
        assert_null(warnings[2]);
        assert_string_equal(warnings[0],
                            "w.conf:2: Unknown username \"no-such-user-mssf\" in message bus configuration file: policy skipped");
        assert_non_null(strstr(warnings[1], "w.conf:4: Unknown group \"no-such-group-mssf\""));
        busconfig_warnings_free(warnings);
}

/* The policy outlives a reload for as long as a client still uses it. */
static void test_client_keeps_policy(void **state) {
        const char *xml = "<busconfig><policy context=\"default\"><allow own=\"a.b\"/></policy></busconfig>";
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        assert_int_equal(bus_config_load_string("t.conf", xml, strlen(xml), BUS_CONFIG_NO_INCLUDES, &config, NULL), 0);
        BusconfigPolicy *policy = NULL;
        assert_int_equal(busconfig_policy_new(config, 0, &policy, NULL), 0);
        BusconfigIdentity id = { 1000, NULL, 0, false };
        BusconfigClient *client = NULL;
        assert_int_equal(busconfig_policy_get_client(policy, &id, &client), 0);
        busconfig_policy_unref(policy);
        BusconfigVerdict v;
        busconfig_client_check_own(client, "a.b", &v);
        assert_true(v.allow);
        busconfig_client_unref(client);
}

static void test_describe(void **state) {
        const char *xml = "<busconfig>\n<policy context=\"default\">\n<allow send_destination=\"org.foo\"/>\n"
                          "<deny send_destination=\"org.foo\" send_interface=\"org.foo.I\" send_member=\"Bad\"/>\n"
                          "</policy>\n</busconfig>";
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        assert_int_equal(bus_config_load_string("d.conf", xml, strlen(xml), BUS_CONFIG_NO_INCLUDES, &config, NULL), 0);
        _cleanup_(busconfig_policy_unrefp) BusconfigPolicy *policy = NULL;
        assert_int_equal(busconfig_policy_new(config, 0, &policy, NULL), 0);
        BusconfigIdentity id = { 1000, NULL, 0, false };
        _cleanup_(busconfig_client_unrefp) BusconfigClient *client = NULL;
        assert_int_equal(busconfig_policy_get_client(policy, &id, &client), 0);
        const char *names[] = { "org.foo" };
        BusconfigPeer peer = { ":1.2", names, 1 };
        BusconfigMessage m = { .type = 1, .interface = "org.foo.I", .member = "Bad", .destination = "org.foo" };
        BusconfigVerdict v;
        char text[512];
        busconfig_client_check_send(client, &m, &peer, false, &v);
        busconfig_verdict_describe(&v, text, sizeof(text));
        assert_string_equal(text, "denied by <deny send_destination=\"org.foo\" send_interface=\"org.foo.I\" "
                                  "send_member=\"Bad\"/> (d.conf:4) in context=\"default\" (d.conf:2)");
        busconfig_client_check_own(client, "org.foo", &v);
        busconfig_verdict_describe(&v, text, sizeof(text));
        assert_string_equal(text, "no rule allows it");
        busconfig_verdict_describe(&v, text, 5);
        assert_string_equal(text, "no r");
}

/*
 * Every send (receive) query with n_fds descriptors: whether all are
 * allowed, by the checks themselves (the slow path).
 */
static bool every_query_allowed(const BusconfigClient *client, bool send, unsigned n_fds) {
        const char *none[] = { NULL }, *foo[] = { "org.foo" };
        BusconfigPeer peers[] = { { ":1.9", none, 0 }, { ":1.9", foo, 1 } };
        for (unsigned bits = 0; bits < 1024; bits++) {
                bool full = bits & 1, dest = bits & 2, requested = bits & 4, eavesdropping = bits & 8;
                unsigned peer = (bits >> 4) % 3, type = 1 + (bits >> 6) % 4;
                if ((bits >> 6) >= 4 * 2 * 2)
                        continue;
                bool is_reply = (bits >> 8) & 1;
                BusconfigMessage m = { type, is_reply, full ? "/a" : NULL, full ? "org.foo.I" : NULL,
                                       full ? "M" : NULL, full ? "org.foo.E" : NULL, dest ? "org.foo" : NULL,
                                       ":1.1", n_fds };
                const BusconfigPeer *p = peer == 2 ? NULL : &peers[peer];
                BusconfigVerdict v;
                if (send)
                        busconfig_client_check_send(client, &m, p, requested, &v);
                else
                        busconfig_client_check_receive(client, &m, p, eavesdropping, requested, &v);
                if (!v.allow)
                        return false;
        }
        return true;
}

/* The precomputed answer, checked against every query, and its expected value at 0 and 2 fds. */
static void expect_allows_every(const char *rules, bool send0, bool receive0, bool send2, bool receive2) {
        char xml[2048];
        snprintf(xml, sizeof(xml), "<busconfig><policy context=\"default\">%s</policy></busconfig>", rules);
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        ConfigError err = { { 0 } };
        if (bus_config_load_string("a.conf", xml, strlen(xml), BUS_CONFIG_NO_INCLUDES, &config, &err) != 0)
                fail_msg("%s: config: %s", rules, err.message);
        _cleanup_(busconfig_policy_unrefp) BusconfigPolicy *policy = NULL;
        assert_int_equal(busconfig_policy_new(config, 0, &policy, NULL), 0);
        BusconfigIdentity id = { 1000, NULL, 0, false };
        _cleanup_(busconfig_client_unrefp) BusconfigClient *client = NULL;
        assert_int_equal(busconfig_policy_get_client(policy, &id, &client), 0);
        for (unsigned n_fds = 0; n_fds < 4; n_fds++) {
                if (busconfig_client_allows_every_send(client, n_fds) && !every_query_allowed(client, true, n_fds))
                        fail_msg("%s: claims every send with %u fds, but one is denied", rules, n_fds);
                if (busconfig_client_allows_every_receive(client, n_fds) &&
                    !every_query_allowed(client, false, n_fds))
                        fail_msg("%s: claims every receive with %u fds, but one is denied", rules, n_fds);
        }
        assert_int_equal(busconfig_client_allows_every_send(client, 0), send0);
        assert_int_equal(busconfig_client_allows_every_receive(client, 0), receive0);
        assert_int_equal(busconfig_client_allows_every_send(client, 2), send2);
        assert_int_equal(busconfig_client_allows_every_receive(client, 2), receive2);
}

static void test_allows_every(void **state) {
        /* session.conf */
        expect_allows_every("<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/>",
                            true, true, true, true);
        /* A deny after it: the checks must run. */
        expect_allows_every("<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/>"
                            "<deny send_interface=\"org.foo.I\"/><deny receive_sender=\"org.foo\"/>",
                            false, false, false, false);
        /* Without eavesdrop="true" an unrequested reply or an eavesdropped copy is not allowed. */
        expect_allows_every("<allow send_destination=\"*\"/><allow receive_sender=\"*\"/>",
                            false, false, false, false);
        /* Denies before it are overridden; allows after it change nothing. */
        expect_allows_every("<deny send_destination=\"org.foo\"/><deny receive_interface=\"org.foo.I\"/>"
                            "<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/>"
                            "<allow send_destination=\"org.foo\" send_interface=\"org.foo.I\" send_member=\"M\"/>",
                            true, true, true, true);
        /* A bound on descriptors holds for messages within it only. */
        expect_allows_every("<allow send_destination=\"*\" eavesdrop=\"true\" max_fds=\"1\"/>"
                            "<allow eavesdrop=\"true\" min_fds=\"1\"/>",
                            true, false, false, false);
        /* A rule about some messages or peers is no blanket. */
        expect_allows_every("<allow send_destination=\"org.foo\" eavesdrop=\"true\"/>"
                            "<allow send_type=\"method_call\" eavesdrop=\"true\"/>"
                            "<allow send_broadcast=\"true\" eavesdrop=\"true\"/>"
                            "<allow receive_sender=\"org.foo\" eavesdrop=\"true\"/>",
                            false, false, false, false);
        expect_allows_every("", false, false, false, false);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table),
                cmocka_unit_test(test_clients_shared),
                cmocka_unit_test(test_uses_console),
                cmocka_unit_test(test_connect_uses_groups),
                cmocka_unit_test(test_unknown_names_warned),
                cmocka_unit_test(test_client_keeps_policy),
                cmocka_unit_test(test_describe),
                cmocka_unit_test(test_allows_every),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
