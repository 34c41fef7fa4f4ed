/*
 * message-builder: composes a message (little endian) value by value.
 *
 * The body signature is built as values are appended; inside a
 * container the builder enforces the contents declared at open() (an
 * array's elements all match its element type, a variant holds exactly
 * its declared type, a struct exactly its members), so a mismatch is
 * caught at the call that causes it (-EINVAL: a programming error, never
 * client input). Open containers keep their contents on a small
 * signature stack addressed by offsets. Every value is checked as it
 * is appended (a string's UTF-8, a path's and a signature's syntax, an
 * array's length at close(), the nesting depth at open(); a copied value
 * comes from a message that passed message_validate()), so finish()
 * does not walk the body again: that cost ListNames of 3,000 names 17%
 * of its time in the bus (perf, bench/README.md). Nor does it parse the
 * header it wrote: every header string was checked by its setter (or
 * is the header of a validated message, set_reply_to()), so finish()
 * indexes the fields as it writes them and applies the few rules no
 * setter can judge alone (the reserved path and interface, the fields
 * each type requires, the size limits), as message_validate_header()
 * would; tests/wire checks that the two agree. A builder that hit
 * -ENOMEM refuses to finish.
 *
 * The header names (at most VALIDATE_NAME_MAX bytes each) are kept in
 * the builder with their lengths, so that a reply from the bus costs no
 * allocation and no strlen() per field.
 */
#include <assert.h>
#include <fcntl.h>
#include <stdlib.h>

#include "message-private.h"
#include "validate.h"

typedef struct BuilderFrame {
        char container;         /* 0 at the top level, else 'a', '(', '{', 'v' */
        size_t begin;           /* contents on the signature stack */
        size_t cur;
        size_t end;
        size_t length_offset;   /* array: where its length goes */
        size_t elements_start;  /* array: body offset of the first element */
} BuilderFrame;

/* Most of the bus's own messages fit: a reply of one value, a signal of three names. */
#define BUILDER_BODY_INLINE 256

/* The header fields that hold names, in the order the header lists them. */
enum {
        BUILDER_INTERFACE,
        BUILDER_MEMBER,
        BUILDER_ERROR_NAME,
        BUILDER_DESTINATION,
        BUILDER_SENDER,
        _BUILDER_NAME_MAX,
};

struct MessageBuilder {
        uint8_t type;
        uint8_t flags;
        uint32_t serial;
        uint32_t reply_serial;
        char *path;             /* (owned, nullable) */
        size_t path_len;
        bool has_name[_BUILDER_NAME_MAX];
        size_t name_len[_BUILDER_NAME_MAX];

        uint8_t *body;          /* body_inline, or (owned) a larger buffer */
        size_t body_size;
        size_t body_capacity;
        char signature[VALIDATE_SIGNATURE_MAX + 1];
        size_t signature_len;

        int *fds;               /* (owned descriptors) */
        size_t n_fds;

        /* Not cleared by new(): each is written before it is read. */
        uint8_t body_inline[BUILDER_BODY_INLINE];
        char name_text[_BUILDER_NAME_MAX][VALIDATE_NAME_MAX + 1];
        char sigstack[(MESSAGE_DEPTH_MAX + 2) * (VALIDATE_SIGNATURE_MAX + 1)];
        size_t sigstack_size;
        unsigned depth;
        BuilderFrame frames[MESSAGE_DEPTH_MAX + 2];
        bool poisoned;          /* an allocation failed half-way */
};

static uint32_t next_serial;

int message_builder_new(uint8_t type, MessageBuilder **ret) {
        MessageBuilder *b;

        if (type < MESSAGE_METHOD_CALL || type > MESSAGE_SIGNAL)
                return -EINVAL;
        b = malloc(sizeof(*b));
        if (!b)
                return -ENOMEM;
        /* Only the fixed part is cleared: the stacks are written before read. */
        memset(b, 0, offsetof(MessageBuilder, body_inline));
        b->body = b->body_inline;
        b->body_capacity = sizeof(b->body_inline);
        b->type = type;
        b->sigstack_size = 0;
        b->depth = 0;
        b->frames[0] = (BuilderFrame) {};
        b->poisoned = false;
        *ret = b;
        return 0;
}

