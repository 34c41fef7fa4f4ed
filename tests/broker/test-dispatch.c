/* Unit tests for routing (broker/bus/dispatch.c, peer.c) on an in-process bus. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "bus-harness.h"

#define CONFIG_HEAD "<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen>"
#define CONFIG_POLICY "<policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>" \
        "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy>"
#define CONFIG CONFIG_HEAD CONFIG_POLICY "</busconfig>"

static const char *error_name_of(Message *m) {
        assert_non_null(m);
        assert_int_equal(message_get_type(m), MESSAGE_ERROR);
        return message_get_error_name(m);
}

static int setup(void **state) {
        static Harness h;

        harness_start(&h, CONFIG);
        *state = &h;
        return 0;
}

static int teardown(void **state) {
        harness_stop(*state);
        return 0;
}

static void request_name(Harness *h, Client *c, const char *name) {
        _cleanup_(message_unrefp) Message *reply = NULL;
        uint32_t serial, result;

        serial = client_call(h, c, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus", "RequestName", "su", name, 0);
        reply = client_wait_reply(h, c, serial);
        assert_non_null(reply);
        assert_int_equal(message_read(reply, "u", &result), 0);
        assert_int_equal(result, 1);
}

static void test_hello_names_are_unique(void **state) {
        Harness *h = *state;
        Client a, b;

        client_connect(h, &a, false, true);
        client_connect(h, &b, false, true);
        assert_true(a.unique_name[0] == ':');
        assert_string_not_equal(a.unique_name, b.unique_name);
        client_close(&a);
        client_close(&b);
}

/* As dbus-daemon: a call before Hello is refused, and Hello still works after it. */
static void test_call_before_hello_denied(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *error = NULL, *reply = NULL;
        Client a;
        uint32_t serial;

        client_connect(h, &a, false, false);
        serial = client_call(h, &a, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                             "ListNames", "");
        error = client_wait_reply(h, &a, serial);
        assert_non_null(error);
        assert_string_equal(message_get_error_name(error), "org.freedesktop.DBus.Error.AccessDenied");
        serial = client_call(h, &a, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                             "Hello", "");
        reply = client_wait_reply(h, &a, serial);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
        client_close(&a);
}

/* A call by well-known name reaches the owner with SENDER stamped; the reply goes back once. */
static void test_call_and_reply(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *call = NULL, *reply = NULL, *dup = NULL;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL, *b2 = NULL;
        _cleanup_(message_unrefp) Message *ret = NULL, *ret2 = NULL;
        Client service, caller;
        const char *text;
        uint32_t serial;

        client_connect(h, &service, false, true);
        client_connect(h, &caller, false, true);
        request_name(h, &service, "org.example.Echo");
        while ((call = client_recv(h, &service)))
                call = message_unref(call);     /* NameAcquired */

        serial = client_call(h, &caller, "org.example.Echo", "/", "org.example.Echo", "Echo", "s", "hi");
        call = client_recv(h, &service);
        assert_non_null(call);
        assert_string_equal(message_get_member(call), "Echo");
        assert_string_equal(message_get_sender(call), caller.unique_name);
        assert_int_equal(message_get_serial(call), serial);

        assert_int_equal(message_new_method_return(call, NULL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, 100), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "hi"), 0);
        assert_int_equal(message_builder_finish(b, &ret), 0);
        client_send(h, &service, ret, NULL, 0);
        reply = client_recv(h, &caller);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
        assert_string_equal(message_get_sender(reply), service.unique_name);
        assert_int_equal(message_read(reply, "s", &text), 0);
        assert_string_equal(text, "hi");

        /*
         * The same reply again is unrequested now: judged by busconfig as
         * dbus-daemon judges it. This policy's eavesdrop="true" allow rule
         * admits it (as session.conf's does), so it is delivered.
         */
        assert_int_equal(message_new_method_return(call, NULL, &b2), 0);
        assert_int_equal(message_builder_set_serial(b2, 101), 0);
        assert_int_equal(message_builder_finish(b2, &ret2), 0);
        client_send(h, &service, ret2, NULL, 0);
        dup = client_recv(h, &caller);
        assert_non_null(dup);
        assert_int_equal(message_get_reply_serial(dup), serial);
        client_close(&service);
        client_close(&caller);
}

