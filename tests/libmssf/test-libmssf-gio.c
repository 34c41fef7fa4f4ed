/*
 * libmssf's GDBus interface against a real bus without Smack (the built
 * mssf-broker) and against dbus-daemon: what a GLib service author relies
 * on beyond the answers (tests/libmssf/uml-libmssf.sh has those, under
 * real Smack):
 *  - names and tokens that cannot be a question are refused with
 *    MSSF_ERROR_INVALID_ARGUMENT before anything is sent;
 *  - the callback never runs before the call that started it returns,
 *    and runs in the caller's thread-default main context;
 *  - a cancelled question is G_IO_ERROR_CANCELLED;
 *  - every refusal of the bus has its MssfError, with the question in the
 *    message, and the answer is FALSE;
 *  - a call that came over a peer-to-peer connection has no bus to ask,
 *    whatever sender its peer wrote and however the peer would answer:
 *    MSSF_ERROR_NOT_A_BUS, in every form, and nothing is asked;
 *  - on a bus connection, an answer whose sender is not
 *    org.freedesktop.DBus is MSSF_ERROR_NOT_A_BUS, never "held"; one that
 *    is not exactly one boolean is an error, never "no";
 *  - dbus-daemon: MSSF_ERROR_NOT_SUPPORTED.
 *   test-libmssf-gio MSSF_BROKER [DBUS_DAEMON]
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <gio/gio.h>

#include "mssf/mssf-gio.h"
#include "test-bus.h"

static const char *broker_path, *reference_path;

static GDBusConnection *connect_to(const TestBus *bus) {
        g_autoptr(GError) error = NULL;
        GDBusConnection *connection = g_dbus_connection_new_for_address_sync(
                bus->address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL, &error);

        if (!connection)
                fail_msg("cannot connect to %s: %s", bus->address, error->message);
        return connection;
}

typedef struct Answer {
        gboolean done;
        gboolean held;
        GError *error;
        GMainContext *context;          /* where the callback ran */
} Answer;

static void answered(GObject *source, GAsyncResult *result, gpointer userdata) {
        Answer *answer = userdata;

        answer->held = mssf_check_token_finish(result, &answer->error);
        answer->context = g_main_context_get_thread_default();
        answer->done = TRUE;
}

/* Iterates the thread-default main context (NULL: the global default one). */
static void wait_for(Answer *answer) {
        while (!answer->done)
                g_main_context_iteration(g_main_context_get_thread_default(), TRUE);
}

static void expect_error(gboolean held, GError *error, GQuark domain, int code, const char *text) {
        assert_false(held);
        if (!error)
                fail_msg("no error, expected %s %d", g_quark_to_string(domain), code);
        if (error->domain != domain || error->code != code)
                fail_msg("got %s %d (%s), expected %s %d", g_quark_to_string(error->domain), error->code,
                         error->message, g_quark_to_string(domain), code);
        if (text && !strstr(error->message, text))
                fail_msg("'%s' not in '%s'", text, error->message);
}

static void test_arguments(void **state) {
        TestBus bus;
        g_autoptr(GDBusConnection) connection = NULL;
        char long_token[300];
        GError *error = NULL;

        test_bus_start(&bus, broker_path);
        connection = connect_to(&bus);
        memset(long_token, 'x', sizeof(long_token) - 1);
        long_token[sizeof(long_token) - 1] = '\0';
        const char *bad_names[] = { "org.example.Service", ":", ":1", ":1..2", "", NULL };
        for (size_t i = 0; i < G_N_ELEMENTS(bad_names); i++) {
                gboolean held = mssf_check_token_sync(connection, bad_names[i], "work", NULL, &error);

                expect_error(held, error, MSSF_ERROR, MSSF_ERROR_INVALID_ARGUMENT, "Cannot ask whether");
                g_clear_error(&error);
        }
        const char *bad_tokens[] = { "", "two words", "tab\t", "caf\xc3\xa9", long_token, NULL };
        for (size_t i = 0; i < G_N_ELEMENTS(bad_tokens); i++) {
                gboolean held = mssf_check_token_sync(connection, ":1.1", bad_tokens[i], NULL, &error);

                expect_error(held, error, MSSF_ERROR, MSSF_ERROR_INVALID_ARGUMENT, "Cannot ask whether :1.1");
                g_clear_error(&error);
        }
        test_bus_stop(&bus);
}

