/*
 * propfilter: removes, for one recipient, the property values it may not
 * read from GetAll and GetManagedObjects replies and from
 * PropertiesChanged and InterfacesAdded signals (DESIGN.md, mediation
 * point 3), and from InterfacesRemoved the protected interfaces, which the
 * recipient never saw appear.
 *
 * Two passes, so that the common case costs nothing. The scan walks the
 * body with a MessageReader (on the stack), asks the callback about each
 * property key and stops at the first hidden one; if there is none the
 * caller gets its own message back, with no allocation. Only then does the
 * build pass walk the body again into a MessageBuilder seeded with the
 * original header, copying each kept value whole with
 * message_builder_copy_value() (variants may hold large or deeply nested
 * values; they are never interpreted here).
 *
 * Answers are logged by the body offset of the entry they are about, in
 * a pre-sized sorted array on the stack, so the build pass and its
 * look-aheads replay them instead of asking again.
 * The look-aheads exist because a builder cannot take back what it wrote:
 * before writing an interface entry (GetManagedObjects, InterfacesAdded)
 * the filter must know whether any of its properties is visible or, if
 * none is, whether the interface itself is protected; before writing an
 * object entry, whether any of its interfaces survives. They run on a copy
 * of the reader.
 *
 * Trust: the message was validated by message_parse() (or built), so the
 * reader can walk it; everything else about it is the sender's claim. The
 * body's signature is checked against the member first (anything else is
 * PROPFILTER_E_MALFORMED, and the bus drops it for this recipient). Names
 * taken from the body are handed to the callback as they are, except that
 * one that is not a valid interface name is passed as NULL, "every
 * interface", which can only hide more. The invariant that matters: a
 * property value is written to the output only right after the callback
 * (or its logged answer for that very entry) said visible. No logging.
 */
#include <string.h>

#include "message.h"
#include "propfilter.h"
#include "validate.h"

/* Internal: the scan met a hidden entry, so the message must be rebuilt. */
#define FILTER_CHANGED 1000

typedef struct Filter {
        PropfilterVisible visible;
        void *userdata;
        bool scanning;                  /* the first pass: stop at the first hidden entry */
        size_t n_answers;
        uint32_t answers[PROPFILTER_ANSWERS_MAX]; /* offset << 1 | visible, offsets increasing */
} Filter;

/* Reader and builder results: a positive wire code means the body is not what it claims. */
static int wire(int r) {
        return r > 0 ? PROPFILTER_E_MALFORMED : r;
}

/* Where offset is, or would go, in the log (sorted by offset). */
static size_t log_position(const Filter *f, uint32_t offset) {
        size_t low = 0, high = f->n_answers;

        while (low < high) {
                size_t mid = low + (high - low) / 2;

                if (f->answers[mid] >> 1 < offset)
                        low = mid + 1;
                else
                        high = mid;
        }
        return low;
}

static bool logged_answer(const Filter *f, uint32_t offset, bool *ret_visible) {
        size_t i = log_position(f, offset);

        if (i >= f->n_answers || f->answers[i] >> 1 != offset)
                return false;
        *ret_visible = f->answers[i] & 1;
        return true;
}

/*
 * Scanning, offsets only grow: an append. A look-ahead may ask about an
 * interface (whose offset precedes its properties') after them: an insert.
 */
static void log_answer(Filter *f, uint32_t offset, bool visible) {
        size_t i = f->n_answers;

        if (f->n_answers >= PROPFILTER_ANSWERS_MAX)
                return;         /* full: later questions may be asked twice */
        if (i > 0 && f->answers[i - 1] >> 1 >= offset) {
                i = log_position(f, offset);
                if (f->answers[i] >> 1 == offset)
                        return;
                memmove(f->answers + i + 1, f->answers + i,
                        (f->n_answers - i) * sizeof(f->answers[0]));
        }
        f->answers[i] = offset << 1 | (visible ? 1u : 0u);
        f->n_answers++;
}

