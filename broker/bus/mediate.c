/*
 * The mediation seam. Every message the bus routes passes through
 * mediate_message() exactly once per recipient: unicast method calls and
 * signals, each recipient of a broadcast (match rules, eavesdroppers),
 * and every expected reply or error on its way back, each with its route
 * (MediateRoute: dbus-daemon's rules treat requested replies and
 * eavesdropping apart). Messages to the bus driver pass with receiver ==
 * NULL, messages from it with sender == NULL. Monitors' copies pass too
 * (MEDIATE_ROUTE_MONITOR): like an eavesdropper, a monitor gets a copy
 * only if its label could have received the message as its recipient,
 * descriptors included. With Smack, the recipient of a unicast or a
 * reply is spared a descriptor its kernel would certainly refuse (which
 * would make its library hang up): the message is refused instead
 * (MEDIATE_E_UNRECEIVABLE, recipient_receives_fds()).
 *
 * The decision itself is broker/security's (busconfig <policy> first, then
 * MSSF mediation by Smack label and token, see broker/mediation for the
 * threat model); it is a pure function of the peers, the message and the
 * policy snapshot apart from the Smack oracle's cached kernel answers.
 * This file adapts it to the router and logs each denial once, with
 * structured journal fields and a rate limit, so the router stays free of
 * policy.
 *
 * The peers arrive as const: routing does not change them. The checks
 * keep a per-peer cache of the names a peer owns, which they refresh in
 * place; that cache is the only thing written through these pointers.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bus-error.h"
#include "bus.h"
#include "log.h"
#include "loop.h"
#include "mediate.h"
#include "message.h"
#include "ratelimit.h"
#include "smack-fd.h"

/* At most 50 denial lines per 10 s, then one line saying how many were held back. */
static RateLimit denial_log = RATELIMIT_INIT(10ull * 1000 * 1000, 50);

/* Allowed, with nothing needed and no text: the verdict's 1.3 KiB text is a
 * string, cleared by its first byte rather than per message in full. */
static void verdict_clear(MediateVerdict *verdict) {
        verdict->error = 0;
        verdict->text[0] = '\0';
        verdict->needs = (MediationNeeds) {};
}

static SecurityPeer *security_of(const Peer *peer) {
        return peer ? (SecurityPeer *) &peer->security : NULL;
}

static SecurityRoute security_route(MediateRoute route) {
        switch (route) {
        case MEDIATE_ROUTE_REPLY:
                return SECURITY_ROUTE_REPLY;
        case MEDIATE_ROUTE_BROADCAST:
                return SECURITY_ROUTE_BROADCAST;
        case MEDIATE_ROUTE_EAVESDROP:
                return SECURITY_ROUTE_EAVESDROP;
        case MEDIATE_ROUTE_MONITOR:
                return SECURITY_ROUTE_MONITOR;
        default:
                return SECURITY_ROUTE_UNICAST;
        }
}

static const char *or_empty(const char *s) {
        return s ? s : "";
}

/* One denial in the journal: the MSSF_* fields of mediation.h, and who sent to whom. */
static void log_denial_fields(int priority, const char *label, const char *token, const char *destination,
                              const char *member, const char *reason, const Peer *sender,
                              const Peer *receiver, const char *text) {
        char label_field[300], token_field[300], destination_field[300], member_field[560];
        char reason_field[64], from[64], to[64];
        uint64_t held = 0;

        if (!ratelimit_below(&denial_log, loop_now(), &held))
                return;
        if (held > 0)
                log_warning("%llu more denials were not logged (rate limit)", (unsigned long long) held);
        snprintf(label_field, sizeof(label_field), "MSSF_LABEL=%s", label);
        snprintf(token_field, sizeof(token_field), "MSSF_TOKEN=%s", token);
        snprintf(destination_field, sizeof(destination_field), "MSSF_DESTINATION=%s", destination);
        snprintf(member_field, sizeof(member_field), "MSSF_MEMBER=%s", member);
        snprintf(reason_field, sizeof(reason_field), "MSSF_REASON=%s", reason);
        snprintf(from, sizeof(from), "MSSF_SENDER=%s", sender ? sender->unique_name : BUS_DRIVER_NAME);
        snprintf(to, sizeof(to), "MSSF_RECEIVER=%s", receiver ? receiver->unique_name : BUS_DRIVER_NAME);
        const char *const fields[] = { label_field, token_field, destination_field, member_field, reason_field,
                                       from, to, NULL };
        log_fields(priority, 0, fields, "%s", text);
}

static void log_denial(const SecurityVerdict *v, const Peer *sender, const Peer *receiver) {
        const MediationVerdict *m = &v->mssf;

        if (v->layer != SECURITY_LAYER_MSSF) {
                log_denial_fields(LOG_NOTICE, "", "", "", "", "busconfig", sender, receiver, v->text);
                return;
        }
        log_denial_fields(LOG_WARNING, or_empty(m->label), or_empty(m->token), or_empty(m->destination),
                          m->member, or_empty(mediation_reason_to_string(m->reason)), sender, receiver, v->text);
}

