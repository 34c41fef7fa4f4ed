/*
 * message-validate: the single pass that decides whether bytes from a
 * client are a D-Bus message, and indexes its header while doing so.
 *
 * Nothing in the data is trusted: every length is checked against the
 * bytes that remain before it is used, every padding byte must be zero,
 * every string valid UTF-8 without NUL and NUL-terminated, every
 * signature valid, every boolean 0 or 1, every 'h' an index below the
 * UNIX_FDS count. The walk recurses once per container level and stops
 * at MESSAGE_DEPTH_MAX levels, variants included; the depth is counted
 * as libdbus counts it (a level is charged when its contents are
 * walked, so an empty array of non-fixed elements costs nothing).
 * Header field strings are left in place and pointed to; nothing is
 * allocated.
 *
 * Deliberately stricter than libdbus, and fail-closed: the UNIX_FDS
 * count must equal the descriptors received, and 'h' values are
 * range-checked here rather than when read.
 *
 * Unknown message types (5..255) are accepted, as the specification
 * demands ("must be ignored") and as libdbus does: they are validated
 * like any other message (header fields, body against its signature),
 * but no field is required of them, since nothing says what they need.
 * Type 0 (INVALID) stays malformed. What the bus does with an unknown
 * type is not this module's business (peer.c: it routes nothing and,
 * as dbus-daemon 1.14, answers a message that has a destination with
 * AccessDenied rather than ignoring it silently: the sender of a
 * newer-protocol message learns that this bus will not carry it).
 */
#include "message-private.h"
#include "validate.h"

/*
 * The length of the complete type starting at each position of one
 * signature, computed once per signature so that validating many
 * (empty) arrays never re-walks their element type: validation stays
 * linear in the size of the message.
 */
typedef struct TypeLengths {
        const char *sig;
        uint8_t len[VALIDATE_SIGNATURE_MAX + 1];
} TypeLengths;

typedef struct Validator {
        const uint8_t *data;
        size_t pos;
        size_t end;
        bool little_endian;
        uint32_t n_fds;
        const TypeLengths *types;       /* of the signature being walked */
} Validator;

/* Fills lengths for the (validated) complete type or dict entry at sig[pos]. */
static size_t fill_type_lengths(TypeLengths *t, size_t pos) {
        const char *sig = t->sig;
        size_t n = 1;

        if (sig[pos] == 'a') {
                n = 1 + fill_type_lengths(t, pos + 1);
        } else if (sig[pos] == '(' || sig[pos] == '{') {
                char close = sig[pos] == '(' ? ')' : '}';
                size_t j = pos + 1;

                while (sig[j] != close && sig[j] != 0)
                        j += fill_type_lengths(t, j);
                n = j - pos + 1;
        }
        t->len[pos] = (uint8_t) n;
        return n;
}

static void type_lengths_init(TypeLengths *t, const char *sig, size_t n) {
        t->sig = sig;
        for (size_t pos = 0; pos < n; )
                pos += fill_type_lengths(t, pos);
}

static int validator_pad(Validator *v, size_t alignment) {
        size_t aligned = ALIGN_TO(v->pos, alignment);

        if (aligned > v->end)
                return MESSAGE_E_INVALID;
        for (; v->pos < aligned; v->pos++)
                if (v->data[v->pos] != 0)
                        return MESSAGE_E_INVALID;
        return 0;
}

static int validate_fixed(Validator *v, char type) {
        size_t size = message_fixed_size(type);
        int r;

        r = validator_pad(v, size);
        if (r)
                return r;
        if (v->end - v->pos < size)
                return MESSAGE_E_INVALID;
        if (type == 'b' && message_load32(v->data + v->pos, v->little_endian) > 1)
                return MESSAGE_E_INVALID;
        if (type == 'h' && message_load32(v->data + v->pos, v->little_endian) >= v->n_fds)
                return MESSAGE_E_INVALID;
        v->pos += size;
        return 0;
}

