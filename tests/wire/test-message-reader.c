/*
 * Unit tests for broker/wire/message-reader.c: walking bodies value by
 * value, containers, type checks, skipping, message_read().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "message.h"

static MessageBuilder *new_call(void) {
        MessageBuilder *b = NULL;

        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_path(b, "/"), 0);
        assert_int_equal(message_builder_set_member(b, "M"), 0);
        return b;
}

static Message *finish(MessageBuilder *b) {
        Message *m = NULL;

        assert_int_equal(message_builder_finish(b, &m), 0);
        message_builder_free(b);
        return m;
}

static void append_dict_entry(MessageBuilder *b, const char *key, char type, const void *value) {
        char contents[2] = { type, 0 };

        assert_int_equal(message_builder_open(b, '{', "sv"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', key), 0);
        assert_int_equal(message_builder_open(b, 'v', contents), 0);
        assert_int_equal(message_builder_append_basic(b, type, value), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_close(b), 0);
}

/* Body "sa{sv}(iy)u": "iface", {"A": <u 1>, "B": <s "two">}, (-3, 9), 77. */
static Message *build_properties(void) {
        MessageBuilder *b = new_call();
        uint32_t one = 1, u = 77;
        int32_t i = -3;
        uint8_t y = 9;

        assert_int_equal(message_builder_append_basic(b, 's', "iface"), 0);
        assert_int_equal(message_builder_open(b, 'a', "{sv}"), 0);
        append_dict_entry(b, "A", 'u', &one);
        append_dict_entry(b, "B", 's', "two");
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_open(b, 'r', "iy"), 0);
        assert_int_equal(message_builder_append_basic(b, 'i', &i), 0);
        assert_int_equal(message_builder_append_basic(b, 'y', &y), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &u), 0);
        return finish(b);
}

static void test_walk(void **state) {
        _cleanup_(message_unrefp) Message *m = build_properties();
        const char *s = NULL;
        MessageReader r;
        uint32_t u = 0;
        int32_t i = 0;
        uint8_t y = 0;
        char type = 0;

        assert_string_equal(message_get_signature(m), "sa{sv}(iy)u");
        message_reader_init(&r, m);
        assert_int_equal(message_reader_peek(&r, &type), 's');
        assert_int_equal(type, 's');
        assert_int_equal(message_reader_read_basic(&r, 's', &s), 0);
        assert_string_equal(s, "iface");

        assert_int_equal(message_reader_peek(&r, &type), 'a');
        assert_int_equal(message_reader_enter(&r, 'a', "{sv}"), 0);
        assert_int_equal(message_reader_enter(&r, 'e', "sv"), 0);
        assert_int_equal(message_reader_read_basic(&r, 's', &s), 0);
        assert_string_equal(s, "A");
        assert_int_equal(message_reader_enter(&r, 'v', "u"), 0);
        assert_int_equal(message_reader_read_basic(&r, 'u', &u), 0);
        assert_int_equal(u, 1);
        assert_true(message_reader_at_end(&r));
        assert_int_equal(message_reader_peek(&r, &type), 0);
        assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_reader_exit(&r), 0);
        assert_false(message_reader_at_end(&r));
        assert_int_equal(message_reader_enter(&r, '{', NULL), 0);
        assert_int_equal(message_reader_read_basic(&r, 's', &s), 0);
        assert_string_equal(s, "B");
        assert_int_equal(message_reader_enter(&r, 'v', "s"), 0);
        assert_int_equal(message_reader_read_basic(&r, 's', &s), 0);
        assert_string_equal(s, "two");
        assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_reader_exit(&r), 0);
        assert_true(message_reader_at_end(&r));
        assert_int_equal(message_reader_exit(&r), 0);

        assert_int_equal(message_reader_enter(&r, '(', "iy"), 0);
        assert_int_equal(message_reader_read_basic(&r, 'i', &i), 0);
        assert_int_equal(i, -3);
        assert_int_equal(message_reader_read_basic(&r, 'y', &y), 0);
        assert_int_equal(y, 9);
        assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_reader_read_basic(&r, 'u', &u), 0);
        assert_int_equal(u, 77);
        assert_true(message_reader_at_end(&r));
        assert_int_equal(message_reader_peek(&r, NULL), 0);
        assert_int_equal(message_reader_exit(&r), -EINVAL);     /* nothing open */
}

