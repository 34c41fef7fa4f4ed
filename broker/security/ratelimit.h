/* ratelimit: at most a burst of events per interval, counting the rest. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct RateLimit {
        uint64_t interval_usec;
        unsigned burst;
        uint64_t begin;                 /* start of the current interval */
        unsigned count;                 /* events let through in it */
        uint64_t suppressed;            /* events held back since the last report */
} RateLimit;

#define RATELIMIT_INIT(interval, n) { .interval_usec = (interval), .burst = (n) }

/*
 * Whether one more event may be reported at now. When a new interval
 * starts, *ret_suppressed (nullable) gets how many were held back in the
 * previous ones, so the caller can say so once, and the count restarts.
 */
bool ratelimit_below(RateLimit *rl, uint64_t now_usec, uint64_t *ret_suppressed);
