/*
 * mssf-demo-cellular: a simulated modem service, package "cellular", bus
 * name org.mssf.Cellular, object /org/mssf/Cellular.
 *
 * It is written as a service author writes for any system bus: it knows
 * nothing about Smack or tokens and answers whoever calls. The bus
 * enforces manifests/cellular.xml for it: Dial, Hangup, GetCalls, the
 * CallStateChanged signal and the SignalStrength property need the global
 * token Cellular; Introspect and the Operator property are open. So a
 * caller without the token never reaches these handlers, and never sees
 * the signal or the property: the bus drops them for it.
 *
 * A call is simulated: Dial returns its path at once (state "dialing"),
 * and a timer moves it to "alerting", "active", and after the call's
 * duration "disconnected", where it is forgotten; Hangup disconnects it
 * early. Every change is announced with CallStateChanged(call, state) on
 * the main object. The call path is a handle, as in oFono, not an object:
 * manifest nodes are exact paths, so per-call objects could not be
 * declared (and undeclared objects are closed under a declared name).
 * SignalStrength wanders every few seconds and is announced with
 * PropertiesChanged.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "demo-bus.h"

#define CELLULAR_NAME "org.mssf.Cellular"
#define CELLULAR_PATH "/org/mssf/Cellular"
#define CELLULAR_INTERFACE "org.mssf.Cellular"
#define CELLULAR_ERROR_INVALID_NUMBER "org.mssf.Cellular.Error.InvalidNumber"
#define CELLULAR_ERROR_NO_SUCH_CALL "org.mssf.Cellular.Error.NoSuchCall"
#define CELLULAR_MAX_CALLS 8

static const char cellular_xml[] =
        "<node>"
        "  <interface name='" CELLULAR_INTERFACE "'>"
        "    <method name='Dial'>"
        "      <arg name='number' type='s' direction='in'/>"
        "      <arg name='call' type='o' direction='out'/>"
        "    </method>"
        "    <method name='Hangup'>"
        "      <arg name='call' type='o' direction='in'/>"
        "    </method>"
        "    <method name='GetCalls'>"
        "      <arg name='calls' type='ao' direction='out'/>"
        "    </method>"
        "    <signal name='CallStateChanged'>"
        "      <arg name='call' type='o'/>"
        "      <arg name='state' type='s'/>"
        "    </signal>"
        "    <property name='SignalStrength' type='y' access='read'/>"
        "    <property name='Operator' type='s' access='read'/>"
        "  </interface>"
        "</node>";

typedef enum CallState {
        CALL_DIALING,
        CALL_ALERTING,
        CALL_ACTIVE,
        CALL_DISCONNECTED,
} CallState;

typedef struct Cellular Cellular;

typedef struct Call {
        Cellular *cellular;     /* (unowned) */
        char *path;
        char *number;
        CallState state;
        guint timer;            /* 0 when none */
} Call;

struct Cellular {
        GDBusConnection *connection;    /* (unowned) */
        GPtrArray *calls;               /* Call, in the order they were dialled (owned) */
        unsigned next_call;
        guint8 signal_strength;
        char *operator_name;
        unsigned alert_ms;
        unsigned answer_ms;
        unsigned duration_ms;
        GRand *rand;
};

static const char *call_state_name(CallState state) {
        static const char *const names[] = {
                [CALL_DIALING] = "dialing",
                [CALL_ALERTING] = "alerting",
                [CALL_ACTIVE] = "active",
                [CALL_DISCONNECTED] = "disconnected",
        };

        return names[state];
}

