/*
 * Routing: what happens to each message a peer sends, as dbus-daemon
 * 1.14 does it (bus/dispatch.c, bus_context_check_security_policy()).
 *
 * In order: the first message must be Hello (driver/); a monitor may
 * send nothing (disconnected); the bus stamps SENDER with the peer's
 * unique name (a spoofed one is overwritten); monitors get a copy
 * (dispatch-observe.c: without MSSF mediation before any policy judges
 * it, as dbus-daemon captures; with Smack or a compiled policy only once
 * it was allowed for its recipient, so an observer never learns of a
 * message the policy refused); then the message goes to
 * the driver, to one addressed peer
 * (unicast, plus eavesdroppers once that peer was allowed it), to the
 * start of the service that will own its destination (activation/), or
 * to every peer with a matching rule (a signal without destination). A
 * method call without destination is answered UnknownMethod (libdbus's
 * stock answer inside dbus-daemon, which no monitor sees), and a reply
 * or error without one goes nowhere; anything on org.freedesktop.DBus.Peer
 * without a destination is the bus connection's own and answered at once
 * (dispatch_answer_peer_interface()). Each recipient is passed through
 * mediate_message() first, with its route.
 *
 * Errors: whatever went wrong for a message with a destination (a
 * policy denial, no owner, a full queue, fds the recipient cannot take
 * or, with Smack, could not receive, a reply nobody may send) is
 * answered to its sender with an error from the driver, whatever its
 * type and flags: a method call with
 * NO_REPLY_EXPECTED, a unicast signal, a method return or an error get
 * one too, exactly as from dbus-daemon. Broadcasts and observers' copies
 * are never answered (monitors see the error instead, dispatch-observe.c;
 * under MSSF mediation no observer sees the bus's AccessDenied answers).
 *
 * Replies: a method call expecting a reply registers (caller, callee,
 * serial) in the reply registry; a METHOD_RETURN or ERROR that takes such
 * a slot is a requested reply (MEDIATE_ROUTE_REPLY) and arrives once.
 * Any other reply (a second one, one to a NO_REPLY_EXPECTED call, one
 * nobody asked for) is judged as a message of its own
 * (MEDIATE_ROUTE_UNICAST): busconfig's requested_reply rules decide, as
 * in dbus-daemon (denied by system.conf's defaults, allowed by
 * session.conf's eavesdrop="true" rule), and with Smack the sender's
 * label needs "w" to the recipient's like for any other write. Under MSSF
 * mediation (Smack, or a compiled policy: bus_mediates()) an unrequested
 * reply is refused whatever busconfig says (AccessDenied to its sender):
 * the caller's library would take one carrying a pending call's serial as
 * that call's answer, so anyone who may write to the caller could forge
 * the service's answer. A requested reply that
 * mediation refuses for a descriptor its caller could not receive has
 * already taken its slot: the caller is answered AccessDenied, and the
 * replier too (dispatch_unreceivable_reply()).
 *
 * Flow control, so that no connection can make the bus hold unbounded
 * memory or stall others: each connection's queue holds at most
 * max_outgoing_bytes and max_outgoing_unix_fds. A message for a full
 * queue: a unicast from a peer is refused, its sender told LimitsExceeded
 * (dbus-daemon, and dbus-broker for calls and signals); a copy the
 * recipient subscribed to (broadcast, eavesdropping, monitoring) or a
 * message of the driver's it is owed disconnects the recipient once the
 * batch is done (peer_doom(), dbus-broker). No sender is ever slowed down
 * by another's queue: dbus-daemon stops reading a sender whose messages
 * wait beyond max_incoming_bytes, so one subscriber that never reads
 * stalls a service's broadcasts for everyone. Refusals and disconnections
 * are counted (org.mssf.Broker1.GetStats) and logged once.
 *
 * Properties (broker/propfilter, dispatch-observe.c): every
 * GetAll/GetManagedObjects call leaves a PropfilterCall in its reply slot
 * (once a policy is loaded), whoever the callee: whether the reply is
 * filtered is decided when it arrives, by the names the replier owns or
 * is queued for then, or ever did (security_peer_get_names()). A callee
 * that acquires a declared name while the call is pending answers under
 * it (fail closed); one that gives its names up stays under them for the
 * rest of the connection. Beside it the slot keeps what mediation said
 * the call needed of its caller (MediationNeeds): observers'
 * copies of the reply are judged by it (dispatch-observe.c). A properties
 * call, or one that needed a token, may not reuse the serial of a call
 * still pending to the same callee (AccessDenied): its reply would take
 * the older slot's record. A caller whose reply cannot be filtered gets
 * AccessDenied instead of waiting for NoReply.
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
#include "bus-hooks.h"
#include "bus-quota.h"
#include "bus.h"
#include "config.h"
#include "dispatch-internal.h"
#include "dispatch.h"
#include "log.h"
#include "mediate.h"
#include "message.h"

static bool dispatch_expects_reply(Message *m) {
        return message_get_type(m) == MESSAGE_METHOD_CALL &&
               !(message_get_flags(m) & MESSAGE_FLAG_NO_REPLY_EXPECTED);
}

static bool dispatch_is_reply(Message *m) {
        uint8_t type = message_get_type(m);

        return type == MESSAGE_METHOD_RETURN || type == MESSAGE_ERROR;
}

int bus_error_new(Message *call, const char *error_name, const char *text, Message **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        const char *destination = message_get_sender(call);
        int r = message_builder_new(MESSAGE_ERROR, &b);

        if (r == 0)
                r = message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED);
        if (r == 0)
                r = message_builder_set_reply_serial(b, message_get_serial(call));
        if (r == 0 && destination)
                r = message_builder_set_destination(b, destination);
        if (r == 0)
                r = message_builder_set_sender(b, BUS_DRIVER_NAME);
        if (r == 0)
                r = message_builder_set_error_name(b, error_name);
        if (r == 0)
                r = message_builder_append_basic(b, 's', text);
        if (r == 0)
                r = message_builder_finish(b, ret);
        return r > 0 ? -EINVAL : r;
}

/* dbus-daemon answers every message it could not deliver, whatever its type and flags. */
int bus_reply_error(Bus *bus, Peer *peer, Message *call, int error, const char *format, ...) {
        _cleanup_(message_unrefp) Message *m = NULL;
        char text[512];
        va_list ap;
        int r;

        if (peer->dead)
                return 0;
        va_start(ap, format);
        vsnprintf(text, sizeof(text), format, ap);
        va_end(ap);
        r = bus_error_new(call, bus_error_name(error), text, &m);
        if (r < 0)
                return r;
        return bus_send_from_driver(bus, peer, m);
}

