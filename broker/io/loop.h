/* The single-threaded epoll event loop with timerfd-driven timers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

typedef struct Loop Loop;
typedef struct LoopSource LoopSource;
typedef struct LoopTimer LoopTimer;

/* Called with the epoll events of the source's fd; a negative return ends the loop. */
typedef int (*LoopIoFn)(LoopSource *source, uint32_t events, void *userdata);
/* Called once when the timer's deadline passed; the timer is disarmed already. */
typedef int (*LoopTimerFn)(LoopTimer *timer, void *userdata);
/* Called after every batch of dispatched events (flush queues, free the dead). */
typedef int (*LoopPostFn)(Loop *loop, void *userdata);

struct LoopSource {
        int fd;                 /* (not owned) */
        uint32_t events;
        LoopIoFn fn;
        void *userdata;
        bool added;
};

struct LoopTimer {
        uint64_t deadline;      /* CLOCK_MONOTONIC, usec */
        size_t heap_index;      /* LOOP_TIMER_IDLE when not armed */
        LoopTimerFn fn;
        void *userdata;
};

#define LOOP_TIMER_IDLE ((size_t) -1)

int loop_new(Loop **ret);
Loop *loop_free(Loop *loop);

int loop_add_io(Loop *loop, LoopSource *source, int fd, uint32_t events,
                LoopIoFn fn, void *userdata);
int loop_modify_io(Loop *loop, LoopSource *source, uint32_t events);
void loop_remove_io(Loop *loop, LoopSource *source);

void loop_timer_init(LoopTimer *timer, LoopTimerFn fn, void *userdata);
int loop_timer_arm(Loop *loop, LoopTimer *timer, uint64_t deadline);
void loop_timer_disarm(Loop *loop, LoopTimer *timer);
static inline bool loop_timer_armed(const LoopTimer *timer) {
        return timer->heap_index != LOOP_TIMER_IDLE;
}

void loop_set_post(Loop *loop, LoopPostFn fn, void *userdata);
/* Called once per batch of events, before the first callback (the Smack rule check). */
void loop_set_pre(Loop *loop, LoopPostFn fn, void *userdata);

/*
 * One batch: waits up to timeout_msec (-1: forever) for events, dispatches
 * them and the post callback. Returns 0, or a negative errno.
 */
int loop_iterate(Loop *loop, int timeout_msec);
/* Runs until loop_exit(); returns the exit code, or a negative errno. */
int loop_run(Loop *loop);
void loop_exit(Loop *loop, int code);

uint64_t loop_now(void);

DEFINE_CLEANUP(Loop *, loop_free)