static void call_free(Call *call) {
        if (!call)
                return;
        if (call->timer)
                g_source_remove(call->timer);
        g_free(call->path);
        g_free(call->number);
        g_free(call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Call, call_free)

static Call *cellular_find_call(Cellular *cellular, const char *path) {
        for (guint i = 0; i < cellular->calls->len; i++) {
                Call *call = g_ptr_array_index(cellular->calls, i);

                if (strcmp(call->path, path) == 0)
                        return call;
        }
        return NULL;
}

static gboolean call_advance(gpointer userdata);

/* Enter state, announce it, and arm the timer for the next one. */
static void call_set_state(Call *call, CallState state) {
        Cellular *cellular = call->cellular;
        unsigned delay_ms = 0;

        call->state = state;
        if (call->timer) {
                g_source_remove(call->timer);
                call->timer = 0;
        }
        printf("%s (%s): %s\n", call->path, call->number, call_state_name(state));
        fflush(stdout);
        demo_bus_emit(cellular->connection, CELLULAR_PATH, CELLULAR_INTERFACE, "CallStateChanged",
                      g_variant_new("(os)", call->path, call_state_name(state)));
        switch (state) {
        case CALL_DIALING: delay_ms = cellular->alert_ms; break;
        case CALL_ALERTING: delay_ms = cellular->answer_ms; break;
        case CALL_ACTIVE: delay_ms = cellular->duration_ms; break;
        case CALL_DISCONNECTED:
                /* Frees call. */
                g_ptr_array_remove(cellular->calls, call);
                return;
        }
        call->timer = g_timeout_add(delay_ms, call_advance, call);
}

static gboolean call_advance(gpointer userdata) {
        Call *call = userdata;

        /* The source ends here; call_set_state() must not remove it again. */
        call->timer = 0;
        call_set_state(call, call->state + 1);
        return G_SOURCE_REMOVE;
}

static bool number_is_valid(const char *number) {
        const char *digits = number[0] == '+' ? number + 1 : number;

        if (strlen(number) > 32 || !digits[0])
                return false;
        return strspn(digits, "0123456789*#") == strlen(digits);
}

static void cellular_dial(Cellular *cellular, GVariant *parameters,
                          GDBusMethodInvocation *invocation) {
        g_autoptr(Call) call = NULL;
        const char *number;
        Call *dialled;

        g_variant_get(parameters, "(&s)", &number);
        if (!number_is_valid(number)) {
                g_dbus_method_invocation_return_dbus_error(
                        invocation, CELLULAR_ERROR_INVALID_NUMBER,
                        "a number is 1 to 32 of the characters 0-9 * #, with an optional "
                        "leading +");
                return;
        }
        if (cellular->calls->len >= CELLULAR_MAX_CALLS) {
                g_dbus_method_invocation_return_dbus_error(
                        invocation, "org.freedesktop.DBus.Error.LimitsExceeded",
                        "too many calls at once: hang one up first");
                return;
        }
        call = g_new0(Call, 1);
        call->cellular = cellular;
        call->path = g_strdup_printf(CELLULAR_PATH "/call%u", cellular->next_call++);
        call->number = g_strdup(number);
        dialled = call;
        g_ptr_array_add(cellular->calls, g_steal_pointer(&call));
        /* The reply goes out before the first CallStateChanged. */
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(o)", dialled->path));
        call_set_state(dialled, CALL_DIALING);
}

static void cellular_hangup(Cellular *cellular, GVariant *parameters,
                            GDBusMethodInvocation *invocation) {
        const char *path;
        Call *call;

        g_variant_get(parameters, "(&o)", &path);
        call = cellular_find_call(cellular, path);
        if (!call) {
                g_dbus_method_invocation_return_dbus_error(invocation, CELLULAR_ERROR_NO_SUCH_CALL,
                                                           "no such call (it may have ended)");
                return;
        }
        g_dbus_method_invocation_return_value(invocation, NULL);
        call_set_state(call, CALL_DISCONNECTED);
}

static void cellular_get_calls(Cellular *cellular, GDBusMethodInvocation *invocation) {
        g_auto(GVariantBuilder) calls = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE("ao"));

        for (guint i = 0; i < cellular->calls->len; i++) {
                Call *call = g_ptr_array_index(cellular->calls, i);

                g_variant_builder_add(&calls, "o", call->path);
        }
        g_dbus_method_invocation_return_value(invocation,
                                              g_variant_new("(ao)", &calls));
}

