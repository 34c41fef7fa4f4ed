/*
 * Peers: one per accepted connection, from accept to the end of the
 * event batch in which it disconnected.
 *
 * A peer owns its connection, its kernel credentials (read once, here,
 * never refreshed) and its per-peer registry states (names, match rules,
 * pending replies). Before Hello it counts as incomplete and an
 * authentication timer runs; anything but Hello then disconnects it.
 *
 * Disconnection is two-phase: peer_disconnect() detaches the peer from
 * every registry and emits what others must see (NameLost/NameOwnerChanged,
 * NoReply errors to callers waiting on it) at once, but the memory lives
 * on in Bus.dead until the loop's post phase, because the current epoll
 * batch may still hold events that point at it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "bus-error.h"
#include "bus-hooks.h"
#include "bus-quota.h"
#include "bus.h"
#include "config.h"
#include "creds-caps.h"
#include "dispatch.h"
#include "log.h"
#include "mediate.h"
#include "message.h"
#include "ratelimit.h"

/* Which error dbus-daemon gives a message of unknown type for destination; text in text. */
static int peer_unknown_type_error(Peer *peer, Message *m, const char *destination, char *text, size_t size) {
        Bus *bus = peer->bus;
        Peer *owner;

        snprintf(text, size, "Message bus will not accept messages of unknown type\n");
        if (strcmp(destination, BUS_DRIVER_NAME) == 0)
                return BUS_ERROR_ACCESS_DENIED;
        owner = bus_lookup_peer(bus, destination);
        if (owner && !owner->monitor)
                return BUS_ERROR_ACCESS_DENIED;
        /* Nobody owns it: dbus-daemon looks for an owner (or a start) before it judges the type. */
        if (message_get_flags(m) & MESSAGE_FLAG_NO_AUTO_START) {
                snprintf(text, size, "Name \"%s\" does not exist", destination);
                return BUS_ERROR_NAME_HAS_NO_OWNER;
        }
        if (destination[0] != ':' && bus->hooks->activatable(bus, destination))
                return BUS_ERROR_ACCESS_DENIED; /* what the caller would get once it started */
        snprintf(text, size, "The name %s was not provided by any .service files", destination);
        return BUS_ERROR_SERVICE_UNKNOWN;
}

/*
 * A message of a type this bus does not know (broker/wire parsed and
 * validated it; takes m). The specification says to ignore it, and it
 * is routed nowhere: no recipient, no eavesdropper, no match rule, no
 * activation, and not even a monitor sees it (dbus-daemon 1.14 shows
 * monitors the addressed ones; a monitoring tool need not understand a
 * type nobody may send). Like dbus-daemon, one that names a destination
 * is answered with an error (whatever its flags: NO_REPLY_EXPECTED
 * means nothing for a type without replies), before Hello too if it is
 * for the driver, and the connection stays; before Hello, one for
 * anybody else disconnects, as from dbus-daemon; one without a
 * destination is dropped silently.
 */
static int peer_on_unknown_type(Peer *peer, Message *message) {
        _cleanup_(message_unrefp) Message *m = message, *error = NULL;
        const char *destination = message_get_destination(m);
        char text[512];
        int code, r;

        if (peer->dead || peer->monitor)
                return CONNECTION_E_CLOSED;     /* a monitor may send nothing (dispatch.c) */
        if (!destination)
                return 0;
        if (!peer->registered && strcmp(destination, BUS_DRIVER_NAME) != 0)
                return CONNECTION_E_CLOSED;
        if (peer->registered) {
                r = message_stamp_sender(m, peer->unique_name);
                if (r < 0)
                        return r;
        }
        code = peer_unknown_type_error(peer, m, destination, text, sizeof(text));
        r = bus_error_new(m, bus_error_name(code), text, &error);
        if (r < 0)
                return r;
        return bus_send_from_driver(peer->bus, peer, error);
}

/*
 * As dbus-daemon's allow_unix_user check, once SASL succeeded and before
 * any message: a uid NSS does not know is refused (its groups cannot be
 * known), then the <allow user=>/<allow group=> rules judge the uid and,
 * where a rule names a group, the groups NSS gives it (not the kernel's).
 * NSS's answers come from bus->userdb while they are true. A refused
 * connection is closed, as dbus-daemon closes it. 0, or
 * CONNECTION_E_CLOSED.
 */
