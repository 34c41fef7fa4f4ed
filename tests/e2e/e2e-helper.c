/* e2e-helper: the test service and the low-level clients of tests/e2e (libdbus).
 *
 * Python cannot start inside the UML guest (CPython's getpath fails there),
 * so the service and the clients gdbus, busctl and dbus-send cannot stand
 * in for are this one libdbus program. It knows nothing of Smack or tokens:
 * the bus does the mediation. Connects to $DBUS_STARTER_ADDRESS (when the
 * bus activated it) or $DBUS_SYSTEM_BUS_ADDRESS. Each outcome is one line
 * on stdout, flushed; every wait has a timeout.
 *
 *   e2e-helper serve [NAME] [START_DELAY_MS] [queue]
 *       owns NAME (default org.mssf.E2E), prints "ready NAME UNIQUE" (with
 *       "queue": "queued NAME UNIQUE" when it waits in the name's queue; or
 *       "refused NAME ERROR", exit 1), then "CALL IFACE.MEMBER SENDER" for
 *       every call received (IFACE "-" without an interface field) and
 *       "REPLIED Slow" when a delayed reply went out, "GET IFACE PROP" and
 *       "SETTING IFACE PROP" for the Properties arguments it read, "SET
 *       Mode VALUE" once Mode changed. Objects:
 *         /org/mssf/E2E  org.mssf.E2E: Open, Guarded, Twin, Undeclared -> s;
 *           Slow(s flag) -> s once the file FLAG exists; Emit(s kind, s dest),
 *           kind broadcast | unicast (to dest) | props | added | done |
 *           removed (InterfacesRemoved of /org/mssf/E2E/Child: org.mssf.E2E.Child
 *           and org.mssf.E2E.Vault) | removed-vault (only org.mssf.E2E.Vault);
 *           signals Secret(s), Public(s); properties Level u, Mode s
 *           (writable), Name s; org.mssf.E2E.Admin: Twin -> s "twin-admin"
 *           (a call without interface gets this one)
 *         /org/mssf/E2E/Child  org.mssf.E2E.Child: properties Hidden u, Plain s
 *         /  org.freedesktop.DBus.ObjectManager.GetManagedObjects
 *         every path: org.freedesktop.DBus.Properties Get, Set, GetAll (also
 *           when the call has no interface field, as python3-dbus and sd-bus
 *           dispatch by member name)
 *   e2e-helper call DEST PATH IFACE MEMBER [STRING...]   IFACE "-": none;
 *       prints "reply ARGS" or "error NAME: TEXT"
 *   e2e-helper listen SECONDS [RULE]   AddMatch(RULE, default type='signal'),
 *       "ready UNIQUE", "signal MEMBER ARGS to DEST" (DEST * for broadcast)
 *       until Public("done") or SECONDS, then "end"
 *   e2e-helper sequence FLAG DEST PATH IFACE MEMBER   call, "waiting", wait
 *       for the file FLAG, the same call on the same connection
 *   e2e-helper slow FLAG   "calling as UNIQUE", org.mssf.E2E Slow(FLAG) (serial 2:
 *       Hello is 1), prints the outcome
 *   e2e-helper forge-reply DEST SERIAL TEXT   a method return to DEST for
 *       its call SERIAL, which was never made to this connection
 *   e2e-helper fire-and-leave DEST PATH IFACE MEMBER   send, disconnect at once
 *   e2e-helper monitor SECONDS [RULE...]   BecomeMonitor(RULEs): "monitor ok"
 *       or the error, then "saw TYPE MEMBER from SENDER: ARGS" per message
 *       until Public("done") (Emit done) or SECONDS, then "end"
 *       (TYPE call, return, error, signal; MEMBER "-" for a reply, the error
 *       name for an error; a descriptor is shown as "fd:" and the first
 *       line it reads, or "fd:unreadable")
 *   e2e-helper call-fd DEST PATH IFACE MEMBER FILE   a call with one
 *       argument, a descriptor open on FILE for reading; prints as call
 *   e2e-helper eavesdrop SECONDS [RULE...]   AddMatch of each RULE (default
 *       eavesdrop=true,type='method_call'): "match ok" or the error, "ready
 *       UNIQUE", then "saw MEMBER to DEST" for each call to someone else and
 *       "saw TYPE MEMBER from SENDER to DEST: ARGS" for every other message
 *       not addressed to it or from the bus (DEST * for a broadcast), until
 *       Public("done") (if a RULE selects it) or SECONDS, then "end"
 *   e2e-helper own NAME   RequestName(NAME, DO_NOT_QUEUE): "reply N" or the error
 *   e2e-helper ask NAME TARGET TOKEN...   owns NAME first ("-": none; "owner
 *       NAME N" or "error ..."), then asks org.mssf.Broker1.CheckToken(TARGET,
 *       TOKEN) for each TOKEN on the same connection (TARGET "self": its own
 *       unique name): "held TOKEN true|false" or "error TOKEN NAME: TEXT"
 */
