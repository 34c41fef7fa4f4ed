/*
 * Listening sockets. One Listener per bound address: it binds (unix
 * path, dir/tmpdir with a random name, abstract, runtime) as dbus-daemon
 * does, or adopts a socket systemd passed, and hands every accepted
 * connection to the bus as a non-blocking, close-on-exec fd.
 *
 * Accepting is batched: one wakeup accepts until EAGAIN (bounded, so a
 * connection storm cannot starve existing clients). Credentials are not
 * read here but by the bus right after, once (creds.c). The bus pauses
 * accepting while max_incomplete_connections are authenticating, as
 * dbus-daemon does: clients wait in the backlog instead of being dropped.
 *
 * Under Smack a client of any label must be able to reach the bus (the
 * bus mediates each message itself): the socket file is labelled "*" and
 * the listening socket's IPIN "*" and IPOUT "@", as systemd's
 * SmackLabel=, SmackLabelIPIn= and SmackLabelIPOut= do for sockets it
 * passes in (our .socket unit sets them). Without that a labelled app
 * could not connect at all. A failure is logged: it locks clients out,
 * it opens nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "address.h"
#include "listener.h"
#include "log.h"

#define LISTENER_ACCEPT_BATCH 32
#define LISTENER_BACKLOG 4096
#define LISTENER_RETRY_DELAY (100 * 1000ULL)            /* usec */
#define LISTENER_LOG_INTERVAL (10 * 1000 * 1000ULL)     /* usec */

static int listener_on_retry(LoopTimer *timer, void *userdata) {
        Listener *listener = userdata;

        return loop_modify_io(listener->loop, &listener->source, listener->paused ? 0 : EPOLLIN);
}

void listener_set_accepting(Listener *listener, bool accepting) {
        listener->paused = !accepting;
        /* While backing off, the retry timer restores the events (listener_on_retry). */
        if (listener->loop && !loop_timer_armed(&listener->retry))
                (void) loop_modify_io(listener->loop, &listener->source, accepting ? EPOLLIN : 0);
}

/*
 * Out of descriptors or memory: the pending connection stays in the
 * backlog and level-triggered epoll would wake us at once, forever; stop
 * watching for a moment instead, and say so at most every few seconds.
 */
static int listener_back_off(Listener *listener, int error) {
        static uint64_t last_logged;
        uint64_t now = loop_now();
        int r;

        if (now - last_logged > LISTENER_LOG_INTERVAL) {
                log_warning_errno(error, "Cannot accept new connections for now");
                last_logged = now;
        }
        r = loop_modify_io(listener->loop, &listener->source, 0);
        if (r < 0)
                return r;
        return loop_timer_arm(listener->loop, &listener->retry, now + LISTENER_RETRY_DELAY);
}

