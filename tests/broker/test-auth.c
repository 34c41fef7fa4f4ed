/* Unit tests for the SASL server state machine (broker/io/auth.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "auth.h"

#define GUID "0123456789abcdef0123456789abcdef"

typedef struct Feed {
        int result;
        size_t consumed;
        char out[1024];
} Feed;

static Feed feed(Auth *auth, const char *data, size_t n) {
        Feed f = {};
        size_t out_len = 0;

        f.result = auth_feed(auth, (const uint8_t *) data, n, &f.consumed, f.out, sizeof(f.out) - 1,
                             &out_len);
        f.out[out_len] = 0;
        return f;
}

#define FEED(auth, literal) feed((auth), (literal), sizeof(literal) - 1)

static void test_external_with_uid(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 1000, AUTH_MECH_EXTERNAL, true, GUID);
        /* "1000" in hex */
        f = FEED(&auth, "\0AUTH EXTERNAL 31303030\r\n");
        assert_int_equal(f.result, AUTH_E_MORE);
        assert_string_equal(f.out, "OK " GUID "\r\n");
        f = FEED(&auth, "BEGIN\r\n");
        assert_int_equal(f.result, AUTH_E_DONE);
        assert_int_equal(f.consumed, 7);
        assert_false(auth.unix_fd);
}

static void test_external_wrong_uid(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 1000, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0AUTH EXTERNAL 30\r\n");
        assert_int_equal(f.result, AUTH_E_MORE);
        assert_string_equal(f.out, "REJECTED EXTERNAL\r\n");
        assert_int_equal(auth.state, AUTH_STATE_WAIT_AUTH);
        /* BEGIN without OK is a protocol violation. */
        f = FEED(&auth, "BEGIN\r\n");
        assert_int_equal(f.result, AUTH_E_FAILED);
}

static void test_external_bad_hex(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0AUTH EXTERNAL 3g\r\n");
        assert_int_equal(f.result, AUTH_E_MORE);
        assert_true(strncmp(f.out, "ERROR", 5) == 0);
        f = FEED(&auth, "AUTH EXTERNAL 303\r\n");
        assert_true(strncmp(f.out, "ERROR", 5) == 0);
        assert_int_equal(auth.state, AUTH_STATE_WAIT_AUTH);
}

/* sd-bus pipelines everything in one write, messages included. */
static void test_pipelined_with_data_and_fds(void **state) {
        static const char input[] = "\0AUTH EXTERNAL\r\nDATA\r\nNEGOTIATE_UNIX_FD\r\nBEGIN\r\nl\1\0\1";
        Auth auth;
        Feed f;

        auth_init(&auth, 42, AUTH_MECH_EXTERNAL, true, GUID);
        f = feed(&auth, input, sizeof(input) - 1);
        assert_int_equal(f.result, AUTH_E_DONE);
        assert_string_equal(f.out, "DATA\r\nOK " GUID "\r\nAGREE_UNIX_FD\r\n");
        assert_int_equal(f.consumed, sizeof(input) - 1 - 4);
        assert_true(auth.unix_fd);
}

static void test_data_with_uid(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 42, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0AUTH EXTERNAL\r\nDATA 3433\r\n");
        assert_string_equal(f.out, "DATA\r\nREJECTED EXTERNAL\r\n");
        f = FEED(&auth, "AUTH EXTERNAL\r\nDATA 3432\r\n");
        assert_string_equal(f.out, "DATA\r\nOK " GUID "\r\n");
}

static void test_mechanism_list(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL | AUTH_MECH_ANONYMOUS, true, GUID);
        f = FEED(&auth, "\0AUTH\r\n");
        assert_string_equal(f.out, "REJECTED EXTERNAL ANONYMOUS\r\n");
        f = FEED(&auth, "AUTH DBUS_COOKIE_SHA1 31\r\n");
        assert_string_equal(f.out, "REJECTED EXTERNAL ANONYMOUS\r\n");
}

static void test_anonymous(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0AUTH ANONYMOUS 74657374\r\n");
        assert_string_equal(f.out, "REJECTED EXTERNAL\r\n");
        assert_false(auth.anonymous);

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL | AUTH_MECH_ANONYMOUS, true, GUID);
        f = FEED(&auth, "\0AUTH ANONYMOUS 74657374\r\nBEGIN\r\n");
        assert_int_equal(f.result, AUTH_E_DONE);
        assert_string_equal(f.out, "OK " GUID "\r\n");
        assert_true(auth.anonymous);
}

static void test_unix_fd_negotiation(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0NEGOTIATE_UNIX_FD\r\n");
        assert_true(strncmp(f.out, "ERROR", 5) == 0);
        assert_false(auth.unix_fd);

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, false, GUID);
        f = FEED(&auth, "\0AUTH EXTERNAL 30\r\nNEGOTIATE_UNIX_FD\r\n");
        assert_string_equal(f.out, "OK " GUID "\r\nERROR \"Unknown or unexpected command\"\r\n");
        assert_false(auth.unix_fd);
}

