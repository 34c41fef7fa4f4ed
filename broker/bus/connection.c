/*
 * A client connection's byte stream, in both directions.
 *
 * Input: an authenticated connection with nothing pending reads into one
 * scratch buffer shared by the whole (single-threaded) bus, so an idle
 * connection holds no input buffer and a busy one reads up to 64 KiB per
 * recvmsg(); only the tail of a message that has not fully arrived is
 * copied into the connection's own buffer (grown for a large message,
 * freed once empty). SASL lines are fed to
 * the auth state machine until BEGIN, and from then on messages are
 * framed with message_frame_size() and parsed in place by
 * message_parse(), which copies them into the Message: no other copy, no
 * other allocation per message. Descriptors arrive with SCM_RIGHTS
 * (MSG_CMSG_CLOEXEC); each is tagged with the stream offset of the read
 * it came with, and a message takes as many as its UNIX_FDS field says,
 * in arrival order, from those that arrived by its last byte (the kernel
 * may return the bytes of several messages in one read, and does not say
 * where in them the fds were attached). Fds still waiting for their
 * message are "pending" (pending_fd_timeout). Truncated control data, fds without
 * NEGOTIATE_UNIX_FD, a frame or message the parser rejects, or more than
 * the quota allows: the connection is dropped (only this one).
 *
 * Output: a ring of Message references (no copy, no allocation per
 * message once the ring has grown), written with one sendmsg() of up to
 * CONNECTION_IOV_MAX messages per call; a message carrying fds starts a
 * new sendmsg() so its SCM_RIGHTS land on its first byte. Partial writes
 * keep an offset into the head message. Quotas are checked when a
 * message is queued (the connection's own, and the share of its label's
 * connections it may be counted in), so a slow reader never blocks the
 * sender: the message is refused and the caller tells the sender
 * (LimitsExceeded).
 *
 * Trust: nothing the peer sends is trusted; limits come from the bus
 * configuration.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "connection.h"
#include "message.h"

#define CONNECTION_IN_MIN 4096
#define CONNECTION_IN_IDLE_MAX (64 * 1024)
#define CONNECTION_READS_PER_DISPATCH 8
#define CONNECTION_IOV_MAX 64
#define CONNECTION_FDS_PER_READ 253     /* SCM_MAX_FD */
#define CONNECTION_OUT_MIN 8
#define CONNECTION_SCRATCH_SIZE (64 * 1024)

static uint8_t connection_scratch[CONNECTION_SCRATCH_SIZE];
static bool connection_scratch_busy;

int connection_init(Connection *c, int fd, const ConnectionLimits *limits,
                    uid_t peer_uid, unsigned mechanisms, const char *guid) {
        *c = (Connection) { .fd = fd, .limits = *limits };
        auth_init(&c->auth, peer_uid, mechanisms, true, guid);
        /* SASL needs its own buffer: lines are small, and scratch is for the authenticated. */
        c->in = malloc(CONNECTION_IN_MIN);
        if (!c->in)
                return -ENOMEM;
        c->in_size = CONNECTION_IN_MIN;
        return 0;
}

int connection_charge_new(ConnectionCharge **ret) {
        ConnectionCharge *charge = calloc(1, sizeof(*charge));

        if (!charge)
                return -ENOMEM;
        charge->n_ref = 1;
        *ret = charge;
        return 0;
}

ConnectionCharge *connection_charge_unref(ConnectionCharge *charge) {
        if (charge && --charge->n_ref == 0)
                free(charge);
        return NULL;
}

/* The head entry is written (or dropped): release it and its charge. */
static void connection_out_pop(Connection *c) {
        ConnectionOut *entry = &c->out[c->out_head];
        size_t size, n_fds;

        message_get_data(entry->message, &size);
        message_get_unix_fds(entry->message, &n_fds);
        c->out_bytes -= size;
        c->out_fds -= n_fds;
        if (c->share) {
                c->share->bytes -= size;
                c->share->fds -= n_fds;
        }
        if (entry->charge) {
                entry->charge->bytes -= size;
                entry->charge->fds -= n_fds;
                connection_charge_unref(entry->charge);
        }
        message_unref(entry->message);
        *entry = (ConnectionOut) {};
        c->out_offset = 0;
        c->out_head = (c->out_head + 1) % c->out_size;
        c->out_count--;
}