#include <dbus/dbus.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define E2E_PATH "/org/mssf/E2E"
#define E2E_CHILD "/org/mssf/E2E/Child"
#define E2E_IFACE "org.mssf.E2E"
#define E2E_CHILD_IFACE "org.mssf.E2E.Child"
#define E2E_VAULT_IFACE "org.mssf.E2E.Vault"
#define PROPS "org.freedesktop.DBus.Properties"
#define OM "org.freedesktop.DBus.ObjectManager"
#define TIMEOUT_MS 10000
#define MAX_SLOW 16

static DBusConnection *bus;
static char mode_value[128] = "normal";

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

static DBusConnection *connect_bus(void) {
        const char *address = getenv("DBUS_STARTER_ADDRESS");
        DBusError error = DBUS_ERROR_INIT;
        DBusConnection *conn;

        if (!address || !*address)
                address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
        if (!address) {
                say("error no-address: DBUS_SYSTEM_BUS_ADDRESS is not set");
                exit(2);
        }
        conn = dbus_connection_open_private(address, &error);
        if (!conn || !dbus_bus_register(conn, &error)) {
                say("error %s: %s", error.name, error.message);
                exit(2);
        }
        dbus_connection_set_exit_on_disconnect(conn, FALSE);
        return conn;
}

/* ---- describing values: "text", {key:value,...}, [a,b] ---- */

static void describe_iter(DBusMessageIter *iter, char *buf, size_t size);

static void append(char *buf, size_t size, const char *text) {
        size_t len = strlen(buf);

        snprintf(buf + len, size - len, "%s", text);
}

static void describe_one(DBusMessageIter *iter, char *buf, size_t size) {
        int type = dbus_message_iter_get_arg_type(iter);
        char tmp[64];

        switch (type) {
        case DBUS_TYPE_STRING:
        case DBUS_TYPE_OBJECT_PATH:
        case DBUS_TYPE_SIGNATURE: {
                const char *s;

                dbus_message_iter_get_basic(iter, &s);
                append(buf, size, s);
                break;
        }
        case DBUS_TYPE_UINT32: {
                dbus_uint32_t u;

                dbus_message_iter_get_basic(iter, &u);
                snprintf(tmp, sizeof(tmp), "%u", u);
                append(buf, size, tmp);
                break;
        }
        case DBUS_TYPE_INT32: {
                dbus_int32_t i;

                dbus_message_iter_get_basic(iter, &i);
                snprintf(tmp, sizeof(tmp), "%d", i);
                append(buf, size, tmp);
                break;
        }
        case DBUS_TYPE_UNIX_FD: {
                /* What the descriptor lets its receiver read: "fd:" and the first line. */
                char text[64] = "";
                int fd = -1;
                ssize_t n;

                dbus_message_iter_get_basic(iter, &fd);
                n = fd >= 0 ? pread(fd, text, sizeof(text) - 1, 0) : -1;
                if (n >= 0) {
                        text[n] = '\0';
                        text[strcspn(text, "\n")] = '\0';
                }
                snprintf(tmp, sizeof(tmp), "fd:%s", n >= 0 ? text : "unreadable");
                append(buf, size, tmp);
                if (fd >= 0)
                        close(fd);
                break;
        }
        case DBUS_TYPE_BOOLEAN: {
                dbus_bool_t b;

                dbus_message_iter_get_basic(iter, &b);
                append(buf, size, b ? "true" : "false");
                break;
        }
        case DBUS_TYPE_VARIANT: {
                DBusMessageIter sub;

                dbus_message_iter_recurse(iter, &sub);
                describe_one(&sub, buf, size);
                break;
        }
        case DBUS_TYPE_ARRAY: {
                DBusMessageIter sub;
                bool dict = dbus_message_iter_get_element_type(iter) == DBUS_TYPE_DICT_ENTRY;

                dbus_message_iter_recurse(iter, &sub);
                append(buf, size, dict ? "{" : "[");
                describe_iter(&sub, buf, size);
                append(buf, size, dict ? "}" : "]");
                break;
        }
        case DBUS_TYPE_DICT_ENTRY: {
                DBusMessageIter sub;

                dbus_message_iter_recurse(iter, &sub);
                describe_one(&sub, buf, size);
                append(buf, size, ":");
                dbus_message_iter_next(&sub);
                describe_one(&sub, buf, size);
                break;
        }
        default:
                snprintf(tmp, sizeof(tmp), "<%c>", type);
                append(buf, size, tmp);
        }
}

static void describe_iter(DBusMessageIter *iter, char *buf, size_t size) {
        bool first = true;

        while (dbus_message_iter_get_arg_type(iter) != DBUS_TYPE_INVALID) {
                if (!first)
                        append(buf, size, ",");
                first = false;
                describe_one(iter, buf, size);
                dbus_message_iter_next(iter);
        }
}