/*
 * One question, identified by the body offset of the entry it is about
 * (message bodies are below 2^27 bytes, so offset << 1 fits). While
 * scanning, a hidden answer ends the pass with FILTER_CHANGED.
 */
static int ask(Filter *f, size_t offset, const char *path, const char *interface,
               const char *property, bool *ret_visible) {
        bool visible;
        int r;

        if (f->scanning || !logged_answer(f, (uint32_t) offset, &visible)) {
                r = f->visible(path, interface, property, f->userdata);
                if (r < 0)
                        return r;
                visible = r == 1;
                log_answer(f, (uint32_t) offset, visible);
        }
        if (f->scanning && !visible)
                return FILTER_CHANGED;
        *ret_visible = visible;
        return 0;
}

/* An interface name from the body, as the callback takes it. */
static const char *policy_interface(const char *name) {
        return validate_interface_name(name, strlen(name)) ? name : NULL;
}

static int out_open(MessageBuilder *out, char container, const char *contents) {
        return out ? wire(message_builder_open(out, container, contents)) : 0;
}

static int out_close(MessageBuilder *out) {
        return out ? wire(message_builder_close(out)) : 0;
}

static int out_string(MessageBuilder *out, char type, const char *s) {
        return out ? wire(message_builder_append_basic(out, type, s)) : 0;
}

/*
 * The body's signature was checked whole against the member before any
 * walk, so entering needs no contents check (which would cost a strlen
 * and a memcmp per container).
 */
static int enter(MessageReader *r, char container) {
        return wire(message_reader_enter(r, container, NULL));
}

/* Opens the next dict entry and reads its string-like key; *ret_offset identifies the entry. */
static int enter_entry(MessageReader *r, char key_type,
                       size_t *ret_offset, const char **ret_key) {
        int k;

        k = enter(r, '{');
        if (k)
                return k;
        *ret_offset = r->pos;
        return wire(message_reader_read_basic(r, key_type, ret_key));
}

/* One {sv} of an a{sv}: copied to out if visible. */
static int filter_property(Filter *f, MessageReader *r, MessageBuilder *out, const char *path,
                           const char *interface, bool *ret_kept) {
        const char *name;
        size_t offset;
        bool visible;
        int k;

        k = enter_entry(r, 's', &offset, &name);
        if (k)
                return k;
        k = ask(f, offset, path, interface, name, &visible);
        if (k)
                return k;
        if (visible && out) {
                if ((k = out_open(out, '{', "sv")) ||
                    (k = out_string(out, 's', name)) ||
                    (k = wire(message_builder_copy_value(out, r))) ||
                    (k = out_close(out)))
                        return k;
        }
        *ret_kept = visible;
        return wire(message_reader_exit(r));
}

/* An a{sv} of (path, interface): the visible entries go to out (nullable). */
static int filter_properties(Filter *f, MessageReader *r, MessageBuilder *out, const char *path,
                             const char *interface, unsigned *ret_kept) {
        unsigned kept = 0;
        int k;

        if ((k = enter(r, 'a')) || (k = out_open(out, 'a', "{sv}")))
                return k;
        while (!message_reader_at_end(r)) {
                bool one;

                k = filter_property(f, r, out, path, interface, &one);
                if (k)
                        return k;
                kept += one;
        }
        if ((k = wire(message_reader_exit(r))) || (k = out_close(out)))
                return k;
        *ret_kept = kept;
        return 0;
}

/* Look-ahead: is any property of this a{sv} visible? Consumes the a{sv}. */
static int any_property_visible(Filter *f, MessageReader *r, const char *path,
                                const char *interface, bool *ret) {
        bool visible = false;
        int k;

        k = enter(r, 'a');
        if (k)
                return k;
        while (!visible && !message_reader_at_end(r)) {
                const char *name;
                size_t offset;

                if ((k = enter_entry(r, 's', &offset, &name)) ||
                    (k = ask(f, offset, path, interface, name, &visible)) ||
                    (k = wire(message_reader_exit(r))))
                        return k;
        }
        *ret = visible;
        return wire(message_reader_exit(r));
}

