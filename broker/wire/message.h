/* D-Bus messages: framing, parsing, reading, building (the wire format). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/*
 * A Message is refcounted and immutable once parsed or built (the only
 * exception is message_stamp_sender()/message_set_serial() on a message
 * nobody else holds yet). Every string an accessor returns points into
 * the message and lives as long as the message does.
 *
 * Return codes: 0 on success; a negative errno for unexpected failures
 * (-ENOMEM, -EINVAL for a programming error such as an unbalanced
 * builder); a positive MESSAGE_E_* code for an expected outcome the
 * direct caller must handle (a client sent garbage).
 */

typedef struct Message Message;
typedef struct MessageBuilder MessageBuilder;

enum {
        MESSAGE_INVALID = 0,
        MESSAGE_METHOD_CALL = 1,
        MESSAGE_METHOD_RETURN = 2,
        MESSAGE_ERROR = 3,
        MESSAGE_SIGNAL = 4,
};

/* Types above MESSAGE_SIGNAL parse (the specification says to ignore them); nothing builds them. */
static inline bool message_type_is_known(uint8_t type) {
        return type >= MESSAGE_METHOD_CALL && type <= MESSAGE_SIGNAL;
}

enum {
        MESSAGE_FLAG_NO_REPLY_EXPECTED = 0x1,
        MESSAGE_FLAG_NO_AUTO_START = 0x2,
        MESSAGE_FLAG_ALLOW_INTERACTIVE_AUTHORIZATION = 0x4,
};

/* Expected outcomes (positive). */
enum {
        MESSAGE_E_INVALID = 1,          /* malformed: violates the specification */
        MESSAGE_E_TOO_LARGE,            /* over the caller's or the spec's size limit */
        MESSAGE_E_NEED_MORE,            /* framing: fewer than 16 bytes available */
        MESSAGE_E_SIGNATURE,            /* reading: the value is not of the type asked for */
};

/* Limits from the specification. */
#define MESSAGE_SIZE_MAX (128u * 1024u * 1024u)
#define MESSAGE_ARRAY_MAX (64u * 1024u * 1024u)
#define MESSAGE_DEPTH_MAX 64            /* total container nesting, variants included */
#define MESSAGE_FIXED_HEADER_SIZE 16
#define MESSAGE_ARGS_MAX 64

/*
 * Framing: looks at the first 16 bytes of data (n is what is available)
 * and computes the size of the whole message (header, padding and body).
 * Returns MESSAGE_E_NEED_MORE if n < 16, MESSAGE_E_INVALID for a bad
 * endianness byte, protocol version or length, MESSAGE_E_TOO_LARGE if the
 * message is bigger than max_size or the spec's 128 MiB.
 */
int message_frame_size(const void *data, size_t n, size_t max_size, size_t *ret_total);

/*
 * Parses and fully validates one message of exactly size bytes (as framed
 * by message_frame_size()). The data is copied. On success the message
 * owns the n_fds descriptors in fds (they are closed when it is freed);
 * on failure the caller keeps them. Fail-closed: anything the
 * specification does not allow returns MESSAGE_E_INVALID (or
 * MESSAGE_E_TOO_LARGE), including a UNIX_FDS field that does not match
 * n_fds and trailing bytes after the body. A message of unknown type
 * (above MESSAGE_SIGNAL) parses, with no required fields: the caller
 * decides to ignore it (message_type_is_known()).
 */
int message_parse(const void *data, size_t size, int *fds, size_t n_fds, Message **ret);

/*
 * The UNIX_FDS count (0 when the field is absent) of one framed message
 * of exactly size bytes, so a connection can hand message_parse() the
 * descriptors that belong to it. Validates the header (not the body):
 * MESSAGE_E_INVALID if it is malformed. No allocation.
 */
int message_peek_unix_fds(const void *data, size_t size, uint32_t *ret_n);

Message *message_ref(Message *m);
Message *message_unref(Message *m);

/* Header accessors; the string ones return NULL when the field is absent. */
uint8_t message_get_type(Message *m);
uint8_t message_get_flags(Message *m);
uint32_t message_get_serial(Message *m);
uint32_t message_get_reply_serial(Message *m);   /* 0 when absent */
const char *message_get_path(Message *m);
const char *message_get_interface(Message *m);
const char *message_get_member(Message *m);
const char *message_get_error_name(Message *m);
const char *message_get_destination(Message *m);
const char *message_get_sender(Message *m);
const char *message_get_signature(Message *m);   /* NULL when absent (empty body) */
bool message_is_little_endian(Message *m);
/* The descriptors the message owns (NULL with *ret_n == 0 if none). */
const int *message_get_unix_fds(Message *m, size_t *ret_n);
/* The complete wire bytes, ready to write. */
const void *message_get_data(Message *m, size_t *ret_size);
/* The body alone. */
const void *message_get_body(Message *m, size_t *ret_size);

/*
 * The bus sets SENDER itself: replaces the SENDER field (a client's
 * spoofed one included) or adds it, and drops every header field the
 * specification does not define (dbus-daemon's HeaderFiltering: a
 * recipient may trust a field defined later to come from the bus). Only valid while the caller holds
 * the only reference (-EBUSY otherwise); unique_name must be a valid
 * bus name (-EINVAL otherwise).
 */
int message_stamp_sender(Message *m, const char *unique_name);
/* Sets the serial of a message nobody else holds (-EBUSY otherwise). */
int message_set_serial(Message *m, uint32_t serial);

/*
 * Match-rule support: the first 64 arguments of the body. For a string,
 * object path or signature argument str points to it and type is 's',
 * 'o' or 'g'; for any other argument str is NULL and type is the first
 * character of its type. Computed on first use and cached.
 */
