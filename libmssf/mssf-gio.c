/*
 * libmssf for GDBus: CheckToken through GDBusConnection, in GIO's three
 * forms (async + finish, sync), for a connection by unique name or for
 * the caller of a GDBusMethodInvocation.
 *
 * What it trusts: the message bus, and nothing else. A bus writes the
 * sender of every message it delivers and answers as org.freedesktop.DBus,
 * a name no client can own; so the sender of a call is the bus's word,
 * and so is an answer from org.freedesktop.DBus. On a peer-to-peer
 * connection the peer writes the sender of its calls itself (":1.42", or
 * anything) and receives whatever is sent "to org.freedesktop.DBus": it
 * would answer CheckToken itself. So libmssf asks only on a bus
 * connection (GDBus knows it as one with a unique name: it said Hello),
 * and believes only a reply whose sender is org.freedesktop.DBus; it
 * sends the question as a GDBusMessage to see that reply's header, which
 * g_dbus_connection_call() hides. A bus the service chose to connect to
 * is trusted as its bus, as for everything else the service does.
 *
 * Fail closed: TRUE only from the bus's "(b)" reply that says true.
 * Every error becomes FALSE with a GError: no bus, or a reply not from
 * it, MSSF_ERROR_NOT_A_BUS; the bus's errors in MSSF_ERROR (sorted by
 * mssf_error_kind_from_name(), the bus's own text kept); transport
 * errors (cancelled, closed, timed out) in their own domain; a reply that
 * is not one boolean G_IO_ERROR_INVALID_ARGUMENT, as GDBus's own reply
 * type check had it; all prefixed with the question. Arguments that
 * cannot be a question are refused before anything is sent; the
 * asynchronous form then still answers from the main loop, so a callback
 * never runs before its call returns.
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

/* FALSE (error set) unless connection is a message bus connection: only a bus vouches for a sender. */
static gboolean check_bus(GDBusConnection *connection, const gchar *name, const gchar *token, GError **error) {
        if (g_dbus_connection_get_unique_name(connection))
                return TRUE;
        g_set_error(error, MSSF_ERROR, MSSF_ERROR_NOT_A_BUS,
                    "Cannot ask whether %s holds %s: the connection is peer-to-peer, not to a message bus, "
                    "so nobody can vouch for the sender of a call, nor answer", name ? name : "(null)",
                    token ? token : "(null)");
        return FALSE;
}

/* CheckToken(name, token) to the bus driver, never starting a service. */
static GDBusMessage *question_new(const gchar *name, const gchar *token) {
        GDBusMessage *question = g_dbus_message_new_method_call(MSSF_BUS_DRIVER_NAME, MSSF_BUS_DRIVER_PATH,
                                                                MSSF_BUS_INTERFACE, "CheckToken");

        g_dbus_message_set_body(question, g_variant_new("(ss)", name, token));
        g_dbus_message_set_flags(question, G_DBUS_MESSAGE_FLAGS_NO_AUTO_START);
        return question;
}

/* The answer in the reply to question_new(): TRUE, FALSE, or FALSE with error set. */
static gboolean read_answer(GDBusMessage *reply, const gchar *name, const gchar *token, GError **error) {
        const gchar *sender = g_dbus_message_get_sender(reply);
        GError *reply_error = NULL;
        GVariant *body;
        gboolean held = FALSE;

        /* Before anything in it is read: an error from someone else is no more the bus's than a yes. */
        if (g_strcmp0(sender, MSSF_BUS_DRIVER_NAME) != 0) {
                g_set_error(error, MSSF_ERROR, MSSF_ERROR_NOT_A_BUS,
                            "Cannot tell whether %s holds %s: the answer came from %s, not from the bus "
                            "(" MSSF_BUS_DRIVER_NAME ")", name, token,
                            sender ? sender : "a peer that named no sender");
                return FALSE;
        }
        if (g_dbus_message_to_gerror(reply, &reply_error)) {
                g_propagate_error(error, translate_error(reply_error, name, token));
                return FALSE;
        }
        body = g_dbus_message_get_body(reply);
        if (!body || !g_variant_is_of_type(body, G_VARIANT_TYPE("(b)"))) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                            "Cannot tell whether %s holds %s: the bus's answer to CheckToken is not one boolean "
                            "(it has type %s)", name, token, body ? g_variant_get_type_string(body) : "()");
                return FALSE;
        }
        g_variant_get(body, "(b)", &held);
        return held;
}

