/*
 * Unit tests for listening sockets (broker/io/listener.c). accept4() is
 * wrapped (-Wl,--wrap=accept4) to play a process out of descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "address.h"
#include "listener.h"

int __real_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
int __wrap_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

static unsigned emfile_left;    /* fail this many accept4() calls with EMFILE */
static unsigned accept_calls;

int __wrap_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
        accept_calls++;
        if (emfile_left > 0) {
                emfile_left--;
                errno = EMFILE;
                return -1;
        }
        return __real_accept4(fd, addr, len, flags);
}

typedef struct Accepted {
        int fds[8];
        size_t n;
} Accepted;

static int on_accept(Listener *listener, int fd, void *userdata) {
        Accepted *a = userdata;
        int flags = fcntl(fd, F_GETFL);

        assert_true(flags & O_NONBLOCK);
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        assert_true(a->n < ELEMENTSOF(a->fds));
        a->fds[a->n++] = fd;
        return 0;
}

static int connect_to(const char *path, bool abstract) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        size_t n = strlen(path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        memcpy(sa.sun_path + (abstract ? 1 : 0), path, n);
        assert_int_equal(connect(fd, (struct sockaddr *) &sa,
                                 offsetof(struct sockaddr_un, sun_path) + n + (abstract ? 1 : 0)), 0);
        return fd;
}

static void accepted_close(Accepted *a) {
        for (size_t i = 0; i < a->n; i++)
                close(a->fds[i]);
}

static Listener *listen_on(Loop *loop, const char *text, Accepted *accepted) {
        _cleanup_(bus_address_list_freep) BusAddressList *list = NULL;
        Listener *listener = NULL;

        assert_int_equal(bus_address_parse(text, &list, NULL), 0);
        assert_int_equal(listener_new(loop, &list->entries[0], "0123456789abcdef0123456789abcdef",
                                      on_accept, accepted, &listener), 0);
        return listener;
}

static void test_path_is_bound_and_removed(void **state) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        char dir[] = "/tmp/test-listener-XXXXXX", text[128], path[64];
        Accepted accepted = {};
        Listener *listener;
        struct stat st;
        int c1, c2;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/bus", dir);
        snprintf(text, sizeof(text), "unix:path=%s", path);
        assert_int_equal(loop_new(&loop), 0);
        listener = listen_on(loop, text, &accepted);
        assert_int_equal(stat(path, &st), 0);
        assert_true(S_ISSOCK(st.st_mode));
        assert_non_null(strstr(listener->address, "unix:path="));
        assert_non_null(strstr(listener->address, ",guid=0123456789abcdef0123456789abcdef"));

        c1 = connect_to(path, false);
        c2 = connect_to(path, false);
        assert_int_equal(loop_iterate(loop, 1000), 0);
        assert_int_equal(accepted.n, 2);
        listener_free(listener);
        assert_int_equal(stat(path, &st), -1);
        assert_int_equal(errno, ENOENT);
        close(c1);
        close(c2);
        accepted_close(&accepted);
        rmdir(dir);
}

static void test_tmpdir_and_abstract(void **state) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        char dir[] = "/tmp/test-listener-XXXXXX", text[128], name[64];
        Accepted accepted = {};
        Listener *in_dir, *abstract;
        int c1, c2;

        assert_non_null(mkdtemp(dir));
        assert_int_equal(loop_new(&loop), 0);
        snprintf(text, sizeof(text), "unix:dir=%s", dir);
        in_dir = listen_on(loop, text, &accepted);
        assert_non_null(in_dir->path);
        assert_true(strncmp(in_dir->path, dir, strlen(dir)) == 0);
        assert_non_null(strstr(in_dir->path, "/dbus-"));
        snprintf(name, sizeof(name), "mssf-test-%d", (int) getpid());
        snprintf(text, sizeof(text), "unix:abstract=%s", name);
        abstract = listen_on(loop, text, &accepted);
        assert_non_null(strstr(abstract->address, "unix:abstract="));

        c1 = connect_to(in_dir->path, false);
        c2 = connect_to(name, true);
        for (int i = 0; i < 10 && accepted.n < 2; i++)
                assert_int_equal(loop_iterate(loop, 100), 0);
        assert_int_equal(accepted.n, 2);
        listener_free(in_dir);
        listener_free(abstract);
        close(c1);
        close(c2);
        accepted_close(&accepted);
        rmdir(dir);
}

/* systemd passes a blocking socket: the accept loop must still never block. */
static void test_adopted_blocking_socket(void **state) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        char dir[] = "/tmp/test-listener-XXXXXX", path[64];
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        Accepted accepted = {};
        Listener *listener = NULL;
        int fd, c1, c2;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/bus", dir);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        assert_int_equal(listen(fd, 8), 0);
        assert_int_equal(loop_new(&loop), 0);
        assert_int_equal(listener_new_fd(loop, fd, "0123456789abcdef0123456789abcdef", on_accept,
                                         &accepted, &listener), 0);
        assert_non_null(strstr(listener->address, path));
        assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
        c1 = connect_to(path, false);
        c2 = connect_to(path, false);
        alarm(5);       /* a blocking accept4() would hang here */
        assert_int_equal(loop_iterate(loop, 1000), 0);
        alarm(0);
        assert_int_equal(accepted.n, 2);
        listener_free(listener);
        close(c1);
        close(c2);
        accepted_close(&accepted);
        unlink(path);
        rmdir(dir);
}

/* Out of fds: no busy loop on the pending connection; accepting resumes later. */
static void test_emfile_backs_off(void **state) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        char name[64], text[96];
        Accepted accepted = {};
        Listener *listener;
        uint64_t start;
        int c;

        assert_int_equal(loop_new(&loop), 0);
        snprintf(name, sizeof(name), "mssf-test-emfile-%d", (int) getpid());
        snprintf(text, sizeof(text), "unix:abstract=%s", name);
        listener = listen_on(loop, text, &accepted);
        c = connect_to(name, true);
        emfile_left = 1;
        accept_calls = 0;
        assert_int_equal(loop_iterate(loop, 1000), 0);
        assert_int_equal(accept_calls, 1);
        /* For the next ~100 ms nobody looks at the backlog. */
        start = loop_now();
        while (loop_now() - start < 50 * 1000)
                assert_int_equal(loop_iterate(loop, 10), 0);
        assert_int_equal(accept_calls, 1);
        assert_int_equal(accepted.n, 0);
        for (int i = 0; i < 50 && accepted.n == 0; i++)
                assert_int_equal(loop_iterate(loop, 20), 0);
        assert_int_equal(accepted.n, 1);
        listener_free(listener);
        close(c);
        accepted_close(&accepted);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_path_is_bound_and_removed),
                cmocka_unit_test(test_tmpdir_and_abstract),
                cmocka_unit_test(test_adopted_blocking_socket),
                cmocka_unit_test(test_emfile_backs_off),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
