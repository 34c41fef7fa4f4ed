/*
 * mssf-demo-location: a simulated positioning service, package
 * "location", bus name org.mssf.Location.
 *
 * Objects, all on one connection:
 *  - /org/mssf/Location, interface org.mssf.Location: GetPosition() ->
 *    (dd latitude, longitude), the signal PositionChanged(dd) every tick
 *    (one second by default), the properties Position ((dd)) and Accuracy
 *    (d, metres), with PropertiesChanged for both every tick;
 *  - /org/mssf/Location/Satellite/GNN, interface org.mssf.Location.Satellite:
 *    the satellites in view, properties Prn (u), Elevation and Azimuth (d,
 *    degrees); the last one sets and rises again every few ticks
 *    (InterfacesRemoved, InterfacesAdded);
 *  - /, org.freedesktop.DBus.ObjectManager over all of the above.
 *
 * Like every demo service it answers whoever asks; manifests/location.xml
 * tells the bus what needs the global token Location: GetPosition,
 * PositionChanged, Position, and a satellite's Elevation and Azimuth
 * (they give the position away too). Accuracy, Prn, Introspect and
 * GetManagedObjects are open. The bus removes the protected properties
 * from GetAll, PropertiesChanged, GetManagedObjects and InterfacesAdded
 * for a recipient without the token, so one signal carries both Position
 * and Accuracy and each recipient sees what it may.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "demo-bus.h"

#define LOCATION_NAME "org.mssf.Location"
#define LOCATION_PATH "/org/mssf/Location"
#define LOCATION_INTERFACE "org.mssf.Location"
#define SATELLITE_PATH_PREFIX LOCATION_PATH "/Satellite/G"
#define SATELLITE_INTERFACE "org.mssf.Location.Satellite"
#define OBJECT_MANAGER_INTERFACE "org.freedesktop.DBus.ObjectManager"
#define N_SATELLITES 3

static const char location_xml[] =
        "<node>"
        "  <interface name='" LOCATION_INTERFACE "'>"
        "    <method name='GetPosition'>"
        "      <arg name='latitude' type='d' direction='out'/>"
        "      <arg name='longitude' type='d' direction='out'/>"
        "    </method>"
        "    <signal name='PositionChanged'>"
        "      <arg name='latitude' type='d'/>"
        "      <arg name='longitude' type='d'/>"
        "    </signal>"
        "    <property name='Position' type='(dd)' access='read'/>"
        "    <property name='Accuracy' type='d' access='read'/>"
        "  </interface>"
        "  <interface name='" SATELLITE_INTERFACE "'>"
        "    <property name='Prn' type='u' access='read'/>"
        "    <property name='Elevation' type='d' access='read'/>"
        "    <property name='Azimuth' type='d' access='read'/>"
        "  </interface>"
        "  <interface name='" OBJECT_MANAGER_INTERFACE "'>"
        "    <method name='GetManagedObjects'>"
        "      <arg name='objects' type='a{oa{sa{sv}}}' direction='out'/>"
        "    </method>"
        "    <signal name='InterfacesAdded'>"
        "      <arg name='object' type='o'/>"
        "      <arg name='interfaces' type='a{sa{sv}}'/>"
        "    </signal>"
        "    <signal name='InterfacesRemoved'>"
        "      <arg name='object' type='o'/>"
        "      <arg name='interfaces' type='as'/>"
        "    </signal>"
        "  </interface>"
        "</node>";

typedef struct Location Location;

typedef struct Satellite {
        Location *location;     /* (unowned) */
        char *path;
        guint32 prn;
        double elevation;
        double azimuth;         /* at tick 0; it turns as time passes */
        guint registration;     /* 0 while set (not in view) */
} Satellite;

struct Location {
        GDBusConnection *connection;    /* (unowned) */
        GDBusNodeInfo *node;            /* (unowned) */
        guint64 tick;
        guint rise_period;              /* ticks between the last satellite setting and rising */
        Satellite satellites[N_SATELLITES];
};

