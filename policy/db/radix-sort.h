/* A stable radix sort of records by their uint32_t fields. */
#pragma once

#include <stddef.h>

/*
 * Sort n records of size bytes (a multiple of 4) by the uint32_t fields at
 * offsets[0..n_fields), offsets[0] the most significant. Stable: records
 * with equal fields keep their order, as with glibc's merge sort, so the
 * result is the same as qsort() with the matching comparison gave.
 * 0 or -ENOMEM (records unchanged).
 */
int radix_sort_records(void *records, size_t n, size_t size, const size_t *offsets,
                       size_t n_fields);
