/* Unit tests for strmap.c: put/get/remove, growth, Robin Hood deletion, iteration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "strmap.h"

static void test_basic(void **state) {
        StrMap map = STRMAP_INIT;
        int a = 1, b = 2;

        assert_null(strmap_get(&map, "a"));
        assert_null(strmap_remove(&map, "a"));
        assert_int_equal(strmap_put(&map, "a", &a), 0);
        assert_int_equal(strmap_put(&map, "b", &b), 0);
        assert_int_equal(strmap_put(&map, "a", &b), STRMAP_E_EXISTS);
        assert_ptr_equal(strmap_get(&map, "a"), &a);
        assert_ptr_equal(strmap_get(&map, "b"), &b);
        assert_int_equal(strmap_size(&map), 2);
        assert_ptr_equal(strmap_remove(&map, "a"), &a);
        assert_null(strmap_get(&map, "a"));
        assert_int_equal(strmap_size(&map), 1);
        assert_int_equal(strmap_put(&map, "x", NULL), -EINVAL);
        strmap_deinit(&map);
        assert_int_equal(strmap_size(&map), 0);
}

static void test_lengths(void **state) {
        StrMap map = STRMAP_INIT;
        int v1 = 1, v2 = 2, v3 = 3;
        const char buf[] = "ab\0cd";

        /* Explicit lengths: prefixes and embedded NULs are distinct keys. */
        assert_int_equal(strmap_put_n(&map, buf, 1, &v1), 0);
        assert_int_equal(strmap_put_n(&map, buf, 2, &v2), 0);
        assert_int_equal(strmap_put_n(&map, buf, 5, &v3), 0);
        assert_ptr_equal(strmap_get(&map, "a"), &v1);
        assert_ptr_equal(strmap_get(&map, "ab"), &v2);
        assert_ptr_equal(strmap_get_n(&map, "ab\0cd", 5), &v3);
        assert_null(strmap_get_n(&map, "ab\0c", 4));
        assert_int_equal(strmap_put(&map, "", &v1), 0);
        assert_ptr_equal(strmap_get(&map, ""), &v1);
        strmap_deinit(&map);
}

#define N_KEYS 5000

/* Many keys, interleaved removal: checks backward shift keeps everything findable. */
static void test_many(void **state) {
        StrMap map = STRMAP_INIT;
        static char keys[N_KEYS][16];
        static int values[N_KEYS];

        for (int i = 0; i < N_KEYS; i++) {
                snprintf(keys[i], sizeof(keys[i]), ":1.%d", i);
                values[i] = i;
                assert_int_equal(strmap_put(&map, keys[i], &values[i]), 0);
        }
        assert_int_equal(strmap_size(&map), N_KEYS);
        assert_true(map.n_entries <= map.n_buckets - map.n_buckets / 8);

        for (int i = 0; i < N_KEYS; i += 3)
                assert_ptr_equal(strmap_remove(&map, keys[i]), &values[i]);
        for (int i = 0; i < N_KEYS; i++) {
                if (i % 3 == 0)
                        assert_null(strmap_get(&map, keys[i]));
                else
                        assert_ptr_equal(strmap_get(&map, keys[i]), &values[i]);
        }

        /* Robin Hood invariant: each entry's distance matches its position. */
        size_t mask = map.n_buckets - 1;
        for (size_t i = 0; i < map.n_buckets; i++) {
                const StrMapEntry *e = &map.entries[i];
                if (!e->key)
                        continue;
                assert_int_equal((e->hash + e->distance) & mask, i);
        }

        /* Iteration sees each remaining key exactly once. */
        static unsigned char seen[N_KEYS];
        size_t iter = 0, count = 0;
        const char *key;
        void *value;
        while (strmap_next(&map, &iter, &key, &value)) {
                int idx = *(int *)value;
                assert_string_equal(key, keys[idx]);
                assert_int_equal(seen[idx], 0);
                seen[idx] = 1;
                count++;
        }
        assert_int_equal(count, strmap_size(&map));
        assert_false(strmap_next(&map, &iter, &key, &value));

        for (int i = 0; i < N_KEYS; i++)
                if (i % 3 != 0)
                        assert_non_null(strmap_remove(&map, keys[i]));
        assert_int_equal(strmap_size(&map), 0);
        strmap_deinit(&map);
}

static void test_reserve(void **state) {
        StrMap map = STRMAP_INIT;
        int v = 0;

        assert_int_equal(strmap_reserve(&map, 100), 0);
        size_t buckets = map.n_buckets;
        assert_true(buckets >= 100);
        char keys[100][8];
        for (int i = 0; i < 100; i++) {
                snprintf(keys[i], sizeof(keys[i]), "k%d", i);
                assert_int_equal(strmap_put(&map, keys[i], &v), 0);
        }
        assert_int_equal(map.n_buckets, buckets);
        strmap_deinit(&map);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_basic),
                cmocka_unit_test(test_lengths),
                cmocka_unit_test(test_many),
                cmocka_unit_test(test_reserve),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