MessageBuilder *message_builder_free(MessageBuilder *b) {
        if (!b)
                return NULL;
        free(b->path);
        if (b->body != b->body_inline)
                free(b->body);
        for (size_t i = 0; i < b->n_fds; i++)
                safe_close(b->fds[i]);
        free(b->fds);
        free(b);
        return NULL;
}

int message_builder_set_serial(MessageBuilder *b, uint32_t serial) {
        b->serial = serial;
        return 0;
}

int message_builder_set_reply_serial(MessageBuilder *b, uint32_t reply_serial) {
        b->reply_serial = reply_serial;
        return 0;
}

int message_builder_set_flags(MessageBuilder *b, uint8_t flags) {
        b->flags = flags;
        return 0;
}

int message_builder_set_path(MessageBuilder *b, const char *path) {
        char *copy = NULL;
        size_t n = 0;

        if (path) {
                n = strlen(path);
                if (!validate_object_path(path, n))
                        return -EINVAL;
                copy = strdup(path);
                if (!copy)
                        return -ENOMEM;
        }
        free(b->path);
        b->path = copy;
        b->path_len = n;
        return 0;
}

/* Sets (or with NULL clears) a name field to n bytes the caller has checked. */
static void set_name_n(MessageBuilder *b, unsigned field, const char *value, size_t n) {
        b->has_name[field] = value;
        b->name_len[field] = value ? n : 0;
        if (value) {
                memcpy(b->name_text[field], value, n);
                b->name_text[field][n] = 0;
        }
}

/* valid() bounds every name it accepts by VALIDATE_NAME_MAX: it fits name_text. */
static int set_name(MessageBuilder *b, unsigned field, const char *value, bool (*valid)(const char *, size_t)) {
        size_t n = value ? strlen(value) : 0;

        if (value && !valid(value, n))
                return -EINVAL;
        set_name_n(b, field, value, n);
        return 0;
}

int message_builder_set_interface(MessageBuilder *b, const char *interface) {
        return set_name(b, BUILDER_INTERFACE, interface, validate_interface_name);
}

int message_builder_set_member(MessageBuilder *b, const char *member) {
        return set_name(b, BUILDER_MEMBER, member, validate_member_name);
}

int message_builder_set_error_name(MessageBuilder *b, const char *error_name) {
        return set_name(b, BUILDER_ERROR_NAME, error_name, validate_error_name);
}

int message_builder_set_destination(MessageBuilder *b, const char *destination) {
        return set_name(b, BUILDER_DESTINATION, destination, validate_bus_name);
}

int message_builder_set_sender(MessageBuilder *b, const char *sender) {
        return set_name(b, BUILDER_SENDER, sender, validate_bus_name);
}

/*
 * call's SENDER passed message_validate_header() (or was stamped by the
 * bus), so it is a valid bus name of at most VALIDATE_NAME_MAX bytes:
 * copied without checking it again.
 */
void message_builder_set_reply_to(MessageBuilder *b, Message *call) {
        b->reply_serial = call->serial;
        set_name_n(b, BUILDER_DESTINATION, call->sender, call->sender ? strlen(call->sender) : 0);
}

/* Makes room for n more body bytes. */
static int reserve(MessageBuilder *b, size_t n) {
        size_t need = b->body_size + n, capacity;
        uint8_t *body;

        if (need <= b->body_capacity)
                return 0;
        if (need > MESSAGE_SIZE_MAX) {
                b->poisoned = true;
                return MESSAGE_E_TOO_LARGE;
        }
        capacity = b->body_capacity;
        while (capacity < need)
                capacity *= 2;
        body = realloc(b->body == b->body_inline ? NULL : b->body, capacity);
        if (!body) {
                b->poisoned = true;
                return -ENOMEM;
        }
        if (b->body == b->body_inline)
                memcpy(body, b->body_inline, b->body_size);
        b->body = body;
        b->body_capacity = capacity;
        return 0;
}

static int write_bytes(MessageBuilder *b, const void *p, size_t n) {
        int r;

        if (n == 0)
                return 0;
        r = reserve(b, n);
        if (r)
                return r;
        memcpy(b->body + b->body_size, p, n);
        b->body_size += n;
        return 0;
}

static int pad(MessageBuilder *b, size_t alignment) {
        static const uint8_t zeros[8];

        return write_bytes(b, zeros, ALIGN_TO(b->body_size, alignment) - b->body_size);
}