static void test_type_mismatch(void **state) {
        _cleanup_(message_unrefp) Message *m = build_properties();
        const char *s = NULL;
        MessageReader r;
        uint32_t u;

        message_reader_init(&r, m);
        assert_int_equal(message_reader_read_basic(&r, 'u', &u), MESSAGE_E_SIGNATURE);
        assert_int_equal(message_reader_read_basic(&r, 'o', &s), MESSAGE_E_SIGNATURE);
        assert_int_equal(message_reader_enter(&r, 'a', NULL), MESSAGE_E_SIGNATURE);
        assert_int_equal(message_reader_read_basic(&r, 's', &s), 0);
        /* Wrong contents are refused before anything moves. */
        assert_int_equal(message_reader_enter(&r, 'a', "{ss}"), MESSAGE_E_SIGNATURE);
        assert_int_equal(message_reader_enter(&r, 'a', "{s"), MESSAGE_E_SIGNATURE);
        assert_int_equal(message_reader_enter(&r, 'v', NULL), MESSAGE_E_SIGNATURE);
        assert_int_equal(message_reader_enter(&r, 'a', "{sv}"), 0);
        assert_int_equal(message_reader_enter(&r, '(', "sv"), MESSAGE_E_SIGNATURE);
        assert_int_equal(message_reader_enter(&r, '{', "sv"), 0);
        assert_int_equal(message_reader_skip(&r), 0);
        assert_int_equal(message_reader_enter(&r, 'v', "s"), MESSAGE_E_SIGNATURE);
        assert_int_equal(message_reader_enter(&r, 'v', "u"), 0);
}

static void test_skip_and_exit_early(void **state) {
        _cleanup_(message_unrefp) Message *m = build_properties();
        MessageReader r;
        uint32_t u = 0;
        const char *s;

        message_reader_init(&r, m);
        assert_int_equal(message_reader_skip(&r), 0);
        assert_int_equal(message_reader_skip(&r), 0);
        assert_int_equal(message_reader_skip(&r), 0);
        assert_int_equal(message_reader_read_basic(&r, 'u', &u), 0);
        assert_int_equal(u, 77);
        assert_int_equal(message_reader_skip(&r), MESSAGE_E_SIGNATURE);

        /* exit() skips whatever was not read. */
        message_reader_init(&r, m);
        assert_int_equal(message_reader_skip(&r), 0);
        assert_int_equal(message_reader_enter(&r, 'a', "{sv}"), 0);
        assert_int_equal(message_reader_enter(&r, '{', "sv"), 0);
        assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_reader_enter(&r, '(', "iy"), 0);
        assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_reader_read_basic(&r, 'u', &u), 0);
        assert_int_equal(u, 77);
        assert_int_equal(message_reader_read_basic(&r, 's', &s), MESSAGE_E_SIGNATURE);
}

static void test_peek_contents(void **state) {
        _cleanup_(message_unrefp) Message *m = build_properties();
        char contents[256];
        MessageReader r;

        message_reader_init(&r, m);
        assert_int_equal(message_reader_peek_contents(&r, contents), 's');
        assert_string_equal(contents, "");
        assert_int_equal(message_reader_skip(&r), 0);
        assert_int_equal(message_reader_peek_contents(&r, contents), 'a');
        assert_string_equal(contents, "{sv}");
        assert_int_equal(message_reader_enter(&r, 'a', contents), 0);
        assert_int_equal(message_reader_peek_contents(&r, contents), '{');
        assert_string_equal(contents, "sv");
        assert_int_equal(message_reader_enter(&r, '{', contents), 0);
        assert_int_equal(message_reader_skip(&r), 0);
        assert_int_equal(message_reader_peek_contents(&r, contents), 'v');
        assert_string_equal(contents, "u");
        assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_reader_peek_contents(&r, contents), '(');
        assert_string_equal(contents, "iy");
}

