/*
 * message: the Message object (allocation, refcount, accessors), framing,
 * and the two header rewrites the bus performs (SENDER, serial).
 *
 * A parsed message is one allocation: the struct, the descriptors it
 * owns, then the wire bytes with a little slack so that stamping the
 * bus-assigned SENDER normally moves the body in place instead of
 * reallocating. Header accessors return pointers into the wire bytes,
 * which message-validate.c has checked; every invariant below relies on
 * message_validate() having accepted the bytes. A message is immutable
 * once anybody else holds a reference: the rewrites refuse to run then.
 */
#include <stdlib.h>

#include "message-private.h"
#include "validate.h"

int message_alloc(size_t size, size_t n_fds, Message **ret) {
        size_t fds_bytes = ALIGN_TO(n_fds * sizeof(int), 8);
        Message *m;

        if (size > MESSAGE_SIZE_MAX || n_fds > MESSAGE_SIZE_MAX)
                return MESSAGE_E_TOO_LARGE;
        /* Only the struct is cleared: the data is about to be overwritten. */
        m = malloc(sizeof(*m) + fds_bytes + size + MESSAGE_STAMP_SLACK);
        if (!m)
                return -ENOMEM;
        memset(m, 0, sizeof(*m));
        m->n_ref = 1;
        m->fds = (int *) m->storage;
        m->n_fds = n_fds;
        for (size_t i = 0; i < n_fds; i++)
                m->fds[i] = -1;
        m->data = m->storage + fds_bytes;
        m->data_inline = true;
        m->size = size;
        m->capacity = size + MESSAGE_STAMP_SLACK;
        *ret = m;
        return 0;
}

static Message *message_free(Message *m) {
        for (size_t i = 0; i < m->n_fds; i++)
                safe_close(m->fds[i]);
        if (!m->data_inline)
                free(m->data);
        free(m->args);
        free(m);
        return NULL;
}

int message_frame_size(const void *data, size_t n, size_t max_size, size_t *ret_total) {
        const uint8_t *p = data;
        uint64_t fields_len, body_len, total;
        bool le;

        if (n < MESSAGE_FIXED_HEADER_SIZE)
                return MESSAGE_E_NEED_MORE;
        if (p[0] != 'l' && p[0] != 'B')
                return MESSAGE_E_INVALID;
        if (p[3] != MESSAGE_PROTOCOL_VERSION)
                return MESSAGE_E_INVALID;
        le = p[0] == 'l';
        body_len = message_load32(p + 4, le);
        fields_len = message_load32(p + 12, le);
        if (fields_len > MESSAGE_ARRAY_MAX)
                return MESSAGE_E_INVALID;
        total = ALIGN_TO(MESSAGE_FIXED_HEADER_SIZE + fields_len, 8) + body_len;
        if (total > MESSAGE_SIZE_MAX || total > max_size)
                return MESSAGE_E_TOO_LARGE;
        *ret_total = (size_t) total;
        return 0;
}

int message_parse(const void *data, size_t size, int *fds, size_t n_fds, Message **ret) {
        _cleanup_(message_unrefp) Message *m = NULL;
        size_t total;
        int r;

        r = message_frame_size(data, size, MESSAGE_SIZE_MAX, &total);
        if (r == MESSAGE_E_NEED_MORE)
                return MESSAGE_E_INVALID;
        if (r)
                return r;
        if (total != size)
                return MESSAGE_E_INVALID;
        r = message_alloc(size, n_fds, &m);
        if (r)
                return r;
        memcpy(m->data, data, size);
        if (n_fds > 0)
                memcpy(m->fds, fds, n_fds * sizeof(int));
        r = message_validate(m);
        if (r) {
                /* The caller keeps its descriptors on failure. */
                for (size_t i = 0; i < m->n_fds; i++)
                        m->fds[i] = -1;
                return r;
        }
        *ret = TAKE_PTR(m);
        return 0;
}