static void describe_args(DBusMessage *m, char *buf, size_t size) {
        DBusMessageIter iter;
        bool first = true;

        buf[0] = '\0';
        if (!dbus_message_iter_init(m, &iter))
                return;
        do {
                if (!first)
                        append(buf, size, " ");
                first = false;
                describe_one(&iter, buf, size);
        } while (dbus_message_iter_next(&iter));
}

/* ---- the service ---- */

typedef struct Slow {
        DBusMessage *call;
        char flag[256];
        double deadline;
} Slow;

static Slow slow_calls[MAX_SLOW];

static void append_variant_u(DBusMessageIter *iter, dbus_uint32_t u) {
        DBusMessageIter v;

        dbus_message_iter_open_container(iter, DBUS_TYPE_VARIANT, "u", &v);
        dbus_message_iter_append_basic(&v, DBUS_TYPE_UINT32, &u);
        dbus_message_iter_close_container(iter, &v);
}

static void append_variant_s(DBusMessageIter *iter, const char *s) {
        DBusMessageIter v;

        dbus_message_iter_open_container(iter, DBUS_TYPE_VARIANT, "s", &v);
        dbus_message_iter_append_basic(&v, DBUS_TYPE_STRING, &s);
        dbus_message_iter_close_container(iter, &v);
}

static void append_entry(DBusMessageIter *dict, const char *key, const char *s, dbus_uint32_t u) {
        DBusMessageIter entry;

        dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
        if (s)
                append_variant_s(&entry, s);
        else
                append_variant_u(&entry, u);
        dbus_message_iter_close_container(dict, &entry);
}

/* The properties of (path, iface) as a{sv}; iface "" = every interface. */
static void append_properties(DBusMessageIter *iter, const char *path, const char *iface) {
        DBusMessageIter dict;
        bool all = iface[0] == '\0';

        dbus_message_iter_open_container(iter, DBUS_TYPE_ARRAY, "{sv}", &dict);
        if (strcmp(path, E2E_PATH) == 0 && (all || strcmp(iface, E2E_IFACE) == 0)) {
                append_entry(&dict, "Level", NULL, 7);
                append_entry(&dict, "Mode", mode_value, 0);
                append_entry(&dict, "Name", "e2e", 0);
        }
        if (strcmp(path, E2E_CHILD) == 0 && (all || strcmp(iface, E2E_CHILD_IFACE) == 0)) {
                append_entry(&dict, "Hidden", NULL, 42);
                append_entry(&dict, "Plain", "plain", 0);
        }
        dbus_message_iter_close_container(iter, &dict);
}

static void append_interfaces(DBusMessageIter *iter, const char *path, const char *iface) {
        DBusMessageIter dict, entry;

        dbus_message_iter_open_container(iter, DBUS_TYPE_ARRAY, "{sa{sv}}", &dict);
        dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &iface);
        append_properties(&entry, path, iface);
        dbus_message_iter_close_container(&dict, &entry);
        dbus_message_iter_close_container(iter, &dict);
}

static DBusMessage *error_reply(DBusMessage *call, const char *text) {
        return dbus_message_new_error(call, DBUS_ERROR_INVALID_ARGS, text);
}