static int bus_queue_limited(Peer *peer, Message *m, Peer *sender, bool share_limits) {
        int r;

        if (peer->dead || peer->doomed)
                return 0;
        r = connection_queue(&peer->connection, m, sender ? sender->charge : NULL, share_limits);
        if (r != 0)
                return r;
        if (!ilist_is_linked(&peer->dirty_link))
                ilist_append(&peer->bus->dirty, &peer->dirty_link);
        return 0;
}

/* A message its sender is told of when it does not fit: the label's share limits it too. */
int bus_queue(Peer *peer, Message *m, Peer *sender) {
        return bus_queue_limited(peer, m, sender, true);
}

/* What the bus owes peer, or a copy it asked for: only its own queue limits it (connection.h). */
int bus_queue_owed(Peer *peer, Message *m, Peer *sender) {
        return bus_queue_limited(peer, m, sender, false);
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

/*
 * As dbus-daemon's bus_transaction_send_from_driver(): without MSSF
 * mediation monitors see the message even when the recipient's policy
 * then refuses it (and, for them only, the AccessDenied the driver would
 * have got back); with it, only once it was allowed, so that no observer
 * sees what the policy refused its recipient.
 */
static int dispatch_from_driver(Bus *bus, Peer *peer, Message *m, bool capture) {
        bool early = capture && bus_observes_denials(bus);
        MediateVerdict verdict;

        /*
         * dbus-daemon captures what it sends a connection that is going
         * away (its NameLost for each name it loses) before the send fails.
         */
        if (early)
                dispatch_capture(bus, m, NULL, peer, NULL);
        if (peer->dead)
                return 0;
        if (mediate_message(NULL, peer, m, message_get_reply_serial(m) ? MEDIATE_ROUTE_REPLY :
                            MEDIATE_ROUTE_UNICAST, &verdict) != 0) {
                if (early)
                        dispatch_capture_error(bus, m, NULL, verdict.error, verdict.text);
                return 0;
        }
        if (capture && !early)
                dispatch_capture(bus, m, NULL, peer, NULL);
        /* It cannot take what the bus owes it (a reply, NameLost, a signal it subscribed to). */
        if (bus_queue_owed(peer, m, NULL) == CONNECTION_E_QUOTA)
                peer_doom(peer, m, "a message from the bus driver");
        return 0;
}

int bus_send_from_driver(Bus *bus, Peer *peer, Message *m) {
        return dispatch_from_driver(bus, peer, m, true);
}

int bus_deliver_from_driver(Bus *bus, Peer *peer, Message *m) {
        return dispatch_from_driver(bus, peer, m, false);
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
                r = message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED);
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

        /* Its label awaits as many replies as it may (bus-quota.c). */
        if (sender->quota) {
                char text[512];

                r = peer_quota_check(sender, QUOTA_REPLIES, text, sizeof(text));
                if (r != 0) {
                        r = bus_reply_error(bus, sender, m, r, "%s", text);
                        return r < 0 ? r : 1;
                }
        }
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

/* A refusal for recipient's full queue: logged once until its queue drains, and counted. */
static void dispatch_log_full(Bus *bus, Peer *sender, Peer *recipient) {
        const BusConfigLimits *limits = &bus->config->limits;

        bus->flow.refused++;
        if (recipient->queue_full_logged)
                return;
        recipient->queue_full_logged = true;
        log_notice("Refusing messages for %s (uid=%u pid=%d), first from %s: its queue is full "
                   "(%zu bytes, %zu fds; max_outgoing_bytes=%lld, max_outgoing_unix_fds=%lld)",
                   recipient->unique_name, (unsigned) recipient->creds.uid, (int) recipient->creds.pid,
                   sender->unique_name, recipient->connection.out_bytes, recipient->connection.out_fds,
                   (long long) limits->max_outgoing_bytes, (long long) limits->max_outgoing_unix_fds);
}

/*
 * The queue refused: tell the sender, as dbus-daemon does (and dbus-broker
 * for calls and signals), and forget the slot. The sender is not slowed
 * down: a recipient that does not read costs its senders refusals, never
 * a stall of their other deliveries.
 */
static int dispatch_refused(Bus *bus, Peer *sender, Peer *recipient, Message *m, int reason) {
        char text[512];

        if (dispatch_expects_reply(m))
                (void) reply_registry_take(bus->replies, &sender->replies, &recipient->replies,
                                           message_get_serial(m));
        if (reason == CONNECTION_E_NO_FDS)
                return bus_reply_error(bus, sender, m, BUS_ERROR_NOT_SUPPORTED,
                                       "Tried to send message with Unix file descriptors to a client that doesn't support that.");
        if (reason == CONNECTION_E_QUOTA && peer_quota_queue_refused(recipient, m, text, sizeof(text))) {
                /* Its label's queues together are full: the label's log line says so (bus-quota.c). */
                bus->flow.refused++;
                return bus_reply_error(bus, sender, m, BUS_ERROR_LIMITS_EXCEEDED, "%s", text);
        }
        if (reason == CONNECTION_E_QUOTA) {
                dispatch_log_full(bus, sender, recipient);
                return bus_reply_error(bus, sender, m, BUS_ERROR_LIMITS_EXCEEDED,
                                       "Rejected: destination has a full message queue");
        }
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

/*
 * Under MSSF mediation a reply is delivered only as the answer to a call
 * the bus saw (fail closed): the caller's library matches a
 * reply by its serial alone, so any connection whose label may write to
 * the caller (another one of the service's label, say) could otherwise
 * answer a protected call first, and busconfig's unrequested-reply rules
 * (session.conf allows them) do not know about labels.
 */
static int dispatch_unrequested_reply(Bus *bus, Peer *sender, Peer *recipient, Message *m) {
        return bus_reply_error(bus, sender, m, BUS_ERROR_ACCESS_DENIED,
                               "Rejected a reply from \"%s\" to \"%s\" (reply serial %u): it answers no "
                               "call pending between them, and with MSSF mediation only requested "
                               "replies are delivered", sender->unique_name, recipient->unique_name,
                               (unsigned) message_get_reply_serial(m));
}

/*
 * A requested reply refused for a descriptor its caller could not receive
 * (mediate_message(): MEDIATE_E_UNRECEIVABLE): its slot is already taken,
 * so the caller would wait for nothing; it gets AccessDenied instead, and
 * the replier the bus's answer to any undelivered message.
 */
static int dispatch_unreceivable_reply(Bus *bus, Peer *sender, Peer *recipient, Message *m,
                                       const MediateVerdict *verdict) {
        char text[sizeof(verdict->text) + 64];
        int r;

        snprintf(text, sizeof(text), "The reply from \"%s\" was withheld: %s", sender->unique_name,
                 verdict->text);
        r = dispatch_error_to_caller(bus, recipient, message_get_reply_serial(m), verdict->error, text);
        if (r < 0)
                return r;
        return bus_reply_error(bus, sender, m, verdict->error, "%s", verdict->text);
}

/*
 * To recipient, the owner of m's destination. A reply that takes a slot
 * is a requested one (and *call what the slot kept); any other reply is
 * judged as unrequested. captured: monitors saw m already (a message
 * queued for activation is captured when it arrives, not again when it
 * is delivered, as in dbus-daemon; under MSSF mediation it is captured
 * here, once allowed, see bus_dispatch_activated()).
 */
static int dispatch_unicast(Bus *bus, Peer *sender, Peer *recipient, Message *m, bool captured) {
        _cleanup_(propfilter_call_deinit) PropfilterCall call = { .kind = PROPFILTER_NONE };
        _cleanup_(message_unrefp) Message *filtered = NULL;
        bool requested = false, early;
        DispatchFilter filter;
        MediateVerdict verdict;
        Message *deliver = m;
        int r;

        if (dispatch_is_reply(m))
                requested = reply_registry_take_call(bus->replies, &recipient->replies, &sender->replies,
                                                     message_get_reply_serial(m), &call) == 0;
        dispatch_filter_init(&filter, sender, m, &call);
        early = !captured && bus_observes_denials(bus);
        if (early)
                dispatch_capture(bus, m, sender, recipient, &filter);
        if (dispatch_is_reply(m) && !requested && bus_mediates(bus))
                return dispatch_unrequested_reply(bus, sender, recipient, m);
        r = mediate_message(sender, recipient, m, requested ? MEDIATE_ROUTE_REPLY : MEDIATE_ROUTE_UNICAST,
                            &verdict);
        if (r == MEDIATE_E_UNRECEIVABLE && requested)
                return dispatch_unreceivable_reply(bus, sender, recipient, m, &verdict);
        if (r != 0)
                return bus_reply_error(bus, sender, m, verdict.error, "%s", verdict.text);
        if (dispatch_expects_reply(m)) {
                r = dispatch_expect_reply(bus, sender, recipient, m, &verdict.needs);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        if (dispatch_filter_applies(&filter, bus, sender, recipient)) {
                r = dispatch_filter_message(bus, &filter, sender, recipient, m, &filtered);
                if (r != 0)
                        return dispatch_unfilterable(bus, sender, recipient, m, r);
                deliver = filtered;
        }
        /* Under MSSF mediation: allowed for its recipient, only now may observers see it. */
        if (!captured && !early)
                dispatch_capture(bus, m, sender, recipient, &filter);
        r = bus_queue(recipient, deliver, sender);
        if (r != 0)
                return dispatch_refused(bus, sender, recipient, m, r);
        if (bus->n_eavesdrop_rules == 0)
                return 0;
        return dispatch_broadcast(bus, sender, recipient, m, &filter);
}

int bus_dispatch_activated(Peer *sender, Message *message) {
        _cleanup_(message_unrefp) Message *m = message;
        Bus *bus = sender->bus;
        Peer *recipient;

        if (sender->dead)
                return 0;
        recipient = bus_lookup_peer(bus, message_get_destination(m));
        if (!recipient || recipient->monitor)
                return bus_reply_error(bus, sender, m, BUS_ERROR_NAME_HAS_NO_OWNER,
                                       "Name \"%s\" does not exist", message_get_destination(m));
        /* Under MSSF mediation activation did not capture m: it is captured once allowed. */
        return dispatch_unicast(bus, sender, recipient, m, bus_observes_denials(bus));
}

void bus_eavesdrop_driver_message(Bus *bus, Peer *sender, Message *m) {
        if (bus->n_eavesdrop_rules > 0)
                (void) dispatch_broadcast(bus, sender, NULL, m, NULL);
}

bool bus_is_activation_failure(Message *m) {
        const char *interface = message_get_interface(m);
        const char *member = message_get_member(m);

        return message_get_type(m) == MESSAGE_SIGNAL && interface &&
               strcmp(interface, "org.freedesktop.systemd1.Activator") == 0 && member &&
               strcmp(member, "ActivationFailure") == 0;
}

/*
 * Monitors see a message to the driver before its effects (under MSSF
 * mediation only once it was allowed), except systemd's
 * ActivationFailure: dbus-daemon fails the waiting callers in a
 * transaction of their own, which goes out before the one that captured
 * the failure, so monitors see the callers' errors first. Eavesdroppers
 * get a copy after the driver's answer and effects, and only when the
 * driver did not answer with an error (dbus-daemon's bus_dispatch_matches()
 * after bus_driver_handle_message()).
 */
static int dispatch_to_driver(Bus *bus, Peer *sender, Message *m) {
        bool capture_after = bus_is_activation_failure(m);
        bool observes_denials = bus_observes_denials(bus);
        MediateVerdict verdict;
        int r;

        if (!capture_after && observes_denials)
                dispatch_capture(bus, m, sender, NULL, NULL);
        if (mediate_message(sender, NULL, m, MEDIATE_ROUTE_UNICAST, &verdict) != 0) {
                if (capture_after && observes_denials)
                        dispatch_capture(bus, m, sender, NULL, NULL);
                return bus_reply_error(bus, sender, m, verdict.error, "%s", verdict.text);
        }
        /* Under MSSF mediation: once allowed, so observers never see a denied call. */
        if (!capture_after && !observes_denials)
                dispatch_capture(bus, m, sender, NULL, NULL);
        r = bus->hooks->driver_message(bus, sender, m);
        if (capture_after)
                dispatch_capture(bus, m, sender, NULL, NULL);
        if (r == 0 && !sender->dead)
                bus_eavesdrop_driver_message(bus, sender, m);
        return r < 0 ? r : 0;
}

/*
 * An answer of the bus's end of peer's connection (libdbus's own inside
 * dbus-daemon, sent before any policy or monitor sees anything): queued
 * as it is, to peer alone. Unlike dbus-daemon, which queues these without
 * bound, peer's queue limit applies: a client that sends them and never
 * reads is disconnected.
 */
static int dispatch_answer_directly(Peer *peer, Message *answer) {
        if (peer->dead)
                return 0;
        if (bus_queue_owed(peer, answer, NULL) == CONNECTION_E_QUOTA)
                peer_doom(peer, answer, "an answer of the bus's end of its connection");
        return 0;
}

int bus_reply_unknown_method(Bus *bus, Peer *peer, Message *m) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *error = NULL;
        const char *interface = message_get_interface(m);
        const char *signature = message_get_signature(m);
        char text[512];
        int r;

        snprintf(text, sizeof(text), "Method \"%s\" with signature \"%s\" on interface \"%s\" doesn't exist\n",
                 message_get_member(m) ?: "", signature ? signature : "", interface ? interface : "(null)");
        r = message_builder_new(MESSAGE_ERROR, &b);
        if (r == 0)
                r = message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED);
        if (r == 0)
                r = message_builder_set_reply_serial(b, message_get_serial(m));
        if (r == 0)
                r = message_builder_set_error_name(b, bus_error_name(BUS_ERROR_UNKNOWN_METHOD));
        if (r == 0)
                r = message_builder_append_basic(b, 's', text);
        if (r == 0)
                r = message_builder_finish(b, &error);
        if (r != 0)
                return r < 0 ? r : -EINVAL;
        return dispatch_answer_directly(peer, error);
}

/* A reply or error without a destination answers nobody and is dropped. */
static int dispatch_without_destination(Bus *bus, Peer *sender, Message *m) {
        if (message_get_type(m) != MESSAGE_METHOD_CALL)
                return 0;
        return bus_reply_unknown_method(bus, sender, m);
}

#define DISPATCH_PEER_INTERFACE "org.freedesktop.DBus.Peer"

static bool dispatch_is_for_the_bus_connection(Message *m) {
        const char *interface = message_get_interface(m);

        return !message_get_destination(m) && interface && strcmp(interface, DISPATCH_PEER_INTERFACE) == 0;
}

/*
 * A message on org.freedesktop.DBus.Peer without a destination is for the
 * bus's end of the sender's connection, as in dbus-daemon, whose libdbus
 * answers it before the bus routes anything (whatever its type and flags,
 * from a monitor or before Hello too): Ping and GetMachineId are
 * answered, anything else gets UnknownMethod, a signal too; the answer
 * has no sender, and no subscriber or monitor sees either message. So a
 * signal on that interface is never broadcast.
 */
static int dispatch_answer_peer_interface(Bus *bus, Peer *peer, Message *m) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *answer = NULL;
        const char *member = message_get_member(m), *sender = message_get_sender(m);
        bool call = message_get_type(m) == MESSAGE_METHOD_CALL;
        bool ping = call && member && strcmp(member, "Ping") == 0;
        bool machine_id = call && member && strcmp(member, "GetMachineId") == 0;
        int r;

        r = message_builder_new(ping || machine_id ? MESSAGE_METHOD_RETURN : MESSAGE_ERROR, &b);
        if (r == 0)
                r = message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED);
        if (r == 0)
                r = message_builder_set_reply_serial(b, message_get_serial(m));
        /* libdbus addresses its answer to the sender field the client wrote, if any. */
        if (r == 0 && sender)
                r = message_builder_set_destination(b, sender);
        if (r == 0 && machine_id)
                r = message_builder_append_basic(b, 's', bus->machine_id);
        if (r == 0 && !ping && !machine_id) {
                r = message_builder_set_error_name(b, bus_error_name(BUS_ERROR_UNKNOWN_METHOD));
                if (r == 0)
                        r = message_builder_append_basic(b, 's', "Unknown method invoked on "
                                                                  DISPATCH_PEER_INTERFACE " interface");
        }
        if (r == 0)
                r = message_builder_finish(b, &answer);
        if (r != 0)
                return r < 0 ? r : -EINVAL;
        return dispatch_answer_directly(peer, answer);
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
        Peer *recipient;
        int r;

        if (sender->dead)
                return CONNECTION_E_CLOSED;
        if (dispatch_is_for_the_bus_connection(m))
                return dispatch_answer_peer_interface(bus, sender, m);
        if (!sender->registered)
                return bus->hooks->hello(bus, sender, m);
        if (sender->monitor)
                return CONNECTION_E_CLOSED;
        r = dispatch_stamp(sender, m);
        if (r < 0)
                return r;

        destination = message_get_destination(m);
        if (!destination)
                return message_get_type(m) == MESSAGE_SIGNAL ? dispatch_broadcast_captured(bus, sender, m) :
                                                               dispatch_without_destination(bus, sender, m);
        if (strcmp(destination, BUS_DRIVER_NAME) == 0)
                return dispatch_to_driver(bus, sender, m);
        recipient = bus_lookup_peer(bus, destination);
        if (!recipient || recipient->monitor)
                /* Nobody owns it: bus activation decides, and captures m (activation/activate.c). */
                return bus->hooks->activate(bus, sender, m, destination);
        return dispatch_unicast(bus, sender, recipient, m, false);
}

int bus_on_reply_timeout(LoopTimer *timer, void *userdata) {
        Bus *bus = userdata;
        ReplyEvent event;

        while (reply_registry_pop_expired(bus->replies, loop_now(), &event) == 0)
                (void) dispatch_error_to_caller(bus, event.caller->peer, event.serial, BUS_ERROR_NO_REPLY,
                                                "Message did not receive a reply (timeout by message bus)");
        return bus_arm_reply_timer(bus);
}