int message_peek_unix_fds(const void *data, size_t size, uint32_t *ret_n) {
        Message m = {
                .n_ref = 1,
                .data = (uint8_t *) data,       /* only read by the header check */
                .size = size,
                .capacity = size,
        };
        size_t total;
        int r;

        r = message_frame_size(data, size, MESSAGE_SIZE_MAX, &total);
        if (r == MESSAGE_E_NEED_MORE)
                return MESSAGE_E_INVALID;
        if (r)
                return r;
        if (total != size)
                return MESSAGE_E_INVALID;
        r = message_validate_header(&m);
        if (r)
                return r;
        *ret_n = m.unix_fds;
        return 0;
}

Message *message_ref(Message *m) {
        if (m)
                m->n_ref++;
        return m;
}

Message *message_unref(Message *m) {
        if (m && --m->n_ref == 0)
                message_free(m);
        return NULL;
}

uint8_t message_get_type(Message *m) {
        return m->type;
}

uint8_t message_get_flags(Message *m) {
        return m->flags;
}

uint32_t message_get_serial(Message *m) {
        return m->serial;
}

uint32_t message_get_reply_serial(Message *m) {
        return m->reply_serial;
}

const char *message_get_path(Message *m) {
        return m->path;
}

const char *message_get_interface(Message *m) {
        return m->interface;
}

const char *message_get_member(Message *m) {
        return m->member;
}

const char *message_get_error_name(Message *m) {
        return m->error_name;
}

const char *message_get_destination(Message *m) {
        return m->destination;
}

const char *message_get_sender(Message *m) {
        return m->sender;
}

const char *message_get_signature(Message *m) {
        return m->signature;
}

bool message_is_little_endian(Message *m) {
        return m->little_endian;
}

const int *message_get_unix_fds(Message *m, size_t *ret_n) {
        *ret_n = m->n_fds;
        return m->n_fds > 0 ? m->fds : NULL;
}

const void *message_get_data(Message *m, size_t *ret_size) {
        *ret_size = m->size;
        return m->data;
}

const void *message_get_body(Message *m, size_t *ret_size) {
        *ret_size = m->body_size;
        return m->data + m->body_offset;
}

int message_set_serial(Message *m, uint32_t serial) {
        if (m->n_ref != 1)
                return -EBUSY;
        if (serial == 0)
                return -EINVAL;
        message_store32(m->data + 8, serial, m->little_endian);
        m->serial = serial;
        return 0;
}

/*
 * Writes m's header with every SENDER field and every field the
 * specification does not define dropped, and one SENDER of name
 * appended, into out (room for at least header + 8 + 8 + 256 + 8
 * bytes); returns the 8-aligned header size.
 */
static int build_stamped_header(Message *m, const char *name, uint8_t *out, size_t *ret_size) {
        size_t fields_end = MESSAGE_FIXED_HEADER_SIZE + (size_t) message_load32(m->data + 12, m->little_endian);
        size_t pos = MESSAGE_FIXED_HEADER_SIZE, w = MESSAGE_FIXED_HEADER_SIZE, name_len = strlen(name);
        int r;

        memcpy(out, m->data, MESSAGE_FIXED_HEADER_SIZE);
        while (pos < fields_end) {
                size_t start, next;
                uint8_t code;

                r = message_next_field(m, pos, &code, &start, &next);
                if (r)
                        return r;
                if (code != MESSAGE_FIELD_SENDER && code <= MESSAGE_FIELD_UNIX_FDS) {
                        while (w % 8)
                                out[w++] = 0;
                        memcpy(out + w, m->data + start, next - start);
                        w += next - start;
                }
                pos = next;
        }
        while (w % 8)
                out[w++] = 0;
        out[w++] = MESSAGE_FIELD_SENDER;
        out[w++] = 1;
        out[w++] = 's';
        out[w++] = 0;
        message_store32(out + w, (uint32_t) name_len, m->little_endian);
        w += 4;
        memcpy(out + w, name, name_len + 1);
        w += name_len + 1;
        message_store32(out + 12, (uint32_t) (w - MESSAGE_FIXED_HEADER_SIZE), m->little_endian);
        while (w % 8)
                out[w++] = 0;
        *ret_size = w;
        return 0;
}

