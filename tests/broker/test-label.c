/*
 * The Smack label end to end: SO_PEERSEC (wrapped getsockopt, playing a
 * kernel with Smack) is read at accept and GetConnectionCredentials gives
 * it back as LinuxSecurityLabel, bytes with the trailing NUL as
 * dbus-daemon sends them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "bus-harness.h"

#define CONFIG "<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen>" \
        "<policy context=\"default\"><allow send_destination=\"*\"/><allow receive_sender=\"*\"/><allow own=\"*\"/></policy></busconfig>"
#define LABEL "User::App::Maps"

int __real_getsockopt(int fd, int level, int name, void *value, socklen_t *len);
int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len);

int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len) {
        if (level == SOL_SOCKET && name == SO_PEERSEC) {
                if (*len < sizeof(LABEL)) {
                        *len = sizeof(LABEL);
                        errno = ERANGE;
                        return -1;
                }
                memcpy(value, LABEL, sizeof(LABEL));    /* Smack includes the NUL */
                *len = sizeof(LABEL);
                return 0;
        }
        return __real_getsockopt(fd, level, name, value, len);
}

static void test_label_in_credentials(void **state) {
        Harness h;
        Client a;
        _cleanup_(message_unrefp) Message *reply = NULL;
        MessageReader reader;
        bool found = false;
        uint32_t serial;

        harness_start(&h, CONFIG);
        client_connect(&h, &a, false, true);
        serial = client_call(&h, &a, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                             "GetConnectionCredentials", "s", a.unique_name);
        reply = client_wait_reply(&h, &a, serial);
        assert_non_null(reply);
        message_reader_init(&reader, reply);
        assert_int_equal(message_reader_enter(&reader, 'a', "{sv}"), 0);
        while (!message_reader_at_end(&reader)) {
                const char *key;

                assert_int_equal(message_reader_enter(&reader, 'e', "sv"), 0);
                assert_int_equal(message_reader_read_basic(&reader, 's', &key), 0);
                if (strcmp(key, "LinuxSecurityLabel") == 0) {
                        uint8_t bytes[64];
                        size_t n = 0;

                        assert_int_equal(message_reader_enter(&reader, 'v', "ay"), 0);
                        assert_int_equal(message_reader_enter(&reader, 'a', "y"), 0);
                        while (!message_reader_at_end(&reader) && n < sizeof(bytes))
                                assert_int_equal(message_reader_read_basic(&reader, 'y', &bytes[n++]), 0);
                        assert_int_equal(n, sizeof(LABEL));
                        assert_memory_equal(bytes, LABEL, sizeof(LABEL));
                        assert_int_equal(message_reader_exit(&reader), 0);
                        assert_int_equal(message_reader_exit(&reader), 0);
                        found = true;
                } else {
                        assert_int_equal(message_reader_skip(&reader), 0);
                }
                assert_int_equal(message_reader_exit(&reader), 0);
        }
        assert_true(found);
        client_close(&a);
        harness_stop(&h);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_label_in_credentials),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
