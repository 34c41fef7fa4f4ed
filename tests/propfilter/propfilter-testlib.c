/*
 * Test helpers for broker/propfilter: carriers built from short specs with
 * the wire builder, a rule-driven visibility callback, and a census that
 * walks a carrier without the filter's code, so that tests and the fuzzer
 * can compare the filter's output with an independent reading.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "propfilter-testlib.h"
#include "validate.h"

#define BIG_VALUE_SIZE 70000

/* Returns the first error. */
#define TRY(expr) do { int _k = (expr); if (_k) return _k; } while (0)

static int append_nested(MessageBuilder *b) {
        uint32_t one = 1;

        TRY(message_builder_open(b, 'v', "a{sv}"));
        TRY(message_builder_open(b, 'a', "{sv}"));
        TRY(message_builder_open(b, '{', "sv"));
        TRY(message_builder_append_basic(b, 's', "inner"));
        TRY(message_builder_open(b, 'v', "u"));
        TRY(message_builder_append_basic(b, 'u', &one));
        TRY(message_builder_close(b));
        TRY(message_builder_close(b));
        TRY(message_builder_open(b, '{', "sv"));
        TRY(message_builder_append_basic(b, 's', "deep"));
        TRY(message_builder_open(b, 'v', "v"));
        TRY(message_builder_open(b, 'v', "s"));
        TRY(message_builder_append_basic(b, 's', "x"));
        TRY(message_builder_close(b));
        TRY(message_builder_close(b));
        TRY(message_builder_close(b));
        TRY(message_builder_close(b));
        return message_builder_close(b);
}

static int append_structs(MessageBuilder *b) {
        TRY(message_builder_open(b, 'v', "a(si)"));
        TRY(message_builder_open(b, 'a', "(si)"));
        for (int32_t i = 0; i < 3; i++) {
                TRY(message_builder_open(b, '(', "si"));
                TRY(message_builder_append_basic(b, 's', "member"));
                TRY(message_builder_append_basic(b, 'i', &i));
                TRY(message_builder_close(b));
        }
        TRY(message_builder_close(b));
        return message_builder_close(b);
}

static int append_big(MessageBuilder *b) {
        TRY(message_builder_open(b, 'v', "ay"));
        TRY(message_builder_open(b, 'a', "y"));
        for (unsigned i = 0; i < BIG_VALUE_SIZE; i++) {
                uint8_t y = (uint8_t) i;

                TRY(message_builder_append_basic(b, 'y', &y));
        }
        TRY(message_builder_close(b));
        return message_builder_close(b);
}

static int append_fd(MessageBuilder *b) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), k;

        if (fd < 0)
                return -errno;
        k = message_builder_open(b, 'v', "h");
        if (!k)
                k = message_builder_append_fd(b, fd);
        close(fd);
        return k ?: message_builder_close(b);
}

static int append_variant_in_variant(MessageBuilder *b) {
        int32_t minus = -1;

        TRY(message_builder_open(b, 'v', "v"));
        TRY(message_builder_open(b, 'v', "i"));
        TRY(message_builder_append_basic(b, 'i', &minus));
        TRY(message_builder_close(b));
        return message_builder_close(b);
}

static int append_dict_of_arrays(MessageBuilder *b) {
        TRY(message_builder_open(b, 'v', "a{sas}"));
        TRY(message_builder_open(b, 'a', "{sas}"));
        TRY(message_builder_open(b, '{', "sas"));
        TRY(message_builder_append_basic(b, 's', "k"));
        TRY(message_builder_open(b, 'a', "s"));
        TRY(message_builder_append_basic(b, 's', "a"));
        TRY(message_builder_append_basic(b, 's', "b"));
        TRY(message_builder_close(b));
        TRY(message_builder_close(b));
        TRY(message_builder_close(b));
        return message_builder_close(b);
}

static int append_value(MessageBuilder *b, const char *name) {
        switch (name[0]) {
        case 'N':
                return append_nested(b);
        case 'S':
                return append_structs(b);
        case 'B':
                return append_big(b);
        case 'F':
                return append_fd(b);
        case 'V':
                return append_variant_in_variant(b);
        case 'D':
                return append_dict_of_arrays(b);
        default:
                TRY(message_builder_open(b, 'v', "s"));
                TRY(message_builder_append_basic(b, 's', name));
                return message_builder_close(b);
        }
}

