/* libmssf for GDBus: does the caller of a method hold an MSSF token? (mssf_check_token(3)) */
#pragma once

#include <gio/gio.h>

#include <mssf/mssf.h>

G_BEGIN_DECLS

/**
 * MSSF_ERROR:
 *
 * The error domain of the answers the bus could not give. A transport
 * failure keeps its own domain: G_IO_ERROR_CANCELLED when the
 * cancellable was cancelled, G_IO_ERROR_CLOSED, G_IO_ERROR_TIMED_OUT.
 */
#define MSSF_ERROR (mssf_error_quark())
GQuark mssf_error_quark(void);

/**
 * MssfError:
 * @MSSF_ERROR_FAILED: the bus could not answer (the kernel could not, or
 *   an error libmssf does not know; the message has its D-Bus name)
 * @MSSF_ERROR_INVALID_ARGUMENT: not a unique connection name, or not a
 *   token name (a POSIX credential such as UID::root is not one either)
 * @MSSF_ERROR_NO_SUCH_CONNECTION: the connection has left the bus
 * @MSSF_ERROR_NOT_ALLOWED: the bus does not let the asker ask that question
 *   (about another connection only for a token its package provides or
 *   guards, and only about its callers and labels that may send to its
 *   own), or busconfig does not let it call CheckToken at all
 * @MSSF_ERROR_SMACK_DISABLED: the system runs without Smack: nobody holds
 *   any token
 * @MSSF_ERROR_NO_LABEL: the connection has no Smack label
 * @MSSF_ERROR_POLICY_OUTDATED: the compiled policy is too old to resolve a
 *   bare token name (run mssf-policy compile, or write package::Token)
 * @MSSF_ERROR_NOT_SUPPORTED: the bus does not answer CheckToken: it is not
 *   mssf-broker
 * @MSSF_ERROR_NOT_A_BUS: no message bus answered: the connection is
 *   peer-to-peer (there the peer writes the sender of its calls itself,
 *   and would answer the question itself), or the answer did not come
 *   from the bus (org.freedesktop.DBus)
 *
 * Every one of them means the token must be taken as not held.
 */
typedef enum {
        MSSF_ERROR_FAILED,
        MSSF_ERROR_INVALID_ARGUMENT,
        MSSF_ERROR_NO_SUCH_CONNECTION,
        MSSF_ERROR_NOT_ALLOWED,
        MSSF_ERROR_SMACK_DISABLED,
        MSSF_ERROR_NO_LABEL,
        MSSF_ERROR_POLICY_OUTDATED,
        MSSF_ERROR_NOT_SUPPORTED,
        MSSF_ERROR_NOT_A_BUS,
} MssfError;

/**
 * mssf_check_token:
 * @connection: a message bus connection (the system bus, as a rule); on
 *   a peer-to-peer connection nothing is asked: %MSSF_ERROR_NOT_A_BUS
 * @name: the unique name of the connection asked about (":1.42")
 * @token: the token, as the asking service's manifest names it: a bare
 *   "Token" is the service's own if its package provides one of that
 *   name, else the global one; "package::Token" as written
 * @cancellable: (nullable): a #GCancellable
 * @callback: called in the thread-default main context of the caller,
 *   always from the main loop (never before this returns)
 * @user_data: for @callback
 *
 * Asks the bus whether @name holds @token. Call
 * mssf_check_token_finish() from @callback for the answer.
 */
void mssf_check_token(GDBusConnection *connection, const gchar *name, const gchar *token,
                      GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);

/**
 * mssf_check_token_finish:
 * Returns: %TRUE if the connection holds the token; %FALSE if it does not
 *   (@error untouched) or if the bus could not tell (@error set: log it).
 */
gboolean mssf_check_token_finish(GAsyncResult *result, GError **error);

/**
 * mssf_check_token_sync:
 * The same, blocking the calling thread (not its main loop's other
 * sources: GDBus keeps reading in its own thread) for one round trip to
 * the bus. In a service, prefer mssf_check_token().
 */
gboolean mssf_check_token_sync(GDBusConnection *connection, const gchar *name, const gchar *token,
                               GCancellable *cancellable, GError **error);

/**
 * mssf_invocation_check_token:
 * @invocation: a method call a GDBus service is handling (keep a
 *   reference until @callback ran, then reply to it)
 *
 * Whether the caller of @invocation (its sender) holds @token, asked on
 * the connection the call came on. A call that came over a peer-to-peer
 * connection has no bus to ask, and its sender is whatever the peer
 * wrote: %MSSF_ERROR_NOT_A_BUS, nothing asked. While the
 * call waits for the service's reply the bus lets the service ask about
 * its caller (a call sent with NO_REPLY_EXPECTED waits for nothing: then
 * only a Smack rule from the caller's label to the service's does).
 */
void mssf_invocation_check_token(GDBusMethodInvocation *invocation, const gchar *token,
                                 GCancellable *cancellable, GAsyncReadyCallback callback,
                                 gpointer user_data);
gboolean mssf_invocation_check_token_finish(GAsyncResult *result, GError **error);
gboolean mssf_invocation_check_token_sync(GDBusMethodInvocation *invocation, const gchar *token,
                                          GCancellable *cancellable, GError **error);

G_END_DECLS