/* Walks a small circle in Helsinki, once a minute at one tick per second. */
static void location_position(const Location *location, double *ret_latitude,
                              double *ret_longitude) {
        double angle = (double) (location->tick % 60) * (2.0 * G_PI / 60.0);

        *ret_latitude = round((60.1699 + 0.002 * sin(angle)) * 1e6) / 1e6;
        *ret_longitude = round((24.9384 + 0.004 * cos(angle)) * 1e6) / 1e6;
}

static double location_accuracy(const Location *location) {
        return round((9.0 + 4.0 * sin((double) location->tick / 7.0)) * 10.0) / 10.0;
}

static double satellite_azimuth(const Satellite *satellite) {
        return fmod(satellite->azimuth + (double) satellite->location->tick * 0.25, 360.0);
}

static GVariant *location_property(const Location *location, const char *property) {
        double latitude, longitude;

        if (strcmp(property, "Position") == 0) {
                location_position(location, &latitude, &longitude);
                return g_variant_new("(dd)", latitude, longitude);
        }
        if (strcmp(property, "Accuracy") == 0)
                return g_variant_new_double(location_accuracy(location));
        return NULL;
}

static GVariant *satellite_property(const Satellite *satellite, const char *property) {
        if (strcmp(property, "Prn") == 0)
                return g_variant_new_uint32(satellite->prn);
        if (strcmp(property, "Elevation") == 0)
                return g_variant_new_double(satellite->elevation);
        if (strcmp(property, "Azimuth") == 0)
                return g_variant_new_double(satellite_azimuth(satellite));
        return NULL;
}

/* a{sv} of every property of interface, read through get. */
static GVariant *properties_dict(const GDBusInterfaceInfo *interface,
                                 GVariant *(*get)(const void *object, const char *property),
                                 const void *object) {
        g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE("a{sv}"));

        for (GDBusPropertyInfo **p = interface->properties; p && *p; p++)
                g_variant_builder_add(&builder, "{sv}", (*p)->name, get(object, (*p)->name));
        return g_variant_builder_end(&builder);
}

static GVariant *get_location_property(const void *object, const char *property) {
        return location_property(object, property);
}

static GVariant *get_satellite_property(const void *object, const char *property) {
        return satellite_property(object, property);
}

/* a{sa{sv}}: the one interface of a satellite with its properties. */
static GVariant *satellite_interfaces(const Satellite *satellite) {
        const Location *location = satellite->location;
        g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE("a{sa{sv}}"));

        g_variant_builder_add(&builder, "{s@a{sv}}", SATELLITE_INTERFACE,
                              properties_dict(location->node->interfaces[1],
                                              get_satellite_property, satellite));
        return g_variant_builder_end(&builder);
}

static void location_get_managed_objects(Location *location, GDBusMethodInvocation *invocation) {
        g_auto(GVariantBuilder) objects = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE("a{oa{sa{sv}}}"));
        g_auto(GVariantBuilder) main_object = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE("a{sa{sv}}"));

        g_variant_builder_add(&main_object, "{s@a{sv}}", LOCATION_INTERFACE,
                              properties_dict(location->node->interfaces[0],
                                              get_location_property, location));
        g_variant_builder_add(&objects, "{o@a{sa{sv}}}", LOCATION_PATH,
                              g_variant_builder_end(&main_object));
        for (size_t i = 0; i < N_SATELLITES; i++) {
                const Satellite *satellite = &location->satellites[i];

                if (satellite->registration)
                        g_variant_builder_add(&objects, "{o@a{sa{sv}}}", satellite->path,
                                              satellite_interfaces(satellite));
        }
        g_dbus_method_invocation_return_value(invocation,
                                              g_variant_new("(@a{oa{sa{sv}}})",
                                                            g_variant_builder_end(&objects)));
}

