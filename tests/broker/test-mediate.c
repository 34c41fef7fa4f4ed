/*
 * Tests that every routed message passes the mediation seam
 * (broker/bus/mediate.h) once per recipient, with the right route, and that a
 * denial reaches the sender as an error; likewise for the own (RequestName)
 * and connect (Hello) seams. They are replaced at link time
 * (-Wl,--wrap=mediate_message, ...) by recorders that can deny.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bus-error.h"
#include "bus-harness.h"
#include "mediate.h"

#define CONFIG "<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen>" \
        "<policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>" \
        "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>"

typedef struct Seen {
        const Peer *sender;
        const Peer *receiver;
        MediateRoute route;
        char member[64];
        uint8_t type;
} Seen;

static Seen seen[256];
static size_t n_seen;
static const char *deny_member;         /* deny messages with this member */
static const char *deny_monitor_member; /* deny monitors' copies of messages with this member */

int __real_mediate_message(const Peer *sender, const Peer *receiver, Message *m, MediateRoute route,
                           MediateVerdict *ret_verdict);
int __wrap_mediate_message(const Peer *sender, const Peer *receiver, Message *m, MediateRoute route,
                           MediateVerdict *ret_verdict);

int __wrap_mediate_message(const Peer *sender, const Peer *receiver, Message *m, MediateRoute route,
                           MediateVerdict *ret_verdict) {
        const char *member = message_get_member(m);

        if (n_seen < ELEMENTSOF(seen)) {
                seen[n_seen] = (Seen) { sender, receiver, route, "", message_get_type(m) };
                snprintf(seen[n_seen].member, sizeof(seen[n_seen].member), "%s", member ? member : "");
                n_seen++;
        }
        if ((deny_member && member && strcmp(member, deny_member) == 0) ||
            (route == MEDIATE_ROUTE_MONITOR && deny_monitor_member && member &&
             strcmp(member, deny_monitor_member) == 0)) {
                ret_verdict->error = BUS_ERROR_ACCESS_DENIED;
                snprintf(ret_verdict->text, sizeof(ret_verdict->text), "denied by the test");
                return MEDIATE_E_DENIED;
        }
        return __real_mediate_message(sender, receiver, m, route, ret_verdict);
}

int __wrap_mediate_own(const Peer *peer, const char *name, MediateVerdict *ret_verdict);
int __wrap_mediate_connect(const Peer *peer, MediateVerdict *ret_verdict);

static bool deny_connect;

int __wrap_mediate_own(const Peer *peer, const char *name, MediateVerdict *ret_verdict) {
        memset(ret_verdict, 0, sizeof(*ret_verdict));
        if (strcmp(name, "org.example.Squatted") != 0)
                return 0;
        ret_verdict->error = BUS_ERROR_ACCESS_DENIED;
        snprintf(ret_verdict->text, sizeof(ret_verdict->text), "not yours: %s", name);
        return MEDIATE_E_DENIED;
}

int __wrap_mediate_connect(const Peer *peer, MediateVerdict *ret_verdict) {
        memset(ret_verdict, 0, sizeof(*ret_verdict));
        if (!deny_connect)
                return 0;
        ret_verdict->error = BUS_ERROR_ACCESS_DENIED;
        snprintf(ret_verdict->text, sizeof(ret_verdict->text), "go away");
        return MEDIATE_E_DENIED;
}

static Peer *peer_of(Harness *h, Client *c) {
        return strmap_get(&h->bus->peers_by_name, c->unique_name);
}

static size_t count(const char *member, MediateRoute route, const Peer *receiver) {
        size_t n = 0;

        for (size_t i = 0; i < n_seen; i++)
                if (strcmp(seen[i].member, member) == 0 && seen[i].route == route &&
                    seen[i].receiver == receiver)
                        n++;
        return n;
}