static void test_spoofed_sender_is_replaced(void **state) {
        Harness *h = *state;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL, *got = NULL;
        Client a, b_client;

        client_connect(h, &a, false, true);
        client_connect(h, &b_client, false, true);
        assert_int_equal(message_builder_new(MESSAGE_SIGNAL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, 9), 0);
        assert_int_equal(message_builder_set_path(b, "/"), 0);
        assert_int_equal(message_builder_set_interface(b, "org.example.X"), 0);
        assert_int_equal(message_builder_set_member(b, "Y"), 0);
        assert_int_equal(message_builder_set_sender(b, "org.freedesktop.DBus"), 0);
        assert_int_equal(message_builder_set_destination(b, b_client.unique_name), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(h, &a, m, NULL, 0);
        got = client_recv(h, &b_client);
        assert_non_null(got);
        assert_string_equal(message_get_sender(got), a.unique_name);
        client_close(&a);
        client_close(&b_client);
}

static void test_unknown_destination(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *e1 = NULL, *e2 = NULL;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;
        Client a;
        uint32_t serial;

        client_connect(h, &a, false, true);
        serial = client_call(h, &a, "org.example.Nobody", "/", "org.example.X", "Y", "");
        e1 = client_wait_reply(h, &a, serial);
        assert_string_equal(error_name_of(e1), "org.freedesktop.DBus.Error.ServiceUnknown");

        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, 77), 0);
        assert_int_equal(message_builder_set_flags(b, MESSAGE_FLAG_NO_AUTO_START), 0);
        assert_int_equal(message_builder_set_destination(b, ":1.9999"), 0);
        assert_int_equal(message_builder_set_path(b, "/"), 0);
        assert_int_equal(message_builder_set_member(b, "Y"), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(h, &a, m, NULL, 0);
        e2 = client_wait_reply(h, &a, 77);
        assert_string_equal(error_name_of(e2), "org.freedesktop.DBus.Error.NameHasNoOwner");
        client_close(&a);
}

/* As dbus-daemon: for the bus itself, not broadcast; answered with libdbus's UnknownMethod text. */
static void test_call_without_destination(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *error = NULL, *none = NULL;
        Client a, watcher;
        const char *text;
        uint32_t serial;

        client_connect(h, &a, false, true);
        client_connect(h, &watcher, false, true);
        client_add_match(h, &watcher, "type='method_call'");
        serial = client_call(h, &a, NULL, "/nowhere", "org.example.I", "Lost", "");
        error = client_wait_reply(h, &a, serial);
        assert_string_equal(error_name_of(error), "org.freedesktop.DBus.Error.UnknownMethod");
        assert_int_equal(message_read(error, "s", &text), 0);
        assert_string_equal(text, "Method \"Lost\" with signature \"\" on interface \"org.example.I\" doesn't exist\n");
        none = client_recv(h, &watcher);
        while (none && message_get_type(none) == MESSAGE_SIGNAL)
                none = (message_unref(none), client_recv(h, &watcher));
        assert_null(none);
        client_close(&a);
        client_close(&watcher);
}

static Message *unicast_signal(const char *destination, uint32_t serial, uint8_t flags) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        Message *m = NULL;

        assert_int_equal(message_new_signal(NULL, "/", "org.example.S", "Nowhere", &b), 0);
        assert_int_equal(message_builder_set_serial(b, serial), 0);
        assert_int_equal(message_builder_set_flags(b, flags), 0);
        assert_int_equal(message_builder_set_destination(b, destination), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        return m;
}

