/*
 * The observer routes of security_check_message() (monitors,
 * eavesdroppers) with Smack: a copy is allowed only if the observer could
 * have received the message as its recipient, so the sender's label needs
 * "w" to the observer's, a reply's too (it is nobody's expected reply
 * there), and the driver's messages are exempt. MONITOR skips busconfig,
 * EAVESDROP does not; neither is counted. The kernel is the fake smackfs
 * of tests/smack.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "fake-smackfs.h"
#include "message.h"
#include "security.h"
#include "smack-oracle.h"

static const char *const xml =
        "<busconfig><policy context=\"default\"><allow user=\"*\"/>"
        "<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/><allow own=\"*\"/>"
        "<deny receive_interface=\"org.x.I\" receive_member=\"Unwanted\"/>"
        "</policy></busconfig>";

static BusConfig *load(void) {
        BusConfig *config = NULL;
        ConfigError err = { { 0 } };

        if (bus_config_load_string("s.conf", xml, strlen(xml), BUS_CONFIG_NO_INCLUDES, &config, &err) != 0)
                fail_msg("%s", err.message);
        return config;
}

static Message *message(uint8_t type, const char *member, const char *sender, const char *destination) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        Message *m = NULL;

        assert_int_equal(message_builder_new(type, &b), 0);
        if (type == MESSAGE_METHOD_RETURN) {
                assert_int_equal(message_builder_set_reply_serial(b, 5), 0);
        } else {
                assert_int_equal(message_builder_set_path(b, "/org/x"), 0);
                assert_int_equal(message_builder_set_interface(b, "org.x.I"), 0);
                assert_int_equal(message_builder_set_member(b, member), 0);
        }
        if (destination)
                assert_int_equal(message_builder_set_destination(b, destination), 0);
        if (sender)
                assert_int_equal(message_builder_set_sender(b, sender), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        return m;
}

static void test_observer_routes(void **state) {
        FakeSmackfs *fake = fake_smackfs_new(true);
        _cleanup_(bus_config_freep) BusConfig *config = load();
        Security *s = NULL;
        SecurityPeer app, svc, mon;
        SecurityVerdict v;
        char err[512] = "";
        _cleanup_(message_unrefp) Message *call = message(MESSAGE_METHOD_CALL, "M", ":1.1", ":1.2");
        _cleanup_(message_unrefp) Message *reply = message(MESSAGE_METHOD_RETURN, NULL, ":1.2", ":1.1");
        _cleanup_(message_unrefp) Message *unwanted = message(MESSAGE_METHOD_CALL, "Unwanted", ":1.1", ":1.2");
        _cleanup_(message_unrefp) Message *from_bus = message(MESSAGE_SIGNAL, "NameOwnerChanged", NULL, NULL);
        SecurityCounters before;

        assert_int_equal(security_new(config, 0, NULL, fake->dir, &s, NULL, err, sizeof(err)), 0);
        assert_true(security_has_smack(s));
        assert_int_equal(security_peer_init(s, &app, 1000, NULL, 0, "App", ":1.1", NULL), 0);
        assert_int_equal(security_peer_init(s, &svc, 1001, NULL, 0, "Svc", ":1.2", NULL), 0);
        assert_int_equal(security_peer_init(s, &mon, 0, NULL, 0, "Mon", ":1.3", NULL), 0);
        fake_smackfs_grant(fake, "App", "Svc", "w");
        fake_smackfs_grant(fake, "Svc", "App", "w");
        before = *security_get_counters(s);

        /* The call reaches its recipient; the monitor has no Smack reach from App. */
        assert_int_equal(security_check_message(s, &app, &svc, call, SECURITY_ROUTE_UNICAST, &v), 0);
        assert_int_equal(security_check_message(s, &app, &mon, call, SECURITY_ROUTE_MONITOR, &v),
                         SECURITY_E_DENIED);
        assert_int_equal(v.mssf.reason, MEDIATION_REASON_SMACK);
        assert_int_equal(security_check_message(s, &app, &mon, call, SECURITY_ROUTE_EAVESDROP, &v),
                         SECURITY_E_DENIED);
        /* The expected reply is exempt for its caller, not for an observer. */
        assert_int_equal(security_check_message(s, &svc, &app, reply, SECURITY_ROUTE_REPLY, &v), 0);
        assert_int_equal(security_check_message(s, &svc, &mon, reply, SECURITY_ROUTE_MONITOR, &v),
                         SECURITY_E_DENIED);
        /* The driver's messages are exempt, as for any recipient. */
        assert_int_equal(security_check_message(s, NULL, &mon, from_bus, SECURITY_ROUTE_MONITOR, &v), 0);

        /* The device maker grants reach: App's call is seen, Svc's reply still not. */
        fake_smackfs_grant(fake, "App", "Mon", "w");
        smack_oracle_flush(security_get_oracle(s));
        assert_int_equal(security_check_message(s, &app, &mon, call, SECURITY_ROUTE_MONITOR, &v), 0);
        assert_int_equal(security_check_message(s, &app, &mon, call, SECURITY_ROUTE_EAVESDROP, &v), 0);
        assert_int_equal(security_check_message(s, &svc, &mon, reply, SECURITY_ROUTE_EAVESDROP, &v),
                         SECURITY_E_DENIED);
        fake_smackfs_grant(fake, "Svc", "Mon", "w");
        smack_oracle_flush(security_get_oracle(s));
        assert_int_equal(security_check_message(s, &svc, &mon, reply, SECURITY_ROUTE_MONITOR, &v), 0);

        /* busconfig: an eavesdropper passes its receive rules, a monitor is outside them. */
        assert_int_equal(security_check_message(s, &app, &mon, unwanted, SECURITY_ROUTE_EAVESDROP, &v),
                         SECURITY_E_DENIED);
        assert_int_equal(v.layer, SECURITY_LAYER_BUSCONFIG);
        assert_int_equal(security_check_message(s, &app, &mon, unwanted, SECURITY_ROUTE_MONITOR, &v), 0);

        /* Only the two real deliveries counted. */
        assert_int_equal(security_get_counters(s)->allowed, before.allowed + 2);
        assert_int_equal(security_get_counters(s)->busconfig_denied, before.busconfig_denied);
        assert_int_equal(security_get_counters(s)->mssf.denied, before.mssf.denied);

        security_peer_deinit(&app);
        security_peer_deinit(&svc);
        security_peer_deinit(&mon);
        security_free(s);
        fake_smackfs_free(fake);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_observer_routes),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