static int peer_check_connect(Peer *peer) {
        MediateVerdict verdict;
        int r;

        if (peer->connect_checked)
                return 0;
        /* The groups only where a connect rule names one: they change nothing else. */
        if (peer->bus->security && security_connect_needs_groups(peer->bus->security))
                r = userdb_groups(peer->bus->userdb, peer->creds.uid, &peer->creds.nss_groups,
                                  &peer->creds.n_nss_groups);
        else
                r = userdb_user(peer->bus->userdb, peer->creds.uid);
        if (r == CREDS_E_NO_USER)
                log_notice("Refused a connection: uid %u has no passwd entry, so its groups cannot be known",
                           (unsigned) peer->creds.uid);
        else if (r < 0)
                log_warning_errno(r, "Refused a connection: the groups of uid %u cannot be read",
                                  (unsigned) peer->creds.uid);
        else if (mediate_connect(peer, &verdict) == 0) {
                peer->connect_checked = true;
                return 0;
        }
        /* The client has SASL's OK coming, as from dbus-daemon; then the socket closes. */
        (void) connection_flush(&peer->connection);
        return CONNECTION_E_CLOSED;
}

static int peer_on_message(Message *m, void *userdata) {
        Peer *peer = userdata;
        int r;

        r = peer_check_connect(peer);
        if (r != 0) {
                message_unref(m);
                return r;
        }
        if (message_type_is_known(message_get_type(m)))
                r = bus_dispatch(peer, m);
        else
                r = peer_on_unknown_type(peer, m);
        if (r < 0) {
                log_warning_errno(r, "Dropping connection %s after an internal error",
                                  peer->unique_name[0] ? peer->unique_name : "(no Hello)");
                return CONNECTION_E_CLOSED;
        }
        /* Disconnected for not reading (peer_doom) while it was sending: read no further. */
        return r == 0 && peer->doomed ? CONNECTION_E_CLOSED : r;
}

static void peer_mark_dirty(Peer *peer) {
        if (!ilist_is_linked(&peer->dirty_link))
                ilist_append(&peer->bus->dirty, &peer->dirty_link);
}

void peer_update_events(Peer *peer) {
        uint32_t events = EPOLLIN | (peer->want_out ? EPOLLOUT : 0);

        if (!peer->dead)
                (void) loop_modify_io(peer->bus->loop, &peer->source, events);
}

/*
 * pending_fd_timeout, as dbus-daemon: a connection whose received fds
 * wait for the rest of their message longer than that is dropped, so a
 * client cannot pin descriptors (and the bus's fd budget) by never
 * finishing a message. The clock starts when fds become pending and
 * stops when none are; it is not restarted while some stay pending.
 * Until Hello the auth timer bounds the connection's life already, so
 * the same timer (auth_timer, the peer's one deadline) serves both: the
 * pending-fd deadline only ever runs after Hello, or from the start when
 * auth_timeout is unlimited.
 */
static void peer_check_pending_fds(Peer *peer) {
        int64_t timeout = peer->bus->config->limits.pending_fd_timeout;
        bool pending = connection_pending_fds(&peer->connection) > 0;

        if (peer->dead || timeout < 0)
                return;
        if (!peer->registered && peer->bus->config->limits.auth_timeout >= 0)
                return;
        if (pending && !loop_timer_armed(&peer->auth_timer)) {
                if (loop_timer_arm(peer->bus->loop, &peer->auth_timer,
                                   loop_now() + (uint64_t) timeout * 1000) < 0)
                        peer_disconnect(peer);  /* fail closed: the limit cannot be kept */
        } else if (!pending)
                loop_timer_disarm(peer->bus->loop, &peer->auth_timer);
}

void peer_read(Peer *peer) {
        int r = connection_dispatch(&peer->connection, peer_on_message, peer);

        /* Authenticated with no message yet: dbus-daemon judges the connection now. */
        if (r == 0 && peer->connection.authenticated)
                r = peer_check_connect(peer);

        if (r != 0) {
                if (r < 0)
                        log_warning_errno(r, "Connection failed");
                peer_disconnect(peer);
                return;
        }
        peer_check_pending_fds(peer);
        if (!peer->dead && connection_has_output(&peer->connection))
                peer_mark_dirty(peer);
}

static int peer_on_io(LoopSource *source, uint32_t events, void *userdata) {
        Peer *peer = userdata;

        if (events & EPOLLOUT)
                peer_mark_dirty(peer);
        if (peer->doomed)
                return 0;       /* disconnected after this batch: nothing more is read */
        if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                peer_read(peer);
        return 0;
}

static int peer_on_auth_timeout(LoopTimer *timer, void *userdata) {
        Peer *peer = userdata;

        peer_disconnect(peer);
        return 0;
}

static size_t peer_limit(int64_t value) {
        return value < 0 ? SIZE_MAX : (size_t) value;
}

