/*
 * Routing: what happens to each message a peer sends.
 *
 * In order: the first message must be Hello (a call before it gets
 * AccessDenied, as from dbus-daemon); a monitor may send nothing
 * (disconnected); the bus stamps SENDER with the peer's unique name (a
 * spoofed one is overwritten); then the message goes to the driver, to
 * one addressed peer (unicast, plus eavesdroppers), or to every peer with
 * a matching rule (broadcast); a method call without a destination is
 * answered UnknownMethod and goes nowhere. Each recipient is passed
 * through mediate_message() first, with its route.
 *
 * Observers (monitors, eavesdroppers; DESIGN.md and issue 8: "an
 * eavesdropper never receives a message its label could not have received
 * as its recipient"): a message addressed to someone (the driver, a peer)
 * is copied to observers only once it was allowed for that recipient, as
 * dbus-daemon captures after its security check: a denied message, an
 * unexpected reply, a reply that could not be filtered, is copied to no
 * one. Then each observer is judged as if it were the recipient
 * (mediate_message() on MEDIATE_ROUTE_MONITOR or _EAVESDROP): the
 * sender's label needs Smack "w" to the observer's (the driver's messages
 * exempt, as for recipients; a reply or error too, since it is not the
 * observer's expected reply), a signal's tokens must be held by the
 * observer, a reply's too: every token its call needed (issue 17; what
 * mediation said the call needed is kept in its reply slot, beside the
 * PropfilterCall, so a monitor joining or the callee's names changing
 * mid-call change nothing), and property carriers are filtered for the
 * observer's label (a copy that filters to nothing is not sent); with
 * Smack, the bus's AccessDenied answers are copied to no one. So a device maker who
 * wants a monitor to see an app gives the app's label "w" to the
 * monitor's. Monitors skip busconfig (as in dbus-daemon, where
 * BecomeMonitor's own checks admit them); eavesdroppers pass its
 * eavesdrop rules. Without any monitor or eavesdrop rule none of this
 * costs anything: an empty list and a counter are tested first.
 *
 * Flow control: a queue over max_outgoing_bytes refuses the message
 * (LimitsExceeded to the sender); what a sender has waiting in queues
 * counts against its max_incoming_bytes, and over it the sender is not
 * read any more until they drain (peer.c), so a slow reader slows down
 * only whoever floods it.
 *
 * Replies: a method call expecting a reply registers (caller, callee,
 * serial) in the reply registry; a METHOD_RETURN or ERROR is delivered
 * only if it takes such a slot, so each expected reply arrives once and
 * unexpected ones are dropped.
 *
 * Properties (DESIGN.md, mediation point 3; broker/propfilter): a
 * protected property never reaches a connection without its token. The
 * reply to a GetAll or GetManagedObjects call (its PropfilterCall kept in
 * the reply slot, below) from a connection that owns or is queued for a
 * declared name, and every PropertiesChanged, InterfacesAdded or
 * InterfacesRemoved signal from such a connection, is filtered for each
 * recipient (unicast, broadcast, eavesdropper, monitor: each for its own
 * label) after mediate_message() allowed it, and the filtered copy is
 * queued instead (InterfacesRemoved loses the protected interfaces it
 * names). Fail closed: a body that does not fit, or an error while
 * filtering, delivers nothing; a caller whose reply is lost that way gets
 * AccessDenied instead of waiting for NoReply. What decides is classified
 * once per message (propfilter_classify, no allocation); whether the
 * sender holds a declared name is asked only for a property message, once
 * (security_peer_get_names() brings the names up to date).
 *
 * Every GetAll/GetManagedObjects call leaves a PropfilterCall in its
 * reply slot (once a policy is loaded), whoever the callee: whether the
 * reply is filtered is decided when it arrives, by the names the replier
 * owns or is queued for then, or ever did (security_peer_get_names()). A
 * callee that acquires a declared name while the call is pending answers
 * under it (fail closed); one that gives its names up stays under them
 * for the rest of the connection. A properties call, or one that needed a
 * token, may not reuse the serial of a call still pending to the same
 * callee (AccessDenied): its reply would take the older slot's record.
 *
 * Hot path: one Message, referenced by every queue it lands in; no copy,
 * no allocation beyond the queues' amortised rings. Errors back to the
 * sender are small driver messages built only on failure.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bus-error.h"
#include "bus.h"
#include "config.h"
#include "driver.h"
#include "log.h"
#include "mediate.h"
#include "message.h"
#include "propfilter-policy.h"
#include "propfilter.h"
#include "smack-label.h"
#include "smack-oracle.h"

static bool dispatch_expects_reply(Message *m) {
        return message_get_type(m) == MESSAGE_METHOD_CALL &&
               !(message_get_flags(m) & MESSAGE_FLAG_NO_REPLY_EXPECTED);
}

/* dbus-daemon answers errors to signals too, unless NO_REPLY_EXPECTED (libdbus sets it on signals). */
static bool dispatch_may_answer(Message *m) {
        uint8_t type = message_get_type(m);

        return (type == MESSAGE_METHOD_CALL || type == MESSAGE_SIGNAL) &&
               !(message_get_flags(m) & MESSAGE_FLAG_NO_REPLY_EXPECTED);
}