/* The callback comes from the main loop, after the call returned, whatever the outcome. */
static void test_callback_from_main_loop(void **state) {
        TestBus bus;
        g_autoptr(GDBusConnection) connection = NULL;
        g_autoptr(GMainContext) context = g_main_context_new();
        Answer refused = { 0 }, asked = { 0 };

        test_bus_start(&bus, broker_path);
        g_main_context_push_thread_default(context);
        connection = connect_to(&bus);
        mssf_check_token(connection, "not-unique", "work", NULL, answered, &refused);
        assert_false(refused.done);
        mssf_check_token(connection, g_dbus_connection_get_unique_name(connection), "work", NULL, answered, &asked);
        assert_false(asked.done);
        wait_for(&refused);
        wait_for(&asked);
        assert_ptr_equal(refused.context, context);
        assert_ptr_equal(asked.context, context);
        expect_error(refused.held, refused.error, MSSF_ERROR, MSSF_ERROR_INVALID_ARGUMENT, "not a unique");
        /* A connection may ask about itself; there is no Smack on this host. */
        expect_error(asked.held, asked.error, MSSF_ERROR, MSSF_ERROR_SMACK_DISABLED,
                     "org.mssf.Broker1.Error.SmackDisabled");
        g_clear_error(&refused.error);
        g_clear_error(&asked.error);
        g_clear_object(&connection);
        g_main_context_pop_thread_default(context);
        test_bus_stop(&bus);
}

static void test_cancelled(void **state) {
        TestBus bus;
        g_autoptr(GDBusConnection) connection = NULL;
        g_autoptr(GCancellable) cancellable = g_cancellable_new();
        Answer answer = { 0 };
        GError *error = NULL;
        gboolean held;

        test_bus_start(&bus, broker_path);
        connection = connect_to(&bus);
        g_cancellable_cancel(cancellable);
        mssf_check_token(connection, g_dbus_connection_get_unique_name(connection), "work", cancellable,
                         answered, &answer);
        wait_for(&answer);
        /* GTask's own check: the cancellable decides, whatever the call returned. */
        expect_error(answer.held, answer.error, G_IO_ERROR, G_IO_ERROR_CANCELLED, NULL);
        g_clear_error(&answer.error);
        held = mssf_check_token_sync(connection, g_dbus_connection_get_unique_name(connection), "work",
                                     cancellable, &error);
        expect_error(held, error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cannot tell whether");
        g_clear_error(&error);
        test_bus_stop(&bus);
}

/* Each refusal of the bus, as its MssfError. */
static void test_bus_refusals(void **state) {
        TestBus bus;
        g_autoptr(GDBusConnection) service = NULL, other = NULL;
        GError *error = NULL;
        gboolean held;

        test_bus_start(&bus, broker_path);
        service = connect_to(&bus);
        other = connect_to(&bus);
        held = mssf_check_token_sync(service, g_dbus_connection_get_unique_name(other), "work", NULL, &error);
        expect_error(held, error, MSSF_ERROR, MSSF_ERROR_NOT_ALLOWED, "may ask CheckToken only about itself");
        g_clear_error(&error);
        held = mssf_check_token_sync(service, ":1.9999", "work", NULL, &error);
        expect_error(held, error, MSSF_ERROR, MSSF_ERROR_NO_SUCH_CONNECTION, "no such name");
        g_clear_error(&error);
        held = mssf_check_token_sync(service, g_dbus_connection_get_unique_name(service), "UID::root", NULL,
                                     &error);
        expect_error(held, error, MSSF_ERROR, MSSF_ERROR_INVALID_ARGUMENT, "POSIX credential");
        g_clear_error(&error);
        held = mssf_check_token_sync(service, g_dbus_connection_get_unique_name(service), "calendar::work",
                                     NULL, &error);
        expect_error(held, error, MSSF_ERROR, MSSF_ERROR_SMACK_DISABLED,
                     "Cannot tell whether :1.");
        g_clear_error(&error);
        test_bus_stop(&bus);
}

/* A GDBus service's method handler asks about its caller; the caller gets (held, error text). */
static void method_call(GDBusConnection *connection, const char *sender, const char *path,
                        const char *interface, const char *method, GVariant *parameters,
                        GDBusMethodInvocation *invocation, gpointer userdata) {
        GError *error = NULL;
        gboolean held = mssf_invocation_check_token_sync(invocation, "work", NULL, &error);

        g_dbus_method_invocation_return_value(invocation,
                                              g_variant_new("(bs)", held, error ? error->message : ""));
        g_clear_error(&error);
}

static const GDBusInterfaceVTable vtable = { .method_call = method_call };
static const char xml[] = "<node><interface name='org.mssf.T'><method name='M'>"
                          "<arg type='b' direction='out'/><arg type='s' direction='out'/></method></interface></node>";

static void call_done(GObject *source, GAsyncResult *result, gpointer userdata) {
        GVariant **ret = userdata;

        *ret = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, NULL);
        assert_non_null(*ret);
}