static void peer_connection_limits(const BusConfigLimits *limits, ConnectionLimits *ret) {
        *ret = (ConnectionLimits) {
                .max_incoming_bytes = peer_limit(limits->max_incoming_bytes),
                .max_incoming_unix_fds = peer_limit(limits->max_incoming_unix_fds),
                .max_outgoing_bytes = peer_limit(limits->max_outgoing_bytes),
                .max_outgoing_unix_fds = peer_limit(limits->max_outgoing_unix_fds),
                .max_message_size = peer_limit(limits->max_message_size),
                .max_message_unix_fds = peer_limit(limits->max_message_unix_fds),
        };
}

int peer_new(Bus *bus, int fd, Peer **ret) {
        _cleanup_(peer_freep) Peer *peer = NULL;
        ConnectionLimits limits;
        int r;

        peer = calloc(1, sizeof(*peer));
        if (!peer) {
                safe_close(fd);
                return -ENOMEM;
        }
        peer->bus = bus;
        peer->id = bus->next_peer_id++;
        peer->creds = CREDS_NULL;
        ilist_init(&peer->link);
        ilist_init(&peer->dirty_link);
        ilist_init(&peer->monitor_link);
        ilist_init(&peer->doomed_link);
        name_peer_state_init(&peer->names, peer, peer->unique_name);
        match_owner_init(&peer->matches, bus->matches, peer);
        reply_owner_init(&peer->replies, bus->replies, peer);
        loop_timer_init(&peer->auth_timer, peer_on_auth_timeout, peer);

        r = connection_charge_new(&peer->charge);
        if (r < 0) {
                safe_close(fd);
                return r;
        }

        r = creds_read(fd, &peer->creds);
        /*
         * Only Smack makes the bus ask (mediate.c): whether the kernel would
         * let this peer receive descriptors its label may not read.
         */
        if (r >= 0 && bus->security && security_has_smack(bus->security))
                peer->creds.mac_override = creds_caps_mac_override(peer->creds.pid, peer->creds.pidfd);
        if (r >= 0)
                r = security_peer_init(bus->security, &peer->security, peer->creds.uid, peer->creds.groups,
                                       peer->creds.n_groups, peer->creds.label, peer->unique_name, &peer->names);
        peer_connection_limits(&bus->config->limits, &limits);
        if (r >= 0)
                r = connection_init(&peer->connection, fd, &limits, peer->creds.uid,
                                    bus->auth_mechanisms, bus->guid);
        else
                connection_init(&peer->connection, fd, &limits, 0, 0, bus->guid);
        if (r < 0)
                return r;
        r = loop_add_io(bus->loop, &peer->source, fd, EPOLLIN, peer_on_io, peer);
        if (r < 0)
                return r;
        if (bus->config->limits.auth_timeout >= 0) {
                r = loop_timer_arm(bus->loop, &peer->auth_timer,
                                   loop_now() + (uint64_t) bus->config->limits.auth_timeout * 1000);
                if (r < 0)
                        return r;
        }
        ilist_append(&bus->peers, &peer->link);
        bus->n_incomplete++;
        *ret = TAKE_PTR(peer);
        return 0;
}

Peer *peer_free(Peer *peer) {
        if (!peer)
                return NULL;
        if (!peer->dead && peer->source.added)
                loop_remove_io(peer->bus->loop, &peer->source);
        loop_timer_disarm(peer->bus->loop, &peer->auth_timer);
        ilist_remove(&peer->link);
        ilist_remove(&peer->dirty_link);
        ilist_remove(&peer->monitor_link);
        ilist_remove(&peer->doomed_link);
        match_owner_deinit(&peer->matches);
        reply_owner_deinit(&peer->replies);
        while (names_release_next(peer->bus->names, &peer->names, &(NameChange) {}) == 0)
                ;
        name_peer_state_deinit(&peer->names);
        for (size_t i = 0; i < peer->n_monitor_rules; i++)
                match_rule_free(peer->monitor_rules[i]);
        free(peer->monitor_rules);
        connection_deinit(&peer->connection);
        peer_quota_release(peer);
        /* Entries it charged in others' queues outlive it. */
        connection_charge_unref(peer->charge);
        security_peer_deinit(&peer->security);
        creds_deinit(&peer->creds);
        free(peer);
        return NULL;
}

void peer_fail_owed_replies(Peer *peer) {
        Bus *bus = peer->bus;
        ReplyEvent event;

        while (reply_registry_pop_owed(&peer->replies, &event) == 0) {
                _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
                _cleanup_(message_unrefp) Message *m = NULL;
                Peer *caller = event.caller->peer;
                const char *text = "Message recipient disconnected from message bus without replying";

                if (message_builder_new(MESSAGE_ERROR, &b) < 0 ||
                    message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED) < 0 ||
                    message_builder_set_reply_serial(b, event.serial) < 0 ||
                    message_builder_set_error_name(b, bus_error_name(BUS_ERROR_NO_REPLY)) < 0 ||
                    message_builder_set_destination(b, caller->unique_name) < 0 ||
                    message_builder_set_sender(b, BUS_DRIVER_NAME) < 0 ||
                    message_builder_append_basic(b, 's', text) < 0 ||
                    message_builder_finish(b, &m) < 0)
                        continue;
                (void) bus_send_from_driver(bus, caller, m);
        }
}