int testlib_append_properties(MessageBuilder *b, const char *spec) {
        _cleanup_free_ char *copy = strdup(spec);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        TRY(message_builder_open(b, 'a', "{sv}"));
        for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
                TRY(message_builder_open(b, '{', "sv"));
                TRY(message_builder_append_basic(b, 's', name));
                TRY(append_value(b, name));
                TRY(message_builder_close(b));
        }
        return message_builder_close(b);
}

int testlib_append_interfaces(MessageBuilder *b, const char *spec) {
        _cleanup_free_ char *copy = strdup(spec);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        TRY(message_builder_open(b, 'a', "{sa{sv}}"));
        for (char *entry = strtok_r(copy, ";", &save); entry; entry = strtok_r(NULL, ";", &save)) {
                char *properties = strchr(entry, '=');

                if (!properties)
                        return -EINVAL;
                *properties++ = 0;
                TRY(message_builder_open(b, '{', "sa{sv}"));
                TRY(message_builder_append_basic(b, 's', entry));
                TRY(testlib_append_properties(b, properties));
                TRY(message_builder_close(b));
        }
        return message_builder_close(b);
}

int testlib_append_objects(MessageBuilder *b, const char *spec) {
        _cleanup_free_ char *copy = strdup(spec);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        TRY(message_builder_open(b, 'a', "{oa{sa{sv}}}"));
        for (char *entry = strtok_r(copy, "|", &save); entry; entry = strtok_r(NULL, "|", &save)) {
                char *interfaces = strchr(entry, ':');

                if (!interfaces)
                        return -EINVAL;
                *interfaces++ = 0;
                TRY(message_builder_open(b, '{', "oa{sa{sv}}"));
                TRY(message_builder_append_basic(b, 'o', entry));
                TRY(testlib_append_interfaces(b, interfaces));
                TRY(message_builder_close(b));
        }
        return message_builder_close(b);
}

static int new_reply(MessageBuilder **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;

        TRY(message_builder_new(MESSAGE_METHOD_RETURN, &b));
        TRY(message_builder_set_serial(b, 7));
        TRY(message_builder_set_reply_serial(b, 3));
        TRY(message_builder_set_flags(b, MESSAGE_FLAG_NO_AUTO_START));
        TRY(message_builder_set_sender(b, ":1.7"));
        TRY(message_builder_set_destination(b, ":1.9"));
        *ret = TAKE_PTR(b);
        return 0;
}

int testlib_get_all_reply(const char *properties, Message **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;

        TRY(new_reply(&b));
        TRY(testlib_append_properties(b, properties));
        return message_builder_finish(b, ret);
}

int testlib_managed_objects_reply(const char *objects, Message **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;

        TRY(new_reply(&b));
        TRY(testlib_append_objects(b, objects));
        return message_builder_finish(b, ret);
}

static int new_signal(const char *path, const char *interface, const char *member,
                      MessageBuilder **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;

        TRY(message_new_signal(":1.7", path, interface, member, &b));
        TRY(message_builder_set_serial(b, 11));
        *ret = TAKE_PTR(b);
        return 0;
}

int testlib_properties_changed(const char *path, const char *interface, const char *changed,
                               const char *invalidated, Message **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_free_ char *copy = strdup(invalidated);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        TRY(new_signal(path, "org.freedesktop.DBus.Properties", "PropertiesChanged", &b));
        TRY(message_builder_append_basic(b, 's', interface));
        TRY(testlib_append_properties(b, changed));
        TRY(message_builder_open(b, 'a', "s"));
        for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save))
                TRY(message_builder_append_basic(b, 's', name));
        TRY(message_builder_close(b));
        return message_builder_finish(b, ret);
}

int testlib_interfaces_added(const char *path, const char *interfaces, Message **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;

        TRY(new_signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", &b));
        TRY(message_builder_append_basic(b, 'o', path));
        TRY(testlib_append_interfaces(b, interfaces));
        return message_builder_finish(b, ret);
}

int testlib_interfaces_removed(const char *path, const char *interfaces, Message **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_free_ char *copy = strdup(interfaces);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        TRY(new_signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved", &b));
        TRY(message_builder_append_basic(b, 'o', path));
        TRY(message_builder_open(b, 'a', "s"));
        for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save))
                TRY(message_builder_append_basic(b, 's', name));
        TRY(message_builder_close(b));
        return message_builder_finish(b, ret);
}

