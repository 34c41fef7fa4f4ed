/*
 * Unit tests for peer credentials (broker/io/creds.c). getsockopt() is the
 * system boundary: it is wrapped (-Wl,--wrap=getsockopt) so the tests can
 * play a kernel without an LSM, one with a Smack label, and one without
 * SO_PEERGROUPS or SO_PEERPIDFD.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "creds.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

int __real_getsockopt(int fd, int level, int name, void *value, socklen_t *len);
int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len);

static const char *fake_label;          /* NULL: ENOPROTOOPT */
static const gid_t *fake_groups;        /* NULL: ENOPROTOOPT */
static size_t fake_n_groups;
static bool fake_pidfd;
static unsigned label_calls;

static int fake_copy(const void *data, size_t size, void *value, socklen_t *len) {
        if (*len < size) {
                *len = (socklen_t) size;
                errno = ERANGE;
                return -1;
        }
        memcpy(value, data, size);
        *len = (socklen_t) size;
        return 0;
}

int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len) {
        if (level != SOL_SOCKET || name == SO_PEERCRED)
                return __real_getsockopt(fd, level, name, value, len);
        if (name == SO_PEERSEC) {
                label_calls++;
                if (!fake_label) {
                        errno = ENOPROTOOPT;
                        return -1;
                }
                /* Smack includes the trailing NUL */
                return fake_copy(fake_label, strlen(fake_label) + 1, value, len);
        }
        if (name == SO_PEERGROUPS) {
                if (!fake_groups) {
                        errno = ENOPROTOOPT;
                        return -1;
                }
                return fake_copy(fake_groups, fake_n_groups * sizeof(gid_t), value, len);
        }
        if (name == SO_PEERPIDFD) {
                if (!fake_pidfd) {
                        errno = ENOPROTOOPT;
                        return -1;
                }
                return __real_getsockopt(fd, level, name, value, len);
        }
        return __real_getsockopt(fd, level, name, value, len);
}

static bool fcntl_is_valid(int fd) {
        return fcntl(fd, F_GETFD) >= 0;
}

static void read_creds(Creds *creds) {
        int sv[2];

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        assert_int_equal(creds_read(sv[0], creds), 0);
        close(sv[0]);
        close(sv[1]);
}

static void test_no_lsm(void **state) {
        Creds creds;

        fake_label = NULL;
        fake_groups = NULL;
        fake_pidfd = false;
        read_creds(&creds);
        assert_int_equal(creds.pid, getpid());
        assert_int_equal(creds.uid, getuid());
        assert_int_equal(creds.gid, getgid());
        assert_null(creds.label);
        assert_int_equal(creds.pidfd, -1);
        /* without SO_PEERGROUPS: the primary group */
        assert_int_equal(creds.n_groups, 1);
        assert_int_equal(creds.groups[0], getgid());
        creds_deinit(&creds);
        assert_null(creds.groups);
}

static void test_smack_label(void **state) {
        Creds creds;

        fake_label = "User::App::Maps";
        fake_groups = NULL;
        read_creds(&creds);
        assert_non_null(creds.label);
        assert_string_equal(creds.label, "User::App::Maps");
        creds_deinit(&creds);
}

static void test_long_label_retries(void **state) {
        static char label[1000];
        Creds creds;

        memset(label, 'L', sizeof(label) - 1);
        fake_label = label;
        label_calls = 0;
        read_creds(&creds);
        assert_int_equal(label_calls, 2);
        assert_int_equal(strlen(creds.label), sizeof(label) - 1);
        creds_deinit(&creds);
}

static void test_groups_with_primary(void **state) {
        static gid_t without_primary[] = { 100, 200 };
        static gid_t with_primary[3];
        Creds creds;

        fake_label = NULL;
        fake_groups = without_primary;
        fake_n_groups = 2;
        read_creds(&creds);
        assert_int_equal(creds.n_groups, 3);
        assert_int_equal(creds.groups[0], getgid());
        assert_int_equal(creds.groups[1], 100);
        assert_int_equal(creds.groups[2], 200);
        creds_deinit(&creds);

        with_primary[0] = 100;
        with_primary[1] = getgid();
        with_primary[2] = 300;
        fake_groups = with_primary;
        fake_n_groups = 3;
        read_creds(&creds);
        assert_int_equal(creds.n_groups, 3);
        assert_int_equal(creds.groups[0], 100);
        assert_int_equal(creds.groups[1], getgid());
        creds_deinit(&creds);
}

static void test_pidfd_when_the_kernel_has_it(void **state) {
        Creds creds;

        fake_groups = NULL;
        fake_pidfd = true;
        read_creds(&creds);
        /* A kernel without SO_PEERPIDFD answers ENOPROTOOPT itself: both are fine. */
        if (creds.pidfd >= 0) {
                assert_true(fcntl_is_valid(creds.pidfd));
                assert_true(fcntl(creds.pidfd, F_GETFD) & FD_CLOEXEC);
        }
        creds_deinit(&creds);
        assert_int_equal(creds.pidfd, -1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_lsm),
                cmocka_unit_test(test_smack_label),
                cmocka_unit_test(test_long_label_retries),
                cmocka_unit_test(test_groups_with_primary),
                cmocka_unit_test(test_pidfd_when_the_kernel_has_it),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
