/* libmssf: does a D-Bus connection hold an MSSF resource token? What both bindings share. */
#pragma once

/*
 * libmssf asks the system bus (mssf-broker) the question with the method
 * org.mssf.Broker1.CheckToken; the bus resolves the token name as the
 * asking service's manifest would, asks Smack, and answers. A service
 * thus needs no access to smackfs, and a grant revoked a moment ago is
 * never seen as held. Use the binding of your main loop:
 * <mssf/mssf-gio.h> (GDBus, GLib main loop) or <mssf/mssf-sd-bus.h>
 * (sd-bus, sd-event). libmssf(3) says more.
 *
 * The answer is "held" only when the bus says so. Everything else is
 * "not held": an explicit "no" from the bus, or an error (reported with
 * the bus's D-Bus error name, listed below) that says why it could not
 * tell. Log the error; never treat it as "held".
 *
 * Only a message bus can say who sent a message, so libmssf asks only on
 * a bus connection and believes only an answer from org.freedesktop.DBus.
 * On a peer-to-peer connection the peer writes the sender of its messages
 * itself and would answer the question itself: there every question is
 * NotABus, not held.
 */

#define MSSF_BUS_DRIVER_NAME "org.freedesktop.DBus"
#define MSSF_BUS_DRIVER_PATH "/org/freedesktop/DBus"
#define MSSF_BUS_INTERFACE "org.mssf.Broker1"

/* The bus's errors of its own (mssf-broker(8)). */
#define MSSF_ERROR_NAME_SMACK_DISABLED "org.mssf.Broker1.Error.SmackDisabled"
#define MSSF_ERROR_NAME_NO_LABEL "org.mssf.Broker1.Error.NoLabel"
#define MSSF_ERROR_NAME_POLICY_OUTDATED "org.mssf.Broker1.Error.PolicyOutdated"
/* libmssf's, when the bus does not answer CheckToken at all (it is not mssf-broker). */
#define MSSF_ERROR_NAME_NOT_SUPPORTED "org.freedesktop.DBus.Error.NotSupported"
/*
 * libmssf's, when no message bus answered: the connection is peer-to-peer
 * (its peer writes the sender of its messages itself, and would answer
 * CheckToken itself), or the answer did not come from org.freedesktop.DBus.
 */
#define MSSF_ERROR_NAME_NOT_A_BUS "org.mssf.Libmssf.Error.NotABus"
