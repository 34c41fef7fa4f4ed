/* The atomic writer: contents, mode, replacement, no leftovers, failures. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "db-fixture.h"
#include "db-write.h"

static char dir[] = "/tmp/test-db-write-XXXXXX";

static unsigned count_entries(void) {
        DIR *d = opendir(dir);
        struct dirent *de;
        unsigned n = 0;

        assert_non_null(d);
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        n++;
        closedir(d);
        return n;
}

static int setup(void **state) {
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
        char path[256];

        snprintf(path, sizeof(path), "%s/policy.db", dir);
        unlink(path);
        return rmdir(dir);
}

static void test_write_and_replace(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_free_ char *back = NULL;
        char path[256];
        struct stat st;
        size_t size, back_size;

        snprintf(path, sizeof(path), "%s/policy.db", dir);
        assert_int_equal(policy_db_write(path, "old", 3), 0);
        fixture_build_basic(&data, &size);
        assert_int_equal(policy_db_write(path, data, size), 0);
        back = fixture_read_file(path, &back_size);
        assert_int_equal(back_size, size);
        assert_memory_equal(back, data, size);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        assert_int_equal(count_entries(), 1);   /* no temporary file left */
        assert_int_equal(policy_db_open(path, &db), 0);
}

static void test_failures_leave_nothing(void **state) {
        char path[256];

        assert_int_equal(policy_db_write("/nonexistent-dir/policy.db", "x", 1), -ENOENT);
        /* A directory in the way: rename fails, the temporary goes away. */
        snprintf(path, sizeof(path), "%s/in-the-way", dir);
        assert_int_equal(mkdir(path, 0755), 0);
        assert_true(policy_db_write(path, "x", 1) < 0);
        assert_int_equal(count_entries(), 2);   /* policy.db and in-the-way only */
        assert_int_equal(rmdir(path), 0);
        assert_int_equal(policy_db_write(NULL, "x", 1), -EINVAL);
        assert_int_equal(policy_db_write("", "x", 1), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_write_and_replace),
                cmocka_unit_test(test_failures_leave_nothing),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