/* Drops the first n received fds from the queue (not closing them). */
static void connection_forget_in_fds(Connection *c, size_t n) {
        if (n == 0)
                return;
        memmove(c->in_fds, c->in_fds + n, (c->n_in_fds - n) * sizeof(int));
        memmove(c->in_fds_pos, c->in_fds_pos + n, (c->n_in_fds - n) * sizeof(uint64_t));
        c->n_in_fds -= n;
}

static void connection_close_in_fds(Connection *c, size_t n) {
        for (size_t i = 0; i < n; i++)
                safe_close(c->in_fds[i]);
        connection_forget_in_fds(c, n);
}

void connection_deinit(Connection *c) {
        connection_close_in_fds(c, c->n_in_fds);
        while (c->out_count > 0)
                connection_out_pop(c);
        connection_set_share(c, NULL);
        free(c->in_fds);
        free(c->in_fds_pos);
        free(c->out);
        if (c->in_scratch) {
                c->in = c->in_saved;
                connection_scratch_busy = false;
        }
        free(c->in);
        safe_close(c->fd);
        *c = (Connection) { .fd = -1 };
}

/* Read into the shared scratch buffer if nothing is pending and nobody else uses it. */
static void connection_enter_scratch(Connection *c) {
        if (!c->authenticated || c->in_scratch || connection_scratch_busy || c->in_start != c->in_end)
                return;
        c->in_stream_pos += c->in_end;
        c->in_start = c->in_end = 0;
        c->in_saved = c->in;
        c->in_saved_size = c->in_size;
        c->in = connection_scratch;
        c->in_size = CONNECTION_SCRATCH_SIZE;
        c->in_scratch = true;
        connection_scratch_busy = true;
}

/* Back to the own buffer, keeping what is pending (and room for want bytes). */
static int connection_leave_scratch(Connection *c, size_t want) {
        size_t pending = c->in_end - c->in_start, size = c->in_saved_size;
        uint8_t *own = c->in_saved;

        if (!c->in_scratch)
                return 0;
        if (want < pending)
                want = pending;
        if (want > size) {
                size = want > CONNECTION_IN_MIN ? want : CONNECTION_IN_MIN;
                own = realloc(own, size);
                if (!own)
                        return -ENOMEM;
        }
        if (pending > 0)
                memcpy(own, c->in + c->in_start, pending);
        c->in_stream_pos += c->in_start;
        c->in_start = 0;
        c->in_end = pending;
        c->in = own;
        c->in_size = size;
        c->in_saved = NULL;
        c->in_saved_size = 0;
        c->in_scratch = false;
        connection_scratch_busy = false;
        return 0;
}

/* Make room for at least want unconsumed bytes plus some free space. */
static int connection_in_reserve(Connection *c, size_t want) {
        size_t pending = c->in_end - c->in_start;
        size_t size;
        uint8_t *in;
        int r;

        if (c->in_scratch && want > c->in_size) {
                r = connection_leave_scratch(c, want);
                if (r < 0)
                        return r;
                pending = c->in_end - c->in_start;
        }
        size = c->in_size;

        if (c->in_start > 0 && (c->in_end == c->in_size || pending + CONNECTION_IN_MIN / 4 > c->in_size - c->in_start)) {
                memmove(c->in, c->in + c->in_start, pending);
                c->in_stream_pos += c->in_start;
                c->in_start = 0;
                c->in_end = pending;
        }
        if (want < pending + 1)
                want = pending + 1;
        if (want <= size)
                return 0;
        if (size == 0)
                size = CONNECTION_IN_MIN;
        while (size < want)
                size *= 2;
        in = realloc(c->in, size);
        if (!in)
                return -ENOMEM;
        c->in = in;
        c->in_size = size;
        return 0;
}

/*
 * Give the own buffer back once it is empty: an authenticated connection
 * reads into scratch again next time.
 */
static void connection_in_trim(Connection *c) {
        if (c->in_scratch || !c->authenticated || c->in_start != c->in_end)
                return;
        c->in_stream_pos += c->in_end;
        c->in_start = c->in_end = 0;
        free(c->in);
        c->in = NULL;
        c->in_size = 0;
}

