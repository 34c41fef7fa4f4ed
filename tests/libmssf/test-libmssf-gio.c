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
 *  - a call that came over a peer-to-peer connection has no bus to ask;
 *  - dbus-daemon: MSSF_ERROR_NOT_SUPPORTED.
 *   test-libmssf-gio MSSF_BROKER [DBUS_DAEMON]
 */
#include <setjmp.h>
#include <stdarg.h>
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

/* Over a peer-to-peer connection there is no bus: INVALID_ARGUMENT, nothing asked. */
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
