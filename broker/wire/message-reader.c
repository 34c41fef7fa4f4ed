/*
 * message-reader: walks the body of a validated message, value by value.
 *
 * The reader trusts what message_validate() established (lengths fit,
 * strings are terminated, signatures are well formed, containers nest at
 * most MESSAGE_DEPTH_MAX deep) and so needs no allocation and no
 * re-validation; it only checks that the caller asks for the type that
 * is actually there, and answers MESSAGE_E_SIGNATURE when it is not.
 * Bounds are still checked where it is cheap, returning -EIO, so that a
 * bug elsewhere cannot turn into an out-of-bounds read.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "message-private.h"
#include "validate.h"

void message_reader_init(MessageReader *r, Message *m) {
        const char *sig = m->signature ?: "";

        r->message = m;
        r->body = m->data + m->body_offset;
        r->body_size = m->body_size;
        r->pos = 0;
        r->little_endian = m->little_endian;
        r->depth = 0;
        r->frames[0] = (MessageReaderFrame) {
                .sig = sig,
                .sig_begin = sig,
                .sig_end = sig + strlen(sig),
                .end = m->body_size,
        };
}

static MessageReaderFrame *current(MessageReader *r) {
        return &r->frames[r->depth];
}

bool message_reader_at_end(MessageReader *r) {
        MessageReaderFrame *f = current(r);

        if (f->container == 'a')
                return r->pos >= f->end;
        return f->sig >= f->sig_end;
}

/* Moves past one complete type of len codes in the current frame. */
static void advance(MessageReader *r, size_t len) {
        MessageReaderFrame *f = current(r);

        f->sig += len;
        if (f->container == 'a' && f->sig >= f->sig_end)
                f->sig = f->sig_begin;  /* next element */
}

static size_t current_type_length(MessageReader *r) {
        MessageReaderFrame *f = current(r);

        return validate_complete_type_length(f->sig, (size_t) (f->sig_end - f->sig));
}

int message_reader_peek(MessageReader *r, char *ret_type) {
        if (message_reader_at_end(r))
                return 0;
        if (ret_type)
                *ret_type = *current(r)->sig;
        return (unsigned char) *current(r)->sig;
}

static int align(MessageReader *r, size_t alignment, size_t need) {
        size_t pos = ALIGN_TO(r->pos, alignment);

        if (pos > r->body_size || r->body_size - pos < need)
                return -EIO;
        r->pos = pos;
        return 0;
}

static int read_string(MessageReader *r, char type, const char **ret) {
        size_t len;
        int r_;

        if (type == 'g') {
                r_ = align(r, 1, 1);
                if (r_)
                        return r_;
                len = r->body[r->pos];
                if (ret)
                        *ret = (const char *) r->body + r->pos + 1;
                r->pos += len + 2;
                return 0;
        }
        r_ = align(r, 4, 4);
        if (r_)
                return r_;
        len = message_load32(r->body + r->pos, r->little_endian);
        if (ret)
                *ret = (const char *) r->body + r->pos + 4;
        r->pos += 4 + len + 1;
        return 0;
}

static void store_fixed(MessageReader *r, char type, void *ret) {
        const uint8_t *p = r->body + r->pos;
        bool le = r->little_endian;

        switch (type) {
        case 'y':
                *(uint8_t *) ret = *p;
                break;
        case 'b':
                *(int *) ret = message_load32(p, le) != 0;
                break;
        case 'n': case 'q':
                *(uint16_t *) ret = message_load16(p, le);
                break;
        case 'i': case 'u': case 'h':
                *(uint32_t *) ret = message_load32(p, le);
                break;
        default: {      /* x t d */
                uint64_t v = message_load64(p, le);

                memcpy(ret, &v, sizeof(v));
                break;
        }
        }
}

int message_reader_read_basic(MessageReader *r, char type, void *ret) {
        size_t size;
        char next;
        int r_;

        if (message_reader_peek(r, &next) == 0 || next != type || !validate_is_basic_type(type))
                return MESSAGE_E_SIGNATURE;

        size = message_fixed_size(type);
        if (size == 0) {
                r_ = read_string(r, type, ret);
                if (r_)
                        return r_;
        } else {
                r_ = align(r, size, size);
                if (r_)
                        return r_;
                if (ret)
                        store_fixed(r, type, ret);
                r->pos += size;
        }
        advance(r, 1);
        return 0;
}

static bool contents_match(const char *contents, const char *inner, size_t inner_len) {
        return !contents || (strlen(contents) == inner_len && memcmp(contents, inner, inner_len) == 0);
}

static int enter_array(MessageReader *r, const char *contents, size_t type_len) {
        const char *inner = current(r)->sig + 1;
        uint32_t len;
        int r_;

        if (!contents_match(contents, inner, type_len - 1))
                return MESSAGE_E_SIGNATURE;
        r_ = align(r, 4, 4);
        if (r_)
                return r_;
        len = message_load32(r->body + r->pos, r->little_endian);
        r->pos += 4;
        r_ = align(r, message_type_alignment(inner[0]), len);
        if (r_)
                return r_;
        advance(r, type_len);
        r->frames[++r->depth] = (MessageReaderFrame) {
                .sig = inner,
                .sig_begin = inner,
                .sig_end = inner + type_len - 1,
                .end = r->pos + len,
                .container = 'a',
        };
        return 0;
}

