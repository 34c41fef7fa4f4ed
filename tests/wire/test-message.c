/*
 * Unit tests for broker/wire/message.c and message-validate.c: framing,
 * parsing in both byte orders, rejection of malformed input, descriptor
 * ownership, SENDER stamping, serials, match arguments.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "message.h"

/* A hand-marshalled method call: path "/", member "Ping", body "u" 0x01020304. */
typedef struct Raw {
        uint8_t data[256];
        size_t size;
        bool le;
} Raw;

static void raw_put(Raw *raw, const void *p, size_t n) {
        memcpy(raw->data + raw->size, p, n);
        raw->size += n;
}

static void raw_u32(Raw *raw, uint32_t v) {
        uint8_t b[4];

        for (int i = 0; i < 4; i++)
                b[raw->le ? i : 3 - i] = (uint8_t) (v >> (8 * i));
        raw_put(raw, b, 4);
}

static void raw_pad(Raw *raw, size_t a) {
        while (raw->size % a)
                raw->data[raw->size++] = 0;
}

static void raw_ping(Raw *raw, bool le) {
        memset(raw, 0, sizeof(*raw));
        raw->le = le;
        raw_put(raw, le ? "l\1\0\1" : "B\1\0\1", 4);
        raw_u32(raw, 4);                /* body length */
        raw_u32(raw, 1);                /* serial */
        raw_u32(raw, 39);               /* fields length */
        raw_put(raw, "\1\1o\0", 4);
        raw_u32(raw, 1);
        raw_put(raw, "/", 2);
        raw_pad(raw, 8);
        raw_put(raw, "\3\1s\0", 4);
        raw_u32(raw, 4);
        raw_put(raw, "Ping", 5);
        raw_pad(raw, 8);
        raw_put(raw, "\10\1g\0\1u", 7);
        raw_pad(raw, 8);
        raw_u32(raw, 0x01020304);
}

static int parse_raw(const Raw *raw, Message **ret) {
        return message_parse(raw->data, raw->size, NULL, 0, ret);
}

static void test_parse_both_byte_orders(void **state) {
        for (int le = 0; le <= 1; le++) {
                _cleanup_(message_unrefp) Message *m = NULL;
                uint32_t value = 0;
                const void *data;
                size_t size;
                Raw raw;

                raw_ping(&raw, le);
                assert_int_equal(raw.size, 60);
                assert_int_equal(parse_raw(&raw, &m), 0);
                assert_int_equal(message_is_little_endian(m), le);
                assert_int_equal(message_get_type(m), MESSAGE_METHOD_CALL);
                assert_int_equal(message_get_flags(m), 0);
                assert_int_equal(message_get_serial(m), 1);
                assert_int_equal(message_get_reply_serial(m), 0);
                assert_string_equal(message_get_path(m), "/");
                assert_string_equal(message_get_member(m), "Ping");
                assert_string_equal(message_get_signature(m), "u");
                assert_null(message_get_interface(m));
                assert_null(message_get_destination(m));
                assert_null(message_get_sender(m));
                assert_null(message_get_error_name(m));
                assert_int_equal(message_read(m, "u", &value), 0);
                assert_int_equal(value, 0x01020304);

                data = message_get_data(m, &size);
                assert_int_equal(size, raw.size);
                assert_memory_equal(data, raw.data, size);
                data = message_get_body(m, &size);
                assert_int_equal(size, 4);
                assert_memory_equal(data, raw.data + 56, 4);
        }
}

static void test_frame_size(void **state) {
        size_t total = 0;
        Raw raw;

        raw_ping(&raw, true);
        assert_int_equal(message_frame_size(raw.data, 15, SIZE_MAX, &total), MESSAGE_E_NEED_MORE);
        assert_int_equal(message_frame_size(raw.data, 16, SIZE_MAX, &total), 0);
        assert_int_equal(total, 60);
        assert_int_equal(message_frame_size(raw.data, 16, 59, &total), MESSAGE_E_TOO_LARGE);
        assert_int_equal(message_frame_size(raw.data, 16, 60, &total), 0);

        raw.data[0] = 'x';
        assert_int_equal(message_frame_size(raw.data, 16, SIZE_MAX, &total), MESSAGE_E_INVALID);
        raw_ping(&raw, true);
        raw.data[3] = 2;
        assert_int_equal(message_frame_size(raw.data, 16, SIZE_MAX, &total), MESSAGE_E_INVALID);

        /* The spec's 128 MiB limit applies whatever the caller allows. */
        raw_ping(&raw, true);
        raw.size = 4;
        raw_u32(&raw, 128u * 1024 * 1024);
        assert_int_equal(message_frame_size(raw.data, 16, SIZE_MAX, &total), MESSAGE_E_TOO_LARGE);
        raw_ping(&raw, false);
        raw.size = 12;
        raw_u32(&raw, 64u * 1024 * 1024 + 1);   /* fields array over the array limit */
        assert_int_equal(message_frame_size(raw.data, 16, SIZE_MAX, &total), MESSAGE_E_INVALID);
}