static DBusMessage *string_reply(DBusMessage *call, const char *s) {
        DBusMessage *reply = dbus_message_new_method_return(call);

        dbus_message_append_args(reply, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
        return reply;
}

static void send_signal(const char *path, const char *iface, const char *member, const char *arg,
                        const char *dest) {
        DBusMessage *m = dbus_message_new_signal(path, iface, member);

        dbus_message_append_args(m, DBUS_TYPE_STRING, &arg, DBUS_TYPE_INVALID);
        if (dest && *dest)
                dbus_message_set_destination(m, dest);
        dbus_connection_send(bus, m, NULL);
        dbus_message_unref(m);
}

static DBusMessage *emit(DBusMessage *call, const char *kind, const char *dest) {
        if (strcmp(kind, "broadcast") == 0) {
                send_signal(E2E_PATH, E2E_IFACE, "Secret", "broadcast", NULL);
                send_signal(E2E_PATH, E2E_IFACE, "Public", "broadcast", NULL);
        } else if (strcmp(kind, "unicast") == 0) {
                send_signal(E2E_PATH, E2E_IFACE, "Secret", "unicast", dest);
                send_signal(E2E_PATH, E2E_IFACE, "Public", "unicast", dest);
        } else if (strcmp(kind, "props") == 0) {
                DBusMessage *m = dbus_message_new_signal(E2E_PATH, PROPS, "PropertiesChanged");
                DBusMessageIter iter, invalidated;
                const char *iface = E2E_IFACE;

                dbus_message_iter_init_append(m, &iter);
                dbus_message_iter_append_basic(&iter, DBUS_TYPE_STRING, &iface);
                append_properties(&iter, E2E_PATH, E2E_IFACE);
                dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "s", &invalidated);
                dbus_message_iter_close_container(&iter, &invalidated);
                dbus_connection_send(bus, m, NULL);
                dbus_message_unref(m);
        } else if (strcmp(kind, "added") == 0) {
                DBusMessage *m = dbus_message_new_signal("/", OM, "InterfacesAdded");
                DBusMessageIter iter;
                const char *path = E2E_CHILD;

                dbus_message_iter_init_append(m, &iter);
                dbus_message_iter_append_basic(&iter, DBUS_TYPE_OBJECT_PATH, &path);
                append_interfaces(&iter, E2E_CHILD, E2E_CHILD_IFACE);
                dbus_connection_send(bus, m, NULL);
                dbus_message_unref(m);
        } else if (strcmp(kind, "removed") == 0 || strcmp(kind, "removed-vault") == 0) {
                DBusMessage *m = dbus_message_new_signal("/", OM, "InterfacesRemoved");
                DBusMessageIter iter, names;
                const char *path = E2E_CHILD, *child = E2E_CHILD_IFACE, *vault = E2E_VAULT_IFACE;

                dbus_message_iter_init_append(m, &iter);
                dbus_message_iter_append_basic(&iter, DBUS_TYPE_OBJECT_PATH, &path);
                dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "s", &names);
                if (strcmp(kind, "removed") == 0)
                        dbus_message_iter_append_basic(&names, DBUS_TYPE_STRING, &child);
                dbus_message_iter_append_basic(&names, DBUS_TYPE_STRING, &vault);
                dbus_message_iter_close_container(&iter, &names);
                dbus_connection_send(bus, m, NULL);
                dbus_message_unref(m);
        } else if (strcmp(kind, "done") == 0) {
                send_signal(E2E_PATH, E2E_IFACE, "Public", "done", NULL);
        } else {
                return error_reply(call, "unknown kind");
        }
        return dbus_message_new_method_return(call);
}

static DBusMessage *properties(DBusMessage *call, const char *member, const char *path) {
        DBusMessageIter iter;
        const char *iface = NULL, *name = NULL;
        DBusMessage *reply;

        if (strcmp(member, "GetAll") == 0) {
                if (!dbus_message_get_args(call, NULL, DBUS_TYPE_STRING, &iface, DBUS_TYPE_INVALID))
                        return error_reply(call, "GetAll takes s");
                reply = dbus_message_new_method_return(call);
                dbus_message_iter_init_append(reply, &iter);
                append_properties(&iter, path, iface);
                return reply;
        }
        dbus_message_iter_init(call, &iter);
        if (dbus_message_iter_get_arg_type(&iter) != DBUS_TYPE_STRING)
                return error_reply(call, "interface expected");
        dbus_message_iter_get_basic(&iter, &iface);
        dbus_message_iter_next(&iter);
        if (dbus_message_iter_get_arg_type(&iter) != DBUS_TYPE_STRING)
                return error_reply(call, "property expected");
        dbus_message_iter_get_basic(&iter, &name);
        say("%s %s %s", strcmp(member, "Set") == 0 ? "SETTING" : "GET", iface, name);
        if (strcmp(member, "Set") == 0) {
                DBusMessageIter v;
                const char *value;

                dbus_message_iter_next(&iter);
                if (strcmp(path, E2E_PATH) != 0 || strcmp(name, "Mode") != 0 ||
                    dbus_message_iter_get_arg_type(&iter) != DBUS_TYPE_VARIANT)
                        return dbus_message_new_error(call, "org.freedesktop.DBus.Error.PropertyReadOnly",
                                                      "only Mode is writable");
                dbus_message_iter_recurse(&iter, &v);
                if (dbus_message_iter_get_arg_type(&v) != DBUS_TYPE_STRING)
                        return error_reply(call, "Mode is a string");
                dbus_message_iter_get_basic(&v, &value);
                snprintf(mode_value, sizeof(mode_value), "%s", value);
                say("SET Mode %s", mode_value);
                return dbus_message_new_method_return(call);
        }
        if (strcmp(member, "Get") != 0)
                return dbus_message_new_error(call, DBUS_ERROR_UNKNOWN_METHOD, "no such method");
        reply = dbus_message_new_method_return(call);
        dbus_message_iter_init_append(reply, &iter);
        if (strcmp(path, E2E_PATH) == 0 && strcmp(name, "Level") == 0)
                append_variant_u(&iter, 7);
        else if (strcmp(path, E2E_PATH) == 0 && strcmp(name, "Mode") == 0)
                append_variant_s(&iter, mode_value);
        else if (strcmp(path, E2E_PATH) == 0 && strcmp(name, "Name") == 0)
                append_variant_s(&iter, "e2e");
        else if (strcmp(path, E2E_CHILD) == 0 && strcmp(name, "Hidden") == 0)
                append_variant_u(&iter, 42);
        else if (strcmp(path, E2E_CHILD) == 0 && strcmp(name, "Plain") == 0)
                append_variant_s(&iter, "plain");
        else {
                dbus_message_unref(reply);
                return error_reply(call, "no such property");
        }
        return reply;
}