static void location_method_call(GDBusConnection *connection G_GNUC_UNUSED,
                                 const char *sender G_GNUC_UNUSED, const char *path G_GNUC_UNUSED,
                                 const char *interface, const char *method,
                                 GVariant *parameters G_GNUC_UNUSED,
                                 GDBusMethodInvocation *invocation, gpointer userdata) {
        Location *location = userdata;
        double latitude, longitude;

        if (strcmp(interface, LOCATION_INTERFACE) == 0 && strcmp(method, "GetPosition") == 0) {
                location_position(location, &latitude, &longitude);
                g_dbus_method_invocation_return_value(invocation,
                                                      g_variant_new("(dd)", latitude, longitude));
        } else if (strcmp(interface, OBJECT_MANAGER_INTERFACE) == 0 &&
                   strcmp(method, "GetManagedObjects") == 0) {
                location_get_managed_objects(location, invocation);
        } else {
                g_dbus_method_invocation_return_dbus_error(
                        invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no such method");
        }
}

static GVariant *location_get_property(GDBusConnection *connection G_GNUC_UNUSED,
                                       const char *sender G_GNUC_UNUSED,
                                       const char *path G_GNUC_UNUSED,
                                       const char *interface G_GNUC_UNUSED, const char *property,
                                       GError **error, gpointer userdata) {
        GVariant *value = location_property(userdata, property);

        if (!value)
                g_set_error(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no property %s",
                            property);
        return value;
}

static GVariant *satellite_get_property(GDBusConnection *connection G_GNUC_UNUSED,
                                        const char *sender G_GNUC_UNUSED,
                                        const char *path G_GNUC_UNUSED,
                                        const char *interface G_GNUC_UNUSED, const char *property,
                                        GError **error, gpointer userdata) {
        GVariant *value = satellite_property(userdata, property);

        if (!value)
                g_set_error(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no property %s",
                            property);
        return value;
}

static const GDBusInterfaceVTable location_vtable = {
        .method_call = location_method_call,
        .get_property = location_get_property,
};

static const GDBusInterfaceVTable satellite_vtable = {
        .get_property = satellite_get_property,
};

static const GDBusInterfaceVTable object_manager_vtable = {
        .method_call = location_method_call,
};

static bool satellite_rise(Satellite *satellite, GError **error) {
        Location *location = satellite->location;

        satellite->registration = g_dbus_connection_register_object(
                location->connection, satellite->path, location->node->interfaces[1],
                &satellite_vtable, satellite, NULL, error);
        return satellite->registration != 0;
}

static void satellite_set(Satellite *satellite) {
        if (!satellite->registration)
                return;
        g_dbus_connection_unregister_object(satellite->location->connection,
                                            satellite->registration);
        satellite->registration = 0;
}

/* The last satellite leaves the sky for rise_period ticks, then comes back. */
static void location_move_satellite(Location *location) {
        Satellite *satellite = &location->satellites[N_SATELLITES - 1];
        const char *const removed[] = { SATELLITE_INTERFACE, NULL };
        g_autoptr(GError) error = NULL;

        if (location->rise_period == 0 || location->tick % location->rise_period != 0)
                return;
        if (satellite->registration) {
                satellite_set(satellite);
                demo_bus_emit(location->connection, "/", OBJECT_MANAGER_INTERFACE,
                              "InterfacesRemoved",
                              g_variant_new("(o^as)", satellite->path, removed));
        } else if (satellite_rise(satellite, &error)) {
                demo_bus_emit(location->connection, "/", OBJECT_MANAGER_INTERFACE,
                              "InterfacesAdded",
                              g_variant_new("(o@a{sa{sv}})", satellite->path,
                                            satellite_interfaces(satellite)));
        } else {
                g_printerr("cannot register %s: %s\n", satellite->path, error->message);
        }
}

static gboolean location_tick(gpointer userdata) {
        Location *location = userdata;
        double latitude, longitude;

        location->tick++;
        location_position(location, &latitude, &longitude);
        demo_bus_emit(location->connection, LOCATION_PATH, LOCATION_INTERFACE, "PositionChanged",
                      g_variant_new("(dd)", latitude, longitude));
        demo_bus_emit_properties_changed(location->connection, LOCATION_PATH, LOCATION_INTERFACE,
                                         properties_dict(location->node->interfaces[0],
                                                         get_location_property, location));
        location_move_satellite(location);
        return G_SOURCE_CONTINUE;
}

static void location_init_satellites(Location *location) {
        static const struct {
                guint32 prn;
                double elevation, azimuth;
        } sky[N_SATELLITES] = {
                { 7, 62.0, 145.0 },
                { 13, 35.5, 290.0 },
                { 21, 12.0, 40.0 },
        };

        for (size_t i = 0; i < N_SATELLITES; i++)
                location->satellites[i] = (Satellite) {
                        .location = location,
                        .path = g_strdup_printf(SATELLITE_PATH_PREFIX "%02u", sky[i].prn),
                        .prn = sky[i].prn,
                        .elevation = sky[i].elevation,
                        .azimuth = sky[i].azimuth,
                };
}

static void location_deinit(Location *location) {
        for (size_t i = 0; i < N_SATELLITES; i++) {
                satellite_set(&location->satellites[i]);
                g_clear_pointer(&location->satellites[i].path, g_free);
        }
}

/* Register the main object, the object manager and every satellite. */
static bool location_register(Location *location, guint registrations[2], GError **error) {
        GDBusNodeInfo *node = location->node;

        registrations[0] = g_dbus_connection_register_object(location->connection, LOCATION_PATH,
                                                             node->interfaces[0],
                                                             &location_vtable, location, NULL,
                                                             error);
        if (!registrations[0])
                return false;
        registrations[1] = g_dbus_connection_register_object(location->connection, "/",
                                                             node->interfaces[2],
                                                             &object_manager_vtable, location,
                                                             NULL, error);
        if (!registrations[1])
                return false;
        for (size_t i = 0; i < N_SATELLITES; i++)
                if (!satellite_rise(&location->satellites[i], error))
                        return false;
        return true;
}

int main(int argc, char **argv) {
        g_autofree char *address = NULL;
        int interval_ms = 1000, rise_period = 5;
        const GOptionEntry options[] = {
                { "address", 0, 0, G_OPTION_ARG_STRING, &address,
                  "bus address (default: $DBUS_SYSTEM_BUS_ADDRESS or the system bus)", "ADDR" },
                { "interval-ms", 0, 0, G_OPTION_ARG_INT, &interval_ms,
                  "a new position every MS milliseconds (1000)", "MS" },
                { "rise-period", 0, 0, G_OPTION_ARG_INT, &rise_period,
                  "the last satellite sets or rises every N ticks, 0 never (5)", "N" },
                G_OPTION_ENTRY_NULL,
        };
        g_autoptr(GOptionContext) context = g_option_context_new("- simulated positioning service");
        g_autoptr(GDBusNodeInfo) node = NULL;
        g_autoptr(GDBusConnection) connection = NULL;
        g_autoptr(GError) error = NULL;
        Location location = {};
        guint registrations[2] = {};
        guint ticker;
        int status = 1;

        g_option_context_add_main_entries(context, options, NULL);
        if (!g_option_context_parse(context, &argc, &argv, &error) || argc > 1 ||
            interval_ms <= 0 || rise_period < 0) {
                g_printerr("%s: %s\n", g_get_prgname(),
                           error ? error->message : "bad arguments (see --help)");
                return 2;
        }
        node = g_dbus_node_info_new_for_xml(location_xml, &error);
        g_assert_no_error(error);
        connection = demo_bus_connect(address, &error);
        if (!connection) {
                g_printerr("%s: cannot connect to the bus: %s\n", g_get_prgname(), error->message);
                return 1;
        }

        location.connection = connection;
        location.node = node;
        location.rise_period = (guint) rise_period;
        location_init_satellites(&location);
        if (location_register(&location, registrations, &error)) {
                ticker = g_timeout_add((guint) interval_ms, location_tick, &location);
                status = demo_service_run(connection, LOCATION_NAME);
                g_source_remove(ticker);
        } else {
                g_printerr("%s: cannot register the objects: %s\n", g_get_prgname(),
                           error->message);
        }

        for (size_t i = 0; i < G_N_ELEMENTS(registrations); i++)
                if (registrations[i])
                        g_dbus_connection_unregister_object(connection, registrations[i]);
        location_deinit(&location);
        return status;
}
