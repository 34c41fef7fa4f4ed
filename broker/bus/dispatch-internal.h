/* dispatch-internal: what routing (dispatch.c) and observers (dispatch-observe.c) share. */
#pragma once

#include <stdbool.h>

#include "propfilter.h"

typedef struct Bus Bus;
typedef struct MatchMessage MatchMessage;
typedef struct Message Message;
typedef struct MessageArg MessageArg;
typedef struct Peer Peer;

/*
 * Queue for one peer, charged to sender (nullable: the driver), and mark
 * it for flushing; positive CONNECTION_E_* on refusal.
 */
int bus_queue(Peer *peer, Message *m, Peer *sender);
int bus_queue_owed(Peer *peer, Message *m, Peer *sender);
/* Fills a MatchMessage for m from sender (nullable: the driver). */
void bus_match_message_init(MatchMessage *mm, Message *m, Peer *sender, Peer *recipient,
                            MessageArg *args);

/* Whether (and how) one message is filtered per recipient: decided once per message. */
typedef struct DispatchFilter {
        PropfilterKind kind;            /* NONE: every recipient gets the message as is */
        const PropfilterCall *call;     /* (nullable) a reply's call, from its slot */
        int declared;                   /* the sender owns a declared name: -1 not asked yet, 0, 1 */
} DispatchFilter;

void dispatch_filter_init(DispatchFilter *filter, Peer *sender, Message *m, const PropfilterCall *call);
/* Whether m must be filtered for recipient (the sender's names are asked once per message). */
bool dispatch_filter_applies(DispatchFilter *filter, Bus *bus, Peer *sender, Peer *recipient);
/* propfilter_filter() for recipient's label: 0 and *ret to queue, else nothing to deliver. */
int dispatch_filter_message(Bus *bus, const DispatchFilter *filter, Peer *sender, Peer *recipient,
                            Message *m, Message **ret);

/*
 * m to every monitor whose rules match and whose label may see it, before
 * any policy judged m for its recipient (nullable: the driver, a
 * broadcast, a name nobody owns) when bus_observes_denials(), else
 * once it was allowed. filter: as decided for the recipient
 * (NULL: classify m here). Nothing at all without monitors.
 */
void dispatch_capture(Bus *bus, Message *m, Peer *sender, Peer *recipient, DispatchFilter *filter);
/*
 * The error the bus would have answered to in_reply_to's sender (to,
 * nullable: the driver) had it been a unicast, shown to monitors only, as
 * dbus-daemon shows why a broadcast copy, an eavesdropper's copy or a
 * message of the driver's was not delivered.
 */
void dispatch_capture_error(Bus *bus, Message *in_reply_to, Peer *to, int error, const char *text);

/*
 * m to every peer with a matching rule (eavesdroppers only when m has a
 * destination; recipient: its addressed peer). filter: as decided for the
 * recipient (NULL: classify m here).
 */
int dispatch_broadcast(Bus *bus, Peer *sender, Peer *recipient, Message *m, DispatchFilter *filter);