static DBusMessage *managed_objects(DBusMessage *call) {
        DBusMessage *reply = dbus_message_new_method_return(call);
        DBusMessageIter iter, dict, entry;
        static const char *const paths[] = { E2E_PATH, E2E_CHILD };
        static const char *const ifaces[] = { E2E_IFACE, E2E_CHILD_IFACE };

        dbus_message_iter_init_append(reply, &iter);
        dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "{oa{sa{sv}}}", &dict);
        for (size_t i = 0; i < 2; i++) {
                dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
                dbus_message_iter_append_basic(&entry, DBUS_TYPE_OBJECT_PATH, &paths[i]);
                append_interfaces(&entry, paths[i], ifaces[i]);
                dbus_message_iter_close_container(&dict, &entry);
        }
        dbus_message_iter_close_container(&iter, &dict);
        return reply;
}

static DBusHandlerResult serve_message(DBusConnection *conn, DBusMessage *m, void *data) {
        const char *iface = dbus_message_get_interface(m);
        const char *member = dbus_message_get_member(m);
        const char *path = dbus_message_get_path(m);
        DBusMessage *reply = NULL;
        bool known_iface;

        (void) data;
        if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL)
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
        say("CALL %s.%s %s", iface ? iface : "-", member, dbus_message_get_sender(m));
        known_iface = !iface || strcmp(iface, E2E_IFACE) == 0;
        /* Without an interface field, dispatch by member name, as python3-dbus
         * and sd-bus do: Get, Set and GetAll are the Properties ones. */
        if (iface ? strcmp(iface, PROPS) == 0
                  : strcmp(member, "Get") == 0 || strcmp(member, "Set") == 0 || strcmp(member, "GetAll") == 0) {
                reply = properties(m, member, path);
        } else if (strcmp(path, "/") == 0 && strcmp(member, "GetManagedObjects") == 0 &&
                   (!iface || strcmp(iface, OM) == 0)) {
                reply = managed_objects(m);
        } else if (strcmp(path, E2E_PATH) != 0) {
                reply = dbus_message_new_error(m, DBUS_ERROR_UNKNOWN_OBJECT, "no such object");
        } else if (strcmp(member, "Twin") == 0 && (!iface || strcmp(iface, "org.mssf.E2E.Admin") == 0)) {
                reply = string_reply(m, "twin-admin");
        } else if (known_iface && strcmp(member, "Twin") == 0) {
                reply = string_reply(m, "twin");
        } else if (known_iface && strcmp(member, "Open") == 0) {
                reply = string_reply(m, "open");
        } else if (known_iface && strcmp(member, "Guarded") == 0) {
                reply = string_reply(m, "guarded");
        } else if (known_iface && strcmp(member, "Undeclared") == 0) {
                reply = string_reply(m, "undeclared");
        } else if (known_iface && strcmp(member, "Emit") == 0) {
                const char *kind, *dest;

                if (!dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &kind, DBUS_TYPE_STRING, &dest,
                                           DBUS_TYPE_INVALID))
                        reply = error_reply(m, "Emit takes ss");
                else
                        reply = emit(m, kind, dest);
        } else if (known_iface && strcmp(member, "Slow") == 0) {
                const char *flag;
                size_t i;

                if (!dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &flag, DBUS_TYPE_INVALID)) {
                        reply = error_reply(m, "Slow takes s");
                } else {
                        for (i = 0; i < MAX_SLOW && slow_calls[i].call; i++)
                                ;
                        if (i == MAX_SLOW) {
                                reply = error_reply(m, "too many slow calls");
                        } else {
                                slow_calls[i].call = dbus_message_ref(m);
                                snprintf(slow_calls[i].flag, sizeof(slow_calls[i].flag), "%s", flag);
                                slow_calls[i].deadline = now() + 20;
                                return DBUS_HANDLER_RESULT_HANDLED;
                        }
                }
        } else {
                reply = dbus_message_new_error(m, DBUS_ERROR_UNKNOWN_METHOD, "no such method");
        }
        if (reply && !dbus_message_get_no_reply(m))
                dbus_connection_send(conn, reply, NULL);
        if (reply)
                dbus_message_unref(reply);
        return DBUS_HANDLER_RESULT_HANDLED;
}

static void answer_slow_calls(void) {
        for (size_t i = 0; i < MAX_SLOW; i++) {
                DBusMessage *reply;

                if (!slow_calls[i].call)
                        continue;
                if (access(slow_calls[i].flag, F_OK) != 0 && now() < slow_calls[i].deadline)
                        continue;
                reply = string_reply(slow_calls[i].call, "slow");
                dbus_connection_send(bus, reply, NULL);
                dbus_connection_flush(bus);
                dbus_message_unref(reply);
                dbus_message_unref(slow_calls[i].call);
                slow_calls[i].call = NULL;
                say("REPLIED Slow");
        }
}