/* 's' or 'o': a 32-bit length, the bytes, a NUL. */
static int validate_string(Validator *v, char type) {
        const char *s;
        uint32_t len;
        int r;

        r = validator_pad(v, 4);
        if (r)
                return r;
        if (v->end - v->pos < 4)
                return MESSAGE_E_INVALID;
        len = message_load32(v->data + v->pos, v->little_endian);
        v->pos += 4;
        if ((size_t) len >= v->end - v->pos)    /* room for the NUL too */
                return MESSAGE_E_INVALID;
        s = (const char *) v->data + v->pos;
        if (s[len] != 0)
                return MESSAGE_E_INVALID;
        if (type == 'o' ? !validate_object_path(s, len) : !validate_utf8(s, len))
                return MESSAGE_E_INVALID;
        v->pos += (size_t) len + 1;
        return 0;
}

/* 'g' (and a variant's signature): an 8-bit length, the codes, a NUL. */
static int validate_signature_value(Validator *v, bool single, const char **ret) {
        const char *s;
        size_t len;

        if (v->pos >= v->end)
                return MESSAGE_E_INVALID;
        len = v->data[v->pos++];
        if (len >= v->end - v->pos)
                return MESSAGE_E_INVALID;
        s = (const char *) v->data + v->pos;
        if (s[len] != 0)
                return MESSAGE_E_INVALID;
        if (len == 1) {
                /* The usual body signature: one code, valid alone exactly if it is basic or 'v'. */
                if (!validate_is_basic_type(s[0]) && s[0] != 'v')
                        return MESSAGE_E_INVALID;
        } else if (single ? !validate_single_complete_type(s, len) : !validate_signature(s, len))
                return MESSAGE_E_INVALID;
        v->pos += len + 1;
        if (ret)
                *ret = s;
        return 0;
}

static int validate_value(Validator *v, const char **sig, unsigned depth);

static int validate_array(Validator *v, const char **sig, unsigned depth) {
        const char *element = *sig + 1;
        size_t element_len, saved_end, array_end;
        char element_type = element[0];
        uint32_t len;
        int r;

        element_len = v->types->len[element - v->types->sig];

        r = validator_pad(v, 4);
        if (r)
                return r;
        if (v->end - v->pos < 4)
                return MESSAGE_E_INVALID;
        len = message_load32(v->data + v->pos, v->little_endian);
        v->pos += 4;
        r = validator_pad(v, message_type_alignment(element_type));
        if (r)
                return r;
        if (len > MESSAGE_ARRAY_MAX || len > v->end - v->pos)
                return MESSAGE_E_INVALID;
        array_end = v->pos + len;

        if (message_fixed_size(element_type) > 0) {
                if (len % message_fixed_size(element_type) != 0)
                        return MESSAGE_E_INVALID;
                if (element_type == 'b' || element_type == 'h') {
                        saved_end = v->end;
                        v->end = array_end;
                        while (v->pos < array_end) {
                                r = validate_fixed(v, element_type);
                                if (r)
                                        return r;
                        }
                        v->end = saved_end;
                }
                v->pos = array_end;
        } else if (len > 0) {
                if (depth + 1 > MESSAGE_DEPTH_MAX)
                        return MESSAGE_E_INVALID;
                saved_end = v->end;
                v->end = array_end;
                while (v->pos < array_end) {
                        const char *e = element;

                        r = validate_value(v, &e, depth + 1);
                        if (r)
                                return r;
                }
                v->end = saved_end;
        }

        *sig = element + element_len;
        return 0;
}

/* '(' ... ')' or '{' ... '}'. */
static int validate_struct(Validator *v, const char **sig, unsigned depth) {
        char close = **sig == '(' ? ')' : '}';
        int r;

        r = validator_pad(v, 8);
        if (r)
                return r;
        if (depth + 1 > MESSAGE_DEPTH_MAX)
                return MESSAGE_E_INVALID;
        (*sig)++;
        while (**sig != close) {
                if (**sig == 0)
                        return MESSAGE_E_INVALID;
                r = validate_value(v, sig, depth + 1);
                if (r)
                        return r;
        }
        (*sig)++;
        return 0;
}

