/*
 * The real Debian 12 system bus policy: /usr/share/dbus-1/system.conf with
 * every system.d file it includes (dbus, systemd, polkit, NetworkManager,
 * bluez, ofono, geoclue, upower, avahi are installed by tools/install-deps),
 * and the verdicts dbus-daemon gives for typical calls, with the file of the
 * rule that decides.
 */
#include <pwd.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "busconfig-policy.h"
#include "config.h"

#define SYSTEM_CONF "/usr/share/dbus-1/system.conf"
#define NM "org.freedesktop.NetworkManager"

static BusConfig *config;
static BusconfigPolicy *policy;

static int setup(void **state) {
        ConfigError err = { { 0 } };
        struct passwd *pw = getpwnam("messagebus");
        if (bus_config_load(SYSTEM_CONF, &config, &err) != 0) {
                fprintf(stderr, "%s: %s\n", SYSTEM_CONF, err.message);
                return -1;
        }
        return busconfig_policy_new(config, pw ? pw->pw_uid : 100, &policy, NULL);
}

static int teardown(void **state) {
        busconfig_policy_unref(policy);
        bus_config_free(config);
        return 0;
}

static BusconfigClient *client_for(uid_t uid, bool console) {
        BusconfigIdentity id = { uid, NULL, 0, console };
        BusconfigClient *client = NULL;
        assert_int_equal(busconfig_policy_get_client(policy, &id, &client), 0);
        return client;
}

static void expect_file(const BusconfigVerdict *v, const char *file) {
        assert_non_null(v->rule);
        if (!strstr(v->rule->file, file))
                fail_msg("deciding rule in %s:%u, expected %s", v->rule->file, v->rule->line, file);
}

static void send_call(uid_t uid, bool console, const char *dest, const char *names, const char *iface,
                      const char *member, BusconfigVerdict *v) {
        _cleanup_(busconfig_client_unrefp) BusconfigClient *client = client_for(uid, console);
        const char *owned[] = { names };
        BusconfigPeer peer = { ":1.7", owned, names ? 1 : 0 };
        BusconfigMessage m = { .type = 1, .path = "/", .interface = iface, .member = member,
                               .destination = dest, .sender = ":1.1" };
        busconfig_client_check_send(client, &m, strcmp(dest, "org.freedesktop.DBus") ? &peer : NULL, false, v);
}

static void test_connect(void **state) {
        BusconfigIdentity user = { 1000, NULL, 0, false };
        BusconfigVerdict v;
        busconfig_policy_check_connect(policy, &user, &v);
        assert_true(v.allow);
        expect_file(&v, "system.conf");
}

static void test_driver(void **state) {
        BusconfigVerdict v;
        send_call(1000, false, "org.freedesktop.DBus", NULL, "org.freedesktop.DBus", "Hello", &v);
        assert_true(v.allow);
        send_call(1000, false, "org.freedesktop.DBus", NULL, "org.freedesktop.DBus", "UpdateActivationEnvironment", &v);
        assert_false(v.allow);
        expect_file(&v, "system.conf");
        send_call(1000, false, "org.freedesktop.DBus", NULL, "org.freedesktop.DBus.Monitoring", "BecomeMonitor", &v);
        assert_false(v.allow);
        send_call(0, false, "org.freedesktop.DBus", NULL, "org.freedesktop.DBus.Monitoring", "BecomeMonitor", &v);
        assert_true(v.allow);
}

static void test_network_manager(void **state) {
        BusconfigVerdict v;
        send_call(1000, false, NM, NM, NM, "GetDevices", &v);
        assert_true(v.allow);
        expect_file(&v, "NetworkManager.conf");
        send_call(1000, false, NM, NM, NM, "Sleep", &v);
        assert_false(v.allow);
        expect_file(&v, "NetworkManager.conf");
        /* Addressed by unique name: the receiver's names still count. */
        send_call(1000, false, ":1.7", NM, NM, "Sleep", &v);
        assert_false(v.allow);
        send_call(0, false, NM, NM, NM, "Sleep", &v);
        assert_true(v.allow);
        send_call(1000, false, NM, NM, "org.freedesktop.NetworkManager.SecretAgent", "GetSecrets", &v);
        assert_false(v.allow);
}

