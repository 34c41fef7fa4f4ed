/*
 * libmssf's sd-bus interface against a real bus without Smack (the built
 * mssf-broker) and dbus-daemon: return values and sd_bus_error as sd-bus
 * authors expect them, the asynchronous form's callback from
 * sd_bus_process() only, a slot unreferenced before the answer cancels
 * it, a floating question is answered once, and a message without a
 * sender has no one to ask about; a connection that is not to a bus
 * (a peer-to-peer one, whose peer writes ":1.42" as its sender and would
 * answer "true") is -EMEDIUMTYPE, NotABus, in every form, with nothing
 * asked; so is an answer whose sender is not org.freedesktop.DBus; a
 * reply that is not exactly one boolean is an error, never "no" and
 * never "yes".
 *   test-libmssf-sd-bus MSSF_BROKER [DBUS_DAEMON]
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
 * The other end of a socketpair, in a child process: a forging peer, or
 * a bus of the service's choosing. It answers Hello as a driver would (a
 * bus connection says Hello first), Questions with the number of
 * CheckTokens it was sent, and CheckToken with a reply the token names
 * ("empty", "string", "two": not one boolean; "silent": none, it hangs
 * up; anything else: true), the SENDER of its answers written by itself.
 * forge_call: it first calls the service as ":1.42", a SENDER it writes
 * itself too (after Hello, when the service takes it for its bus: a bus
 * client refuses anything before its Hello's answer).
 */
typedef struct FakePeer {
        const char *answer_sender;      /* (nullable) */
        bool forge_call;
        bool bus;                       /* the service says Hello: call it only once answered */
        unsigned questions;
} FakePeer;

static int fake_peer_forge_call(sd_bus *server) {
        sd_bus_message *call = NULL;
        int r = sd_bus_message_new_method_call(server, &call, NULL, "/t", "org.mssf.T", "M");

        if (r >= 0)
                r = sd_bus_message_set_sender(call, ":1.42");
        if (r >= 0)
                r = sd_bus_send(server, call, NULL);
        sd_bus_message_unref(call);
        return r;
}

/* The body of the answer to CheckToken that the token names. */
static int fake_peer_append_answer(sd_bus_message *answer, const char *token) {
        if (strcmp(token, "empty") == 0)
                return 0;
        if (strcmp(token, "string") == 0)
                return sd_bus_message_append(answer, "s", "yes");
        if (strcmp(token, "two") == 0)
                return sd_bus_message_append(answer, "bb", 1, 1);
        return sd_bus_message_append(answer, "b", 1);
}

static int fake_peer_answer(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        FakePeer *peer = userdata;
        sd_bus_message *answer = NULL;
        const char *name = NULL, *token = NULL;
        int r;

        if (sd_bus_message_is_method_call(m, "org.freedesktop.DBus", "Hello")) {
                r = sd_bus_message_new_method_return(m, &answer);
                if (r >= 0)
                        r = sd_bus_message_set_sender(answer, "org.freedesktop.DBus");
                if (r >= 0)
                        r = sd_bus_message_append(answer, "s", ":1.5");
        } else if (sd_bus_message_is_method_call(m, "org.mssf.T", "Questions")) {
                r = sd_bus_message_new_method_return(m, &answer);
                if (r >= 0)
                        r = sd_bus_message_append(answer, "u", peer->questions);
        } else if (sd_bus_message_is_method_call(m, "org.mssf.Broker1", "CheckToken") &&
                   sd_bus_message_read(m, "ss", &name, &token) >= 0) {
                peer->questions++;
                if (strcmp(token, "silent") == 0)
                        _exit(0);
                r = sd_bus_message_new_method_return(m, &answer);
                if (r >= 0 && peer->answer_sender)
                        r = sd_bus_message_set_sender(answer, peer->answer_sender);
                if (r >= 0)
                        r = fake_peer_append_answer(answer, token);
        } else
                return 0;
        if (r >= 0)
                r = sd_bus_send(sd_bus_message_get_bus(m), answer, NULL);
        sd_bus_message_unref(answer);
        if (r >= 0 && peer->forge_call && sd_bus_message_is_method_call(m, "org.freedesktop.DBus", "Hello"))
                r = fake_peer_forge_call(sd_bus_message_get_bus(m));
        if (r < 0)
                _exit(1);
        return 1;
}

static _Noreturn void fake_peer_serve(int fd, FakePeer *peer) {
        sd_bus *server = NULL;
        sd_id128_t id;

        if (sd_id128_randomize(&id) < 0 || sd_bus_new(&server) < 0 || sd_bus_set_fd(server, fd, fd) < 0 ||
            sd_bus_set_server(server, 1, id) < 0 || sd_bus_set_anonymous(server, 1) < 0 ||
            sd_bus_add_filter(server, NULL, fake_peer_answer, peer) < 0 || sd_bus_start(server) < 0)
                _exit(1);
        if (peer->forge_call && !peer->bus && fake_peer_forge_call(server) < 0)
                _exit(1);
        for (;;) {
                int r = sd_bus_process(server, NULL);

                if (r < 0)
                        _exit(0);
                if (r == 0 && sd_bus_wait(server, UINT64_MAX) < 0)
                        _exit(0);
        }
}

