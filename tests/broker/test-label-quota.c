/*
 * Per-label quotas in a real bus (bus-harness.c), as a device with Smack
 * sees them: every client has uid 65534 (SO_PEERCRED wrapped) and the
 * label the test gives it (SO_PEERSEC wrapped), and the bus believes it
 * has Smack (security_has_smack wrapped). For each resource, one label at
 * its limit is refused with the label and the limit named, and another
 * label of the same uid is not; GetStats shows both. Without Smack, and
 * for the bus's own uid, nothing is refused by label.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "bus-harness.h"
#include "security.h"

#define POLICY "<policy context=\"default\"><allow user=\"*\"/><allow send_destination=\"*\"/>" \
        "<allow receive_sender=\"*\"/><allow own=\"*\"/></policy>"
#define CONFIG(limits) "<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen>" limits POLICY \
        "</busconfig>"
#define LIMIT(name, value) "<limit name=\"" name "\">" value "</limit>"
#define LIMITS_EXCEEDED "org.freedesktop.DBus.Error.LimitsExceeded"

static const char *next_label = "appA";
static bool fake_uid = true;
static bool smack = true;

int __real_getsockopt(int fd, int level, int name, void *value, socklen_t *len);
int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len);
bool __real_security_has_smack(const Security *security);
bool __wrap_security_has_smack(const Security *security);

int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len) {
        if (level == SOL_SOCKET && name == SO_PEERSEC && smack) {
                size_t n = strlen(next_label) + 1;

                if (*len < n) {
                        *len = (socklen_t) n;
                        errno = ERANGE;
                        return -1;
                }
                memcpy(value, next_label, n);
                *len = (socklen_t) n;
                return 0;
        }
        if (level == SOL_SOCKET && name == SO_PEERCRED && fake_uid) {
                int r = __real_getsockopt(fd, level, name, value, len);
                struct ucred *ucred = value;

                ucred->uid = 65534;
                ucred->gid = 65534;
                return r;
        }
        return __real_getsockopt(fd, level, name, value, len);
}

bool __wrap_security_has_smack(const Security *security) {
        return smack;
}

static int setup(void **state) {
        next_label = "appA";
        fake_uid = true;
        smack = true;
        return 0;
}

static void connect_as(Harness *h, Client *c, const char *label) {
        next_label = label;
        client_connect(h, c, false, true);
}

/* The error's name must be LimitsExceeded and its text hold each of the words given. */
static void assert_limits_exceeded(Message *reply, const char *word1, const char *word2) {
        const char *text = NULL;

        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_ERROR);
        assert_string_equal(message_get_error_name(reply), LIMITS_EXCEEDED);
        assert_int_equal(message_read(reply, "s", &text), 0);
        if (!strstr(text, word1) || !strstr(text, word2))
                fail_msg("\"%s\" lacks \"%s\" or \"%s\"", text, word1, word2);
}

static void assert_return(Message *reply) {
        assert_non_null(reply);
        if (message_get_type(reply) == MESSAGE_ERROR) {
                const char *text = "";

                (void) message_read(reply, "s", &text);
                fail_msg("%s: %s", message_get_error_name(reply), text);
        }
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
}

static Message *driver_call(Harness *h, Client *c, const char *member, const char *signature, ...) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;
        uint32_t serial = c->serial++;
        const char *s;
        uint32_t u;
        va_list ap;

        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, serial), 0);
        assert_int_equal(message_builder_set_destination(b, "org.freedesktop.DBus"), 0);
        assert_int_equal(message_builder_set_path(b, "/org/freedesktop/DBus"), 0);
        assert_int_equal(message_builder_set_interface(b, strcmp(member, "GetStats") == 0 ?
                                                      "org.mssf.Broker1" : "org.freedesktop.DBus"), 0);
        assert_int_equal(message_builder_set_member(b, member), 0);
        va_start(ap, signature);
        for (const char *t = signature; *t; t++) {
                if (*t == 's') {
                        s = va_arg(ap, const char *);
                        assert_int_equal(message_builder_append_basic(b, 's', s), 0);
                } else {
                        u = va_arg(ap, uint32_t);
                        assert_int_equal(message_builder_append_basic(b, 'u', &u), 0);
                }
        }
        va_end(ap);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(h, c, m, NULL, 0);
        return client_wait_reply(h, c, serial);
}

static Message *hello(Harness *h, Client *c, const char *label) {
        next_label = label;
        client_connect(h, c, false, false);
        return driver_call(h, c, "Hello", "");
}

