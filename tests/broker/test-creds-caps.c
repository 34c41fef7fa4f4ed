/*
 * Unit tests for broker/io/creds-caps.c: the "CapEff:" parser takes only the
 * kernel's exact shape (a /proc/PID/status is text the bus does not
 * control), and the reader confirms the process with its pidfd. The
 * reader runs against this process's own /proc and a child that exited.
 */
#include <errno.h>
#include <linux/capability.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "creds-caps.h"
#include "macro.h"

#define STATUS_HEAD "Name:\tservice\nUmask:\t0022\nState:\tS (sleeping)\nPid:\t42\n" \
        "CapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\n"
#define STATUS_TAIL "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\n"

static int parse(const char *text, uint64_t *ret) {
        return creds_caps_parse_status(text, strlen(text), ret);
}

static void test_parse_valid(void **state) {
        uint64_t effective = 0;

        (void) state;
        assert_int_equal(parse(STATUS_HEAD "CapEff:\t000001ffffffffff\n" STATUS_TAIL, &effective), 0);
        assert_true(effective == UINT64_C(0x000001ffffffffff));
        assert_true(effective & (UINT64_C(1) << CAP_MAC_OVERRIDE));
        assert_int_equal(parse(STATUS_HEAD "CapEff:\t00000000A80425FB\n" STATUS_TAIL, &effective), 0);
        assert_true(effective == UINT64_C(0xa80425fb));
        assert_false(effective & (UINT64_C(1) << CAP_MAC_OVERRIDE));
        /* The last line of the file. */
        assert_int_equal(parse("CapEff:\t0000000100000000\n", &effective), 0);
        assert_true(effective == UINT64_C(1) << 32);
}

static void test_parse_malformed(void **state) {
        static const char *const bad[] = {
                STATUS_HEAD "CapEff:\t00000000000000\n" STATUS_TAIL,             /* 14 digits */
                STATUS_HEAD "CapEff:\t00000000000000000\n" STATUS_TAIL,          /* 17 digits */
                STATUS_HEAD "CapEff: 0000000000000000\n" STATUS_TAIL,            /* a space, not a tab */
                STATUS_HEAD "CapEff:\t\t000000000000000\n" STATUS_TAIL,
                STATUS_HEAD "CapEff:\t000001fffffffffg\n" STATUS_TAIL,           /* not hex */
                STATUS_HEAD "CapEff:\t-00001ffffffffff\n" STATUS_TAIL,
                STATUS_HEAD "CapEff:\t000001ffffffffff \n" STATUS_TAIL,          /* trailing space */
                STATUS_HEAD "CapEff:\t000001ffffffffff",                         /* no newline */
                STATUS_HEAD "CapEff:\t0000000000000000\nCapEff:\t000001ffffffffff\n" STATUS_TAIL,
        };
        uint64_t effective = 7;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                assert_int_equal(parse(bad[i], &effective), -EBADMSG);
                assert_true(effective == 7);    /* not written on failure */
        }
        /* A NUL inside: not the kernel's text, whatever follows. */
        assert_int_equal(creds_caps_parse_status("Name:\tx\0\nCapEff:\t000001ffffffffff\n", 35, &effective),
                         -EBADMSG);
}

static void test_parse_missing(void **state) {
        uint64_t effective = 7;

        (void) state;
        assert_int_equal(parse(STATUS_HEAD STATUS_TAIL, &effective), -ENODATA);
        assert_int_equal(parse("", &effective), -ENODATA);
        /* Only at the start of a line: a name cannot smuggle one in. */
        assert_int_equal(parse("Name:\tCapEff:\t000001ffffffffff\n" STATUS_TAIL, &effective), -ENODATA);
        assert_int_equal(parse(STATUS_HEAD "CapEffX:\t000001ffffffffff\n" STATUS_TAIL, &effective), -ENODATA);
        assert_true(effective == 7);
}

static void test_parse_too_long(void **state) {
        size_t size = CREDS_CAPS_STATUS_MAX + 1;
        char *text = malloc(size);
        uint64_t effective = 7;
        const char *line = "CapEff:\t000001ffffffffff\n";

        (void) state;
        assert_non_null(text);
        memset(text, 'x', size);
        memcpy(text, line, strlen(line));
        text[strlen(line)] = '\n';
        assert_int_equal(creds_caps_parse_status(text, size, &effective), -E2BIG);
        /* The same at the bound is read. */
        text[size - 2] = '\n';
        assert_int_equal(creds_caps_parse_status(text, size - 1, &effective), 0);
        assert_true(effective == UINT64_C(0x000001ffffffffff));
        free(text);
}

/* What capget() says of this process's effective set. */
static uint64_t own_effective(void) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[2] = { 0 };

        assert_int_equal(syscall(SYS_capget, &header, data), 0);
        return (uint64_t) data[1].effective << 32 | data[0].effective;
}

static void test_read_self(void **state) {
        int pidfd = (int) syscall(SYS_pidfd_open, getpid(), 0);
        uint64_t effective = 0;

        (void) state;
        assert_int_equal(creds_caps_read(getpid(), -1, &effective), 0);
        assert_true(effective == own_effective());
        if (pidfd >= 0) {
                effective = 0;
                assert_int_equal(creds_caps_read(getpid(), pidfd, &effective), 0);
                assert_true(effective == own_effective());
                close(pidfd);
        }
        assert_int_equal(creds_caps_mac_override(getpid(), -1),
                         (own_effective() & (UINT64_C(1) << CAP_MAC_OVERRIDE)) != 0);
        assert_int_equal(creds_caps_read(0, -1, &effective), -ESRCH);
        assert_false(creds_caps_mac_override(0, -1));
}

/* A process that exited (a zombie: its /proc/PID/status is still there): its pidfd says so. */
static void test_read_exited(void **state) {
        uint64_t effective = 7;
        pid_t child = fork();
        int pidfd;

        (void) state;
        assert_true(child >= 0);
        if (child == 0)
                _exit(0);
        pidfd = (int) syscall(SYS_pidfd_open, child, 0);
        if (pidfd < 0) {
                waitpid(child, NULL, 0);
                skip();
        }
        /* Until the pidfd is readable: the child has exited, unreaped. */
        while (creds_caps_read(child, pidfd, &effective) == 0)
                usleep(1000);
        assert_int_equal(creds_caps_read(child, pidfd, &effective), -ESRCH);
        assert_true(effective == 7 || effective == own_effective());
        assert_false(creds_caps_mac_override(child, pidfd));
        close(pidfd);
        assert_int_equal(waitpid(child, NULL, 0), child);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_valid),
                cmocka_unit_test(test_parse_malformed),
                cmocka_unit_test(test_parse_missing),
                cmocka_unit_test(test_parse_too_long),
                cmocka_unit_test(test_read_self),
                cmocka_unit_test(test_read_exited),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