static int cmd_serve(int argc, char **argv) {
        const char *name = argc > 0 ? argv[0] : "org.mssf.E2E";
        int delay_ms = argc > 1 ? atoi(argv[1]) : 0;
        bool queue = argc > 2 && strcmp(argv[2], "queue") == 0;
        DBusError error = DBUS_ERROR_INIT;
        double end;
        int r;

        if (delay_ms > 0) {
                say("starting in %d ms", delay_ms);
                usleep(delay_ms * 1000);
        }
        bus = connect_bus();
        dbus_connection_add_filter(bus, serve_message, NULL, NULL);
        r = dbus_bus_request_name(bus, name, queue ? 0 : DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);
        if (queue && r == DBUS_REQUEST_NAME_REPLY_IN_QUEUE) {
                say("queued %s %s", name, dbus_bus_get_unique_name(bus));
        } else if (r != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
                say("refused %s %s: %s", name, error.name ? error.name : "reply",
                    error.message ? error.message : "not the primary owner");
                return 1;
        } else {
                say("ready %s %s", name, dbus_bus_get_unique_name(bus));
        }
        end = now() + 120;
        while (now() < end && dbus_connection_read_write_dispatch(bus, 50))
                answer_slow_calls();
        return 0;
}

/* ---- the clients ---- */

static DBusMessage *new_call(const char *dest, const char *path, const char *iface, const char *member,
                             int argc, char **argv) {
        DBusMessage *m = dbus_message_new_method_call(dest, path, strcmp(iface, "-") == 0 ? NULL : iface,
                                                      member);

        for (int i = 0; i < argc; i++)
                dbus_message_append_args(m, DBUS_TYPE_STRING, &argv[i], DBUS_TYPE_INVALID);
        return m;
}

static void call_and_show(DBusMessage *m) {
        DBusError error = DBUS_ERROR_INIT;
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, m, TIMEOUT_MS, &error);
        char buf[4096];

        if (!reply) {
                say("error %s: %s", error.name, error.message);
                dbus_error_free(&error);
                return;
        }
        describe_args(reply, buf, sizeof(buf));
        say("reply %s", buf);
        dbus_message_unref(reply);
}

static bool add_match(const char *rule) {
        DBusError error = DBUS_ERROR_INIT;

        dbus_bus_add_match(bus, rule, &error);
        if (dbus_error_is_set(&error)) {
                say("error %s: %s", error.name, error.message);
                dbus_error_free(&error);
                return false;
        }
        return true;
}

static int cmd_listen(int argc, char **argv) {
        double end = now() + (argc > 0 ? atof(argv[0]) : 10);
        const char *rule = argc > 1 ? argv[1] : "type='signal'";
        char buf[4096];

        bus = connect_bus();
        if (!add_match(rule))
                return 1;
        say("ready %s", dbus_bus_get_unique_name(bus));
        while (now() < end && dbus_connection_read_write(bus, 50)) {
                DBusMessage *m;

                while ((m = dbus_connection_pop_message(bus))) {
                        bool done;

                        if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_SIGNAL ||
                            strcmp(dbus_message_get_sender(m), "org.freedesktop.DBus") == 0) {
                                dbus_message_unref(m);
                                continue;
                        }
                        describe_args(m, buf, sizeof(buf));
                        say("signal %s %s to %s", dbus_message_get_member(m), buf,
                            dbus_message_get_destination(m) ? dbus_message_get_destination(m) : "*");
                        done = strcmp(dbus_message_get_member(m), "Public") == 0 && strcmp(buf, "done") == 0;
                        dbus_message_unref(m);
                        if (done)
                                goto out;
                }
        }
out:
        say("end");
        return 0;
}

static void wait_for_file(const char *flag) {
        double end = now() + TIMEOUT_MS / 1000.0;

        while (access(flag, F_OK) != 0 && now() < end)
                usleep(50 * 1000);
}

static int cmd_sequence(int argc, char **argv) {
        DBusMessage *m;

        if (argc < 5)
                return 2;
        bus = connect_bus();
        m = new_call(argv[1], argv[2], argv[3], argv[4], 0, NULL);
        call_and_show(m);
        dbus_message_unref(m);
        say("waiting");
        wait_for_file(argv[0]);
        m = new_call(argv[1], argv[2], argv[3], argv[4], 0, NULL);
        call_and_show(m);
        dbus_message_unref(m);
        return 0;
}

static int cmd_fire_and_leave(int argc, char **argv) {
        DBusMessage *m;

        if (argc < 4)
                return 2;
        bus = connect_bus();
        m = new_call(argv[0], argv[1], argv[2], argv[3], argc - 4, argv + 4);
        dbus_connection_send(bus, m, NULL);
        dbus_connection_flush(bus);
        say("sent as %s", dbus_bus_get_unique_name(bus));
        dbus_connection_close(bus);
        return 0;
}