static int connection_take_fds(Connection *c, const int *fds, size_t n, uint64_t pos) {
        size_t total = c->n_in_fds + n;
        bool ok = c->auth.unix_fd && c->authenticated && total <= c->limits.max_incoming_unix_fds;

        if (ok && total > c->in_fds_size) {
                int *new_fds = realloc(c->in_fds, total * sizeof(int));
                uint64_t *new_pos;

                if (new_fds)
                        c->in_fds = new_fds;
                new_pos = new_fds ? realloc(c->in_fds_pos, total * sizeof(uint64_t)) : NULL;
                if (new_pos) {
                        c->in_fds_pos = new_pos;
                        c->in_fds_size = total;
                }
                ok = new_fds && new_pos;
        }
        if (!ok) {
                for (size_t i = 0; i < n; i++)
                        safe_close(fds[i]);
                return CONNECTION_E_CLOSED;
        }
        for (size_t i = 0; i < n; i++) {
                c->in_fds[c->n_in_fds] = fds[i];
                c->in_fds_pos[c->n_in_fds++] = pos;
        }
        return 0;
}

/*
 * One recvmsg(). 0: got bytes; CONNECTION_E_AGAIN: nothing;
 * CONNECTION_E_CLOSED: EOF/error. *ret_short says the read did not fill
 * the buffer, so the socket is most likely empty: level-triggered epoll
 * reports anything left, and the extra recvmsg() that would only return
 * EAGAIN is saved.
 */
static int connection_fill(Connection *c, bool *ret_short) {
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(int) * CONNECTION_FDS_PER_READ)];
        } control;
        struct iovec iov = { c->in + c->in_end, c->in_size - c->in_end };
        struct msghdr mh = {
                .msg_iov = &iov, .msg_iovlen = 1,
                .msg_control = &control, .msg_controllen = sizeof(control),
        };
        uint64_t pos = c->in_stream_pos + c->in_end;
        ssize_t n;
        int r = 0;

        n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? CONNECTION_E_AGAIN : CONNECTION_E_CLOSED;
        for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(&mh); cmsg; cmsg = CMSG_NXTHDR(&mh, cmsg)) {
                if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
                        size_t n_fds = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                        int fds[CONNECTION_FDS_PER_READ];

                        memcpy(fds, CMSG_DATA(cmsg), n_fds * sizeof(int));
                        if (r == 0)
                                r = connection_take_fds(c, fds, n_fds, pos);
                        else
                                for (size_t i = 0; i < n_fds; i++)
                                        safe_close(fds[i]);
                }
        }
        if (r != 0 || (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)))
                return CONNECTION_E_CLOSED;
        if (n == 0)
                return CONNECTION_E_CLOSED;
        *ret_short = (size_t) n < iov.iov_len;
        c->in_end += (size_t) n;
        return 0;
}

/* Queue SASL output and try to write it at once; it is tiny. */
static int connection_auth(Connection *c) {
        size_t consumed, out_len;
        int r;

        r = auth_feed(&c->auth, c->in + c->in_start, c->in_end - c->in_start, &consumed,
                      c->auth_out + c->auth_out_len, sizeof(c->auth_out) - c->auth_out_len,
                      &out_len);
        c->in_start += consumed;
        c->auth_out_len += out_len;
        if (r == AUTH_E_FAILED)
                return CONNECTION_E_CLOSED;
        if (r == AUTH_E_DONE)
                c->authenticated = true;
        return 0;
}

/*
 * How many of the received fds the framed message at data owns: its
 * UNIX_FDS count, taken in arrival order (as libdbus does) from those
 * that came no later than its last byte. The kernel does not say where
 * in a read the descriptors were attached (one recvmsg() may return a
 * message without fds and then the one they came with), so an fd is
 * only known to have arrived by the end of its read; it is tagged with
 * the read's start, which keeps "arrived by end_pos" exact. A count
 * beyond what arrived, or beyond max_message_unix_fds, is a violation.
 */
static int connection_claim_fds(Connection *c, const uint8_t *data, size_t size, uint64_t end_pos,
                                size_t *ret_n) {
        size_t arrived = 0;
        uint32_t declared;
        int r;

        *ret_n = 0;
        if (c->n_in_fds == 0)
                return 0;       /* message_parse() checks that it declares none */
        r = message_peek_unix_fds(data, size, &declared);
        if (r != 0)
                return r < 0 ? r : CONNECTION_E_CLOSED;
        while (arrived < c->n_in_fds && c->in_fds_pos[arrived] < end_pos)
                arrived++;
        if (declared > arrived || declared > c->limits.max_message_unix_fds)
                return CONNECTION_E_CLOSED;
        *ret_n = declared;
        return 0;
}

