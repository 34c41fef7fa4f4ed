/*
 * Copies of a message for connections other than its addressed
 * recipient: monitors (BecomeMonitor), match rules (broadcasts and
 * eavesdroppers), and the per-recipient property filter they all share.
 *
 * Threat model (DESIGN.md): an eavesdropper never receives a message its
 * label could not have received as its recipient, and a label sees
 * nothing it could not have received as the recipient of its own calls;
 * otherwise observing would be a way around every rule the bus enforces
 * on delivery. Observers are connections that asked to see other
 * people's traffic; whoever can reach a monitor's label may also try to
 * use it as a channel or knock it off the bus.
 *
 * When monitors see a message. Without MSSF mediation (no Smack, no
 * compiled policy: bus_observes_denials()), as dbus-daemon
 * (bus_transaction_capture): a monitor sees a message when the bus takes
 * it in, before any policy judged it for its recipient, so a denied
 * message and the error the bus answers are both observed; so is, for
 * monitors only, the error the bus would have given for a broadcast copy
 * or an eavesdropper's copy it withheld, and for a message of its own
 * that a recipient's policy refused (bus_transaction_capture_error_reply).
 * Under MSSF mediation (Smack, or a compiled policy) the threat model's
 * rule wins, failing closed: a message is captured only once it was allowed
 * for its recipient, so a denied message is copied to no observer, and
 * neither is any AccessDenied the bus sends (its text names the caller's
 * label, the destination and the member).
 *
 * What each monitor's copy must pass: it is judged as if the monitor were
 * the recipient (mediate_message() on MEDIATE_ROUTE_MONITOR): the
 * sender's label needs Smack "w" to the monitor's (the driver's messages
 * exempt; a reply or error too, since it is not the monitor's expected
 * reply), a signal's tokens must be held by the monitor, a descriptor
 * it carries must be one the monitor's label could receive
 * (smack_fd_receivable(): the kernel would refuse it and the monitor's
 * library hang up), a reply's copy needs every token its call needed of
 * its caller under MSSF mediation (mediate_observer_reply(), from the
 * reply slot's record, so a Properties.Get reply needs the property's
 * token; a monitor joining or the callee's names changing mid-call change
 * nothing, and a reply without a record, unrequested, a second one or one
 * to a NO_REPLY_EXPECTED call, gives observers nothing), and property
 * carriers are filtered for its label (a copy that filters to nothing is
 * not sent). Eavesdroppers pass the same checks. Monitors skip busconfig,
 * as in dbus-daemon. Without Smack and without a compiled policy no
 * check has anything to say (there are no labels, tokens or records to
 * judge by), and a reply without a record is copied like any other
 * message: exactly dbus-daemon's behaviour. A monitor whose queue cannot take its
 * copy is disconnected (peer_doom()), as dbus-broker does.
 *
 * Match rules: every peer whose rule matches gets the message once,
 * judged for it (MEDIATE_ROUTE_BROADCAST, or _EAVESDROP for a message
 * addressed to someone else, which it gets only once that someone was
 * allowed it, as in dbus-daemon's bus_dispatch_matches()). A copy that
 * is refused or carries fds it did not negotiate is not delivered, and
 * nobody is told but monitors; a recipient whose queue cannot take a copy
 * it subscribed to is disconnected (dispatch_copy_refused()).
 *
 * Properties (DESIGN.md, mediation point 3; broker/propfilter): a
 * protected property never reaches a connection without its token. The
 * reply to a GetAll or GetManagedObjects call (its PropfilterCall kept in
 * the reply slot) from a connection that owns or is queued for a declared
 * name, and every PropertiesChanged, InterfacesAdded or InterfacesRemoved
 * signal from such a connection, is filtered for each recipient
 * (unicast, broadcast, eavesdropper, monitor: each for its own label)
 * after mediate_message() allowed it, and the filtered copy is queued
 * instead. Fail closed: a body that does not fit, or an error while
 * filtering, delivers nothing. What decides is classified once per
 * message (propfilter_classify, no allocation); whether the sender holds a
 * declared name is asked only for a property message, once.
 */
#include <stdio.h>
#include <string.h>

#include "bus-error.h"
#include "bus.h"
#include "dispatch-internal.h"
#include "dispatch.h"
#include "mediate.h"
#include "message.h"
#include "propfilter-policy.h"
#include "smack-label.h"
#include "smack-oracle.h"

void dispatch_filter_init(DispatchFilter *filter, Peer *sender, Message *m, const PropfilterCall *call) {
        *filter = (DispatchFilter) {
                .kind = sender ? propfilter_classify(m, call) : PROPFILTER_NONE,
                .call = call,
                .declared = -1,
        };
}

/* Names that cannot be known (out of memory) count as declared: filtering can only hide more. */
static bool dispatch_declares_any(const PolicyDb *db, Peer *peer) {
        const char *const *names;
        size_t n_names;

        if (security_peer_get_names(&peer->security, &names, &n_names) < 0)
                return true;
        for (size_t i = 0; i < n_names; i++)
                if (policy_db_declares_name(db, names[i]))
                        return true;
        return false;
}

