/*
 * libmssf's sd-bus interface against a real bus without Smack (the built
 * mssf-broker) and dbus-daemon: return values and sd_bus_error as sd-bus
 * authors expect them, the asynchronous form's callback from
 * sd_bus_process() only, a slot unreferenced before the answer cancels
 * it, a floating question is answered once, and a message without a
 * sender has no one to ask about; a reply that is not exactly one
 * boolean is an error, never "no" and never "yes".
 *   test-libmssf-sd-bus MSSF_BROKER [DBUS_DAEMON]
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <systemd/sd-bus.h>

#include "mssf/mssf-sd-bus.h"
#include "test-bus.h"

static const char *broker_path, *reference_path;

static sd_bus *connect_to(const TestBus *test_bus) {
        sd_bus *bus = NULL;

        assert_int_equal(sd_bus_new(&bus), 0);
        assert_true(sd_bus_set_address(bus, test_bus->address) >= 0);
        assert_true(sd_bus_set_bus_client(bus, 1) >= 0);
        assert_true(sd_bus_start(bus) >= 0);
        return bus;
}

static const char *unique_name(sd_bus *bus) {
        const char *name = NULL;

        assert_true(sd_bus_get_unique_name(bus, &name) >= 0);
        return name;
}

static void expect(int r, const sd_bus_error *error, int expected, const char *name, const char *text) {
        if (r != expected)
                fail_msg("got %d (%s: %s), expected %d", r, error->name ? error->name : "-",
                         error->message ? error->message : "-", expected);
        assert_string_equal(error->name, name);
        if (text && !strstr(error->message, text))
                fail_msg("'%s' not in '%s'", text, error->message);
}

static void test_arguments(void **state) {
        TestBus test_bus;
        sd_bus *bus;
        sd_bus_error error = SD_BUS_ERROR_NULL;

        test_bus_start(&test_bus, broker_path);
        bus = connect_to(&test_bus);
        expect(mssf_sd_bus_check_token(bus, "org.example.Service", "work", &error), &error, -EINVAL,
               SD_BUS_ERROR_INVALID_ARGS, "not a unique connection name");
        sd_bus_error_free(&error);
        expect(mssf_sd_bus_check_token(bus, ":1.1", "two words", &error), &error, -EINVAL,
               SD_BUS_ERROR_INVALID_ARGS, "Cannot ask whether :1.1 holds \"two words\"");
        sd_bus_error_free(&error);
        expect(mssf_sd_bus_check_token(bus, ":1.1", NULL, &error), &error, -EINVAL, SD_BUS_ERROR_INVALID_ARGS, NULL);
        sd_bus_error_free(&error);
        expect(mssf_sd_bus_check_token(NULL, ":1.1", "work", &error), &error, -EINVAL, SD_BUS_ERROR_INVALID_ARGS, NULL);
        sd_bus_error_free(&error);
        /* No sd_bus_error wanted: the return value alone. */
        assert_int_equal(mssf_sd_bus_check_token(bus, "x", "work", NULL), -EINVAL);
        assert_int_equal(mssf_sd_bus_check_token_async(bus, NULL, ":1.1", "", NULL, NULL), -EINVAL);
        sd_bus_flush_close_unref(bus);
        test_bus_stop(&test_bus);
}

static void test_bus_answers(void **state) {
        TestBus test_bus;
        sd_bus *service, *other;
        sd_bus_error error = SD_BUS_ERROR_NULL;

        test_bus_start(&test_bus, broker_path);
        service = connect_to(&test_bus);
        other = connect_to(&test_bus);
        expect(mssf_sd_bus_check_token(service, unique_name(service), "work", &error), &error, -EOPNOTSUPP,
               MSSF_ERROR_NAME_SMACK_DISABLED, "Smack is not enabled");
        sd_bus_error_free(&error);
        expect(mssf_sd_bus_check_token(service, unique_name(other), "work", &error), &error, -EACCES,
               SD_BUS_ERROR_ACCESS_DENIED, "may ask CheckToken only about itself");
        sd_bus_error_free(&error);
        expect(mssf_sd_bus_check_token(service, ":1.9999", "work", &error), &error, -ENXIO,
               SD_BUS_ERROR_NAME_HAS_NO_OWNER, NULL);
        sd_bus_error_free(&error);
        expect(mssf_sd_bus_check_token(service, unique_name(service), "GRP::video", &error), &error, -EINVAL,
               SD_BUS_ERROR_INVALID_ARGS, "POSIX credential");
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(other);
        sd_bus_flush_close_unref(service);
        test_bus_stop(&test_bus);
}

