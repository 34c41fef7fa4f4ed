/*
 * Unit tests for broker/propfilter: every carrier (GetAll, GetManagedObjects,
 * PropertiesChanged, InterfacesAdded, InterfacesRemoved) with everything
 * visible, some and all hidden, nested values, file descriptors, a hand-made big-endian message,
 * malformed bodies and callback failures. A filtered message must parse,
 * keep the input's header, and hold byte for byte the body the wire builder
 * makes of the expected entries. Allocations are counted through
 * -Wl,--wrap=malloc (and calloc, realloc): the unchanged path makes none.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "propfilter-testlib.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static unsigned n_allocations;
static unsigned fail_allocation;        /* this one (1-based count) fails; 0: none */

static bool allocation_fails(void) {
        return ++n_allocations == fail_allocation;
}

void *__wrap_malloc(size_t size) {
        return allocation_fails() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size) {
        return allocation_fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size) {
        return allocation_fails() ? NULL : __real_realloc(p, size);
}

#define HIDE(...) ((const char *const[]) { __VA_ARGS__, NULL })

static const PropfilterCall get_all_call = {
        .kind = PROPFILTER_GET_ALL, .exact = true,
        .path = (char *) "/org/ex\0org.ex.Iface", .interface = "org.ex.Iface",
};
static const PropfilterCall managed_objects_call = {
        .kind = PROPFILTER_GET_MANAGED_OBJECTS, .exact = true,
};

static void assert_same_string(const char *a, const char *b) {
        if (!a || !b)
                assert_ptr_equal(a, b);
        else
                assert_string_equal(a, b);
}

/* out parses again as it would reach the recipient and carries in's header. */
static void assert_same_header(Message *in, Message *out) {
        _cleanup_(message_unrefp) Message *again = NULL;
        size_t size, n_fds;
        const void *data = message_get_data(out, &size);
        const int *fds = message_get_unix_fds(out, &n_fds);
        int dup_fds[8];

        assert_true(n_fds <= 8);
        for (size_t i = 0; i < n_fds; i++)
                assert_true((dup_fds[i] = dup(fds[i])) >= 0);
        assert_int_equal(message_parse(data, size, dup_fds, n_fds, &again), 0);
        assert_int_equal(message_get_type(again), message_get_type(in));
        assert_int_equal(message_get_flags(again), message_get_flags(in));
        assert_int_equal(message_get_serial(again), message_get_serial(in));
        assert_int_equal(message_get_reply_serial(again), message_get_reply_serial(in));
        assert_same_string(message_get_path(again), message_get_path(in));
        assert_same_string(message_get_interface(again), message_get_interface(in));
        assert_same_string(message_get_member(again), message_get_member(in));
        assert_same_string(message_get_error_name(again), message_get_error_name(in));
        assert_same_string(message_get_destination(again), message_get_destination(in));
        assert_same_string(message_get_sender(again), message_get_sender(in));
        assert_same_string(message_get_signature(again), message_get_signature(in));
}

static void assert_same_body(Message *a, Message *b) {
        size_t na, nb;
        const void *ba = message_get_body(a, &na), *bb = message_get_body(b, &nb);

        assert_int_equal(na, nb);
        assert_memory_equal(ba, bb, na);
}

/* Filters in with hidden; expects the very same message back, with no allocation. */
static void check_unchanged(Message *in, const PropfilterCall *call, const char *const *hidden,
                            unsigned expected_questions) {
        TestRules rules = { .hidden = hidden };
        Message *out = NULL;
        unsigned before = n_allocations;

        assert_int_equal(propfilter_filter(in, call, testlib_visible, &rules, &out), 0);
        assert_int_equal(n_allocations, before);
        assert_ptr_equal(out, in);
        assert_int_equal(rules.n_calls, expected_questions);
        message_unref(out);
}

/* Filters in with hidden; expects a new message equal to expected (NULL: a drop). */
static void check_filtered(Message *in, const PropfilterCall *call, const char *const *hidden,
                           Message *expected) {
        TestRules rules = { .hidden = hidden };
        _cleanup_(message_unrefp) Message *out = NULL;
        int k = propfilter_filter(in, call, testlib_visible, &rules, &out);

        if (!expected) {
                assert_int_equal(k, PROPFILTER_E_DROP);
                assert_null(out);
                return;
        }
        assert_int_equal(k, 0);
        assert_ptr_not_equal(out, in);
        assert_same_header(in, out);
        assert_same_body(out, expected);
}