static int listener_on_io(LoopSource *source, uint32_t events, void *userdata) {
        Listener *listener = userdata;

        for (int i = 0; i < LISTENER_ACCEPT_BATCH; i++) {
                int fd = accept4(listener->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                int r;

                if (fd < 0) {
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                                return listener_back_off(listener, errno);
                        /* EAGAIN, and errors of one connection (ECONNABORTED, EPROTO, ...) */
                        return 0;
                }
                r = listener->fn(listener, fd, listener->userdata);
                if (r < 0)
                        return r;
                if (listener->paused)
                        return 0;
        }
        return 0;
}

static int listener_start(Loop *loop, Listener *listener, int fd, const char *guid,
                          ListenerAcceptFn fn, void *userdata) {
        listener->loop = loop;
        listener->fd = fd;
        loop_timer_init(&listener->retry, listener_on_retry, listener);
        listener->fn = fn;
        listener->userdata = userdata;
        return loop_add_io(loop, &listener->source, fd, EPOLLIN, listener_on_io, listener);
}

static int listener_bind(const char *path, bool abstract, int *ret_fd) {
        _cleanup_close_ int fd = -1;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        size_t len = strlen(path);
        socklen_t sa_len;

        if (len + (abstract ? 1 : 0) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        if (abstract) {
                memcpy(sa.sun_path + 1, path, len);
                sa_len = offsetof(struct sockaddr_un, sun_path) + 1 + len;
        } else {
                memcpy(sa.sun_path, path, len);
                sa_len = offsetof(struct sockaddr_un, sun_path) + len + 1;
        }
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (!abstract)
                (void) unlink(path);    /* dbus-daemon replaces a stale socket, too */
        if (bind(fd, (struct sockaddr *) &sa, sa_len) < 0)
                return -errno;
        if (!abstract)
                (void) chmod(path, 0666);
        if (listen(fd, LISTENER_BACKLOG) < 0)
                return -errno;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static void listener_label(int fd, const char *path, bool abstract) {
        if (access("/sys/fs/smackfs/load2", F_OK) < 0)
                return;
        if (!abstract && setxattr(path, "security.SMACK64", "*", 1, 0) < 0) {
                int err = errno;
                char label[2];

                /* Newer kernels (7.2 here) label a socket's file "*" themselves,
                 * refuse any other label with EINVAL and judge connect() by the
                 * socket's IPIN and IPOUT alone: nothing is missing then. */
                if (err != EINVAL || getxattr(path, "security.SMACK64", label, sizeof(label)) != 1 ||
                    label[0] != '*')
                        log_warning_errno(err, "Cannot label the bus socket %s \"*\" for Smack", path);
        }
        if (fsetxattr(fd, "security.SMACK64IPIN", "*", 1, 0) < 0 ||
            fsetxattr(fd, "security.SMACK64IPOUT", "@", 1, 0) < 0)
                log_warning_errno(errno, "Cannot set the Smack IPIN/IPOUT labels of the bus socket %s", path);
}

int listener_new(Loop *loop, const BusAddress *address, const char *guid,
                 ListenerAcceptFn fn, void *userdata, Listener **ret) {
        _cleanup_(listener_freep) Listener *listener = NULL;
        _cleanup_free_ char *path = NULL;
        bool abstract;
        int fd = -1, r;

        r = bus_address_socket_path(address, &path, &abstract);
        if (r < 0)
                return r;
        r = listener_bind(path, abstract, &fd);
        if (r < 0)
                return r;
        listener_label(fd, path, abstract);
        listener = calloc(1, sizeof(*listener));
        if (!listener) {
                safe_close(fd);
                return -ENOMEM;
        }
        listener->fd = fd;
        listener->abstract = abstract;
        listener->path = TAKE_PTR(path);
        r = bus_address_format_unix(listener->path, abstract, guid, &listener->address);
        if (r < 0)
                return r;
        r = listener_start(loop, listener, fd, guid, fn, userdata);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(listener);
        return 0;
}

/* The address of a socket systemd gave us, from its bound name. */
static int listener_address_of_fd(int fd, const char *guid, char **ret) {
        struct sockaddr_un sa = {};
        socklen_t len = sizeof(sa);
        char name[sizeof(sa.sun_path) + 1] = {};
        size_t n;

        if (getsockname(fd, (struct sockaddr *) &sa, &len) < 0)
                return -errno;
        if (sa.sun_family != AF_UNIX || len <= offsetof(struct sockaddr_un, sun_path))
                return -EAFNOSUPPORT;
        n = len - offsetof(struct sockaddr_un, sun_path);
        if (sa.sun_path[0] == 0) {
                memcpy(name, sa.sun_path + 1, n - 1);
                return bus_address_format_unix(name, true, guid, ret);
        }
        memcpy(name, sa.sun_path, n);
        return bus_address_format_unix(name, false, guid, ret);
}

int listener_new_fd(Loop *loop, int fd, const char *guid,
                    ListenerAcceptFn fn, void *userdata, Listener **ret) {
        _cleanup_(listener_freep) Listener *listener = NULL;
        int r;

        listener = calloc(1, sizeof(*listener));
        if (!listener) {
                safe_close(fd);
                return -ENOMEM;
        }
        listener->fd = fd;
        /* systemd hands sockets over blocking; the accept loop must never block. */
        r = fcntl(fd, F_GETFL);
        if (r < 0 || fcntl(fd, F_SETFL, r | O_NONBLOCK) < 0)
                return -errno;
        if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
                return -errno;
        r = listener_address_of_fd(fd, guid, &listener->address);
        if (r < 0)
                return r;
        r = listener_start(loop, listener, fd, guid, fn, userdata);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(listener);
        return 0;
}

Listener *listener_free(Listener *listener) {
        if (!listener)
                return NULL;
        if (listener->loop) {
                loop_remove_io(listener->loop, &listener->source);
                loop_timer_disarm(listener->loop, &listener->retry);
        }
        safe_close(listener->fd);
        if (listener->path && !listener->abstract)
                (void) unlink(listener->path);
        free(listener->path);
        free(listener->address);
        free(listener);
        return NULL;
}
