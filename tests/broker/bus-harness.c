/*
 * The test harness: a real Bus on a real Loop in the test process, and
 * clients that speak the protocol over socketpairs with blocking I/O.
 * Everything is single-threaded: a client writes, the harness pumps the
 * bus's loop until it is idle, the client reads what the bus queued. So
 * "nothing arrived" is a reliable observation, not a timeout race.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "bus-harness.h"
#include "config.h"

void harness_start(Harness *h, const char *config_text) {
        BusConfig *config = NULL;
        ConfigError error = {};

        assert_int_equal(bus_config_load_string("/test/bus.conf", config_text, strlen(config_text),
                                                BUS_CONFIG_NO_INCLUDES, &config, &error), 0);
        assert_int_equal(loop_new(&h->loop), 0);
        assert_int_equal(daemon_new(h->loop, config, &h->daemon), 0);
        h->bus = h->daemon->bus;
        /* The daemon's own policy state: the config's <policy>, no compiled MSSF policy. */
        assert_int_equal(bus_setup_security(h->bus, NULL), 0);
}

void harness_stop(Harness *h) {
        h->daemon = daemon_free(h->daemon);
        h->bus = NULL;
        h->loop = loop_free(h->loop);
}

void harness_pump(Harness *h) {
        for (int i = 0; i < 64; i++)
                assert_int_equal(loop_iterate(h->loop, 0), 0);
}

static void client_write_all(int fd, const void *data, size_t n) {
        const uint8_t *p = data;

        while (n > 0) {
                ssize_t k = write(fd, p, n);

                assert_true(k > 0);
                p += k;
                n -= (size_t) k;
        }
}

/* Reads one "\r\n"-terminated SASL line into line (NUL-terminated). */
static void client_read_line(int fd, char *line, size_t size) {
        size_t n = 0;

        while (n + 1 < size) {
                assert_int_equal(read(fd, line + n, 1), 1);
                if (line[n++] == '\n')
                        break;
        }
        line[n] = 0;
}

void client_connect(Harness *h, Client *c, bool unix_fds, bool hello) {
        int fds[2];
        char auth[128], line[256];
        _cleanup_(message_unrefp) Message *reply = NULL, *acquired = NULL;
        const char *name;
        uint32_t serial;

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        assert_int_equal(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
        assert_int_equal(bus_accept(h->bus, fds[0]), 0);
        *c = (Client) { .fd = fds[1], .serial = 1 };

        snprintf(auth, sizeof(auth), "%c", 0);
        client_write_all(c->fd, auth, 1);
        snprintf(auth, sizeof(auth), "AUTH EXTERNAL\r\nDATA\r\n%sBEGIN\r\n",
                 unix_fds ? "NEGOTIATE_UNIX_FD\r\n" : "");
        client_write_all(c->fd, auth, strlen(auth));
        harness_pump(h);
        client_read_line(c->fd, line, sizeof(line));
        assert_string_equal(line, "DATA\r\n");
        client_read_line(c->fd, line, sizeof(line));
        assert_true(strncmp(line, "OK ", 3) == 0);
        if (unix_fds) {
                client_read_line(c->fd, line, sizeof(line));
                assert_string_equal(line, "AGREE_UNIX_FD\r\n");
        }
        if (!hello)
                return;
        serial = client_call(h, c, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus", "Hello", "");
        reply = client_recv(h, c);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
        assert_int_equal(message_get_reply_serial(reply), serial);
        assert_int_equal(message_read(reply, "s", &name), 0);
        snprintf(c->unique_name, sizeof(c->unique_name), "%s", name);
        acquired = client_recv(h, c);
        assert_non_null(acquired);
        assert_string_equal(message_get_member(acquired), "NameAcquired");
}

void client_close(Client *c) {
        c->fd = safe_close(c->fd);
}

static int client_append_args(MessageBuilder *b, const char *signature, va_list ap) {
        int r = 0;

        for (const char *t = signature; r == 0 && *t; t++) {
                switch (*t) {
                case 's':
                case 'o':
                case 'g':
                        r = message_builder_append_basic(b, *t, va_arg(ap, const char *));
                        break;
                case 'u': {
                        uint32_t u = va_arg(ap, uint32_t);

                        r = message_builder_append_basic(b, 'u', &u);
                        break;
                }
                case 'h':
                        r = message_builder_append_fd(b, va_arg(ap, int));
                        break;
                default:
                        fail_msg("unsupported type %c", *t);
                }
        }
        return r;
}

uint32_t client_call(Harness *h, Client *c, const char *destination, const char *path,
                     const char *interface, const char *member, const char *signature, ...) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;
        uint32_t serial = c->serial++;
        const int *fds;
        size_t n_fds;
        va_list ap;

        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, serial), 0);
        if (destination)
                assert_int_equal(message_builder_set_destination(b, destination), 0);
        assert_int_equal(message_builder_set_path(b, path), 0);
        if (interface)
                assert_int_equal(message_builder_set_interface(b, interface), 0);
        assert_int_equal(message_builder_set_member(b, member), 0);
        va_start(ap, signature);
        assert_int_equal(client_append_args(b, signature, ap), 0);
        va_end(ap);
        assert_int_equal(message_builder_finish(b, &m), 0);
        fds = message_get_unix_fds(m, &n_fds);
        client_send(h, c, m, fds, n_fds);
        return serial;
}