static void test_get_all(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *some = NULL, *none = NULL;

        assert_int_equal(testlib_get_all_reply("Name,Secret,Nested,Structs,Other", &in), 0);
        assert_int_equal(testlib_get_all_reply("Name,Nested,Other", &some), 0);
        assert_int_equal(testlib_get_all_reply("", &none), 0);
        check_unchanged(in, &get_all_call, HIDE("/org/ex|org.ex.Other|*"), 5);
        check_filtered(in, &get_all_call, HIDE("/org/ex|org.ex.Iface|Secret", "*|*|Structs"), some);
        check_filtered(in, &get_all_call, HIDE("*|*|*"), none);
}

static void test_get_all_first_and_last_hidden(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *middle = NULL;

        assert_int_equal(testlib_get_all_reply("A,B,C", &in), 0);
        assert_int_equal(testlib_get_all_reply("B", &middle), 0);
        check_filtered(in, &get_all_call, HIDE("*|*|A", "*|*|C"), middle);
}

static void test_get_all_empty_and_any_interface(void **state) {
        _cleanup_(message_unrefp) Message *empty = NULL, *in = NULL, *kept = NULL;
        const PropfilterCall any = {
                .kind = PROPFILTER_GET_ALL, .exact = true, .path = (char *) "/org/ex",
        };

        assert_int_equal(testlib_get_all_reply("", &empty), 0);
        check_unchanged(empty, &get_all_call, HIDE("*|*|*"), 0);
        /* GetAll(""): the questions name no interface. */
        assert_int_equal(testlib_get_all_reply("A,B", &in), 0);
        assert_int_equal(testlib_get_all_reply("B", &kept), 0);
        check_unchanged(in, &any, HIDE("*|org.ex.Iface|*"), 2);
        check_filtered(in, &any, HIDE("/org/ex|-|A"), kept);
}

static void test_nested_values_and_fds(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *kept = NULL;
        size_t n_fds;

        assert_int_equal(testlib_get_all_reply("Nested,Fd1,Big,Vv,Dict,Structs,Fd2", &in), 0);
        assert_int_equal(testlib_get_all_reply("Nested,Big,Vv,Dict,Fd2", &kept), 0);
        message_get_unix_fds(in, &n_fds);
        assert_int_equal(n_fds, 2);
        check_unchanged(in, &get_all_call, NULL, 7);
        check_filtered(in, &get_all_call, HIDE("*|*|Fd1", "*|*|Structs"), kept);
        /* The kept descriptor moved to index 0: the expected body says so too. */
        message_get_unix_fds(kept, &n_fds);
        assert_int_equal(n_fds, 1);
}

static void test_properties_changed(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *some = NULL, *inval = NULL, *empty = NULL;
        const char *iface = "org.ex.Iface";

        assert_int_equal(testlib_properties_changed("/o", iface, "A,Secret,Nested", "B,Secret2", &in), 0);
        assert_int_equal(testlib_properties_changed("/o", iface, "A,Nested", "B", &some), 0);
        assert_int_equal(testlib_properties_changed("/o", iface, "A,Secret,Nested", "B", &inval), 0);
        assert_int_equal(testlib_properties_changed("/o", iface, "", "", &empty), 0);
        check_unchanged(in, NULL, HIDE("/other|*|*", "/o|org.ex.Other|A"), 5);
        check_filtered(in, NULL, HIDE("/o|org.ex.Iface|Secret", "*|*|Secret2"), some);
        /* A hidden name only in the invalidated list. */
        check_filtered(in, NULL, HIDE("*|*|Secret2"), inval);
        check_filtered(in, NULL, HIDE("*|*|*"), NULL);
        /* Nothing to begin with is delivered as it is. */
        check_unchanged(empty, NULL, HIDE("*|*|*"), 0);
}

