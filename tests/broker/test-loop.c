/* Unit tests for the event loop (broker/io/loop.c): timers, io sources, the post phase. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop.h"

typedef struct Record {
        int order[16];
        size_t n;
} Record;

typedef struct TimerCase {
        LoopTimer timer;
        Record *record;
        int id;
} TimerCase;

static int on_timer(LoopTimer *timer, void *userdata) {
        TimerCase *t = userdata;

        assert_false(loop_timer_armed(timer));
        t->record->order[t->record->n++] = t->id;
        return 0;
}

static void run_until(Loop *loop, Record *record, size_t n) {
        for (int i = 0; i < 200 && record->n < n; i++)
                assert_int_equal(loop_iterate(loop, 10), 0);
}

static void test_timers_fire_in_deadline_order(void **state) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        Record record = {};
        TimerCase t[5];
        uint64_t now = loop_now();
        static const int delays_ms[5] = { 30, 10, 50, 20, 40 };

        assert_int_equal(loop_new(&loop), 0);
        for (int i = 0; i < 5; i++) {
                t[i] = (TimerCase) { .record = &record, .id = i };
                loop_timer_init(&t[i].timer, on_timer, &t[i]);
                assert_int_equal(loop_timer_arm(loop, &t[i].timer, now + delays_ms[i] * 1000ULL), 0);
        }
        run_until(loop, &record, 5);
        assert_int_equal(record.n, 5);
        assert_int_equal(record.order[0], 1);
        assert_int_equal(record.order[1], 3);
        assert_int_equal(record.order[2], 0);
        assert_int_equal(record.order[3], 4);
        assert_int_equal(record.order[4], 2);
        assert_true(loop_now() >= now + 50000);
}

static void test_disarm_and_rearm(void **state) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        Record record = {};
        TimerCase a = { .record = &record, .id = 1 }, b = { .record = &record, .id = 2 };
        uint64_t now = loop_now();

        assert_int_equal(loop_new(&loop), 0);
        loop_timer_init(&a.timer, on_timer, &a);
        loop_timer_init(&b.timer, on_timer, &b);
        assert_int_equal(loop_timer_arm(loop, &a.timer, now + 5000), 0);
        assert_int_equal(loop_timer_arm(loop, &b.timer, now + 10000), 0);
        loop_timer_disarm(loop, &a.timer);
        assert_false(loop_timer_armed(&a.timer));
        /* Moving b later than a new a: a fires first. */
        assert_int_equal(loop_timer_arm(loop, &b.timer, now + 30000), 0);
        assert_int_equal(loop_timer_arm(loop, &a.timer, now + 15000), 0);
        run_until(loop, &record, 2);
        assert_int_equal(record.n, 2);
        assert_int_equal(record.order[0], 1);
        assert_int_equal(record.order[1], 2);
        /* Disarming an idle timer is harmless. */
        loop_timer_disarm(loop, &a.timer);
}

/* A timerfd left set for a timer that went away fires early: nothing runs
 * then, and the timers still armed fire at their own deadlines. */
static void test_early_wakeup_runs_nothing(void **state) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        Record record = {};
        TimerCase a = { .record = &record, .id = 1 }, b = { .record = &record, .id = 2 };
        uint64_t now = loop_now(), fired;

        assert_int_equal(loop_new(&loop), 0);
        loop_timer_init(&a.timer, on_timer, &a);
        loop_timer_init(&b.timer, on_timer, &b);
        assert_int_equal(loop_timer_arm(loop, &a.timer, now + 5000), 0);
        loop_timer_disarm(loop, &a.timer);
        assert_int_equal(loop_timer_arm(loop, &b.timer, now + 40000), 0);
        for (int i = 0; i < 4; i++)
                assert_int_equal(loop_iterate(loop, 5), 0);
        assert_true(loop_now() >= now + 5000);
        assert_int_equal(record.n, 0);
        run_until(loop, &record, 1);
        fired = loop_now();
        assert_int_equal(record.n, 1);
        assert_int_equal(record.order[0], 2);
        assert_true(fired >= now + 40000);
        /* With nothing armed, the loop sleeps for its whole timeout. */
        now = loop_now();
        assert_int_equal(loop_iterate(loop, 20), 0);
        assert_true(loop_now() >= now + 15000);
        assert_int_equal(record.n, 1);
}

static void test_past_deadline_fires_at_once(void **state) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        Record record = {};
        TimerCase a = { .record = &record, .id = 7 };

        assert_int_equal(loop_new(&loop), 0);
        loop_timer_init(&a.timer, on_timer, &a);
        assert_int_equal(loop_timer_arm(loop, &a.timer, 1), 0);
        assert_int_equal(loop_iterate(loop, 1000), 0);
        assert_int_equal(record.n, 1);
}

typedef struct IoCase {
        Loop *loop;
        LoopSource source[2];
        int fds[2][2];
        int calls;
        int posts;
} IoCase;

/* The first source to fire removes the other one, whose event may be in the same batch. */
static int on_io(LoopSource *source, uint32_t events, void *userdata) {
        IoCase *c = userdata;
        LoopSource *other = source == &c->source[0] ? &c->source[1] : &c->source[0];

        assert_true(events & EPOLLIN);
        c->calls++;
        loop_remove_io(c->loop, other);
        loop_remove_io(c->loop, source);
        return 0;
}

static int on_post(Loop *loop, void *userdata) {
        IoCase *c = userdata;

        c->posts++;
        return 0;
}

static void test_removed_source_is_not_dispatched(void **state) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        IoCase c = {};

        assert_int_equal(loop_new(&loop), 0);
        c.loop = loop;
        loop_set_post(loop, on_post, &c);
        for (int i = 0; i < 2; i++) {
                assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c.fds[i]), 0);
                assert_int_equal(write(c.fds[i][1], "x", 1), 1);
                assert_int_equal(loop_add_io(loop, &c.source[i], c.fds[i][0], EPOLLIN, on_io, &c), 0);
        }
        assert_int_equal(loop_iterate(loop, 1000), 0);
        assert_int_equal(c.calls, 1);
        assert_int_equal(c.posts, 1);
        assert_int_equal(loop_iterate(loop, 0), 0);
        assert_int_equal(c.calls, 1);
        for (int i = 0; i < 2; i++) {
                close(c.fds[i][0]);
                close(c.fds[i][1]);
        }
}

static int on_exit_io(LoopSource *source, uint32_t events, void *userdata) {
        loop_exit(userdata, 42);
        return 0;
}

static void test_exit_code(void **state) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        LoopSource source;
        int fds[2];

        assert_int_equal(loop_new(&loop), 0);
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        assert_int_equal(write(fds[1], "x", 1), 1);
        assert_int_equal(loop_add_io(loop, &source, fds[0], EPOLLIN, on_exit_io, loop), 0);
        assert_int_equal(loop_run(loop), 42);
        close(fds[0]);
        close(fds[1]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_timers_fire_in_deadline_order),
                cmocka_unit_test(test_disarm_and_rearm),
                cmocka_unit_test(test_early_wakeup_runs_nothing),
                cmocka_unit_test(test_past_deadline_fires_at_once),
                cmocka_unit_test(test_removed_source_is_not_dispatched),
                cmocka_unit_test(test_exit_code),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
