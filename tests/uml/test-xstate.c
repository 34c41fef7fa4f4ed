/*
 * test-xstate: the XSAVE area uml-hostinfo reports is the one the host
 * kernel's ptrace hands a tracer such as user-mode-linux, and its size is
 * the standard-format size of the components the host enables (CPUID
 * leaf 0xD, EBX), whatever the CPU: 832, 2432, 2696 or 11008 bytes.
 */
#include <cpuid.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "xstate.h"

static void test_host_size_is_cpuid_size(void **state) {
        unsigned a, b, c, d;
        long size = xstate_host_size();

        (void) state;
        assert_true(__get_cpuid_count(0xd, 0, &a, &b, &c, &d));
        assert_int_equal(size, (long) b);
        /* The legacy area and the XSAVE header at least. */
        assert_true(size >= 576);
}

static void test_features_name_the_basics(void **state) {
        char buf[128];

        (void) state;
        xstate_features(buf, sizeof buf);
        assert_non_null(strstr(buf, "x87"));
        assert_non_null(strstr(buf, "SSE"));
        /* A buffer too small is cut, never overrun. */
        xstate_features(buf, 5);
        assert_true(strlen(buf) < 5);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_host_size_is_cpuid_size),
                cmocka_unit_test(test_features_name_the_basics),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