static void test_properties_changed_one_side_left(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *changed = NULL, *inval = NULL;

        assert_int_equal(testlib_properties_changed("/o", "org.ex.I", "A", "B", &in), 0);
        assert_int_equal(testlib_properties_changed("/o", "org.ex.I", "A", "", &changed), 0);
        assert_int_equal(testlib_properties_changed("/o", "org.ex.I", "", "B", &inval), 0);
        check_filtered(in, NULL, HIDE("*|*|B"), changed);
        check_filtered(in, NULL, HIDE("*|*|A"), inval);
}

static void test_properties_changed_bad_interface(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *kept = NULL;

        /* Not a valid interface name: asked as "every interface" (NULL). */
        assert_int_equal(testlib_properties_changed("/o", "not an interface", "A,B", "", &in), 0);
        assert_int_equal(testlib_properties_changed("/o", "not an interface", "B", "", &kept), 0);
        check_unchanged(in, NULL, HIDE("*|not an interface|*"), 2);
        check_filtered(in, NULL, HIDE("/o|-|A"), kept);
}

static void test_interfaces_added(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *some = NULL, *open_empty = NULL;
        _cleanup_(message_unrefp) Message *one = NULL;

        assert_int_equal(testlib_interfaces_added("/o",
                "org.ex.A=P,Q;org.ex.B=R,S;org.ex.C=", &in), 0);
        /* Q hidden; B's properties all hidden and B protected; C (no properties) protected. */
        assert_int_equal(testlib_interfaces_added("/o", "org.ex.A=P", &some), 0);
        /* B's properties all hidden but B itself open: B stays, empty. */
        assert_int_equal(testlib_interfaces_added("/o", "org.ex.A=P,Q;org.ex.B=;org.ex.C=", &open_empty), 0);
        assert_int_equal(testlib_interfaces_added("/o", "org.ex.C=", &one), 0);
        /* Every question: 4 properties and C's interface question. */
        check_unchanged(in, NULL, HIDE("/x|*|*"), 5);
        check_filtered(in, NULL, HIDE("*|*|Q", "*|org.ex.B|*", "*|org.ex.C|-"), some);
        check_filtered(in, NULL, HIDE("*|org.ex.B|R", "*|org.ex.B|S"), open_empty);
        check_filtered(in, NULL, HIDE("*|org.ex.A|*", "*|org.ex.B|*"), one);
        check_filtered(in, NULL, HIDE("*|*|*"), NULL);
}

static void test_interfaces_added_protected_but_visible(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *kept = NULL;

        /* A protected interface with one visible property stays, with that property. */
        assert_int_equal(testlib_interfaces_added("/o", "org.ex.A=P,Q", &in), 0);
        assert_int_equal(testlib_interfaces_added("/o", "org.ex.A=Q", &kept), 0);
        check_filtered(in, NULL, HIDE("*|org.ex.A|-", "*|*|P"), kept);
}

/* The only thing hidden is an interface without properties: the scan must see it. */
static void test_only_an_empty_interface_hidden(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *kept = NULL, *objects = NULL, *bare = NULL;

        assert_int_equal(testlib_interfaces_added("/o", "org.ex.A=P;org.ex.C=", &in), 0);
        assert_int_equal(testlib_interfaces_added("/o", "org.ex.A=P", &kept), 0);
        check_filtered(in, NULL, HIDE("*|org.ex.C|-"), kept);
        assert_int_equal(testlib_managed_objects_reply("/a:org.ex.A=P|/c:org.ex.C=", &objects), 0);
        assert_int_equal(testlib_managed_objects_reply("/a:org.ex.A=P", &bare), 0);
        check_filtered(objects, &managed_objects_call, HIDE("*|org.ex.C|-"), bare);
}

/*
 * InterfacesRemoved: the interface question (property NULL) for each name;
 * a protected interface is removed, none left is a drop, and an empty list
 * (or an invalid name, asked as "every interface") is judged like the rest.
 */
