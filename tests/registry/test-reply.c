/* Unit tests for reply.c: expected-once replies, quotas, disconnects, expiry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "reply.h"

typedef struct Fixture {
        ReplyRegistry *registry;
        ReplyOwner a, b, c;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        assert_non_null(f);
        assert_int_equal(reply_registry_new(&f->registry), 0);
        reply_owner_init(&f->a, f->registry, (struct Peer *)&f->a);
        reply_owner_init(&f->b, f->registry, (struct Peer *)&f->b);
        reply_owner_init(&f->c, f->registry, (struct Peer *)&f->c);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        reply_owner_deinit(&f->a);
        reply_owner_deinit(&f->b);
        reply_owner_deinit(&f->c);
        assert_int_equal(reply_registry_size(f->registry), 0);
        f->registry = reply_registry_free(f->registry);
        free(f);
        return 0;
}

static void test_expected_once(void **state) {
        Fixture *f = *state;

        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->b, 7, 100, 10), 0);
        /* Wrong callee, wrong caller, wrong serial: not expected, slot stays. */
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->c, 7), REPLY_E_NONE);
        assert_int_equal(reply_registry_take(f->registry, &f->b, &f->a, 7), REPLY_E_NONE);
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->b, 8), REPLY_E_NONE);
        assert_int_equal(reply_registry_size(f->registry), 1);
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->b, 7), 0);
        /* Exactly once. */
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->b, 7), REPLY_E_NONE);
        assert_int_equal(reply_registry_size(f->registry), 0);
        assert_int_equal(f->a.n_waiting, 0);
}

static void test_duplicate_and_quota(void **state) {
        Fixture *f = *state;

        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->b, 1, 100, 2), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->b, 1, 100, 2), REPLY_E_EXISTS);
        /* Same serial to another callee is a different call. */
        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->c, 1, 100, 2), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->c, 2, 100, 2), REPLY_E_QUOTA);
        /* The quota is the caller's: b may still call. */
        assert_int_equal(reply_registry_expect(f->registry, &f->b, &f->a, 1, 100, 2), 0);
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->c, 1), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->c, 2, 100, 2), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->c, &f->a, 9, 100, 0), REPLY_E_QUOTA);
}

static void test_callee_disconnect(void **state) {
        Fixture *f = *state;
        ReplyEvent ev;

        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->c, 1, 100, 10), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->b, &f->c, 5, 100, 10), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->b, 2, 100, 10), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->c, &f->a, 3, 100, 10), 0);

        assert_int_equal(reply_registry_pop_owed(&f->c, &ev), 0);
        assert_ptr_equal(ev.caller, &f->a);
        assert_ptr_equal(ev.callee, &f->c);
        assert_int_equal(ev.serial, 1);
        assert_int_equal(reply_registry_pop_owed(&f->c, &ev), 0);
        assert_ptr_equal(ev.caller, &f->b);
        assert_int_equal(ev.serial, 5);
        assert_int_equal(reply_registry_pop_owed(&f->c, &ev), REPLY_E_NONE);
        /* c's own call to a goes with c's deinit, without events. */
        reply_owner_deinit(&f->c);
        assert_int_equal(reply_registry_size(f->registry), 1);
        assert_int_equal(reply_registry_take(f->registry, &f->c, &f->a, 3), REPLY_E_NONE);
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->b, 2), 0);
        reply_owner_init(&f->c, f->registry, (struct Peer *)&f->c);
}

static void test_caller_disconnect(void **state) {
        Fixture *f = *state;
        ReplyEvent ev;

        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->b, 1, 100, 10), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->c, 2, 50, 10), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->b, &f->c, 3, 70, 10), 0);
        reply_owner_deinit(&f->a);
        assert_int_equal(reply_registry_size(f->registry), 1);
        assert_int_equal(reply_registry_pop_owed(&f->b, &ev), REPLY_E_NONE);
        uint64_t next = 0;
        assert_true(reply_registry_next_deadline(f->registry, &next));
        assert_int_equal(next, 70);
        reply_owner_init(&f->a, f->registry, (struct Peer *)&f->a);
}