/* Written byte by byte: the wire builder only writes little endian. */
size_t testlib_big_endian_get_all(uint8_t buf[static 512]) {
        size_t n = 0, fields_start, body_start, array_start, elements, inner_length, inner_start;

#define ALIGN(a) do { while (n % (a)) buf[n++] = 0; } while (0)
#define U32(v) do { uint32_t _v = (v); ALIGN(4); buf[n++] = _v >> 24; buf[n++] = _v >> 16; \
                    buf[n++] = _v >> 8; buf[n++] = _v; } while (0)
#define STR(s) do { U32(strlen(s)); memcpy(buf + n, s, strlen(s) + 1); n += strlen(s) + 1; } while (0)
#define SIG(s) do { buf[n++] = strlen(s); memcpy(buf + n, s, strlen(s) + 1); n += strlen(s) + 1; } while (0)
#define FIELD(code, sig) do { ALIGN(8); buf[n++] = (code); SIG(sig); } while (0)
        buf[n++] = 'B';
        buf[n++] = MESSAGE_METHOD_RETURN;
        buf[n++] = MESSAGE_FLAG_NO_AUTO_START;
        buf[n++] = 1;
        U32(0);                 /* body length, below */
        U32(7);                 /* serial */
        U32(0);                 /* header fields length, below */
        fields_start = n;
        FIELD(5, "u");
        U32(3);
        FIELD(6, "s");
        STR(":1.9");
        FIELD(7, "s");
        STR(":1.7");
        FIELD(8, "g");
        SIG("a{sv}");
        elements = n - fields_start;
        buf[12] = elements >> 24, buf[13] = elements >> 16, buf[14] = elements >> 8, buf[15] = elements;
        ALIGN(8);
        body_start = n;
        U32(0);                 /* array length, below */
        ALIGN(8);
        array_start = n;
        ALIGN(8); STR("A"); SIG("u"); U32(7);
        ALIGN(8); STR("Secret"); SIG("s"); STR("hidden");
        ALIGN(8); STR("Nested"); SIG("a{sv}"); U32(0);
        inner_length = n - 4;
        ALIGN(8);
        inner_start = n;
        STR("inner"); SIG("i"); U32(0xffffffff);
        buf[inner_length + 3] = (uint8_t) (n - inner_start);
        elements = n - array_start;
        buf[body_start] = elements >> 24, buf[body_start + 1] = elements >> 16;
        buf[body_start + 2] = elements >> 8, buf[body_start + 3] = elements;
        elements = n - body_start;
        buf[4] = elements >> 24, buf[5] = elements >> 16, buf[6] = elements >> 8, buf[7] = elements;
        return n;
#undef ALIGN
#undef U32
#undef STR
#undef SIG
#undef FIELD
}

static bool field_matches(const char *pattern, size_t n, const char *value) {
        char glob[256];

        if (n == 1 && pattern[0] == '*')
                return true;
        if (n == 1 && pattern[0] == '-')
                return !value;
        if (!value || n >= sizeof(glob))
                return false;
        memcpy(glob, pattern, n);
        glob[n] = 0;
        return fnmatch(glob, value, 0) == 0;
}

static bool rule_matches(const char *rule, const char *path, const char *interface,
                         const char *property) {
        const char *values[3] = { path, interface, property };
        const char *p = rule;

        for (unsigned i = 0; i < 3; i++) {
                size_t n = i < 2 ? strcspn(p, "|") : strlen(p);

                if (!field_matches(p, n, values[i]))
                        return false;
                p += n + (i < 2);
        }
        return true;
}

int testlib_visible(const char *path, const char *interface, const char *property,
                    void *userdata) {
        TestRules *rules = userdata;

        rules->n_calls++;
        if (rules->fail_at && rules->n_calls == rules->fail_at)
                return -EIO;
        for (const char *const *rule = rules->hidden; rule && *rule; rule++)
                if (rule_matches(*rule, path, interface, property))
                        return 0;
        return 1;
}

/* The census: a plain, independent walk over the same shapes. */
typedef struct Census {
        PropfilterVisible visible;
        void *userdata;
        TestCensus *out;
} Census;

static const char *census_interface(const char *name) {
        return validate_interface_name(name, strlen(name)) ? name : NULL;
}

static int census_count(Census *c, const char *path, const char *interface, const char *name) {
        int k = c->visible(path, interface, name, c->userdata);

        if (k < 0)
                return k;
        if (k == 1)
                c->out->visible++;
        else
                c->out->hidden++;
        return 0;
}