/* Frame and parse every complete message in the buffer. */
static int connection_parse(Connection *c, ConnectionMessageFn fn, void *userdata) {
        while (c->in_start < c->in_end) {
                size_t avail = c->in_end - c->in_start, total, n_fds = 0;
                uint64_t end_pos;
                Message *m;
                int r;

                r = message_frame_size(c->in + c->in_start, avail, c->limits.max_message_size, &total);
                if (r == MESSAGE_E_NEED_MORE)
                        return 0;
                if (r != 0)
                        return r < 0 ? r : CONNECTION_E_CLOSED;
                if (total > avail)
                        return connection_in_reserve(c, total);

                end_pos = c->in_stream_pos + c->in_start + total;
                r = connection_claim_fds(c, c->in + c->in_start, total, end_pos, &n_fds);
                if (r != 0)
                        return r;
                r = message_parse(c->in + c->in_start, total, c->in_fds, n_fds, &m);
                if (r != 0)
                        return r < 0 ? r : CONNECTION_E_CLOSED;
                /* The message owns them now: forget without closing. */
                connection_forget_in_fds(c, n_fds);
                c->in_start += total;

                r = fn(m, userdata);
                if (r != 0)
                        return r;
        }
        return 0;
}

size_t connection_pending_fds(const Connection *c) {
        size_t start = c->in_start, pending = c->n_in_fds;

        if (pending == 0 || start == c->in_end)
                return pending;
        /* The complete messages still buffered (a paused peer's) will take theirs. */
        for (;;) {
                uint32_t declared;
                size_t total;

                if (message_frame_size(c->in + start, c->in_end - start, SIZE_MAX, &total) != 0 ||
                    total > c->in_end - start ||
                    message_peek_unix_fds(c->in + start, total, &declared) != 0)
                        break;
                pending -= declared < pending ? declared : pending;
                start += total;
        }
        return pending;
}

static int connection_process(Connection *c, ConnectionMessageFn fn, void *userdata) {
        int r;

        if (!c->authenticated) {
                r = connection_auth(c);
                if (r != 0)
                        return r;
                if (!c->authenticated)
                        return 0;
        }
        return connection_parse(c, fn, userdata);
}

static int connection_dispatch_reads(Connection *c, ConnectionMessageFn fn, void *userdata) {
        int r;

        /* What a paused dispatch left behind goes first. */
        r = connection_process(c, fn, userdata);
        if (r != 0)
                return r;
        for (unsigned i = 0; i < CONNECTION_READS_PER_DISPATCH; i++) {
                bool short_read = false;
                int filled;

                connection_enter_scratch(c);
                r = connection_in_reserve(c, 0);
                if (r < 0)
                        return r;
                filled = connection_fill(c, &short_read);
                if (filled == CONNECTION_E_AGAIN)
                        break;
                /* A peer that sent and hung up still gets its messages routed. */
                r = connection_process(c, fn, userdata);
                if (r != 0)
                        return r;
                if (filled == CONNECTION_E_CLOSED)
                        return CONNECTION_E_CLOSED;
                if (!c->authenticated && c->in_end - c->in_start >= AUTH_LINE_MAX)
                        return CONNECTION_E_CLOSED;
                if (short_read)
                        break;
        }
        return 0;
}

int connection_dispatch(Connection *c, ConnectionMessageFn fn, void *userdata) {
        int r = connection_dispatch_reads(c, fn, userdata);
        int k = connection_leave_scratch(c, 0);

        if (k < 0 && r >= 0)
                r = k;
        connection_in_trim(c);
        return r;
}

static int connection_out_grow(Connection *c) {
        size_t size = c->out_size ? c->out_size * 2 : CONNECTION_OUT_MIN;
        ConnectionOut *out = malloc(size * sizeof(*out));

        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < c->out_count; i++)
                out[i] = c->out[(c->out_head + i) % c->out_size];
        free(c->out);
        c->out = out;
        c->out_size = size;
        c->out_head = 0;
        return 0;
}

/* Whether the share is full for m and c holds its even part of it already. */
static bool connection_share_full(const Connection *c, size_t size, size_t n_fds) {
        const ConnectionShare *s = c->share;
        size_t members = s->members ? s->members : 1;

        if (s->bytes + size > s->max_bytes && c->out_bytes + size > s->max_bytes / members)
                return true;
        return s->fds + n_fds > s->max_fds && c->out_fds + n_fds > s->max_fds / members;
}