static int deny(const SecurityVerdict *v, const Peer *sender, const Peer *receiver,
                MediateVerdict *ret_verdict) {
        ret_verdict->error = BUS_ERROR_ACCESS_DENIED;
        snprintf(ret_verdict->text, sizeof(ret_verdict->text), "%s", v->text);
        /* dbus-daemon logs busconfig denials on the system bus, and those its log="true" rules ask for. */
        log_denial(v, sender, receiver);
        return MEDIATE_E_DENIED;
}

/* "interface.member" of m, or its member, or "" (a reply): the log's MSSF_MEMBER. */
static void message_member(Message *m, char *buffer, size_t size) {
        const char *interface = message_get_interface(m), *member = message_get_member(m);

        snprintf(buffer, size, "%s%s%s", interface ? interface : "", interface && member ? "." : "",
                 member ? member : "");
}

/*
 * recipient_receives_fds() said no (judged: a label was read, so set):
 * the sender's AccessDenied names both labels, logged like any denial.
 */
static int deny_fd(const Peer *sender, const Peer *recipient, Message *m, size_t index,
                   const SmackFdLabel *judged, MediateVerdict *ret_verdict) {
        const char *label = recipient->security.mssf.label->text;
        const char *destination = message_get_destination(m);
        char member[512];

        ret_verdict->error = BUS_ERROR_ACCESS_DENIED;
        snprintf(ret_verdict->text, sizeof(ret_verdict->text),
                 "Rejected a message for \"%s\" (Smack label \"%s\"): its descriptor %zu is labelled \"%s\", "
                 "to which that label has no \"%s\" access, so the recipient's kernel would refuse it",
                 recipient->unique_name, label, index, judged->label->text, judged->access);
        message_member(m, member, sizeof(member));
        log_denial_fields(LOG_WARNING, label, "", destination ? destination : recipient->unique_name, member,
                          "fd", sender, recipient, ret_verdict->text);
        return MEDIATE_E_UNRECEIVABLE;
}

/*
 * An observer's copy carrying descriptors: with Smack, only if its label
 * could receive every one (smack_fd_receivable()). Otherwise the kernel
 * would refuse them at its recvmsg(), libdbus and sd-bus would hang up,
 * and any app whose label reaches a monitor could disconnect it by
 * passing a file of its own, and so blind whoever watches the bus.
 * Fails closed.
 */
static int observer_receives_fds(const Peer *observer, Message *m, MediateVerdict *ret_verdict) {
        SmackOracle *oracle = security_get_oracle(observer->bus->security);
        const SmackLabel *label = observer->security.mssf.label;
        size_t n_fds = 0;
        const int *fds = message_get_unix_fds(m, &n_fds);

        if (n_fds == 0 || !oracle || !smack_oracle_has_smack(oracle))
                return 0;
        for (size_t i = 0; i < n_fds; i++) {
                int r = label ? smack_fd_receivable(oracle, label, fds[i]) : -EINVAL;

                if (r <= 0) {
                        ret_verdict->error = BUS_ERROR_ACCESS_DENIED;
                        snprintf(ret_verdict->text, sizeof(ret_verdict->text),
                                 "Withheld from an observer: label \"%s\" could not receive descriptor %zu "
                                 "(%s)", label ? label->text : "", i, r < 0 ? strerror(-r) : "Smack");
                        return MEDIATE_E_DENIED;
                }
        }
        return 0;
}

/*
 * A unicast (a call, a signal, a reply) carrying a descriptor its
 * recipient could certainly not receive: refused here, with an error its
 * sender can read, instead of delivered to a recipient whose kernel
 * refuses it at recvmsg() (smack_file_receive), whose library then hangs
 * up, so that any app whose label reaches a service could disconnect it
 * with one message. Certainly: the descriptor's label was
 * read and the Smack rules deny the recipient's label the access its mode
 * needs, and the recipient did not hold CAP_MAC_OVERRIDE when it
 * connected (creds-caps.c), with which the kernel lets anything through.
 * A descriptor whose label cannot be read through it (an O_PATH one, an
 * inode the kernel keeps private such as an eventfd's), or an oracle that
 * could not answer, is delivered and judged by the kernel at receipt, as
 * before: refusing it would refuse descriptors the kernel lets through
 * (floor-labelled anonymous inodes), and the worst that delivery does is
 * what every bus did. Observers are judged apart, by label alone and
 * failing closed (observer_receives_fds()). A broadcast's subscriber is
 * judged the same way: refused, its copy is withheld (and logged), as
 * broadcasts are never answered with errors; the others get theirs.
 */
static int recipient_receives_fds(const Peer *sender, const Peer *recipient, Message *m,
                                  MediateVerdict *ret_verdict) {
        SmackOracle *oracle = security_get_oracle(recipient->bus->security);
        const SmackLabel *label = recipient->security.mssf.label;
        size_t n_fds = 0;
        const int *fds = message_get_unix_fds(m, &n_fds);

        if (n_fds == 0 || !oracle || !smack_oracle_has_smack(oracle) || !label || recipient->creds.mac_override)
                return 0;
        for (size_t i = 0; i < n_fds; i++) {
                SmackFdLabel judged;

                if (smack_fd_check(oracle, label, fds[i], &judged) == SMACK_FD_E_DENIED)
                        return deny_fd(sender, recipient, m, i, &judged, ret_verdict);
        }
        return 0;
}

