/*
 * org.mssf.Broker1.GetStats: the counters the policy layers keep are
 * readable on the bus, and a busconfig denial shows in them.
 * org.freedesktop.DBus.Debug.Stats (driver-stats.c): match rules written
 * back as dbus-daemon writes them, counts that follow AddMatch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bus-harness.h"
#include "driver-stats.h"
#include "match.h"

#define CONFIG "<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen>" \
        "<policy context=\"default\"><allow send_destination=\"*\"/><allow receive_sender=\"*\"/>" \
        "<deny send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus\" send_member=\"GetId\"/>" \
        "</policy></busconfig>"

/* The value of the uint64 entry key in an a{sv} reply; -1 when absent. */
static int64_t stat_of(Message *reply, const char *key) {
        MessageReader reader;
        int64_t found = -1;

        message_reader_init(&reader, reply);
        assert_int_equal(message_reader_enter(&reader, 'a', "{sv}"), 0);
        while (!message_reader_at_end(&reader)) {
                const char *name;
                char contents[256];

                assert_int_equal(message_reader_enter(&reader, 'e', "sv"), 0);
                assert_int_equal(message_reader_read_basic(&reader, 's', &name), 0);
                assert_int_equal(message_reader_peek_contents(&reader, contents), 'v');
                if (strcmp(name, key) == 0 && strcmp(contents, "t") == 0) {
                        uint64_t v;

                        assert_int_equal(message_reader_enter(&reader, 'v', "t"), 0);
                        assert_int_equal(message_reader_read_basic(&reader, 't', &v), 0);
                        assert_int_equal(message_reader_exit(&reader), 0);
                        found = (int64_t) v;
                } else
                        assert_int_equal(message_reader_skip(&reader), 0);
                assert_int_equal(message_reader_exit(&reader), 0);
        }
        return found;
}

static Message *get_stats(Harness *h, Client *c) {
        uint32_t serial = client_call(h, c, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.mssf.Broker1",
                                      "GetStats", "");
        Message *reply = client_wait_reply(h, c, serial);

        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
        return reply;
}

static void test_counts_denials(void **state) {
        Harness h;
        Client a;

        harness_start(&h, CONFIG);
        client_connect(&h, &a, false, true);
        _cleanup_(message_unrefp) Message *before = get_stats(&h, &a);
        assert_int_equal(stat_of(before, "BusconfigDenied"), 0);
        assert_true(stat_of(before, "Delivered") > 0);
        uint32_t serial = client_call(&h, &a, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                      "org.freedesktop.DBus", "GetId", "");
        _cleanup_(message_unrefp) Message *denied = client_wait_reply(&h, &a, serial);
        assert_non_null(denied);
        assert_string_equal(message_get_error_name(denied), "org.freedesktop.DBus.Error.AccessDenied");
        _cleanup_(message_unrefp) Message *after = get_stats(&h, &a);
        assert_int_equal(stat_of(after, "BusconfigDenied"), 1);
        assert_int_equal(stat_of(after, "MssfDenied"), 0);
        client_close(&a);
        harness_stop(&h);
}

static void check_format(const char *rule, const char *expected) {
        _cleanup_(match_rule_freep) MatchRule *parsed = NULL;
        char text[DRIVER_STATS_RULE_MAX];

        assert_int_equal(match_rule_parse(rule, strlen(rule), &parsed), 0);
        driver_stats_format_rule(parsed, text);
        assert_string_equal(text, expected);
}

static void test_format_rule(void **state) {
        check_format("", "");
        check_format("member='Counted',type='signal'", "type='signal',member='Counted'");
        check_format("arg0='x',path_namespace='/a',sender='org.freedesktop.DBus'",
                     "path_namespace='/a',sender='org.freedesktop.DBus',arg0='x'");
        check_format("eavesdrop='true',destination=':1.7',interface='a.b',path='/p',type='method_call'",
                     "type='method_call',interface='a.b',path='/p',destination=':1.7',eavesdrop='true'");
        check_format("arg3path='/x/',arg1='y',arg0namespace='org.e'",
                     "arg0namespace='org.e',arg1='y',arg3path='/x/'");
        check_format("arg0='it'\\''s'", "arg0='it'\\''s'");
}

/* The uint32 entry key of an a{sv} reply; -1 when absent. */
static int64_t stat_u32(Message *reply, const char *key) {
        MessageReader reader;
        int64_t found = -1;

        message_reader_init(&reader, reply);
        assert_int_equal(message_reader_enter(&reader, 'a', "{sv}"), 0);
        while (!message_reader_at_end(&reader)) {
                const char *name;
                char contents[256];

                assert_int_equal(message_reader_enter(&reader, 'e', "sv"), 0);
                assert_int_equal(message_reader_read_basic(&reader, 's', &name), 0);
                assert_int_equal(message_reader_peek_contents(&reader, contents), 'v');
                if (strcmp(name, key) == 0 && strcmp(contents, "u") == 0) {
                        uint32_t v;

                        assert_int_equal(message_reader_enter(&reader, 'v', "u"), 0);
                        assert_int_equal(message_reader_read_basic(&reader, 'u', &v), 0);
                        assert_int_equal(message_reader_exit(&reader), 0);
                        found = v;
                } else
                        assert_int_equal(message_reader_skip(&reader), 0);
                assert_int_equal(message_reader_exit(&reader), 0);
        }
        return found;
}

static Message *debug_stats(Harness *h, Client *c, const char *member, const char *name) {
        uint32_t serial = name ?
                client_call(h, c, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus.Debug.Stats", member, "s", name) :
                client_call(h, c, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus.Debug.Stats", member, "");
        Message *reply = client_wait_reply(h, c, serial);

        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
        return reply;
}

static void test_debug_stats_follow_add_match(void **state) {
        Harness h;
        Client a, b;

        harness_start(&h, CONFIG);
        client_connect(&h, &a, false, true);
        client_connect(&h, &b, false, true);
        _cleanup_(message_unrefp) Message *before = debug_stats(&h, &a, "GetStats", NULL);
        assert_int_equal(stat_u32(before, "ActiveConnections"), 2);
        assert_int_equal(stat_u32(before, "BusNames"), 2);
        client_add_match(&h, &b, "type='signal',member='Counted'");
        _cleanup_(message_unrefp) Message *after = debug_stats(&h, &a, "GetStats", NULL);
        assert_int_equal(stat_u32(after, "MatchRules"), stat_u32(before, "MatchRules") + 1);
        assert_true(stat_u32(after, "PeakMatchRules") >= stat_u32(after, "MatchRules"));
        _cleanup_(message_unrefp) Message *conn = debug_stats(&h, &a, "GetConnectionStats", b.unique_name);
        assert_int_equal(stat_u32(conn, "MatchRules"), 1);
        assert_int_equal(stat_u32(conn, "BusNames"), 1);
        client_close(&a);
        client_close(&b);
        harness_stop(&h);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_counts_denials),
                cmocka_unit_test(test_format_rule),
                cmocka_unit_test(test_debug_stats_follow_add_match),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
