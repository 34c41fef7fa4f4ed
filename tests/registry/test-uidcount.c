/*
 * Unit tests of broker/registry/uidcount.c against a plain array: random
 * adds and removes over uids that collide in the table (multiples of its
 * size), the extremes of the uid range, growth, and the backward-shift
 * deletion leaving every other count findable.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "uidcount.h"

#define N_UIDS 64

static uid_t uid_of(unsigned i) {
        /* Every 8th a large uid, others multiples of 16 and 1024: many share a home slot. */
        if (i == 0)
                return 0;
        if (i == 1)
                return (uid_t) UINT32_MAX;
        if (i % 8 == 0)
                return (uid_t) (4000000000u + i);
        return (uid_t) (i % 2 ? i * 16 : i * 1024);
}

static void check_all(const UidCount *c, const unsigned *expect) {
        size_t used = 0;

        for (unsigned i = 0; i < N_UIDS; i++) {
                assert_int_equal(uid_count_get(c, uid_of(i)), expect[i]);
                used += expect[i] > 0;
        }
        assert_int_equal(c->n_used, used);
        assert_int_equal(uid_count_get(c, 12345), 0);
}

static void test_against_an_array(void **state) {
        UidCount c = UID_COUNT_INIT;
        unsigned expect[N_UIDS] = {};

        srand(7);
        check_all(&c, expect);
        for (int step = 0; step < 20000; step++) {
                unsigned i = (unsigned) rand() % N_UIDS;

                if (expect[i] > 0 && rand() % 2) {
                        uid_count_remove(&c, uid_of(i));
                        expect[i]--;
                } else {
                        assert_int_equal(uid_count_add(&c, uid_of(i)), 0);
                        expect[i]++;
                }
                if (step % 97 == 0)
                        check_all(&c, expect);
        }
        check_all(&c, expect);
        /* Everything gone: the table is empty again. */
        for (unsigned i = 0; i < N_UIDS; i++)
                while (expect[i] > 0) {
                        uid_count_remove(&c, uid_of(i));
                        expect[i]--;
                }
        check_all(&c, expect);
        for (size_t i = 0; i < c.n_slots; i++)
                assert_int_equal(c.slots[i].count, 0);
        uid_count_deinit(&c);
        assert_null(c.slots);
}

static void test_remove_of_nothing(void **state) {
        UidCount c = UID_COUNT_INIT;

        uid_count_remove(&c, 5);
        assert_int_equal(uid_count_add(&c, 5), 0);
        uid_count_remove(&c, 6);
        assert_int_equal(uid_count_get(&c, 5), 1);
        uid_count_deinit(&c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_against_an_array),
                cmocka_unit_test(test_remove_of_nothing),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
