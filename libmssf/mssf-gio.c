/*
 * libmssf for GDBus: CheckToken through GDBusConnection, in GIO's three
 * forms (async + finish, sync), for a connection by unique name or for
 * the caller of a GDBusMethodInvocation.
 *
 * Fail closed: TRUE only from a "(b)" reply that says true. Every error
 * becomes FALSE with a GError: the bus's errors in MSSF_ERROR (sorted by
 * mssf_error_kind_from_name(), the bus's own text kept), transport errors
 * (cancelled, closed, timed out) in their own domain, all prefixed with
 * the question. Arguments that cannot be a question are refused before
 * anything is sent; the asynchronous form then still answers from the
 * main loop, so a callback never runs before its call returns.
 */
#include "mssf/mssf-gio.h"

#include "mssf-private.h"

G_DEFINE_QUARK(mssf-error-quark, mssf_error)

typedef struct CheckData {
        gchar *name;
        gchar *token;
} CheckData;

static void check_data_free(CheckData *data) {
        g_free(data->name);
        g_free(data->token);
        g_free(data);
}

static MssfError error_from_kind(MssfErrorKind kind) {
        switch (kind) {
        case MSSF_KIND_INVALID_ARGUMENT: return MSSF_ERROR_INVALID_ARGUMENT;
        case MSSF_KIND_NO_SUCH_CONNECTION: return MSSF_ERROR_NO_SUCH_CONNECTION;
        case MSSF_KIND_NOT_ALLOWED: return MSSF_ERROR_NOT_ALLOWED;
        case MSSF_KIND_SMACK_DISABLED: return MSSF_ERROR_SMACK_DISABLED;
        case MSSF_KIND_NO_LABEL: return MSSF_ERROR_NO_LABEL;
        case MSSF_KIND_POLICY_OUTDATED: return MSSF_ERROR_POLICY_OUTDATED;
        case MSSF_KIND_NOT_SUPPORTED: return MSSF_ERROR_NOT_SUPPORTED;
        case MSSF_KIND_FAILED: break;
        }
        return MSSF_ERROR_FAILED;
}

/* error (taken) as the caller sees it: the bus's errors in MSSF_ERROR, with the question. */
static GError *translate_error(GError *error, const gchar *name, const gchar *token) {
        g_autofree gchar *remote = NULL;
        GError *translated;
        MssfErrorKind kind;

        if (!g_dbus_error_is_remote_error(error)) {
                g_prefix_error(&error, "Cannot tell whether %s holds %s: ", name, token);
                return error;
        }
        remote = g_dbus_error_get_remote_error(error);
        g_dbus_error_strip_remote_error(error);
        kind = mssf_error_kind_from_name(remote);
        if (kind == MSSF_KIND_NOT_SUPPORTED)
                translated = g_error_new(MSSF_ERROR, MSSF_ERROR_NOT_SUPPORTED,
                                         "Cannot tell whether %s holds %s: " MSSF_NOT_SUPPORTED_TEXT
                                         " (%s: %s)", name, token, remote, error->message);
        else
                translated = g_error_new(MSSF_ERROR, error_from_kind(kind),
                                         "Cannot tell whether %s holds %s: %s (%s)", name, token,
                                         error->message, remote);
        g_error_free(error);
        return translated;
}

/* FALSE with error set when (name, token) cannot be a question. */
static gboolean check_arguments(const gchar *name, const gchar *token, GError **error) {
        const char *problem = mssf_check_name(name);

        if (problem) {
                g_set_error(error, MSSF_ERROR, MSSF_ERROR_INVALID_ARGUMENT,
                            "Cannot ask whether \"%s\" holds a token: %s", name ? name : "(null)", problem);
                return FALSE;
        }
        problem = mssf_check_token_name(token);
        if (problem) {
                g_set_error(error, MSSF_ERROR, MSSF_ERROR_INVALID_ARGUMENT,
                            "Cannot ask whether %s holds \"%s\": %s", name, token ? token : "(null)", problem);
                return FALSE;
        }
        return TRUE;
}

static void check_token_done(GObject *source, GAsyncResult *result, gpointer user_data) {
        g_autoptr(GTask) task = user_data;
        const CheckData *data = g_task_get_task_data(task);
        g_autoptr(GVariant) reply = NULL;
        GError *error = NULL;
        gboolean held = FALSE;

        reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
        if (!reply) {
                g_task_return_error(task, translate_error(error, data->name, data->token));
                return;
        }
        g_variant_get(reply, "(b)", &held);
        g_task_return_boolean(task, held);
}

