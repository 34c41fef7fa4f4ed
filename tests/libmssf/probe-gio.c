/*
 * libmssf-probe's GDBus service: org.mssf.Probe at /org/mssf/Probe, every
 * method answering (b held, s error) with one of libmssf's GIO calls:
 *   Check(s token)              mssf_invocation_check_token() (async)
 *   CheckSync(s token)          mssf_invocation_check_token_sync()
 *   CheckName(s name, s token)  mssf_check_token() (async, by name)
 *   CheckNameSync(s name, s token) mssf_check_token_sync()
 * error is "" or "NAME: text", NAME the D-Bus error name the MssfError
 * stands for (so that both bindings read alike), or "DOMAIN.CODE" for a
 * transport error.
 */
#include <stdio.h>
#include <string.h>

#include "mssf/mssf-gio.h"
#include "probe.h"

static const char probe_xml[] =
        "<node><interface name='" PROBE_INTERFACE "'>"
        "<method name='Check'><arg type='s' direction='in'/><arg type='b' direction='out'/><arg type='s' direction='out'/></method>"
        "<method name='CheckSync'><arg type='s' direction='in'/><arg type='b' direction='out'/><arg type='s' direction='out'/></method>"
        "<method name='CheckName'><arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='b' direction='out'/><arg type='s' direction='out'/></method>"
        "<method name='CheckNameSync'><arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='b' direction='out'/><arg type='s' direction='out'/></method>"
        "</interface></node>";

static const char *mssf_error_name(int code) {
        static const char *const names[] = {
                [MSSF_ERROR_FAILED] = "org.freedesktop.DBus.Error.Failed",
                [MSSF_ERROR_INVALID_ARGUMENT] = "org.freedesktop.DBus.Error.InvalidArgs",
                [MSSF_ERROR_NO_SUCH_CONNECTION] = "org.freedesktop.DBus.Error.NameHasNoOwner",
                [MSSF_ERROR_NOT_ALLOWED] = "org.freedesktop.DBus.Error.AccessDenied",
                [MSSF_ERROR_SMACK_DISABLED] = MSSF_ERROR_NAME_SMACK_DISABLED,
                [MSSF_ERROR_NO_LABEL] = MSSF_ERROR_NAME_NO_LABEL,
                [MSSF_ERROR_POLICY_OUTDATED] = MSSF_ERROR_NAME_POLICY_OUTDATED,
                [MSSF_ERROR_NOT_SUPPORTED] = MSSF_ERROR_NAME_NOT_SUPPORTED,
                [MSSF_ERROR_NOT_A_BUS] = MSSF_ERROR_NAME_NOT_A_BUS,
        };

        return code >= 0 && (size_t) code < G_N_ELEMENTS(names) ? names[code] : "unknown";
}

/* The (b, s) answer; takes error. */
static void reply(GDBusMethodInvocation *invocation, gboolean held, GError *error) {
        g_autofree char *text = NULL;

        if (error && error->domain == MSSF_ERROR)
                text = g_strdup_printf("%s: %s", mssf_error_name(error->code), error->message);
        else if (error)
                text = g_strdup_printf("%s.%d: %s", g_quark_to_string(error->domain), error->code, error->message);
        if (held && error)
                g_error("libmssf said held and gave an error");
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(bs)", held, text ? text : ""));
        g_clear_error(&error);
}

static void checked(GObject *source, GAsyncResult *result, gpointer userdata) {
        GDBusMethodInvocation *invocation = userdata;
        GError *error = NULL;
        gboolean held = mssf_invocation_check_token_finish(result, &error);

        reply(invocation, held, error);
}

static void checked_name(GObject *source, GAsyncResult *result, gpointer userdata) {
        GDBusMethodInvocation *invocation = userdata;
        GError *error = NULL;
        gboolean held = mssf_check_token_finish(result, &error);

        reply(invocation, held, error);
}

static void method_call(GDBusConnection *connection, const char *sender, const char *path,
                        const char *interface, const char *method, GVariant *parameters,
                        GDBusMethodInvocation *invocation, gpointer userdata) {
        const char *name = NULL, *token = NULL;
        GError *error = NULL;
        gboolean held;

        if (g_str_has_prefix(method, "CheckName"))
                g_variant_get(parameters, "(&s&s)", &name, &token);
        else
                g_variant_get(parameters, "(&s)", &token);
        if (strcmp(method, "Check") == 0) {
                /* The invocation is ours until reply() answers it. */
                mssf_invocation_check_token(invocation, token, NULL, checked, invocation);
        } else if (strcmp(method, "CheckName") == 0) {
                mssf_check_token(connection, name, token, NULL, checked_name, invocation);
        } else if (strcmp(method, "CheckSync") == 0) {
                held = mssf_invocation_check_token_sync(invocation, token, NULL, &error);
                reply(invocation, held, error);
        } else {
                held = mssf_check_token_sync(connection, name, token, NULL, &error);
                reply(invocation, held, error);
        }
}

static const GDBusInterfaceVTable probe_vtable = { .method_call = method_call };

static void name_acquired(GDBusConnection *connection, const char *name, gpointer userdata) {
        printf("ready %s %s\n", name, g_dbus_connection_get_unique_name(connection));
        fflush(stdout);
}

static void name_lost(GDBusConnection *connection, const char *name, gpointer userdata) {
        fprintf(stderr, "libmssf-probe: lost or refused %s\n", name);
        g_main_loop_quit(userdata);
}

int probe_serve_gio(const char *address, const char *name) {
        g_autoptr(GError) error = NULL;
        g_autoptr(GDBusConnection) connection = NULL;
        g_autoptr(GDBusNodeInfo) node = g_dbus_node_info_new_for_xml(probe_xml, NULL);
        g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);

        if (address)
                connection = g_dbus_connection_new_for_address_sync(
                        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                        G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL, &error);
        else
                connection = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, &error);
        if (!connection) {
                fprintf(stderr, "libmssf-probe: %s\n", error->message);
                return 1;
        }
        if (!g_dbus_connection_register_object(connection, PROBE_PATH, node->interfaces[0], &probe_vtable,
                                               NULL, NULL, &error)) {
                fprintf(stderr, "libmssf-probe: %s\n", error->message);
                return 1;
        }
        g_bus_own_name_on_connection(connection, name, G_BUS_NAME_OWNER_FLAGS_NONE, name_acquired, name_lost,
                                     loop, NULL);
        g_main_loop_run(loop);
        return 1;
}