static void test_routes(void **state) {
        Harness h;
        Client a, b, c;
        _cleanup_(message_unrefp) Message *call = NULL, *reply = NULL, *ret = NULL, *signal = NULL;
        _cleanup_(message_builder_freep) MessageBuilder *builder = NULL, *sb = NULL;
        uint32_t serial;

        harness_start(&h, CONFIG);
        client_connect(&h, &a, false, true);
        client_connect(&h, &b, false, true);
        client_connect(&h, &c, false, true);
        client_add_match(&h, &b, "type='signal',interface='org.example.M'");
        client_add_match(&h, &c, "type='signal',interface='org.example.M'");
        client_add_match(&h, &c, "type='method_call',member='Call',eavesdrop='true'");
        n_seen = 0;

        /* A call and its reply. */
        serial = client_call(&h, &a, b.unique_name, "/", "org.example.M", "Call", "");
        call = client_recv(&h, &b);
        assert_non_null(call);
        assert_int_equal(count("Call", MEDIATE_ROUTE_UNICAST, peer_of(&h, &b)), 1);
        assert_int_equal(count("Call", MEDIATE_ROUTE_EAVESDROP, peer_of(&h, &c)), 1);
        assert_int_equal(message_new_method_return(call, NULL, &builder), 0);
        assert_int_equal(message_builder_set_serial(builder, 40), 0);
        assert_int_equal(message_builder_finish(builder, &ret), 0);
        client_send(&h, &b, ret, NULL, 0);
        reply = client_wait_reply(&h, &a, serial);
        assert_non_null(reply);
        assert_int_equal(count("", MEDIATE_ROUTE_REPLY, peer_of(&h, &a)), 1);

        /* A broadcast: once per recipient. */
        assert_int_equal(message_new_signal(NULL, "/", "org.example.M", "Tick", &sb), 0);
        assert_int_equal(message_builder_set_serial(sb, 41), 0);
        assert_int_equal(message_builder_finish(sb, &signal), 0);
        client_send(&h, &a, signal, NULL, 0);
        harness_pump(&h);
        assert_int_equal(count("Tick", MEDIATE_ROUTE_BROADCAST, peer_of(&h, &b)), 1);
        assert_int_equal(count("Tick", MEDIATE_ROUTE_BROADCAST, peer_of(&h, &c)), 1);

        /* Calls to the driver pass with receiver NULL, its replies with sender NULL. */
        serial = client_call(&h, &a, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus", "GetId", "");
        assert_int_equal(count("GetId", MEDIATE_ROUTE_UNICAST, NULL), 1);
        client_close(&a);
        client_close(&b);
        client_close(&c);
        harness_stop(&h);
}

static void test_denial_reaches_sender(void **state) {
        Harness h;
        Client a, b;
        _cleanup_(message_unrefp) Message *error = NULL, *none = NULL, *driver_error = NULL;
        const char *text;
        uint32_t serial;

        harness_start(&h, CONFIG);
        client_connect(&h, &a, false, true);
        client_connect(&h, &b, false, true);
        deny_member = "Forbidden";
        serial = client_call(&h, &a, b.unique_name, "/", "org.example.M", "Forbidden", "");
        error = client_wait_reply(&h, &a, serial);
        assert_non_null(error);
        assert_string_equal(message_get_error_name(error), "org.freedesktop.DBus.Error.AccessDenied");
        assert_int_equal(message_read(error, "s", &text), 0);
        assert_string_equal(text, "denied by the test");
        none = client_recv(&h, &b);
        assert_null(none);

        deny_member = "ListNames";
        serial = client_call(&h, &a, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus", "ListNames", "");
        driver_error = client_wait_reply(&h, &a, serial);
        assert_non_null(driver_error);
        assert_string_equal(message_get_error_name(driver_error), "org.freedesktop.DBus.Error.AccessDenied");
        deny_member = NULL;
        client_close(&a);
        client_close(&b);
        harness_stop(&h);
}

/*
 * A monitor's copy passes the seam too (MEDIATE_ROUTE_MONITOR), judged
 * on its own: taken before the recipient's verdict (as dbus-daemon
 * captures), so a call denied for its recipient is still observed, and a
 * copy the seam refuses is not queued.
 */
static void test_monitor_route(void **state) {
        Harness h;
        Client a, b, monitor;
        _cleanup_(message_builder_freep) MessageBuilder *builder = NULL;
        _cleanup_(message_unrefp) Message *become = NULL, *reply = NULL, *error = NULL;
        uint32_t flags = 0, serial;
        Message *copy;
        _cleanup_(message_unrefp) Message *hidden = NULL;
        bool saw_call = false, saw_forbidden = false, saw_hidden = false;

        harness_start(&h, CONFIG);
        client_connect(&h, &a, false, true);
        client_connect(&h, &b, false, true);
        client_connect(&h, &monitor, false, true);
        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &builder), 0);
        assert_int_equal(message_builder_set_serial(builder, 50), 0);
        assert_int_equal(message_builder_set_destination(builder, "org.freedesktop.DBus"), 0);
        assert_int_equal(message_builder_set_path(builder, "/org/freedesktop/DBus"), 0);
        assert_int_equal(message_builder_set_interface(builder, "org.freedesktop.DBus.Monitoring"), 0);
        assert_int_equal(message_builder_set_member(builder, "BecomeMonitor"), 0);
        assert_int_equal(message_builder_open(builder, 'a', "s"), 0);
        assert_int_equal(message_builder_close(builder), 0);
        assert_int_equal(message_builder_append_basic(builder, 'u', &flags), 0);
        assert_int_equal(message_builder_finish(builder, &become), 0);
        client_send(&h, &monitor, become, NULL, 0);
        reply = client_wait_reply(&h, &monitor, 50);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
        n_seen = 0;

        client_call(&h, &a, b.unique_name, "/", "org.example.M", "Call", "");
        assert_int_equal(count("Call", MEDIATE_ROUTE_UNICAST, peer_of(&h, &b)), 1);
        assert_int_equal(count("Call", MEDIATE_ROUTE_MONITOR, peer_of(&h, &monitor)), 1);

        deny_member = "Forbidden";
        serial = client_call(&h, &a, b.unique_name, "/", "org.example.M", "Forbidden", "");
        error = client_wait_reply(&h, &a, serial);
        assert_non_null(error);
        assert_int_equal(count("Forbidden", MEDIATE_ROUTE_MONITOR, peer_of(&h, &monitor)), 1);
        /* The seam refuses the monitor's copy of Hidden only: b still gets it. */
        deny_member = NULL;
        deny_monitor_member = "Hidden";
        client_call(&h, &a, b.unique_name, "/", "org.example.M", "Hidden", "");
        deny_monitor_member = NULL;
        while ((copy = client_recv(&h, &monitor))) {
                const char *member = message_get_member(copy);

                saw_call |= member && strcmp(member, "Call") == 0;
                saw_forbidden |= member && strcmp(member, "Forbidden") == 0;
                saw_hidden |= member && strcmp(member, "Hidden") == 0;
                message_unref(copy);
        }
        assert_true(saw_call);
        assert_false(saw_forbidden);
        assert_false(saw_hidden);
        while ((hidden = client_recv(&h, &b)) && strcmp(message_get_member(hidden) ?: "", "Hidden") != 0)
                hidden = message_unref(hidden);
        assert_non_null(hidden);
        client_close(&a);
        client_close(&b);
        client_close(&monitor);
        harness_stop(&h);
}

