/*
 * Unit tests for broker/wire/message-builder.c: round trips through
 * message_parse(), container enforcement, replies, errors, signals,
 * serials, and copying values (the mediation rebuild of a{sv}).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "message-private.h"

static MessageBuilder *new_call(void) {
        MessageBuilder *b = NULL;

        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_path(b, "/org/example"), 0);
        assert_int_equal(message_builder_set_interface(b, "org.freedesktop.DBus.Properties"), 0);
        assert_int_equal(message_builder_set_member(b, "GetAll"), 0);
        assert_int_equal(message_builder_set_sender(b, ":1.5"), 0);
        assert_int_equal(message_builder_set_destination(b, "org.example.Service"), 0);
        return b;
}

/* Parses the wire bytes of m again, as a receiving peer would. */
static Message *reparse(Message *m) {
        Message *again = NULL;
        const void *data;
        size_t size;

        data = message_get_data(m, &size);
        assert_int_equal(message_parse(data, size, NULL, 0, &again), 0);
        return again;
}

static void test_header_round_trip(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b = new_call();
        _cleanup_(message_unrefp) Message *m = NULL, *again = NULL;

        assert_int_equal(message_builder_set_serial(b, 42), 0);
        assert_int_equal(message_builder_set_flags(b, MESSAGE_FLAG_NO_AUTO_START |
                                                      MESSAGE_FLAG_ALLOW_INTERACTIVE_AUTHORIZATION), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        again = reparse(m);
        assert_true(message_is_little_endian(again));
        assert_int_equal(message_get_type(again), MESSAGE_METHOD_CALL);
        assert_int_equal(message_get_serial(again), 42);
        assert_int_equal(message_get_flags(again), 6);
        assert_string_equal(message_get_path(again), "/org/example");
        assert_string_equal(message_get_interface(again), "org.freedesktop.DBus.Properties");
        assert_string_equal(message_get_member(again), "GetAll");
        assert_string_equal(message_get_sender(again), ":1.5");
        assert_string_equal(message_get_destination(again), "org.example.Service");
        assert_null(message_get_signature(again));
}

static void test_invalid_setters(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b = new_call();
        MessageBuilder *none = NULL;

        assert_int_equal(message_builder_set_path(b, "no/slash"), -EINVAL);
        assert_int_equal(message_builder_set_interface(b, "nodots"), -EINVAL);
        assert_int_equal(message_builder_set_member(b, "a.b"), -EINVAL);
        assert_int_equal(message_builder_set_error_name(b, ""), -EINVAL);
        assert_int_equal(message_builder_set_destination(b, "org..x"), -EINVAL);
        assert_int_equal(message_builder_set_sender(b, ":"), -EINVAL);
        assert_int_equal(message_builder_new(0, &none), -EINVAL);
        assert_int_equal(message_builder_new(5, &none), -EINVAL);
        assert_null(none);
        assert_null(message_builder_free(NULL));
}

/* A string the caller vouches for is written exactly as append_basic() writes it, and the message parses. */
static void test_known_string(void **state) {
        static const char *const strings[] = { "org.freedesktop.DBus", ":1.42", "", "a.b.c" };
        _cleanup_(message_builder_freep) MessageBuilder *x = new_call(), *y = new_call();
        _cleanup_(message_unrefp) Message *a = NULL, *b = NULL, *again = NULL;
        const void *da, *db;
        size_t na, nb;
        uint8_t byte = 7;

        assert_int_equal(message_builder_set_serial(x, 9), 0);
        assert_int_equal(message_builder_set_serial(y, 9), 0);
        for (int k = 0; k < 2; k++) {
                MessageBuilder *m = k ? y : x;

                assert_int_equal(message_builder_append_basic(m, 'y', &byte), 0);   /* misaligned after it */
                assert_int_equal(message_builder_open(m, 'a', "s"), 0);
                for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
                        assert_int_equal(k ? message_builder_append_known_string(m, strings[i], strlen(strings[i])) :
                                             message_builder_append_basic(m, 's', strings[i]), 0);
                assert_int_equal(message_builder_close(m), 0);
        }
        {
                _cleanup_(message_builder_freep) MessageBuilder *z = new_call();

                assert_int_equal(message_builder_open(z, 'a', "u"), 0);
                assert_int_equal(message_builder_append_known_string(z, "x", 1), -EINVAL);  /* not the element type */
                assert_int_equal(message_builder_append_known_string(z, NULL, 0), -EINVAL);
        }
        assert_int_equal(message_builder_finish(x, &a), 0);
        assert_int_equal(message_builder_finish(y, &b), 0);
        da = message_get_data(a, &na);
        db = message_get_data(b, &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(da, db, na);
        again = reparse(b);
        assert_string_equal(message_get_signature(again), "yas");
}

static void test_container_enforcement(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b = new_call();
        Message *m = NULL;
        uint32_t u = 1;
        int32_t i = 1;

        assert_int_equal(message_builder_open(b, 'a', "u"), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &u), 0);
        assert_int_equal(message_builder_append_basic(b, 'i', &i), -EINVAL);       /* not the element type */
        assert_int_equal(message_builder_append_basic(b, 's', "x"), -EINVAL);
        assert_int_equal(message_builder_finish(b, &m), -EINVAL);                  /* still open */
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_close(b), -EINVAL);                       /* nothing open */

        assert_int_equal(message_builder_open(b, 'r', "us"), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &u), 0);
        assert_int_equal(message_builder_close(b), -EINVAL);                       /* struct incomplete */
        assert_int_equal(message_builder_append_basic(b, 's', "x"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "y"), -EINVAL);      /* struct full */
        assert_int_equal(message_builder_close(b), 0);

        assert_int_equal(message_builder_open(b, 'v', "s"), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &u), -EINVAL);
        assert_int_equal(message_builder_close(b), -EINVAL);                       /* variant empty */
        assert_int_equal(message_builder_append_basic(b, 's', "in variant"), 0);
        assert_int_equal(message_builder_close(b), 0);

        assert_int_equal(message_builder_open(b, '{', "sv"), -EINVAL);             /* only in arrays */
        assert_int_equal(message_builder_open(b, 'a', "{vs}"), -EINVAL);           /* key not basic */
        assert_int_equal(message_builder_open(b, 'a', ""), -EINVAL);
        assert_int_equal(message_builder_open(b, 'r', ""), -EINVAL);
        assert_int_equal(message_builder_open(b, 'v', "ss"), -EINVAL);
        assert_int_equal(message_builder_open(b, 'x', "s"), -EINVAL);
        assert_int_equal(message_builder_open(b, 'a', NULL), -EINVAL);

        assert_int_equal(message_builder_append_basic(b, 's', "bad\xff"), -EINVAL);
        assert_int_equal(message_builder_append_basic(b, 'o', "bad"), -EINVAL);
        assert_int_equal(message_builder_append_basic(b, 'g', "a"), -EINVAL);
        assert_int_equal(message_builder_append_basic(b, 'h', &i), -EINVAL);       /* use append_fd */
        assert_int_equal(message_builder_append_basic(b, 'v', &i), -EINVAL);

        assert_int_equal(message_builder_finish(b, &m), 0);
        assert_string_equal(message_get_signature(m), "au(us)v");
        message_unref(m);
}

