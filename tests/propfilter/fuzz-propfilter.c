/*
 * Fuzzer for propfilter_filter(). Input: one selector byte, an 8-byte
 * visibility mask, then one raw message. The selector picks the pending
 * call a method return answers (bits 0-1: none, GetAll of org.ex.I,
 * GetAll(""), GetManagedObjects; bit 2: the call did not name the
 * interface; bit 3: the callback fails now and then). A question is
 * visible when the mask bit chosen by a hash of (path, interface,
 * property) is set, so each question always has the same answer.
 *
 * The oracle is the census of propfilter-testlib.c, an independent walk:
 * an unchanged message holds nothing hidden; a rebuilt one parses again
 * with the same header and signature, holds nothing hidden, no empty
 * protected interface, and every visible property the input had; a drop
 * only happens to a signal with no visible property.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "propfilter-testlib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FDS 4

typedef struct Oracle {
        uint64_t mask;
        bool failures;
        bool failed;
} Oracle;

static uint32_t hash_string(uint32_t h, const char *s) {
        if (!s)
                return (h ^ 0xffu) * 16777619u;
        for (; *s; s++)
                h = (h ^ (uint8_t) *s) * 16777619u;
        return (h ^ 0) * 16777619u;
}

static int visible(const char *path, const char *interface, const char *property, void *userdata) {
        Oracle *o = userdata;
        uint32_t h = hash_string(hash_string(hash_string(2166136261u, path), interface), property);

        if (o->failures && (h >> 8 & 0x1f) == 0) {
                o->failed = true;
                return -EIO;
        }
        return (o->mask >> (h % 64)) & 1;
}

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static bool same_string(const char *a, const char *b) {
        return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int parse_with_fds(const void *data, size_t size, Message **ret) {
        int fds[MAX_FDS];
        uint32_t n_fds;
        int k;

        k = message_peek_unix_fds(data, size, &n_fds);
        if (k || n_fds > MAX_FDS)
                return k ?: -E2BIG;
        for (uint32_t i = 0; i < n_fds; i++)
                CHECK((fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0);
        k = message_parse(data, size, fds, n_fds, ret);
        if (k)
                for (uint32_t i = 0; i < n_fds; i++)
                        close(fds[i]);
        return k;
}

static void check_rebuilt(Message *in, Message *out, PropfilterKind kind, const PropfilterCall *call,
                          Oracle *o, const TestCensus *before) {
        _cleanup_(message_unrefp) Message *again = NULL;
        TestCensus after;
        const void *bytes;
        size_t size;

        bytes = message_get_data(out, &size);
        CHECK(parse_with_fds(bytes, size, &again) == 0);
        CHECK(message_get_type(again) == message_get_type(in));
        CHECK(message_get_flags(again) == message_get_flags(in));
        CHECK(message_get_serial(again) == message_get_serial(in));
        CHECK(message_get_reply_serial(again) == message_get_reply_serial(in));
        CHECK(same_string(message_get_path(again), message_get_path(in)));
        CHECK(same_string(message_get_interface(again), message_get_interface(in)));
        CHECK(same_string(message_get_member(again), message_get_member(in)));
        CHECK(same_string(message_get_destination(again), message_get_destination(in)));
        CHECK(same_string(message_get_sender(again), message_get_sender(in)));
        CHECK(same_string(message_get_signature(again), message_get_signature(in)));
        if (testlib_census(again, kind, call, visible, o, &after) != 0)
                CHECK(o->failed);
        else {
                CHECK(after.hidden == 0);
                CHECK(after.empty_protected == 0);
                CHECK(after.visible == before->visible);
        }
}

static void check(Message *m, const PropfilterCall *call, Oracle *o) {
        PropfilterKind kind = propfilter_classify(m, call);
        _cleanup_(message_unrefp) Message *out = NULL;
        TestCensus before;
        int k, census;

        k = propfilter_filter(m, call, visible, o, &out);
        if (kind == PROPFILTER_NONE) {
                CHECK(k == 0 && out == m);
                return;
        }
        if (k < 0) {
                CHECK(k == -EIO && o->failed && !out);
                return;
        }
        census = testlib_census(m, kind, call, visible, o, &before);
        if (census == PROPFILTER_E_MALFORMED) {
                if (message_get_type(m) == MESSAGE_METHOD_RETURN && !call->exact)
                        CHECK(k == 0 && out == m);
                else
                        CHECK(k == PROPFILTER_E_MALFORMED && !out);
                return;
        }
        if (census != 0) {
                CHECK(o->failed);
                return;
        }
        if (k == 0 && out == m)
                CHECK(before.hidden == 0 && before.empty_protected == 0);
        else if (k == 0)
                check_rebuilt(m, out, kind, call, o, &before);
        else {
                CHECK(k == PROPFILTER_E_DROP && !out);
                CHECK(kind == PROPFILTER_PROPERTIES_CHANGED || kind == PROPFILTER_INTERFACES_ADDED ||
                      kind == PROPFILTER_INTERFACES_REMOVED);
                CHECK(before.visible == 0);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static char path[] = "/org/ex\0org.ex.I";
        PropfilterCall calls[] = {
                { .kind = PROPFILTER_NONE },
                { .kind = PROPFILTER_GET_ALL, .path = path, .interface = path + 8 },
                { .kind = PROPFILTER_GET_ALL, .path = path },
                { .kind = PROPFILTER_GET_MANAGED_OBJECTS },
        };
        _cleanup_(message_unrefp) Message *m = NULL;
        PropfilterCall *call;
        Oracle o = {};
        uint8_t selector;

        if (size < 9)
                return 0;
        selector = data[0];
        memcpy(&o.mask, data + 1, 8);
        o.failures = selector & 8;
        if (parse_with_fds(data + 9, size - 9, &m) != 0)
                return 0;
        call = &calls[selector & 3];
        call->exact = !(selector & 4);
        check(m, call, &o);
        return 0;
}