static void test_own_and_connect_seams(void **state) {
        Harness h;
        Client a, b;
        _cleanup_(message_unrefp) Message *denied = NULL, *granted = NULL;
        const char *text;
        uint32_t serial, reply;

        harness_start(&h, CONFIG);
        client_connect(&h, &a, false, true);
        serial = client_call(&h, &a, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                             "RequestName", "su", "org.example.Squatted", 0);
        denied = client_wait_reply(&h, &a, serial);
        assert_non_null(denied);
        assert_string_equal(message_get_error_name(denied), "org.freedesktop.DBus.Error.AccessDenied");
        assert_int_equal(message_read(denied, "s", &text), 0);
        assert_string_equal(text, "not yours: org.example.Squatted");
        serial = client_call(&h, &a, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                             "RequestName", "su", "org.example.Free", 0);
        granted = client_wait_reply(&h, &a, serial);
        assert_int_equal(message_read(granted, "u", &reply), 0);
        assert_int_equal(reply, 1);

        /* A connection the seam refuses is closed once it authenticated, as dbus-daemon closes it. */
        deny_connect = true;
        client_connect(&h, &b, false, false);
        assert_true(client_is_disconnected(&h, &b));
        deny_connect = false;
        client_close(&a);
        client_close(&b);
        harness_stop(&h);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_routes),
                cmocka_unit_test(test_denial_reaches_sender),
                cmocka_unit_test(test_own_and_connect_seams),
                cmocka_unit_test(test_monitor_route),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
