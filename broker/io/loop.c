/*
 * The event loop: one epoll instance, one timerfd, one thread.
 *
 * Every fd the broker watches is a LoopSource embedded in its owner (a
 * listener, a connection, the signalfd); the loop never owns a source or
 * its fd. Timers are LoopTimers embedded in their owners (reply
 * timeouts, authentication deadlines), kept in a binary min-heap keyed by
 * deadline; the single timerfd is set no later than the earliest one
 * (loop_rearm says why it may be earlier), so any number of timers costs
 * one fd and O(log n) per arm or disarm and no allocation beyond the heap
 * array.
 *
 * Dispatch runs in batches: all ready events of one epoll_wait(), then the
 * expired timers, then the post callback. The post callback is where the
 * bus flushes output that was queued during the batch (many messages, one
 * writev) and frees connections that died during it; so a callback may
 * close a connection whose event is still pending in the same batch
 * without a use-after-free, as long as it defers the free to post.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>

#include "loop.h"

#define LOOP_BATCH 64

struct Loop {
        int epoll_fd;
        int timer_fd;
        LoopSource timer_source;
        uint64_t timer_armed_for;       /* deadline the timerfd is set to, 0: none */
        LoopTimer **heap;
        size_t n_heap;
        size_t heap_size;
        LoopPostFn post_fn;
        void *post_userdata;
        LoopPostFn pre_fn;
        void *pre_userdata;
        bool exiting;
        int exit_code;
};

uint64_t loop_now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

static int loop_on_timerfd(LoopSource *source, uint32_t events, void *userdata);

int loop_new(Loop **ret) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        int r;

        loop = calloc(1, sizeof(*loop));
        if (!loop)
                return -ENOMEM;
        loop->timer_fd = -1;
        loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        if (loop->epoll_fd < 0)
                return -errno;
        loop->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (loop->timer_fd < 0)
                return -errno;
        r = loop_add_io(loop, &loop->timer_source, loop->timer_fd, EPOLLIN,
                        loop_on_timerfd, loop);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(loop);
        return 0;
}

Loop *loop_free(Loop *loop) {
        if (!loop)
                return NULL;
        for (size_t i = 0; i < loop->n_heap; i++)
                loop->heap[i]->heap_index = LOOP_TIMER_IDLE;
        free(loop->heap);
        safe_close(loop->timer_fd);
        safe_close(loop->epoll_fd);
        free(loop);
        return NULL;
}

int loop_add_io(Loop *loop, LoopSource *source, int fd, uint32_t events,
                LoopIoFn fn, void *userdata) {
        struct epoll_event ev = { .events = events, .data.ptr = source };

        if (epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0)
                return -errno;
        *source = (LoopSource) {
                .fd = fd, .events = events, .fn = fn, .userdata = userdata, .added = true,
        };
        return 0;
}

int loop_modify_io(Loop *loop, LoopSource *source, uint32_t events) {
        struct epoll_event ev = { .events = events, .data.ptr = source };

        if (!source->added || source->events == events)
                return 0;
        if (epoll_ctl(loop->epoll_fd, EPOLL_CTL_MOD, source->fd, &ev) < 0)
                return -errno;
        source->events = events;
        return 0;
}

void loop_remove_io(Loop *loop, LoopSource *source) {
        if (!source->added)
                return;
        epoll_ctl(loop->epoll_fd, EPOLL_CTL_DEL, source->fd, NULL);
        source->added = false;
}

void loop_set_pre(Loop *loop, LoopPostFn fn, void *userdata) {
        loop->pre_fn = fn;
        loop->pre_userdata = userdata;
}

void loop_set_post(Loop *loop, LoopPostFn fn, void *userdata) {
        loop->post_fn = fn;
        loop->post_userdata = userdata;
}

void loop_exit(Loop *loop, int code) {
        loop->exiting = true;
        loop->exit_code = code;
}

/* Heap helpers: the heap orders timers by deadline, heap[0] is the earliest. */
static void loop_heap_swap(Loop *loop, size_t a, size_t b) {
        LoopTimer *t = loop->heap[a];

        loop->heap[a] = loop->heap[b];
        loop->heap[b] = t;
        loop->heap[a]->heap_index = a;
        loop->heap[b]->heap_index = b;
}

static void loop_heap_up(Loop *loop, size_t i) {
        while (i > 0) {
                size_t parent = (i - 1) / 2;

                if (loop->heap[parent]->deadline <= loop->heap[i]->deadline)
                        break;
                loop_heap_swap(loop, i, parent);
                i = parent;
        }
}

static void loop_heap_down(Loop *loop, size_t i) {
        for (;;) {
                size_t left = 2 * i + 1, right = left + 1, min = i;

                if (left < loop->n_heap && loop->heap[left]->deadline < loop->heap[min]->deadline)
                        min = left;
                if (right < loop->n_heap && loop->heap[right]->deadline < loop->heap[min]->deadline)
                        min = right;
                if (min == i)
                        break;
                loop_heap_swap(loop, i, min);
                i = min;
        }
}

