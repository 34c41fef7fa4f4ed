/* libmssf for sd-bus: does the sender of a message hold an MSSF token? (mssf_sd_bus_check_token(3)) */
#pragma once

#include <systemd/sd-bus.h>

#include <mssf/mssf.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * As sd-bus does it: the return value is 1 (held), 0 (not held: the bus
 * said so) or a negative errno (the bus could not tell: not held either),
 * and then ret_error (when not NULL; initialise it with
 * SD_BUS_ERROR_NULL, free it with sd_bus_error_free()) carries the D-Bus
 * error name and text:
 *
 *   -EINVAL           org.freedesktop.DBus.Error.InvalidArgs: not a unique
 *                     name or not a token name (also for a message without
 *                     a sender)
 *   -ENXIO            org.freedesktop.DBus.Error.NameHasNoOwner: gone
 *   -EACCES           org.freedesktop.DBus.Error.AccessDenied: not the
 *                     asker's to ask about, or busconfig refuses CheckToken
 *   -EOPNOTSUPP       org.mssf.Broker1.Error.SmackDisabled: no Smack
 *   -ENODATA          org.mssf.Broker1.Error.NoLabel: no Smack label
 *   -ESTALE           org.mssf.Broker1.Error.PolicyOutdated: policy.db too
 *                     old for a bare token name
 *   -EPROTONOSUPPORT  org.freedesktop.DBus.Error.NotSupported: the bus does
 *                     not answer CheckToken (not mssf-broker)
 *   -EMEDIUMTYPE      org.mssf.Libmssf.Error.NotABus: no bus answered: the
 *                     connection is peer-to-peer (not sd_bus_is_bus_client():
 *                     its peer writes the senders, and would answer), or
 *                     the answer's sender is not org.freedesktop.DBus
 *   -EBADMSG          org.freedesktop.DBus.Error.InconsistentMessage: the
 *                     answer is not exactly one boolean
 *   other             the bus's or sd-bus's own error (-ETIMEDOUT,
 *                     -ECONNRESET, org.freedesktop.DBus.Error.Failed, ...)
 *
 * token is named as the asking service's manifest names it: a bare
 * "Token" is the service's own if its package provides one of that name,
 * else the global one; "package::Token" as written.
 */

/* Whether the connection with unique name name (":1.42") holds token; one round trip, blocking. */
int mssf_sd_bus_check_token(sd_bus *bus, const char *name, const char *token, sd_bus_error *ret_error);

/*
 * Whether the sender of m (a method call a service is handling, say)
 * holds token, asked on the bus m came from. While the call waits for
 * the service's reply the bus lets the service ask about its caller.
 */
int mssf_sd_bus_message_check_token(sd_bus_message *m, const char *token, sd_bus_error *ret_error);

/*
 * The answer of an asynchronous question: held is 1, 0 or a negative
 * errno, error (NULL unless held < 0) says why. The return value is the
 * handler's, as for any sd_bus_message_handler_t.
 */
typedef int (*mssf_sd_bus_check_token_handler_t)(int held, const sd_bus_error *error, void *userdata);

/*
 * The same without blocking: callback runs from the bus's event
 * processing (sd_bus_process(), sd-event), never from this call.
 * ret_slot: as for sd_bus_call_async(): NULL makes the question live as
 * long as the bus (a floating slot); otherwise unreferencing the slot
 * cancels it, and the callback is not called. Returns 0 once the question
 * is sent, or a negative errno (nothing sent, callback never called);
 * arguments that cannot be a question are -EINVAL at once, a connection
 * that is not to a bus -EMEDIUMTYPE.
 */
int mssf_sd_bus_check_token_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *name, const char *token,
                                  mssf_sd_bus_check_token_handler_t callback, void *userdata);
int mssf_sd_bus_message_check_token_async(sd_bus_message *m, sd_bus_slot **ret_slot, const char *token,
                                          mssf_sd_bus_check_token_handler_t callback, void *userdata);

#ifdef __cplusplus
}
#endif
