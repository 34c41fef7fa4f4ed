/*
 * mssf-demo-calendar: a small in-memory calendar, package "calendar", bus
 * name org.mssf.Calendar, object /org/mssf/Calendar, interface
 * org.mssf.Calendar.
 *
 * - ListEvents() -> a(sss): every event as (id, summary, when), when
 *   being the ISO 8601 interval "start/end";
 *   AddEvent(s summary, s start, s end) -> s id, start and end in
 *   ISO 8601 (UTC when they name no zone), end not before start;
 * - the signal EventAdded(s id) after each AddEvent;
 * - the properties EventCount (u, read-only) and Name (s, the calendar's
 *   display name, read-write), with PropertiesChanged when they change.
 *
 * Unlike the other two services this package provides its own token:
 * "data" in manifests/calendar.xml, which others name calendar::data, with
 * checkorigin="yes" so that only packages of the calendar's own origin
 * (or ones the device policy names) are granted it. The bus requires it
 * for ListEvents, AddEvent, EventAdded and EventCount, and for setting
 * Name (com.maemo.Aegis.Write); reading Name and Introspect are open. The
 * manifest format has write tokens only for properties, so AddEvent needs
 * the same token as ListEvents.
 *
 * Per-calendar checks, which a manifest cannot express (the bus decides
 * per method, not per argument), with libmssf:
 * - ListCalendars() -> as: "personal", and "work" for callers that hold
 *   calendar::work;
 * - ListCalendarEvents(s calendar) -> a(sss): "personal" for anyone the
 *   bus lets call it (the manifest requires calendar::read), "work" only
 *   for holders of calendar::work, which the service asks the bus about
 *   (mssf_invocation_check_token(), asynchronously: the main loop keeps
 *   serving). The package provides "read" (any package may be granted it)
 *   and "work" (checkorigin); the service names it "work" and the bus
 *   resolves that as the calendar's manifest does: calendar::work. When
 *   the bus cannot tell (no Smack, an error), the answer is no, and the
 *   service says why.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <mssf/mssf-gio.h>

#include "demo-bus.h"

#define CALENDAR_NAME "org.mssf.Calendar"
#define CALENDAR_PATH "/org/mssf/Calendar"
#define CALENDAR_INTERFACE "org.mssf.Calendar"
#define CALENDAR_MAX_EVENTS 1000
#define CALENDAR_MAX_TEXT 256
/* The token the work calendar needs, as the calendar package's manifest names it. */
#define CALENDAR_WORK_TOKEN "work"

static const char calendar_xml[] =
        "<node>"
        "  <interface name='" CALENDAR_INTERFACE "'>"
        "    <method name='ListEvents'>"
        "      <arg name='events' type='a(sss)' direction='out'/>"
        "    </method>"
        "    <method name='AddEvent'>"
        "      <arg name='summary' type='s' direction='in'/>"
        "      <arg name='start' type='s' direction='in'/>"
        "      <arg name='end' type='s' direction='in'/>"
        "      <arg name='id' type='s' direction='out'/>"
        "    </method>"
        "    <signal name='EventAdded'>"
        "      <arg name='id' type='s'/>"
        "    </signal>"
        "    <method name='ListCalendars'>"
        "      <arg name='calendars' type='as' direction='out'/>"
        "    </method>"
        "    <method name='ListCalendarEvents'>"
        "      <arg name='calendar' type='s' direction='in'/>"
        "      <arg name='events' type='a(sss)' direction='out'/>"
        "    </method>"
        "    <property name='EventCount' type='u' access='read'/>"
        "    <property name='Name' type='s' access='readwrite'/>"
        "  </interface>"
        "</node>";

typedef struct Event {
        char *id;
        char *summary;
        char *when;             /* "start/end", ISO 8601 */
} Event;

typedef struct Calendar {
        GDBusConnection *connection;    /* (unowned) */
        GPtrArray *events;              /* Event, in the order added (owned): the personal calendar */
        GPtrArray *work_events;         /* Event (owned): the work calendar, read-only */
        unsigned next_event;
        unsigned next_work_event;
        char *name;                     /* (owned) */
} Calendar;

static void event_free(Event *event) {
        if (!event)
                return;
        g_free(event->id);
        g_free(event->summary);
        g_free(event->when);
        g_free(event);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Event, event_free)