static void test_connections(void **state) {
        Harness h;
        Client a1, a2, a3, a4, b;
        _cleanup_(message_unrefp) Message *refused = NULL, *again = NULL;

        harness_start(&h, CONFIG(LIMIT("max_connections_per_label", "2")));
        connect_as(&h, &a1, "appA");
        connect_as(&h, &a2, "appA");
        refused = hello(&h, &a3, "appA");
        assert_limits_exceeded(refused, "label \"appA\" of UID 65534", "max_connections_per_label=2");
        /* The same uid under another label is served. */
        connect_as(&h, &b, "appB");
        /* One of appA's goes: room again. */
        client_close(&a1);
        harness_pump(&h);
        again = hello(&h, &a4, "appA");
        assert_return(again);
        client_close(&a2);
        client_close(&a3);
        client_close(&a4);
        client_close(&b);
        harness_stop(&h);
}

static uint32_t request_name(Harness *h, Client *c, const char *name, Message **ret) {
        _cleanup_(message_unrefp) Message *reply = driver_call(h, c, "RequestName", "su", name, 0);
        uint32_t code = 0;

        assert_non_null(reply);
        if (message_get_type(reply) == MESSAGE_METHOD_RETURN)
                assert_int_equal(message_read(reply, "u", &code), 0);
        if (ret)
                *ret = TAKE_PTR(reply);
        return code;
}

static void test_names(void **state) {
        Harness h;
        Client a1, a2, b;
        _cleanup_(message_unrefp) Message *refused = NULL, *released = NULL;

        harness_start(&h, CONFIG(LIMIT("max_names_per_label", "2")));
        connect_as(&h, &a1, "appA");
        connect_as(&h, &a2, "appA");
        connect_as(&h, &b, "appB");
        assert_int_equal(request_name(&h, &a1, "org.mssf.A1", NULL), 1);
        assert_int_equal(request_name(&h, &a2, "org.mssf.A2", NULL), 1);
        assert_int_equal(request_name(&h, &a1, "org.mssf.A3", &refused), 0);
        assert_limits_exceeded(refused, "label \"appA\" of UID 65534 owns or waits for 2 names",
                               "max_names_per_label=2");
        /* B's one name, and B waiting in A's queue, are B's. */
        assert_int_equal(request_name(&h, &b, "org.mssf.B", NULL), 1);
        assert_int_equal(request_name(&h, &b, "org.mssf.A1", NULL), 2);
        released = driver_call(&h, &a2, "ReleaseName", "s", "org.mssf.A2");
        assert_return(released);
        assert_int_equal(request_name(&h, &a1, "org.mssf.A3", NULL), 1);
        client_close(&a1);
        client_close(&a2);
        client_close(&b);
        harness_stop(&h);
}

static void test_match_rules(void **state) {
        Harness h;
        Client a1, a2, b;
        _cleanup_(message_unrefp) Message *refused = NULL, *later = NULL, *ok = NULL;

        harness_start(&h, CONFIG(LIMIT("max_match_rules_per_label", "3")));
        connect_as(&h, &a1, "appA");
        connect_as(&h, &a2, "appA");
        connect_as(&h, &b, "appB");
        client_add_match(&h, &a1, "member='M1'");
        client_add_match(&h, &a1, "member='M2'");
        client_add_match(&h, &a2, "member='M3'");
        refused = driver_call(&h, &a2, "AddMatch", "s", "member='M4'");
        assert_limits_exceeded(refused, "label \"appA\" of UID 65534 has 3", "max_match_rules_per_label=3");
        ok = driver_call(&h, &b, "AddMatch", "s", "member='B1'");
        assert_return(ok);
        /* a1's rules go with it. */
        client_close(&a1);
        harness_pump(&h);
        later = driver_call(&h, &a2, "AddMatch", "s", "member='M4'");
        assert_return(later);
        client_close(&a2);
        client_close(&b);
        harness_stop(&h);
}