static void server_connected(GObject *source, GAsyncResult *result, gpointer userdata) {
        GDBusConnection **ret = userdata;

        *ret = g_dbus_connection_new_finish(result, NULL);
}

/* Over a peer-to-peer connection there is no bus (here no sender either): MSSF_ERROR_NOT_A_BUS. */
static void test_peer_to_peer_call(void **state) {
        g_autoptr(GDBusNodeInfo) node = g_dbus_node_info_new_for_xml(xml, NULL);
        g_autoptr(GDBusConnection) server = NULL, client = NULL;
        g_autoptr(GSocket) server_socket = NULL, client_socket = NULL;
        g_autoptr(GSocketConnection) server_stream = NULL, client_stream = NULL;
        g_autofree gchar *guid = g_dbus_generate_guid();
        g_autoptr(GVariant) reply = NULL;
        const char *text;
        gboolean held;
        int fds[2];

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
        server_socket = g_socket_new_from_fd(fds[0], NULL);
        client_socket = g_socket_new_from_fd(fds[1], NULL);
        server_stream = g_socket_connection_factory_create_connection(server_socket);
        client_stream = g_socket_connection_factory_create_connection(client_socket);
        g_dbus_connection_new(G_IO_STREAM(server_stream), guid,
                              G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_SERVER |
                              G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_ALLOW_ANONYMOUS,
                              NULL, NULL, server_connected, &server);
        client = g_dbus_connection_new_sync(G_IO_STREAM(client_stream), NULL,
                                            G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT, NULL, NULL, NULL);
        assert_non_null(client);
        while (!server)
                g_main_context_iteration(NULL, TRUE);
        assert_true(g_dbus_connection_register_object(server, "/t", node->interfaces[0], &vtable, NULL,
                                                      NULL, NULL) > 0);
        /* The handler runs in this thread's main context: call without blocking it. */
        g_dbus_connection_call(client, NULL, "/t", "org.mssf.T", "M", NULL, NULL, G_DBUS_CALL_FLAGS_NONE, -1,
                               NULL, call_done, &reply);
        while (!reply)
                g_main_context_iteration(NULL, TRUE);
        g_variant_get(reply, "(b&s)", &held, &text);
        assert_false(held);
        assert_non_null(strstr(text, "peer-to-peer"));
}

/*
 * The other end of a socketpair, as a forging peer or as a bus of the
 * service's choosing. Its filter answers Hello as a driver would (a bus
 * connection says Hello first) and every CheckToken with answer_body,
 * the SENDER of its answers written by itself; it runs in the
 * connection's worker thread, so it answers while a _sync question
 * blocks the main thread.
 */