static void cellular_method_call(GDBusConnection *connection G_GNUC_UNUSED,
                                 const char *sender G_GNUC_UNUSED, const char *path G_GNUC_UNUSED,
                                 const char *interface G_GNUC_UNUSED, const char *method,
                                 GVariant *parameters, GDBusMethodInvocation *invocation,
                                 gpointer userdata) {
        Cellular *cellular = userdata;

        if (strcmp(method, "Dial") == 0)
                cellular_dial(cellular, parameters, invocation);
        else if (strcmp(method, "Hangup") == 0)
                cellular_hangup(cellular, parameters, invocation);
        else if (strcmp(method, "GetCalls") == 0)
                cellular_get_calls(cellular, invocation);
        else
                g_dbus_method_invocation_return_dbus_error(
                        invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no such method");
}

static GVariant *cellular_get_property(GDBusConnection *connection G_GNUC_UNUSED,
                                       const char *sender G_GNUC_UNUSED,
                                       const char *path G_GNUC_UNUSED,
                                       const char *interface G_GNUC_UNUSED, const char *property,
                                       GError **error, gpointer userdata) {
        Cellular *cellular = userdata;

        if (strcmp(property, "SignalStrength") == 0)
                return g_variant_new_byte(cellular->signal_strength);
        if (strcmp(property, "Operator") == 0)
                return g_variant_new_string(cellular->operator_name);
        g_set_error(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no property %s", property);
        return NULL;
}

static const GDBusInterfaceVTable cellular_vtable = {
        .method_call = cellular_method_call,
        .get_property = cellular_get_property,
};

/* A random walk between 20 and 95 per cent, announced when it moves. */
static gboolean cellular_update_strength(gpointer userdata) {
        Cellular *cellular = userdata;
        int strength = cellular->signal_strength + g_rand_int_range(cellular->rand, -6, 7);
        g_auto(GVariantBuilder) changed = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE("a{sv}"));

        strength = CLAMP(strength, 20, 95);
        if (strength == cellular->signal_strength)
                return G_SOURCE_CONTINUE;
        cellular->signal_strength = (guint8) strength;
        g_variant_builder_add(&changed, "{sv}", "SignalStrength",
                              g_variant_new_byte(cellular->signal_strength));
        demo_bus_emit_properties_changed(cellular->connection, CELLULAR_PATH, CELLULAR_INTERFACE,
                                         g_variant_builder_end(&changed));
        return G_SOURCE_CONTINUE;
}

static void cellular_deinit(Cellular *cellular) {
        /* Frees the calls and removes their timers. */
        g_clear_pointer(&cellular->calls, g_ptr_array_unref);
        g_clear_pointer(&cellular->rand, g_rand_free);
        g_clear_pointer(&cellular->operator_name, g_free);
}

int main(int argc, char **argv) {
        g_autofree char *address = NULL;
        g_autofree char *operator_name = NULL;
        int alert_ms = 500, answer_ms = 1000, duration_ms = 3000, strength_ms = 2000;
        const GOptionEntry options[] = {
                { "address", 0, 0, G_OPTION_ARG_STRING, &address,
                  "bus address (default: $DBUS_SYSTEM_BUS_ADDRESS or the system bus)", "ADDR" },
                { "operator", 0, 0, G_OPTION_ARG_STRING, &operator_name,
                  "network operator name (default: MSSF Mobile)", "NAME" },
                { "alert-ms", 0, 0, G_OPTION_ARG_INT, &alert_ms,
                  "dialing -> alerting after MS milliseconds (500)", "MS" },
                { "answer-ms", 0, 0, G_OPTION_ARG_INT, &answer_ms,
                  "alerting -> active after MS milliseconds (1000)", "MS" },
                { "duration-ms", 0, 0, G_OPTION_ARG_INT, &duration_ms,
                  "active -> disconnected after MS milliseconds (3000)", "MS" },
                { "strength-ms", 0, 0, G_OPTION_ARG_INT, &strength_ms,
                  "update SignalStrength every MS milliseconds (2000)", "MS" },
                G_OPTION_ENTRY_NULL,
        };
        g_autoptr(GOptionContext) context = g_option_context_new("- simulated modem service");
        g_autoptr(GDBusNodeInfo) node = NULL;
        g_autoptr(GDBusConnection) connection = NULL;
        g_autoptr(GError) error = NULL;
        Cellular cellular = {};
        guint registration, strength_timer;
        int status;

        g_option_context_add_main_entries(context, options, NULL);
        if (!g_option_context_parse(context, &argc, &argv, &error) || argc > 1 ||
            alert_ms < 0 || answer_ms < 0 || duration_ms < 0 || strength_ms <= 0) {
                g_printerr("%s: %s\n", g_get_prgname(),
                           error ? error->message : "bad arguments (see --help)");
                return 2;
        }
        node = g_dbus_node_info_new_for_xml(cellular_xml, &error);
        g_assert_no_error(error);
        connection = demo_bus_connect(address, &error);
        if (!connection) {
                g_printerr("%s: cannot connect to the bus: %s\n", g_get_prgname(), error->message);
                return 1;
        }

        cellular.connection = connection;
        cellular.calls = g_ptr_array_new_with_free_func((GDestroyNotify) call_free);
        cellular.signal_strength = 72;
        cellular.operator_name = g_strdup(operator_name ? operator_name : "MSSF Mobile");
        cellular.alert_ms = (unsigned) alert_ms;
        cellular.answer_ms = (unsigned) answer_ms;
        cellular.duration_ms = (unsigned) duration_ms;
        cellular.rand = g_rand_new();

        registration = g_dbus_connection_register_object(connection, CELLULAR_PATH,
                                                         node->interfaces[0], &cellular_vtable,
                                                         &cellular, NULL, &error);
        if (!registration) {
                g_printerr("%s: cannot register %s: %s\n", g_get_prgname(), CELLULAR_PATH,
                           error->message);
                cellular_deinit(&cellular);
                return 1;
        }
        strength_timer = g_timeout_add((guint) strength_ms, cellular_update_strength, &cellular);

        status = demo_service_run(connection, CELLULAR_NAME);

        g_source_remove(strength_timer);
        g_dbus_connection_unregister_object(connection, registration);
        cellular_deinit(&cellular);
        return status;
}