static int census_properties(Census *c, MessageReader *r, const char *path,
                             const char *interface, unsigned *ret_n) {
        unsigned n = 0;

        TRY(message_reader_enter(r, 'a', "{sv}"));
        while (!message_reader_at_end(r)) {
                const char *name;

                TRY(message_reader_enter(r, '{', "sv"));
                TRY(message_reader_read_basic(r, 's', &name));
                TRY(census_count(c, path, interface, name));
                TRY(message_reader_exit(r));
                n++;
        }
        *ret_n = n;
        return message_reader_exit(r);
}

static int census_interfaces(Census *c, MessageReader *r, const char *path) {
        TRY(message_reader_enter(r, 'a', "{sa{sv}}"));
        while (!message_reader_at_end(r)) {
                const char *name;
                unsigned n;

                TRY(message_reader_enter(r, '{', "sa{sv}"));
                TRY(message_reader_read_basic(r, 's', &name));
                TRY(census_properties(c, r, path, census_interface(name), &n));
                if (n == 0) {
                        int k = c->visible(path, census_interface(name), NULL, c->userdata);

                        if (k < 0)
                                return k;
                        c->out->empty_protected += k != 1;
                }
                c->out->interfaces++;
                TRY(message_reader_exit(r));
        }
        return message_reader_exit(r);
}

static int census_walk(Census *c, Message *m, PropfilterKind kind, const PropfilterCall *call) {
        MessageReader r;
        const char *s;
        unsigned n;

        message_reader_init(&r, m);
        switch (kind) {
        case PROPFILTER_GET_ALL:
                return census_properties(c, &r, call->path, call->interface, &n);
        case PROPFILTER_GET_MANAGED_OBJECTS:
                TRY(message_reader_enter(&r, 'a', "{oa{sa{sv}}}"));
                while (!message_reader_at_end(&r)) {
                        TRY(message_reader_enter(&r, '{', "oa{sa{sv}}"));
                        TRY(message_reader_read_basic(&r, 'o', &s));
                        TRY(census_interfaces(c, &r, s));
                        TRY(message_reader_exit(&r));
                        c->out->objects++;
                }
                return message_reader_exit(&r);
        case PROPFILTER_PROPERTIES_CHANGED: {
                const char *interface;

                TRY(message_reader_read_basic(&r, 's', &interface));
                TRY(census_properties(c, &r, message_get_path(m), census_interface(interface), &n));
                TRY(message_reader_enter(&r, 'a', "s"));
                while (!message_reader_at_end(&r)) {
                        TRY(message_reader_read_basic(&r, 's', &s));
                        TRY(census_count(c, message_get_path(m), census_interface(interface), s));
                }
                return message_reader_exit(&r);
        }
        case PROPFILTER_INTERFACES_ADDED:
                TRY(message_reader_read_basic(&r, 'o', &s));
                return census_interfaces(c, &r, s);
        case PROPFILTER_INTERFACES_REMOVED: {
                const char *path;

                TRY(message_reader_read_basic(&r, 'o', &path));
                TRY(message_reader_enter(&r, 'a', "s"));
                while (!message_reader_at_end(&r)) {
                        TRY(message_reader_read_basic(&r, 's', &s));
                        TRY(census_count(c, path, census_interface(s), NULL));
                }
                return message_reader_exit(&r);
        }
        default:
                return -EINVAL;
        }
}

int testlib_census(Message *m, PropfilterKind kind, const PropfilterCall *call,
                   PropfilterVisible visible, void *userdata, TestCensus *ret) {
        static const char *const signatures[] = {
                [PROPFILTER_GET_ALL] = "a{sv}",
                [PROPFILTER_GET_MANAGED_OBJECTS] = "a{oa{sa{sv}}}",
                [PROPFILTER_PROPERTIES_CHANGED] = "sa{sv}as",
                [PROPFILTER_INTERFACES_ADDED] = "oa{sa{sv}}",
                [PROPFILTER_INTERFACES_REMOVED] = "oas",
        };
        Census c = { .visible = visible, .userdata = userdata, .out = ret };
        int k;

        *ret = (TestCensus) {};
        if (kind <= PROPFILTER_NONE || kind > PROPFILTER_INTERFACES_REMOVED)
                return -EINVAL;
        if (strcmp(message_get_signature(m) ?: "", signatures[kind]) != 0)
                return PROPFILTER_E_MALFORMED;
        k = census_walk(&c, m, kind, call);
        return k > 0 ? PROPFILTER_E_MALFORMED : k;
}