static void test_interfaces_removed(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *some = NULL, *empty = NULL, *bad = NULL,
                                          *bad_kept = NULL;

        assert_int_equal(testlib_interfaces_removed("/o", "org.ex.A,org.ex.B,org.ex.C", &in), 0);
        assert_int_equal(testlib_interfaces_removed("/o", "org.ex.A,org.ex.C", &some), 0);
        assert_int_equal(testlib_interfaces_removed("/o", "", &empty), 0);
        assert_int_equal(testlib_interfaces_removed("/o", "org.ex.A,not one", &bad), 0);
        assert_int_equal(testlib_interfaces_removed("/o", "org.ex.A", &bad_kept), 0);
        /* A hidden property of B is no question here: only the interface is asked. */
        check_unchanged(in, NULL, HIDE("/other|*|*", "*|org.ex.B|P"), 3);
        check_filtered(in, NULL, HIDE("/o|org.ex.B|-"), some);
        check_filtered(in, NULL, HIDE("*|*|-"), NULL);
        check_unchanged(empty, NULL, HIDE("*|*|*"), 0);
        check_filtered(bad, NULL, HIDE("*|-|-"), bad_kept);
}

static void test_managed_objects(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *some = NULL, *bare = NULL, *none = NULL;
        const char *objects = "/a:org.ex.A=P,Nested;org.ex.B=Q|/b:org.ex.B=Q,R|/c:|/d:org.ex.D=";

        assert_int_equal(testlib_managed_objects_reply(objects, &in), 0);
        /* /b loses its only interface, so /b goes; /c had none and stays. */
        assert_int_equal(testlib_managed_objects_reply("/a:org.ex.A=P,Nested|/c:|/d:org.ex.D=", &some), 0);
        assert_int_equal(testlib_managed_objects_reply("/c:", &bare), 0);
        assert_int_equal(testlib_managed_objects_reply("", &none), 0);
        check_unchanged(in, &managed_objects_call, HIDE("/z|*|*"), 6);
        check_filtered(in, &managed_objects_call, HIDE("*|org.ex.B|*"), some);
        check_filtered(in, &managed_objects_call, HIDE("*|*|*"), bare);
        check_unchanged(none, &managed_objects_call, HIDE("*|*|*"), 0);
}

static void test_managed_objects_per_path(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *kept = NULL;

        /* The same interface is protected at one path only. */
        assert_int_equal(testlib_managed_objects_reply("/a:org.ex.A=P|/b:org.ex.A=P", &in), 0);
        assert_int_equal(testlib_managed_objects_reply("/b:org.ex.A=P", &kept), 0);
        check_filtered(in, &managed_objects_call, HIDE("/a|org.ex.A|*"), kept);
}

/* Each question is asked once, the look-aheads and the rebuild replaying the answers. */
static void test_each_question_once(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *out = NULL;
        TestRules rules = { .hidden = HIDE("*|org.ex.B|*", "/a|org.ex.A|P") };

        assert_int_equal(testlib_managed_objects_reply(
                "/a:org.ex.A=P,Q;org.ex.B=R,S|/b:org.ex.B=T|/c:org.ex.A=U", &in), 0);
        assert_int_equal(propfilter_filter(in, &managed_objects_call, testlib_visible, &rules, &out), 0);
        /* 6 properties, and the interface question of B at /a and at /b. */
        assert_int_equal(rules.n_calls, 8);
        message_unref(in);
        message_unref(out);
        in = out = NULL;

        /*
         * The object's look-ahead asks about B (R, then B itself) before A
         * (P hidden too, then A itself, open) shows /a survives; writing /a
         * then replays all four.
         */
        rules.n_calls = 0;
        assert_int_equal(testlib_managed_objects_reply("/a:org.ex.B=R;org.ex.A=P", &in), 0);
        assert_int_equal(propfilter_filter(in, &managed_objects_call, testlib_visible, &rules, &out), 0);
        assert_int_equal(rules.n_calls, 4);
}

/* Builds "org.ex.A=P0,P1,..." over n properties, leaving out those hidden() names. */
static void many(char *buf, size_t size, unsigned n, bool (*hidden)(unsigned i)) {
        size_t len = (size_t) snprintf(buf, size, "org.ex.A=");
        bool first = true;

        for (unsigned i = 0; i < n; i++) {
                if (hidden && hidden(i))
                        continue;
                len += (size_t) snprintf(buf + len, size - len, "%sP%u", first ? "" : ",", i);
                first = false;
                assert_true(len < size);
        }
}

