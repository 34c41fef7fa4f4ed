/* The system bus connection and main loop every demo program shares. */
#pragma once

#include <gio/gio.h>

/*
 * The address the demo programs use: $DBUS_SYSTEM_BUS_ADDRESS, else (when
 * the system bus activated us) $DBUS_STARTER_ADDRESS, else the standard
 * socket.
 */
const char *demo_bus_system_address(void);

/*
 * A message-bus connection to address (NULL: demo_bus_system_address()),
 * authenticated and past Hello; NULL with error set when it fails.
 */
GDBusConnection *demo_bus_connect(const char *address, GError **error);

/*
 * Own name on connection, then run the main loop until SIGINT or SIGTERM
 * (exit status 0), or until the name is refused or lost or the bus goes
 * away (exit status 1). Objects must be registered before, so that no
 * caller ever finds the name without them. Prints "NAME: ready" on stdout
 * once the name is ours, so that scripts can wait for it.
 */
int demo_service_run(GDBusConnection *connection, const char *name);

/*
 * Emit org.freedesktop.DBus.Properties.PropertiesChanged for interface at
 * path, with changed (an a{sv}, floating or not) and no invalidated names.
 */
void demo_bus_emit_properties_changed(GDBusConnection *connection, const char *path,
                                      const char *interface, GVariant *changed);

/* Emit a signal, reporting a failure on stderr (a demo service keeps running). */
void demo_bus_emit(GDBusConnection *connection, const char *path, const char *interface,
                   const char *signal, GVariant *parameters);
