/* What the bus tells systemd (sd_notify): readiness, reloads, stopping, a status line. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "loop.h"

/* At most one STATUS= per this interval (usec), however often the counts change. */
#define NOTIFY_STATUS_INTERVAL_USEC 1000000ULL

/* The numbers the status line reports. */
typedef struct NotifyCounts {
        size_t n_connections;
        size_t n_names;
} NotifyCounts;

typedef void (*NotifyCountFn)(void *userdata, NotifyCounts *ret);

typedef struct Notify {
        Loop *loop;                     /* (not owned) */
        int fd;                         /* (owned) datagram socket, -1: no NOTIFY_SOCKET */
        struct sockaddr_un address;     /* NOTIFY_SOCKET's */
        socklen_t address_length;
        bool ready;                     /* READY=1 sent: STATUS= updates may follow */
        bool status_sent;
        NotifyCounts sent;              /* what the last STATUS= said */
        uint64_t sent_usec;             /* when (CLOCK_MONOTONIC) */
        LoopTimer timer;                /* the update a rate limit held back */
        NotifyCountFn count;
        void *userdata;
} Notify;

/*
 * Takes $NOTIFY_SOCKET and removes it from the environment, so that
 * activated services do not inherit it (as with dbus-daemon).
 */
void notify_init(Notify *notify, Loop *loop, NotifyCountFn count, void *userdata);
void notify_deinit(Notify *notify);

/* READY=1 with the first STATUS= (start-up, and the end of every reload). */
void notify_ready(Notify *notify);
/* RELOADING=1 with MONOTONIC_USEC=, as Type=notify-reload wants it. */
void notify_reloading(Notify *notify);
void notify_stopping(Notify *notify);
/* WATCHDOG=1 (main's watchdog timer). */
void notify_watchdog(Notify *notify);
/*
 * Called once per loop batch: sends STATUS= when the counts changed, at
 * most once per NOTIFY_STATUS_INTERVAL_USEC; a change held back is sent
 * by a timer, so the last state always gets out. O(1) when nothing changed.
 */
void notify_status_update(Notify *notify);
/* The status line for counts, e.g. "Processing requests: 3 connections, 1 name". */
void notify_format_status(const NotifyCounts *counts, char *buf, size_t size);
