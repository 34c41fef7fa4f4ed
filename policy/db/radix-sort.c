/*
 * Least-significant-digit radix sort for the builder's rule tables.
 *
 * policy_builder_build() sorts every rule twice (raw rules before they
 * are merged, then all rules with the derived unions); with qsort() and
 * a comparison over five or six fields that was 10% of compiling 1,000
 * manifests. The keys are string ranks and indexes, so they are small
 * integers: 11-bit digits, only as many passes as the largest value of
 * each field needs (a field that is zero everywhere costs one scan), each
 * pass a counting sort, which is stable, so the whole sort is.
 */
#include "radix-sort.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RADIX_BITS 11
#define RADIX_BUCKETS (1u << RADIX_BITS)

static uint32_t field_of(const uint8_t *record, size_t offset) {
        uint32_t value;

        memcpy(&value, record + offset, sizeof(value));
        return value;
}

static void copy_record(uint8_t *to, const uint8_t *from, size_t size) {
        for (size_t i = 0; i < size; i += sizeof(uint32_t))
                memcpy(to + i, from + i, sizeof(uint32_t));
}

/* One stable counting pass on the digit at shift of the field at offset. */
static void radix_pass(const uint8_t *from, uint8_t *to, size_t n, size_t size, size_t offset,
                       unsigned shift, size_t *count) {
        memset(count, 0, RADIX_BUCKETS * sizeof(*count));
        for (size_t i = 0; i < n; i++)
                count[(field_of(from + i * size, offset) >> shift) & (RADIX_BUCKETS - 1)]++;
        for (size_t d = 0, at = 0; d < RADIX_BUCKETS; d++) {
                size_t c = count[d];

                count[d] = at;
                at += c;
        }
        for (size_t i = 0; i < n; i++) {
                const uint8_t *record = from + i * size;
                size_t d = (field_of(record, offset) >> shift) & (RADIX_BUCKETS - 1);

                copy_record(to + count[d]++ * size, record, size);
        }
}

int radix_sort_records(void *records, size_t n, size_t size, const size_t *offsets,
                       size_t n_fields) {
        uint8_t *data = records, *from = records, *to;
        size_t *count;

        if (n < 2)
                return 0;
        to = malloc(n * size);
        count = malloc(RADIX_BUCKETS * sizeof(*count));
        if (!to || !count) {
                free(to);
                free(count);
                return -ENOMEM;
        }
        uint8_t *spare = to;

        for (size_t f = n_fields; f-- > 0;) {
                uint32_t max = 0;

                for (size_t i = 0; i < n; i++) {
                        uint32_t value = field_of(from + i * size, offsets[f]);

                        if (value > max)
                                max = value;
                }
                for (unsigned shift = 0; shift < 32 && (max >> shift) != 0; shift += RADIX_BITS) {
                        radix_pass(from, to, n, size, offsets[f], shift, count);
                        uint8_t *swap = from;
                        from = to;
                        to = swap;
                }
        }
        if (from != data)
                memcpy(data, from, n * size);
        free(spare);
        free(count);
        return 0;
}