static void test_pending_replies(void **state) {
        Harness h;
        Client a1, a2, b;
        _cleanup_(message_unrefp) Message *refused = NULL, *call = NULL, *answered = NULL, *b_call = NULL;
        _cleanup_(message_builder_freep) MessageBuilder *reply = NULL;
        _cleanup_(message_unrefp) Message *reply_m = NULL;
        uint32_t serial;

        harness_start(&h, CONFIG(LIMIT("max_replies_per_label", "2")));
        connect_as(&h, &a1, "appA");
        connect_as(&h, &a2, "appA");
        connect_as(&h, &b, "appB");
        client_call(&h, &a1, b.unique_name, "/p", "org.mssf.T", "Slow", "");
        client_call(&h, &a2, b.unique_name, "/p", "org.mssf.T", "Slow", "");
        serial = client_call(&h, &a2, b.unique_name, "/p", "org.mssf.T", "Slow", "");
        refused = client_wait_reply(&h, &a2, serial);
        assert_limits_exceeded(refused, "pending replies for label \"appA\" of UID 65534",
                               "max_replies_per_label=2");
        /* B may still call A: its own label's replies. */
        serial = client_call(&h, &b, a1.unique_name, "/p", "org.mssf.T", "Ping", "");
        b_call = client_recv(&h, &a1);
        assert_non_null(b_call);
        assert_string_equal(message_get_member(b_call), "Ping");
        /* B answers a1's call: appA may wait for one more. */
        call = client_recv(&h, &b);
        assert_non_null(call);
        assert_int_equal(message_new_method_return(call, NULL, &reply), 0);
        assert_int_equal(message_builder_set_serial(reply, b.serial++), 0);
        assert_int_equal(message_builder_finish(reply, &reply_m), 0);
        client_send(&h, &b, reply_m, NULL, 0);
        harness_pump(&h);
        serial = client_call(&h, &a2, b.unique_name, "/p", "org.mssf.T", "Fast", "");
        harness_pump(&h);
        answered = client_wait_reply(&h, &a2, serial);
        assert_null(answered);  /* pending, not refused */
        client_close(&a1);
        client_close(&a2);
        client_close(&b);
        harness_stop(&h);
}

/* The bus's end of c's socket takes as little as the kernel allows, so its queue fills. */
static void shrink_socket(Harness *h, Client *c) {
        int size = 1;

        assert_int_equal(setsockopt(bus_lookup_peer(h->bus, c->unique_name)->connection.fd, SOL_SOCKET,
                                    SO_SNDBUF, &size, sizeof(size)), 0);
}

static void drain(Harness *h, Client *c) {
        Message *m;

        while ((m = client_recv(h, c)))
                message_unref(m);
}

/* appA's two connections read nothing: together they may hold 35000 bytes. */
static void test_queued_bytes(void **state) {
        static char payload[10001];
        Harness h;
        Client a1, a2, b, c;
        _cleanup_(message_unrefp) Message *refused = NULL, *refused2 = NULL, *to_c = NULL;
        uint32_t serial = 0;
        Message *m;

        memset(payload, 'x', sizeof(payload) - 1);
        harness_start(&h, CONFIG(LIMIT("max_queued_bytes_per_label", "35000")));
        connect_as(&h, &a1, "appA");
        connect_as(&h, &a2, "appA");
        connect_as(&h, &b, "appB");
        connect_as(&h, &c, "appC");
        shrink_socket(&h, &a1);
        shrink_socket(&h, &a2);
        for (int i = 0; i < 10 && !refused; i++) {
                serial = client_call(&h, &b, i % 2 ? a2.unique_name : a1.unique_name, "/p", "org.mssf.T", "Fill",
                                     "s", payload);
                harness_pump(&h);
                refused = client_recv(&h, &b);
        }
        assert_non_null(refused);
        assert_int_equal(message_get_reply_serial(refused), serial);
        assert_limits_exceeded(refused, "the connections of label \"appA\" of UID 65534 hold",
                               "max_queued_bytes_per_label=35000");
        /* Each connection's own queue has room: it is their share that is full. */
        assert_true(bus_lookup_peer(h.bus, a1.unique_name)->connection.out_bytes < 35000 - 10000);
        serial = client_call(&h, &b, a1.unique_name, "/p", "org.mssf.T", "Fill", "s", payload);
        refused2 = client_wait_reply(&h, &b, serial);
        assert_limits_exceeded(refused2, "label \"appA\"", "max_queued_bytes_per_label=35000");
        /* Other labels' queues are theirs. */
        client_call(&h, &b, c.unique_name, "/p", "org.mssf.T", "Fill", "s", payload);
        to_c = client_recv(&h, &c);
        assert_non_null(to_c);
        assert_string_equal(message_get_member(to_c), "Fill");
        /* appA reads what it was sent: room again. */
        drain(&h, &a1);
        drain(&h, &a2);
        serial = client_call(&h, &b, a2.unique_name, "/p", "org.mssf.T", "Fill", "s", payload);
        harness_pump(&h);
        m = client_recv(&h, &b);
        assert_null(m);
        client_close(&a1);
        client_close(&a2);
        client_close(&b);
        client_close(&c);
        harness_stop(&h);
}