/* dbus-daemon answers a unicast signal to nobody, NO_REPLY_EXPECTED or not (GDBus sets it on signals). */
static void test_unicast_signal_to_missing_name(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *quiet = unicast_signal("org.example.Nobody", 60, MESSAGE_FLAG_NO_REPLY_EXPECTED);
        _cleanup_(message_unrefp) Message *loud = unicast_signal("org.example.Nobody", 61, 0);
        _cleanup_(message_unrefp) Message *error = NULL, *error2 = NULL;
        Client a;

        client_connect(h, &a, false, true);
        client_send(h, &a, quiet, NULL, 0);
        error = client_wait_reply(h, &a, 60);
        assert_string_equal(error_name_of(error), "org.freedesktop.DBus.Error.ServiceUnknown");
        client_send(h, &a, loud, NULL, 0);
        error2 = client_wait_reply(h, &a, 61);
        assert_string_equal(error_name_of(error2), "org.freedesktop.DBus.Error.ServiceUnknown");
        client_close(&a);
}

static void test_callee_disconnect_sends_no_reply(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *call = NULL, *error = NULL;
        Client service, caller;
        uint32_t serial;

        client_connect(h, &service, false, true);
        client_connect(h, &caller, false, true);
        serial = client_call(h, &caller, service.unique_name, "/", "org.example.X", "Y", "");
        call = client_recv(h, &service);
        assert_non_null(call);
        client_close(&service);
        error = client_wait_reply(h, &caller, serial);
        assert_string_equal(error_name_of(error), "org.freedesktop.DBus.Error.NoReply");
        client_close(&caller);
}

