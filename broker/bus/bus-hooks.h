/*
 * bus-hooks: what the bus asks of the rooms above it.
 *
 * The direction: the bus (routing, peers) knows neither the driver nor
 * activation. They call down into it, and hand it messages through
 * dispatch.h only; the bus calls up only through these pointers, which
 * daemon/ fills with the driver's and activation's functions when it
 * builds the bus (daemon.c). Every hook is set; each gets the bus, whose
 * hooks_userdata is the daemon's.
 */
#pragma once

#include <stdbool.h>

typedef struct Bus Bus;
typedef struct Message Message;
typedef struct NameChange NameChange;
typedef struct Peer Peer;

typedef struct BusHooks {
        /* A peer's first message (m stays the caller's): Hello, or CONNECTION_E_CLOSED to drop it. */
        int (*hello)(Bus *bus, Peer *peer, Message *m);
        /*
         * A message for org.freedesktop.DBus from a registered peer, once
         * the policy allowed it (m stays the caller's): 0 when handled, a
         * positive code when answered with an error, or a negative errno.
         */
        int (*driver_message)(Bus *bus, Peer *peer, Message *m);
        /* A name changed owner because a peer left: NameLost, NameOwnerChanged, NameAcquired. */
        int (*name_changed)(Bus *bus, const NameChange *change);
        /*
         * A message for a name nobody owns (m stays the caller's): judged,
         * then queued behind the name's start, or answered with an error.
         */
        int (*activate)(Bus *bus, Peer *sender, Message *m, const char *destination);
        /* Whether a .service file provides name, or its start is pending. */
        bool (*activatable)(Bus *bus, const char *name);
        /* A registered peer is disconnecting: its messages waiting for a start are dropped. */
        void (*peer_gone)(Bus *bus, Peer *peer);
        /*
         * ReloadConfig, which the driver answers: the daemon reloads the
         * configuration (logged; 0 also when there is none to reload).
         */
        int (*reload)(Bus *bus);
} BusHooks;