/*
 * Another label sends to one appA connection that never reads until appA's
 * share is full: that connection is refused, and the rest of appA goes
 * on: a reading connection gets what the bus owes it and calls from
 * others, and a new one says Hello, none of them disconnected; nor is the
 * one that does not read while its own queue has room for what the bus
 * owes it.
 */
static void test_frozen_connection_costs_only_itself(void **state) {
        static char payload[10001];
        _cleanup_(message_unrefp) Message *refused = NULL, *added = NULL, *welcome = NULL, *to_a2 = NULL,
                                          *subscribed = NULL;
        Harness h;
        Client a1, a2, a3, b;
        Message *m;

        memset(payload, 'x', sizeof(payload) - 1);
        harness_start(&h, CONFIG(LIMIT("max_queued_bytes_per_label", "35000")));
        connect_as(&h, &a1, "appA");
        connect_as(&h, &a2, "appA");
        connect_as(&h, &b, "appB");
        /* a1 asked for signals before it stopped reading: the bus owes it a3's NameOwnerChanged. */
        subscribed = driver_call(&h, &a1, "AddMatch", "s", "type='signal'");
        assert_return(subscribed);
        shrink_socket(&h, &a1);
        for (int i = 0; i < 10 && !refused; i++) {
                client_call(&h, &b, a1.unique_name, "/p", "org.mssf.T", "Fill", "s", payload);
                harness_pump(&h);
                refused = client_recv(&h, &b);
        }
        assert_non_null(refused);
        assert_limits_exceeded(refused, "label \"appA\"", "max_queued_bytes_per_label=35000");
        /* Topped up to just under the share with ever smaller calls. */
        for (size_t len = 5000; len >= 1; len /= 2) {
                for (int k = 0; k < 4; k++) {
                        payload[len] = 0;
                        client_call(&h, &b, a1.unique_name, "/p", "org.mssf.T", "Fill", "s", payload);
                        harness_pump(&h);
                        while ((m = client_recv(&h, &b)))
                                message_unref(m);
                }
        }
        added = driver_call(&h, &a2, "AddMatch", "s", "type='signal'");
        assert_return(added);
        assert_false(client_is_disconnected(&h, &a2));
        welcome = hello(&h, &a3, "appA");
        assert_return(welcome);
        assert_false(client_is_disconnected(&h, &a3));
        client_call(&h, &b, a2.unique_name, "/p", "org.mssf.T", "Fill", "s", "to a reading connection");
        harness_pump(&h);
        /* It subscribed to every signal: a3's NameOwnerChanged comes first. */
        while ((to_a2 = client_recv(&h, &a2)) && message_get_type(to_a2) == MESSAGE_SIGNAL)
                message_unref(to_a2);
        assert_non_null(to_a2);
        assert_string_equal(message_get_member(to_a2), "Fill");
        /* Its unread bytes keep client_is_disconnected() from seeing an end: ask the bus. */
        assert_non_null(bus_lookup_peer(h.bus, a1.unique_name));
        assert_false(bus_lookup_peer(h.bus, a1.unique_name)->doomed);
        client_close(&a1);
        client_close(&a2);
        client_close(&a3);
        client_close(&b);
        harness_stop(&h);
}

