/*
 * What every demo program does the same way: connect to the system bus
 * (the address in $DBUS_SYSTEM_BUS_ADDRESS, as libdbus and sd-bus read it,
 * so that tests can point the programs at a private bus), and, for the
 * services, own the well-known name and run until told to stop.
 *
 * Nothing here knows about Smack, tokens or manifests: a service on the
 * MSSF bus is written exactly as for dbus-daemon, and the bus does the
 * mediation. The only visible difference is that a name the manifests do
 * not let this label own is refused, which demo_service_run() reports and
 * turns into exit status 1.
 */
#include "demo-bus.h"

#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>

#define DEMO_SYSTEM_BUS_DEFAULT "unix:path=/var/run/dbus/system_bus_socket"

typedef struct DemoService {
        GMainLoop *loop;
        const char *name;
        int status;
} DemoService;

const char *demo_bus_system_address(void) {
        const char *address = g_getenv("DBUS_SYSTEM_BUS_ADDRESS");

        if (address && address[0])
                return address;
        /* Started by the system bus's activation: the bus that started us. */
        if (g_strcmp0(g_getenv("DBUS_STARTER_BUS_TYPE"), "system") == 0) {
                address = g_getenv("DBUS_STARTER_ADDRESS");
                if (address && address[0])
                        return address;
        }
        return DEMO_SYSTEM_BUS_DEFAULT;
}

GDBusConnection *demo_bus_connect(const char *address, GError **error) {
        GDBusConnection *connection;

        connection = g_dbus_connection_new_for_address_sync(
                address ? address : demo_bus_system_address(),
                G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                        G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                NULL, NULL, error);
        if (connection)
                g_dbus_connection_set_exit_on_close(connection, FALSE);
        return connection;
}

static void service_stop(DemoService *service, int status) {
        if (status > service->status)
                service->status = status;
        g_main_loop_quit(service->loop);
}

static void on_name_acquired(GDBusConnection *connection G_GNUC_UNUSED, const char *name,
                             gpointer userdata G_GNUC_UNUSED) {
        printf("%s: ready\n", name);
        fflush(stdout);
}

static void on_name_lost(GDBusConnection *connection G_GNUC_UNUSED, const char *name,
                         gpointer userdata) {
        DemoService *service = userdata;

        /*
         * Called when the request is refused (busconfig, or a manifest
         * that gives the name to another label), when someone else owns
         * it, and when the connection is gone.
         */
        fprintf(stderr, "%s: the name is not ours (refused by the bus, owned by another "
                        "connection, or the bus went away)\n", name);
        service_stop(service, 1);
}

static gboolean on_stop_signal(gpointer userdata) {
        service_stop(userdata, 0);
        return G_SOURCE_CONTINUE;
}

static void on_closed(GDBusConnection *connection G_GNUC_UNUSED,
                      gboolean remote_peer_vanished G_GNUC_UNUSED, GError *error,
                      gpointer userdata) {
        DemoService *service = userdata;

        fprintf(stderr, "%s: the bus connection is closed%s%s\n", service->name,
                error ? ": " : "", error ? error->message : "");
        service_stop(service, 1);
}

int demo_service_run(GDBusConnection *connection, const char *name) {
        g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);
        DemoService service = { .loop = loop, .name = name, .status = 0 };
        guint sigint, sigterm, owner;
        gulong closed;

        sigint = g_unix_signal_add(SIGINT, on_stop_signal, &service);
        sigterm = g_unix_signal_add(SIGTERM, on_stop_signal, &service);
        closed = g_signal_connect(connection, "closed", G_CALLBACK(on_closed), &service);
        owner = g_bus_own_name_on_connection(connection, name, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
                                             on_name_acquired, on_name_lost, &service, NULL);
        g_main_loop_run(loop);

        g_bus_unown_name(owner);
        g_signal_handler_disconnect(connection, closed);
        g_source_remove(sigterm);
        g_source_remove(sigint);
        /* Let the ReleaseName go out before the caller drops the connection. */
        if (!g_dbus_connection_is_closed(connection))
                g_dbus_connection_flush_sync(connection, NULL, NULL);
        return service.status;
}

void demo_bus_emit(GDBusConnection *connection, const char *path, const char *interface,
                   const char *signal, GVariant *parameters) {
        g_autoptr(GError) error = NULL;

        if (!g_dbus_connection_emit_signal(connection, NULL, path, interface, signal, parameters,
                                           &error))
                g_printerr("cannot emit %s.%s at %s: %s\n", interface, signal, path,
                           error->message);
}

void demo_bus_emit_properties_changed(GDBusConnection *connection, const char *path,
                                      const char *interface, GVariant *changed) {
        demo_bus_emit(connection, path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                      g_variant_new("(s@a{sv}@as)", interface, changed,
                                    g_variant_new_strv(NULL, 0)));
}