static void test_expiry(void **state) {
        Fixture *f = *state;
        ReplyEvent ev;
        uint64_t next = 0;

        assert_false(reply_registry_next_deadline(f->registry, &next));
        assert_int_equal(reply_registry_pop_expired(f->registry, 1000, &ev), REPLY_E_NONE);

        /* Out-of-order deadlines come out sorted. */
        const uint64_t deadlines[] = { 300, 100, 200, 100, 400 };
        for (uint32_t i = 0; i < 5; i++)
                assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->b, i + 1,
                                                       deadlines[i], 10), 0);
        assert_true(reply_registry_next_deadline(f->registry, &next));
        assert_int_equal(next, 100);

        assert_int_equal(reply_registry_pop_expired(f->registry, 99, &ev), REPLY_E_NONE);
        assert_int_equal(reply_registry_pop_expired(f->registry, 250, &ev), 0);
        assert_int_equal(ev.serial, 2);
        assert_int_equal(reply_registry_pop_expired(f->registry, 250, &ev), 0);
        assert_int_equal(ev.serial, 4);
        assert_int_equal(reply_registry_pop_expired(f->registry, 250, &ev), 0);
        assert_int_equal(ev.serial, 3);
        assert_ptr_equal(ev.caller, &f->a);
        assert_ptr_equal(ev.callee, &f->b);
        assert_int_equal(reply_registry_pop_expired(f->registry, 250, &ev), REPLY_E_NONE);
        /* An expired call is no longer expected. */
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->b, 2), REPLY_E_NONE);
        assert_true(reply_registry_next_deadline(f->registry, &next));
        assert_int_equal(next, 300);
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->b, 1), 0);
        assert_true(reply_registry_next_deadline(f->registry, &next));
        assert_int_equal(next, 400);
        assert_int_equal(f->a.n_waiting, 1);
}

#define N_MODEL 20000

/* Many slots through growth and backward-shift deletion, against a plain array. */
/* The test's PropfilterCall deinit: frees what test_call() allocated, and counts. */
static unsigned n_deinit;

static void count_deinit(PropfilterCall *call) {
        n_deinit++;
        free(call->path);
        *call = (PropfilterCall) { .kind = PROPFILTER_NONE };
}

static PropfilterCall test_call(const char *path) {
        PropfilterCall call = { .kind = PROPFILTER_GET_ALL, .exact = true, .path = strdup(path) };

        assert_non_null(call.path);
        return call;
}

static void test_call_handed_back(void **state) {
        Fixture *f = *state;
        PropfilterCall call = test_call("/a"), taken = { .kind = PROPFILTER_NONE };

        n_deinit = 0;
        assert_int_equal(reply_registry_expect_call(f->registry, &f->a, &f->b, 7, 100, 10, &call,
                                                    count_deinit), 0);
        /* Moved in. */
        assert_int_equal(call.kind, PROPFILTER_NONE);
        assert_null(call.path);
        assert_int_equal(reply_registry_take_call(f->registry, &f->a, &f->c, 7, &taken), REPLY_E_NONE);
        assert_int_equal(taken.kind, PROPFILTER_NONE);
        assert_int_equal(reply_registry_take_call(f->registry, &f->a, &f->b, 7, &taken), 0);
        /* Moved out: the taker owns it, the registry did not drop it. */
        assert_int_equal(taken.kind, PROPFILTER_GET_ALL);
        assert_string_equal(taken.path, "/a");
        assert_int_equal(n_deinit, 0);
        count_deinit(&taken);

        /* A slot without a call hands back "nothing to filter". */
        taken = test_call("/stale");
        free(taken.path);
        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->b, 8, 100, 10), 0);
        assert_int_equal(reply_registry_take_call(f->registry, &f->a, &f->b, 8, &taken), 0);
        assert_int_equal(taken.kind, PROPFILTER_NONE);
        assert_null(taken.path);
}

/* Every other end of a slot drops its call: take, expiry, callee and caller disconnect. */
static void test_call_dropped(void **state) {
        Fixture *f = *state;
        PropfilterCall call;
        ReplyEvent event;

        n_deinit = 0;
        call = test_call("/take");
        assert_int_equal(reply_registry_expect_call(f->registry, &f->a, &f->b, 1, 100, 10, &call,
                                                    count_deinit), 0);
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->b, 1), 0);
        assert_int_equal(n_deinit, 1);

        call = test_call("/expire");
        assert_int_equal(reply_registry_expect_call(f->registry, &f->a, &f->b, 2, 100, 10, &call,
                                                    count_deinit), 0);
        assert_int_equal(reply_registry_pop_expired(f->registry, 100, &event), 0);
        assert_int_equal(event.serial, 2);
        assert_int_equal(n_deinit, 2);

        call = test_call("/owed");
        assert_int_equal(reply_registry_expect_call(f->registry, &f->a, &f->b, 3, 100, 10, &call,
                                                    count_deinit), 0);
        assert_int_equal(reply_registry_pop_owed(&f->b, &event), 0);
        assert_int_equal(n_deinit, 3);

        call = test_call("/waiting");
        assert_int_equal(reply_registry_expect_call(f->registry, &f->a, &f->c, 4, 100, 10, &call,
                                                    count_deinit), 0);
        call = test_call("/owing");
        assert_int_equal(reply_registry_expect_call(f->registry, &f->c, &f->a, 5, 100, 10, &call,
                                                    count_deinit), 0);
        reply_owner_deinit(&f->a);
        assert_int_equal(n_deinit, 5);
        assert_int_equal(reply_registry_size(f->registry), 0);
        reply_owner_init(&f->a, f->registry, (struct Peer *)&f->a);
}