static bool every_97th(unsigned i) {
        return i % 97 == 50;
}

static bool all_but_last(unsigned i) {
        return i != PROPFILTER_ANSWERS_MAX + 99;
}

/* Past PROPFILTER_ANSWERS_MAX questions the answers are asked again, still right. */
static void test_many_properties(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *kept = NULL, *last = NULL;
        char all[8192], expected[8192];
        unsigned n = PROPFILTER_ANSWERS_MAX + 100;

        many(all, sizeof(all), n, NULL);
        many(expected, sizeof(expected), n, every_97th);
        assert_int_equal(testlib_interfaces_added("/o", all, &in), 0);
        assert_int_equal(testlib_interfaces_added("/o", expected, &kept), 0);
        check_filtered(in, NULL, HIDE("*|*|P50", "*|*|P147", "*|*|P244", "*|*|P341",
                                      "*|*|P438", "*|*|P535"), kept);

        /* A protected interface whose only visible property is the 612th. */
        many(expected, sizeof(expected), n, all_but_last);
        assert_int_equal(testlib_interfaces_added("/o", expected, &last), 0);
        check_filtered(in, NULL, HIDE("*|*|-", "*|*|P?", "*|*|P??", "*|*|P1??", "*|*|P2??",
                                      "*|*|P3??", "*|*|P4??", "*|*|P5??", "*|*|P60?", "*|*|P610"), last);
}

static void test_big_endian(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *expected = NULL;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        uint8_t buf[512];
        size_t n = testlib_big_endian_get_all(buf);
        uint32_t seven = 7;
        int32_t minus = -1;

        assert_int_equal(message_parse(buf, n, NULL, 0, &in), 0);
        assert_false(message_is_little_endian(in));
        check_unchanged(in, &get_all_call, HIDE("*|*|Other"), 3);

        assert_int_equal(message_builder_new(MESSAGE_METHOD_RETURN, &b), 0);
        assert_int_equal(message_builder_open(b, 'a', "{sv}"), 0);
        assert_int_equal(message_builder_open(b, '{', "sv"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "A"), 0);
        assert_int_equal(message_builder_open(b, 'v', "u"), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &seven), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_open(b, '{', "sv"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "Nested"), 0);
        assert_int_equal(message_builder_open(b, 'v', "a{sv}"), 0);
        assert_int_equal(message_builder_open(b, 'a', "{sv}"), 0);
        assert_int_equal(message_builder_open(b, '{', "sv"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "inner"), 0);
        assert_int_equal(message_builder_open(b, 'v', "i"), 0);
        assert_int_equal(message_builder_append_basic(b, 'i', &minus), 0);
        for (unsigned i = 0; i < 6; i++)
                assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_set_reply_serial(b, 3), 0);
        assert_int_equal(message_builder_finish(b, &expected), 0);
        check_filtered(in, &get_all_call, HIDE("*|*|Secret"), expected);
}

static Message *signal_with(const char *interface, const char *member, const char *body) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        Message *m = NULL;

        assert_int_equal(message_new_signal(":1.7", "/o", interface, member, &b), 0);
        if (strcmp(body, "s") == 0)
                assert_int_equal(message_builder_append_basic(b, 's', "org.ex.I"), 0);
        else if (strcmp(body, "sa{sv}") == 0) {
                assert_int_equal(message_builder_append_basic(b, 's', "org.ex.I"), 0);
                assert_int_equal(testlib_append_properties(b, "A"), 0);
        } else if (strcmp(body, "oa{sv}") == 0) {
                assert_int_equal(message_builder_append_basic(b, 'o', "/o"), 0);
                assert_int_equal(testlib_append_properties(b, "A"), 0);
        }
        assert_int_equal(message_builder_finish(b, &m), 0);
        return m;
}

static void check_malformed(Message *m, const PropfilterCall *call) {
        TestRules rules = { .hidden = HIDE("*|*|*") };
        Message *out = NULL;

        assert_int_equal(propfilter_filter(m, call, testlib_visible, &rules, &out), PROPFILTER_E_MALFORMED);
        assert_null(out);
        assert_int_equal(rules.n_calls, 0);
}