/* The entry of label in GetStats' LabelQuotas: key's value (t), or -1 if absent. */
static int64_t stats_value(Message *reply, const char *label, const char *key) {
        MessageReader r;
        int64_t found = -1;

        message_reader_init(&r, reply);
        assert_int_equal(message_reader_enter(&r, 'a', "{sv}"), 0);
        while (!message_reader_at_end(&r)) {
                const char *name;

                assert_int_equal(message_reader_enter(&r, 'e', "sv"), 0);
                assert_int_equal(message_reader_read_basic(&r, 's', &name), 0);
                if (strcmp(name, "LabelQuotas") != 0) {
                        assert_int_equal(message_reader_skip(&r), 0);
                        assert_int_equal(message_reader_exit(&r), 0);
                        continue;
                }
                assert_int_equal(message_reader_enter(&r, 'v', "aa{sv}"), 0);
                assert_int_equal(message_reader_enter(&r, 'a', "a{sv}"), 0);
                while (!message_reader_at_end(&r)) {
                        bool ours = false;
                        int64_t value = -1;

                        assert_int_equal(message_reader_enter(&r, 'a', "{sv}"), 0);
                        while (!message_reader_at_end(&r)) {
                                const char *k, *s;
                                uint64_t t;

                                assert_int_equal(message_reader_enter(&r, 'e', "sv"), 0);
                                assert_int_equal(message_reader_read_basic(&r, 's', &k), 0);
                                if (strcmp(k, "Label") == 0) {
                                        assert_int_equal(message_reader_enter(&r, 'v', "s"), 0);
                                        assert_int_equal(message_reader_read_basic(&r, 's', &s), 0);
                                        assert_int_equal(message_reader_exit(&r), 0);
                                        ours = strcmp(s, label) == 0;
                                } else if (strcmp(k, key) == 0) {
                                        assert_int_equal(message_reader_enter(&r, 'v', "t"), 0);
                                        assert_int_equal(message_reader_read_basic(&r, 't', &t), 0);
                                        assert_int_equal(message_reader_exit(&r), 0);
                                        value = (int64_t) t;
                                } else {
                                        assert_int_equal(message_reader_skip(&r), 0);
                                }
                                assert_int_equal(message_reader_exit(&r), 0);
                        }
                        assert_int_equal(message_reader_exit(&r), 0);
                        if (ours)
                                found = value;
                }
                assert_int_equal(message_reader_exit(&r), 0);
                assert_int_equal(message_reader_exit(&r), 0);
                assert_int_equal(message_reader_exit(&r), 0);
        }
        return found;
}

static void test_stats(void **state) {
        Harness h;
        Client a1, a2, a3, b;
        _cleanup_(message_unrefp) Message *refused = NULL, *stats = NULL, *after = NULL;

        harness_start(&h, CONFIG(LIMIT("max_connections_per_label", "2")));
        connect_as(&h, &a1, "appA");
        connect_as(&h, &a2, "appA");
        connect_as(&h, &b, "appB");
        refused = hello(&h, &a3, "appA");
        assert_limits_exceeded(refused, "appA", "max_connections_per_label");
        assert_int_equal(request_name(&h, &b, "org.mssf.B", NULL), 1);
        stats = driver_call(&h, &b, "GetStats", "");
        assert_return(stats);
        assert_int_equal(stats_value(stats, "appA", "Connections"), 2);
        assert_int_equal(stats_value(stats, "appA", "Refused:Connections"), 1);
        assert_int_equal(stats_value(stats, "appB", "Connections"), 1);
        assert_int_equal(stats_value(stats, "appB", "Names"), 1);
        assert_int_equal(stats_value(stats, "appB", "Refused:Connections"), 0);
        /* A label that refused something is shown after its connections went. */
        client_close(&a1);
        client_close(&a2);
        client_close(&a3);
        harness_pump(&h);
        after = driver_call(&h, &b, "GetStats", "");
        assert_int_equal(stats_value(after, "appA", "Connections"), 0);
        assert_int_equal(stats_value(after, "appA", "Refused:Connections"), 1);
        client_close(&b);
        harness_stop(&h);
}

/* The bus's own uid is never refused by label; without Smack nobody is. */
static void test_exempt_and_without_smack(void **state) {
        Harness h;
        Client c[3];

        for (int pass = 0; pass < 2; pass++) {
                if (pass == 0)
                        fake_uid = false;
                else
                        smack = false;
                harness_start(&h, CONFIG(LIMIT("max_connections_per_label", "1")
                                         LIMIT("max_names_per_label", "0")));
                for (int i = 0; i < 3; i++)
                        connect_as(&h, &c[i], "appA");
                assert_int_equal(request_name(&h, &c[0], "org.mssf.Free", NULL), 1);
                for (int i = 0; i < 3; i++)
                        client_close(&c[i]);
                harness_stop(&h);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup(test_connections, setup),
                cmocka_unit_test_setup(test_names, setup),
                cmocka_unit_test_setup(test_match_rules, setup),
                cmocka_unit_test_setup(test_pending_replies, setup),
                cmocka_unit_test_setup(test_queued_bytes, setup),
                cmocka_unit_test_setup(test_frozen_connection_costs_only_itself, setup),
                cmocka_unit_test_setup(test_stats, setup),
                cmocka_unit_test_setup(test_exempt_and_without_smack, setup),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