typedef struct Mutation {
        const char *what;
        size_t offset;
        uint8_t value;
} Mutation;

static void test_reject_mutations(void **state) {
        static const Mutation mutations[] = {
                { "endianness byte", 0, 'x' },
                { "message type 0", 1, 0 },
                { "protocol version", 3, 2 },
                { "serial 0", 8, 0 },
                { "body length", 4, 5 },
                { "field code 0", 16, 0 },
                { "path field type", 18, 's' },
                { "path field signature length", 17, 2 },
                { "path field signature length 0", 17, 0 },
                { "path field signature NUL", 19, 'o' },
                { "path string", 24, 'x' },
                { "path NUL", 25, 'a' },
                { "header padding", 26, 1 },
                { "member name", 40, '1' },
                { "signature code", 53, 'w' },
                { "header padding after fields", 55, 1 },
        };

        for (size_t i = 0; i < ELEMENTSOF(mutations); i++) {
                Message *m = NULL;
                Raw raw;

                raw_ping(&raw, true);
                raw.data[mutations[i].offset] = mutations[i].value;
                if (parse_raw(&raw, &m) != MESSAGE_E_INVALID)
                        fail_msg("accepted: %s", mutations[i].what);
                assert_null(m);
        }
}

/* The specification: a message of unknown type is ignored, not an error; it still must be well-formed. */
static void test_unknown_type_parses(void **state) {
        static const uint8_t types[] = { 5, 42, 255 };
        static const uint8_t no_fields[16] = { 'l', 200, 0, 1, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0 };

        for (size_t i = 0; i < ELEMENTSOF(types); i++) {
                _cleanup_(message_unrefp) Message *m = NULL;
                uint32_t value = 0;
                Raw raw;

                raw_ping(&raw, i % 2);
                raw.data[1] = types[i];
                assert_int_equal(parse_raw(&raw, &m), 0);
                assert_int_equal(message_get_type(m), types[i]);
                assert_false(message_type_is_known(message_get_type(m)));
                assert_string_equal(message_get_member(m), "Ping");
                assert_int_equal(message_read(m, "u", &value), 0);
                assert_int_equal(value, 0x01020304);

                /* Header and body are checked as for any type. */
                message_unref(TAKE_PTR(m));
                raw.data[24] = 'x';
                assert_int_equal(parse_raw(&raw, &m), MESSAGE_E_INVALID);
                raw_ping(&raw, true);
                raw.data[1] = types[i];
                raw.data[53] = 'w';
                assert_int_equal(parse_raw(&raw, &m), MESSAGE_E_INVALID);
                assert_null(m);
        }
        {
                _cleanup_(message_unrefp) Message *m = NULL;

                /* No header field at all is required of an unknown type. */
                assert_int_equal(message_parse(no_fields, sizeof(no_fields), NULL, 0, &m), 0);
                assert_int_equal(message_get_type(m), 200);
                assert_int_equal(message_get_serial(m), 9);
                assert_null(message_get_path(m));
        }
        for (uint8_t t = MESSAGE_METHOD_CALL; t <= MESSAGE_SIGNAL; t++)
                assert_true(message_type_is_known(t));
        assert_false(message_type_is_known(MESSAGE_INVALID));
}

/* HeaderFiltering: what the bus routes carries no header field the specification does not define. */
static void test_stamp_drops_unknown_fields(void **state) {
        static const uint8_t data[56] = {
                'l', 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 37, 0, 0, 0,
                1, 1, 'o', 0, 1, 0, 0, 0, '/', 0, 0, 0, 0, 0, 0, 0,
                3, 1, 's', 0, 4, 0, 0, 0, 'P', 'i', 'n', 'g', 0, 0, 0, 0,
                100, 1, 'y', 0, 7, 0, 0, 0,
        };
        _cleanup_(message_unrefp) Message *m = NULL, *again = NULL;
        const void *stamped;
        size_t size, pos;

        assert_int_equal(message_parse(data, sizeof(data), NULL, 0, &m), 0);
        assert_int_equal(message_stamp_sender(m, ":1.5"), 0);
        assert_string_equal(message_get_sender(m), ":1.5");
        assert_string_equal(message_get_member(m), "Ping");
        stamped = message_get_data(m, &size);
        assert_int_equal(message_parse(stamped, size, NULL, 0, &again), 0);
        /* Fields: path, member, sender; no code 100 at any field start. */
        for (pos = 16; pos < size; pos += 8)
                assert_int_not_equal(((const uint8_t *) stamped)[pos], 100);
        assert_string_equal(message_get_path(again), "/");
        assert_string_equal(message_get_sender(again), ":1.5");
}