/* When the slot is refused the call stays the caller's. */
static void test_call_refused(void **state) {
        Fixture *f = *state;
        PropfilterCall call = test_call("/x");

        n_deinit = 0;
        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->b, 1, 100, 1), 0);
        assert_int_equal(reply_registry_expect_call(f->registry, &f->a, &f->b, 1, 100, 10, &call,
                                                    count_deinit), REPLY_E_EXISTS);
        assert_string_equal(call.path, "/x");
        assert_int_equal(reply_registry_expect_call(f->registry, &f->a, &f->b, 2, 100, 1, &call,
                                                    count_deinit), REPLY_E_QUOTA);
        assert_string_equal(call.path, "/x");
        assert_int_equal(n_deinit, 0);
        count_deinit(&call);
        /* The older slot carried no call: taking it drops nothing. */
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->b, 1), 0);
        assert_int_equal(n_deinit, 1);
}

static void test_many(void **state) {
        Fixture *f = *state;
        static unsigned char live[N_MODEL];
        unsigned seed = 1;

        memset(live, 0, sizeof(live));
        for (int round = 0; round < 4 * N_MODEL; round++) {
                seed = seed * 1103515245u + 12345u;
                uint32_t serial = (seed >> 8) % N_MODEL;
                ReplyOwner *callee = (serial & 1) ? &f->b : &f->c;

                if (live[serial]) {
                        assert_int_equal(reply_registry_take(f->registry, &f->a, callee, serial), 0);
                        live[serial] = 0;
                } else {
                        assert_int_equal(reply_registry_expect(f->registry, &f->a, callee, serial,
                                                               round, SIZE_MAX), 0);
                        live[serial] = 1;
                }
        }
        size_t n = 0;
        for (uint32_t s = 0; s < N_MODEL; s++) {
                ReplyOwner *callee = (s & 1) ? &f->b : &f->c;
                int r = reply_registry_expect(f->registry, &f->a, callee, s, 0, SIZE_MAX);
                if (live[s]) {
                        assert_int_equal(r, REPLY_E_EXISTS);
                        n++;
                } else {
                        assert_int_equal(r, 0);
                        assert_int_equal(reply_registry_take(f->registry, &f->a, callee, s), 0);
                }
        }
        assert_int_equal(reply_registry_size(f->registry), n);
        assert_int_equal(f->a.n_waiting, n);
}

/* A tally counts the replies several callers wait for, through every end of a slot. */
static void test_tally(void **state) {
        Fixture *f = *state;
        ReplyEvent ev;
        size_t tally = 0;

        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->b, 1, 100, 10), 0);
        reply_owner_set_tally(&f->a, &tally);
        reply_owner_set_tally(&f->c, &tally);
        assert_int_equal(tally, 1);
        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->b, 2, 200, 10), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->c, &f->b, 3, 50, 10), 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->b, &f->a, 4, 300, 10), 0);    /* b: not in it */
        assert_int_equal(tally, 3);
        assert_int_equal(reply_registry_take(f->registry, &f->a, &f->b, 1), 0);
        assert_int_equal(tally, 2);
        assert_int_equal(reply_registry_pop_expired(f->registry, 60, &ev), 0);  /* c's, serial 3 */
        assert_int_equal(tally, 1);
        assert_int_equal(reply_registry_pop_owed(&f->b, &ev), 0);               /* a's, serial 2 */
        assert_int_equal(tally, 0);
        assert_int_equal(reply_registry_expect(f->registry, &f->a, &f->c, 5, 100, 10), 0);
        assert_int_equal(tally, 1);
        reply_owner_deinit(&f->a);
        assert_int_equal(tally, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_expected_once, setup, teardown),
                cmocka_unit_test_setup_teardown(test_tally, setup, teardown),
                cmocka_unit_test_setup_teardown(test_duplicate_and_quota, setup, teardown),
                cmocka_unit_test_setup_teardown(test_callee_disconnect, setup, teardown),
                cmocka_unit_test_setup_teardown(test_caller_disconnect, setup, teardown),
                cmocka_unit_test_setup_teardown(test_expiry, setup, teardown),
                cmocka_unit_test_setup_teardown(test_many, setup, teardown),
                cmocka_unit_test_setup_teardown(test_call_handed_back, setup, teardown),
                cmocka_unit_test_setup_teardown(test_call_dropped, setup, teardown),
                cmocka_unit_test_setup_teardown(test_call_refused, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