static void test_cancel_and_error(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0AUTH EXTERNAL\r\nCANCEL\r\n");
        assert_string_equal(f.out, "DATA\r\nREJECTED EXTERNAL\r\n");
        assert_int_equal(auth.state, AUTH_STATE_WAIT_AUTH);
        f = FEED(&auth, "AUTH EXTERNAL 30\r\nERROR \"no\"\r\n");
        assert_string_equal(f.out, "OK " GUID "\r\nREJECTED EXTERNAL\r\n");
        assert_int_equal(auth.state, AUTH_STATE_WAIT_AUTH);
}

static void test_missing_nul(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "AUTH EXTERNAL 30\r\n");
        assert_int_equal(f.result, AUTH_E_FAILED);
}

static void test_partial_line(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0AUTH EXTER");
        assert_int_equal(f.result, AUTH_E_MORE);
        assert_int_equal(f.consumed, 1);
        assert_string_equal(f.out, "");
        f = FEED(&auth, "AUTH EXTERNAL 30\r");
        assert_int_equal(f.consumed, 0);
        f = FEED(&auth, "AUTH EXTERNAL 30\r\n");
        assert_int_equal(f.consumed, 18);
        assert_string_equal(f.out, "OK " GUID "\r\n");
}

static void test_bare_newline_and_nul(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0AUTH EXTERNAL 30\n");
        assert_int_equal(f.result, AUTH_E_FAILED);
        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0AUTH\0EXTERNAL\r\n");
        assert_int_equal(f.result, AUTH_E_FAILED);
}

static void test_line_too_long(void **state) {
        static char input[AUTH_LINE_MAX + 16];
        Auth auth;
        Feed f;

        memset(input, 'A', sizeof(input));
        input[0] = 0;
        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = feed(&auth, input, sizeof(input));
        assert_int_equal(f.result, AUTH_E_FAILED);
}

static void test_too_many_failures(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0");
        for (unsigned i = 0; i < AUTH_FAILURES_MAX; i++) {
                f = FEED(&auth, "AUTH BOGUS\r\n");
                assert_int_equal(f.result, AUTH_E_MORE);
        }
        f = FEED(&auth, "AUTH BOGUS\r\n");
        assert_int_equal(f.result, AUTH_E_FAILED);
}

static void test_unknown_command(void **state) {
        Auth auth;
        Feed f;

        auth_init(&auth, 0, AUTH_MECH_EXTERNAL, true, GUID);
        f = FEED(&auth, "\0HELLO\r\nDATA\r\n");
        assert_string_equal(f.out, "ERROR \"Unknown or unexpected command\"\r\n"
                                   "ERROR \"Unknown or unexpected command\"\r\n");
        assert_int_equal(auth.state, AUTH_STATE_WAIT_AUTH);
}

static void test_mechanisms_from_names(void **state) {
        const char *const external[] = { "EXTERNAL" };
        const char *const both[] = { "EXTERNAL", "ANONYMOUS", "DBUS_COOKIE_SHA1" };

        assert_int_equal(auth_mechanisms_from_names(external, 1, true), AUTH_MECH_EXTERNAL);
        assert_int_equal(auth_mechanisms_from_names(both, 3, false), AUTH_MECH_EXTERNAL);
        assert_int_equal(auth_mechanisms_from_names(both, 3, true),
                         AUTH_MECH_EXTERNAL | AUTH_MECH_ANONYMOUS);
        assert_int_equal(auth_mechanisms_from_names(NULL, 0, false), AUTH_MECH_EXTERNAL);
        assert_int_equal(auth_mechanisms_from_names(NULL, 0, true),
                         AUTH_MECH_EXTERNAL | AUTH_MECH_ANONYMOUS);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_external_with_uid),
                cmocka_unit_test(test_external_wrong_uid),
                cmocka_unit_test(test_external_bad_hex),
                cmocka_unit_test(test_pipelined_with_data_and_fds),
                cmocka_unit_test(test_data_with_uid),
                cmocka_unit_test(test_mechanism_list),
                cmocka_unit_test(test_anonymous),
                cmocka_unit_test(test_unix_fd_negotiation),
                cmocka_unit_test(test_cancel_and_error),
                cmocka_unit_test(test_missing_nul),
                cmocka_unit_test(test_partial_line),
                cmocka_unit_test(test_bare_newline_and_nul),
                cmocka_unit_test(test_line_too_long),
                cmocka_unit_test(test_too_many_failures),
                cmocka_unit_test(test_unknown_command),
                cmocka_unit_test(test_mechanisms_from_names),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