typedef struct MessageArg {
        const char *str;        /* (nullable) */
        char type;
} MessageArg;

int message_get_args(Message *m, MessageArg ret_args[MESSAGE_ARGS_MAX], unsigned *ret_n);

/*
 * Reading. A MessageReader lives on the stack and walks the body of a
 * message the caller holds a reference to. Contents signatures for
 * enter() follow sd-bus: for 'a' the element type, for 'v' the contained
 * type, for '(' / 'r' and '{' / 'e' the member types without the
 * delimiters. Mismatches return MESSAGE_E_SIGNATURE.
 */
typedef struct MessageReaderFrame {
        const char *sig;        /* next type in this container */
        const char *sig_begin;  /* array: element type, for the next element */
        const char *sig_end;    /* end of this container's type list */
        size_t end;             /* array: body offset where it ends */
        char container;         /* 0 at the top level, else 'a', '(', '{', 'v' */
} MessageReaderFrame;

typedef struct MessageReader {
        Message *message;
        const uint8_t *body;
        size_t body_size;
        size_t pos;
        bool little_endian;
        unsigned depth;
        /* one per level: the top, up to 64 containers, and an empty array below them */
        MessageReaderFrame frames[MESSAGE_DEPTH_MAX + 2];
} MessageReader;

void message_reader_init(MessageReader *r, Message *m);
/* Returns the type code of the next value (and stores it), or 0 at the end of the container. */
int message_reader_peek(MessageReader *r, char *ret_type);
/*
 * ret (nullable) points to: uint8_t for 'y'; int for 'b'; int16_t,
 * uint16_t, int32_t, uint32_t, int64_t, uint64_t, double for n q i u x t
 * d; const char * for s o g; uint32_t (the index into the fd array) for h.
 */
int message_reader_read_basic(MessageReader *r, char type, void *ret);
int message_reader_enter(MessageReader *r, char container, const char *contents);
/*
 * Like peek, and also copies the contents signature of the next value
 * (as enter() expects it; "" for a basic type) into ret_contents.
 */
int message_reader_peek_contents(MessageReader *r, char ret_contents[256]);
/* Leaves the current container, skipping whatever was not read. */
int message_reader_exit(MessageReader *r);
/* Skips the next complete value. */
int message_reader_skip(MessageReader *r);
bool message_reader_at_end(MessageReader *r);

/*
 * Convenience for flat basic signatures: message_read(m, "su", &str,
 * &u). Returns MESSAGE_E_SIGNATURE unless the body signature is exactly
 * the one given.
 */
int message_read(Message *m, const char *signature, ...);

/*
 * Building. Messages are built little endian. Strings passed to setters
 * are copied and validated (-EINVAL if invalid; NULL clears the field).
 * append_basic() takes a pointer to the value (as read_basic() fills
 * it), except for s, o and g where value is the string itself; 'h' is
 * appended with append_fd(), which duplicates the descriptor. Container
 * contents follow the reader's convention; a value that does not fit
 * the open container's contents is -EINVAL. finish() runs the result
 * through the same validation as message_parse(), so a built message
 * always parses: a missing required header field is -EINVAL, over the
 * size limits MESSAGE_E_TOO_LARGE. A serial left at 0 is assigned from a
 * process-wide counter. On success the descriptors move to the message.
 */
int message_builder_new(uint8_t type, MessageBuilder **ret);
/* A builder with the header of m (not its body, signature or fds). */
int message_builder_new_from_header(Message *m, MessageBuilder **ret);
MessageBuilder *message_builder_free(MessageBuilder *b);

int message_builder_set_serial(MessageBuilder *b, uint32_t serial);
int message_builder_set_reply_serial(MessageBuilder *b, uint32_t reply_serial);
int message_builder_set_flags(MessageBuilder *b, uint8_t flags);
int message_builder_set_path(MessageBuilder *b, const char *path);
int message_builder_set_interface(MessageBuilder *b, const char *interface);
int message_builder_set_member(MessageBuilder *b, const char *member);
int message_builder_set_error_name(MessageBuilder *b, const char *error_name);
int message_builder_set_destination(MessageBuilder *b, const char *destination);
int message_builder_set_sender(MessageBuilder *b, const char *sender);

int message_builder_append_basic(MessageBuilder *b, char type, const void *value);
/*
 * A string ('s') the caller vouches for: n bytes of valid UTF-8 without
 * NUL, such as a bus name its registry validated when it was taken. What
 * append_basic() does without checking it again or measuring it twice,
 * for the bus's long lists (ListNames).
 */
int message_builder_append_known_string(MessageBuilder *b, const char *s, size_t n);
int message_builder_append_fd(MessageBuilder *b, int fd);
int message_builder_open(MessageBuilder *b, char container, const char *contents);
int message_builder_close(MessageBuilder *b);
/* Copies the next complete value of r (fds included) and advances r. */
int message_builder_copy_value(MessageBuilder *b, MessageReader *r);
int message_builder_finish(MessageBuilder *b, Message **ret);

/* A METHOD_RETURN to call: reply serial and destination (call's sender) set. */
int message_new_method_return(Message *call, const char *sender, MessageBuilder **ret);
/* A finished ERROR reply to call, with text (nullable) as its "s" body. */
int message_new_error(Message *call, const char *sender, const char *error_name,
                      const char *text, Message **ret);
int message_new_signal(const char *sender, const char *path, const char *interface,
                       const char *member, MessageBuilder **ret);

DEFINE_CLEANUP(Message *, message_unref);
DEFINE_CLEANUP(MessageBuilder *, message_builder_free);