static void test_nested_round_trip(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b = new_call();
        _cleanup_(message_unrefp) Message *m = NULL, *again = NULL;
        const char *s = NULL;
        MessageReader r;
        uint8_t y = 0;

        /* a(oa{sv}) with a nested variant and an empty dict. */
        assert_int_equal(message_builder_open(b, 'a', "(oa{sv})"), 0);
        for (int k = 0; k < 2; k++) {
                assert_int_equal(message_builder_open(b, 'r', "oa{sv}"), 0);
                assert_int_equal(message_builder_append_basic(b, 'o', k ? "/b" : "/a"), 0);
                assert_int_equal(message_builder_open(b, 'a', "{sv}"), 0);
                if (k == 0) {
                        y = 200;
                        assert_int_equal(message_builder_open(b, 'e', "sv"), 0);
                        assert_int_equal(message_builder_append_basic(b, 's', "deep"), 0);
                        assert_int_equal(message_builder_open(b, 'v', "v"), 0);
                        assert_int_equal(message_builder_open(b, 'v', "y"), 0);
                        assert_int_equal(message_builder_append_basic(b, 'y', &y), 0);
                        assert_int_equal(message_builder_close(b), 0);
                        assert_int_equal(message_builder_close(b), 0);
                        assert_int_equal(message_builder_close(b), 0);
                }
                assert_int_equal(message_builder_close(b), 0);
                assert_int_equal(message_builder_close(b), 0);
        }
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        again = reparse(m);
        assert_string_equal(message_get_signature(again), "a(oa{sv})");

        message_reader_init(&r, again);
        assert_int_equal(message_reader_enter(&r, 'a', "(oa{sv})"), 0);
        assert_int_equal(message_reader_enter(&r, 'r', "oa{sv}"), 0);
        assert_int_equal(message_reader_read_basic(&r, 'o', &s), 0);
        assert_string_equal(s, "/a");
        assert_int_equal(message_reader_enter(&r, 'a', "{sv}"), 0);
        assert_int_equal(message_reader_enter(&r, 'e', "sv"), 0);
        assert_int_equal(message_reader_read_basic(&r, 's', &s), 0);
        assert_string_equal(s, "deep");
        assert_int_equal(message_reader_enter(&r, 'v', "v"), 0);
        assert_int_equal(message_reader_enter(&r, 'v', "y"), 0);
        y = 0;
        assert_int_equal(message_reader_read_basic(&r, 'y', &y), 0);
        assert_int_equal(y, 200);
        for (int k = 0; k < 5; k++)
                assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_reader_enter(&r, 'r', NULL), 0);
        assert_int_equal(message_reader_read_basic(&r, 'o', &s), 0);
        assert_string_equal(s, "/b");
        assert_int_equal(message_reader_enter(&r, 'a', NULL), 0);
        assert_true(message_reader_at_end(&r));
}