static int write_u32(MessageBuilder *b, uint32_t v) {
        uint8_t p[4];
        int r = pad(b, 4);

        if (r)
                return r;
        message_store32(p, v, true);
        return write_bytes(b, p, 4);
}

/* Little-endian bytes of a fixed value of size bytes. */
static int write_fixed(MessageBuilder *b, uint64_t v, size_t size) {
        uint8_t p[8];
        int r = pad(b, size);

        if (r)
                return r;
        for (size_t i = 0; i < size; i++)
                p[i] = (uint8_t) (v >> (8 * i));
        return write_bytes(b, p, size);
}

/*
 * Accounts for a value of complete type t (tlen codes) in the current
 * container: appended to the body signature at the top level, checked
 * against the declared contents inside a container.
 */
static int expect(MessageBuilder *b, const char *t, size_t tlen) {
        BuilderFrame *f = &b->frames[b->depth];

        if (b->depth == 0) {
                /* A dict entry is no complete type: only an array may hold one. */
                if (t[0] == '{' || b->signature_len + tlen > VALIDATE_SIGNATURE_MAX)
                        return -EINVAL;
                memcpy(b->signature + b->signature_len, t, tlen);
                b->signature_len += tlen;
                b->signature[b->signature_len] = 0;
                return 0;
        }
        if (f->end - f->cur < tlen || memcmp(b->sigstack + f->cur, t, tlen) != 0)
                return -EINVAL;
        f->cur += tlen;
        if (f->container == 'a' && f->cur == f->end)
                f->cur = f->begin;
        return 0;
}

static uint64_t fixed_value(char type, const void *value) {
        switch (type) {
        case 'y':
                return *(const uint8_t *) value;
        case 'b':
                return *(const int *) value != 0;
        case 'n': case 'q':
                return *(const uint16_t *) value;
        case 'i': case 'u':
                return *(const uint32_t *) value;
        default: {      /* x t d */
                uint64_t v;

                memcpy(&v, value, sizeof(v));
                return v;
        }
        }
}

static bool valid_string_value(char type, const char *s) {
        size_t n = strlen(s);

        switch (type) {
        case 's':
                return n <= UINT32_MAX && validate_utf8(s, n);
        case 'o':
                return validate_object_path(s, n);
        default:
                return validate_signature(s, n);
        }
}

static int write_string(MessageBuilder *b, char type, const char *s) {
        size_t n = strlen(s);
        int r;

        if (type == 'g') {
                uint8_t len = (uint8_t) n;

                r = write_bytes(b, &len, 1);
        } else
                r = write_u32(b, (uint32_t) n);
        if (r)
                return r;
        return write_bytes(b, s, n + 1);
}

int message_builder_append_basic(MessageBuilder *b, char type, const void *value) {
        size_t size = message_fixed_size(type);
        int r;

        if (!validate_is_basic_type(type) || type == 'h' || !value)
                return -EINVAL;
        if (size == 0 && !valid_string_value(type, value))
                return -EINVAL;
        r = expect(b, &type, 1);
        if (r)
                return r;
        if (size == 0)
                return write_string(b, type, value);
        return write_fixed(b, fixed_value(type, value), size);
}

int message_builder_append_known_string(MessageBuilder *b, const char *s, size_t n) {
        size_t start;
        int r;

        if (!s || n > UINT32_MAX)
                return -EINVAL;
        r = expect(b, "s", 1);
        if (r)
                return r;
        /* Padding, length, bytes and NUL in one reservation. */
        r = reserve(b, 3 + 4 + n + 1);
        if (r)
                return r;
        start = ALIGN_TO(b->body_size, 4);
        memset(b->body + b->body_size, 0, start - b->body_size);
        message_store32(b->body + start, (uint32_t) n, true);
        memcpy(b->body + start + 4, s, n);
        b->body[start + 4 + n] = 0;
        b->body_size = start + 4 + n + 1;
        return 0;
}

int message_builder_append_fd(MessageBuilder *b, int fd) {
        _cleanup_close_ int copy = -1;
        int *fds;
        int r;

        if (fd < 0)
                return -EBADF;
        copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (copy < 0)
                return -errno;
        fds = realloc(b->fds, (b->n_fds + 1) * sizeof(int));
        if (!fds)
                return -ENOMEM;
        b->fds = fds;
        r = expect(b, "h", 1);
        if (r)
                return r;
        b->fds[b->n_fds] = TAKE_FD(copy);
        return write_u32(b, (uint32_t) b->n_fds++);
}