static void check_token_done(GObject *source, GAsyncResult *result, gpointer user_data) {
        g_autoptr(GTask) task = user_data;
        const CheckData *data = g_task_get_task_data(task);
        g_autoptr(GDBusMessage) reply = NULL;
        GError *error = NULL;
        gboolean held;

        reply = g_dbus_connection_send_message_with_reply_finish(G_DBUS_CONNECTION(source), result, &error);
        if (!reply) {
                g_task_return_error(task, translate_error(error, data->name, data->token));
                return;
        }
        held = read_answer(reply, data->name, data->token, &error);
        if (error)
                g_task_return_error(task, error);
        else
                g_task_return_boolean(task, held);
}

/* The asynchronous question, for a task whose source object the caller chose. */
static void check_token_start(GTask *task, GDBusConnection *connection, const gchar *name,
                              const gchar *token, GCancellable *cancellable) {
        g_autoptr(GDBusMessage) question = NULL;
        GError *error = NULL;
        CheckData *data;

        if (!check_bus(connection, name, token, &error) || !check_arguments(name, token, &error)) {
                g_task_return_error(task, error);
                g_object_unref(task);
                return;
        }
        data = g_new0(CheckData, 1);
        data->name = g_strdup(name);
        data->token = g_strdup(token);
        g_task_set_task_data(task, data, (GDestroyNotify) check_data_free);
        question = question_new(name, token);
        g_dbus_connection_send_message_with_reply(connection, question, G_DBUS_SEND_MESSAGE_FLAGS_NONE, -1, NULL,
                                                  cancellable, check_token_done, task);
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
        g_autoptr(GDBusMessage) question = NULL, reply = NULL;
        GError *send_error = NULL;

        g_return_val_if_fail(G_IS_DBUS_CONNECTION(connection), FALSE);
        g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
        if (!check_bus(connection, name, token, error) || !check_arguments(name, token, error))
                return FALSE;
        question = question_new(name, token);
        reply = g_dbus_connection_send_message_with_reply_sync(connection, question,
                                                               G_DBUS_SEND_MESSAGE_FLAGS_NONE, -1, NULL,
                                                               cancellable, &send_error);
        if (!reply) {
                g_propagate_error(error, translate_error(send_error, name, token));
                return FALSE;
        }
        return read_answer(reply, name, token, error);
}

/*
 * The sender of a call; FALSE (error set) for a call that did not come
 * through a bus, whose sender, if it has one, its peer wrote.
 */
static gboolean invocation_caller(GDBusMethodInvocation *invocation, const gchar **ret_sender,
                                  GError **error) {
        GDBusConnection *connection = g_dbus_method_invocation_get_connection(invocation);
        const gchar *sender = g_dbus_method_invocation_get_sender(invocation);

        if (!g_dbus_connection_get_unique_name(connection)) {
                g_set_error(error, MSSF_ERROR, MSSF_ERROR_NOT_A_BUS,
                            "Cannot ask whether the caller%s%s holds a token: the call came over a peer-to-peer "
                            "connection, not through a message bus, so its sender is whatever the peer wrote",
                            sender ? " " : "", sender ? sender : "");
                return FALSE;
        }
        if (!sender) {
                g_set_error_literal(error, MSSF_ERROR, MSSF_ERROR_INVALID_ARGUMENT,
                                    "Cannot ask whether the caller holds a token: the call has no sender");
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