int bus_reply_error(Bus *bus, Peer *peer, Message *call, int error, const char *format, ...) {
        _cleanup_(message_unrefp) Message *m = NULL;
        char text[512];
        va_list ap;
        int r;

        if (!dispatch_may_answer(call) || peer->dead)
                return 0;
        va_start(ap, format);
        vsnprintf(text, sizeof(text), format, ap);
        va_end(ap);
        r = message_new_error(call, BUS_DRIVER_NAME, bus_error_name(error), text, &m);
        if (r < 0)
                return r;
        return bus_send_from_driver(bus, peer, m);
}

int bus_queue(Peer *peer, Message *m, Peer *sender) {
        int r;

        if (peer->dead)
                return 0;
        r = connection_queue(&peer->connection, m, sender ? sender->charge : NULL);
        if (r != 0)
                return r;
        if (!ilist_is_linked(&peer->dirty_link))
                ilist_append(&peer->bus->dirty, &peer->dirty_link);
        return 0;
}

void bus_match_message_init(MatchMessage *mm, Message *m, Peer *sender, Peer *recipient,
                            MessageArg *args) {
        unsigned n_args = 0;

        if (args && message_get_args(m, args, &n_args) < 0)
                n_args = 0;
        *mm = (MatchMessage) {
                .type = message_get_type(m),
                .sender = sender ? sender->unique_name : BUS_DRIVER_NAME,
                .sender_names = sender ? &sender->names : NULL,
                .destination = message_get_destination(m),
                .destination_names = recipient ? &recipient->names : NULL,
                .recipient = (struct Peer *) recipient,
                .path = message_get_path(m),
                .interface = message_get_interface(m),
                .member = message_get_member(m),
                .args = args,
                .n_args = n_args,
        };
}

static bool dispatch_monitor_wants(Peer *monitor, const MatchMessage *mm) {
        if (monitor->n_monitor_rules == 0)
                return true;
        for (size_t i = 0; i < monitor->n_monitor_rules; i++)
                if (match_rule_matches(monitor->monitor_rules[i], mm))
                        return true;
        return false;
}

/* Whether (and how) one message is filtered per recipient: decided once per message. */
typedef struct DispatchFilter {
        PropfilterKind kind;            /* NONE: every recipient gets the message as is */
        const PropfilterCall *call;     /* (nullable) a reply's call, from its slot */
        int declared;                   /* the sender owns a declared name: -1 not asked yet, 0, 1 */
} DispatchFilter;