/* The complete type ("a..." "(...)" "{...}" "v") a container opens, checked. */
static int container_type(char container, const char *contents, char *t, size_t *ret_len) {
        size_t n = strlen(contents);

        if (n > VALIDATE_SIGNATURE_MAX - 2)
                return -EINVAL;
        switch (container) {
        case 'a':
                t[0] = 'a';
                memcpy(t + 1, contents, n + 1);
                *ret_len = n + 1;
                return validate_single_complete_type(t, n + 1) ? 0 : -EINVAL;
        case '(':
                t[0] = '(';
                memcpy(t + 1, contents, n);
                t[n + 1] = ')';
                t[n + 2] = 0;
                *ret_len = n + 2;
                return validate_single_complete_type(t, n + 2) ? 0 : -EINVAL;
        case '{':
                /* A dict entry is only valid as an array element: check "a{...}". */
                t[0] = 'a';
                t[1] = '{';
                memcpy(t + 2, contents, n);
                t[n + 2] = '}';
                t[n + 3] = 0;
                if (!validate_single_complete_type(t, n + 3))
                        return -EINVAL;
                memmove(t, t + 1, n + 3);
                *ret_len = n + 2;
                return 0;
        case 'v':
                t[0] = 'v';
                t[1] = 0;
                *ret_len = 1;
                return validate_single_complete_type(contents, n) ? 0 : -EINVAL;
        default:
                return -EINVAL;
        }
}

static int write_container_start(MessageBuilder *b, char container, const char *contents, BuilderFrame *f) {
        int r;

        switch (container) {
        case 'a':
                r = write_u32(b, 0);
                if (r)
                        return r;
                f->length_offset = b->body_size - 4;
                r = pad(b, message_type_alignment(contents[0]));
                f->elements_start = b->body_size;
                return r;
        case 'v': {
                uint8_t len = (uint8_t) strlen(contents);

                r = write_bytes(b, &len, 1);
                if (r)
                        return r;
                r = write_bytes(b, contents, (size_t) len + 1);
                if (r)
                        return r;
                return pad(b, message_type_alignment(contents[0]));
        }
        default:
                return pad(b, 8);
        }
}

int message_builder_open(MessageBuilder *b, char container, const char *contents) {
        char t[VALIDATE_SIGNATURE_MAX + 2];
        size_t tlen, n;
        BuilderFrame *f;
        int r;

        if (container == 'r')
                container = '(';
        else if (container == 'e')
                container = '{';
        if (!contents || b->depth + 1 >= ELEMENTSOF(b->frames))
                return -EINVAL;
        r = container_type(container, contents, t, &tlen);
        if (r)
                return r;
        r = expect(b, t, tlen);
        if (r)
                return r;

        n = strlen(contents);
        f = &b->frames[b->depth + 1];
        *f = (BuilderFrame) {
                .container = container,
                .begin = b->sigstack_size,
                .cur = b->sigstack_size,
                .end = b->sigstack_size + n,
        };
        r = write_container_start(b, container, contents, f);
        if (r)
                return r;
        memcpy(b->sigstack + b->sigstack_size, contents, n);
        b->sigstack_size += n;
        b->depth++;
        return 0;
}

int message_builder_close(MessageBuilder *b) {
        BuilderFrame *f = &b->frames[b->depth];

        if (b->depth == 0)
                return -EINVAL;
        if (f->container == 'a') {
                size_t len = b->body_size - f->elements_start;

                if (f->cur != f->begin)
                        return -EINVAL;         /* an element is incomplete */
                if (len > MESSAGE_ARRAY_MAX)
                        return MESSAGE_E_TOO_LARGE;
                message_store32(b->body + f->length_offset, (uint32_t) len, true);
        } else if (f->cur != f->end)
                return -EINVAL;
        b->sigstack_size = f->begin;
        b->depth--;
        return 0;
}

static int copy_basic(MessageBuilder *b, MessageReader *r, char type) {
        union {
                uint8_t y;
                int b;
                uint16_t q;
                uint32_t u;
                uint64_t t;
                double d;
                const char *s;
        } value;
        int k;

        k = message_reader_read_basic(r, type, &value);
        if (k)
                return k;
        if (type == 'h') {
                size_t n_fds;
                const int *fds = message_get_unix_fds(r->message, &n_fds);

                if (value.u >= n_fds)
                        return -EIO;
                return message_builder_append_fd(b, fds[value.u]);
        }
        if (message_fixed_size(type) == 0)
                return message_builder_append_basic(b, type, value.s);
        return message_builder_append_basic(b, type, &value);
}