int connection_queue(Connection *c, Message *m, ConnectionCharge *charge, bool share_limits) {
        size_t size, n_fds;
        int r;

        message_get_data(m, &size);
        message_get_unix_fds(m, &n_fds);
        if (n_fds > 0 && !c->auth.unix_fd)
                return CONNECTION_E_NO_FDS;
        if (c->out_bytes + size > c->limits.max_outgoing_bytes ||
            c->out_fds + n_fds > c->limits.max_outgoing_unix_fds)
                return CONNECTION_E_QUOTA;
        if (c->share && share_limits && connection_share_full(c, size, n_fds))
                return CONNECTION_E_QUOTA;
        if (c->out_count == c->out_size) {
                r = connection_out_grow(c);
                if (r < 0)
                        return r;
        }
        c->out[(c->out_head + c->out_count) % c->out_size] = (ConnectionOut) {
                .message = message_ref(m),
                .charge = charge,
        };
        c->out_count++;
        c->out_bytes += size;
        c->out_fds += n_fds;
        if (c->share) {
                c->share->bytes += size;
                c->share->fds += n_fds;
        }
        if (charge) {
                charge->n_ref++;
                charge->bytes += size;
                charge->fds += n_fds;
        }
        return 0;
}

void connection_set_share(Connection *c, ConnectionShare *share) {
        if (c->share) {
                c->share->bytes -= c->out_bytes;
                c->share->fds -= c->out_fds;
                c->share->members--;
        }
        c->share = share;
        if (share) {
                share->bytes += c->out_bytes;
                share->fds += c->out_fds;
                share->members++;
        }
}

bool connection_share_refused(const Connection *c, Message *m) {
        size_t size, n_fds;

        message_get_data(m, &size);
        message_get_unix_fds(m, &n_fds);
        return c->out_bytes + size <= c->limits.max_outgoing_bytes &&
               c->out_fds + n_fds <= c->limits.max_outgoing_unix_fds;
}

static int connection_flush_auth(Connection *c) {
        ssize_t n = send(c->fd, c->auth_out, c->auth_out_len, MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? CONNECTION_E_AGAIN : CONNECTION_E_CLOSED;
        memmove(c->auth_out, c->auth_out + n, c->auth_out_len - (size_t) n);
        c->auth_out_len -= (size_t) n;
        return c->auth_out_len > 0 ? CONNECTION_E_AGAIN : 0;
}

/* Drop written bytes from the head of the ring. */
static void connection_out_advance(Connection *c, size_t written) {
        while (written > 0) {
                size_t size, left;

                message_get_data(c->out[c->out_head].message, &size);
                left = size - c->out_offset;
                if (written < left) {
                        c->out_offset += written;
                        return;
                }
                written -= left;
                connection_out_pop(c);
        }
}

/* One sendmsg() of the head messages; fds only ever ride on a message's first byte. */
static int connection_send_some(Connection *c) {
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(int) * CONNECTION_FDS_PER_READ)];
        } control;
        struct iovec iov[CONNECTION_IOV_MAX];
        struct msghdr mh = { .msg_iov = iov };
        size_t n_iov = 0, n_fds;
        const int *fds;
        ssize_t n;

        for (size_t k = 0; k < c->out_count && n_iov < CONNECTION_IOV_MAX; k++) {
                Message *m = c->out[(c->out_head + k) % c->out_size].message;
                size_t size, skip = k == 0 ? c->out_offset : 0;
                const uint8_t *data = message_get_data(m, &size);

                fds = message_get_unix_fds(m, &n_fds);
                if (n_fds > 0 && k > 0)
                        break;
                if (n_fds > 0 && c->out_offset == 0) {
                        struct cmsghdr *cmsg;

                        mh.msg_control = &control;
                        mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
                        cmsg = CMSG_FIRSTHDR(&mh);
                        cmsg->cmsg_level = SOL_SOCKET;
                        cmsg->cmsg_type = SCM_RIGHTS;
                        cmsg->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
                        memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * n_fds);
                }
                iov[n_iov++] = (struct iovec) { (void *) (data + skip), size - skip };
        }
        mh.msg_iovlen = n_iov;
        n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? CONNECTION_E_AGAIN : CONNECTION_E_CLOSED;
        connection_out_advance(c, (size_t) n);
        return 0;
}

int connection_flush(Connection *c) {
        int r;

        if (c->auth_out_len > 0) {
                r = connection_flush_auth(c);
                if (r != 0)
                        return r;
        }
        while (c->out_count > 0) {
                r = connection_send_some(c);
                if (r != 0)
                        return r;
        }
        return 0;
}
