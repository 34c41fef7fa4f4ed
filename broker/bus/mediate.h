/* The one decision every routed message passes: may it be delivered? */
#pragma once

#include <stddef.h>

#include "mediation-needs.h"

typedef struct Message Message;
typedef struct Peer Peer;

enum {
        MEDIATE_E_DENIED = 1,   /* see MediateVerdict */
        MEDIATE_E_UNRECEIVABLE, /* denied too: its recipient could not receive a descriptor it carries */
};

/* How the message reaches this receiver (busconfig rules depend on it). */
typedef enum MediateRoute {
        MEDIATE_ROUTE_UNICAST,          /* addressed to the receiver (or the driver) */
        MEDIATE_ROUTE_REPLY,            /* an expected reply or error, to its caller */
        MEDIATE_ROUTE_BROADCAST,        /* a match rule selected the receiver */
        MEDIATE_ROUTE_EAVESDROP,        /* addressed to someone else; the receiver eavesdrops */
        MEDIATE_ROUTE_MONITOR,          /* a copy for a monitor (BecomeMonitor) */
} MediateRoute;

typedef struct MediateVerdict {
        int error;              /* a BusError for the sender when denied */
        char text[1280];        /* the error text naming the rule that denied */
        MediationNeeds needs;   /* an allowed method call: what it needed of its caller */
} MediateVerdict;

/*
 * sender is the peer that sent m (NULL for the bus driver), receiver the
 * peer it is about to be queued for (NULL for the bus driver). Returns 0
 * to allow (for a method call, ret_verdict->needs then says what it
 * needed of its caller, for its reply slot), or MEDIATE_E_DENIED with
 * *ret_verdict filled. The observer
 * routes (EAVESDROP, MONITOR) ask whether receiver could have received m
 * as its recipient; a copy withheld from an observer is not logged (it
 * denies nothing the sender did, and would crowd real denials out of the
 * rate-limited log). With Smack, a message on the UNICAST or REPLY route
 * that carries a descriptor receiver's kernel would certainly refuse
 * (its label denied by the rules, receiver without CAP_MAC_OVERRIDE) is
 * MEDIATE_E_UNRECEIVABLE, filled and logged like MEDIATE_E_DENIED: the
 * router must also tell the caller when m is a reply it was waiting for.
 */
int mediate_message(const Peer *sender, const Peer *receiver, Message *m, MediateRoute route,
                    MediateVerdict *ret_verdict);

/*
 * After mediate_message() allowed an observer's copy (route EAVESDROP or
 * MONITOR) of m: for a reply or error from a peer, does observer hold
 * what its call needed (reply_needs, the record its reply slot kept;
 * NULL or not known: no copy)? An observer receives no reply it could not
 * have received as the caller. Anything else passes (0). Not logged,
 * like every observer copy.
 */
int mediate_observer_reply(const Peer *sender, const Peer *observer, Message *m,
                           const MediationNeeds *reply_needs, MediateVerdict *ret_verdict);

/*
 * The same seam for the two decisions that are not about a message: may
 * peer own (or queue for) name (RequestName), and may this connection
 * join the bus at all (Hello; busconfig user=/group= rules). 0 or
 * MEDIATE_E_DENIED with *ret_verdict filled. Pure, like mediate_message().
 */
int mediate_own(const Peer *peer, const char *name, MediateVerdict *ret_verdict);
int mediate_connect(const Peer *peer, MediateVerdict *ret_verdict);
/* BecomeMonitor or an eavesdrop=true match rule: may peer see others' messages? */
int mediate_monitor(const Peer *peer, MediateVerdict *ret_verdict);
/*
 * Bus activation: may m from sender start the service for name, which
 * nobody owns yet? Judged before anything starts (busconfig send rules by
 * destination, the tokens name requires); m is judged in full again when
 * it is delivered. 0 or MEDIATE_E_DENIED with *ret_verdict filled.
 */
int mediate_activation(const Peer *sender, const char *name, Message *m, MediateVerdict *ret_verdict);