typedef struct Peer {
        const char *answer_sender;      /* (nullable) the SENDER it writes on its answers to CheckToken */
        const char *answer_body;        /* GVariant text of its answer: "(true,)", "()", "('yes',)" */
        gint questions;                 /* CheckTokens it was sent (atomic) */
} Peer;

static GDBusMessage *peer_filter(GDBusConnection *connection, GDBusMessage *message, gboolean incoming,
                                 gpointer userdata) {
        Peer *peer = userdata;
        g_autoptr(GDBusMessage) answer = NULL;
        const char *interface = g_dbus_message_get_interface(message);
        const char *member = g_dbus_message_get_member(message);

        if (!incoming || g_dbus_message_get_message_type(message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
                return message;
        if (g_strcmp0(interface, "org.freedesktop.DBus") == 0 && g_strcmp0(member, "Hello") == 0) {
                answer = g_dbus_message_new_method_reply(message);
                g_dbus_message_set_sender(answer, "org.freedesktop.DBus");
                g_dbus_message_set_body(answer, g_variant_new("(s)", ":1.5"));
        } else if (g_strcmp0(interface, "org.mssf.Broker1") == 0 && g_strcmp0(member, "CheckToken") == 0) {
                g_atomic_int_inc(&peer->questions);
                answer = g_dbus_message_new_method_reply(message);
                if (peer->answer_sender)
                        g_dbus_message_set_sender(answer, peer->answer_sender);
                g_dbus_message_set_body(answer, g_variant_new_parsed(peer->answer_body));
        } else
                return message;
        g_dbus_connection_send_message(connection, answer, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
        g_object_unref(message);
        return NULL;
}

/* The service's four ways to ask about the caller of the call it handles, answering (held, error). */
static void reply_answer(GDBusMethodInvocation *invocation, gboolean held, GError *error) {
        g_dbus_method_invocation_return_value(
                invocation, g_variant_new("(bsis)", held, error ? g_quark_to_string(error->domain) : "",
                                          error ? error->code : -1, error ? error->message : ""));
        g_clear_error(&error);
}

static void answer_name(GObject *source, GAsyncResult *result, gpointer userdata) {
        GDBusMethodInvocation *invocation = userdata;
        GError *error = NULL;
        gboolean held = mssf_check_token_finish(result, &error);

        reply_answer(invocation, held, error);
}

static void answer_caller(GObject *source, GAsyncResult *result, gpointer userdata) {
        GError *error = NULL;
        gboolean held = mssf_invocation_check_token_finish(result, &error);

        reply_answer(G_DBUS_METHOD_INVOCATION(source), held, error);
}

static void asking_method_call(GDBusConnection *connection, const char *sender, const char *path,
                               const char *interface, const char *method, GVariant *parameters,
                               GDBusMethodInvocation *invocation, gpointer userdata) {
        GError *error = NULL;
        gboolean held;

        if (strcmp(method, "Async") == 0) {
                mssf_invocation_check_token(invocation, "work", NULL, answer_caller, NULL);
                return;
        }
        if (strcmp(method, "NameAsync") == 0) {
                mssf_check_token(connection, sender, "work", NULL, answer_name, invocation);
                return;
        }
        if (strcmp(method, "Sync") == 0)
                held = mssf_invocation_check_token_sync(invocation, "work", NULL, &error);
        else
                held = mssf_check_token_sync(connection, sender, "work", NULL, &error);
        reply_answer(invocation, held, error);
}

static const GDBusInterfaceVTable asking_vtable = { .method_call = asking_method_call };
static const char asking_xml[] =
        "<node><interface name='org.mssf.T'>"
        "<method name='Sync'><arg type='b' direction='out'/><arg type='s' direction='out'/>"
        "<arg type='i' direction='out'/><arg type='s' direction='out'/></method>"
        "<method name='Async'><arg type='b' direction='out'/><arg type='s' direction='out'/>"
        "<arg type='i' direction='out'/><arg type='s' direction='out'/></method>"
        "<method name='NameSync'><arg type='b' direction='out'/><arg type='s' direction='out'/>"
        "<arg type='i' direction='out'/><arg type='s' direction='out'/></method>"
        "<method name='NameAsync'><arg type='b' direction='out'/><arg type='s' direction='out'/>"
        "<arg type='i' direction='out'/><arg type='s' direction='out'/></method>"
        "</interface></node>";
static const char *const asking_methods[] = { "Sync", "Async", "NameSync", "NameAsync" };

/*
 * A service connection on one end of a socketpair, the peer on the other;
 * claim_bus: the service treats its end as a message bus connection (it
 * says Hello and takes the peer's word for its unique name, as it would
 * from a bus it chose). The peer's messages wait until its filter is in.
 */
static void connect_peer(gboolean claim_bus, Peer *peer, GDBusConnection **ret_service,
                         GDBusConnection **ret_peer) {
        g_autoptr(GSocket) service_socket = NULL, peer_socket = NULL;
        g_autoptr(GSocketConnection) service_stream = NULL, peer_stream = NULL;
        g_autofree gchar *guid = g_dbus_generate_guid();
        GDBusConnection *service = NULL, *other = NULL;
        int fds[2];

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        service_socket = g_socket_new_from_fd(fds[0], NULL);
        peer_socket = g_socket_new_from_fd(fds[1], NULL);
        service_stream = g_socket_connection_factory_create_connection(service_socket);
        peer_stream = g_socket_connection_factory_create_connection(peer_socket);
        g_dbus_connection_new(G_IO_STREAM(peer_stream), guid,
                              G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_SERVER |
                              G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_ALLOW_ANONYMOUS |
                              G_DBUS_CONNECTION_FLAGS_DELAY_MESSAGE_PROCESSING,
                              NULL, NULL, server_connected, &other);
        g_dbus_connection_new(G_IO_STREAM(service_stream), NULL,
                              G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                              (claim_bus ? G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION : 0),
                              NULL, NULL, server_connected, &service);
        while (!other)
                g_main_context_iteration(NULL, TRUE);
        g_dbus_connection_add_filter(other, peer_filter, peer, NULL);
        g_dbus_connection_start_message_processing(other);
        while (!service)
                g_main_context_iteration(NULL, TRUE);
        *ret_service = service;
        *ret_peer = other;
}

static void message_done(GObject *source, GAsyncResult *result, gpointer userdata) {
        GDBusMessage **ret = userdata;

        *ret = g_dbus_connection_send_message_with_reply_finish(G_DBUS_CONNECTION(source), result, NULL);
        assert_non_null(*ret);
}

/* The peer calls the service's method as ":1.42" (a SENDER it writes itself); the service's answer. */
static void call_from_peer(GDBusConnection *peer_connection, const char *method, gboolean *ret_held,
                                  GQuark *ret_domain, int *ret_code, char **ret_text) {
        g_autoptr(GDBusMessage) call = g_dbus_message_new_method_call(NULL, "/t", "org.mssf.T", method);
        g_autoptr(GDBusMessage) reply = NULL;
        const char *domain, *text;

        g_dbus_message_set_sender(call, ":1.42");
        g_dbus_connection_send_message_with_reply(peer_connection, call, G_DBUS_SEND_MESSAGE_FLAGS_NONE, -1,
                                                  NULL, NULL, message_done, &reply);
        while (!reply)
                g_main_context_iteration(NULL, TRUE);
        if (g_dbus_message_get_message_type(reply) != G_DBUS_MESSAGE_TYPE_METHOD_RETURN)
                fail_msg("the service failed %s: %s", method, g_dbus_message_get_error_name(reply));
        g_variant_get(g_dbus_message_get_body(reply), "(b&si&s)", ret_held, &domain, ret_code, &text);
        *ret_domain = domain[0] ? g_quark_from_string(domain) : 0;
        *ret_text = g_strdup(text);
}

static void expect_answer(GDBusConnection *peer_connection, const char *method, GQuark domain, int code,
                          const char *text) {
        g_autofree char *message = NULL;
        GQuark got_domain;
        gboolean held;
        int got_code;

        call_from_peer(peer_connection, method, &held, &got_domain, &got_code, &message);
        if (held)
                fail_msg("%s: held, for a caller the bus never vouched for", method);
        if (got_domain != domain || got_code != code)
                fail_msg("%s: got %s %d (%s), expected %s %d", method, g_quark_to_string(got_domain), got_code,
                         message, g_quark_to_string(domain), code);
        if (text && !strstr(message, text))
                fail_msg("%s: '%s' not in '%s'", method, text, message);
}

static void register_asking_service(GDBusConnection *service) {
        g_autoptr(GDBusNodeInfo) node = g_dbus_node_info_new_for_xml(asking_xml, NULL);

        assert_true(g_dbus_connection_register_object(service, "/t", node->interfaces[0], &asking_vtable, NULL,
                                                      NULL, NULL) > 0);
}

/*
 * A peer-to-peer connection has no bus: its peer writes ":1.42" as the
 * sender of its call, and would answer CheckToken "true" itself, with or
 * without claiming to be org.freedesktop.DBus. Every form says not held,
 * MSSF_ERROR_NOT_A_BUS, and asks nothing.
 */
static void test_peer_to_peer_forged_sender(void **state) {
        static const char *const answer_senders[] = { NULL, "org.freedesktop.DBus" };

        for (size_t i = 0; i < G_N_ELEMENTS(answer_senders); i++) {
                Peer peer = { .answer_sender = answer_senders[i], .answer_body = "(true,)" };
                g_autoptr(GDBusConnection) service = NULL, peer_connection = NULL;
                GError *error = NULL;
                gboolean held;
                Answer answer = { 0 };

                connect_peer(FALSE, &peer, &service, &peer_connection);
                assert_null(g_dbus_connection_get_unique_name(service));
                register_asking_service(service);
                for (size_t j = 0; j < G_N_ELEMENTS(asking_methods); j++)
                        expect_answer(peer_connection, asking_methods[j], MSSF_ERROR, MSSF_ERROR_NOT_A_BUS,
                                      "peer-to-peer");
                /* The unique name of the caller, taken from the call by the service itself. */
                held = mssf_check_token_sync(service, ":1.42", "work", NULL, &error);
                expect_error(held, error, MSSF_ERROR, MSSF_ERROR_NOT_A_BUS, "Cannot ask whether :1.42 holds work");
                g_clear_error(&error);
                mssf_check_token(service, ":1.42", "work", NULL, answered, &answer);
                wait_for(&answer);
                expect_error(answer.held, answer.error, MSSF_ERROR, MSSF_ERROR_NOT_A_BUS, "peer-to-peer");
                g_clear_error(&answer.error);
                assert_int_equal(g_atomic_int_get(&peer.questions), 0);
                g_dbus_connection_close_sync(service, NULL, NULL);
                g_dbus_connection_close_sync(peer_connection, NULL, NULL);
        }
}

/*
 * A bus connection whose answer does not come from org.freedesktop.DBus
 * (a real bus writes every sender itself, so this is a bus of the
 * service's choosing, on a socketpair): not held, MSSF_ERROR_NOT_A_BUS.
 * An answer from the driver that is not exactly one boolean is an error,
 * never "no".
 */
static void test_answer_not_from_bus(void **state) {
        static const struct {
                const char *sender;
                const char *body;
                bool not_a_bus;         /* else not a boolean: G_IO_ERROR_INVALID_ARGUMENT */
                const char *text;
        } cases[] = {
                { ":1.7", "(true,)", true, "the answer came from :1.7" },
                { NULL, "(true,)", true, "not from the bus" },
                { "org.freedesktop.DBus.Local", "(true,)", true, "not from the bus" },
                { "org.freedesktop.DBus", "()", false, "not one boolean" },
                { "org.freedesktop.DBus", "('yes',)", false, "not one boolean" },
                { "org.freedesktop.DBus", "(true, true)", false, "not one boolean" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                Peer peer = { .answer_sender = cases[i].sender, .answer_body = cases[i].body };
                GQuark domain = cases[i].not_a_bus ? MSSF_ERROR : G_IO_ERROR;
                int code = cases[i].not_a_bus ? MSSF_ERROR_NOT_A_BUS : G_IO_ERROR_INVALID_ARGUMENT;
                g_autoptr(GDBusConnection) service = NULL, peer_connection = NULL;

                connect_peer(TRUE, &peer, &service, &peer_connection);
                assert_string_equal(g_dbus_connection_get_unique_name(service), ":1.5");
                register_asking_service(service);
                for (size_t j = 0; j < G_N_ELEMENTS(asking_methods); j++)
                        expect_answer(peer_connection, asking_methods[j], domain, code, cases[i].text);
                assert_int_equal(g_atomic_int_get(&peer.questions), G_N_ELEMENTS(asking_methods));
                g_dbus_connection_close_sync(service, NULL, NULL);
                g_dbus_connection_close_sync(peer_connection, NULL, NULL);
        }
}

/* The same bus, answering as org.freedesktop.DBus: believed, so the path above is the one a yes takes. */
static void test_answer_from_bus(void **state) {
        Peer peer = { .answer_sender = "org.freedesktop.DBus", .answer_body = "(true,)" };
        g_autoptr(GDBusConnection) service = NULL, peer_connection = NULL;
        g_autofree char *text = NULL;
        GQuark domain;
        gboolean held;
        int code;

        connect_peer(TRUE, &peer, &service, &peer_connection);
        register_asking_service(service);
        for (size_t j = 0; j < G_N_ELEMENTS(asking_methods); j++) {
                call_from_peer(peer_connection, asking_methods[j], &held, &domain, &code, &text);
                if (!held || domain != 0)
                        fail_msg("%s: not held (%s %d: %s)", asking_methods[j], g_quark_to_string(domain), code,
                                 text);
                g_clear_pointer(&text, g_free);
        }
        g_dbus_connection_close_sync(service, NULL, NULL);
        g_dbus_connection_close_sync(peer_connection, NULL, NULL);
}

static void test_dbus_daemon(void **state) {
        TestBus bus;
        g_autoptr(GDBusConnection) connection = NULL;
        GError *error = NULL;
        gboolean held;

        if (!reference_path)
                skip();
        test_bus_start(&bus, reference_path);
        connection = connect_to(&bus);
        held = mssf_check_token_sync(connection, g_dbus_connection_get_unique_name(connection), "work", NULL,
                                     &error);
        expect_error(held, error, MSSF_ERROR, MSSF_ERROR_NOT_SUPPORTED, "not mssf-broker");
        g_clear_error(&error);
        test_bus_stop(&bus);
}

int main(int argc, char **argv) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_arguments),
                cmocka_unit_test(test_callback_from_main_loop),
                cmocka_unit_test(test_cancelled),
                cmocka_unit_test(test_bus_refusals),
                cmocka_unit_test(test_peer_to_peer_call),
                cmocka_unit_test(test_peer_to_peer_forged_sender),
                cmocka_unit_test(test_answer_not_from_bus),
                cmocka_unit_test(test_answer_from_bus),
                cmocka_unit_test(test_dbus_daemon),
        };

        if (argc < 2) {
                fprintf(stderr, "usage: test-libmssf-gio MSSF_BROKER [DBUS_DAEMON]\n");
                return 2;
        }
        broker_path = argv[1];
        reference_path = argc > 2 ? argv[2] : NULL;
        return cmocka_run_group_tests(tests, NULL, NULL);
}
