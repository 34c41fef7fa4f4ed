/*
 * dispatch: routing, as the rooms above the bus see it. The driver and
 * activation hand their messages to the bus through this header only;
 * routing hands messages up to them only through the hooks daemon/ gave
 * the bus (bus-hooks.h). dispatch.c and dispatch-observe.c define it.
 */
#pragma once

#include <stdbool.h>

#include "macro.h"

typedef struct Bus Bus;
typedef struct Message Message;
typedef struct Peer Peer;

/* A message a registered or new peer sent (takes m): judged, then queued, answered or dropped. */
int bus_dispatch(Peer *sender, Message *m);
/*
 * A message that waited for its destination's activation, now that the
 * name has an owner (takes m): judged and delivered as if just sent, but
 * not shown to monitors again (they saw it when it arrived), except under
 * MSSF mediation, where they see it now, once allowed.
 */
int bus_dispatch_activated(Peer *sender, Message *m);
/*
 * Queue a message the driver made for peer: monitors see it first, then
 * peer's policy judges it (a refused one is dropped silently).
 */
int bus_send_from_driver(Bus *bus, Peer *peer, Message *m);
/* The same for a message monitors saw already (held until peer joined). */
int bus_deliver_from_driver(Bus *bus, Peer *peer, Message *m);
/* Broadcast a driver signal to matching peers. */
int bus_broadcast_from_driver(Bus *bus, Message *m);
/* A message the driver handled without error, to eavesdroppers (dbus-daemon shows them those). */
void bus_eavesdrop_driver_message(Bus *bus, Peer *sender, Message *m);
/* Copies m to every monitor whose rules match and whose label could have received it. */
void bus_monitors_capture(Bus *bus, Message *m, Peer *sender);
/*
 * Whether observers see what the policy refuses, as dbus-daemon's
 * monitors do: only without MSSF mediation (no Smack, no compiled
 * policy). Otherwise a message is captured only once it was allowed for
 * its recipient, and no observer gets the bus's AccessDenied answers
 * (fail closed: their text names the caller's label, the destination and
 * the member). dispatch-observe.c.
 */
bool bus_observes_denials(Bus *bus);
/* Whether MSSF mediation is in force: Smack, or a compiled policy (dispatch-observe.c). */
bool bus_mediates(Bus *bus);
/*
 * systemd's org.freedesktop.systemd1.Activator.ActivationFailure signal:
 * a unit the bus asked for did not start. Routing shows it to monitors
 * after the driver handled it (dispatch.c says why); the driver hands it
 * to activation.
 */
bool bus_is_activation_failure(Message *m);
/*
 * The driver's error answering call (to its sender), with one string
 * argument; NO_REPLY_EXPECTED as every message of dbus-daemon's driver.
 */
int bus_error_new(Message *call, const char *error_name, const char *text, Message **ret);
/*
 * A method call without destination (m, before or after Hello): dbus-daemon
 * leaves it to libdbus, which answers it as a call to the bus as a plain
 * object that implements nothing: UnknownMethod in libdbus's words, with
 * no sender and no destination, even to NO_REPLY_EXPECTED; no monitor
 * sees either.
 */
int bus_reply_unknown_method(Bus *bus, Peer *peer, Message *m);
/* An error from the driver answering call, whatever its type and flags (as dbus-daemon). */
int bus_reply_error(Bus *bus, Peer *peer, Message *call, int error, const char *format, ...)
        _printf_(5, 6);
