/* The bus driver: org.freedesktop.DBus at /org/freedesktop/DBus. */
#pragma once

typedef struct Bus Bus;
typedef struct Message Message;
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