static void test_broadcast_needs_match(void **state) {
        Harness *h = *state;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL, *got = NULL, *none = NULL;
        Client sender, listener, deaf;

        client_connect(h, &sender, false, true);
        client_connect(h, &listener, false, true);
        client_connect(h, &deaf, false, true);
        client_add_match(h, &listener, "type='signal',interface='org.example.Sig'");
        while ((got = client_recv(h, &listener)))
                got = message_unref(got);

        assert_int_equal(message_new_signal(NULL, "/a", "org.example.Sig", "Fired", &b), 0);
        assert_int_equal(message_builder_set_serial(b, 5), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(h, &sender, m, NULL, 0);
        got = client_recv(h, &listener);
        assert_non_null(got);
        assert_string_equal(message_get_member(got), "Fired");
        assert_string_equal(message_get_sender(got), sender.unique_name);
        none = client_recv(h, &deaf);
        while (none && strcmp(message_get_member(none), "NameOwnerChanged") == 0)
                none = (message_unref(none), client_recv(h, &deaf));
        assert_null(none);
        client_close(&sender);
        client_close(&listener);
        client_close(&deaf);
}

/* eavesdrop='true' rules see unicast messages to others, until removed. */
static void test_eavesdrop(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *copy = NULL, *removed = NULL, *none = NULL;
        Client a, b, spy;
        uint32_t serial;

        client_connect(h, &a, false, true);
        client_connect(h, &b, false, true);
        client_connect(h, &spy, false, true);
        client_add_match(h, &spy, "type='method_call',member='Secret'");
        assert_int_equal(h->bus->n_eavesdrop_rules, 0);
        client_add_match(h, &spy, "type='method_call',member='Secret',eavesdrop='true'");
        assert_int_equal(h->bus->n_eavesdrop_rules, 1);
        client_call(h, &a, b.unique_name, "/", "org.example.X", "Secret", "");
        copy = client_recv(h, &spy);
        while (copy && message_get_type(copy) == MESSAGE_SIGNAL)
                copy = (message_unref(copy), client_recv(h, &spy));
        assert_non_null(copy);
        assert_string_equal(message_get_member(copy), "Secret");
        assert_string_equal(message_get_destination(copy), b.unique_name);

        serial = client_call(h, &spy, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                             "RemoveMatch", "s", "type='method_call',member='Secret',eavesdrop='true'");
        removed = client_wait_reply(h, &spy, serial);
        assert_int_equal(message_get_type(removed), MESSAGE_METHOD_RETURN);
        assert_int_equal(h->bus->n_eavesdrop_rules, 0);
        client_call(h, &a, b.unique_name, "/", "org.example.X", "Secret", "");
        none = client_recv(h, &spy);
        while (none && message_get_type(none) == MESSAGE_SIGNAL)
                none = (message_unref(none), client_recv(h, &spy));
        assert_null(none);
        client_close(&a);
        client_close(&b);
        client_close(&spy);
}

static void test_fds_to_peer_without_fd_support(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *error = NULL, *got = NULL;
        Client sender, receiver;
        uint32_t serial;

        client_connect(h, &sender, true, true);
        client_connect(h, &receiver, false, true);
        serial = client_call(h, &sender, receiver.unique_name, "/", "org.example.X", "Fd", "h",
                             STDERR_FILENO);
        error = client_wait_reply(h, &sender, serial);
        assert_string_equal(error_name_of(error), "org.freedesktop.DBus.Error.NotSupported");
        got = client_recv(h, &receiver);
        assert_null(got);
        client_close(&sender);
        client_close(&receiver);
}

static void test_fds_are_passed(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *got = NULL;
        Client sender, receiver;
        const int *fds;
        size_t n_fds;

        client_connect(h, &sender, true, true);
        client_connect(h, &receiver, true, true);
        client_call(h, &sender, receiver.unique_name, "/", "org.example.X", "Fd", "h", STDERR_FILENO);
        got = client_recv(h, &receiver);
        assert_non_null(got);
        fds = message_get_unix_fds(got, &n_fds);
        assert_int_equal(n_fds, 1);
        assert_true(fds[0] >= 0);
        client_close(&sender);
        client_close(&receiver);
}

/* fds on a connection that did not negotiate them: the bus drops it. */
static void test_unnegotiated_fds_disconnect(void **state) {
        Harness *h = *state;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;
        Client a;
        int fd = STDERR_FILENO;

        client_connect(h, &a, false, true);
        assert_int_equal(message_builder_new(MESSAGE_SIGNAL, &b), 0);
        assert_int_equal(message_builder_set_path(b, "/"), 0);
        assert_int_equal(message_builder_set_interface(b, "org.example.X"), 0);
        assert_int_equal(message_builder_set_member(b, "Y"), 0);
        assert_int_equal(message_builder_append_fd(b, fd), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(h, &a, m, &fd, 1);
        assert_true(client_is_disconnected(h, &a));
        client_close(&a);
}

static void test_garbage_disconnects_only_that_client(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *reply = NULL;
        static const uint8_t garbage[32] = { 'x', 1, 0, 1 };
        Client bad, good;
        uint32_t serial;

        client_connect(h, &bad, false, true);
        client_connect(h, &good, false, true);
        assert_int_equal(write(bad.fd, garbage, sizeof(garbage)), sizeof(garbage));
        assert_true(client_is_disconnected(h, &bad));
        serial = client_call(h, &good, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus.Peer", "Ping", "");
        reply = client_wait_reply(h, &good, serial);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
        client_close(&bad);
        client_close(&good);
}

static void test_monitor_sees_calls(void **state) {
        Harness *h = *state;
        _cleanup_(message_unrefp) Message *reply = NULL, *copy = NULL;
        Client monitor, a, b;
        uint32_t serial;
        bool seen = false;

        client_connect(h, &monitor, false, true);
        client_connect(h, &a, false, true);
        client_connect(h, &b, false, true);
        serial = client_call(h, &monitor, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus.Monitoring", "BecomeMonitor", "");
        /* The signature is wrong without arguments: InvalidArgs. */
        reply = client_wait_reply(h, &monitor, serial);
        assert_string_equal(error_name_of(reply), "org.freedesktop.DBus.Error.InvalidArgs");
        reply = message_unref(reply);
        client_close(&monitor);

        client_connect(h, &monitor, false, true);
        {
                _cleanup_(message_builder_freep) MessageBuilder *builder = NULL;
                _cleanup_(message_unrefp) Message *m = NULL;
                uint32_t flags = 0;

                assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &builder), 0);
                assert_int_equal(message_builder_set_serial(builder, 50), 0);
                assert_int_equal(message_builder_set_destination(builder, "org.freedesktop.DBus"), 0);
                assert_int_equal(message_builder_set_path(builder, "/org/freedesktop/DBus"), 0);
                assert_int_equal(message_builder_set_interface(builder, "org.freedesktop.DBus.Monitoring"), 0);
                assert_int_equal(message_builder_set_member(builder, "BecomeMonitor"), 0);
                assert_int_equal(message_builder_open(builder, 'a', "s"), 0);
                /* A rule for calls: it must see calls between others (eavesdropping). */
                assert_int_equal(message_builder_append_basic(builder, 's', "type='method_call'"), 0);
                assert_int_equal(message_builder_close(builder), 0);
                assert_int_equal(message_builder_append_basic(builder, 'u', &flags), 0);
                assert_int_equal(message_builder_finish(builder, &m), 0);
                client_send(h, &monitor, m, NULL, 0);
        }
        reply = client_wait_reply(h, &monitor, 50);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);

        client_call(h, &a, b.unique_name, "/watched", "org.example.X", "Watched", "");
        while ((copy = client_recv(h, &monitor))) {
                if (message_get_member(copy) && strcmp(message_get_member(copy), "Watched") == 0)
                        seen = true;
                copy = message_unref(copy);
        }
        assert_true(seen);
        /* Signals do not match its rule. */
        client_call(h, &a, NULL, "/", "org.example.X", "NotACall", "");
        {
                _cleanup_(message_builder_freep) MessageBuilder *sb = NULL;
                _cleanup_(message_unrefp) Message *signal = NULL, *none = NULL;

                assert_int_equal(message_new_signal(NULL, "/", "org.example.X", "Sig", &sb), 0);
                assert_int_equal(message_builder_set_serial(sb, 1000), 0);
                assert_int_equal(message_builder_finish(sb, &signal), 0);
                client_send(h, &a, signal, NULL, 0);
                none = client_recv(h, &monitor);
                while (none && message_get_type(none) == MESSAGE_METHOD_CALL)
                        none = (message_unref(none), client_recv(h, &monitor));
                assert_null(none);
        }
        /* A monitor that sends anything is dropped. */
        client_call(h, &monitor, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.Peer", "Ping", "");
        assert_true(client_is_disconnected(h, &monitor));
        client_close(&monitor);
        client_close(&a);
        client_close(&b);
}

static void test_outgoing_quota(void **state) {
        Harness h;
        _cleanup_(message_unrefp) Message *error = NULL;
        Client slow, fast;
        uint32_t serial = 0;
        bool limited = false;

        harness_start(&h, CONFIG_HEAD CONFIG_POLICY
                      "<limit name=\"max_outgoing_bytes\">4096</limit></busconfig>");
        client_connect(&h, &slow, false, true);
        client_connect(&h, &fast, false, true);
        /* slow never reads; its socket buffer fills, then its queue. */
        for (int i = 0; i < 4000 && !limited; i++) {
                char text[1024];

                memset(text, 'x', sizeof(text) - 1);
                text[sizeof(text) - 1] = 0;
                serial = client_call(&h, &fast, slow.unique_name, "/", "org.example.X", "Big", "s", text);
                error = client_recv(&h, &fast);
                if (error) {
                        limited = true;
                        assert_int_equal(message_get_reply_serial(error), serial);
                        assert_string_equal(error_name_of(error),
                                            "org.freedesktop.DBus.Error.LimitsExceeded");
                }
        }
        assert_true(limited);
        client_close(&slow);
        client_close(&fast);
        harness_stop(&h);
}

static Peer *peer_of(Harness *h, Client *c) {
        Peer *peer = strmap_get(&h->bus->peers_by_name, c->unique_name);

        assert_non_null(peer);
        return peer;
}

/* A ~1 KiB method call or signal with index i (of a sender that floods). */
static void send_chunk(Harness *h, Client *sender, const char *destination, uint32_t i) {
        char text[1024];

        memset(text, 'a' + i % 26, sizeof(text) - 1);
        text[sizeof(text) - 1] = 0;
        if (destination)
                client_call(h, sender, destination, "/", "org.example.X", "Chunk", "us", i, text);
        else
                client_signal(h, sender, "/", "org.example.X", "Chunk", "us", i, text);
}

/*
 * A recipient that does not read: once its queue is full (max_outgoing_bytes)
 * the calls for it are refused with LimitsExceeded, counted, and the sender
 * is not slowed down: its messages to others keep going. What was queued
 * arrives, in order, once the recipient reads.
 */
static void test_full_queue_refuses_without_stalling(void **state) {
        Harness h;
        Client sender, receiver, other;
        int small = 4096;
        uint32_t next = 1, refused = 0, last_accepted = 0;

        harness_start(&h, CONFIG_HEAD CONFIG_POLICY
                      "<limit name=\"max_outgoing_bytes\">8192</limit>"
                      "<limit name=\"max_incoming_bytes\">8192</limit></busconfig>");
        client_connect(&h, &sender, false, true);
        client_connect(&h, &receiver, false, true);
        client_connect(&h, &other, false, true);
        client_add_match(&h, &other, "interface='org.example.X'");
        assert_int_equal(setsockopt(receiver.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
        assert_int_equal(setsockopt(peer_of(&h, &receiver)->connection.fd, SOL_SOCKET, SO_SNDBUF,
                                    &small, sizeof(small)), 0);
        for (uint32_t i = 1; i <= 60; i++)
                send_chunk(&h, &sender, receiver.unique_name, i);
        for (;;) {
                _cleanup_(message_unrefp) Message *m = client_recv(&h, &sender);

                if (!m)
                        break;
                if (message_get_type(m) == MESSAGE_ERROR) {
                        assert_string_equal(message_get_error_name(m), "org.freedesktop.DBus.Error.LimitsExceeded");
                        refused++;
                }
        }
        assert_true(refused > 0);
        assert_int_equal(h.bus->flow.refused, refused);
        /* The sender is still read: its broadcast reaches the subscriber at once. */
        send_chunk(&h, &sender, NULL, 61);
        {
                _cleanup_(message_unrefp) Message *m = client_recv(&h, &other);
                uint32_t index;
                const char *text;

                assert_non_null(m);
                assert_int_equal(message_read(m, "us", &index, &text), 0);
                assert_int_equal(index, 61);
        }
        /* The receiver reads: the calls not refused arrive, in order. */
        while (next + refused <= 60) {
                _cleanup_(message_unrefp) Message *m = client_recv(&h, &receiver);
                uint32_t index;
                const char *text;

                assert_non_null(m);
                if (message_get_type(m) != MESSAGE_METHOD_CALL)
                        continue;
                assert_int_equal(message_read(m, "us", &index, &text), 0);
                assert_true(index > last_accepted);
                last_accepted = index;
                next++;
        }
        client_close(&sender);
        client_close(&receiver);
        client_close(&other);
        harness_stop(&h);
}

/*
 * A subscriber that does not read: once a signal it subscribed to does not
 * fit its queue it is disconnected (after the batch), counted, and the
 * other subscriber gets every signal.
 */
static void test_stuck_subscriber_disconnected(void **state) {
        Harness h;
        Client sender, stuck, other;
        int small = 4096;
        uint32_t got = 0;

        harness_start(&h, CONFIG_HEAD CONFIG_POLICY
                      "<limit name=\"max_outgoing_bytes\">8192</limit></busconfig>");
        client_connect(&h, &sender, false, true);
        client_connect(&h, &stuck, false, true);
        client_connect(&h, &other, false, true);
        client_add_match(&h, &stuck, "interface='org.example.X'");
        client_add_match(&h, &other, "interface='org.example.X'");
        assert_int_equal(setsockopt(stuck.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
        assert_int_equal(setsockopt(peer_of(&h, &stuck)->connection.fd, SOL_SOCKET, SO_SNDBUF,
                                    &small, sizeof(small)), 0);
        for (uint32_t i = 1; i <= 60; i++) {
                send_chunk(&h, &sender, NULL, i);
                for (;;) {
                        _cleanup_(message_unrefp) Message *m = client_recv(&h, &other);

                        if (!m)
                                break;
                        if (message_get_type(m) == MESSAGE_SIGNAL &&
                            strcmp(message_get_member(m), "Chunk") == 0)
                                got++;
                }
        }
        assert_int_equal(got, 60);
        assert_int_equal(h.bus->flow.disconnected, 1);
        assert_null(strmap_get(&h.bus->peers_by_name, stuck.unique_name));
        client_close(&sender);
        client_close(&stuck);
        client_close(&other);
        harness_stop(&h);
}

static void test_reply_timeout(void **state) {
        Harness h;
        _cleanup_(message_unrefp) Message *call = NULL, *error = NULL;
        Client service, caller;
        uint32_t serial;

        harness_start(&h, CONFIG_HEAD CONFIG_POLICY
                      "<limit name=\"reply_timeout\">20</limit></busconfig>");
        client_connect(&h, &service, false, true);
        client_connect(&h, &caller, false, true);
        serial = client_call(&h, &caller, service.unique_name, "/", "org.example.X", "Slow", "");
        call = client_recv(&h, &service);
        assert_non_null(call);
        assert_null(client_recv(&h, &caller));
        usleep(30 * 1000);
        error = client_wait_reply(&h, &caller, serial);
        assert_string_equal(error_name_of(error), "org.freedesktop.DBus.Error.NoReply");
        client_close(&service);
        client_close(&caller);
        harness_stop(&h);
}

static void test_max_replies(void **state) {
        Harness h;
        _cleanup_(message_unrefp) Message *error = NULL;
        Client service, caller;
        uint32_t serial;

        harness_start(&h, CONFIG_HEAD CONFIG_POLICY
                      "<limit name=\"max_replies_per_connection\">2</limit></busconfig>");
        client_connect(&h, &service, false, true);
        client_connect(&h, &caller, false, true);
        client_call(&h, &caller, service.unique_name, "/", "org.example.X", "A", "");
        client_call(&h, &caller, service.unique_name, "/", "org.example.X", "B", "");
        serial = client_call(&h, &caller, service.unique_name, "/", "org.example.X", "C", "");
        error = client_wait_reply(&h, &caller, serial);
        assert_string_equal(error_name_of(error), "org.freedesktop.DBus.Error.LimitsExceeded");
        client_close(&service);
        client_close(&caller);
        harness_stop(&h);
}

static bool fd_hung_up(Harness *h, int fd) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        uint8_t byte;

        harness_pump(h);
        return poll(&p, 1, 0) == 1 && recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* Who does not authenticate and say Hello within auth_timeout is dropped. */
static void test_auth_timeout(void **state) {
        Harness h;
        int sv[2];

        harness_start(&h, CONFIG_HEAD CONFIG_POLICY
                      "<limit name=\"auth_timeout\">20</limit></busconfig>");
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
        assert_int_equal(bus_accept(h.bus, sv[0]), 0);
        assert_false(fd_hung_up(&h, sv[1]));
        usleep(30 * 1000);
        assert_true(fd_hung_up(&h, sv[1]));
        close(sv[1]);
        harness_stop(&h);
}

/*
 * As dbus-daemon: at max_incomplete_connections the bus stops accepting
 * (clients wait in the listen backlog, not dropped) and resumes once one
 * completes Hello or goes.
 */
static void test_max_incomplete_connections(void **state) {
        Harness h;
        int first[2];
        Client done, second;

        harness_start(&h, CONFIG_HEAD CONFIG_POLICY
                      "<limit name=\"max_incomplete_connections\">1</limit></busconfig>");
        assert_false(h.bus->accepting_paused);
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, first), 0);
        assert_int_equal(bus_accept(h.bus, first[0]), 0);
        assert_true(h.bus->accepting_paused);
        assert_false(fd_hung_up(&h, first[1]));
        /* Once the first is gone, accepting resumes and a newcomer gets through to Hello. */
        close(first[1]);
        harness_pump(&h);
        assert_false(h.bus->accepting_paused);
        client_connect(&h, &done, false, true);
        assert_true(done.unique_name[0] == ':');
        /* A connection that completes Hello frees its slot too. */
        assert_false(h.bus->accepting_paused);
        client_connect(&h, &second, false, false);
        assert_true(h.bus->accepting_paused);
        client_close(&second);
        harness_pump(&h);
        assert_false(h.bus->accepting_paused);
        client_close(&done);
        harness_stop(&h);
}

static void test_max_completed_connections(void **state) {
        Harness h;
        Client a, b;
        _cleanup_(message_unrefp) Message *error = NULL;
        uint32_t serial;

        harness_start(&h, CONFIG_HEAD CONFIG_POLICY
                      "<limit name=\"max_completed_connections\">1</limit></busconfig>");
        client_connect(&h, &a, false, true);
        client_connect(&h, &b, false, false);
        serial = client_call(&h, &b, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus", "Hello", "");
        error = client_wait_reply(&h, &b, serial);
        assert_string_equal(error_name_of(error), "org.freedesktop.DBus.Error.LimitsExceeded");
        client_close(&a);
        client_close(&b);
        harness_stop(&h);
}

static void test_max_connections_per_user(void **state) {
        Harness h;
        Client a, b;
        _cleanup_(message_unrefp) Message *error = NULL;
        uint32_t serial;

        harness_start(&h, CONFIG_HEAD CONFIG_POLICY
                      "<limit name=\"max_connections_per_user\">1</limit></busconfig>");
        client_connect(&h, &a, false, true);
        client_connect(&h, &b, false, false);
        serial = client_call(&h, &b, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus", "Hello", "");
        error = client_wait_reply(&h, &b, serial);
        assert_string_equal(error_name_of(error), "org.freedesktop.DBus.Error.LimitsExceeded");
        client_close(&a);
        client_close(&b);
        harness_stop(&h);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_hello_names_are_unique, setup, teardown),
                cmocka_unit_test_setup_teardown(test_call_before_hello_denied, setup, teardown),
                cmocka_unit_test_setup_teardown(test_call_and_reply, setup, teardown),
                cmocka_unit_test_setup_teardown(test_spoofed_sender_is_replaced, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unknown_destination, setup, teardown),
                cmocka_unit_test_setup_teardown(test_call_without_destination, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unicast_signal_to_missing_name, setup, teardown),
                cmocka_unit_test_setup_teardown(test_callee_disconnect_sends_no_reply, setup, teardown),
                cmocka_unit_test_setup_teardown(test_broadcast_needs_match, setup, teardown),
                cmocka_unit_test_setup_teardown(test_eavesdrop, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fds_to_peer_without_fd_support, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fds_are_passed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unnegotiated_fds_disconnect, setup, teardown),
                cmocka_unit_test_setup_teardown(test_garbage_disconnects_only_that_client, setup, teardown),
                cmocka_unit_test_setup_teardown(test_monitor_sees_calls, setup, teardown),
                cmocka_unit_test(test_outgoing_quota),
                cmocka_unit_test(test_full_queue_refuses_without_stalling),
                cmocka_unit_test(test_stuck_subscriber_disconnected),
                cmocka_unit_test(test_reply_timeout),
                cmocka_unit_test(test_max_replies),
                cmocka_unit_test(test_max_connections_per_user),
                cmocka_unit_test(test_max_completed_connections),
                cmocka_unit_test(test_auth_timeout),
                cmocka_unit_test(test_max_incomplete_connections),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
