/* The denial log's rate limit: a burst per interval, then a count of what was held back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ratelimit.h"

static void test_burst_then_suppressed(void **state) {
        RateLimit rl = RATELIMIT_INIT(1000000, 3);
        uint64_t held;
        for (int i = 0; i < 3; i++)
                assert_true(ratelimit_below(&rl, 5000000 + (uint64_t)i, &held));
        assert_false(ratelimit_below(&rl, 5000010, &held));
        assert_false(ratelimit_below(&rl, 5999999, &held));
        assert_int_equal(held, 0);
        /* a new interval: through again, and told how many were held back */
        assert_true(ratelimit_below(&rl, 6000000, &held));
        assert_int_equal(held, 2);
        assert_true(ratelimit_below(&rl, 6000001, &held));
        assert_int_equal(held, 0);
}

static void test_clock_going_back(void **state) {
        RateLimit rl = RATELIMIT_INIT(1000000, 1);
        assert_true(ratelimit_below(&rl, 9000000, NULL));
        assert_false(ratelimit_below(&rl, 9000001, NULL));
        /* time before the window's start restarts it rather than silencing for ever */
        assert_true(ratelimit_below(&rl, 100, NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_burst_then_suppressed),
                cmocka_unit_test(test_clock_going_back),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
