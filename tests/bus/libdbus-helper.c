/* libdbus-helper: a libdbus client and service for the bus tests.
 *
 * usage: bus-libdbus-helper ADDRESS serve NAME
 *        bus-libdbus-helper ADDRESS call DEST TEXT
 *        bus-libdbus-helper ADDRESS send-fd DEST TEXT
 *        bus-libdbus-helper ADDRESS emit MEMBER ARG0
 *
 * "serve" owns NAME, prints "READY <unique-name>" and answers
 * org.mssf.Test.Echo(s) -> s, Fail() -> org.mssf.Test.Error.Failed and
 * Exit() on /org/mssf/Test until the bus goes away. "call" prints the Echo
 * reply (or the error name, exit 1). "send-fd" passes a pipe holding TEXT
 * to DEST's ReadFd(h) and prints the answer. "emit" sends a broadcast
 * org.mssf.Test.MEMBER(s) from /org/mssf/Test. Every blocking call has a
 * timeout, so the helper cannot hang a test.
 */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_PATH "/org/mssf/Test"
#define TEST_IFACE "org.mssf.Test"
#define TIMEOUT_MS 5000

static DBusConnection *connect_bus(const char *address)
{
        DBusError error = DBUS_ERROR_INIT;
        DBusConnection *conn = dbus_connection_open_private(address, &error);

        if (!conn || !dbus_bus_register(conn, &error)) {
                fprintf(stderr, "connect: %s: %s\n", error.name, error.message);
                exit(2);
        }
        dbus_connection_set_exit_on_disconnect(conn, FALSE);
        return conn;
}

static DBusHandlerResult handle(DBusConnection *conn, DBusMessage *msg,
                                void *data)
{
        DBusMessage *reply = NULL;
        const char *text = NULL;

        if (dbus_message_is_method_call(msg, TEST_IFACE, "Echo")) {
                if (!dbus_message_get_args(msg, NULL, DBUS_TYPE_STRING, &text,
                                           DBUS_TYPE_INVALID))
                        reply = dbus_message_new_error(msg,
                                DBUS_ERROR_INVALID_ARGS, "Echo takes s");
                else {
                        reply = dbus_message_new_method_return(msg);
                        dbus_message_append_args(reply, DBUS_TYPE_STRING,
                                                 &text, DBUS_TYPE_INVALID);
                }
        } else if (dbus_message_is_method_call(msg, TEST_IFACE, "Fail")) {
                reply = dbus_message_new_error(msg, TEST_IFACE ".Error.Failed",
                                               "failed as asked");
        } else if (dbus_message_is_method_call(msg, TEST_IFACE, "Exit")) {
                exit(0);
        } else {
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
        }
        dbus_connection_send(conn, reply, NULL);
        dbus_message_unref(reply);
        return DBUS_HANDLER_RESULT_HANDLED;
}

static int serve(DBusConnection *conn, const char *name)
{
        static const DBusObjectPathVTable vtable = { .message_function = handle };
        DBusError error = DBUS_ERROR_INIT;

        if (dbus_bus_request_name(conn, name, DBUS_NAME_FLAG_DO_NOT_QUEUE,
                                  &error) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
                fprintf(stderr, "RequestName %s failed: %s\n", name,
                        error.message ? error.message : "not primary owner");
                dbus_error_free(&error);
                return 2;
        }
        dbus_connection_register_object_path(conn, TEST_PATH, &vtable, NULL);
        printf("READY %s\n", dbus_bus_get_unique_name(conn));
        fflush(stdout);
        while (dbus_connection_read_write_dispatch(conn, -1))
                ;
        return 0;
}

static int finish_call(DBusConnection *conn, DBusMessage *call)
{
        DBusError error = DBUS_ERROR_INIT;
        DBusMessage *reply;
        const char *text;

        reply = dbus_connection_send_with_reply_and_block(conn, call,
                                                          TIMEOUT_MS, &error);
        dbus_message_unref(call);
        if (!reply) {
                printf("%s\n", error.name);
                dbus_error_free(&error);
                return 1;
        }
        if (!dbus_message_get_args(reply, &error, DBUS_TYPE_STRING, &text,
                                   DBUS_TYPE_INVALID)) {
                printf("bad reply: %s\n", error.message);
                dbus_error_free(&error);
                dbus_message_unref(reply);
                return 1;
        }
        printf("%s\n", text);
        dbus_message_unref(reply);
        return 0;
}

static int call(DBusConnection *conn, const char *dest, const char *text)
{
        DBusMessage *msg = dbus_message_new_method_call(dest, TEST_PATH,
                                                        TEST_IFACE, "Echo");

        dbus_message_append_args(msg, DBUS_TYPE_STRING, &text,
                                 DBUS_TYPE_INVALID);
        return finish_call(conn, msg);
}

static int send_fd(DBusConnection *conn, const char *dest, const char *text)
{
        DBusMessage *msg;
        int fds[2];

        if (!dbus_connection_can_send_type(conn, DBUS_TYPE_UNIX_FD)) {
                printf("no fd passing on this connection\n");
                return 1;
        }
        if (pipe(fds) < 0 || write(fds[1], text, strlen(text)) < 0)
                return 2;
        close(fds[1]);
        msg = dbus_message_new_method_call(dest, TEST_PATH, TEST_IFACE,
                                           "ReadFd");
        dbus_message_append_args(msg, DBUS_TYPE_UNIX_FD, &fds[0],
                                 DBUS_TYPE_INVALID);
        close(fds[0]);
        return finish_call(conn, msg);
}

static int emit(DBusConnection *conn, const char *member, const char *arg0)
{
        DBusMessage *msg = dbus_message_new_signal(TEST_PATH, TEST_IFACE,
                                                   member);

        dbus_message_append_args(msg, DBUS_TYPE_STRING, &arg0,
                                 DBUS_TYPE_INVALID);
        dbus_connection_send(conn, msg, NULL);
        dbus_connection_flush(conn);
        dbus_message_unref(msg);
        return 0;
}

int main(int argc, char **argv)
{
        DBusConnection *conn;
        int status = 2;

        alarm(30);
        if (argc < 4) {
                fprintf(stderr, "usage: %s ADDRESS MODE ARGS\n", argv[0]);
                return 2;
        }
        conn = connect_bus(argv[1]);
        if (strcmp(argv[2], "serve") == 0)
                status = serve(conn, argv[3]);
        else if (strcmp(argv[2], "call") == 0 && argc == 5)
                status = call(conn, argv[3], argv[4]);
        else if (strcmp(argv[2], "send-fd") == 0 && argc == 5)
                status = send_fd(conn, argv[3], argv[4]);
        else if (strcmp(argv[2], "emit") == 0 && argc == 5)
                status = emit(conn, argv[3], argv[4]);
        else
                fprintf(stderr, "unknown mode %s\n", argv[2]);
        dbus_connection_close(conn);
        dbus_connection_unref(conn);
        return status;
}