int message_builder_copy_value(MessageBuilder *b, MessageReader *r) {
        char contents[VALIDATE_SIGNATURE_MAX + 1];
        int type, k;

        type = message_reader_peek_contents(r, contents);
        if (type <= 0)
                return type < 0 ? type : MESSAGE_E_SIGNATURE;
        if (validate_is_basic_type((char) type))
                return copy_basic(b, r, (char) type);

        k = message_reader_enter(r, (char) type, NULL);
        if (k)
                return k;
        k = message_builder_open(b, (char) type, contents);
        if (k)
                return k;
        while (!message_reader_at_end(r)) {
                k = message_builder_copy_value(b, r);
                if (k)
                        return k;
        }
        k = message_reader_exit(r);
        if (k)
                return k;
        return message_builder_close(b);
}

/*
 * The header: each field 8-aligned, its code, its one-code signature and
 * its value. measure_header() says how big write_header() makes it, field
 * by field in the same order; tests/wire checks that the two agree with
 * message_validate_header().
 */
static size_t field_end(size_t pos, size_t value_size) {
        return ALIGN_TO(pos, 8) + 4 + value_size;
}

static size_t measure_header(MessageBuilder *b) {
        size_t pos = MESSAGE_FIXED_HEADER_SIZE;

        if (b->path)
                pos = field_end(pos, 4 + b->path_len + 1);
        for (unsigned field = 0; field < _BUILDER_NAME_MAX; field++)
                if (b->has_name[field])
                        pos = field_end(pos, 4 + b->name_len[field] + 1);
        if (b->reply_serial)
                pos = field_end(pos, 4);
        if (b->signature_len > 0)
                pos = field_end(pos, 1 + b->signature_len + 1);
        if (b->n_fds > 0)
                pos = field_end(pos, 4);
        return ALIGN_TO(pos, 8);
}

/* Zero padding up to the field's 8-aligned start, then its code and signature. */
static size_t put_field_start(uint8_t *out, size_t pos, uint8_t code, char type) {
        while (pos % 8)
                out[pos++] = 0;
        out[pos] = code;
        out[pos + 1] = 1;
        out[pos + 2] = (uint8_t) type;
        out[pos + 3] = 0;
        return pos + 4;
}

/* A string field; *ret points at its bytes in out, as the header index does. */
static size_t put_string(uint8_t *out, size_t pos, uint8_t code, char type, const char *s, size_t n,
                         const char **ret) {
        pos = put_field_start(out, pos, code, type);
        message_store32(out + pos, (uint32_t) n, true);
        memcpy(out + pos + 4, s, n + 1);
        *ret = (const char *) out + pos + 4;
        return pos + 4 + n + 1;
}

static size_t put_u32(uint8_t *out, size_t pos, uint8_t code, uint32_t v) {
        pos = put_field_start(out, pos, code, 'u');
        message_store32(out + pos, v, true);
        return pos + 4;
}

