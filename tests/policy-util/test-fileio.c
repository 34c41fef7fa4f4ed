/*
 * Unit tests for policy/util/fileio.c's bounded read of a regular file
 * through a descriptor: what mssf-policy (dpkg, rpm) and rpm's plugin read
 * a package's manifest with. A directory, a FIFO, a symlink opened without
 * following, an over-long file and a failed open are each refused with the
 * reason; a file is read whole from offset 0 whatever the descriptor's.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fileio.h"

static char dir[] = "/tmp/test-fileio-XXXXXX";

static char *in_dir(const char *name) {
        char *path = fileio_join(dir, name);

        assert_non_null(path);
        return path;
}

static int refused(int fd, size_t max, const char *want_why) {
        char *data = (char *) 1;
        const char *why = NULL;
        size_t size = 7;
        int r = fileio_read_regular_fd(fd, max, &data, &size, &why);

        assert_int_equal(r, 1);
        assert_non_null(why);
        assert_non_null(strstr(why, want_why));
        assert_ptr_equal(data, (char *) 1);     /* untouched */
        assert_int_equal(size, 7);
        return r;
}

static void test_reads_whole_file(void **state) {
        _cleanup_free_ char *path = in_dir("file"), *data = NULL;
        const char *why = NULL;
        size_t size = 0;
        int fd;

        assert_int_equal(fileio_write_atomic(path, "<aegis/>\n", 9, 0644), 0);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(lseek(fd, 5, SEEK_SET), 5);    /* pread from 0, not from here */
        assert_int_equal(fileio_read_regular_fd(fd, 9, &data, &size, &why), 0);
        assert_int_equal(size, 9);
        assert_string_equal(data, "<aegis/>\n");
        assert_int_equal(lseek(fd, 0, SEEK_CUR), 5);
        close(fd);
}

static void test_refusals(void **state) {
        _cleanup_free_ char *path = in_dir("big"), *fifo = in_dir("fifo"), *link = in_dir("link");
        int fd;

        assert_int_equal(fileio_write_atomic(path, "0123456789", 10, 0644), 0);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        refused(fd, 9, "larger than 9 bytes");
        close(fd);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        refused(fd, 0, "larger than 0 bytes");
        close(fd);

        fd = open(dir, O_RDONLY | O_CLOEXEC);
        refused(fd, 1024, "not a regular file");
        close(fd);

        assert_int_equal(mkfifo(fifo, 0600), 0);
        fd = open(fifo, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        refused(fd, 1024, "not a regular file");
        close(fd);

        assert_int_equal(symlink(path, link), 0);
        fd = open(link, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_PATH);
        refused(fd, 1024, "not a regular file");
        close(fd);

        errno = 0;
        fd = open(link, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        assert_int_equal(fd, -1);
        refused(fd, 1024, strerror(ELOOP));
}

static void test_mib_wording(void **state) {
        _cleanup_free_ char *path = in_dir("mib");
        int fd;

        assert_int_equal(ftruncate(fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), (1 << 20) + 1), 0);
        refused(fd, 1 << 20, "larger than 1 MiB");
        close(fd);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_reads_whole_file),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_mib_wording),
        };
        int r;

        if (!mkdtemp(dir))
                return 1;
        r = cmocka_run_group_tests(tests, NULL, NULL);
        for (const char *const *name = (const char *const[]) { "file", "big", "fifo", "link", "mib", NULL };
             *name; name++) {
                _cleanup_free_ char *path = in_dir(*name);
                (void) unlink(path);
        }
        (void) rmdir(dir);
        return r;
}