/* A connection hearing itself learns nothing (as in mediation). */
bool dispatch_filter_applies(DispatchFilter *filter, Bus *bus, Peer *sender, Peer *recipient) {
        const PolicyDb *db;

        if (filter->kind == PROPFILTER_NONE || sender == recipient)
                return false;
        if (filter->declared < 0) {
                db = bus->security ? security_get_policy_db(bus->security) : NULL;
                filter->declared = db && dispatch_declares_any(db, sender);
        }
        return filter->declared;
}

int dispatch_filter_message(Bus *bus, const DispatchFilter *filter, Peer *sender, Peer *recipient,
                            Message *m, Message **ret) {
        SmackOracle *oracle = security_get_oracle(bus->security);
        const SmackLabel *label = smack_oracle_has_smack(oracle) ? recipient->security.mssf.label : NULL;
        PropfilterPolicy policy = {
                .db = security_get_policy_db(bus->security),
                /* As mediation asks: no label (no Smack, or an invalid one) holds no token. */
                .label = label ? label->text : "",
                .has_token = smack_oracle_policy_has_token,
                .has_token_userdata = oracle,
        };
        int r = security_peer_get_names(&sender->security, &policy.names, &policy.n_names);

        if (r < 0)
                return r;
        return propfilter_filter(m, filter->call, propfilter_policy_visible, &policy, ret);
}

static bool dispatch_monitor_wants(Peer *monitor, const MatchMessage *mm) {
        if (monitor->n_monitor_rules == 0)
                return true;
        for (size_t i = 0; i < monitor->n_monitor_rules; i++)
                if (match_rule_matches(monitor->monitor_rules[i], mm))
                        return true;
        return false;
}

bool bus_mediates(Bus *bus) {
        return bus->security && (security_has_smack(bus->security) || security_get_policy_db(bus->security));
}

bool bus_observes_denials(Bus *bus) {
        return !bus_mediates(bus);
}

/* What a reply's call needed of its caller (its slot's record); NULL for anything else. */
static const MediationNeeds *dispatch_reply_needs(const DispatchFilter *filter) {
        return filter->call ? &filter->call->needs : NULL;
}

/*
 * A reply's copy for an observer: judged by its call's record under MSSF
 * mediation (no record, no copy); without it, copied as dbus-daemon
 * copies it, unrequested, duplicate and NO_REPLY_EXPECTED replies too.
 */
static int dispatch_observer_reply(Bus *bus, Peer *sender, Peer *observer, Message *m,
                                   const DispatchFilter *filter, MediateVerdict *verdict) {
        if (!bus_mediates(bus))
                return 0;
        return mediate_observer_reply(sender, observer, m, dispatch_reply_needs(filter), verdict);
}

/* The bus's AccessDenied answers, withheld from observers under MSSF mediation: they name who was denied what. */
static bool dispatch_is_hidden_denial(Bus *bus, Peer *sender, Message *m) {
        const char *error;

        if (sender || message_get_type(m) != MESSAGE_ERROR || bus_observes_denials(bus))
                return false;
        error = message_get_error_name(m);
        return error && strcmp(error, bus_error_name(BUS_ERROR_ACCESS_DENIED)) == 0;
}

/*
 * One monitor's copy: only what its label could have received as m's
 * recipient (mediate_message(): the sender's Smack "w" to it, a signal's
 * tokens, its descriptors; mediate_observer_reply(): a reply's call's
 * tokens), filtered for it.
 */
static void dispatch_monitor_one(Bus *bus, Peer *sender, Peer *monitor, Message *m, DispatchFilter *filter) {
        _cleanup_(message_unrefp) Message *filtered = NULL;
        MediateVerdict verdict;

        if (monitor->dead)
                return;
        if (mediate_message(sender, monitor, m, MEDIATE_ROUTE_MONITOR, &verdict) != 0 ||
            dispatch_observer_reply(bus, sender, monitor, m, filter, &verdict) != 0)
                return;
        if (dispatch_filter_applies(filter, bus, sender, monitor)) {
                if (dispatch_filter_message(bus, filter, sender, monitor, m, &filtered) != 0)
                        return;
                m = filtered;
        }
        if (bus_queue_owed(monitor, m, NULL) == CONNECTION_E_QUOTA)
                peer_doom(monitor, m, "a monitor's copy");
}