/* Validates one value of the single complete type contents (a variant's). */
static int validate_contained(Validator *v, const char *contents, unsigned depth) {
        const TypeLengths *saved = v->types;
        TypeLengths types;
        int r;

        r = validator_pad(v, message_type_alignment(contents[0]));
        if (r)
                return r;
        if (contents[1] == 0)   /* one code: no array inside, no table needed */
                return validate_value(v, &contents, depth);
        type_lengths_init(&types, contents, strlen(contents));
        v->types = &types;
        r = validate_value(v, &contents, depth);
        v->types = saved;
        return r;
}

static int validate_variant(Validator *v, unsigned depth) {
        const char *contents;
        int r;

        r = validate_signature_value(v, true, &contents);
        if (r)
                return r;
        if (depth + 1 > MESSAGE_DEPTH_MAX)
                return MESSAGE_E_INVALID;
        return validate_contained(v, contents, depth + 1);
}

/* Validates the one complete value of type *sig at v->pos and advances both. */
static int validate_value(Validator *v, const char **sig, unsigned depth) {
        char type = **sig;
        int r;

        switch (type) {
        case 'y': case 'b': case 'n': case 'q': case 'i': case 'u':
        case 'x': case 't': case 'd': case 'h':
                r = validate_fixed(v, type);
                break;
        case 's': case 'o':
                r = validate_string(v, type);
                break;
        case 'g':
                r = validate_signature_value(v, false, NULL);
                break;
        case 'v':
                r = validate_variant(v, depth);
                break;
        case 'a':
                return validate_array(v, sig, depth);
        case '(': case '{':
                return validate_struct(v, sig, depth);
        default:
                return MESSAGE_E_INVALID;
        }
        if (r)
                return r;
        (*sig)++;
        return 0;
}

/* The one-character signature each known header field must have. */
static char field_type(uint8_t code) {
        static const char types[] = {
                [MESSAGE_FIELD_PATH] = 'o',
                [MESSAGE_FIELD_INTERFACE] = 's',
                [MESSAGE_FIELD_MEMBER] = 's',
                [MESSAGE_FIELD_ERROR_NAME] = 's',
                [MESSAGE_FIELD_REPLY_SERIAL] = 'u',
                [MESSAGE_FIELD_DESTINATION] = 's',
                [MESSAGE_FIELD_SENDER] = 's',
                [MESSAGE_FIELD_SIGNATURE] = 'g',
                [MESSAGE_FIELD_UNIX_FDS] = 'u',
        };

        return code < ELEMENTSOF(types) ? types[code] : 0;
}

/*
 * A known 's' or 'o' field: length, bytes, NUL. The field's own rule
 * (a name or a path, all ASCII subsets) replaces the UTF-8 check.
 */
static int read_field_string(Validator *v, const char **ret, size_t *ret_len) {
        uint32_t len;
        int r;

        r = validator_pad(v, 4);
        if (r)
                return r;
        if (v->end - v->pos < 4)
                return MESSAGE_E_INVALID;
        len = message_load32(v->data + v->pos, v->little_endian);
        v->pos += 4;
        if ((size_t) len >= v->end - v->pos || v->data[v->pos + len] != 0)
                return MESSAGE_E_INVALID;
        *ret = (const char *) v->data + v->pos;
        *ret_len = len;
        v->pos += (size_t) len + 1;
        return 0;
}

/* Whether the len bytes at str are the string literal (lengths first: most fields differ there). */
#define FIELD_IS(str, len, literal) ((len) == sizeof(literal) - 1 && memcmp((str), (literal), (len)) == 0)

