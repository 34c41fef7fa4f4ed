/*
 * radix_sort_records(): the compiled rules' order, which policy.db's bytes
 * depend on. Compared with a plain stable insertion sort over the same
 * records: few distinct key values (so equal keys are common and stability
 * shows), keys across all four bytes, one to three fields, several record
 * sizes and lengths, including the empty and one-record cases.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "radix-sort.h"

/* A record: up to three key fields, then the index it started at. */
typedef struct Record {
        uint32_t key[3];
        uint32_t seq;
} Record;

static const size_t key_offsets[] = {
        offsetof(Record, key[0]), offsetof(Record, key[1]), offsetof(Record, key[2]),
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void) {
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return (uint32_t) rng_state;
}

/* Keys drawn from a few values spread over every byte, so each radix pass matters. */
static uint32_t random_key(void) {
        static const uint32_t values[] = { 0, 1, 0xff, 0x100, 0x10000, 0x1000000, 0xffffffffu, 0x80000001u };

        return values[rng() % (sizeof(values) / sizeof(values[0]))];
}

static int compare(const Record *a, const Record *b, size_t n_fields) {
        for (size_t i = 0; i < n_fields; i++)
                if (a->key[i] != b->key[i])
                        return a->key[i] < b->key[i] ? -1 : 1;
        return 0;
}

/* The reference: insertion sort, stable by construction. */
static void reference_sort(Record *r, size_t n, size_t n_fields) {
        for (size_t i = 1; i < n; i++) {
                Record x = r[i];
                size_t j = i;

                while (j > 0 && compare(&r[j - 1], &x, n_fields) > 0) {
                        r[j] = r[j - 1];
                        j--;
                }
                r[j] = x;
        }
}

static void check(size_t n, size_t n_fields) {
        Record *got = calloc(n ? n : 1, sizeof(Record));
        Record *want = calloc(n ? n : 1, sizeof(Record));

        assert_non_null(got);
        assert_non_null(want);
        for (size_t i = 0; i < n; i++) {
                got[i] = (Record) { { random_key(), random_key(), random_key() }, (uint32_t) i };
                want[i] = got[i];
        }
        assert_int_equal(radix_sort_records(got, n, sizeof(Record), key_offsets, n_fields), 0);
        reference_sort(want, n, n_fields);
        assert_memory_equal(got, want, n * sizeof(Record));
        free(got);
        free(want);
}

static void test_lengths_and_fields(void **state) {
        static const size_t lengths[] = { 0, 1, 2, 3, 17, 255, 256, 257, 1000, 3000 };

        (void) state;
        for (size_t f = 1; f <= 3; f++)
                for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
                        check(lengths[i], f);
}

/* A smaller record (8 bytes: one key and the sequence) sorts the same way. */
static void test_small_records(void **state) {
        static const size_t offsets[] = { 0 };
        uint32_t pairs[2 * 500];

        (void) state;
        for (uint32_t i = 0; i < 500; i++) {
                pairs[2 * i] = random_key();
                pairs[2 * i + 1] = i;
        }
        assert_int_equal(radix_sort_records(pairs, 500, 2 * sizeof(uint32_t), offsets, 1), 0);
        for (size_t i = 1; i < 500; i++) {
                assert_true(pairs[2 * (i - 1)] <= pairs[2 * i]);
                if (pairs[2 * (i - 1)] == pairs[2 * i])
                        assert_true(pairs[2 * (i - 1) + 1] < pairs[2 * i + 1]);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lengths_and_fields),
                cmocka_unit_test(test_small_records),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
