/* Internals shared by the message parser, accessors, reader and builder. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "message.h"

/* Header field codes (the specification's HEADER_FIELD_*). */
enum {
        MESSAGE_FIELD_INVALID = 0,
        MESSAGE_FIELD_PATH = 1,
        MESSAGE_FIELD_INTERFACE = 2,
        MESSAGE_FIELD_MEMBER = 3,
        MESSAGE_FIELD_ERROR_NAME = 4,
        MESSAGE_FIELD_REPLY_SERIAL = 5,
        MESSAGE_FIELD_DESTINATION = 6,
        MESSAGE_FIELD_SENDER = 7,
        MESSAGE_FIELD_SIGNATURE = 8,
        MESSAGE_FIELD_UNIX_FDS = 9,
};

#define MESSAGE_PROTOCOL_VERSION 1
/* Extra bytes allocated after the data so stamping a SENDER needs no realloc. */
#define MESSAGE_STAMP_SLACK 64

struct Message {
        unsigned n_ref;
        bool little_endian;
        bool data_inline;               /* data points into storage[] */

        uint8_t *data;                  /* (owned unless data_inline) header + body */
        size_t size;
        size_t capacity;                /* bytes available at data */
        size_t body_offset;             /* 8-aligned end of the header */
        size_t body_size;

        uint8_t type;
        uint8_t flags;
        uint32_t serial;
        uint32_t reply_serial;
        uint32_t unix_fds;              /* the UNIX_FDS field, 0 if absent */
        bool has_unknown_fields;        /* a header field the specification does not define */

        /* (nullable) all point into data */
        const char *path;
        const char *interface;
        const char *member;
        const char *error_name;
        const char *destination;
        const char *sender;
        const char *signature;

        int *fds;                       /* (owned descriptors) in storage[] */
        size_t n_fds;

        MessageArg *args;               /* (owned, nullable) cache for message_get_args() */
        unsigned n_args;

        uint8_t storage[];              /* fds, then data + slack */
};

/* Allocates a message with room for size bytes and n_fds descriptors. */
int message_alloc(size_t size, size_t n_fds, Message **ret);
/* Validates m->data (size bytes, fds already stored) and indexes its header. */
int message_validate(Message *m);
/* Validates and indexes the header alone (trusted or untrusted data). */
int message_validate_header(Message *m);
/*
 * Steps over the header field at pos (the end of the previous one) of a
 * validated message: its code, its 8-aligned start, and where it ends.
 */
int message_next_field(Message *m, size_t pos, uint8_t *ret_code, size_t *ret_start, size_t *ret_next);

/*
 * Makes b answer call: its serial as the reply serial, its sender as the
 * destination (copied unchecked: a message's header was validated).
 */
void message_builder_set_reply_to(MessageBuilder *b, Message *call);

/* Alignment of a type code (the first byte of a complete type). */
static inline size_t message_type_alignment(char type) {
        switch (type) {
        case 'y': case 'g': case 'v':
                return 1;
        case 'n': case 'q':
                return 2;
        case 'b': case 'i': case 'u': case 'h': case 's': case 'o': case 'a':
                return 4;
        default:        /* x t d ( { */
                return 8;
        }
}

/* Size of a fixed-size basic type, 0 for the others. */
static inline size_t message_fixed_size(char type) {
        switch (type) {
        case 'y':
                return 1;
        case 'n': case 'q':
                return 2;
        case 'b': case 'i': case 'u': case 'h':
                return 4;
        case 'x': case 't': case 'd':
                return 8;
        default:
                return 0;
        }
}

static inline uint16_t message_load16(const uint8_t *p, bool le) {
        return le ? (uint16_t) (p[0] | p[1] << 8) : (uint16_t) (p[1] | p[0] << 8);
}

static inline uint32_t message_load32(const uint8_t *p, bool le) {
        if (le)
                return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
        return (uint32_t) p[3] | (uint32_t) p[2] << 8 | (uint32_t) p[1] << 16 | (uint32_t) p[0] << 24;
}

static inline uint64_t message_load64(const uint8_t *p, bool le) {
        uint64_t lo = message_load32(p + (le ? 0 : 4), le);
        uint64_t hi = message_load32(p + (le ? 4 : 0), le);
        return hi << 32 | lo;
}

static inline void message_store32(uint8_t *p, uint32_t v, bool le) {
        for (unsigned i = 0; i < 4; i++)
                p[le ? i : 3 - i] = (uint8_t) (v >> (8 * i));
}