static int store_string_field(Message *m, uint8_t code, const char *str, size_t len) {
        switch (code) {
        case MESSAGE_FIELD_PATH:
                if (!validate_object_path(str, len) || FIELD_IS(str, len, "/org/freedesktop/DBus/Local"))
                        return MESSAGE_E_INVALID;
                m->path = str;
                return 0;
        case MESSAGE_FIELD_INTERFACE:
                if (!validate_interface_name(str, len) || FIELD_IS(str, len, "org.freedesktop.DBus.Local"))
                        return MESSAGE_E_INVALID;
                m->interface = str;
                return 0;
        case MESSAGE_FIELD_MEMBER:
                if (!validate_member_name(str, len))
                        return MESSAGE_E_INVALID;
                m->member = str;
                return 0;
        case MESSAGE_FIELD_ERROR_NAME:
                if (!validate_error_name(str, len))
                        return MESSAGE_E_INVALID;
                m->error_name = str;
                return 0;
        case MESSAGE_FIELD_DESTINATION:
                if (!validate_bus_name(str, len))
                        return MESSAGE_E_INVALID;
                m->destination = str;
                return 0;
        case MESSAGE_FIELD_SENDER:
                if (!validate_bus_name(str, len))
                        return MESSAGE_E_INVALID;
                m->sender = str;
                return 0;
        default:
                return MESSAGE_E_INVALID;
        }
}

/* The value of a known field, whose signature has been checked. */
static int validate_known_field(Validator *v, Message *m, uint8_t code) {
        const char *str;
        uint32_t value;
        size_t len;
        int r;

        switch (field_type(code)) {
        case 'u':
                r = validate_fixed(v, 'u');
                if (r)
                        return r;
                value = message_load32(v->data + v->pos - 4, v->little_endian);
                if (code == MESSAGE_FIELD_UNIX_FDS) {
                        m->unix_fds = value;
                        return 0;
                }
                if (value == 0)
                        return MESSAGE_E_INVALID;
                m->reply_serial = value;
                return 0;
        case 'g':
                return validate_signature_value(v, false, &m->signature);
        default:
                r = read_field_string(v, &str, &len);
                if (r)
                        return r;
                return store_string_field(m, code, str, len);
        }
}

/* One (BYTE code, VARIANT value) header field at v->pos. */
static int validate_field(Validator *v, Message *m, uint32_t *seen) {
        const char *contents;
        uint8_t code;
        char type;
        int r;

        r = validator_pad(v, 8);
        if (r)
                return r;
        if (v->pos >= v->end)
                return MESSAGE_E_INVALID;
        code = v->data[v->pos++];
        if (code == MESSAGE_FIELD_INVALID)
                return MESSAGE_E_INVALID;
        type = field_type(code);
        if (type != 0 && v->end - v->pos >= 3 && v->data[v->pos] == 1 && v->data[v->pos + 1] == (uint8_t) type &&
            v->data[v->pos + 2] == 0) {
                /* The usual case, a known field whose variant has exactly its type:
                 * what the general path below accepts for it, in a few comparisons. */
                v->pos += 3;
        } else {
                r = validate_signature_value(v, true, &contents);
                if (r)
                        return r;
                if (type == 0) {        /* unknown fields are ignored, per the specification; at depth 3 in "yyyyuua(yv)" */
                        m->has_unknown_fields = true;
                        return validate_contained(v, contents, 3);
                }
                if (contents[0] != type || contents[1] != 0)
                        return MESSAGE_E_INVALID;       /* not exactly the field's one type */
        }
        if (*seen & (1u << code))
                return MESSAGE_E_INVALID;
        *seen |= 1u << code;
        return validate_known_field(v, m, code);
}

static int check_required_fields(Message *m) {
        switch (m->type) {
        case MESSAGE_METHOD_CALL:
                return m->path && m->member ? 0 : MESSAGE_E_INVALID;
        case MESSAGE_SIGNAL:
                return m->path && m->interface && m->member ? 0 : MESSAGE_E_INVALID;
        case MESSAGE_ERROR:
                return m->error_name && m->reply_serial ? 0 : MESSAGE_E_INVALID;
        case MESSAGE_METHOD_RETURN:
                return m->reply_serial ? 0 : MESSAGE_E_INVALID;
        default:        /* an unknown type: nothing is known to be required */
                return 0;
        }
}