static void test_all_basic_types(void **state) {
        MessageBuilder *b = new_call();
        _cleanup_(message_unrefp) Message *m = NULL;
        uint8_t y = 0xfe, y2 = 0;
        int bo = 1, bo2 = 0;
        int16_t n = -2, n2 = 0;
        uint16_t q = 0xfffe, q2 = 0;
        int32_t i = -5, i2 = 0;
        uint32_t u = 0xfffffffe, u2 = 0;
        int64_t x = -6, x2 = 0;
        uint64_t t = UINT64_MAX - 1, t2 = 0;
        double d = 3.25, d2 = 0;
        const char *s = NULL, *o = NULL, *g = NULL;

        assert_int_equal(message_builder_append_basic(b, 'y', &y), 0);
        assert_int_equal(message_builder_append_basic(b, 'b', &bo), 0);
        assert_int_equal(message_builder_append_basic(b, 'n', &n), 0);
        assert_int_equal(message_builder_append_basic(b, 'q', &q), 0);
        assert_int_equal(message_builder_append_basic(b, 'i', &i), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &u), 0);
        assert_int_equal(message_builder_append_basic(b, 'x', &x), 0);
        assert_int_equal(message_builder_append_basic(b, 't', &t), 0);
        assert_int_equal(message_builder_append_basic(b, 'd', &d), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "str"), 0);
        assert_int_equal(message_builder_append_basic(b, 'o', "/o/p"), 0);
        assert_int_equal(message_builder_append_basic(b, 'g', "a{sv}"), 0);
        m = finish(b);

        assert_int_equal(message_read(m, "ybnqiuxtdsog", &y2, &bo2, &n2, &q2, &i2, &u2, &x2, &t2,
                                      &d2, &s, &o, &g), 0);
        assert_int_equal(y2, y);
        assert_int_equal(bo2, 1);
        assert_int_equal(n2, n);
        assert_int_equal(q2, q);
        assert_int_equal(i2, i);
        assert_int_equal(u2, u);
        assert_true(x2 == x);
        assert_true(t2 == t);
        assert_true(d2 == d);
        assert_string_equal(s, "str");
        assert_string_equal(o, "/o/p");
        assert_string_equal(g, "a{sv}");

        assert_int_equal(message_read(m, "ybnqiuxtdso", &y2), MESSAGE_E_SIGNATURE);
        assert_int_equal(message_read(m, "", NULL), MESSAGE_E_SIGNATURE);
}

static void test_empty_body(void **state) {
        _cleanup_(message_unrefp) Message *m = finish(new_call());
        MessageReader r;

        assert_null(message_get_signature(m));
        assert_int_equal(message_read(m, ""), 0);
        message_reader_init(&r, m);
        assert_true(message_reader_at_end(&r));
        assert_int_equal(message_reader_peek(&r, NULL), 0);
}

static void test_empty_arrays(void **state) {
        MessageBuilder *b = new_call();
        _cleanup_(message_unrefp) Message *m = NULL;
        MessageReader r;
        uint8_t y = 1;
        uint64_t t = 0;

        /* An empty array of 8-aligned elements still carries the padding. */
        assert_int_equal(message_builder_append_basic(b, 'y', &y), 0);
        assert_int_equal(message_builder_open(b, 'a', "(tt)"), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_open(b, 'a', "t"), 0);
        assert_int_equal(message_builder_append_basic(b, 't', &t), 0);
        assert_int_equal(message_builder_close(b), 0);
        m = finish(b);

        message_reader_init(&r, m);
        assert_int_equal(message_reader_skip(&r), 0);
        assert_int_equal(message_reader_enter(&r, 'a', "(tt)"), 0);
        assert_true(message_reader_at_end(&r));
        assert_int_equal(message_reader_peek(&r, NULL), 0);
        assert_int_equal(message_reader_exit(&r), 0);
        assert_int_equal(message_reader_enter(&r, 'a', "t"), 0);
        assert_int_equal(message_reader_read_basic(&r, 't', &t), 0);
        assert_true(message_reader_at_end(&r));
        assert_int_equal(message_reader_exit(&r), 0);
        assert_true(message_reader_at_end(&r));
}

/* A big-endian "u" body: the reader swaps. */
static void test_big_endian(void **state) {
        static const uint8_t data[] = {
                'B', 1, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 39,
                1, 1, 'o', 0, 0, 0, 0, 1, '/', 0, 0, 0, 0, 0, 0, 0,
                3, 1, 's', 0, 0, 0, 0, 4, 'P', 'i', 'n', 'g', 0, 0, 0, 0,
                8, 1, 'g', 0, 1, 'u', 0, 0, 0xca, 0xfe, 0xba, 0xbe,
        };
        _cleanup_(message_unrefp) Message *m = NULL;
        uint32_t u = 0;

        assert_int_equal(message_parse(data, sizeof(data), NULL, 0, &m), 0);
        assert_false(message_is_little_endian(m));
        assert_int_equal(message_read(m, "u", &u), 0);
        assert_int_equal(u, 0xcafebabe);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_walk),
                cmocka_unit_test(test_type_mismatch),
                cmocka_unit_test(test_skip_and_exit_early),
                cmocka_unit_test(test_peek_contents),
                cmocka_unit_test(test_all_basic_types),
                cmocka_unit_test(test_empty_body),
                cmocka_unit_test(test_empty_arrays),
                cmocka_unit_test(test_big_endian),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