static void test_serials(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b1 = new_call(), *b2 = new_call();
        _cleanup_(message_unrefp) Message *m1 = NULL, *m2 = NULL;

        assert_int_equal(message_builder_finish(b1, &m1), 0);
        assert_int_equal(message_builder_finish(b2, &m2), 0);
        assert_int_not_equal(message_get_serial(m1), 0);
        assert_int_not_equal(message_get_serial(m2), 0);
        assert_int_not_equal(message_get_serial(m1), message_get_serial(m2));
}

static Message *finish_call(MessageBuilder *b) {
        Message *m = NULL;

        assert_int_equal(message_builder_finish(b, &m), 0);
        message_builder_free(b);
        return m;
}

static void test_replies(void **state) {
        MessageBuilder *b = new_call();
        _cleanup_(message_unrefp) Message *call = NULL, *ret = NULL, *err = NULL, *err2 = NULL;
        _cleanup_(message_builder_freep) MessageBuilder *rb = NULL;
        const char *text = NULL;
        uint32_t u = 3;

        assert_int_equal(message_builder_set_serial(b, 77), 0);
        call = finish_call(b);

        assert_int_equal(message_new_method_return(call, "org.freedesktop.DBus", &rb), 0);
        assert_int_equal(message_builder_append_basic(rb, 'u', &u), 0);
        assert_int_equal(message_builder_finish(rb, &ret), 0);
        assert_int_equal(message_get_type(ret), MESSAGE_METHOD_RETURN);
        assert_int_equal(message_get_reply_serial(ret), 77);
        assert_string_equal(message_get_destination(ret), ":1.5");
        assert_string_equal(message_get_sender(ret), "org.freedesktop.DBus");
        assert_string_equal(message_get_signature(ret), "u");

        assert_int_equal(message_new_error(call, "org.freedesktop.DBus",
                                           "org.freedesktop.DBus.Error.AccessDenied",
                                           "Rejected send message", &err), 0);
        assert_int_equal(message_get_type(err), MESSAGE_ERROR);
        assert_int_equal(message_get_reply_serial(err), 77);
        assert_string_equal(message_get_error_name(err), "org.freedesktop.DBus.Error.AccessDenied");
        assert_string_equal(message_get_destination(err), ":1.5");
        assert_int_equal(message_read(err, "s", &text), 0);
        assert_string_equal(text, "Rejected send message");

        assert_int_equal(message_new_error(call, NULL, "org.example.E", NULL, &err2), 0);
        assert_null(message_get_signature(err2));
        assert_null(message_get_sender(err2));
        assert_int_equal(message_new_error(call, NULL, NULL, NULL, &err2), -EINVAL);
        assert_int_equal(message_new_error(call, NULL, "bad", NULL, &err2), -EINVAL);
}

