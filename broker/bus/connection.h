/* One client socket: SASL, framing, fd passing, the outgoing queue, quotas. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "auth.h"
#include "macro.h"

typedef struct Message Message;

/* Expected outcomes. */
enum {
        CONNECTION_E_CLOSED = 1,        /* hung up, or violated the protocol: drop it */
        CONNECTION_E_QUOTA,             /* queueing would exceed the outgoing quota */
        CONNECTION_E_NO_FDS,            /* the message carries fds; the peer did not negotiate them */
        CONNECTION_E_AGAIN,             /* output remains queued: wait for EPOLLOUT */
        CONNECTION_E_PAUSED,            /* the message callback asked to stop reading for now */
};

/*
 * What a sender has in other connections' outgoing queues (dbus-daemon's
 * "incoming" counter: a message counts against its sender until it is
 * written out; reported by Debug.Stats). Shared by the sender and every
 * queue entry it charged, so it outlives the sender. Nothing waits on it:
 * a sender is never slowed down by others' queues (peer.c).
 */
typedef struct ConnectionCharge {
        unsigned n_ref;
        size_t bytes;
        size_t fds;
} ConnectionCharge;

int connection_charge_new(ConnectionCharge **ret);
ConnectionCharge *connection_charge_unref(ConnectionCharge *charge);

/*
 * What the queues of several connections hold together, and how much they
 * may (the bus's per-label quotas, quota.h): each connection sharing it
 * moves it with its own out_bytes and out_fds. When a message would take
 * it past a maximum, it is refused only to a connection that holds its
 * even part of the share already: the one that does not read is refused,
 * never the others beside it, whoever filled it (another label can send
 * to a frozen connection until the share is full). And only where the
 * sender can be told (connection_queue() with limited): what the bus owes
 * a connection, or a copy it asked for, is limited by its own queue alone,
 * so a full share never disconnects a connection that reads.
 */
typedef struct ConnectionShare {
        size_t bytes;
        size_t fds;
        size_t max_bytes;
        size_t max_fds;
        size_t members;                 /* connections counted in it */
} ConnectionShare;

typedef struct ConnectionOut {
        Message *message;               /* (owned ref) */
        ConnectionCharge *charge;       /* (owned ref, nullable) the sender's */
} ConnectionOut;

typedef struct ConnectionLimits {
        size_t max_incoming_bytes;
        size_t max_incoming_unix_fds;
        size_t max_outgoing_bytes;
        size_t max_outgoing_unix_fds;
        size_t max_message_size;
        size_t max_message_unix_fds;
} ConnectionLimits;

/* Called for each parsed message; it gets a reference it must drop or keep. */
typedef int (*ConnectionMessageFn)(Message *m, void *userdata);

typedef struct Connection {
        int fd;                 /* (owned) */
        ConnectionLimits limits;
        Auth auth;
        bool authenticated;

        /*
         * input: bytes [in_start, in_end) of in are unconsumed. While a
         * dispatch reads an idle connection, in is the bus-wide scratch
         * buffer and the connection's own (nullable) one waits in in_saved.
         */
        uint8_t *in;            /* (owned unless in_scratch) */
        size_t in_size, in_start, in_end;
        uint8_t *in_saved;      /* (owned, nullable) */
        size_t in_saved_size;
        bool in_scratch;
        uint64_t in_stream_pos; /* stream offset of in[0] */
        int *in_fds;            /* (owned) received, not yet claimed by a message */
        uint64_t *in_fds_pos;   /* (owned) stream offset each fd arrived with */
        size_t n_in_fds, in_fds_size;

        /* SASL replies not yet written */
        char auth_out[512];
        size_t auth_out_len;

        /* output: a ring of message references; out_offset bytes of the head are written */
        ConnectionOut *out;     /* (owned) */
        size_t out_head, out_count, out_size;
        size_t out_offset;
        size_t out_bytes, out_fds;
        ConnectionShare *share; /* (nullable, not owned) */
} Connection;

/* Takes fd. The connection starts unauthenticated. */
int connection_init(Connection *c, int fd, const ConnectionLimits *limits,
                    uid_t peer_uid, unsigned mechanisms, const char *guid);
void connection_deinit(Connection *c);

/*
 * Reads what the socket has (a bounded amount), runs SASL until BEGIN,
 * then frames, receives fds for and parses messages, calling fn for
 * each, starting with what is buffered already. A non-zero return of fn
 * stops it and is returned: CONNECTION_E_PAUSED leaves the rest buffered
 * for the next call. Returns 0, CONNECTION_E_CLOSED, CONNECTION_E_PAUSED
 * or a negative errno.
 */
int connection_dispatch(Connection *c, ConnectionMessageFn fn, void *userdata);

/*
 * Queues a reference to m, charged to charge (nullable: the driver's) until
 * written. 0, CONNECTION_E_QUOTA (its own queue is full, or, if
 * share_limits, its share is and it holds its part of it) or
 * CONNECTION_E_NO_FDS.
 */
int connection_queue(Connection *c, Message *m, ConnectionCharge *charge, bool share_limits);

/* From now on share (nullable) counts this queue too; what it holds moves over. */
void connection_set_share(Connection *c, ConnectionShare *share);

/* After CONNECTION_E_QUOTA: whether m fits the connection's own queue, so that its share refused it. */
bool connection_share_refused(const Connection *c, Message *m);

/* Writes queued output. 0 when all is written, CONNECTION_E_AGAIN, CONNECTION_E_CLOSED. */
int connection_flush(Connection *c);

/*
 * The received descriptors whose message has not fully arrived yet
 * (dbus-daemon's "pending fds", which pending_fd_timeout limits). Fds of
 * complete messages still buffered, unread because dispatch paused,
 * do not count.
 */
size_t connection_pending_fds(const Connection *c);

static inline bool connection_has_output(const Connection *c) {
        return c->out_count > 0 || c->auth_out_len > 0;
}

static inline bool connection_unix_fd(const Connection *c) {
        return c->auth.unix_fd;
}

DEFINE_CLEANUP(ConnectionCharge *, connection_charge_unref)