int mediate_message(const Peer *sender, const Peer *receiver, Message *m, MediateRoute route,
                    MediateVerdict *ret_verdict) {
        const Peer *any = sender ? sender : receiver;
        SecurityVerdict v;

        verdict_clear(ret_verdict);
        if (!any || !any->bus->security) {
                ret_verdict->needs.known = true;        /* no policy: nothing is needed */
                return 0;
        }
        if (security_check_message(any->bus->security, security_of(sender), security_of(receiver), m,
                                   security_route(route), &v) == 0) {
                ret_verdict->needs = v.mssf.needs;
                if ((route == MEDIATE_ROUTE_EAVESDROP || route == MEDIATE_ROUTE_MONITOR) && receiver)
                        return observer_receives_fds(receiver, m, ret_verdict);
                if ((route == MEDIATE_ROUTE_UNICAST || route == MEDIATE_ROUTE_REPLY ||
                     route == MEDIATE_ROUTE_BROADCAST) && receiver)
                        return recipient_receives_fds(sender, receiver, m, ret_verdict);
                return 0;
        }
        if (route == MEDIATE_ROUTE_EAVESDROP || route == MEDIATE_ROUTE_MONITOR) {
                /* A copy withheld from an observer: nothing to log (mediate.h). */
                ret_verdict->error = BUS_ERROR_ACCESS_DENIED;
                snprintf(ret_verdict->text, sizeof(ret_verdict->text), "%s", v.text);
                return MEDIATE_E_DENIED;
        }
        return deny(&v, sender, receiver, ret_verdict);
}

static bool is_reply(Message *m) {
        uint8_t type = message_get_type(m);

        return type == MESSAGE_METHOD_RETURN || type == MESSAGE_ERROR;
}

int mediate_observer_reply(const Peer *sender, const Peer *observer, Message *m,
                           const MediationNeeds *reply_needs, MediateVerdict *ret_verdict) {
        SecurityVerdict v;

        verdict_clear(ret_verdict);
        if (!sender || !observer->bus->security || !is_reply(m))
                return 0;
        if (security_check_observer_reply(observer->bus->security, security_of(observer), m, reply_needs,
                                          &v) == 0)
                return 0;
        ret_verdict->error = BUS_ERROR_ACCESS_DENIED;
        snprintf(ret_verdict->text, sizeof(ret_verdict->text), "%s", v.text);
        return MEDIATE_E_DENIED;
}

int mediate_activation(const Peer *sender, const char *name, Message *m, MediateVerdict *ret_verdict) {
        SecurityVerdict v;

        verdict_clear(ret_verdict);
        if (!sender->bus->security)
                return 0;
        if (security_check_activation(sender->bus->security, security_of(sender), name, m, &v) == 0)
                return 0;
        return deny(&v, sender, NULL, ret_verdict);
}

int mediate_own(const Peer *peer, const char *name, MediateVerdict *ret_verdict) {
        SecurityVerdict v;
        int r;

        verdict_clear(ret_verdict);
        if (!peer->bus->security)
                return 0;
        r = security_check_own(peer->bus->security, security_of(peer), name, &v);
        if (r == 0)
                return 0;
        if (r < 0) {
                ret_verdict->error = BUS_ERROR_NO_MEMORY;
                snprintf(ret_verdict->text, sizeof(ret_verdict->text), "Out of memory");
                return MEDIATE_E_DENIED;
        }
        return deny(&v, peer, NULL, ret_verdict);
}

int mediate_monitor(const Peer *peer, MediateVerdict *ret_verdict) {
        char why[1024];

        verdict_clear(ret_verdict);
        if (!peer->bus->security || security_check_monitor(peer->bus->security, security_of(peer), why, sizeof(why)))
                return 0;
        ret_verdict->error = BUS_ERROR_ACCESS_DENIED;
        snprintf(ret_verdict->text, sizeof(ret_verdict->text), "%s", why);
        log_notice("%s", why);
        return MEDIATE_E_DENIED;
}

int mediate_connect(const Peer *peer, MediateVerdict *ret_verdict) {
        char why[1024];

        verdict_clear(ret_verdict);
        if (!peer->bus->security)
                return 0;
        /* As dbus-daemon: the groups NSS gives the uid, not the kernel's (peer.c looked them up). */
        if (security_check_connect(peer->bus->security, peer->creds.uid, peer->creds.nss_groups,
                                   peer->creds.n_nss_groups, why, sizeof(why)))
                return 0;
        ret_verdict->error = BUS_ERROR_ACCESS_DENIED;
        snprintf(ret_verdict->text, sizeof(ret_verdict->text), "%s", why);
        log_notice("Refused a connection: %s", why);
        return MEDIATE_E_DENIED;
}