static void calendar_clear(Calendar *calendar) {
        g_clear_pointer(&calendar->events, g_ptr_array_unref);
        g_clear_pointer(&calendar->work_events, g_ptr_array_unref);
        g_clear_pointer(&calendar->name, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Calendar, calendar_clear)

/* text as a time (UTC unless it names a zone), or NULL. */
static GDateTime *parse_time(const char *text) {
        g_autoptr(GTimeZone) utc = g_time_zone_new_utc();

        return g_date_time_new_from_iso8601(text, utc);
}

/*
 * Add an event to events: its id, or NULL with a message for the caller
 * when the arguments do not make one.
 */
static const char *calendar_add_to(GPtrArray *events, const char *prefix, unsigned *counter, const char *summary,
                                   const char *start_text, const char *end_text, const char **ret_problem) {
        g_autoptr(GDateTime) start = NULL, end = NULL;
        g_autofree char *start_iso = NULL, *end_iso = NULL;
        g_autoptr(Event) event = NULL;
        const char *id;

        if (!summary[0] || strlen(summary) > CALENDAR_MAX_TEXT) {
                *ret_problem = "the summary must be 1 to 256 bytes";
                return NULL;
        }
        start = parse_time(start_text);
        end = parse_time(end_text);
        if (!start || !end) {
                *ret_problem = "start and end must be ISO 8601 times, e.g. 2026-12-03T10:00:00Z";
                return NULL;
        }
        if (g_date_time_compare(end, start) < 0) {
                *ret_problem = "the event ends before it starts";
                return NULL;
        }
        if (events->len >= CALENDAR_MAX_EVENTS) {
                *ret_problem = "the calendar is full";
                return NULL;
        }
        start_iso = g_date_time_format_iso8601(start);
        end_iso = g_date_time_format_iso8601(end);
        event = g_new0(Event, 1);
        event->id = g_strdup_printf("%s%u", prefix, ++*counter);
        event->summary = g_strdup(summary);
        event->when = g_strconcat(start_iso, "/", end_iso, NULL);
        id = event->id;
        g_ptr_array_add(events, g_steal_pointer(&event));
        return id;
}

static const char *calendar_add(Calendar *calendar, const char *summary, const char *start_text,
                                const char *end_text, const char **ret_problem) {
        return calendar_add_to(calendar->events, "event", &calendar->next_event, summary, start_text, end_text,
                               ret_problem);
}

static void calendar_announce(Calendar *calendar, const char *property, GVariant *value) {
        g_auto(GVariantBuilder) changed = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE("a{sv}"));

        g_variant_builder_add(&changed, "{sv}", property, value);
        demo_bus_emit_properties_changed(calendar->connection, CALENDAR_PATH, CALENDAR_INTERFACE,
                                         g_variant_builder_end(&changed));
}

static void calendar_add_event(Calendar *calendar, GVariant *parameters,
                               GDBusMethodInvocation *invocation) {
        const char *summary, *start, *end, *problem = NULL, *id;

        g_variant_get(parameters, "(&s&s&s)", &summary, &start, &end);
        id = calendar_add(calendar, summary, start, end, &problem);
        if (!id) {
                g_dbus_method_invocation_return_dbus_error(
                        invocation, "org.freedesktop.DBus.Error.InvalidArgs", problem);
                return;
        }
        printf("added %s: %s\n", id, summary);
        fflush(stdout);
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(s)", id));
        demo_bus_emit(calendar->connection, CALENDAR_PATH, CALENDAR_INTERFACE, "EventAdded",
                      g_variant_new("(s)", id));
        calendar_announce(calendar, "EventCount", g_variant_new_uint32(calendar->events->len));
}

static void calendar_return_events(GPtrArray *list, GDBusMethodInvocation *invocation) {
        g_auto(GVariantBuilder) events = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE("a(sss)"));

        for (guint i = 0; i < list->len; i++) {
                const Event *event = g_ptr_array_index(list, i);

                g_variant_builder_add(&events, "(sss)", event->id, event->summary, event->when);
        }
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(a(sss))", &events));
}

static void calendar_list_events(Calendar *calendar, GDBusMethodInvocation *invocation) {
        calendar_return_events(calendar->events, invocation);
}