static void reset_header_index(Message *m) {
        m->reply_serial = m->unix_fds = 0;
        m->has_unknown_fields = false;
        m->path = m->interface = m->member = m->error_name = NULL;
        m->destination = m->sender = m->signature = NULL;
}

int message_validate_header(Message *m) {
        size_t fields_end, body_offset;
        uint32_t fields_len, seen = 0;
        Validator v;
        int r;

        reset_header_index(m);
        if (m->size < MESSAGE_FIXED_HEADER_SIZE)
                return MESSAGE_E_INVALID;
        if (m->data[0] != 'l' && m->data[0] != 'B')
                return MESSAGE_E_INVALID;
        m->little_endian = m->data[0] == 'l';
        m->type = m->data[1];
        m->flags = m->data[2];
        if (m->data[3] != MESSAGE_PROTOCOL_VERSION)
                return MESSAGE_E_INVALID;
        if (m->type == MESSAGE_INVALID)
                return MESSAGE_E_INVALID;
        m->body_size = message_load32(m->data + 4, m->little_endian);
        m->serial = message_load32(m->data + 8, m->little_endian);
        if (m->serial == 0)
                return MESSAGE_E_INVALID;
        fields_len = message_load32(m->data + 12, m->little_endian);
        if (fields_len > MESSAGE_ARRAY_MAX)
                return MESSAGE_E_INVALID;
        fields_end = MESSAGE_FIXED_HEADER_SIZE + (size_t) fields_len;
        body_offset = ALIGN_TO(fields_end, 8);
        if (body_offset > m->size || m->size - body_offset != m->body_size)
                return MESSAGE_E_INVALID;
        m->body_offset = body_offset;

        v = (Validator) {
                .data = m->data,
                .pos = MESSAGE_FIXED_HEADER_SIZE,
                .end = fields_end,
                .little_endian = m->little_endian,
                .n_fds = UINT32_MAX,    /* an 'h' in an unknown field indexes nothing we check */
        };
        while (v.pos < v.end) {
                r = validate_field(&v, m, &seen);
                if (r)
                        return r;
        }
        for (size_t i = fields_end; i < body_offset; i++)
                if (m->data[i] != 0)
                        return MESSAGE_E_INVALID;
        return check_required_fields(m);
}

int message_validate(Message *m) {
        TypeLengths types;
        const char *sig;
        Validator v;
        int r;

        r = message_validate_header(m);
        if (r)
                return r;
        if (m->unix_fds != m->n_fds)
                return MESSAGE_E_INVALID;

        v = (Validator) {
                .data = m->data,
                .pos = m->body_offset,
                .end = m->size,
                .little_endian = m->little_endian,
                .n_fds = m->unix_fds,
        };
        sig = m->signature ?: "";
        type_lengths_init(&types, sig, strlen(sig));
        v.types = &types;
        while (*sig) {
                r = validate_value(&v, &sig, 0);
                if (r)
                        return r;
        }
        return v.pos == v.end ? 0 : MESSAGE_E_INVALID;
}

int message_next_field(Message *m, size_t pos, uint8_t *ret_code, size_t *ret_start, size_t *ret_next) {
        Validator v = {
                .data = m->data,
                .pos = pos,
                .end = MESSAGE_FIXED_HEADER_SIZE + (size_t) message_load32(m->data + 12, m->little_endian),
                .little_endian = m->little_endian,
                .n_fds = UINT32_MAX,
        };
        const char *contents;
        size_t start;
        uint8_t code;
        int r;

        r = validator_pad(&v, 8);
        if (r)
                return r;
        start = v.pos;
        if (v.pos >= v.end)
                return MESSAGE_E_INVALID;
        code = v.data[v.pos++];
        r = validate_signature_value(&v, true, &contents);
        if (r)
                return r;
        r = validate_contained(&v, contents, 3);
        if (r)
                return r;
        *ret_code = code;
        *ret_start = start;
        *ret_next = v.pos;
        return 0;
}