static void test_ownership(void **state) {
        BusconfigVerdict v;
        _cleanup_(busconfig_client_unrefp) BusconfigClient *user = client_for(1000, false);
        _cleanup_(busconfig_client_unrefp) BusconfigClient *root = client_for(0, false);
        busconfig_client_check_own(user, NM, &v);
        assert_false(v.allow);
        busconfig_client_check_own(root, NM, &v);
        assert_true(v.allow);
        busconfig_client_check_own(user, "org.example.Squatter", &v);
        assert_false(v.allow);
        busconfig_client_check_own(root, "org.bluez", &v);
        assert_true(v.allow);
}

static void test_replies_and_signals(void **state) {
        _cleanup_(busconfig_client_unrefp) BusconfigClient *user = client_for(1000, false);
        BusconfigPeer peer = { ":1.7", NULL, 0 };
        BusconfigMessage reply = { .type = 2, .is_reply = true, .destination = ":1.7", .sender = ":1.1" };
        BusconfigVerdict v;
        busconfig_client_check_send(user, &reply, &peer, true, &v);
        assert_true(v.allow);
        busconfig_client_check_send(user, &reply, &peer, false, &v);
        assert_false(v.allow);
        BusconfigMessage signal = { .type = 4, .path = "/a", .interface = "a.B", .member = "S", .sender = ":1.1" };
        busconfig_client_check_send(user, &signal, &peer, false, &v);
        assert_true(v.allow);
        busconfig_client_check_receive(user, &signal, &peer, false, false, &v);
        assert_true(v.allow);
}

static void test_ofono_at_console(void **state) {
        BusconfigVerdict v;
        send_call(1000, false, "org.ofono", "org.ofono", "org.ofono.Manager", "GetModems", &v);
        assert_false(v.allow);
        expect_file(&v, "ofono.conf");
        send_call(1000, true, "org.ofono", "org.ofono", "org.ofono.Manager", "GetModems", &v);
        assert_true(v.allow);
}

/* The system.conf we ship for images without dbus-daemon's says the same. */
static void test_shipped_system_conf(void **state) {
        BusConfig *saved_config = config;
        BusconfigPolicy *saved_policy = policy;
        ConfigError err = { { 0 } };
        assert_non_null(getenv("MSSF_DBUS_CONF_DIR"));
        char path[512];
        snprintf(path, sizeof(path), "%s/system.conf", getenv("MSSF_DBUS_CONF_DIR"));
        if (bus_config_load_file(path, BUS_CONFIG_STRICT, &config, &err) != 0)
                fail_msg("%s", err.message);
        assert_int_equal(busconfig_policy_new(config, 100, &policy, NULL), 0);
        BusconfigVerdict v;
        send_call(1000, false, "org.freedesktop.DBus", NULL, "org.freedesktop.DBus", "Hello", &v);
        assert_true(v.allow);
        send_call(1000, false, "org.freedesktop.DBus", NULL, "org.freedesktop.DBus", "UpdateActivationEnvironment", &v);
        assert_false(v.allow);
        send_call(1000, false, "org.freedesktop.DBus", NULL, "org.freedesktop.systemd1.Activator", "ActivationFailure", &v);
        assert_false(v.allow);
        send_call(0, false, "org.freedesktop.DBus", NULL, "org.freedesktop.systemd1.Activator", "ActivationFailure", &v);
        assert_true(v.allow);
        send_call(1000, false, "org.freedesktop.DBus", NULL, "org.freedesktop.DBus.Monitoring", "BecomeMonitor", &v);
        assert_false(v.allow);
        send_call(1000, false, "org.a", "org.a", "org.a.I", "M", &v);
        assert_false(v.allow);
        BusconfigIdentity user = { 1000, NULL, 0, false };
        busconfig_policy_check_connect(policy, &user, &v);
        assert_true(v.allow);
        busconfig_policy_unref(policy);
        bus_config_free(config);
        snprintf(path, sizeof(path), "%s/session.conf", getenv("MSSF_DBUS_CONF_DIR"));
        if (bus_config_load_file(path, BUS_CONFIG_STRICT, &config, &err) != 0)
                fail_msg("%s", err.message);
        bus_config_free(config);
        config = saved_config;
        policy = saved_policy;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_connect),
                cmocka_unit_test(test_driver),
                cmocka_unit_test(test_network_manager),
                cmocka_unit_test(test_ownership),
                cmocka_unit_test(test_replies_and_signals),
                cmocka_unit_test(test_ofono_at_console),
                cmocka_unit_test(test_shipped_system_conf),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