/*
 * Gives up every name with the signals others expect, in dbus-daemon's
 * order: the latest request first, the unique name (the first) last.
 */
static void peer_release_names(Peer *peer) {
        Bus *bus = peer->bus;
        NameChange change;

        while (names_release_last(bus->names, &peer->names, &change) == 0)
                (void) bus->hooks->name_changed(bus, &change);
        if (!peer->monitor) {
                /* A monitor lost its unique name when it became one. */
                change = (NameChange) { .old_owner = &peer->names };
                strncpy(change.name, peer->unique_name, sizeof(change.name) - 1);
                (void) bus->hooks->name_changed(bus, &change);
        }
}

void peer_disconnect(Peer *peer) {
        Bus *bus = peer->bus;

        if (peer->dead)
                return;
        peer->dead = true;
        loop_remove_io(bus->loop, &peer->source);
        loop_timer_disarm(bus->loop, &peer->auth_timer);
        ilist_remove(&peer->dirty_link);
        ilist_remove(&peer->monitor_link);
        ilist_remove(&peer->doomed_link);
        peer_quota_leave(peer);
        if (peer->registered) {
                strmap_remove(&bus->peers_by_name, peer->unique_name);
                peer_drop_matches(peer);
                match_registry_forget_sender(bus->matches, peer->unique_name);
                peer_fail_owed_replies(peer);
                bus->hooks->peer_gone(bus, peer);
                reply_owner_deinit(&peer->replies);
                peer_release_names(peer);
                bus->n_complete--;
                uid_count_remove(&bus->complete_by_uid, peer->creds.uid);
        } else {
                bus->n_incomplete--;
                bus_update_accepting(bus);
        }
        ilist_remove(&peer->link);
        ilist_append(&bus->dead, &peer->link);
}

/* At most 20 disconnect lines per 10 s, then one saying how many were held back. */
static RateLimit peer_doom_log = RATELIMIT_INIT(10ull * 1000 * 1000, 20);

void peer_doom(Peer *peer, Message *m, const char *what) {
        const BusConfigLimits *limits = &peer->bus->config->limits;
        uint64_t held = 0;
        size_t size;
        bool label_full;

        if (peer->dead || peer->doomed)
                return;
        peer->doomed = true;
        ilist_append(&peer->bus->doomed, &peer->doomed_link);
        peer->bus->flow.disconnected++;
        /* Its label's queues together are full: counted and logged for the label (bus-quota.c). */
        label_full = peer_quota_queue_refused(peer, m, NULL, 0);
        if (!ratelimit_below(&peer_doom_log, loop_now(), &held))
                return;
        if (held > 0)
                log_warning("%llu more connections were disconnected for a full queue (rate limit)",
                            (unsigned long long) held);
        message_get_data(m, &size);
        log_warning("Disconnecting %s (uid=%u pid=%d): %s of %zu bytes does not fit %s "
                    "(%zu bytes and %zu fds waiting; max_outgoing_bytes=%lld, max_outgoing_unix_fds=%lld): "
                    "it does not read what it asked for",
                    peer->unique_name[0] ? peer->unique_name : "(no Hello)", (unsigned) peer->creds.uid,
                    (int) peer->creds.pid, what, size, label_full ? "its label's share of queues" : "its queue",
                    peer->connection.out_bytes, peer->connection.out_fds,
                    (long long) limits->max_outgoing_bytes, (long long) limits->max_outgoing_unix_fds);
}

void bus_disconnect_doomed(Bus *bus) {
        IList *node;

        while ((node = ilist_first(&bus->doomed))) {
                ilist_remove(node);
                peer_disconnect(ILIST_ENTRY(node, Peer, doomed_link));
        }
}

void peer_drop_matches(Peer *peer) {
        match_owner_deinit(&peer->matches);
        peer->bus->n_eavesdrop_rules -= peer->n_eavesdrop_rules;
        peer->n_eavesdrop_rules = 0;
}

Peer *bus_lookup_peer(Bus *bus, const char *name) {
        NamePeerState *owner;

        if (name[0] == ':')
                return strmap_get(&bus->peers_by_name, name);
        owner = names_get_owner(bus->names, name);
        return owner ? owner->peer : NULL;
}

bool peer_is_privileged(const Peer *peer) {
        return peer->creds.uid == 0 || peer->creds.uid == geteuid();
}
