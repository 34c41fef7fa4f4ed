/*
 * The bus driver: org.freedesktop.DBus at /org/freedesktop/DBus, and
 * org.mssf.Broker1 (broker/driver/, README.md).
 *
 * Direction: the driver calls activation/, the bus (bus.h; its answers
 * and signals go out through dispatch.h) and the rooms below. daemon/
 * wires these entry points into the bus's hooks, so nothing below the
 * driver names it.
 */
#pragma once

typedef struct Bus Bus;
typedef struct Message Message;
typedef struct NameChange NameChange;
typedef struct Peer Peer;

/* The first message of a peer: Hello, or the peer is dropped (CONNECTION_E_CLOSED). */
int driver_hello(Bus *bus, Peer *peer, Message *m);

enum {
        DRIVER_E_FAILED = 1,    /* the call was answered with an error */
};

/*
 * A message addressed to org.freedesktop.DBus from a registered peer:
 * 0 when handled (answered, or nothing to answer), DRIVER_E_FAILED when
 * answered with an error, or a negative errno.
 */
int driver_dispatch(Bus *bus, Peer *peer, Message *m);
/*
 * NameLost, NameOwnerChanged and NameAcquired for a change, in
 * dbus-daemon's order; a well-known name's new owner then gets the calls
 * that waited for its activation.
 */
int driver_emit_name_change(Bus *bus, const NameChange *change);
/* ActivatableServicesChanged, to every peer that matches it (after every reload, as dbus-daemon). */
int driver_emit_activatable_services_changed(Bus *bus);