uint32_t client_signal(Harness *h, Client *c, const char *path, const char *interface, const char *member,
                       const char *signature, ...) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;
        uint32_t serial = c->serial++;
        const int *fds;
        size_t n_fds;
        va_list ap;

        assert_int_equal(message_new_signal(NULL, path, interface, member, &b), 0);
        assert_int_equal(message_builder_set_serial(b, serial), 0);
        va_start(ap, signature);
        assert_int_equal(client_append_args(b, signature, ap), 0);
        va_end(ap);
        assert_int_equal(message_builder_finish(b, &m), 0);
        fds = message_get_unix_fds(m, &n_fds);
        client_send(h, c, m, fds, n_fds);
        return serial;
}

void client_send(Harness *h, Client *c, Message *m, const int *fds, size_t n_fds) {
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(int) * 16)];
        } control;
        size_t size;
        const void *data = message_get_data(m, &size);
        struct iovec iov = { (void *) data, size };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

        assert_true(n_fds <= 16);
        if (n_fds > 0) {
                struct cmsghdr *cmsg;

                mh.msg_control = &control;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
                cmsg = CMSG_FIRSTHDR(&mh);
                cmsg->cmsg_level = SOL_SOCKET;
                cmsg->cmsg_type = SCM_RIGHTS;
                cmsg->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
                memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * n_fds);
        }
        assert_int_equal(sendmsg(c->fd, &mh, MSG_NOSIGNAL), (ssize_t) size);
        harness_pump(h);
}

static bool client_readable(Client *c) {
        struct pollfd p = { .fd = c->fd, .events = POLLIN };

        return poll(&p, 1, 0) == 1;
}

/*
 * Reads exactly n bytes; fds that come along are appended to fds. When the
 * rest is not there yet, the bus gets to run (it may be waiting for room
 * in a small socket buffer).
 */
static bool client_read_exact(Harness *h, Client *c, uint8_t *data, size_t n, int *fds, size_t *n_fds) {
        unsigned idle = 0;

        while (n > 0) {
                union {
                        struct cmsghdr align;
                        uint8_t buf[CMSG_SPACE(sizeof(int) * 16)];
                } control;
                struct iovec iov = { data, n };
                struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
                                     .msg_control = &control, .msg_controllen = sizeof(control) };
                ssize_t k = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);

                if (k < 0 && errno == EAGAIN && ++idle < 1000) {
                        harness_pump(h);
                        continue;
                }
                if (k <= 0)
                        return false;
                for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
                        size_t k_fds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

                        memcpy(fds + *n_fds, CMSG_DATA(cm), k_fds * sizeof(int));
                        *n_fds += k_fds;
                }
                data += k;
                n -= (size_t) k;
        }
        return true;
}

Message *client_recv(Harness *h, Client *c) {
        uint8_t header[16];
        _cleanup_free_ uint8_t *data = NULL;
        int fds[64];
        size_t n_fds = 0, total;
        Message *m = NULL;

        harness_pump(h);
        if (!client_readable(c))
                return NULL;
        if (!client_read_exact(h, c, header, sizeof(header), fds, &n_fds))
                return NULL;
        assert_int_equal(message_frame_size(header, sizeof(header), MESSAGE_SIZE_MAX, &total), 0);
        data = malloc(total);
        assert_non_null(data);
        memcpy(data, header, sizeof(header));
        assert_true(client_read_exact(h, c, data + 16, total - 16, fds, &n_fds));
        assert_int_equal(message_parse(data, total, fds, n_fds, &m), 0);
        return m;
}

Message *client_wait_reply(Harness *h, Client *c, uint32_t serial) {
        for (;;) {
                Message *m = client_recv(h, c);

                if (!m)
                        return NULL;
                if ((message_get_type(m) == MESSAGE_METHOD_RETURN ||
                     message_get_type(m) == MESSAGE_ERROR) &&
                    message_get_reply_serial(m) == serial)
                        return m;
                message_unref(m);
        }
}

bool client_is_disconnected(Harness *h, Client *c) {
        uint8_t byte;

        harness_pump(h);
        if (!client_readable(c))
                return false;
        return recv(c->fd, &byte, 1, MSG_PEEK) == 0;
}

void client_add_match(Harness *h, Client *c, const char *rule) {
        _cleanup_(message_unrefp) Message *reply = NULL;
        uint32_t serial;

        serial = client_call(h, c, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus", "AddMatch", "s", rule);
        reply = client_wait_reply(h, c, serial);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
}
