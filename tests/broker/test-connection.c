/* Unit tests for connection I/O (broker/bus/connection.c) over socketpairs. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "connection.h"
#include "message.h"

#define GUID "0123456789abcdef0123456789abcdef"

typedef struct Pair {
        Connection c;
        int peer;               /* the client's end, blocking */
        Message *got[64];
        size_t n_got;
} Pair;

static const ConnectionLimits limits_default = {
        .max_incoming_bytes = 1 << 20,
        .max_incoming_unix_fds = 16,
        .max_outgoing_bytes = 1 << 20,
        .max_outgoing_unix_fds = 16,
        .max_message_size = 1 << 20,
        .max_message_unix_fds = 16,
};

static int on_message(Message *m, void *userdata) {
        Pair *p = userdata;

        assert_true(p->n_got < ELEMENTSOF(p->got));
        p->got[p->n_got++] = m;
        return 0;
}

static void pair_open(Pair *p, const ConnectionLimits *limits, bool fds) {
        int sv[2];
        char auth[256];
        int n;

        memset(p, 0, sizeof(*p));
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
        assert_int_equal(connection_init(&p->c, sv[0], limits, getuid(), AUTH_MECH_EXTERNAL, GUID), 0);
        p->peer = sv[1];
        n = snprintf(auth, sizeof(auth), "%cAUTH EXTERNAL\r\nDATA\r\n%sBEGIN\r\n", 0,
                     fds ? "NEGOTIATE_UNIX_FD\r\n" : "");
        assert_int_equal(write(p->peer, auth, (size_t) n), n);
        assert_int_equal(connection_dispatch(&p->c, on_message, p), 0);
        assert_true(p->c.authenticated);
        assert_int_equal(connection_unix_fd(&p->c), fds);
        assert_int_equal(connection_flush(&p->c), 0);
        n = (int) read(p->peer, auth, sizeof(auth) - 1);
        assert_true(n > 0);
        auth[n] = 0;
        assert_non_null(strstr(auth, "OK " GUID "\r\n"));
}

static void pair_close(Pair *p) {
        for (size_t i = 0; i < p->n_got; i++)
                message_unref(p->got[i]);
        connection_deinit(&p->c);
        if (p->peer >= 0)
                close(p->peer);
}

static Message *make_signal(uint32_t serial, size_t body_size, int fd) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_free_ char *text = malloc(body_size + 1);
        Message *m = NULL;

        assert_non_null(text);
        memset(text, 'a' + serial % 26, body_size);
        text[body_size] = 0;
        assert_int_equal(message_new_signal(":1.1", "/", "org.example.T", "S", &b), 0);
        assert_int_equal(message_builder_set_serial(b, serial), 0);
        assert_int_equal(message_builder_append_basic(b, 's', text), 0);
        if (fd >= 0)
                assert_int_equal(message_builder_append_fd(b, fd), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        return m;
}

/* Reads one whole message from the client end (with its fds). */
static Message *read_message(int fd) {
        uint8_t header[16];
        uint8_t *data;
        size_t total, have = 0;
        int fds[16];
        size_t n_fds = 0;
        Message *m = NULL;

        data = header;
        total = sizeof(header);
        for (int phase = 0; phase < 2; phase++) {
                while (have < total) {
                        union {
                                struct cmsghdr align;
                                uint8_t buf[CMSG_SPACE(sizeof(int) * 16)];
                        } control;
                        struct iovec iov = { data + have, total - have };
                        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
                                             .msg_control = &control, .msg_controllen = sizeof(control) };
                        ssize_t k = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

                        assert_true(k > 0);
                        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
                                size_t k_fds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

                                memcpy(fds + n_fds, CMSG_DATA(cm), k_fds * sizeof(int));
                                n_fds += k_fds;
                        }
                        have += (size_t) k;
                }
                if (phase == 0) {
                        assert_int_equal(message_frame_size(header, 16, MESSAGE_SIZE_MAX, &total), 0);
                        data = malloc(total);
                        assert_non_null(data);
                        memcpy(data, header, 16);
                }
        }
        assert_int_equal(message_parse(data, total, fds, n_fds, &m), 0);
        free(data);
        return m;
}