/*
 * Look-ahead: does this {sa{sv}} entry survive? Yes if a property is
 * visible, else if the interface itself is not protected. Consumes it.
 */
static int interface_survives(Filter *f, MessageReader *r, const char *path, bool *ret) {
        const char *name, *interface;
        size_t offset;
        bool survives;
        int k;

        k = enter_entry(r, 's', &offset, &name);
        if (k)
                return k;
        interface = policy_interface(name);
        k = any_property_visible(f, r, path, interface, &survives);
        if (k)
                return k;
        if (!survives) {
                k = ask(f, offset, path, interface, NULL, &survives);
                if (k)
                        return k;
        }
        *ret = survives;
        return wire(message_reader_exit(r));
}

/*
 * One {sa{sv}} at path. Scanning (out NULL), an interface with no property
 * at all is asked about (a hidden one with properties has already ended
 * the scan); building, the look-ahead decides whether it is written.
 */
static int filter_interface(Filter *f, MessageReader *r, MessageBuilder *out, const char *path,
                            bool *ret_kept) {
        const char *name, *interface;
        unsigned n_kept;
        size_t offset;
        bool visible;
        int k;

        if (out) {
                MessageReader ahead = *r;

                k = interface_survives(f, &ahead, path, &visible);
                if (k)
                        return k;
                if (!visible) {
                        *ret_kept = false;
                        return wire(message_reader_skip(r));
                }
        }
        if ((k = enter_entry(r, 's', &offset, &name)) ||
            (k = out_open(out, '{', "sa{sv}")) ||
            (k = out_string(out, 's', name)))
                return k;
        interface = policy_interface(name);
        k = filter_properties(f, r, out, path, interface, &n_kept);
        if (k)
                return k;
        if (!out && n_kept == 0) {
                k = ask(f, offset, path, interface, NULL, &visible);
                if (k)
                        return k;
        }
        *ret_kept = true;
        if ((k = wire(message_reader_exit(r))) || (k = out_close(out)))
                return k;
        return 0;
}

/* An a{sa{sv}} at path: the surviving interfaces go to out (nullable). */
static int filter_interfaces(Filter *f, MessageReader *r, MessageBuilder *out, const char *path,
                             unsigned *ret_kept) {
        unsigned kept = 0;
        int k;

        if ((k = enter(r, 'a')) ||
            (k = out_open(out, 'a', "{sa{sv}}")))
                return k;
        while (!message_reader_at_end(r)) {
                bool one;

                k = filter_interface(f, r, out, path, &one);
                if (k)
                        return k;
                kept += one;
        }
        if ((k = wire(message_reader_exit(r))) || (k = out_close(out)))
                return k;
        *ret_kept = kept;
        return 0;
}

/* Look-ahead: does this {oa{sa{sv}}} survive (it had no interface, or one survives)? */
static int object_survives(Filter *f, MessageReader *r, bool *ret) {
        const char *path;
        size_t offset;
        bool survives;
        int k;

        if ((k = enter_entry(r, 'o', &offset, &path)) ||
            (k = enter(r, 'a')))
                return k;
        survives = message_reader_at_end(r);
        while (!survives && !message_reader_at_end(r)) {
                k = interface_survives(f, r, path, &survives);
                if (k)
                        return k;
        }
        if ((k = wire(message_reader_exit(r))) || (k = wire(message_reader_exit(r))))
                return k;
        *ret = survives;
        return 0;
}