static void test_reject_framing(void **state) {
        Message *m = NULL;
        Raw raw;

        raw_ping(&raw, true);
        assert_int_equal(message_parse(raw.data, raw.size - 1, NULL, 0, &m), MESSAGE_E_INVALID);
        raw.data[raw.size++] = 0;
        assert_int_equal(message_parse(raw.data, raw.size, NULL, 0, &m), MESSAGE_E_INVALID);
        assert_int_equal(message_parse(raw.data, 10, NULL, 0, &m), MESSAGE_E_INVALID);
        assert_int_equal(message_parse(raw.data, 0, NULL, 0, &m), MESSAGE_E_INVALID);
        assert_null(m);
}

/* Builds a method call with the given body (appended by fn) and returns its bytes. */
static Message *build_call(void (*fn)(MessageBuilder *b)) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        Message *m = NULL;

        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_path(b, "/org/example"), 0);
        assert_int_equal(message_builder_set_member(b, "Do"), 0);
        assert_int_equal(message_builder_set_interface(b, "org.example.Iface"), 0);
        assert_int_equal(message_builder_set_destination(b, "org.example.Service"), 0);
        if (fn)
                fn(b);
        assert_int_equal(message_builder_finish(b, &m), 0);
        return m;
}

static void body_bool(MessageBuilder *b) {
        int v = 1;

        assert_int_equal(message_builder_append_basic(b, 'b', &v), 0);
}

static void body_string(MessageBuilder *b) {
        assert_int_equal(message_builder_append_basic(b, 's', "abc"), 0);
}

/* Parses a copy of m's bytes with the byte offset_from_end before the end set to to. */
static int parse_patched(Message *m, size_t offset_from_end, uint8_t to) {
        _cleanup_free_ uint8_t *copy = NULL;
        Message *out = NULL;
        const void *data;
        size_t size;
        int r;

        data = message_get_data(m, &size);
        copy = malloc(size);
        assert_non_null(copy);
        memcpy(copy, data, size);
        copy[size - offset_from_end] = to;
        r = message_parse(copy, size, NULL, 0, &out);
        message_unref(out);
        return r;
}

static void test_reject_body(void **state) {
        _cleanup_(message_unrefp) Message *b = build_call(body_bool);
        _cleanup_(message_unrefp) Message *s = build_call(body_string);

        /* The boolean is the last 4 bytes, little endian. */
        assert_int_equal(parse_patched(b, 4, 1), 0);
        assert_int_equal(parse_patched(b, 4, 2), MESSAGE_E_INVALID);
        assert_int_equal(parse_patched(b, 1, 1), MESSAGE_E_INVALID);
        /* "abc\0" ends the body. */
        assert_int_equal(parse_patched(s, 1, 'd'), MESSAGE_E_INVALID);      /* no NUL */
        assert_int_equal(parse_patched(s, 2, 0), MESSAGE_E_INVALID);        /* embedded NUL */
        assert_int_equal(parse_patched(s, 2, 0xff), MESSAGE_E_INVALID);     /* bad UTF-8 */
        assert_int_equal(parse_patched(s, 2, 'z'), 0);
}

static void test_required_fields(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        Message *m = NULL;

        /* The builder refuses what the parser would refuse. */
        assert_int_equal(message_builder_new(MESSAGE_SIGNAL, &b), 0);
        assert_int_equal(message_builder_set_path(b, "/"), 0);
        assert_int_equal(message_builder_set_member(b, "Changed"), 0);
        assert_int_equal(message_builder_finish(b, &m), -EINVAL);       /* no interface */
        assert_int_equal(message_builder_set_interface(b, "org.freedesktop.DBus.Local"), 0);
        assert_int_equal(message_builder_finish(b, &m), -EINVAL);       /* reserved */
        assert_int_equal(message_builder_set_interface(b, "org.example.I"), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        assert_string_equal(message_get_interface(m), "org.example.I");
        message_unref(m);
        b = message_builder_free(b);

        assert_int_equal(message_builder_new(MESSAGE_ERROR, &b), 0);
        assert_int_equal(message_builder_set_error_name(b, "org.example.Error"), 0);
        assert_int_equal(message_builder_finish(b, &m), -EINVAL);       /* no reply serial */
        b = message_builder_free(b);

        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_member(b, "M"), 0);
        assert_int_equal(message_builder_finish(b, &m), -EINVAL);       /* no path */
}