/* describe_args() on one line, at most 300 characters (introspection XML is long). */
static void describe_short(DBusMessage *m, char *buf, size_t size) {
        describe_args(m, buf, size);
        for (char *p = buf; *p; p++)
                if (*p == '\n')
                        *p = ' ';
        if (strlen(buf) > 300)
                strcpy(buf + 297, "...");
}

static const char *type_word(DBusMessage *m) {
        static const char *const types[] = { "?", "call", "return", "error", "signal" };
        int type = dbus_message_get_type(m);

        return types[type >= 0 && type <= 4 ? type : 0];
}

static const char *member_word(DBusMessage *m) {
        if (dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_ERROR && dbus_message_get_error_name(m))
                return dbus_message_get_error_name(m);
        return dbus_message_get_member(m) ? dbus_message_get_member(m) : "-";
}

/* The end marker of a test: the service's broadcast Public("done") (Emit done). */
static bool is_done_marker(DBusMessage *m) {
        const char *arg = NULL;

        return dbus_message_is_signal(m, E2E_IFACE, "Public") &&
               dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &arg, DBUS_TYPE_INVALID) &&
               strcmp(arg, "done") == 0;
}

static int cmd_monitor(int argc, char **argv) {
        double end = now() + (argc > 0 ? atof(argv[0]) : 5);
        DBusMessage *m = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                      "org.freedesktop.DBus.Monitoring", "BecomeMonitor");
        DBusMessageIter iter, rules;
        DBusError error = DBUS_ERROR_INIT;
        DBusMessage *reply;
        dbus_uint32_t flags = 0;

        bus = connect_bus();
        dbus_message_iter_init_append(m, &iter);
        dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "s", &rules);
        for (int i = 1; i < argc; i++)
                dbus_message_iter_append_basic(&rules, DBUS_TYPE_STRING, &argv[i]);
        dbus_message_iter_close_container(&iter, &rules);
        dbus_message_iter_append_basic(&iter, DBUS_TYPE_UINT32, &flags);
        reply = dbus_connection_send_with_reply_and_block(bus, m, TIMEOUT_MS, &error);
        dbus_message_unref(m);
        if (!reply) {
                say("error %s: %s", error.name, error.message);
                return 0;
        }
        dbus_message_unref(reply);
        say("monitor ok");
        while (now() < end && dbus_connection_read_write(bus, 50)) {
                while ((m = dbus_connection_pop_message(bus))) {
                        char args[2048];
                        bool done = is_done_marker(m);

                        describe_short(m, args, sizeof(args));
                        say("saw %s %s from %s: %s", type_word(m), member_word(m),
                            dbus_message_get_sender(m) ? dbus_message_get_sender(m) : "-", args);
                        dbus_message_unref(m);
                        if (done)
                                goto out;
                }
        }
out:
        say("end");
        return 0;
}

static int cmd_eavesdrop(int argc, char **argv) {
        double end = now() + (argc > 0 ? atof(argv[0]) : 5);
        const char *me;

        bus = connect_bus();
        if (argc < 2 && !add_match("eavesdrop=true,type='method_call'"))
                return 0;
        for (int i = 1; i < argc; i++)
                if (!add_match(argv[i]))
                        return 0;
        say("match ok");
        me = dbus_bus_get_unique_name(bus);
        say("ready %s", me);
        while (now() < end && dbus_connection_read_write(bus, 50)) {
                DBusMessage *m;

                while ((m = dbus_connection_pop_message(bus))) {
                        const char *dest = dbus_message_get_destination(m);
                        const char *sender = dbus_message_get_sender(m);
                        char args[2048];

                        if (dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_METHOD_CALL && dest &&
                            strcmp(dest, me) != 0 && strcmp(dest, "org.freedesktop.DBus") != 0)
                                say("saw %s to %s", dbus_message_get_member(m), dest);
                        else if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL &&
                                 (!dest || strcmp(dest, me) != 0) &&
                                 (!sender || strcmp(sender, "org.freedesktop.DBus") != 0)) {
                                describe_short(m, args, sizeof(args));
                                say("saw %s %s from %s to %s: %s", type_word(m), member_word(m),
                                    sender ? sender : "-", dest ? dest : "*", args);
                        }
                        if (is_done_marker(m)) {
                                dbus_message_unref(m);
                                goto out;
                        }
                        dbus_message_unref(m);
                }
        }
out:
        say("end");
        return 0;
}

/* A call whose one argument is a descriptor open on FILE (read-only). */
static int cmd_call_fd(int argc, char **argv) {
        DBusMessage *m;
        int fd;

        if (argc < 5)
                return 2;
        fd = open(argv[4], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                say("error open: %s", strerror(errno));
                return 1;
        }
        bus = connect_bus();
        m = new_call(argv[0], argv[1], argv[2], argv[3], 0, NULL);
        dbus_message_append_args(m, DBUS_TYPE_UNIX_FD, &fd, DBUS_TYPE_INVALID);
        close(fd);
        call_and_show(m);
        dbus_message_unref(m);
        return 0;
}