/*
 * Whether the caller of invocation holds calendar::work, from libmssf's
 * answer: FALSE when it does not, and when the bus could not tell (then
 * logged: the service fails closed, and says why).
 */
static gboolean calendar_caller_holds_work(GDBusMethodInvocation *invocation, GAsyncResult *result,
                                           GError **ret_error) {
        gboolean held = mssf_invocation_check_token_finish(result, ret_error);

        printf("%s %s calendar::work%s%s\n", g_dbus_method_invocation_get_sender(invocation),
               held ? "holds" : *ret_error ? "is taken as not holding" : "does not hold",
               *ret_error ? ": the bus could not tell: " : "", *ret_error ? (*ret_error)->message : "");
        fflush(stdout);
        return held;
}

static void calendar_listed(GObject *source, GAsyncResult *result, gpointer userdata G_GNUC_UNUSED) {
        GDBusMethodInvocation *invocation = G_DBUS_METHOD_INVOCATION(source);
        g_auto(GVariantBuilder) names = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE("as"));
        g_autoptr(GError) error = NULL;

        g_variant_builder_add(&names, "s", "personal");
        if (calendar_caller_holds_work(invocation, result, &error))
                g_variant_builder_add(&names, "s", "work");
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(as)", &names));
}

static void calendar_list_calendars(GDBusMethodInvocation *invocation) {
        /* Everyone the bus lets in holds calendar::read: personal. Work: ask the bus. */
        mssf_invocation_check_token(invocation, CALENDAR_WORK_TOKEN, NULL, calendar_listed, NULL);
}

static void calendar_work_checked(GObject *source, GAsyncResult *result, gpointer userdata) {
        GDBusMethodInvocation *invocation = G_DBUS_METHOD_INVOCATION(source);
        Calendar *calendar = userdata;
        g_autoptr(GError) error = NULL;

        if (calendar_caller_holds_work(invocation, result, &error))
                calendar_return_events(calendar->work_events, invocation);
        else if (error)
                g_dbus_method_invocation_return_dbus_error(
                        invocation, "org.freedesktop.DBus.Error.AccessDenied",
                        "the work calendar needs calendar::work, and the bus could not say whether you hold it");
        else
                g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.AccessDenied",
                                                           "the work calendar needs calendar::work");
}

static void calendar_list_calendar_events(Calendar *calendar, GVariant *parameters,
                                          GDBusMethodInvocation *invocation) {
        const char *which;

        g_variant_get(parameters, "(&s)", &which);
        if (strcmp(which, "personal") == 0)
                calendar_return_events(calendar->events, invocation);
        else if (strcmp(which, "work") == 0)
                mssf_invocation_check_token(invocation, CALENDAR_WORK_TOKEN, NULL, calendar_work_checked,
                                            calendar);
        else
                g_dbus_method_invocation_return_dbus_error(invocation, "org.mssf.Calendar.Error.NoSuchCalendar",
                                                           "there are two calendars: personal and work");
}