static void test_malformed(void **state) {
        const char *pc = "PropertiesChanged", *ia = "InterfacesAdded";
        const char *props = "org.freedesktop.DBus.Properties", *om = "org.freedesktop.DBus.ObjectManager";
        _cleanup_(message_unrefp) Message *a = signal_with(props, pc, "sa{sv}");
        _cleanup_(message_unrefp) Message *b = signal_with(props, pc, "");
        _cleanup_(message_unrefp) Message *c = signal_with(om, ia, "oa{sv}");
        _cleanup_(message_unrefp) Message *d = signal_with(om, ia, "s");
        _cleanup_(message_unrefp) Message *gmo_as_get_all = NULL, *get_all = NULL;

        check_malformed(a, NULL);       /* no invalidated list */
        check_malformed(b, NULL);       /* no body */
        check_malformed(c, NULL);
        check_malformed(d, NULL);
        assert_int_equal(testlib_managed_objects_reply("/a:org.ex.A=P", &gmo_as_get_all), 0);
        check_malformed(gmo_as_get_all, &get_all_call);
        assert_int_equal(testlib_get_all_reply("A", &get_all), 0);
        check_malformed(get_all, &managed_objects_call);
}

/* A truncated body never gets this far: message_parse() refuses it. */
static void test_truncated_never_parses(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL;
        uint8_t buf[512];
        size_t n = testlib_big_endian_get_all(buf);

        for (size_t cut = 1; cut < 40; cut++)
                assert_int_not_equal(message_parse(buf, n - cut, NULL, 0, &in), 0);
        assert_null(in);
}

/* A reply to a call that did not name the interface: only the right shape is filtered. */
static void test_inexact_call(void **state) {
        _cleanup_(message_unrefp) Message *other = NULL, *in = NULL, *kept = NULL;
        PropfilterCall inexact = get_all_call;

        inexact.exact = false;
        assert_int_equal(testlib_managed_objects_reply("/a:org.ex.A=P", &other), 0);
        check_unchanged(other, &inexact, HIDE("*|*|*"), 0);
        assert_int_equal(testlib_get_all_reply("A,B", &in), 0);
        assert_int_equal(testlib_get_all_reply("B", &kept), 0);
        check_filtered(in, &inexact, HIDE("*|*|A"), kept);
}

static void test_not_a_carrier(void **state) {
        _cleanup_(message_unrefp) Message *reply = NULL, *error = NULL, *sig = NULL;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;

        assert_int_equal(testlib_get_all_reply("A", &reply), 0);
        check_unchanged(reply, NULL, HIDE("*|*|*"), 0);         /* no call remembered */
        assert_int_equal(message_new_error(reply, ":1.7", "org.ex.Error", "no", &error), 0);
        check_unchanged(error, &get_all_call, HIDE("*|*|*"), 0);
        assert_int_equal(message_new_signal(":1.7", "/o", "org.ex.I", "PropertiesChanged", &b), 0);
        assert_int_equal(testlib_append_properties(b, "A"), 0);
        assert_int_equal(message_builder_finish(b, &sig), 0);
        check_unchanged(sig, NULL, HIDE("*|*|*"), 0);
        assert_int_equal(propfilter_classify(sig, NULL), PROPFILTER_NONE);
}

static void test_callback_failure(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL;

        assert_int_equal(testlib_managed_objects_reply("/a:org.ex.A=P,Q;org.ex.B=R|/b:org.ex.B=S", &in), 0);
        /* Failing in the scan, in a look-ahead, in the rebuild: an error, no message. */
        for (unsigned fail_at = 1; fail_at <= 7; fail_at++) {
                TestRules rules = { .hidden = HIDE("*|*|P", "*|org.ex.B|*"), .fail_at = fail_at };
                Message *out = NULL;
                int k = propfilter_filter(in, &managed_objects_call, testlib_visible, &rules, &out);

                if (rules.n_calls >= fail_at) {
                        assert_int_equal(k, -EIO);
                        assert_null(out);
                } else {
                        assert_int_equal(k, 0);
                        message_unref(out);
                }
        }
}