/* Replaces m's header with header (header_size bytes), keeping the body. */
static int replace_header(Message *m, const uint8_t *header, size_t header_size) {
        size_t total = header_size + m->body_size;

        if (total > MESSAGE_SIZE_MAX)
                return MESSAGE_E_TOO_LARGE;
        if (total <= m->capacity) {
                memmove(m->data + header_size, m->data + m->body_offset, m->body_size);
        } else {
                uint8_t *data = malloc(total + MESSAGE_STAMP_SLACK);

                if (!data)
                        return -ENOMEM;
                memcpy(data + header_size, m->data + m->body_offset, m->body_size);
                if (!m->data_inline)
                        free(m->data);
                m->data = data;
                m->data_inline = false;
                m->capacity = total + MESSAGE_STAMP_SLACK;
        }
        memcpy(m->data, header, header_size);
        m->size = total;
        /* Arguments cached by message_get_args() pointed into the old body. */
        free(m->args);
        m->args = NULL;
        m->n_args = 0;
        return 0;
}

/*
 * The common case: no SENDER yet and room in the buffer. The field is
 * appended after the last one, so every header pointer stays valid;
 * only the body moves.
 */
static bool stamp_in_place(Message *m, const char *name) {
        size_t fields_end = MESSAGE_FIXED_HEADER_SIZE + (size_t) message_load32(m->data + 12, m->little_endian);
        size_t name_len = strlen(name), field = ALIGN_TO(fields_end, 8);
        size_t new_fields_end = field + 8 + name_len + 1;
        size_t body_offset = ALIGN_TO(new_fields_end, 8);

        if (m->sender || m->has_unknown_fields || body_offset + m->body_size > m->capacity)
                return false;

        memmove(m->data + body_offset, m->data + m->body_offset, m->body_size);
        memset(m->data + fields_end, 0, field - fields_end);
        memcpy(m->data + field, (const uint8_t[]) { MESSAGE_FIELD_SENDER, 1, 's', 0 }, 4);
        message_store32(m->data + field + 4, (uint32_t) name_len, m->little_endian);
        memcpy(m->data + field + 8, name, name_len + 1);
        memset(m->data + new_fields_end, 0, body_offset - new_fields_end);
        message_store32(m->data + 12, (uint32_t) (new_fields_end - MESSAGE_FIXED_HEADER_SIZE), m->little_endian);

        m->sender = (const char *) m->data + field + 8;
        m->body_offset = body_offset;
        m->size = body_offset + m->body_size;
        free(m->args);          /* the cached arguments pointed into the old body */
        m->args = NULL;
        m->n_args = 0;
        return true;
}

int message_stamp_sender(Message *m, const char *unique_name) {
        _cleanup_free_ uint8_t *heap = NULL;
        uint8_t stack[1024], *header = stack;
        size_t header_size, room = m->body_offset + 8 + 8 + VALIDATE_NAME_MAX + 1 + 8;
        int r;

        if (m->n_ref != 1)
                return -EBUSY;
        if (!unique_name || !validate_bus_name(unique_name, strlen(unique_name)))
                return -EINVAL;
        if (stamp_in_place(m, unique_name))
                return 0;
        if (room > sizeof(stack)) {
                header = heap = malloc(room);
                if (!heap)
                        return -ENOMEM;
        }
        r = build_stamped_header(m, unique_name, header, &header_size);
        if (r)
                return r < 0 ? r : -EIO;        /* the header was validated: cannot happen */
        r = replace_header(m, header, header_size);
        if (r)
                return r;
        r = message_validate_header(m);
        return r == 0 ? 0 : (r < 0 ? r : -EIO);
}
