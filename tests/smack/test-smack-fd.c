/*
 * smack_fd_check() and smack_fd_receivable(): the label of a passed
 * descriptor, read from the descriptor, judged for the receiver's label
 * in the mode it was opened in, through the fake kernel; a label that
 * cannot be read is told apart from one the rules deny (the recipient's
 * check refuses only the latter), and is still a "no" for an observer. Labels are real security.SMACK64 xattrs on
 * files in the build directory (root sets them without Smack on ext4 and
 * tmpfs; SKIP where the file system refuses). The real kernel, sockets
 * included, is tests/e2e's reattack group.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake-smackfs.h"
#include "smack-fd.h"

typedef struct Fixture {
        FakeSmackfs *fake;
        SmackOracle *oracle;
        const SmackLabel *app;
        char labelled[64];      /* labelled "filelab" */
        char bare[64];          /* no label */
} Fixture;

static char labelled_path[] = "smack-fd-labelled-XXXXXX";

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        int fd;

        assert_non_null(f);
        f->fake = fake_smackfs_new(true);
        assert_int_equal(smack_oracle_new(f->fake->dir, &f->oracle), 0);
        assert_int_equal(smack_label_intern("app", &f->app), 0);
        snprintf(f->labelled, sizeof(f->labelled), "%s", labelled_path);
        snprintf(f->bare, sizeof(f->bare), "smack-fd-bare-XXXXXX");
        fd = mkstemp(f->labelled);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(setxattr(f->labelled, "security.SMACK64", "filelab", 7, 0), 0);
        fd = mkstemp(f->bare);
        assert_true(fd >= 0);
        close(fd);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        unlink(f->labelled);
        unlink(f->bare);
        smack_oracle_free(f->oracle);
        fake_smackfs_free(f->fake);
        free(f);
        return 0;
}

/* smack_fd_receivable() of path opened with flags. */
static int receivable(Fixture *f, const char *path, int flags) {
        int fd = open(path, flags | O_CLOEXEC);
        int r;

        assert_true(fd >= 0);
        r = smack_fd_receivable(f->oracle, f->app, fd);
        close(fd);
        return r;
}

static void test_mode_decides(void **state) {
        Fixture *f = *state;

        /* No rule: nothing. */
        assert_int_equal(receivable(f, f->labelled, O_RDONLY), 0);
        fake_smackfs_grant(f->fake, "app", "filelab", "r");
        smack_oracle_flush(f->oracle);
        assert_int_equal(receivable(f, f->labelled, O_RDONLY), 1);
        assert_int_equal(receivable(f, f->labelled, O_WRONLY), 0);
        assert_int_equal(receivable(f, f->labelled, O_RDWR), 0);
        fake_smackfs_grant(f->fake, "app", "filelab", "w");
        smack_oracle_flush(f->oracle);
        assert_int_equal(receivable(f, f->labelled, O_WRONLY), 1);
        assert_int_equal(receivable(f, f->labelled, O_RDONLY), 0);
        fake_smackfs_grant(f->fake, "app", "filelab", "rw");
        smack_oracle_flush(f->oracle);
        assert_int_equal(receivable(f, f->labelled, O_RDWR), 1);
}

/* What cannot be judged is a "no": a file without label, O_PATH, a socket without Smack's labels, bad arguments. */
static void test_fails_closed(void **state) {
        Fixture *f = *state;
        int pair[2];

        fake_smackfs_grant(f->fake, "app", "filelab", "rw");
        assert_true(receivable(f, f->bare, O_RDONLY) < 0);
        /* O_PATH: fgetxattr() cannot read its label (EBADF). */
        assert_true(receivable(f, f->labelled, O_PATH) < 0);
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
        assert_true(smack_fd_receivable(f->oracle, f->app, pair[0]) < 0);
        close(pair[0]);
        close(pair[1]);
        assert_int_equal(smack_fd_receivable(f->oracle, f->app, -1), -EINVAL);
        assert_int_equal(smack_fd_receivable(f->oracle, NULL, 0), -EINVAL);
        assert_int_equal(smack_fd_receivable(NULL, f->app, 0), -EINVAL);
}

/* smack_fd_check() of path opened with flags; *ret filled. */
static int check(Fixture *f, const char *path, int flags, SmackFdLabel *ret) {
        int fd = open(path, flags | O_CLOEXEC);
        int r;

        assert_true(fd >= 0);
        *ret = (SmackFdLabel) { .error = 1 };
        r = smack_fd_check(f->oracle, f->app, fd, ret);
        close(fd);
        return r;
}

/* Denied: a label was read and the rules refuse it; *ret names it and the access asked. */
static void test_check_denied(void **state) {
        Fixture *f = *state;
        SmackFdLabel judged;

        fake_smackfs_grant(f->fake, "app", "filelab", "r");
        assert_int_equal(check(f, f->labelled, O_RDWR, &judged), SMACK_FD_E_DENIED);
        assert_non_null(judged.label);
        assert_string_equal(judged.label->text, "filelab");
        assert_string_equal(judged.access, "rw");
        assert_int_equal(judged.error, 0);
        assert_int_equal(check(f, f->labelled, O_WRONLY, &judged), SMACK_FD_E_DENIED);
        assert_string_equal(judged.access, "w");
}

/* Unreadable: no label on the file, or none readable through the descriptor (O_PATH), or a socket's. */
static void test_check_unreadable(void **state) {
        Fixture *f = *state;
        SmackFdLabel judged;
        int pair[2];

        assert_int_equal(check(f, f->bare, O_RDONLY, &judged), SMACK_FD_E_UNREADABLE);
        assert_null(judged.label);
        assert_int_equal(judged.error, -ENODATA);
        assert_int_equal(check(f, f->labelled, O_PATH, &judged), SMACK_FD_E_UNREADABLE);
        assert_int_equal(judged.error, -EBADF);
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
        assert_int_equal(smack_fd_check(f->oracle, f->app, pair[0], &judged), SMACK_FD_E_UNREADABLE);
        assert_true(judged.error < 0);
        close(pair[0]);
        close(pair[1]);
        /* The observer's answer for the same descriptors: the errno, a "no". */
        assert_int_equal(receivable(f, f->bare, O_RDONLY), -ENODATA);
        assert_int_equal(receivable(f, f->labelled, O_PATH), -EBADF);
}

/* Allowed: 0, and *ret untouched. */
static void test_check_allowed(void **state) {
        Fixture *f = *state;
        SmackFdLabel judged;

        fake_smackfs_grant(f->fake, "app", "filelab", "r");
        assert_int_equal(check(f, f->labelled, O_RDONLY, &judged), 0);
        assert_int_equal(judged.error, 1);
        assert_null(judged.label);
        assert_int_equal(smack_fd_check(f->oracle, f->app, -1, &judged), -EINVAL);
        assert_int_equal(smack_fd_check(f->oracle, f->app, 0, NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_mode_decides, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fails_closed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_check_denied, setup, teardown),
                cmocka_unit_test_setup_teardown(test_check_unreadable, setup, teardown),
                cmocka_unit_test_setup_teardown(test_check_allowed, setup, teardown),
        };
        int fd = mkstemp(labelled_path);
        int r;

        if (fd < 0)
                return 99;
        close(fd);
        r = setxattr(labelled_path, "security.SMACK64", "filelab", 7, 0);
        unlink(labelled_path);
        memcpy(labelled_path + strlen(labelled_path) - 6, "XXXXXX", 6);
        if (r < 0) {
                printf("SKIP: cannot set security.SMACK64 here (%s)\n", strerror(errno));
                return 77;
        }
        return cmocka_run_group_tests(tests, NULL, NULL);
}
