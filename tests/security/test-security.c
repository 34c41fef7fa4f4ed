/*
 * The bus's policy glue: busconfig send/receive/own/connect verdicts with
 * their dbus-daemon style texts, names that follow the registry, MSSF
 * denials after busconfig allowed, and reloads that swap both policies or
 * leave the old ones in force.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "message.h"
#include "names.h"
#include "security.h"

static char dir[] = "/tmp/mssf-security-XXXXXX";
static char policy[512], manifests[512];
static const char *mssf_policy;

static const char *const base_xml =
        "<busconfig>\n"
        "<policy context=\"default\">\n"
        "<allow user=\"*\"/>\n"
        "<allow send_destination=\"*\" eavesdrop=\"true\"/>\n"
        "<allow eavesdrop=\"true\"/>\n"
        "<allow own=\"*\"/>\n"
        "<deny send_interface=\"org.x.I\" send_member=\"Forbidden\"/>\n"
        "<deny receive_interface=\"org.x.I\" receive_member=\"Unwanted\"/>\n"
        "<deny own=\"org.denied\"/>\n"
        "<deny user=\"4000\"/>\n"
        "</policy>\n"
        "</busconfig>\n";

static BusConfig *load(const char *xml) {
        BusConfig *config = NULL;
        ConfigError err = { { 0 } };
        if (bus_config_load_string("s.conf", xml, strlen(xml), BUS_CONFIG_NO_INCLUDES, &config, &err) != 0)
                fail_msg("%s", err.message);
        return config;
}

static void write_manifest(const char *name, const char *text) {
        char path[700];
        snprintf(path, sizeof(path), "%s/%s.xml", manifests, name);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void compile_policy(void) {
        char cmd[2048];
        snprintf(cmd, sizeof(cmd), "%s compile --manifest-dir %s --output %s 2>/dev/null", mssf_policy, manifests,
                 policy);
        assert_int_equal(system(cmd), 0);
}

static int setup(void **state) {
        if (!mkdtemp(dir))
                return -1;
        snprintf(policy, sizeof(policy), "%s/policy.db", dir);
        snprintf(manifests, sizeof(manifests), "%s/manifests", dir);
        return mkdir(manifests, 0755);
}

static int teardown(void **state) {
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        return system(cmd);
}

static Message *call(const char *dest, const char *iface, const char *member, const char *sender) {
        MessageBuilder *b = NULL;
        Message *m = NULL;
        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_path(b, "/org/x"), 0);
        assert_int_equal(message_builder_set_interface(b, iface), 0);
        assert_int_equal(message_builder_set_member(b, member), 0);
        assert_int_equal(message_builder_set_destination(b, dest), 0);
        assert_int_equal(message_builder_set_sender(b, sender), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        message_builder_free(b);
        return m;
}

static void drop_names(NameRegistry *reg, NamePeerState *state) {
        NameChange change;
        while (names_release_next(reg, state, &change) == 0)
                ;
        name_peer_state_deinit(state);
}

static Security *new_security(BusConfig *config, const char *policy_path) {
        Security *s = NULL;
        char err[512] = "";
        int r = security_new(config, 0, policy_path, "/nonexistent/smackfs", &s, NULL, err, sizeof(err));
        if (r != 0)
                fail_msg("security_new: %d %s", r, err);
        return s;
}

static void test_busconfig_layer(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load(base_xml);
        _cleanup_(security_freep) Security *s = new_security(config, NULL);
        SecurityPeer a, b;
        gid_t g = 1000;
        assert_int_equal(security_peer_init(s, &a, 1000, &g, 1, NULL, ":1.1", NULL), 0);
        assert_int_equal(security_peer_init(s, &b, 1001, &g, 1, NULL, ":1.2", NULL), 0);
        SecurityVerdict v;
        _cleanup_(message_unrefp) Message *ok = call(":1.2", "org.x.I", "Fine", ":1.1");
        assert_int_equal(security_check_message(s, &a, &b, ok, SECURITY_ROUTE_UNICAST, &v), 0);
        _cleanup_(message_unrefp) Message *bad = call(":1.2", "org.x.I", "Forbidden", ":1.1");
        assert_int_equal(security_check_message(s, &a, &b, bad, SECURITY_ROUTE_UNICAST, &v), SECURITY_E_DENIED);
        assert_int_equal(v.layer, SECURITY_LAYER_BUSCONFIG);
        assert_string_equal(v.text,
                            "Rejected send message, denied by <deny send_destination=\"*\" send_interface=\"org.x.I\" "
                            "send_member=\"Forbidden\"/> (s.conf:7) in context=\"default\" (s.conf:2); "
                            "type=\"method_call\", sender=\":1.1\" (uid=1000) interface=\"org.x.I\" member=\"Forbidden\" "
                            "error name=\"(unset)\" requested_reply=\"0\" destination=\":1.2\" (uid=1001)");
        _cleanup_(message_unrefp) Message *unwanted = call(":1.2", "org.x.I", "Unwanted", ":1.1");
        assert_int_equal(security_check_message(s, &a, &b, unwanted, SECURITY_ROUTE_UNICAST, &v), SECURITY_E_DENIED);
        assert_non_null(strstr(v.text, "Rejected receive message, denied by <deny receive_sender=\"*\" "
                                       "receive_interface=\"org.x.I\" receive_member=\"Unwanted\"/> (s.conf:8)"));
        assert_int_equal(security_check_own(s, &a, "org.fine", &v), 0);
        assert_int_equal(security_check_own(s, &a, "org.denied", &v), SECURITY_E_DENIED);
        assert_non_null(strstr(v.text, "Connection \":1.1\" is not allowed to own the service \"org.denied\" due to "
                                       "security policies in the configuration file (denied by <deny own=\"org.denied\"/>"));
        char why[512];
        assert_true(security_check_connect(s, 1000, &g, 1, why, sizeof(why)));
        assert_false(security_check_connect(s, 4000, &g, 1, why, sizeof(why)));
        assert_string_equal(why, "uid 4000 may not connect: denied by <deny user=\"4000\"/> (s.conf:10) in "
                                 "context=\"default\" (s.conf:2)");
        const SecurityCounters *c = security_get_counters(s);
        assert_int_equal(c->allowed, 1);
        assert_int_equal(c->busconfig_denied, 3);
        security_peer_deinit(&a);
        security_peer_deinit(&b);
}

/* send_destination="org.x" counts only once the receiver owns (or queues for) it. */
static void test_names_follow_registry(void **state) {
        const char *xml = "<busconfig><policy context=\"default\"><allow own=\"*\"/>"
                          "<allow send_destination=\"org.x\"/><allow receive_type=\"method_call\"/></policy></busconfig>";
        _cleanup_(bus_config_freep) BusConfig *config = load(xml);
        _cleanup_(security_freep) Security *s = new_security(config, NULL);
        NameRegistry *reg = NULL;
        assert_int_equal(name_registry_new(&reg), 0);
        NamePeerState owner, queued;
        name_peer_state_init(&owner, NULL, ":1.2");
        name_peer_state_init(&queued, NULL, ":1.3");
        SecurityPeer a, b, q;
        assert_int_equal(security_peer_init(s, &a, 1000, NULL, 0, NULL, ":1.1", NULL), 0);
        assert_int_equal(security_peer_init(s, &b, 1001, NULL, 0, NULL, ":1.2", &owner), 0);
        assert_int_equal(security_peer_init(s, &q, 1002, NULL, 0, NULL, ":1.3", &queued), 0);
        _cleanup_(message_unrefp) Message *m = call(":1.2", "org.x.I", "M", ":1.1");
        SecurityVerdict v;
        assert_int_equal(security_check_message(s, &a, &b, m, SECURITY_ROUTE_UNICAST, &v), SECURITY_E_DENIED);
        NameChange change;
        uint32_t reply;
        assert_int_equal(names_request(reg, &owner, "org.x", 0, 16, &change, &reply), 0);
        assert_int_equal(names_request(reg, &queued, "org.x", 0, 16, &change, &reply), 0);
        security_peer_names_changed(&b);
        security_peer_names_changed(&q);
        assert_int_equal(security_check_message(s, &a, &b, m, SECURITY_ROUTE_UNICAST, &v), 0);
        assert_int_equal(security_check_message(s, &a, &q, m, SECURITY_ROUTE_UNICAST, &v), 0);
        /* The accessor brings the names up to date itself. */
        const char *const *names;
        size_t n_names;
        assert_int_equal(names_release(reg, &queued, "org.x", &change, &reply), 0);
        security_peer_names_changed(&q);
        assert_int_equal(security_peer_get_names(&q, &names, &n_names), 0);
        assert_int_equal(n_names, 0);
        assert_int_equal(security_peer_get_names(&b, &names, &n_names), 0);
        assert_int_equal(n_names, 1);
        assert_string_equal(names[0], "org.x");
        security_peer_deinit(&a);
        security_peer_deinit(&b);
        security_peer_deinit(&q);
        drop_names(reg, &owner);
        drop_names(reg, &queued);
        name_registry_free(reg);
}

