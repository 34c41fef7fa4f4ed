/* e2e-lenient: a careless service for tests/e2e (libdbus), the kind a bus must defuse.
 *
 *   e2e-lenient [NAME]   owns NAME (default org.mssf.E2ELenient), prints
 *       "ready NAME UNIQUE" (or "refused NAME ERROR", exit 1), then one
 *       line per event, flushed, for 120 s.
 *
 * It dispatches every method call by its member alone, at any path and
 * under any interface (none too), comparing names without case:
 *   GetPosition -> "position-secret"; Hello -> "hello"; Reset -> "reset";
 *   Get -> the property its last string argument names, whatever the
 *       other arguments: Position "position-secret", Accuracy
 *       "accuracy-open"; GetAll -> both, whatever the arguments;
 *   Hold(s FLAG) -> releases NAME ("released NAME"), answers "held-secret"
 *       once the file FLAG exists (or after 20 s: "REPLIED Hold"), then
 *       requests NAME again ("reacquired NAME");
 * and prints "CALL IFACE.MEMBER PATH SENDER" for each (IFACE "-" without
 * one; libdbus itself answers org.freedesktop.DBus.Peer, so only
 * its Ping and GetMachineId reach nobody's code here), "GET PROPERTY" for
 * each property read. It subscribes to every signal of
 * org.mssf.E2E.Lenient (no sender given) and reacts to any signal it is
 * handed, unicast or not: "SIGNAL IFACE.MEMBER SENDER to DEST" and, for a
 * member Reset in any case, "RESET by SENDER".
 *
 * A real service should do none of this; the bus must make it harmless.
 */
#include <dbus/dbus.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS 10000

static DBusConnection *bus;
static const char *name = "org.mssf.E2ELenient";
static DBusMessage *held;
static char held_flag[256];
static double held_until;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
        fflush(stdout);
}

static double now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool is(const char *a, const char *b) {
        return a && b && strcasecmp(a, b) == 0;
}

static DBusMessage *string_reply(DBusMessage *call, const char *s) {
        DBusMessage *reply = dbus_message_new_method_return(call);

        dbus_message_append_args(reply, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
        return reply;
}

static void append_variant(DBusMessageIter *iter, const char *s) {
        DBusMessageIter v;

        dbus_message_iter_open_container(iter, DBUS_TYPE_VARIANT, "s", &v);
        dbus_message_iter_append_basic(&v, DBUS_TYPE_STRING, &s);
        dbus_message_iter_close_container(iter, &v);
}

static const char *property_value(const char *property) {
        if (is(property, "Position"))
                return "position-secret";
        if (is(property, "Accuracy"))
                return "accuracy-open";
        return NULL;
}

/* Get: the last string argument is the property, whatever came before it. */
static DBusMessage *get(DBusMessage *call) {
        const char *property = NULL, *value;
        DBusMessageIter iter, out;
        DBusMessage *reply;

        if (dbus_message_iter_init(call, &iter))
                do
                        if (dbus_message_iter_get_arg_type(&iter) == DBUS_TYPE_STRING)
                                dbus_message_iter_get_basic(&iter, &property);
                while (dbus_message_iter_next(&iter));
        say("GET %s", property ? property : "-");
        value = property_value(property);
        if (!value)
                return dbus_message_new_error(call, DBUS_ERROR_INVALID_ARGS, "no such property");
        reply = dbus_message_new_method_return(call);
        dbus_message_iter_init_append(reply, &out);
        append_variant(&out, value);
        return reply;
}

static DBusMessage *get_all(DBusMessage *call) {
        static const char *const properties[] = { "Position", "Accuracy" };
        DBusMessage *reply = dbus_message_new_method_return(call);
        DBusMessageIter iter, dict, entry;

        say("GETALL");
        dbus_message_iter_init_append(reply, &iter);
        dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "{sv}", &dict);
        for (size_t i = 0; i < 2; i++) {
                dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
                dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &properties[i]);
                append_variant(&entry, property_value(properties[i]));
                dbus_message_iter_close_container(&dict, &entry);
        }
        dbus_message_iter_close_container(&iter, &dict);
        return reply;
}