/*
 * Point the timerfd at the earliest deadline, only ever earlier: a timerfd
 * set at or before the earliest deadline is left as it is, also when the
 * timer it was set for is gone, and is never disarmed. When it fires
 * early, loop_on_timerfd finds nothing due and sets it for the earliest
 * deadline then. Why: most timers go away long before they are due (a
 * connection's authentication deadline at its Hello, a reply timeout at
 * the reply), and moving the timerfd after each of them was two
 * timerfd_settime calls per connection out of about twenty; this costs at
 * most one early wakeup per deadline the timerfd was set for.
 */
static int loop_rearm(Loop *loop) {
        struct itimerspec its = {};
        uint64_t deadline = loop->n_heap > 0 ? loop->heap[0]->deadline : 0;

        if (deadline == 0 || (loop->timer_armed_for != 0 && loop->timer_armed_for <= deadline))
                return 0;
        /* 0 would disarm: a deadline in the past fires at once. */
        its.it_value.tv_sec = deadline / 1000000ULL;
        its.it_value.tv_nsec = (deadline % 1000000ULL) * 1000ULL;
        if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
                its.it_value.tv_nsec = 1;
        if (timerfd_settime(loop->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
                return -errno;
        loop->timer_armed_for = deadline;
        return 0;
}

void loop_timer_init(LoopTimer *timer, LoopTimerFn fn, void *userdata) {
        *timer = (LoopTimer) { .heap_index = LOOP_TIMER_IDLE, .fn = fn, .userdata = userdata };
}

int loop_timer_arm(Loop *loop, LoopTimer *timer, uint64_t deadline) {
        if (deadline == 0)
                deadline = 1;
        if (loop_timer_armed(timer)) {
                timer->deadline = deadline;
                loop_heap_up(loop, timer->heap_index);
                loop_heap_down(loop, timer->heap_index);
                return loop_rearm(loop);
        }
        if (loop->n_heap == loop->heap_size) {
                size_t size = loop->heap_size ? loop->heap_size * 2 : 64;
                LoopTimer **heap = realloc(loop->heap, size * sizeof(*heap));

                if (!heap)
                        return -ENOMEM;
                loop->heap = heap;
                loop->heap_size = size;
        }
        timer->deadline = deadline;
        timer->heap_index = loop->n_heap;
        loop->heap[loop->n_heap++] = timer;
        loop_heap_up(loop, timer->heap_index);
        return loop_rearm(loop);
}

void loop_timer_disarm(Loop *loop, LoopTimer *timer) {
        size_t i = timer->heap_index;

        if (!loop_timer_armed(timer))
                return;
        loop->n_heap--;
        if (i != loop->n_heap) {
                loop->heap[i] = loop->heap[loop->n_heap];
                loop->heap[i]->heap_index = i;
                loop_heap_up(loop, i);
                loop_heap_down(loop, loop->heap[i]->heap_index);
        }
        timer->heap_index = LOOP_TIMER_IDLE;
        (void) loop_rearm(loop);
}

static int loop_on_timerfd(LoopSource *source, uint32_t events, void *userdata) {
        Loop *loop = userdata;
        uint64_t expirations, now = loop_now();
        int r;

        (void) !read(loop->timer_fd, &expirations, sizeof(expirations));
        loop->timer_armed_for = 0;
        while (loop->n_heap > 0 && loop->heap[0]->deadline <= now) {
                LoopTimer *timer = loop->heap[0];

                loop_timer_disarm(loop, timer);
                r = timer->fn(timer, timer->userdata);
                if (r < 0)
                        return r;
        }
        return loop_rearm(loop);
}

int loop_iterate(Loop *loop, int timeout_msec) {
        struct epoll_event events[LOOP_BATCH];
        int n, r;

        n = epoll_wait(loop->epoll_fd, events, LOOP_BATCH, timeout_msec);
        if (n < 0)
                return errno == EINTR ? 0 : -errno;
        if (n > 0 && loop->pre_fn) {
                r = loop->pre_fn(loop, loop->pre_userdata);
                if (r < 0)
                        return r;
        }
        for (int i = 0; i < n; i++) {
                LoopSource *source = events[i].data.ptr;

                /* A callback earlier in the batch may have removed it. */
                if (!source->added)
                        continue;
                r = source->fn(source, events[i].events, source->userdata);
                if (r < 0)
                        return r;
        }
        if (loop->post_fn)
                return loop->post_fn(loop, loop->post_userdata);
        return 0;
}

int loop_run(Loop *loop) {
        int r;

        while (!loop->exiting) {
                r = loop_iterate(loop, -1);
                if (r < 0)
                        return r;
        }
        return loop->exit_code;
}