static int cmd_own(int argc, char **argv) {
        DBusError error = DBUS_ERROR_INIT;
        int r;

        if (argc < 1)
                return 2;
        bus = connect_bus();
        r = dbus_bus_request_name(bus, argv[0], DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);
        if (r < 0)
                say("error %s: %s", error.name, error.message);
        else
                say("reply %d", r);
        return 0;
}

/* A service asking the bus about a connection, as libmssf does, while it serves NAME. */
static int cmd_ask(int argc, char **argv) {
        DBusError error = DBUS_ERROR_INIT;
        const char *target;

        if (argc < 3)
                return 2;
        bus = connect_bus();
        if (strcmp(argv[0], "-") != 0) {
                int r = dbus_bus_request_name(bus, argv[0], DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);

                if (r < 0) {
                        say("error %s: %s", error.name, error.message);
                        dbus_error_free(&error);
                        return 1;
                }
                say("owner %s %d", argv[0], r);
        }
        target = strcmp(argv[1], "self") == 0 ? dbus_bus_get_unique_name(bus) : argv[1];
        for (int i = 2; i < argc; i++) {
                DBusMessage *m = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                              "org.mssf.Broker1", "CheckToken");
                DBusMessage *reply;
                dbus_bool_t held = FALSE;

                dbus_message_append_args(m, DBUS_TYPE_STRING, &target, DBUS_TYPE_STRING, &argv[i],
                                         DBUS_TYPE_INVALID);
                reply = dbus_connection_send_with_reply_and_block(bus, m, TIMEOUT_MS, &error);
                dbus_message_unref(m);
                if (!reply || !dbus_message_get_args(reply, &error, DBUS_TYPE_BOOLEAN, &held, DBUS_TYPE_INVALID))
                        say("error %s %s: %s", argv[i], error.name, error.message);
                else
                        say("held %s %s", argv[i], held ? "true" : "false");
                dbus_error_free(&error);
                if (reply)
                        dbus_message_unref(reply);
        }
        return 0;
}

int main(int argc, char **argv) {
        const char *cmd = argc > 1 ? argv[1] : "";

        argc -= 2;
        argv += 2;
        if (strcmp(cmd, "serve") == 0)
                return cmd_serve(argc, argv);
        if (strcmp(cmd, "call") == 0 && argc >= 4) {
                DBusMessage *m;

                bus = connect_bus();
                m = new_call(argv[0], argv[1], argv[2], argv[3], argc - 4, argv + 4);
                call_and_show(m);
                dbus_message_unref(m);
                return 0;
        }
        if (strcmp(cmd, "listen") == 0)
                return cmd_listen(argc, argv);
        if (strcmp(cmd, "sequence") == 0)
                return cmd_sequence(argc, argv);
        if (strcmp(cmd, "slow") == 0 && argc >= 1) {
                DBusMessage *m;

                bus = connect_bus();
                say("calling as %s", dbus_bus_get_unique_name(bus));
                m = new_call("org.mssf.E2E", E2E_PATH, E2E_IFACE, "Slow", 1, argv);
                call_and_show(m);
                dbus_message_unref(m);
                return 0;
        }
        if (strcmp(cmd, "forge-reply") == 0 && argc >= 3) {
                DBusMessage *m = dbus_message_new(DBUS_MESSAGE_TYPE_METHOD_RETURN);

                bus = connect_bus();
                dbus_message_set_destination(m, argv[0]);
                dbus_message_set_reply_serial(m, (dbus_uint32_t) strtoul(argv[1], NULL, 10));
                dbus_message_set_no_reply(m, TRUE);
                dbus_message_append_args(m, DBUS_TYPE_STRING, &argv[2], DBUS_TYPE_INVALID);
                dbus_connection_send(bus, m, NULL);
                dbus_connection_flush(bus);
                dbus_message_unref(m);
                /* A round trip to the driver: the forged reply was routed before it. */
                dbus_bus_name_has_owner(bus, "org.freedesktop.DBus", NULL);
                say("forged");
                return 0;
        }
        if (strcmp(cmd, "fire-and-leave") == 0)
                return cmd_fire_and_leave(argc, argv);
        if (strcmp(cmd, "monitor") == 0)
                return cmd_monitor(argc, argv);
        if (strcmp(cmd, "eavesdrop") == 0)
                return cmd_eavesdrop(argc, argv);
        if (strcmp(cmd, "own") == 0)
                return cmd_own(argc, argv);
        if (strcmp(cmd, "ask") == 0)
                return cmd_ask(argc, argv);
        if (strcmp(cmd, "call-fd") == 0)
                return cmd_call_fd(argc, argv);
        fprintf(stderr, "usage: e2e-helper serve|call|call-fd|listen|sequence|slow|fire-and-leave|monitor|"
                        "eavesdrop|own|ask ARGS (see the source's header)\n");
        return 2;
}