/* Writes the header into m->data and points m's header index at its fields. */
static size_t write_header(MessageBuilder *b, Message *m) {
        static const uint8_t codes[_BUILDER_NAME_MAX] = {
                [BUILDER_INTERFACE] = MESSAGE_FIELD_INTERFACE,
                [BUILDER_MEMBER] = MESSAGE_FIELD_MEMBER,
                [BUILDER_ERROR_NAME] = MESSAGE_FIELD_ERROR_NAME,
                [BUILDER_DESTINATION] = MESSAGE_FIELD_DESTINATION,
                [BUILDER_SENDER] = MESSAGE_FIELD_SENDER,
        };
        const char **index[_BUILDER_NAME_MAX] = {
                [BUILDER_INTERFACE] = &m->interface,
                [BUILDER_MEMBER] = &m->member,
                [BUILDER_ERROR_NAME] = &m->error_name,
                [BUILDER_DESTINATION] = &m->destination,
                [BUILDER_SENDER] = &m->sender,
        };
        uint8_t *out = m->data;
        size_t pos = MESSAGE_FIXED_HEADER_SIZE;

        if (b->path)
                pos = put_string(out, pos, MESSAGE_FIELD_PATH, 'o', b->path, b->path_len, &m->path);
        for (unsigned field = 0; field < _BUILDER_NAME_MAX; field++) {
                /* REPLY_SERIAL (5) between ERROR_NAME (4) and DESTINATION (6), as the codes go. */
                if (field == BUILDER_DESTINATION && b->reply_serial)
                        pos = put_u32(out, pos, MESSAGE_FIELD_REPLY_SERIAL, b->reply_serial);
                if (b->has_name[field])
                        pos = put_string(out, pos, codes[field], 's', b->name_text[field], b->name_len[field],
                                         index[field]);
        }
        if (b->signature_len > 0) {
                pos = put_field_start(out, pos, MESSAGE_FIELD_SIGNATURE, 'g');
                out[pos] = (uint8_t) b->signature_len;
                memcpy(out + pos + 1, b->signature, b->signature_len + 1);
                m->signature = (const char *) out + pos + 1;
                pos += 1 + b->signature_len + 1;
        }
        if (b->n_fds > 0)
                pos = put_u32(out, pos, MESSAGE_FIELD_UNIX_FDS, (uint32_t) b->n_fds);
        out[0] = 'l';
        out[1] = b->type;
        out[2] = b->flags;
        out[3] = MESSAGE_PROTOCOL_VERSION;
        message_store32(out + 4, (uint32_t) b->body_size, true);
        message_store32(out + 8, b->serial, true);
        message_store32(out + 12, (uint32_t) (pos - MESSAGE_FIXED_HEADER_SIZE), true);
        while (pos % 8)
                out[pos++] = 0;
        return pos;
}

/*
 * What message_validate_header() checks that no setter could: the
 * reserved path and interface, the fields m's type requires, the
 * length of the field array.
 */
static int check_header(MessageBuilder *b, size_t header_size) {
        const char *path = b->path, *interface = b->name_text[BUILDER_INTERFACE];

        if (header_size - MESSAGE_FIXED_HEADER_SIZE > MESSAGE_ARRAY_MAX)
                return -EINVAL;
        if (path && strcmp(path, "/org/freedesktop/DBus/Local") == 0)
                return -EINVAL;
        if (b->has_name[BUILDER_INTERFACE] && strcmp(interface, "org.freedesktop.DBus.Local") == 0)
                return -EINVAL;
        switch (b->type) {
        case MESSAGE_METHOD_CALL:
                return path && b->has_name[BUILDER_MEMBER] ? 0 : -EINVAL;
        case MESSAGE_SIGNAL:
                return path && b->has_name[BUILDER_INTERFACE] && b->has_name[BUILDER_MEMBER] ? 0 : -EINVAL;
        case MESSAGE_ERROR:
                return b->has_name[BUILDER_ERROR_NAME] && b->reply_serial ? 0 : -EINVAL;
        default:        /* MESSAGE_METHOD_RETURN: new() takes no other type */
                return b->reply_serial ? 0 : -EINVAL;
        }
}

int message_builder_finish(MessageBuilder *b, Message **ret) {
        Message *m = NULL;
        size_t header_size, written;
        int r;

        if (b->poisoned)
                return -ENOMEM;
        if (b->depth != 0)
                return -EINVAL;
        while (b->serial == 0)
                b->serial = __atomic_add_fetch(&next_serial, 1, __ATOMIC_RELAXED);

        header_size = measure_header(b);
        if (header_size + b->body_size > MESSAGE_SIZE_MAX)
                return MESSAGE_E_TOO_LARGE;
        r = check_header(b, header_size);
        if (r)
                return r;
        r = message_alloc(header_size + b->body_size, b->n_fds, &m);
        if (r)
                return r;
        written = write_header(b, m);
        assert(written == header_size);
        (void) written;
        if (b->body_size > 0)
                memcpy(m->data + header_size, b->body, b->body_size);
        if (b->n_fds > 0)
                memcpy(m->fds, b->fds, b->n_fds * sizeof(int));

        /* The rest of the index message_validate_header() would have filled in. */
        m->little_endian = true;
        m->type = b->type;
        m->flags = b->flags;
        m->serial = b->serial;
        m->reply_serial = b->reply_serial;
        m->unix_fds = (uint32_t) b->n_fds;
        m->body_offset = header_size;
        m->body_size = b->body_size;

        b->n_fds = 0;                           /* now the message's */
        *ret = m;
        return 0;
}
