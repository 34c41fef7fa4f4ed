/*
 * Routing: what happens to each message a peer sends.
 *
 * In order: the first message must be Hello (a call before it gets
 * AccessDenied, as from dbus-daemon); a monitor may send nothing
 * (disconnected); the bus stamps SENDER with the peer's unique name (a
 * spoofed one is overwritten); monitors get a copy; then the message goes
 * to the driver, to one addressed peer (unicast, plus eavesdroppers), or
 * to every peer with a matching rule (broadcast); a method call without a
 * destination is answered UnknownMethod and goes nowhere. Each recipient
 * is passed through mediate_message() first, with its route.
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

void bus_monitors_capture(Bus *bus, Message *m, Peer *sender) {
        MessageArg args[MESSAGE_ARGS_MAX];
        MatchMessage mm;
        IList *node;
        const char *destination;

        if (ilist_is_empty(&bus->monitors))
                return;
        destination = message_get_destination(m);
        bus_match_message_init(&mm, m, sender, destination ? bus_lookup_peer(bus, destination) : NULL,
                               args);
        mm.recipient = NULL;
        for (node = bus->monitors.next; node != &bus->monitors; node = node->next) {
                Peer *monitor = ILIST_ENTRY(node, Peer, monitor_link);

                /* Copies are not charged: a stuck monitor must not throttle the bus. */
                if (dispatch_monitor_wants(monitor, &mm))
                        (void) bus_queue(monitor, m, NULL);
        }
}

int bus_send_from_driver(Bus *bus, Peer *peer, Message *m) {
        MediateVerdict verdict;

        if (peer->dead)
                return 0;
        if (mediate_message(NULL, peer, m, message_get_reply_serial(m) ? MEDIATE_ROUTE_REPLY :
                            MEDIATE_ROUTE_UNICAST, &verdict) != 0)
                return 0;
        bus_monitors_capture(bus, m, NULL);
        (void) bus_queue(peer, m, NULL);
        return 0;
}

typedef struct Broadcast {
        Bus *bus;
        Peer *sender;
        Message *m;
} Broadcast;

static int dispatch_broadcast_one(void *userdata, MatchOwner *owner, bool eavesdrop) {
        Broadcast *broadcast = userdata;
        Peer *recipient = owner->peer;
        MediateVerdict verdict;

        if (recipient->dead || recipient->monitor)
                return 0;
        if (mediate_message(broadcast->sender, recipient, broadcast->m,
                            eavesdrop ? MEDIATE_ROUTE_EAVESDROP : MEDIATE_ROUTE_BROADCAST, &verdict) != 0)
                return 0;
        /* A recipient over quota or without fd support just misses a broadcast. */
        (void) bus_queue(recipient, broadcast->m, broadcast->sender);
        return 0;
}

/* Every peer with a matching rule; eavesdroppers only when m has a destination. */
static int dispatch_broadcast(Bus *bus, Peer *sender, Peer *recipient, Message *m) {
        MessageArg args[MESSAGE_ARGS_MAX];
        Broadcast broadcast = { bus, sender, m };
        MatchMessage mm;

        if (match_registry_n_rules(bus->matches) == 0)
                return 0;
        bus_match_message_init(&mm, m, sender, recipient, args);
        return match_registry_dispatch(bus->matches, &mm, dispatch_broadcast_one, &broadcast);
}

int bus_broadcast_from_driver(Bus *bus, Message *m) {
        bus_monitors_capture(bus, m, NULL);
        return dispatch_broadcast(bus, NULL, NULL, m);
}

/* No such destination: bus activation decides (activate.c). */
static int dispatch_no_destination(Bus *bus, Peer *sender, Message *m, const char *destination) {
        return bus_activate(bus, sender, m, destination);
}

static bool dispatch_is_reply(Message *m) {
        uint8_t type = message_get_type(m);

        return type == MESSAGE_METHOD_RETURN || type == MESSAGE_ERROR;
}