/* One {oa{sa{sv}}} of GetManagedObjects. */
static int filter_object(Filter *f, MessageReader *r, MessageBuilder *out) {
        const char *path;
        unsigned n_kept;
        size_t offset;
        int k;

        if (out) {
                MessageReader ahead = *r;
                bool survives;

                k = object_survives(f, &ahead, &survives);
                if (k)
                        return k;
                if (!survives)
                        return wire(message_reader_skip(r));
        }
        if ((k = enter_entry(r, 'o', &offset, &path)) ||
            (k = out_open(out, '{', "oa{sa{sv}}")) ||
            (k = out_string(out, 'o', path)) ||
            (k = filter_interfaces(f, r, out, path, &n_kept)) ||
            (k = wire(message_reader_exit(r))) ||
            (k = out_close(out)))
                return k;
        return 0;
}

static int filter_objects(Filter *f, MessageReader *r, MessageBuilder *out) {
        int k;

        if ((k = enter(r, 'a')) ||
            (k = out_open(out, 'a', "{oa{sa{sv}}}")))
                return k;
        while (!message_reader_at_end(r)) {
                k = filter_object(f, r, out);
                if (k)
                        return k;
        }
        if ((k = wire(message_reader_exit(r))) || (k = out_close(out)))
                return k;
        return 0;
}

/* PropertiesChanged's invalidated "as": the visible names go to out (nullable). */
static int filter_invalidated(Filter *f, MessageReader *r, MessageBuilder *out, const char *path,
                              const char *interface, unsigned *ret_kept) {
        unsigned kept = 0;
        int k;

        if ((k = enter(r, 'a')) || (k = out_open(out, 'a', "s")))
                return k;
        while (!message_reader_at_end(r)) {
                size_t offset = r->pos;
                const char *name;
                bool visible;

                if ((k = wire(message_reader_read_basic(r, 's', &name))) ||
                    (k = ask(f, offset, path, interface, name, &visible)))
                        return k;
                if (visible && (k = out_string(out, 's', name)))
                        return k;
                kept += visible;
        }
        if ((k = wire(message_reader_exit(r))) || (k = out_close(out)))
                return k;
        *ret_kept = kept;
        return 0;
}

/*
 * InterfacesRemoved's "as" at path: the interfaces that are not protected
 * for the recipient go to out (nullable). Only the interface question is
 * asked (property NULL): the signal carries no properties to decide by.
 */
static int filter_removed(Filter *f, MessageReader *r, MessageBuilder *out, const char *path,
                          unsigned *ret_kept) {
        unsigned kept = 0;
        int k;

        if ((k = enter(r, 'a')) || (k = out_open(out, 'a', "s")))
                return k;
        while (!message_reader_at_end(r)) {
                size_t offset = r->pos;
                const char *name;
                bool visible;

                if ((k = wire(message_reader_read_basic(r, 's', &name))) ||
                    (k = ask(f, offset, path, policy_interface(name), NULL, &visible)))
                        return k;
                if (visible && (k = out_string(out, 's', name)))
                        return k;
                kept += visible;
        }
        if ((k = wire(message_reader_exit(r))) || (k = out_close(out)))
                return k;
        *ret_kept = kept;
        return 0;
}

static int walk_properties_changed(Filter *f, MessageReader *r, MessageBuilder *out, Message *m,
                                   unsigned *ret_kept) {
        unsigned changed, invalidated;
        const char *name, *interface;
        int k;

        if ((k = wire(message_reader_read_basic(r, 's', &name))) ||
            (k = out_string(out, 's', name)))
                return k;
        interface = policy_interface(name);
        if ((k = filter_properties(f, r, out, message_get_path(m), interface, &changed)) ||
            (k = filter_invalidated(f, r, out, message_get_path(m), interface, &invalidated)))
                return k;
        *ret_kept = changed + invalidated;
        return 0;
}

typedef int (*FilterAtPath)(Filter *f, MessageReader *r, MessageBuilder *out, const char *path,
                            unsigned *ret_kept);