/* The asynchronous question, for a task whose source object the caller chose. */
static void check_token_start(GTask *task, GDBusConnection *connection, const gchar *name,
                              const gchar *token, GCancellable *cancellable) {
        GError *error = NULL;
        CheckData *data;

        if (!check_arguments(name, token, &error)) {
                g_task_return_error(task, error);
                g_object_unref(task);
                return;
        }
        data = g_new0(CheckData, 1);
        data->name = g_strdup(name);
        data->token = g_strdup(token);
        g_task_set_task_data(task, data, (GDestroyNotify) check_data_free);
        g_dbus_connection_call(connection, MSSF_BUS_DRIVER_NAME, MSSF_BUS_DRIVER_PATH, MSSF_BUS_INTERFACE,
                               "CheckToken", g_variant_new("(ss)", name, token), G_VARIANT_TYPE("(b)"),
                               G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, cancellable, check_token_done, task);
}

void mssf_check_token(GDBusConnection *connection, const gchar *name, const gchar *token,
                      GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data) {
        GTask *task;

        g_return_if_fail(G_IS_DBUS_CONNECTION(connection));
        g_return_if_fail(cancellable == NULL || G_IS_CANCELLABLE(cancellable));
        task = g_task_new(connection, cancellable, callback, user_data);
        g_task_set_source_tag(task, mssf_check_token);
        check_token_start(task, connection, name, token, cancellable);
}

gboolean mssf_check_token_finish(GAsyncResult *result, GError **error) {
        g_return_val_if_fail(G_IS_TASK(result), FALSE);
        g_return_val_if_fail(g_task_get_source_tag(G_TASK(result)) == mssf_check_token, FALSE);
        return g_task_propagate_boolean(G_TASK(result), error);
}

gboolean mssf_check_token_sync(GDBusConnection *connection, const gchar *name, const gchar *token,
                               GCancellable *cancellable, GError **error) {
        g_autoptr(GVariant) reply = NULL;
        GError *call_error = NULL;
        gboolean held = FALSE;

        g_return_val_if_fail(G_IS_DBUS_CONNECTION(connection), FALSE);
        g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
        if (!check_arguments(name, token, error))
                return FALSE;
        reply = g_dbus_connection_call_sync(connection, MSSF_BUS_DRIVER_NAME, MSSF_BUS_DRIVER_PATH,
                                            MSSF_BUS_INTERFACE, "CheckToken", g_variant_new("(ss)", name, token),
                                            G_VARIANT_TYPE("(b)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, -1,
                                            cancellable, &call_error);
        if (!reply) {
                g_propagate_error(error, translate_error(call_error, name, token));
                return FALSE;
        }
        g_variant_get(reply, "(b)", &held);
        return held;
}

/* The bus connection and sender of a call; FALSE (error set) for a peer-to-peer call. */
static gboolean invocation_caller(GDBusMethodInvocation *invocation, const gchar **ret_sender,
                                  GError **error) {
        const gchar *sender = g_dbus_method_invocation_get_sender(invocation);

        if (!sender) {
                g_set_error_literal(error, MSSF_ERROR, MSSF_ERROR_INVALID_ARGUMENT,
                                    "Cannot ask whether the caller holds a token: the call came over a "
                                    "peer-to-peer connection, not through a message bus");
                return FALSE;
        }
        *ret_sender = sender;
        return TRUE;
}

void mssf_invocation_check_token(GDBusMethodInvocation *invocation, const gchar *token,
                                 GCancellable *cancellable, GAsyncReadyCallback callback,
                                 gpointer user_data) {
        GError *error = NULL;
        const gchar *sender = NULL;
        GTask *task;

        g_return_if_fail(G_IS_DBUS_METHOD_INVOCATION(invocation));
        g_return_if_fail(cancellable == NULL || G_IS_CANCELLABLE(cancellable));
        task = g_task_new(invocation, cancellable, callback, user_data);
        g_task_set_source_tag(task, mssf_invocation_check_token);
        if (!invocation_caller(invocation, &sender, &error)) {
                g_task_return_error(task, error);
                g_object_unref(task);
                return;
        }
        check_token_start(task, g_dbus_method_invocation_get_connection(invocation), sender, token,
                          cancellable);
}

gboolean mssf_invocation_check_token_finish(GAsyncResult *result, GError **error) {
        g_return_val_if_fail(G_IS_TASK(result), FALSE);
        g_return_val_if_fail(g_task_get_source_tag(G_TASK(result)) == mssf_invocation_check_token, FALSE);
        return g_task_propagate_boolean(G_TASK(result), error);
}

gboolean mssf_invocation_check_token_sync(GDBusMethodInvocation *invocation, const gchar *token,
                                          GCancellable *cancellable, GError **error) {
        const gchar *sender = NULL;

        g_return_val_if_fail(G_IS_DBUS_METHOD_INVOCATION(invocation), FALSE);
        g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
        if (!invocation_caller(invocation, &sender, error))
                return FALSE;
        return mssf_check_token_sync(g_dbus_method_invocation_get_connection(invocation), sender, token,
                                     cancellable, error);
}