static void send_bytes(int fd, const void *data, size_t n) {
        const uint8_t *p = data;

        while (n > 0) {
                ssize_t k = write(fd, p, n);

                assert_true(k > 0);
                p += k;
                n -= (size_t) k;
        }
}

/* A queue bigger than the socket buffer leaves in order, across partial writes. */
static void test_partial_writes_keep_order(void **state) {
        Pair p;
        int sndbuf = 4096, r;
        size_t sent = 0;

        pair_open(&p, &limits_default, false);
        assert_int_equal(setsockopt(p.c.fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
        for (uint32_t i = 1; i <= 40; i++) {
                _cleanup_(message_unrefp) Message *m = make_signal(i, 3000, -1);

                assert_int_equal(connection_queue(&p.c, m, NULL, true), 0);
        }
        r = connection_flush(&p.c);
        assert_int_equal(r, CONNECTION_E_AGAIN);
        assert_true(connection_has_output(&p.c));
        for (uint32_t i = 1; i <= 40; i++) {
                _cleanup_(message_unrefp) Message *m = NULL;
                const char *text;

                (void) connection_flush(&p.c);
                m = read_message(p.peer);
                assert_int_equal(message_get_serial(m), i);
                assert_int_equal(message_read(m, "s", &text), 0);
                assert_int_equal(strlen(text), 3000);
                assert_int_equal(text[0], 'a' + i % 26);
                sent++;
        }
        assert_int_equal(sent, 40);
        assert_int_equal(connection_flush(&p.c), 0);
        assert_false(connection_has_output(&p.c));
        assert_int_equal(p.c.out_bytes, 0);
        pair_close(&p);
}

static void test_outgoing_quota(void **state) {
        ConnectionLimits limits = limits_default;
        _cleanup_(message_unrefp) Message *small = make_signal(1, 100, -1), *big = make_signal(2, 5000, -1);
        Pair p;

        limits.max_outgoing_bytes = 4096;
        pair_open(&p, &limits, false);
        assert_int_equal(connection_queue(&p.c, small, NULL, true), 0);
        assert_int_equal(connection_queue(&p.c, big, NULL, true), CONNECTION_E_QUOTA);
        assert_int_equal(connection_flush(&p.c), 0);
        assert_int_equal(connection_queue(&p.c, small, NULL, true), 0);
        pair_close(&p);
}

/* A charge counts what a sender has queued here until it is written. */
static void test_charge(void **state) {
        _cleanup_(message_unrefp) Message *m = make_signal(1, 100, -1);
        ConnectionCharge *charge = NULL;
        size_t size;
        Pair p;

        message_get_data(m, &size);
        assert_int_equal(connection_charge_new(&charge), 0);
        pair_open(&p, &limits_default, false);
        assert_int_equal(connection_queue(&p.c, m, charge, true), 0);
        assert_int_equal(connection_queue(&p.c, m, charge, true), 0);
        assert_int_equal(charge->bytes, 2 * size);
        assert_int_equal(charge->n_ref, 3);
        assert_int_equal(connection_flush(&p.c), 0);
        assert_int_equal(charge->bytes, 0);
        assert_int_equal(charge->n_ref, 1);
        /* Entries still queued when the connection goes release their charge too. */
        assert_int_equal(connection_queue(&p.c, m, charge, true), 0);
        pair_close(&p);
        assert_int_equal(charge->bytes, 0);
        assert_int_equal(charge->n_ref, 1);
        connection_charge_unref(charge);
}

/*
 * A share counts two queues together and refuses what would take it past
 * its maximum, though each queue alone has room; written messages, and
 * those still queued when a connection goes or leaves the share, leave it.
 */
static void test_share(void **state) {
        _cleanup_(message_unrefp) Message *m = make_signal(1, 100, -1), *with_fd = make_signal(2, 10, STDERR_FILENO);
        ConnectionShare share = {};
        size_t size;
        Pair a, b;

        message_get_data(m, &size);
        pair_open(&a, &limits_default, true);
        pair_open(&b, &limits_default, true);
        assert_int_equal(connection_queue(&a.c, m, NULL, true), 0);
        share.max_bytes = 3 * size;
        share.max_fds = 1;
        connection_set_share(&a.c, &share);
        connection_set_share(&b.c, &share);
        assert_int_equal(share.bytes, size);            /* what a held moved over */
        assert_int_equal(connection_queue(&b.c, m, NULL, true), 0);
        assert_int_equal(connection_queue(&a.c, m, NULL, true), 0);
        assert_int_equal(share.bytes, 3 * size);
        assert_int_equal(connection_queue(&b.c, m, NULL, true), CONNECTION_E_QUOTA);
        assert_true(connection_share_refused(&b.c, m));
        assert_int_equal(connection_flush(&a.c), 0);
        assert_int_equal(share.bytes, size);
        assert_int_equal(connection_queue(&a.c, with_fd, NULL, true), 0);
        assert_int_equal(connection_queue(&b.c, with_fd, NULL, true), CONNECTION_E_QUOTA);
        assert_int_equal(share.fds, 1);
        connection_set_share(&a.c, NULL);
        assert_int_equal(share.fds, 0);
        pair_close(&b);
        assert_int_equal(share.bytes, 0);
        pair_close(&a);
}

/*
 * A full share refuses only the connection that holds its even part of it
 * (one that does not read fills it; the others beside it are not refused),
 * and nothing where the share does not limit (what the bus owes).
 */
static void test_share_part(void **state) {
        _cleanup_(message_unrefp) Message *m = make_signal(1, 100, -1);
        ConnectionShare share = {};
        size_t size;
        Pair a, b;

        message_get_data(m, &size);
        pair_open(&a, &limits_default, true);
        pair_open(&b, &limits_default, true);
        share.max_bytes = 2 * size;
        share.max_fds = 1;
        connection_set_share(&a.c, &share);
        connection_set_share(&b.c, &share);
        assert_int_equal(share.members, 2);
        assert_int_equal(connection_queue(&a.c, m, NULL, true), 0);
        assert_int_equal(connection_queue(&a.c, m, NULL, true), 0);
        assert_int_equal(connection_queue(&a.c, m, NULL, true), CONNECTION_E_QUOTA);
        assert_int_equal(connection_queue(&b.c, m, NULL, true), 0);     /* over the share, under its part */
        assert_int_equal(connection_queue(&b.c, m, NULL, true), CONNECTION_E_QUOTA);
        assert_int_equal(connection_queue(&a.c, m, NULL, false), 0);    /* owed: its own queue has room */
        assert_int_equal(share.bytes, 4 * size);
        connection_set_share(&b.c, NULL);
        assert_int_equal(share.members, 1);
        pair_close(&b);
        pair_close(&a);
        assert_int_equal(share.bytes, 0);
        assert_int_equal(share.members, 0);
}

static void test_fds_need_negotiation(void **state) {
        _cleanup_(message_unrefp) Message *m = make_signal(1, 10, STDERR_FILENO);
        Pair plain, fds;
        _cleanup_(message_unrefp) Message *got = NULL;
        size_t n_fds;

        pair_open(&plain, &limits_default, false);
        assert_int_equal(connection_queue(&plain.c, m, NULL, true), CONNECTION_E_NO_FDS);
        pair_close(&plain);

        pair_open(&fds, &limits_default, true);
        assert_int_equal(connection_queue(&fds.c, m, NULL, true), 0);
        assert_int_equal(connection_flush(&fds.c), 0);
        got = read_message(fds.peer);
        message_get_unix_fds(got, &n_fds);
        assert_int_equal(n_fds, 1);
        pair_close(&fds);
}

static void test_outgoing_fd_quota(void **state) {
        ConnectionLimits limits = limits_default;
        _cleanup_(message_unrefp) Message *m = make_signal(1, 10, STDERR_FILENO);
        Pair p;

        limits.max_outgoing_unix_fds = 1;
        pair_open(&p, &limits, true);
        assert_int_equal(connection_queue(&p.c, m, NULL, true), 0);
        assert_int_equal(connection_queue(&p.c, m, NULL, true), CONNECTION_E_QUOTA);
        pair_close(&p);
}

/* A message arriving in pieces, and one larger than the initial buffer. */
static void test_split_and_large_input(void **state) {
        _cleanup_(message_unrefp) Message *small = make_signal(1, 100, -1), *large = make_signal(2, 200000, -1);
        const uint8_t *data;
        size_t size;
        Pair p;

        pair_open(&p, &limits_default, false);
        data = message_get_data(small, &size);
        send_bytes(p.peer, data, 10);
        assert_int_equal(connection_dispatch(&p.c, on_message, &p), 0);
        assert_int_equal(p.n_got, 0);
        /* The partial message was read into scratch and its tail kept here. */
        assert_false(p.c.in_scratch);
        assert_non_null(p.c.in);
        assert_int_equal(p.c.in_end - p.c.in_start, 10);
        send_bytes(p.peer, data + 10, size - 10);
        assert_int_equal(connection_dispatch(&p.c, on_message, &p), 0);
        assert_int_equal(p.n_got, 1);
        assert_int_equal(message_get_serial(p.got[0]), 1);
        /* Nothing pending: an idle connection holds no input buffer. */
        assert_null(p.c.in);
        assert_int_equal(p.c.in_size, 0);

        data = message_get_data(large, &size);
        send_bytes(p.peer, data, size);
        for (int i = 0; i < 64 && p.n_got < 2; i++)
                assert_int_equal(connection_dispatch(&p.c, on_message, &p), 0);
        assert_int_equal(p.n_got, 2);
        assert_int_equal(message_get_serial(p.got[1]), 2);
        pair_close(&p);
}

static void test_too_large_disconnects(void **state) {
        ConnectionLimits limits = limits_default;
        _cleanup_(message_unrefp) Message *m = make_signal(1, 5000, -1);
        const uint8_t *data;
        size_t size;
        Pair p;

        limits.max_message_size = 4096;
        pair_open(&p, &limits, false);
        data = message_get_data(m, &size);
        send_bytes(p.peer, data, size);
        assert_int_equal(connection_dispatch(&p.c, on_message, &p), CONNECTION_E_CLOSED);
        pair_close(&p);
}

/* A peer that sends and hangs up still has its messages delivered. */
static void test_messages_before_eof(void **state) {
        _cleanup_(message_unrefp) Message *a = make_signal(1, 10, -1), *b = make_signal(2, 10, -1);
        const uint8_t *data;
        size_t size;
        Pair p;
        int r;

        pair_open(&p, &limits_default, false);
        data = message_get_data(a, &size);
        send_bytes(p.peer, data, size);
        data = message_get_data(b, &size);
        send_bytes(p.peer, data, size);
        close(p.peer);
        p.peer = -1;
        /* A short read ends a dispatch (epoll reports the rest): the EOF may need a second one. */
        r = connection_dispatch(&p.c, on_message, &p);
        if (r == 0)
                r = connection_dispatch(&p.c, on_message, &p);
        assert_int_equal(r, CONNECTION_E_CLOSED);
        assert_int_equal(p.n_got, 2);
        pair_close(&p);
}

/* Incoming fds belong to the message they were sent with. */
static void test_incoming_fds(void **state) {
        _cleanup_(message_unrefp) Message *m = make_signal(1, 10, STDERR_FILENO), *plain = make_signal(2, 10, -1);
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(int))];
        } control;
        struct cmsghdr *cmsg;
        struct iovec iov;
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = &control, .msg_controllen = sizeof(control) };
        const int *fds;
        size_t size, n_fds;
        const uint8_t *data;
        int fd = STDERR_FILENO;
        Pair p;

        pair_open(&p, &limits_default, true);
        data = message_get_data(m, &size);
        iov = (struct iovec) { (void *) data, size };
        cmsg = CMSG_FIRSTHDR(&mh);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
        assert_int_equal(sendmsg(p.peer, &mh, 0), (ssize_t) size);
        data = message_get_data(plain, &size);
        send_bytes(p.peer, data, size);
        /* The kernel ends a read where descriptors are attached: two reads. */
        for (int i = 0; i < 4 && p.n_got < 2; i++)
                assert_int_equal(connection_dispatch(&p.c, on_message, &p), 0);
        assert_int_equal(p.n_got, 2);
        fds = message_get_unix_fds(p.got[0], &n_fds);
        assert_int_equal(n_fds, 1);
        assert_true(fds[0] >= 0);
        message_get_unix_fds(p.got[1], &n_fds);
        assert_int_equal(n_fds, 0);
        assert_int_equal(p.c.n_in_fds, 0);
        pair_close(&p);
}