/* Replies go only where a slot says one is expected, once. */
static int dispatch_check_reply(Bus *bus, Peer *sender, Peer *recipient, Message *m) {
        if (!dispatch_is_reply(m))
                return 0;
        if (reply_registry_take(bus->replies, &recipient->replies, &sender->replies,
                                message_get_reply_serial(m)) != 0)
                return 1;
        return 0;
}

static int dispatch_expect_reply(Bus *bus, Peer *sender, Peer *recipient, Message *m) {
        int64_t timeout = bus->config->limits.reply_timeout;
        uint64_t deadline = timeout < 0 ? UINT64_MAX : loop_now() + (uint64_t) timeout * 1000;
        size_t max = bus->config->limits.max_replies_per_connection < 0 ? SIZE_MAX :
                     (size_t) bus->config->limits.max_replies_per_connection;
        int r;

        r = reply_registry_expect(bus->replies, &sender->replies, &recipient->replies,
                                  message_get_serial(m), deadline, max);
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

static int dispatch_unicast(Bus *bus, Peer *sender, Message *m, const char *destination) {
        Peer *recipient = bus_lookup_peer(bus, destination);
        MediateVerdict verdict;
        int r;

        if (!recipient || recipient->monitor)
                return dispatch_no_destination(bus, sender, m, destination);
        if (dispatch_check_reply(bus, sender, recipient, m))
                return 0;
        if (mediate_message(sender, recipient, m, dispatch_is_reply(m) ? MEDIATE_ROUTE_REPLY :
                            MEDIATE_ROUTE_UNICAST, &verdict) != 0)
                return bus_reply_error(bus, sender, m, verdict.error, "%s", verdict.text);
        if (dispatch_expects_reply(m)) {
                r = dispatch_expect_reply(bus, sender, recipient, m);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        r = bus_queue(recipient, m, sender);
        if (r != 0)
                return dispatch_refused(bus, sender, recipient, m, r);
        if (bus->n_eavesdrop_rules == 0)
                return 0;
        return dispatch_broadcast(bus, sender, recipient, m);
}

static int dispatch_to_driver(Bus *bus, Peer *sender, Message *m) {
        MediateVerdict verdict;

        if (mediate_message(sender, NULL, m, MEDIATE_ROUTE_UNICAST, &verdict) != 0)
                return bus_reply_error(bus, sender, m, verdict.error, "%s", verdict.text);
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
        bus_monitors_capture(bus, m, sender);

        destination = message_get_destination(m);
        if (destination && strcmp(destination, BUS_DRIVER_NAME) == 0)
                return dispatch_to_driver(bus, sender, m);
        if (!destination && message_get_type(m) == MESSAGE_METHOD_CALL)
                return dispatch_call_without_destination(bus, sender, m);
        if (destination)
                return dispatch_unicast(bus, sender, m, destination);
        return dispatch_broadcast(bus, sender, NULL, m);
}

int bus_on_reply_timeout(LoopTimer *timer, void *userdata) {
        Bus *bus = userdata;
        ReplyEvent event;

        while (reply_registry_pop_expired(bus->replies, loop_now(), &event) == 0) {
                _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
                _cleanup_(message_unrefp) Message *m = NULL;
                Peer *caller = event.caller->peer;

                if (message_builder_new(MESSAGE_ERROR, &b) < 0 ||
                    message_builder_set_reply_serial(b, event.serial) < 0 ||
                    message_builder_set_error_name(b, bus_error_name(BUS_ERROR_NO_REPLY)) < 0 ||
                    message_builder_set_destination(b, caller->unique_name) < 0 ||
                    message_builder_set_sender(b, BUS_DRIVER_NAME) < 0 ||
                    message_builder_append_basic(b, 's', "Did not receive a reply. Possible causes include: "
                                                 "the remote application did not send a reply, the message bus "
                                                 "security policy blocked the reply, the reply timeout expired, "
                                                 "or the network connection was broken.") < 0 ||
                    message_builder_finish(b, &m) < 0)
                        continue;
                (void) bus_send_from_driver(bus, caller, m);
        }
        return bus_arm_reply_timer(bus);
}