typedef struct Answer {
        int calls;
        int held;
        char error_name[128];
} Answer;

static int answered(int held, const sd_bus_error *error, void *userdata) {
        Answer *answer = userdata;

        answer->calls++;
        answer->held = held;
        if (held < 0)
                snprintf(answer->error_name, sizeof(answer->error_name), "%s", error->name);
        else
                assert_null(error);
        return 0;
}

/* Runs the bus until a round trip to the bus driver completes, so every earlier reply was processed. */
static void settle(sd_bus *bus) {
        assert_true(sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus.Peer", "Ping", NULL, NULL, "") >= 0);
        while (sd_bus_process(bus, NULL) > 0)
                ;
}

static void test_async(void **state) {
        TestBus test_bus;
        sd_bus *bus;
        sd_bus_slot *slot = NULL;
        Answer floating = { 0 }, kept = { 0 }, cancelled = { 0 };

        test_bus_start(&test_bus, broker_path);
        bus = connect_to(&test_bus);
        /* Floating: answered once, from sd_bus_process(), never from the call. */
        assert_int_equal(mssf_sd_bus_check_token_async(bus, NULL, unique_name(bus), "work", answered, &floating), 0);
        assert_int_equal(floating.calls, 0);
        /* Kept in a slot: answered while the slot lives. */
        assert_int_equal(mssf_sd_bus_check_token_async(bus, &slot, unique_name(bus), "read", answered, &kept), 0);
        while (kept.calls == 0)
                assert_true(sd_bus_wait(bus, UINT64_MAX) >= 0 && sd_bus_process(bus, NULL) >= 0);
        sd_bus_slot_unref(slot);
        /* Unreferenced before the answer: never called. */
        assert_int_equal(mssf_sd_bus_check_token_async(bus, &slot, unique_name(bus), "read", answered, &cancelled), 0);
        sd_bus_slot_unref(slot);
        settle(bus);
        assert_int_equal(floating.calls, 1);
        assert_int_equal(floating.held, -EOPNOTSUPP);
        assert_string_equal(floating.error_name, MSSF_ERROR_NAME_SMACK_DISABLED);
        assert_int_equal(kept.calls, 1);
        assert_int_equal(kept.held, -EOPNOTSUPP);
        assert_int_equal(cancelled.calls, 0);
        sd_bus_flush_close_unref(bus);
        test_bus_stop(&test_bus);
}

/* A message the process built itself has no sender: nobody to ask about, nothing sent. */
static void test_message_without_sender(void **state) {
        TestBus test_bus;
        sd_bus *bus;
        sd_bus_message *m = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        Answer answer = { 0 };

        test_bus_start(&test_bus, broker_path);
        bus = connect_to(&test_bus);
        assert_true(sd_bus_message_new_method_call(bus, &m, "org.example", "/", "org.example", "M") >= 0);
        expect(mssf_sd_bus_message_check_token(m, "work", &error), &error, -EINVAL, SD_BUS_ERROR_INVALID_ARGS,
               "has no sender");
        sd_bus_error_free(&error);
        assert_int_equal(mssf_sd_bus_message_check_token_async(m, NULL, "work", answered, &answer), -EINVAL);
        expect(mssf_sd_bus_message_check_token(NULL, "work", &error), &error, -EINVAL, SD_BUS_ERROR_INVALID_ARGS,
               NULL);
        sd_bus_error_free(&error);
        settle(bus);
        assert_int_equal(answer.calls, 0);
        sd_bus_message_unref(m);
        sd_bus_flush_close_unref(bus);
        test_bus_stop(&test_bus);
}

/*
 * A driver whose reply to CheckToken is not one boolean (a peer that
 * answers in its place: the token names the reply it gives). The sd-bus
 * side serves on the other end of a socketpair in a child process.
 */
static int fake_driver_answer(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const char *name = NULL, *token = NULL;

        if (!sd_bus_message_is_method_call(m, "org.mssf.Broker1", "CheckToken") ||
            sd_bus_message_read(m, "ss", &name, &token) < 0)
                return 0;
        if (strcmp(token, "empty") == 0)
                return sd_bus_reply_method_return(m, NULL);
        if (strcmp(token, "string") == 0)
                return sd_bus_reply_method_return(m, "s", "yes");
        if (strcmp(token, "two") == 0)
                return sd_bus_reply_method_return(m, "bb", 1, 1);
        return sd_bus_reply_method_return(m, "b", 1);
}

static void fake_driver_serve(int fd) {
        sd_bus *server = NULL;
        sd_id128_t id;

        if (sd_id128_randomize(&id) < 0 || sd_bus_new(&server) < 0 || sd_bus_set_fd(server, fd, fd) < 0 ||
            sd_bus_set_server(server, 1, id) < 0 || sd_bus_set_anonymous(server, 1) < 0 ||
            sd_bus_add_filter(server, NULL, fake_driver_answer, NULL) < 0 || sd_bus_start(server) < 0)
                _exit(1);
        for (;;) {
                int r = sd_bus_process(server, NULL);

                if (r < 0)
                        _exit(0);
                if (r == 0 && sd_bus_wait(server, UINT64_MAX) < 0)
                        _exit(0);
        }
}

static void test_answer_not_a_boolean(void **state) {
        static const char *const malformed[] = { "empty", "string", "two" };
        sd_bus *bus = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        Answer answer = { 0 };
        int fds[2], status;
        pid_t pid;

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(fds[0]);
                fake_driver_serve(fds[1]);
        }
        close(fds[1]);
        assert_int_equal(sd_bus_new(&bus), 0);
        assert_true(sd_bus_set_fd(bus, fds[0], fds[0]) >= 0);
        assert_true(sd_bus_set_anonymous(bus, 1) >= 0);
        assert_true(sd_bus_start(bus) >= 0);
        /* The fake answers a well-formed "b" as a driver would: so the path itself works. */
        assert_int_equal(mssf_sd_bus_check_token(bus, ":1.1", "work", &error), 1);
        for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
                expect(mssf_sd_bus_check_token(bus, ":1.1", malformed[i], &error), &error, -EBADMSG,
                       SD_BUS_ERROR_INCONSISTENT_MESSAGE, "not a boolean");
                sd_bus_error_free(&error);
        }
        assert_int_equal(mssf_sd_bus_check_token_async(bus, NULL, ":1.1", "empty", answered, &answer), 0);
        while (answer.calls == 0)
                assert_true(sd_bus_wait(bus, UINT64_MAX) >= 0 && sd_bus_process(bus, NULL) >= 0);
        assert_int_equal(answer.held, -EBADMSG);
        sd_bus_flush_close_unref(bus);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_dbus_daemon(void **state) {
        TestBus test_bus;
        sd_bus *bus;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        Answer answer = { 0 };

        if (!reference_path)
                skip();
        test_bus_start(&test_bus, reference_path);
        bus = connect_to(&test_bus);
        expect(mssf_sd_bus_check_token(bus, unique_name(bus), "work", &error), &error, -EPROTONOSUPPORT,
               MSSF_ERROR_NAME_NOT_SUPPORTED, "not mssf-broker");
        sd_bus_error_free(&error);
        assert_int_equal(mssf_sd_bus_check_token_async(bus, NULL, unique_name(bus), "work", answered, &answer), 0);
        settle(bus);
        assert_int_equal(answer.calls, 1);
        assert_int_equal(answer.held, -EPROTONOSUPPORT);
        sd_bus_flush_close_unref(bus);
        test_bus_stop(&test_bus);
}

int main(int argc, char **argv) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_arguments),
                cmocka_unit_test(test_bus_answers),
                cmocka_unit_test(test_async),
                cmocka_unit_test(test_message_without_sender),
                cmocka_unit_test(test_answer_not_a_boolean),
                cmocka_unit_test(test_dbus_daemon),
        };

        if (argc < 2) {
                fprintf(stderr, "usage: test-libmssf-sd-bus MSSF_BROKER [DBUS_DAEMON]\n");
                return 2;
        }
        broker_path = argv[1];
        reference_path = argc > 2 ? argv[2] : NULL;
        return cmocka_run_group_tests(tests, NULL, NULL);
}