/* InterfacesAdded (filter_interfaces) and InterfacesRemoved (filter_removed): the path, then the rest. */
static int walk_object_signal(Filter *f, MessageReader *r, MessageBuilder *out, FilterAtPath filter,
                              unsigned *ret_kept) {
        const char *path;
        int k;

        if ((k = wire(message_reader_read_basic(r, 'o', &path))) ||
            (k = out_string(out, 'o', path)))
                return k;
        return filter(f, r, out, path, ret_kept);
}

/*
 * One pass over the body of m (out NULL: the scan). *ret_kept: what is
 * left of PropertiesChanged (properties), InterfacesAdded or
 * InterfacesRemoved (interfaces).
 */
static int walk(Filter *f, Message *m, PropfilterKind kind, const PropfilterCall *call,
                MessageBuilder *out, unsigned *ret_kept) {
        MessageReader reader;

        message_reader_init(&reader, m);
        *ret_kept = 1;
        switch (kind) {
        case PROPFILTER_GET_ALL: {
                unsigned kept;

                return filter_properties(f, &reader, out, call->path, call->interface, &kept);
        }
        case PROPFILTER_GET_MANAGED_OBJECTS:
                return filter_objects(f, &reader, out);
        case PROPFILTER_PROPERTIES_CHANGED:
                return walk_properties_changed(f, &reader, out, m, ret_kept);
        case PROPFILTER_INTERFACES_ADDED:
                return walk_object_signal(f, &reader, out, filter_interfaces, ret_kept);
        case PROPFILTER_INTERFACES_REMOVED:
                return walk_object_signal(f, &reader, out, filter_removed, ret_kept);
        default:
                return -EINVAL;
        }
}

static const char *kind_signature(PropfilterKind kind) {
        switch (kind) {
        case PROPFILTER_GET_ALL:
                return "a{sv}";
        case PROPFILTER_GET_MANAGED_OBJECTS:
                return "a{oa{sa{sv}}}";
        case PROPFILTER_PROPERTIES_CHANGED:
                return "sa{sv}as";
        case PROPFILTER_INTERFACES_ADDED:
                return "oa{sa{sv}}";
        case PROPFILTER_INTERFACES_REMOVED:
                return "oas";
        default:
                return NULL;
        }
}

/* The second pass: m rebuilt without what the scan found hidden. */
static int rebuild(Filter *f, Message *m, PropfilterKind kind, const PropfilterCall *call,
                   Message **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *builder = NULL;
        unsigned kept;
        int k;

        k = message_builder_new_from_header(m, &builder);
        if (k)
                return k > 0 ? -EINVAL : k;
        f->scanning = false;
        k = walk(f, m, kind, call, builder, &kept);
        if (k)
                return k;
        if (kept == 0)
                return PROPFILTER_E_DROP;
        k = message_builder_finish(builder, ret);
        return k > 0 ? -EINVAL : k;     /* a smaller copy of a valid message is valid */
}

int propfilter_filter(Message *m, const PropfilterCall *call, PropfilterVisible visible,
                      void *userdata, Message **ret) {
        PropfilterKind kind;
        unsigned kept;
        Filter f;
        int k;

        if (!m || !visible || !ret)
                return -EINVAL;
        kind = propfilter_classify(m, call);
        if (kind == PROPFILTER_NONE)
                goto unchanged;
        if (kind == PROPFILTER_GET_ALL && !call->path)
                return -EINVAL;
        if (strcmp(message_get_signature(m) ?: "", kind_signature(kind)) != 0) {
                if (message_get_type(m) == MESSAGE_METHOD_RETURN && !call->exact)
                        goto unchanged;  /* not a Properties reply after all */
                return PROPFILTER_E_MALFORMED;
        }

        /* Not a designated initializer: the answer log need not be cleared. */
        f.visible = visible;
        f.userdata = userdata;
        f.scanning = true;
        f.n_answers = 0;
        k = walk(&f, m, kind, call, NULL, &kept);
        if (k == FILTER_CHANGED)
                return rebuild(&f, m, kind, call, ret);
        if (k)
                return k;
unchanged:
        *ret = message_ref(m);
        return 0;
}
