/*
 * Fuzz harness for message_parse(): the bytes a client sends. Every
 * message the parser accepts is then used the way the bus uses it, and
 * the harness aborts on any inconsistency:
 *  - message_peek_unix_fds() agrees, every accessor, the match
 *    arguments, a full reader walk;
 *  - a copy through message_builder_copy_value() must finish, parse
 *    again, and (for a little-endian original, whose body is already
 *    canonical) have a byte-identical body;
 *  - stamping a SENDER must keep the message valid and the body intact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(expr)                                                     \
        do {                                                            \
                if (!(expr)) {                                          \
                        fprintf(stderr, "check failed: %s (%s:%d)\n",   \
                                #expr, __FILE__, __LINE__);             \
                        abort();                                        \
                }                                                       \
        } while (0)

static size_t touch(const char *s) {
        return s ? strlen(s) : 0;
}

/* Reads every value below the reader's position; returns the count. */
static unsigned walk(MessageReader *r) {
        unsigned n = 0;
        char type;

        while (message_reader_peek(r, &type) > 0) {
                union {
                        uint64_t u64;
                        const char *s;
                } value;

                n++;
                if (strchr("a({v", type)) {
                        CHECK(message_reader_enter(r, type, NULL) == 0);
                        n += walk(r);
                        CHECK(message_reader_exit(r) == 0);
                } else {
                        CHECK(message_reader_read_basic(r, type, &value) == 0);
                        if (strchr("sog", type))
                                touch(value.s);
                }
        }
        CHECK(message_reader_at_end(r));
        return n;
}

static void check_copy(Message *m) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *copy = NULL, *again = NULL;
        const void *body, *copy_body, *copy_data;
        size_t body_size, copy_body_size, copy_size;
        MessageReader r;

        CHECK(message_builder_new_from_header(m, &b) == 0);
        message_reader_init(&r, m);
        while (!message_reader_at_end(&r))
                CHECK(message_builder_copy_value(b, &r) == 0);
        CHECK(message_builder_finish(b, &copy) == 0);

        CHECK(strcmp(message_get_signature(copy) ?: "", message_get_signature(m) ?: "") == 0);
        body = message_get_body(m, &body_size);
        copy_body = message_get_body(copy, &copy_body_size);
        if (message_is_little_endian(m))
                CHECK(body_size == copy_body_size && memcmp(body, copy_body, body_size) == 0);

        copy_data = message_get_data(copy, &copy_size);
        CHECK(message_parse(copy_data, copy_size, NULL, 0, &again) == 0);
}

static void check_stamp(const uint8_t *data, size_t size) {
        _cleanup_(message_unrefp) Message *m = NULL, *again = NULL;
        const void *body_before, *body_after, *stamped;
        size_t before_size, after_size, stamped_size;
        uint8_t *body_copy;

        CHECK(message_parse(data, size, NULL, 0, &m) == 0);
        body_before = message_get_body(m, &before_size);
        body_copy = malloc(before_size + 1);
        CHECK(body_copy);
        memcpy(body_copy, body_before, before_size);

        CHECK(message_stamp_sender(m, ":1.2345") == 0);
        CHECK(strcmp(message_get_sender(m), ":1.2345") == 0);
        body_after = message_get_body(m, &after_size);
        CHECK(after_size == before_size && memcmp(body_copy, body_after, before_size) == 0);
        free(body_copy);

        stamped = message_get_data(m, &stamped_size);
        CHECK(message_parse(stamped, stamped_size, NULL, 0, &again) == 0);
        CHECK(strcmp(message_get_sender(again), ":1.2345") == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(message_unrefp) Message *m = NULL;
        MessageArg args[MESSAGE_ARGS_MAX];
        MessageReader r;
        unsigned n_args;
        uint32_t n_fds = 0;
        size_t total;
        int peek;

        if (message_frame_size(data, size, MESSAGE_SIZE_MAX, &total) == 0 && total != size)
                CHECK(message_parse(data, size, NULL, 0, &m) != 0);
        peek = message_peek_unix_fds(data, size, &n_fds);
        if (message_parse(data, size, NULL, 0, &m) != 0)
                return 0;
        /* Accepted without descriptors: the header declares none. */
        CHECK(peek == 0 && n_fds == 0);

        touch(message_get_path(m));
        touch(message_get_interface(m));
        touch(message_get_member(m));
        touch(message_get_error_name(m));
        touch(message_get_destination(m));
        touch(message_get_sender(m));
        touch(message_get_signature(m));
        CHECK(message_get_type(m) != MESSAGE_INVALID);
        CHECK(message_get_serial(m) != 0);

        CHECK(message_get_args(m, args, &n_args) == 0);
        for (unsigned i = 0; i < n_args; i++)
                CHECK(!!args[i].str == !!strchr("sog", args[i].type));

        message_reader_init(&r, m);
        walk(&r);

        /* Unknown types parse (to be ignored) but are never built. */
        if (message_type_is_known(message_get_type(m)))
                check_copy(m);
        else
                CHECK(message_builder_new_from_header(m, &(MessageBuilder *) { NULL }) == -EINVAL);
        check_stamp(data, size);
        return 0;
}