static void test_signal(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL, *again = NULL;
        const char *name, *old_owner, *new_owner;

        assert_int_equal(message_new_signal("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                            "org.freedesktop.DBus", "NameOwnerChanged", &b), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "org.example"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', ""), 0);
        assert_int_equal(message_builder_append_basic(b, 's', ":1.9"), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        again = reparse(m);
        assert_int_equal(message_get_type(again), MESSAGE_SIGNAL);
        assert_string_equal(message_get_member(again), "NameOwnerChanged");
        assert_null(message_get_destination(again));
        assert_int_equal(message_read(again, "sss", &name, &old_owner, &new_owner), 0);
        assert_string_equal(name, "org.example");
        assert_string_equal(old_owner, "");
        assert_string_equal(new_owner, ":1.9");

        b = message_builder_free(b);
        assert_int_equal(message_new_signal(NULL, "/", "org.example.I", NULL, &b), -EINVAL);
        assert_int_equal(message_new_signal(NULL, "bad", "org.example.I", "S", &b), -EINVAL);
        assert_null(b);
}

static void append_property(MessageBuilder *b, const char *name, uint32_t value) {
        assert_int_equal(message_builder_open(b, 'e', "sv"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', name), 0);
        assert_int_equal(message_builder_open(b, 'v', "u"), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &value), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_close(b), 0);
}

/* The mediation use: rebuild a PropertiesChanged-like body without one key. */
static void test_copy_filtering_dict(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL, *copy = NULL;
        _cleanup_(message_unrefp) Message *m = NULL, *filtered = NULL;
        const char *key = NULL;
        MessageReader r, probe;
        unsigned seen = 0;
        uint32_t u = 0;

        assert_int_equal(message_new_signal(":1.5", "/org/example", "org.freedesktop.DBus.Properties",
                                            "PropertiesChanged", &b), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "org.example.Modem"), 0);
        assert_int_equal(message_builder_open(b, 'a', "{sv}"), 0);
        append_property(b, "Public", 1);
        append_property(b, "Secret", 2);
        append_property(b, "Other", 3);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_open(b, 'a', "s"), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);

        assert_int_equal(message_builder_new_from_header(m, &copy), 0);
        message_reader_init(&r, m);
        assert_int_equal(message_builder_copy_value(copy, &r), 0);
        assert_int_equal(message_reader_enter(&r, 'a', "{sv}"), 0);
        assert_int_equal(message_builder_open(copy, 'a', "{sv}"), 0);
        while (!message_reader_at_end(&r)) {
                probe = r;      /* look at the key without consuming the entry */
                assert_int_equal(message_reader_enter(&probe, '{', "sv"), 0);
                assert_int_equal(message_reader_read_basic(&probe, 's', &key), 0);
                if (strcmp(key, "Secret") == 0)
                        assert_int_equal(message_reader_skip(&r), 0);
                else
                        assert_int_equal(message_builder_copy_value(copy, &r), 0);
        }
        assert_int_equal(message_builder_close(copy), 0);
        assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_builder_copy_value(copy, &r), 0);
        assert_int_equal(message_builder_copy_value(copy, &r), MESSAGE_E_SIGNATURE);  /* at end */
        assert_int_equal(message_builder_finish(copy, &filtered), 0);

        assert_string_equal(message_get_signature(filtered), "sa{sv}as");
        assert_string_equal(message_get_member(filtered), "PropertiesChanged");
        assert_string_equal(message_get_sender(filtered), ":1.5");
        assert_int_equal(message_get_serial(filtered), message_get_serial(m));
        message_reader_init(&r, filtered);
        assert_int_equal(message_reader_skip(&r), 0);
        assert_int_equal(message_reader_enter(&r, 'a', "{sv}"), 0);
        while (!message_reader_at_end(&r)) {
                assert_int_equal(message_reader_enter(&r, '{', "sv"), 0);
                assert_int_equal(message_reader_read_basic(&r, 's', &key), 0);
                assert_string_not_equal(key, "Secret");
                assert_int_equal(message_reader_enter(&r, 'v', "u"), 0);
                assert_int_equal(message_reader_read_basic(&r, 'u', &u), 0);
                assert_int_equal(u, strcmp(key, "Public") == 0 ? 1 : 3);
                assert_int_equal(message_reader_exit(&r), 0);
                assert_int_equal(message_reader_exit(&r), 0);
                seen++;
        }
        assert_int_equal(seen, 2);
}

static void test_copy_big_endian_and_fds(void **state) {
        /* A big-endian call with body "hu": index 0, 0xcafebabe. */
        static const uint8_t data[] = {
                'B', 1, 0, 1, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 48,
                1, 1, 'o', 0, 0, 0, 0, 1, '/', 0, 0, 0, 0, 0, 0, 0,
                3, 1, 's', 0, 0, 0, 0, 4, 'P', 'a', 's', 's', 0, 0, 0, 0,
                8, 1, 'g', 0, 2, 'h', 'u', 0, 9, 1, 'u', 0, 0, 0, 0, 1,
                0, 0, 0, 0, 0xca, 0xfe, 0xba, 0xbe,
        };
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL, *copy = NULL;
        const int *fds;
        size_t n_fds;
        MessageReader r;
        uint32_t index = 9, u = 0;
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

        assert_true(fd >= 0);
        assert_int_equal(message_parse(data, sizeof(data), &fd, 1, &m), 0);
        assert_int_equal(message_builder_new_from_header(m, &b), 0);
        message_reader_init(&r, m);
        while (!message_reader_at_end(&r))
                assert_int_equal(message_builder_copy_value(b, &r), 0);
        assert_int_equal(message_builder_finish(b, &copy), 0);

        assert_true(message_is_little_endian(copy));
        assert_int_equal(message_read(copy, "hu", &index, &u), 0);
        assert_int_equal(index, 0);
        assert_int_equal(u, 0xcafebabe);
        fds = message_get_unix_fds(copy, &n_fds);
        assert_int_equal(n_fds, 1);
        assert_int_not_equal(fds[0], fd);       /* a duplicate, owned by the copy */
        assert_true(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
}

static void test_append_fd_errors(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b = new_call();

        assert_int_equal(message_builder_append_fd(b, -1), -EBADF);
        assert_int_equal(message_builder_open(b, 'a', "s"), 0);
        assert_int_equal(message_builder_append_fd(b, 0), -EINVAL);     /* not an 'h' slot */
        assert_int_equal(message_builder_close(b), 0);
}

/*
 * finish() indexes the header it writes instead of parsing it again: the
 * index must be exactly what message_validate_header() makes of the
 * same bytes.
 */
static void assert_index_as_parsed(Message *m) {
        Message parsed = *m;

        assert_int_equal(message_validate_header(&parsed), 0);
        assert_int_equal(parsed.little_endian, m->little_endian);
        assert_int_equal(parsed.type, m->type);
        assert_int_equal(parsed.flags, m->flags);
        assert_int_equal(parsed.serial, m->serial);
        assert_int_equal(parsed.reply_serial, m->reply_serial);
        assert_int_equal(parsed.unix_fds, m->unix_fds);
        assert_int_equal(parsed.unix_fds, m->n_fds);
        assert_int_equal(parsed.has_unknown_fields, m->has_unknown_fields);
        assert_int_equal(parsed.body_offset, m->body_offset);
        assert_int_equal(parsed.body_size, m->body_size);
        assert_int_equal(parsed.size, m->size);
        assert_ptr_equal(parsed.path, m->path);
        assert_ptr_equal(parsed.interface, m->interface);
        assert_ptr_equal(parsed.member, m->member);
        assert_ptr_equal(parsed.error_name, m->error_name);
        assert_ptr_equal(parsed.destination, m->destination);
        assert_ptr_equal(parsed.sender, m->sender);
        assert_ptr_equal(parsed.signature, m->signature);
}

static void finish_and_compare(MessageBuilder *b) {
        _cleanup_(message_unrefp) Message *m = NULL;

        assert_int_equal(message_builder_finish(b, &m), 0);
        assert_index_as_parsed(m);
        message_builder_free(b);
}

static void test_finish_index(void **state) {
        MessageBuilder *b = new_call();
        _cleanup_(message_unrefp) Message *call = NULL, *anonymous = NULL, *err = NULL;
        char long_path[600];
        uint32_t u = 7;
        int pipefd[2];

        assert_int_equal(message_builder_set_flags(b, 0xff), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "text"), 0);
        assert_int_equal(message_builder_finish(b, &call), 0);
        assert_index_as_parsed(call);
        message_builder_free(b);

        /* A reply to it, its destination copied from the call's sender. */
        assert_int_equal(message_new_method_return(call, "org.freedesktop.DBus", &b), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &u), 0);
        finish_and_compare(b);

        assert_int_equal(message_new_error(call, "org.freedesktop.DBus", "org.example.Error", "why", &err), 0);
        assert_index_as_parsed(err);

        /* A call without sender: its reply has no destination. */
        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_path(b, "/"), 0);
        assert_int_equal(message_builder_set_member(b, "M"), 0);
        assert_int_equal(message_builder_finish(b, &anonymous), 0);
        assert_index_as_parsed(anonymous);
        message_builder_free(b);
        assert_int_equal(message_new_method_return(anonymous, NULL, &b), 0);
        finish_and_compare(b);

        assert_int_equal(message_new_signal("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                            "org.freedesktop.DBus", "NameOwnerChanged", &b), 0);
        assert_int_equal(message_builder_open(b, 'a', "{sv}"), 0);
        append_property(b, "Count", 3);
        assert_int_equal(message_builder_close(b), 0);
        finish_and_compare(b);

        /* A path longer than any name, and a descriptor. */
        long_path[0] = '/';
        memset(long_path + 1, 'p', sizeof(long_path) - 2);
        long_path[sizeof(long_path) - 1] = 0;
        assert_int_equal(pipe(pipefd), 0);
        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_path(b, long_path), 0);
        assert_int_equal(message_builder_set_member(b, "Take"), 0);
        assert_int_equal(message_builder_set_destination(b, ":1.2"), 0);
        assert_int_equal(message_builder_append_fd(b, pipefd[0]), 0);
        finish_and_compare(b);
        close(pipefd[0]);
        close(pipefd[1]);

        /* A body that outgrows the builder's own buffer, written across the move. */
        {
                _cleanup_(message_unrefp) Message *big = NULL;
                char text[1000];
                const char *read_back = NULL, *after = NULL;

                memset(text, 'x', sizeof(text) - 1);
                text[sizeof(text) - 1] = 0;
                b = new_call();
                assert_int_equal(message_builder_append_basic(b, 's', "before"), 0);
                assert_int_equal(message_builder_append_basic(b, 's', text), 0);
                assert_int_equal(message_builder_finish(b, &big), 0);
                assert_index_as_parsed(big);
                message_builder_free(b);
                assert_int_equal(message_read(big, "ss", &read_back, &after), 0);
                assert_string_equal(read_back, "before");
                assert_string_equal(after, text);
        }

        /* Cleared fields are gone from the header. */
        b = new_call();
        assert_int_equal(message_builder_set_interface(b, NULL), 0);
        assert_int_equal(message_builder_set_sender(b, NULL), 0);
        finish_and_compare(b);
}

