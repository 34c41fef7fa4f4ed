/*
 * ratelimit: denials are logged once each, but a client that hammers a
 * protected method must not flood the journal, and the bus must not spend
 * its time writing logs. A fixed-window limit is enough: up to burst lines
 * per interval, then silence, then one line saying how many were held back.
 */
#include "ratelimit.h"

bool ratelimit_below(RateLimit *rl, uint64_t now_usec, uint64_t *ret_suppressed) {
        if (ret_suppressed)
                *ret_suppressed = 0;
        if (rl->begin == 0 || now_usec - rl->begin >= rl->interval_usec || now_usec < rl->begin) {
                if (ret_suppressed)
                        *ret_suppressed = rl->suppressed;
                rl->suppressed = 0;
                rl->begin = now_usec ? now_usec : 1;
                rl->count = 0;
        }
        if (rl->count < rl->burst) {
                rl->count++;
                return true;
        }
        rl->suppressed++;
        return false;
}