/* Every allocation of a rebuild failing in turn: -ENOMEM, nothing leaked (ASan), then success. */
static void test_allocation_failures(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *expected = NULL;
        const char *const *hidden = HIDE("*|*|Q", "*|org.ex.B|*");
        unsigned failed = 0;

        assert_int_equal(testlib_managed_objects_reply(
                "/a:org.ex.A=P,Q,Nested;org.ex.B=R|/b:org.ex.B=S|/c:org.ex.C=Fd", &in), 0);
        assert_int_equal(testlib_managed_objects_reply("/a:org.ex.A=P,Nested|/c:org.ex.C=Fd",
                                                       &expected), 0);
        for (unsigned at = 1;; at++) {
                TestRules rules = { .hidden = hidden };
                Message *out = NULL;
                int k;

                n_allocations = 0;
                fail_allocation = at;
                k = propfilter_filter(in, &managed_objects_call, testlib_visible, &rules, &out);
                fail_allocation = 0;
                if (k == 0) {
                        assert_same_body(out, expected);
                        message_unref(out);
                        break;
                }
                assert_int_equal(k, -ENOMEM);
                assert_null(out);
                failed++;
        }
        /* The rebuild's builder, its result and the filter's own: the builder keeps header names and a small body inline. */
        assert_true(failed >= 3);
}

static void test_bad_arguments(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL;
        PropfilterCall no_path = get_all_call;
        TestRules rules = {};
        Message *out = NULL;

        no_path.path = NULL;
        assert_int_equal(testlib_get_all_reply("A", &in), 0);
        assert_int_equal(propfilter_filter(in, &get_all_call, NULL, &rules, &out), -EINVAL);
        assert_int_equal(propfilter_filter(in, &get_all_call, testlib_visible, &rules, NULL), -EINVAL);
        assert_int_equal(propfilter_filter(in, &no_path, testlib_visible, &rules, &out), -EINVAL);
        assert_null(out);
}

static Message *call_with(const char *interface, const char *member, const char *argument) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        Message *m = NULL;

        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_path(b, "/org/ex"), 0);
        assert_int_equal(message_builder_set_interface(b, interface), 0);
        assert_int_equal(message_builder_set_member(b, member), 0);
        assert_int_equal(message_builder_set_destination(b, "org.ex"), 0);
        if (argument)
                assert_int_equal(message_builder_append_basic(b, 's', argument), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        return m;
}

static void check_call(const char *interface, const char *member, const char *argument,
                       PropfilterKind kind, bool exact, const char *expected_interface) {
        _cleanup_(message_unrefp) Message *m = call_with(interface, member, argument);
        _cleanup_(message_unrefp) Message *reply = NULL;
        PropfilterCall call;

        assert_int_equal(propfilter_call_init(&call, m), 0);
        assert_int_equal(call.kind, kind);
        if (kind != PROPFILTER_NONE)
                assert_int_equal(call.exact, exact);
        if (kind == PROPFILTER_GET_ALL) {
                assert_string_equal(call.path, "/org/ex");
                assert_same_string(call.interface, expected_interface);
        } else
                assert_null(call.path);
        assert_int_equal(testlib_get_all_reply("A", &reply), 0);
        assert_int_equal(propfilter_classify(reply, &call), kind);
        propfilter_call_deinit(&call);
        assert_int_equal(call.kind, PROPFILTER_NONE);
        assert_null(call.path);
}

static void test_call_init(void **state) {
        const char *props = "org.freedesktop.DBus.Properties", *om = "org.freedesktop.DBus.ObjectManager";
        PropfilterCall zero = {};

        check_call(props, "GetAll", "org.ex.Iface", PROPFILTER_GET_ALL, true, "org.ex.Iface");
        check_call(props, "GetAll", "", PROPFILTER_GET_ALL, true, NULL);
        check_call(props, "GetAll", "bad..name", PROPFILTER_GET_ALL, true, NULL);
        check_call(props, "GetAll", NULL, PROPFILTER_GET_ALL, true, NULL);
        check_call(NULL, "GetAll", "org.ex.Iface", PROPFILTER_GET_ALL, false, "org.ex.Iface");
        check_call("org.ex.Other", "GetAll", "org.ex.Iface", PROPFILTER_NONE, false, NULL);
        check_call(props, "Get", "org.ex.Iface", PROPFILTER_NONE, false, NULL);
        check_call(om, "GetManagedObjects", NULL, PROPFILTER_GET_MANAGED_OBJECTS, true, NULL);
        check_call(NULL, "GetManagedObjects", NULL, PROPFILTER_GET_MANAGED_OBJECTS, false, NULL);
        check_call(props, "GetManagedObjects", NULL, PROPFILTER_NONE, false, NULL);
        propfilter_call_deinit(&zero);
        propfilter_call_deinit(NULL);
}