static bool fd_is_open(int fd) {
        return fcntl(fd, F_GETFD) >= 0;
}

static void test_unix_fds(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *built = NULL;
        Message *m = NULL;
        const int *fds;
        const void *data;
        size_t size, n_fds;
        int pipefd[2], mine;
        uint32_t index = 99;

        assert_int_equal(pipe(pipefd), 0);
        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_path(b, "/"), 0);
        assert_int_equal(message_builder_set_member(b, "Take"), 0);
        assert_int_equal(message_builder_append_fd(b, pipefd[0]), 0);
        assert_int_equal(message_builder_finish(b, &built), 0);
        close(pipefd[0]);
        close(pipefd[1]);
        assert_string_equal(message_get_signature(built), "h");
        fds = message_get_unix_fds(built, &n_fds);
        assert_int_equal(n_fds, 1);
        assert_true(fd_is_open(fds[0]));

        data = message_get_data(built, &size);
        {
                uint32_t declared = 0;
                Raw raw;

                assert_int_equal(message_peek_unix_fds(data, size, &declared), 0);
                assert_int_equal(declared, 1);
                raw_ping(&raw, false);
                assert_int_equal(message_peek_unix_fds(raw.data, raw.size, &declared), 0);
                assert_int_equal(declared, 0);
                assert_int_equal(message_peek_unix_fds(raw.data, raw.size - 1, &declared), MESSAGE_E_INVALID);
                raw.data[1] = 0;
                assert_int_equal(message_peek_unix_fds(raw.data, raw.size, &declared), MESSAGE_E_INVALID);
        }
        /* No descriptor received for UNIX_FDS=1: rejected. */
        assert_int_equal(message_parse(data, size, NULL, 0, &m), MESSAGE_E_INVALID);
        /* Two received for one declared: rejected, and the caller keeps both. */
        mine = dup(fds[0]);
        {
                int two[2] = { mine, mine };

                assert_int_equal(message_parse(data, size, two, 2, &m), MESSAGE_E_INVALID);
                assert_true(fd_is_open(mine));
        }
        assert_int_equal(message_parse(data, size, &mine, 1, &m), 0);
        fds = message_get_unix_fds(m, &n_fds);
        assert_int_equal(n_fds, 1);
        assert_int_equal(fds[0], mine);
        assert_int_equal(message_read(m, "h", &index), 0);
        assert_int_equal(index, 0);
        m = message_unref(m);
        assert_false(fd_is_open(mine));         /* the message owned it */
}

static void test_stamp_sender(void **state) {
        for (int le = 0; le <= 1; le++) {
                _cleanup_(message_unrefp) Message *m = NULL, *again = NULL;
                uint32_t value = 0;
                const void *data;
                size_t size;
                Raw raw;

                raw_ping(&raw, le);
                assert_int_equal(parse_raw(&raw, &m), 0);
                assert_int_equal(message_stamp_sender(m, ":1.42"), 0);
                assert_string_equal(message_get_sender(m), ":1.42");
                assert_string_equal(message_get_member(m), "Ping");
                assert_int_equal(message_read(m, "u", &value), 0);
                assert_int_equal(value, 0x01020304);

                /* Replacing it again (the client's spoofed one, say) keeps one SENDER. */
                assert_int_equal(message_stamp_sender(m, ":1.7"), 0);
                data = message_get_data(m, &size);
                assert_int_equal(message_parse(data, size, NULL, 0, &again), 0);
                assert_string_equal(message_get_sender(again), ":1.7");
                assert_int_equal(message_is_little_endian(again), le);
                assert_string_equal(message_get_path(again), "/");
                assert_int_equal(message_read(again, "u", &value), 0);
                assert_int_equal(value, 0x01020304);

                /* Shared messages are immutable. */
                message_ref(again);
                assert_int_equal(message_stamp_sender(again, ":1.8"), -EBUSY);
                message_unref(again);
                assert_int_equal(message_stamp_sender(m, "not a name"), -EINVAL);
                assert_string_equal(message_get_sender(m), ":1.7");
        }
}

static void body_big(MessageBuilder *b) {
        char s[4000];

        memset(s, 'q', sizeof(s) - 1);
        s[sizeof(s) - 1] = 0;
        assert_int_equal(message_builder_append_basic(b, 's', s), 0);
}