/* What message_validate_header() refuses in a header, finish() refuses too. */
static void test_finish_reserved(void **state) {
        _cleanup_(message_builder_freep) MessageBuilder *b = new_call();
        Message *m = NULL;

        assert_int_equal(message_builder_set_path(b, "/org/freedesktop/DBus/Local"), 0);
        assert_int_equal(message_builder_finish(b, &m), -EINVAL);
        assert_int_equal(message_builder_set_path(b, "/org/freedesktop/DBus/Local/x"), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        message_unref(m);
        assert_int_equal(message_builder_set_interface(b, "org.freedesktop.DBus.Local"), 0);
        assert_int_equal(message_builder_finish(b, &m), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_header_round_trip),
                cmocka_unit_test(test_invalid_setters),
                cmocka_unit_test(test_container_enforcement),
                cmocka_unit_test(test_known_string),
                cmocka_unit_test(test_nested_round_trip),
                cmocka_unit_test(test_serials),
                cmocka_unit_test(test_replies),
                cmocka_unit_test(test_signal),
                cmocka_unit_test(test_copy_filtering_dict),
                cmocka_unit_test(test_copy_big_endian_and_fds),
                cmocka_unit_test(test_append_fd_errors),
                cmocka_unit_test(test_finish_index),
                cmocka_unit_test(test_finish_reserved),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