static void test_classify_signals(void **state) {
        _cleanup_(message_unrefp) Message *pc = NULL, *ia = NULL, *ir = NULL;

        assert_int_equal(testlib_properties_changed("/o", "org.ex.I", "A", "", &pc), 0);
        assert_int_equal(testlib_interfaces_added("/o", "org.ex.I=A", &ia), 0);
        assert_int_equal(propfilter_classify(pc, NULL), PROPFILTER_PROPERTIES_CHANGED);
        assert_int_equal(propfilter_classify(pc, &get_all_call), PROPFILTER_PROPERTIES_CHANGED);
        assert_int_equal(propfilter_classify(ia, NULL), PROPFILTER_INTERFACES_ADDED);
        assert_int_equal(testlib_interfaces_removed("/o", "org.ex.I", &ir), 0);
        assert_int_equal(propfilter_classify(ir, NULL), PROPFILTER_INTERFACES_REMOVED);
}

/* The census (used by the fuzzer as its oracle) agrees with the filter's output. */
static void test_census_of_output(void **state) {
        _cleanup_(message_unrefp) Message *in = NULL, *out = NULL;
        TestRules rules = { .hidden = HIDE("*|*|Q", "*|org.ex.B|*") };
        TestCensus before, after;

        assert_int_equal(testlib_managed_objects_reply(
                "/a:org.ex.A=P,Q;org.ex.B=R|/b:org.ex.B=S|/c:org.ex.C=", &in), 0);
        assert_int_equal(testlib_census(in, PROPFILTER_GET_MANAGED_OBJECTS, NULL,
                                        testlib_visible, &rules, &before), 0);
        assert_int_equal(before.visible, 1);
        assert_int_equal(before.hidden, 3);
        assert_int_equal(before.interfaces, 4);
        assert_int_equal(before.objects, 3);
        assert_int_equal(propfilter_filter(in, &managed_objects_call, testlib_visible, &rules, &out), 0);
        assert_int_equal(testlib_census(out, PROPFILTER_GET_MANAGED_OBJECTS, NULL,
                                        testlib_visible, &rules, &after), 0);
        assert_int_equal(after.visible, 1);
        assert_int_equal(after.hidden, 0);
        assert_int_equal(after.interfaces, 2);
        assert_int_equal(after.empty_protected, 0);
        assert_int_equal(after.objects, 2);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_get_all),
                cmocka_unit_test(test_get_all_first_and_last_hidden),
                cmocka_unit_test(test_get_all_empty_and_any_interface),
                cmocka_unit_test(test_nested_values_and_fds),
                cmocka_unit_test(test_properties_changed),
                cmocka_unit_test(test_properties_changed_one_side_left),
                cmocka_unit_test(test_properties_changed_bad_interface),
                cmocka_unit_test(test_interfaces_added),
                cmocka_unit_test(test_interfaces_added_protected_but_visible),
                cmocka_unit_test(test_interfaces_removed),
                cmocka_unit_test(test_only_an_empty_interface_hidden),
                cmocka_unit_test(test_managed_objects),
                cmocka_unit_test(test_managed_objects_per_path),
                cmocka_unit_test(test_each_question_once),
                cmocka_unit_test(test_many_properties),
                cmocka_unit_test(test_big_endian),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_truncated_never_parses),
                cmocka_unit_test(test_inexact_call),
                cmocka_unit_test(test_not_a_carrier),
                cmocka_unit_test(test_callback_failure),
                cmocka_unit_test(test_allocation_failures),
                cmocka_unit_test(test_bad_arguments),
                cmocka_unit_test(test_call_init),
                cmocka_unit_test(test_classify_signals),
                cmocka_unit_test(test_census_of_output),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