static const char *const service_manifest =
        "<aegis><provide><dbus name=\"org.x\" own=\"SELF\" bus=\"system\"><node name=\"/org/x\">"
        "<interface name=\"org.x.I\"><method name=\"M\"><annotation name=\"com.maemo.Aegis\" value=\"Cellular\"/>"
        "</method></interface></node></dbus></provide></aegis>";

/* busconfig allows; the manifest needs a token nobody can hold without Smack. */
static void test_mssf_layer_and_reload(void **state) {
        const char *open_xml = "<busconfig><policy context=\"default\"><allow own=\"*\"/>"
                               "<allow send_destination=\"*\"/><allow receive_type=\"method_call\"/></policy></busconfig>";
        const char *closed_xml = "<busconfig><policy context=\"default\"><allow own=\"*\"/>"
                                 "<allow receive_type=\"method_call\"/></policy></busconfig>";
        _cleanup_(bus_config_freep) BusConfig *open_config = load(open_xml);
        _cleanup_(bus_config_freep) BusConfig *closed_config = load(closed_xml);
        unlink(policy);
        _cleanup_(security_freep) Security *s = new_security(open_config, policy);
        assert_null(security_get_policy_db(s)); /* no file yet: nothing declared */
        NameRegistry *reg = NULL;
        assert_int_equal(name_registry_new(&reg), 0);
        NamePeerState svc_names;
        name_peer_state_init(&svc_names, NULL, ":1.2");
        NameChange change;
        uint32_t reply;
        assert_int_equal(names_request(reg, &svc_names, "org.x", 0, 16, &change, &reply), 0);
        SecurityPeer app, svc;
        assert_int_equal(security_peer_init(s, &app, 1000, NULL, 0, NULL, ":1.1", NULL), 0);
        assert_int_equal(security_peer_init(s, &svc, 0, NULL, 0, NULL, ":1.2", &svc_names), 0);
        _cleanup_(message_unrefp) Message *m = call("org.x", "org.x.I", "M", ":1.1");
        SecurityVerdict v;
        char err[512] = "";
        assert_int_equal(security_check_message(s, &app, &svc, m, SECURITY_ROUTE_UNICAST, &v), 0);

        write_manifest("service", service_manifest);
        compile_policy();
        assert_int_equal(security_reload(s, open_config, NULL, err, sizeof(err)), 0);
        assert_int_equal(security_peer_refresh(s, &app), 0);
        assert_int_equal(security_peer_refresh(s, &svc), 0);
        assert_non_null(security_get_policy_db(s));
        assert_int_equal(security_check_message(s, &app, &svc, m, SECURITY_ROUTE_UNICAST, &v), SECURITY_E_DENIED);
        assert_int_equal(v.layer, SECURITY_LAYER_MSSF);
        assert_non_null(strstr(v.text, "lacks token \"Cellular\""));
        assert_non_null(strstr(v.text, "org.x"));

        /* A policy file that does not load: the reload fails, the old state stays. */
        FILE *f = fopen(policy, "w");
        assert_non_null(f);
        fputs("garbage", f);
        fclose(f);
        assert_int_equal(security_reload(s, closed_config, NULL, err, sizeof(err)), SECURITY_E_POLICY);
        assert_non_null(strstr(err, policy));
        assert_int_equal(security_check_message(s, &app, &svc, m, SECURITY_ROUTE_UNICAST, &v), SECURITY_E_DENIED);
        assert_int_equal(v.layer, SECURITY_LAYER_MSSF); /* still the old busconfig: send allowed */

        /* At start, a policy that does not load stops the bus. */
        Security *none = NULL;
        assert_int_equal(security_new(open_config, 0, policy, "/nonexistent", &none, NULL, err, sizeof(err)),
                         SECURITY_E_POLICY);
        assert_null(none);

        /* The busconfig half of a reload: the closed config denies the send. */
        unlink(policy);
        assert_int_equal(security_reload(s, closed_config, NULL, err, sizeof(err)), 0);
        assert_int_equal(security_peer_refresh(s, &app), 0);
        assert_int_equal(security_check_message(s, &app, &svc, m, SECURITY_ROUTE_UNICAST, &v), SECURITY_E_DENIED);
        assert_int_equal(v.layer, SECURITY_LAYER_BUSCONFIG);
        security_peer_deinit(&app);
        security_peer_deinit(&svc);
        drop_names(reg, &svc_names);
        name_registry_free(reg);
}

int main(int argc, char **argv) {
        if (argc < 2) {
                fprintf(stderr, "usage: test-security MSSF_POLICY\n");
                return 2;
        }
        mssf_policy = argv[1];
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_busconfig_layer),
                cmocka_unit_test(test_names_follow_registry),
                cmocka_unit_test(test_mssf_layer_and_reload),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