static void on_signal(DBusMessage *m) {
        const char *sender = dbus_message_get_sender(m), *destination = dbus_message_get_destination(m);
        const char *interface = dbus_message_get_interface(m), *member = dbus_message_get_member(m);

        if (sender && strcmp(sender, DBUS_SERVICE_DBUS) == 0)
                return;
        say("SIGNAL %s.%s %s to %s", interface ? interface : "-", member, sender, destination ? destination : "*");
        if (is(member, "Reset"))
                say("RESET by %s", sender);
}

/* Every call, by member alone. */
static DBusMessage *on_call(DBusMessage *m) {
        const char *interface = dbus_message_get_interface(m), *member = dbus_message_get_member(m);

        say("CALL %s.%s %s %s", interface ? interface : "-", member, dbus_message_get_path(m),
            dbus_message_get_sender(m));
        if (is(member, "GetPosition"))
                return string_reply(m, "position-secret");
        if (is(member, "Hello"))
                return string_reply(m, "hello");
        if (is(member, "Reset"))
                return string_reply(m, "reset");
        if (is(member, "Get"))
                return get(m);
        if (is(member, "GetAll"))
                return get_all(m);
        if (is(member, "Hold") && !held) {
                const char *flag = "";

                dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &flag, DBUS_TYPE_INVALID);
                snprintf(held_flag, sizeof(held_flag), "%s", flag);
                held = dbus_message_ref(m);
                held_until = now() + 20;
                dbus_bus_release_name(bus, name, NULL);
                say("released %s", name);
                return NULL;
        }
        return dbus_message_new_error(m, DBUS_ERROR_UNKNOWN_METHOD, "no such method");
}

static DBusHandlerResult filter(DBusConnection *conn, DBusMessage *m, void *data) {
        DBusMessage *reply;

        (void) data;
        if (dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_SIGNAL) {
                on_signal(m);
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
        }
        if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL)
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
        reply = on_call(m);
        if (reply && !dbus_message_get_no_reply(m))
                dbus_connection_send(conn, reply, NULL);
        if (reply)
                dbus_message_unref(reply);
        return DBUS_HANDLER_RESULT_HANDLED;
}

/* The held call: answered once its time is up, then the name is taken again. */
static void answer_held(void) {
        DBusMessage *reply;

        if (!held || (access(held_flag, F_OK) != 0 && now() < held_until))
                return;
        reply = string_reply(held, "held-secret");
        dbus_connection_send(bus, reply, NULL);
        dbus_connection_flush(bus);
        dbus_message_unref(reply);
        dbus_message_unref(held);
        held = NULL;
        say("REPLIED Hold");
        if (dbus_bus_request_name(bus, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, NULL) ==
            DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
                say("reacquired %s", name);
}

int main(int argc, char **argv) {
        const char *address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
        DBusError error = DBUS_ERROR_INIT;
        double end;
        int r;

        if (argc > 1)
                name = argv[1];
        if (!address) {
                say("error no-address: DBUS_SYSTEM_BUS_ADDRESS is not set");
                return 2;
        }
        bus = dbus_connection_open_private(address, &error);
        if (!bus || !dbus_bus_register(bus, &error)) {
                say("error %s: %s", error.name, error.message);
                return 2;
        }
        dbus_connection_set_exit_on_disconnect(bus, FALSE);
        dbus_connection_add_filter(bus, filter, NULL, NULL);
        dbus_bus_add_match(bus, "type='signal',interface='org.mssf.E2E.Lenient'", NULL);
        r = dbus_bus_request_name(bus, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);
        if (r != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
                say("refused %s %s: %s", name, error.name ? error.name : "reply",
                    error.message ? error.message : "not the primary owner");
                return 1;
        }
        say("ready %s %s", name, dbus_bus_get_unique_name(bus));
        end = now() + 120;
        while (now() < end && dbus_connection_read_write_dispatch(bus, 50))
                answer_held();
        return 0;
}
