/* The text dump: golden output for the basic fixture, determinism, write errors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "db-fixture.h"
#include "dump.h"
#include "golden-util.h"

static const char *golden_dir;

static char *dump_to_string(const PolicyDb *db, size_t *ret_size) {
        char *text = NULL;
        FILE *f = open_memstream(&text, ret_size);

        assert_non_null(f);
        assert_int_equal(policy_db_dump(db, f), 0);
        assert_int_equal(fclose(f), 0);
        return text;
}

static void test_golden(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        _cleanup_free_ char *text = NULL;
        size_t size;

        text = dump_to_string(db, &size);
        golden_compare(golden_dir, "basic.dump", text, size);
}

static void test_deterministic(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *a = fixture_open_basic();
        _cleanup_(policy_db_freep) PolicyDb *b = fixture_open_basic();
        _cleanup_free_ char *ta = NULL, *tb = NULL;
        size_t na, nb;

        ta = dump_to_string(a, &na);
        tb = dump_to_string(b, &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(ta, tb, na);
}

static void test_write_error(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        FILE *f = fopen("/dev/full", "w");

        assert_non_null(f);
        setvbuf(f, NULL, _IONBF, 0);
        assert_int_equal(policy_db_dump(db, f), -EIO);
        fclose(f);
        assert_int_equal(policy_db_dump(NULL, stdout), -EINVAL);
}

int main(int argc, char **argv) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_golden),
                cmocka_unit_test(test_deterministic),
                cmocka_unit_test(test_write_error),
        };

        if (argc != 2) {
                fprintf(stderr, "usage: %s GOLDEN-DIR\n", argv[0]);
                return 2;
        }
        golden_dir = argv[1];
        return cmocka_run_group_tests(tests, NULL, NULL);
}