/* The service's end: a client of the fake peer; claim_bus: it takes the peer for its bus (Hello). */
static sd_bus *connect_fake_peer(FakePeer *peer, bool claim_bus, pid_t *ret_pid) {
        sd_bus *bus = NULL;
        int fds[2];

        peer->bus = claim_bus;
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        *ret_pid = fork();
        assert_true(*ret_pid >= 0);
        if (*ret_pid == 0) {
                close(fds[0]);
                fake_peer_serve(fds[1], peer);
        }
        close(fds[1]);
        assert_int_equal(sd_bus_new(&bus), 0);
        assert_true(sd_bus_set_fd(bus, fds[0], fds[0]) >= 0);
        assert_true(sd_bus_set_anonymous(bus, 1) >= 0);
        assert_true(sd_bus_set_bus_client(bus, claim_bus) >= 0);
        assert_true(sd_bus_start(bus) >= 0);
        return bus;
}

static void disconnect_fake_peer(sd_bus *bus, pid_t pid) {
        int status;

        sd_bus_flush_close_unref(bus);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The call the fake peer made, as the service receives it. */
static sd_bus_message *receive_call(sd_bus *bus) {
        sd_bus_message *m = NULL;

        while (!m) {
                int r = sd_bus_process(bus, &m);

                assert_true(r >= 0);
                if (m && !sd_bus_message_is_method_call(m, "org.mssf.T", "M"))
                        m = sd_bus_message_unref(m);
                if (r == 0)
                        assert_true(sd_bus_wait(bus, UINT64_MAX) >= 0);
        }
        return m;
}

static unsigned questions_asked(sd_bus *bus) {
        sd_bus_message *reply = NULL;
        unsigned n = 0;

        assert_true(sd_bus_call_method(bus, "org.freedesktop.DBus", "/t", "org.mssf.T", "Questions", NULL, &reply,
                                       "") >= 0);
        assert_true(sd_bus_message_read(reply, "u", &n) > 0);
        sd_bus_message_unref(reply);
        return n;
}

static void wait_for_answer(sd_bus *bus, Answer *answer) {
        while (answer->calls == 0)
                assert_true(sd_bus_wait(bus, UINT64_MAX) >= 0 && sd_bus_process(bus, NULL) >= 0);
}

/*
 * A peer-to-peer connection has no bus: its peer writes ":1.42" as the
 * sender of its call, and would answer CheckToken "true" itself, with or
 * without claiming to be org.freedesktop.DBus. Every form refuses with
 * -EMEDIUMTYPE (NotABus), and asks nothing.
 */
static void test_peer_to_peer_forged_sender(void **state) {
        static const char *const answer_senders[] = { NULL, "org.freedesktop.DBus" };

        for (size_t i = 0; i < sizeof(answer_senders) / sizeof(answer_senders[0]); i++) {
                FakePeer peer = { .answer_sender = answer_senders[i], .forge_call = true };
                sd_bus_error error = SD_BUS_ERROR_NULL;
                Answer answer = { 0 };
                sd_bus_message *m;
                sd_bus *bus;
                pid_t pid;

                bus = connect_fake_peer(&peer, false, &pid);
                assert_int_equal(sd_bus_is_bus_client(bus), 0);
                m = receive_call(bus);
                assert_string_equal(sd_bus_message_get_sender(m), ":1.42");
                expect(mssf_sd_bus_message_check_token(m, "work", &error), &error, -EMEDIUMTYPE,
                       MSSF_ERROR_NAME_NOT_A_BUS, "peer-to-peer");
                sd_bus_error_free(&error);
                expect(mssf_sd_bus_check_token(bus, ":1.42", "work", &error), &error, -EMEDIUMTYPE,
                       MSSF_ERROR_NAME_NOT_A_BUS, "Cannot ask whether :1.42 holds work");
                sd_bus_error_free(&error);
                /* Nothing sent: the callback is never called. */
                assert_int_equal(mssf_sd_bus_message_check_token_async(m, NULL, "work", answered, &answer),
                                 -EMEDIUMTYPE);
                assert_int_equal(mssf_sd_bus_check_token_async(bus, NULL, ":1.42", "work", answered, &answer),
                                 -EMEDIUMTYPE);
                assert_int_equal(questions_asked(bus), 0);
                assert_int_equal(answer.calls, 0);
                sd_bus_message_unref(m);
                disconnect_fake_peer(bus, pid);
        }
}

/*
 * A bus connection whose answer does not come from org.freedesktop.DBus
 * (a real bus writes every sender itself, so this is a bus of the
 * service's choosing): not held, -EMEDIUMTYPE (NotABus), in every form.
 */
static void test_answer_not_from_bus(void **state) {
        /* Not org.freedesktop.DBus.Local: sd-bus drops a message that claims it. */
        static const char *const answer_senders[] = { ":1.7", NULL };

        for (size_t i = 0; i < sizeof(answer_senders) / sizeof(answer_senders[0]); i++) {
                FakePeer peer = { .answer_sender = answer_senders[i], .forge_call = true };
                sd_bus_error error = SD_BUS_ERROR_NULL;
                Answer by_message = { 0 }, by_name = { 0 };
                sd_bus_message *m;
                sd_bus *bus;
                pid_t pid;

                bus = connect_fake_peer(&peer, true, &pid);
                assert_int_equal(sd_bus_is_bus_client(bus), 1);
                m = receive_call(bus);
                expect(mssf_sd_bus_message_check_token(m, "work", &error), &error, -EMEDIUMTYPE,
                       MSSF_ERROR_NAME_NOT_A_BUS, "not from the bus");
                sd_bus_error_free(&error);
                expect(mssf_sd_bus_check_token(bus, ":1.42", "work", &error), &error, -EMEDIUMTYPE,
                       MSSF_ERROR_NAME_NOT_A_BUS, "not from the bus");
                sd_bus_error_free(&error);
                assert_int_equal(mssf_sd_bus_message_check_token_async(m, NULL, "work", answered, &by_message), 0);
                assert_int_equal(mssf_sd_bus_check_token_async(bus, NULL, ":1.42", "work", answered, &by_name), 0);
                wait_for_answer(bus, &by_message);
                wait_for_answer(bus, &by_name);
                assert_int_equal(by_message.held, -EMEDIUMTYPE);
                assert_string_equal(by_message.error_name, MSSF_ERROR_NAME_NOT_A_BUS);
                assert_int_equal(by_name.held, -EMEDIUMTYPE);
                assert_string_equal(by_name.error_name, MSSF_ERROR_NAME_NOT_A_BUS);
                assert_int_equal(questions_asked(bus), 4);
                sd_bus_message_unref(m);
                disconnect_fake_peer(bus, pid);
        }
}

/*
 * The same bus answering as org.freedesktop.DBus is believed (so the path
 * above is the one a yes takes), but only a reply of exactly one boolean:
 * anything else is an error, never "no" and never "yes".
 */
static void test_answer_not_a_boolean(void **state) {
        static const char *const malformed[] = { "empty", "string", "two" };
        FakePeer peer = { .answer_sender = "org.freedesktop.DBus" };
        sd_bus_error error = SD_BUS_ERROR_NULL;
        Answer held = { 0 }, answer = { 0 };
        sd_bus *bus;
        pid_t pid;

        bus = connect_fake_peer(&peer, true, &pid);
        assert_int_equal(mssf_sd_bus_check_token(bus, ":1.1", "work", &error), 1);
        assert_int_equal(mssf_sd_bus_check_token_async(bus, NULL, ":1.1", "work", answered, &held), 0);
        wait_for_answer(bus, &held);
        assert_int_equal(held.held, 1);
        for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
                expect(mssf_sd_bus_check_token(bus, ":1.1", malformed[i], &error), &error, -EBADMSG,
                       SD_BUS_ERROR_INCONSISTENT_MESSAGE, "not a boolean");
                sd_bus_error_free(&error);
        }
        assert_int_equal(mssf_sd_bus_check_token_async(bus, NULL, ":1.1", "empty", answered, &answer), 0);
        wait_for_answer(bus, &answer);
        assert_int_equal(answer.held, -EBADMSG);
        disconnect_fake_peer(bus, pid);
}

/*
 * The bus hangs up before it answers: sd-bus's own error, which it writes
 * as from org.freedesktop.DBus, so it is not mistaken for a forged answer.
 */
static void test_bus_gone_before_answer(void **state) {
        FakePeer peer = { .answer_sender = "org.freedesktop.DBus" };
        Answer answer = { 0 };
        sd_bus *bus;
        pid_t pid;

        bus = connect_fake_peer(&peer, true, &pid);
        assert_int_equal(mssf_sd_bus_check_token_async(bus, NULL, ":1.1", "silent", answered, &answer), 0);
        wait_for_answer(bus, &answer);
        assert_true(answer.held < 0);
        assert_int_not_equal(answer.held, -EMEDIUMTYPE);
        assert_string_not_equal(answer.error_name, MSSF_ERROR_NAME_NOT_A_BUS);
        disconnect_fake_peer(bus, pid);
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
                cmocka_unit_test(test_peer_to_peer_forged_sender),
                cmocka_unit_test(test_answer_not_from_bus),
                cmocka_unit_test(test_answer_not_a_boolean),
                cmocka_unit_test(test_bus_gone_before_answer),
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