void dispatch_capture(Bus *bus, Message *m, Peer *sender, Peer *recipient, DispatchFilter *filter) {
        MessageArg args[MESSAGE_ARGS_MAX];
        DispatchFilter own_filter;
        MatchMessage mm;

        if (ilist_is_empty(&bus->monitors) || dispatch_is_hidden_denial(bus, sender, m))
                return;
        if (!filter) {
                dispatch_filter_init(&own_filter, sender, m, NULL);
                filter = &own_filter;
        }
        bus_match_message_init(&mm, m, sender, recipient, args);
        mm.recipient = NULL;
        for (IList *node = bus->monitors.next, *next; node != &bus->monitors; node = next) {
                Peer *monitor = ILIST_ENTRY(node, Peer, monitor_link);

                next = node->next;
                /* As dbus-daemon: a message's addressed recipient gets it once, never as a monitor too. */
                if (monitor != recipient && dispatch_monitor_wants(monitor, &mm))
                        dispatch_monitor_one(bus, sender, monitor, m, filter);
        }
}

void bus_monitors_capture(Bus *bus, Message *m, Peer *sender) {
        const char *destination;

        if (ilist_is_empty(&bus->monitors))
                return;
        destination = message_get_destination(m);
        dispatch_capture(bus, m, sender, destination ? bus_lookup_peer(bus, destination) : NULL, NULL);
}

void dispatch_capture_error(Bus *bus, Message *in_reply_to, Peer *to, int error, const char *text) {
        _cleanup_(message_unrefp) Message *m = NULL;

        if (ilist_is_empty(&bus->monitors))
                return;
        /* Its destination is in_reply_to's sender: the driver's name for a message of the driver's. */
        if (bus_error_new(in_reply_to, bus_error_name(error), text, &m) < 0)
                return;
        dispatch_capture(bus, m, NULL, to, NULL);
}

typedef struct Broadcast {
        Bus *bus;
        Peer *sender;
        Message *m;
        DispatchFilter *filter;
} Broadcast;

/*
 * A copy did not fit. Fds it did not negotiate: skipped, and monitors see
 * why in dbus-daemon's words. A full queue: the recipient asked for these
 * messages and does not read them, so it is disconnected (dbus-broker's
 * answer; dbus-daemon drops the copy, and its sender's live-message quota
 * then stalls the sender for everyone: see FLOW CONTROL in mssf-broker(8)).
 */
static void dispatch_copy_refused(Broadcast *broadcast, Peer *recipient, Message *m, bool eavesdrop, int reason) {
        char text[512];

        if (reason == CONNECTION_E_NO_FDS) {
                snprintf(text, sizeof(text),
                         "broadcast cannot be delivered to %s (uid=%u) because it does not support "
                         "receiving Unix fds", recipient->unique_name, (unsigned) recipient->creds.uid);
                dispatch_capture_error(broadcast->bus, broadcast->m, broadcast->sender, BUS_ERROR_NOT_SUPPORTED,
                                       text);
        } else if (reason == CONNECTION_E_QUOTA) {
                peer_doom(recipient, m, eavesdrop ? "an eavesdropped message" : "a signal it subscribed to");
        }
}

static int dispatch_broadcast_one(void *userdata, MatchOwner *owner, bool eavesdrop) {
        _cleanup_(message_unrefp) Message *filtered = NULL;
        Broadcast *broadcast = userdata;
        Peer *recipient = owner->peer;
        Message *m = broadcast->m;
        MediateVerdict verdict;
        int r;

        if (recipient->dead || recipient->monitor)
                return 0;
        if (mediate_message(broadcast->sender, recipient, m,
                            eavesdrop ? MEDIATE_ROUTE_EAVESDROP : MEDIATE_ROUTE_BROADCAST, &verdict) != 0) {
                dispatch_capture_error(broadcast->bus, m, broadcast->sender, verdict.error, verdict.text);
                return 0;
        }
        if (eavesdrop && dispatch_observer_reply(broadcast->bus, broadcast->sender, recipient, m,
                                                 broadcast->filter, &verdict) != 0)
                return 0;
        if (dispatch_filter_applies(broadcast->filter, broadcast->bus, broadcast->sender, recipient)) {
                /* Nothing left, a body that does not fit, an error: this recipient gets nothing. */
                if (dispatch_filter_message(broadcast->bus, broadcast->filter, broadcast->sender, recipient,
                                            m, &filtered) != 0)
                        return 0;
                m = filtered;
        }
        r = bus_queue_owed(recipient, m, broadcast->sender);
        if (r > 0)
                dispatch_copy_refused(broadcast, recipient, m, eavesdrop, r);
        return 0;
}

int dispatch_broadcast(Bus *bus, Peer *sender, Peer *recipient, Message *m, DispatchFilter *filter) {
        MessageArg args[MESSAGE_ARGS_MAX];
        DispatchFilter own_filter;
        Broadcast broadcast = { bus, sender, m, filter };
        MatchMessage mm;

        if (match_registry_n_rules(bus->matches) == 0)
                return 0;
        if (!filter) {
                dispatch_filter_init(&own_filter, sender, m, NULL);
                broadcast.filter = &own_filter;
        }
        bus_match_message_init(&mm, m, sender, recipient, args);
        return match_registry_dispatch(bus->matches, &mm, dispatch_broadcast_one, &broadcast);
}