static void test_stamp_sender_grows(void **state) {
        _cleanup_(message_unrefp) Message *m = build_call(body_big), *again = NULL;
        char name[256];
        const void *data;
        const char *s = NULL;
        size_t size;

        /* A long well-known name needs more than the slack: the data moves. */
        memset(name, 'n', 255);
        name[1] = '.';
        name[255] = 0;
        assert_int_equal(message_stamp_sender(m, name), 0);
        assert_string_equal(message_get_sender(m), name);
        assert_int_equal(message_read(m, "s", &s), 0);
        assert_int_equal(strlen(s), 3999);
        assert_int_equal(message_stamp_sender(m, ":1.1"), 0);
        data = message_get_data(m, &size);
        assert_int_equal(message_parse(data, size, NULL, 0, &again), 0);
        assert_string_equal(message_get_sender(again), ":1.1");
        assert_string_equal(message_get_destination(again), "org.example.Service");
}

static void test_set_serial(void **state) {
        _cleanup_(message_unrefp) Message *m = NULL, *again = NULL;
        const void *data;
        size_t size;
        Raw raw;

        raw_ping(&raw, false);
        assert_int_equal(parse_raw(&raw, &m), 0);
        assert_int_equal(message_set_serial(m, 0x11223344), 0);
        assert_int_equal(message_get_serial(m), 0x11223344);
        assert_int_equal(message_set_serial(m, 0), -EINVAL);
        data = message_get_data(m, &size);
        assert_int_equal(message_parse(data, size, NULL, 0, &again), 0);
        assert_int_equal(message_get_serial(again), 0x11223344);
        message_ref(m);
        assert_int_equal(message_set_serial(m, 5), -EBUSY);
        message_unref(m);
}

static void body_args(MessageBuilder *b) {
        uint32_t u = 7;

        assert_int_equal(message_builder_append_basic(b, 's', "org.example.Name"), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &u), 0);
        assert_int_equal(message_builder_append_basic(b, 'o', "/org/example/path"), 0);
        assert_int_equal(message_builder_open(b, 'a', "s"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "inside"), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_append_basic(b, 'g', "a{sv}"), 0);
        for (int i = 0; i < 70; i++)
                assert_int_equal(message_builder_append_basic(b, 's', "x"), 0);
}

static void test_args(void **state) {
        _cleanup_(message_unrefp) Message *m = build_call(body_args);
        MessageArg args[MESSAGE_ARGS_MAX];
        unsigned n = 0;

        assert_int_equal(message_get_args(m, args, &n), 0);
        assert_int_equal(n, 64);
        assert_string_equal(args[0].str, "org.example.Name");
        assert_int_equal(args[0].type, 's');
        assert_null(args[1].str);
        assert_int_equal(args[1].type, 'u');
        assert_string_equal(args[2].str, "/org/example/path");
        assert_int_equal(args[2].type, 'o');
        assert_null(args[3].str);
        assert_int_equal(args[3].type, 'a');
        assert_string_equal(args[4].str, "a{sv}");
        assert_int_equal(args[4].type, 'g');
        assert_string_equal(args[63].str, "x");

        /* Cached, and still right after the header moved. */
        assert_int_equal(message_stamp_sender(m, ":1.3"), 0);
        assert_int_equal(message_get_args(m, args, &n), 0);
        assert_int_equal(n, 64);
        assert_string_equal(args[0].str, "org.example.Name");
        assert_string_equal(args[2].str, "/org/example/path");
}

static void test_args_empty(void **state) {
        _cleanup_(message_unrefp) Message *m = build_call(NULL);
        MessageArg args[MESSAGE_ARGS_MAX];
        unsigned n = 99;

        assert_int_equal(message_get_args(m, args, &n), 0);
        assert_int_equal(n, 0);
}

static void test_ref_unref(void **state) {
        Message *m = build_call(NULL);

        assert_ptr_equal(message_ref(m), m);
        assert_null(message_unref(m));
        assert_null(message_unref(m));
        assert_null(message_unref(NULL));
        assert_null(message_ref(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_both_byte_orders),
                cmocka_unit_test(test_frame_size),
                cmocka_unit_test(test_reject_mutations),
                cmocka_unit_test(test_unknown_type_parses),
                cmocka_unit_test(test_stamp_drops_unknown_fields),
                cmocka_unit_test(test_reject_framing),
                cmocka_unit_test(test_reject_body),
                cmocka_unit_test(test_required_fields),
                cmocka_unit_test(test_unix_fds),
                cmocka_unit_test(test_stamp_sender),
                cmocka_unit_test(test_stamp_sender_grows),
                cmocka_unit_test(test_set_serial),
                cmocka_unit_test(test_args),
                cmocka_unit_test(test_args_empty),
                cmocka_unit_test(test_ref_unref),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