static void send_with_fd(int sock, const void *data, size_t n, int fd) {
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(int))];
        } control;
        struct iovec iov = { (void *) data, n };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = &control, .msg_controllen = sizeof(control) };
        struct cmsghdr *cmsg = CMSG_FIRSTHDR(&mh);

        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
        assert_int_equal(sendmsg(sock, &mh, 0), (ssize_t) n);
}

static int on_message_pause(Message *m, void *userdata) {
        on_message(m, userdata);
        return CONNECTION_E_PAUSED;
}

/* Fds are pending (pending_fd_timeout) while their message is incomplete, and only then. */
static void test_pending_fds(void **state) {
        _cleanup_(message_unrefp) Message *m = make_signal(1, 10, STDERR_FILENO);
        _cleanup_(message_unrefp) Message *plain = make_signal(2, 10, -1);
        const uint8_t *data, *plain_data;
        size_t size, plain_size;
        Pair p;

        pair_open(&p, &limits_default, true);
        assert_int_equal(connection_pending_fds(&p.c), 0);
        data = message_get_data(m, &size);
        send_with_fd(p.peer, data, 16, STDERR_FILENO);
        assert_int_equal(connection_dispatch(&p.c, on_message, &p), 0);
        assert_int_equal(p.n_got, 0);
        assert_int_equal(connection_pending_fds(&p.c), 1);
        send_bytes(p.peer, data + 16, size - 16);
        assert_int_equal(connection_dispatch(&p.c, on_message, &p), 0);
        assert_int_equal(p.n_got, 1);
        assert_int_equal(connection_pending_fds(&p.c), 0);

        /*
         * A message without fds, then one with: the kernel returns both in
         * one read (stopping after the fds). Complete but unread (the
         * reader paused): not pending.
         */
        plain_data = message_get_data(plain, &plain_size);
        send_bytes(p.peer, plain_data, plain_size);
        send_with_fd(p.peer, data, size, STDERR_FILENO);
        for (int i = 0; i < 4 && p.c.n_in_fds == 0; i++)
                assert_int_equal(connection_dispatch(&p.c, on_message_pause, &p), CONNECTION_E_PAUSED);
        assert_int_equal(p.c.n_in_fds, 1);
        assert_int_equal(connection_pending_fds(&p.c), 0);
        assert_int_equal(connection_dispatch(&p.c, on_message, &p), 0);
        assert_int_equal(p.n_got, 3);
        assert_int_equal(connection_pending_fds(&p.c), 0);
        pair_close(&p);
}

static void test_bad_auth_disconnects(void **state) {
        Connection c;
        int sv[2];

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
        assert_int_equal(connection_init(&c, sv[0], &limits_default, getuid(), AUTH_MECH_EXTERNAL, GUID), 0);
        send_bytes(sv[1], "GET / HTTP/1.0\r\n", 16);
        assert_int_equal(connection_dispatch(&c, on_message, NULL), CONNECTION_E_CLOSED);
        connection_deinit(&c);
        close(sv[1]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_partial_writes_keep_order),
                cmocka_unit_test(test_outgoing_quota),
                cmocka_unit_test(test_charge),
                cmocka_unit_test(test_share),
                cmocka_unit_test(test_share_part),
                cmocka_unit_test(test_fds_need_negotiation),
                cmocka_unit_test(test_outgoing_fd_quota),
                cmocka_unit_test(test_split_and_large_input),
                cmocka_unit_test(test_too_large_disconnects),
                cmocka_unit_test(test_messages_before_eof),
                cmocka_unit_test(test_incoming_fds),
                cmocka_unit_test(test_pending_fds),
                cmocka_unit_test(test_bad_auth_disconnects),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