static void dispatch_filter_init(DispatchFilter *filter, Peer *sender, Message *m,
                                 const PropfilterCall *call) {
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

/*
 * Whether m must be filtered for recipient; the sender's names are asked
 * once per message, when the first recipient needs it. A connection
 * hearing itself learns nothing (as in mediation).
 */
static bool dispatch_filter_applies(DispatchFilter *filter, Bus *bus, Peer *sender, Peer *recipient) {
        const PolicyDb *db;

        if (filter->kind == PROPFILTER_NONE || sender == recipient)
                return false;
        if (filter->declared < 0) {
                db = bus->security ? security_get_policy_db(bus->security) : NULL;
                filter->declared = db && dispatch_declares_any(db, sender);
        }
        return filter->declared;
}

/* propfilter_filter() for recipient's label: 0 and *ret to queue, else nothing to deliver. */
static int dispatch_filter_message(Bus *bus, const DispatchFilter *filter, Peer *sender, Peer *recipient,
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

/* What a reply's call needed of its caller (its slot's record); NULL for anything else. */
static const MediationNeeds *dispatch_reply_needs(const DispatchFilter *filter) {
        return filter->call ? &filter->call->needs : NULL;
}

/*
 * One monitor's copy: only what its label could have received as m's
 * recipient (mediate_message() on MEDIATE_ROUTE_MONITOR: the sender's
 * Smack "w" to it, a signal's tokens; mediate_observer_reply(): a reply's
 * call's tokens), filtered
 * for its label like any recipient's. Copies are not charged: a stuck
 * monitor must not throttle the bus.
 */
static void dispatch_monitor_one(Bus *bus, Peer *sender, Peer *monitor, Message *m, DispatchFilter *filter) {
        _cleanup_(message_unrefp) Message *filtered = NULL;
        MediateVerdict verdict;

        if (monitor->dead)
                return;
        if (mediate_message(sender, monitor, m, MEDIATE_ROUTE_MONITOR, &verdict) != 0 ||
            mediate_observer_reply(sender, monitor, m, dispatch_reply_needs(filter), &verdict) != 0)
                return;
        if (dispatch_filter_applies(filter, bus, sender, monitor)) {
                if (dispatch_filter_message(bus, filter, sender, monitor, m, &filtered) != 0)
                        return;
                m = filtered;
        }
        (void) bus_queue(monitor, m, NULL);
}

/*
 * m, allowed for recipient (nullable: the driver, a broadcast), to every
 * monitor whose rules match and whose label may see it. filter: as
 * decided for recipient (NULL: classify m here). Nothing at all without
 * monitors.
 */
static void dispatch_capture(Bus *bus, Message *m, Peer *sender, Peer *recipient, DispatchFilter *filter) {
        MessageArg args[MESSAGE_ARGS_MAX];
        DispatchFilter own_filter;
        MatchMessage mm;

        if (ilist_is_empty(&bus->monitors))
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
                if (dispatch_monitor_wants(monitor, &mm))
                        dispatch_monitor_one(bus, sender, monitor, m, filter);
        }
}

/*
 * For the driver's own messages (driver.c: the Hello call, once it is
 * allowed), which carry no reply's PropfilterCall: a signal is classified
 * from its header, anything else passes to monitors unfiltered.
 */
void bus_monitors_capture(Bus *bus, Message *m, Peer *sender) {
        const char *destination;

        if (ilist_is_empty(&bus->monitors))
                return;
        destination = message_get_destination(m);
        dispatch_capture(bus, m, sender, destination ? bus_lookup_peer(bus, destination) : NULL, NULL);
}

/*
 * With Smack, the bus's refusals reach only the peer refused (issue 17):
 * a denied message is copied to no observer, nor is the AccessDenied
 * answering it, whose text names the caller's label, the destination and
 * the member. Without Smack an observer is not limited by label and sees
 * them, as in dbus-daemon.
 */
static bool dispatch_is_hidden_denial(Bus *bus, Message *m) {
        const char *error = message_get_error_name(m);

        return message_get_type(m) == MESSAGE_ERROR && error &&
               strcmp(error, bus_error_name(BUS_ERROR_ACCESS_DENIED)) == 0 &&
               bus->security && security_has_smack(bus->security);
}

int bus_send_from_driver(Bus *bus, Peer *peer, Message *m) {
        MediateVerdict verdict;

        if (peer->dead)
                return 0;
        if (mediate_message(NULL, peer, m, message_get_reply_serial(m) ? MEDIATE_ROUTE_REPLY :
                            MEDIATE_ROUTE_UNICAST, &verdict) != 0)
                return 0;
        if (!dispatch_is_hidden_denial(bus, m))
                dispatch_capture(bus, m, NULL, peer, NULL);
        (void) bus_queue(peer, m, NULL);
        return 0;
}

typedef struct Broadcast {
        Bus *bus;
        Peer *sender;
        Message *m;
        DispatchFilter *filter;
} Broadcast;

static int dispatch_broadcast_one(void *userdata, MatchOwner *owner, bool eavesdrop) {
        _cleanup_(message_unrefp) Message *filtered = NULL;
        Broadcast *broadcast = userdata;
        Peer *recipient = owner->peer;
        Message *m = broadcast->m;
        MediateVerdict verdict;

        if (recipient->dead || recipient->monitor)
                return 0;
        if (mediate_message(broadcast->sender, recipient, m,
                            eavesdrop ? MEDIATE_ROUTE_EAVESDROP : MEDIATE_ROUTE_BROADCAST, &verdict) != 0)
                return 0;
        if (eavesdrop && mediate_observer_reply(broadcast->sender, recipient, m,
                                                dispatch_reply_needs(broadcast->filter), &verdict) != 0)
                return 0;
        if (dispatch_filter_applies(broadcast->filter, broadcast->bus, broadcast->sender, recipient)) {
                /* Nothing left, a body that does not fit, an error: this recipient gets nothing. */
                if (dispatch_filter_message(broadcast->bus, broadcast->filter, broadcast->sender, recipient,
                                            m, &filtered) != 0)
                        return 0;
                m = filtered;
        }
        /* A recipient over quota or without fd support just misses a broadcast. */
        (void) bus_queue(recipient, m, broadcast->sender);
        return 0;
}

/*
 * Every peer with a matching rule; eavesdroppers only when m has a
 * destination. filter: as decided for the unicast recipient (NULL:
 * classify m here).
 */
static int dispatch_broadcast(Bus *bus, Peer *sender, Peer *recipient, Message *m,
                              DispatchFilter *filter) {
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

/* A signal without destination: to monitors, then to every match; one filter decision for all. */
static int dispatch_broadcast_captured(Bus *bus, Peer *sender, Message *m) {
        DispatchFilter filter;

        if (ilist_is_empty(&bus->monitors))
                return dispatch_broadcast(bus, sender, NULL, m, NULL);
        dispatch_filter_init(&filter, sender, m, NULL);
        dispatch_capture(bus, m, sender, NULL, &filter);
        return dispatch_broadcast(bus, sender, NULL, m, &filter);
}

int bus_broadcast_from_driver(Bus *bus, Message *m) {
        return dispatch_broadcast_captured(bus, NULL, m);
}

/* No such destination: bus activation decides (activate.c). */
static int dispatch_no_destination(Bus *bus, Peer *sender, Message *m, const char *destination) {
        return bus_activate(bus, sender, m, destination);
}

static bool dispatch_is_reply(Message *m) {
        uint8_t type = message_get_type(m);

        return type == MESSAGE_METHOD_RETURN || type == MESSAGE_ERROR;
}

/* Replies go only where a slot says one is expected, once; *ret_call: what the slot kept. */
static int dispatch_check_reply(Bus *bus, Peer *sender, Peer *recipient, Message *m,
                                PropfilterCall *ret_call) {
        if (!dispatch_is_reply(m))
                return 0;
        if (reply_registry_take_call(bus->replies, &recipient->replies, &sender->replies,
                                     message_get_reply_serial(m), ret_call) != 0)
                return 1;
        return 0;
}

/*
 * An error from the driver to caller, answering its call serial (which
 * the bus no longer has at hand): NoReply, or AccessDenied for a reply
 * that could not be filtered.
 */
static int dispatch_error_to_caller(Bus *bus, Peer *caller, uint32_t serial, int error, const char *text) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;
        int r;

        r = message_builder_new(MESSAGE_ERROR, &b);
        if (r >= 0)
                r = message_builder_set_reply_serial(b, serial);
        if (r >= 0)
                r = message_builder_set_error_name(b, bus_error_name(error));
        if (r >= 0)
                r = message_builder_set_destination(b, caller->unique_name);
        if (r >= 0)
                r = message_builder_set_sender(b, BUS_DRIVER_NAME);
        if (r >= 0)
                r = message_builder_append_basic(b, 's', text);
        if (r >= 0)
                r = message_builder_finish(b, &m);
        if (r < 0)
                return r;
        return bus_send_from_driver(bus, caller, m);
}

/* Worth remembering only for the two calls whose replies carry property values. */
static bool dispatch_is_properties_call(Message *m) {
        const char *member = message_get_member(m);

        return member && (strcmp(member, "GetAll") == 0 || strcmp(member, "GetManagedObjects") == 0);
}

/*
 * What to keep for the reply's filter: every GetAll/GetManagedObjects
 * call, whoever the callee is, once a policy is loaded. Whether its reply
 * is filtered is decided when the reply arrives, by the names the replier
 * holds then (dispatch_filter_applies()): a callee that acquires a
 * declared name while the call is pending answers under it.
 */
static int dispatch_call_to_filter(Bus *bus, Message *m, PropfilterCall *ret_call) {
        const PolicyDb *db = bus->security ? security_get_policy_db(bus->security) : NULL;

        *ret_call = (PropfilterCall) { .kind = PROPFILTER_NONE };
        if (!db || !dispatch_is_properties_call(m))
                return 0;
        return propfilter_call_init(ret_call, m);
}

/* needs: what mediation said the call needs of its caller, kept for observers of the reply. */
static int dispatch_expect_reply(Bus *bus, Peer *sender, Peer *recipient, Message *m,
                                 const MediationNeeds *needs) {
        _cleanup_(propfilter_call_deinit) PropfilterCall call = { .kind = PROPFILTER_NONE };
        int64_t timeout = bus->config->limits.reply_timeout;
        uint64_t deadline = timeout < 0 ? UINT64_MAX : loop_now() + (uint64_t) timeout * 1000;
        size_t max = bus->config->limits.max_replies_per_connection < 0 ? SIZE_MAX :
                     (size_t) bus->config->limits.max_replies_per_connection;
        int r;

        /* Unremembered, the reply would pass unfiltered: the call does not go out. */
        if (sender != recipient && dispatch_call_to_filter(bus, m, &call) < 0) {
                r = bus_reply_error(bus, sender, m, BUS_ERROR_NO_MEMORY, "Out of memory");
                return r < 0 ? r : 1;
        }
        call.needs = *needs;
        r = reply_registry_expect_call(bus->replies, &sender->replies, &recipient->replies,
                                       message_get_serial(m), deadline, max, &call, propfilter_call_deinit);
        if (r == REPLY_E_EXISTS && (call.kind != PROPFILTER_NONE || !needs->known || needs->n_tokens > 0)) {
                /* The pending slot would hand this call's reply an older call's filter or record. */
                r = bus_reply_error(bus, sender, m, BUS_ERROR_ACCESS_DENIED,
                                    "A call with serial %u from \"%s\" to \"%s\" is still pending: "
                                    "a properties call or one that needs a token may not reuse it",
                                    (unsigned) message_get_serial(m), sender->unique_name,
                                    recipient->unique_name);
                return r < 0 ? r : 1;
        }
        if (r == REPLY_E_QUOTA) {
                r = bus_reply_error(bus, sender, m, BUS_ERROR_LIMITS_EXCEEDED,
                                    "The maximum number of pending replies for \"%s\" (uid=%u) has been reached",
                                    sender->unique_name, (unsigned) sender->creds.uid);
                return r < 0 ? r : 1;
        }
        if (r < 0)
                return r;       /* REPLY_E_EXISTS: a reused serial, delivered all the same */
        if (timeout >= 0)
                (void) bus_arm_reply_timer(bus);
        return 0;
}

/* The queue refused: tell the sender, as dbus-daemon does, and forget the slot. */
static int dispatch_refused(Bus *bus, Peer *sender, Peer *recipient, Message *m, int reason) {
        if (dispatch_expects_reply(m))
                (void) reply_registry_take(bus->replies, &sender->replies, &recipient->replies,
                                           message_get_serial(m));
        if (reason == CONNECTION_E_NO_FDS)
                return bus_reply_error(bus, sender, m, BUS_ERROR_NOT_SUPPORTED,
                                       "Tried to send message with Unix file descriptors to a client that doesn't support that.");
        if (reason == CONNECTION_E_QUOTA)
                return bus_reply_error(bus, sender, m, BUS_ERROR_LIMITS_EXCEEDED,
                                       "The destination's outgoing queue is full");
        return reason < 0 ? reason : 0;
}

/*
 * The filter failed for the addressed recipient: a signal is just not
 * delivered; a reply's caller learns that its reply was withheld.
 */
static int dispatch_unfilterable(Bus *bus, Peer *sender, Peer *recipient, Message *m, int reason) {
        char text[512];

        if (!dispatch_is_reply(m))
                return 0;
        snprintf(text, sizeof(text), "The reply from \"%s\" was withheld: %s", sender->unique_name,
                 reason == PROPFILTER_E_MALFORMED ? "its body does not fit the call it answers" :
                                                    "it could not be filtered for this connection");
        return dispatch_error_to_caller(bus, recipient, message_get_reply_serial(m),
                                        BUS_ERROR_ACCESS_DENIED, text);
}

static int dispatch_unicast(Bus *bus, Peer *sender, Message *m, const char *destination) {
        _cleanup_(propfilter_call_deinit) PropfilterCall call = { .kind = PROPFILTER_NONE };
        _cleanup_(message_unrefp) Message *filtered = NULL;
        Peer *recipient = bus_lookup_peer(bus, destination);
        DispatchFilter filter;
        MediateVerdict verdict;
        Message *deliver = m;
        int r;

        if (!recipient || recipient->monitor)
                return dispatch_no_destination(bus, sender, m, destination);
        if (dispatch_check_reply(bus, sender, recipient, m, &call))
                return 0;
        if (mediate_message(sender, recipient, m, dispatch_is_reply(m) ? MEDIATE_ROUTE_REPLY :
                            MEDIATE_ROUTE_UNICAST, &verdict) != 0)
                return bus_reply_error(bus, sender, m, verdict.error, "%s", verdict.text);
        if (dispatch_expects_reply(m)) {
                r = dispatch_expect_reply(bus, sender, recipient, m, &verdict.needs);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        dispatch_filter_init(&filter, sender, m, &call);
        if (dispatch_filter_applies(&filter, bus, sender, recipient)) {
                r = dispatch_filter_message(bus, &filter, sender, recipient, m, &filtered);
                if (r != 0)
                        return dispatch_unfilterable(bus, sender, recipient, m, r);
                deliver = filtered;
        }
        /* Allowed for its recipient: only now may observers see it (each as a recipient). */
        dispatch_capture(bus, m, sender, recipient, &filter);
        r = bus_queue(recipient, deliver, sender);
        if (r != 0)
                return dispatch_refused(bus, sender, recipient, m, r);
        if (bus->n_eavesdrop_rules == 0)
                return 0;
        return dispatch_broadcast(bus, sender, recipient, m, &filter);
}

static int dispatch_to_driver(Bus *bus, Peer *sender, Message *m) {
        MediateVerdict verdict;

        if (mediate_message(sender, NULL, m, MEDIATE_ROUTE_UNICAST, &verdict) != 0)
                return bus_reply_error(bus, sender, m, verdict.error, "%s", verdict.text);
        dispatch_capture(bus, m, sender, NULL, NULL);
        return driver_dispatch(bus, sender, m);
}

/*
 * dbus-daemon takes a method call without a destination as one to the bus
 * itself as a plain object, which implements nothing there: no broadcast,
 * and libdbus's stock UnknownMethod answer, word for word.
 */
static int dispatch_call_without_destination(Bus *bus, Peer *sender, Message *m) {
        const char *interface = message_get_interface(m);
        const char *signature = message_get_signature(m);

        dispatch_capture(bus, m, sender, NULL, NULL);
        return bus_reply_error(bus, sender, m, BUS_ERROR_UNKNOWN_METHOD,
                               "Method \"%s\" with signature \"%s\" on interface \"%s\" doesn't exist\n",
                               message_get_member(m), signature ? signature : "",
                               interface ? interface : "(null)");
}

static int dispatch_stamp(Peer *sender, Message *m) {
        int r = message_stamp_sender(m, sender->unique_name);

        if (r < 0)
                log_warning_errno(r, "Failed to set the sender of a message from %s",
                                  sender->unique_name);
        return r;
}

/* Takes m. */
int bus_dispatch(Peer *sender, Message *message) {
        _cleanup_(message_unrefp) Message *m = message;
        Bus *bus = sender->bus;
        const char *destination;
        int r;

        if (sender->dead)
                return CONNECTION_E_CLOSED;
        if (!sender->registered)
                return driver_hello(bus, sender, m);
        if (sender->monitor)
                return CONNECTION_E_CLOSED;
        r = dispatch_stamp(sender, m);
        if (r < 0)
                return r;

        destination = message_get_destination(m);
        if (destination && strcmp(destination, BUS_DRIVER_NAME) == 0)
                return dispatch_to_driver(bus, sender, m);
        if (!destination && message_get_type(m) == MESSAGE_METHOD_CALL)
                return dispatch_call_without_destination(bus, sender, m);
        if (destination)
                return dispatch_unicast(bus, sender, m, destination);
        return dispatch_broadcast_captured(bus, sender, m);
}

int bus_on_reply_timeout(LoopTimer *timer, void *userdata) {
        Bus *bus = userdata;
        ReplyEvent event;

        while (reply_registry_pop_expired(bus->replies, loop_now(), &event) == 0)
                (void) dispatch_error_to_caller(bus, event.caller->peer, event.serial, BUS_ERROR_NO_REPLY,
                                                "Did not receive a reply. Possible causes include: "
                                                "the remote application did not send a reply, the message bus "
                                                "security policy blocked the reply, the reply timeout expired, "
                                                "or the network connection was broken.");
        return bus_arm_reply_timer(bus);
}