static int enter_struct(MessageReader *r, char container, const char *contents, size_t type_len) {
        const char *inner = current(r)->sig + 1;
        int r_;

        if (!contents_match(contents, inner, type_len - 2))
                return MESSAGE_E_SIGNATURE;
        r_ = align(r, 8, 0);
        if (r_)
                return r_;
        advance(r, type_len);
        r->frames[++r->depth] = (MessageReaderFrame) {
                .sig = inner,
                .sig_begin = inner,
                .sig_end = inner + type_len - 2,
                .container = container,
        };
        return 0;
}

static int enter_variant(MessageReader *r, const char *contents) {
        const char *inner;
        size_t len;
        int r_;

        r_ = align(r, 1, 1);
        if (r_)
                return r_;
        len = r->body[r->pos];
        inner = (const char *) r->body + r->pos + 1;
        if (!contents_match(contents, inner, len))
                return MESSAGE_E_SIGNATURE;
        r->pos += len + 2;
        r_ = align(r, message_type_alignment(inner[0]), 0);
        if (r_)
                return r_;
        advance(r, 1);
        r->frames[++r->depth] = (MessageReaderFrame) {
                .sig = inner,
                .sig_begin = inner,
                .sig_end = inner + len,
                .container = 'v',
        };
        return 0;
}

int message_reader_enter(MessageReader *r, char container, const char *contents) {
        size_t type_len;
        char next;

        if (container == 'r')
                container = '(';
        else if (container == 'e')
                container = '{';
        if (message_reader_peek(r, &next) == 0 || next != container)
                return MESSAGE_E_SIGNATURE;
        if (r->depth + 1 >= ELEMENTSOF(r->frames))
                return -EIO;    /* deeper than validation allows: cannot happen */

        type_len = current_type_length(r);
        switch (container) {
        case 'a':
                return enter_array(r, contents, type_len);
        case '(':
        case '{':
                return enter_struct(r, container, contents, type_len);
        case 'v':
                return enter_variant(r, contents);
        default:
                return MESSAGE_E_SIGNATURE;
        }
}

int message_reader_exit(MessageReader *r) {
        MessageReaderFrame *f = current(r);
        int r_;

        if (r->depth == 0)
                return -EINVAL;
        if (f->container == 'a') {
                r->pos = f->end;
        } else {
                while (!message_reader_at_end(r)) {
                        r_ = message_reader_skip(r);
                        if (r_)
                                return r_;
                }
        }
        r->depth--;
        return 0;
}

int message_reader_skip(MessageReader *r) {
        char next;
        int r_;

        if (message_reader_peek(r, &next) == 0)
                return MESSAGE_E_SIGNATURE;
        if (validate_is_basic_type(next))
                return message_reader_read_basic(r, next, NULL);
        r_ = message_reader_enter(r, next, NULL);
        if (r_)
                return r_;
        return message_reader_exit(r);
}

int message_reader_peek_contents(MessageReader *r, char ret_contents[256]) {
        size_t type_len, len = 0;
        const char *from = "";
        char next;

        if (message_reader_peek(r, &next) == 0)
                return 0;
        type_len = current_type_length(r);
        switch (next) {
        case 'a':
                from = current(r)->sig + 1;
                len = type_len - 1;
                break;
        case '(':
        case '{':
                from = current(r)->sig + 1;
                len = type_len - 2;
                break;
        case 'v':
                if (r->pos >= r->body_size)
                        return -EIO;
                len = r->body[r->pos];
                from = (const char *) r->body + r->pos + 1;
                break;
        }
        memcpy(ret_contents, from, len);
        ret_contents[len] = 0;
        return (unsigned char) next;
}

int message_read(Message *m, const char *signature, ...) {
        MessageReader reader;
        va_list ap;
        int r = 0;

        if (strcmp(m->signature ?: "", signature) != 0)
                return MESSAGE_E_SIGNATURE;
        for (const char *t = signature; *t; t++)
                if (!validate_is_basic_type(*t))
                        return -EINVAL;

        message_reader_init(&reader, m);
        va_start(ap, signature);
        for (const char *t = signature; *t && r == 0; t++)
                r = message_reader_read_basic(&reader, *t, va_arg(ap, void *));
        va_end(ap);
        return r;
}

static int compute_args(Message *m) {
        MessageArg args[MESSAGE_ARGS_MAX];
        MessageReader reader;
        unsigned n = 0;
        char type;
        int r;

        message_reader_init(&reader, m);
        while (n < MESSAGE_ARGS_MAX && message_reader_peek(&reader, &type) > 0) {
                args[n] = (MessageArg) { .type = type };
                if (type == 's' || type == 'o' || type == 'g')
                        r = message_reader_read_basic(&reader, type, &args[n].str);
                else
                        r = message_reader_skip(&reader);
                if (r)
                        return r < 0 ? r : -EIO;
                n++;
        }
        if (n > 0) {
                m->args = malloc(n * sizeof(MessageArg));
                if (!m->args)
                        return -ENOMEM;
                memcpy(m->args, args, n * sizeof(MessageArg));
        }
        m->n_args = n;
        return 0;
}

int message_get_args(Message *m, MessageArg ret_args[MESSAGE_ARGS_MAX], unsigned *ret_n) {
        int r;

        if (!m->args) {
                r = compute_args(m);
                if (r)
                        return r;
        }
        if (m->n_args > 0)
                memcpy(ret_args, m->args, m->n_args * sizeof(MessageArg));
        *ret_n = m->n_args;
        return 0;
}