static void calendar_method_call(GDBusConnection *connection G_GNUC_UNUSED,
                                 const char *sender G_GNUC_UNUSED, const char *path G_GNUC_UNUSED,
                                 const char *interface G_GNUC_UNUSED, const char *method,
                                 GVariant *parameters, GDBusMethodInvocation *invocation,
                                 gpointer userdata) {
        Calendar *calendar = userdata;

        if (strcmp(method, "ListEvents") == 0)
                calendar_list_events(calendar, invocation);
        else if (strcmp(method, "AddEvent") == 0)
                calendar_add_event(calendar, parameters, invocation);
        else if (strcmp(method, "ListCalendars") == 0)
                calendar_list_calendars(invocation);
        else if (strcmp(method, "ListCalendarEvents") == 0)
                calendar_list_calendar_events(calendar, parameters, invocation);
        else
                g_dbus_method_invocation_return_dbus_error(
                        invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no such method");
}

static GVariant *calendar_get_property(GDBusConnection *connection G_GNUC_UNUSED,
                                       const char *sender G_GNUC_UNUSED,
                                       const char *path G_GNUC_UNUSED,
                                       const char *interface G_GNUC_UNUSED, const char *property,
                                       GError **error, gpointer userdata) {
        Calendar *calendar = userdata;

        if (strcmp(property, "EventCount") == 0)
                return g_variant_new_uint32(calendar->events->len);
        if (strcmp(property, "Name") == 0)
                return g_variant_new_string(calendar->name);
        g_set_error(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no property %s", property);
        return NULL;
}

static gboolean calendar_set_property(GDBusConnection *connection G_GNUC_UNUSED,
                                      const char *sender G_GNUC_UNUSED,
                                      const char *path G_GNUC_UNUSED,
                                      const char *interface G_GNUC_UNUSED, const char *property,
                                      GVariant *value, GError **error, gpointer userdata) {
        Calendar *calendar = userdata;
        const char *name;

        /* GDBus has checked the type against the introspection data. */
        if (strcmp(property, "Name") != 0) {
                g_set_error(error, G_DBUS_ERROR, G_DBUS_ERROR_PROPERTY_READ_ONLY,
                            "%s is read-only", property);
                return FALSE;
        }
        name = g_variant_get_string(value, NULL);
        if (!name[0] || strlen(name) > CALENDAR_MAX_TEXT) {
                g_set_error(error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                            "a name is 1 to 256 bytes");
                return FALSE;
        }
        if (strcmp(name, calendar->name) != 0) {
                g_free(calendar->name);
                calendar->name = g_strdup(name);
                calendar_announce(calendar, "Name", g_variant_new_string(calendar->name));
        }
        return TRUE;
}

static const GDBusInterfaceVTable calendar_vtable = {
        .method_call = calendar_method_call,
        .get_property = calendar_get_property,
        .set_property = calendar_set_property,
};

static void calendar_seed(Calendar *calendar) {
        const char *problem = NULL;

        calendar_add(calendar, "Demo rehearsal", "2026-12-03T09:00:00Z", "2026-12-03T09:30:00Z",
                     &problem);
        calendar_add(calendar, "MSSF review", "2026-12-04T13:00:00Z", "2026-12-04T14:00:00Z",
                     &problem);
        calendar_add_to(calendar->work_events, "work", &calendar->next_work_event, "Budget (confidential)",
                        "2026-12-07T10:00:00Z", "2026-12-07T11:00:00Z", &problem);
        calendar_add_to(calendar->work_events, "work", &calendar->next_work_event, "Reorganisation",
                        "2026-12-08T15:00:00Z", "2026-12-08T16:00:00Z", &problem);
}

int main(int argc, char **argv) {
        g_autofree char *address = NULL;
        const GOptionEntry options[] = {
                { "address", 0, 0, G_OPTION_ARG_STRING, &address,
                  "bus address (default: $DBUS_SYSTEM_BUS_ADDRESS or the system bus)", "ADDR" },
                G_OPTION_ENTRY_NULL,
        };
        g_autoptr(GOptionContext) context = g_option_context_new("- in-memory calendar service");
        g_autoptr(GDBusNodeInfo) node = NULL;
        g_autoptr(GDBusConnection) connection = NULL;
        g_autoptr(GError) error = NULL;
        g_auto(Calendar) calendar = {
                .events = g_ptr_array_new_with_free_func((GDestroyNotify) event_free),
                .work_events = g_ptr_array_new_with_free_func((GDestroyNotify) event_free),
                .name = g_strdup("Personal"),
        };
        guint registration;
        int status;

        g_option_context_add_main_entries(context, options, NULL);
        if (!g_option_context_parse(context, &argc, &argv, &error) || argc > 1) {
                g_printerr("%s: %s\n", g_get_prgname(),
                           error ? error->message : "bad arguments (see --help)");
                return 2;
        }
        node = g_dbus_node_info_new_for_xml(calendar_xml, &error);
        g_assert_no_error(error);
        connection = demo_bus_connect(address, &error);
        if (!connection) {
                g_printerr("%s: cannot connect to the bus: %s\n", g_get_prgname(), error->message);
                return 1;
        }
        calendar.connection = connection;
        calendar_seed(&calendar);

        registration = g_dbus_connection_register_object(connection, CALENDAR_PATH,
                                                         node->interfaces[0], &calendar_vtable,
                                                         &calendar, NULL, &error);
        if (!registration) {
                g_printerr("%s: cannot register %s: %s\n", g_get_prgname(), CALENDAR_PATH,
                           error->message);
                return 1;
        }
        status = demo_service_run(connection, CALENDAR_NAME);
        g_dbus_connection_unregister_object(connection, registration);
        return status;
}
