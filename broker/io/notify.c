/*
 * The service manager's view of the bus (sd_notify).
 *
 * systemd learns from us when the bus is ready (READY=1: only then are
 * the units ordered after dbus.socket's service started), when it is
 * reloading (RELOADING=1 with MONOTONIC_USEC=, so `systemctl reload`
 * under Type=notify-reload waits for the matching READY=1), and when it
 * is stopping (STOPPING=1). dbus-daemon sends the same three; we also
 * send STATUS= with a one-line summary that `systemctl status` shows.
 *
 * The status must never cost a datagram per message: the counts are read
 * in O(1) after every loop batch, and a changed line goes out at most once
 * per NOTIFY_STATUS_INTERVAL_USEC. A change held back arms a one-shot
 * timer for the end of the interval, so the last state is always reported
 * and an idle bus is never woken up for nothing.
 *
 * The address is read once, at start-up, and NOTIFY_SOCKET leaves
 * the environment then: an activated service that inherited it would
 * talk to systemd in the bus's name (dbus-daemon does not pass it on
 * either). So the datagrams are sent here, not with sd_notify(), which
 * reads the variable every time; the protocol is one datagram of
 * newline-separated assignments, the sender known to systemd by its
 * credentials. Without NOTIFY_SOCKET (started by hand, or by a test) all
 * of this is a test of fd. Failing to notify is not an error of the bus:
 * systemd then times the start out or kills us, which is its decision.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "notify.h"

static int notify_on_timer(LoopTimer *timer, void *userdata);

/* NOTIFY_SOCKET's address ("/path" or "@abstract") and a socket to send to it. */
static void notify_open(Notify *notify, const char *address) {
        size_t length = address ? strlen(address) : 0;

        if (length == 0 || length >= sizeof(notify->address.sun_path) || (address[0] != '/' && address[0] != '@'))
                return;
        notify->address.sun_family = AF_UNIX;
        memcpy(notify->address.sun_path, address, length);
        if (address[0] == '@')
                notify->address.sun_path[0] = '\0';
        notify->address_length = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + length);
        notify->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

void notify_init(Notify *notify, Loop *loop, NotifyCountFn count, void *userdata) {
        *notify = (Notify) {
                .loop = loop,
                .fd = -1,
                .count = count,
                .userdata = userdata,
        };
        notify_open(notify, getenv("NOTIFY_SOCKET"));
        (void) unsetenv("NOTIFY_SOCKET");
        loop_timer_init(&notify->timer, notify_on_timer, notify);
}

void notify_deinit(Notify *notify) {
        if (!notify->loop)
                return;         /* never initialised (bus_new failed before) */
        loop_timer_disarm(notify->loop, &notify->timer);
        notify->fd = safe_close(notify->fd);
}

/* One datagram; not connected, so a socket systemd re-created is still found. */
static void notify_sendto(Notify *notify, const char *text) {
        (void) !sendto(notify->fd, text, strlen(text), MSG_NOSIGNAL | MSG_DONTWAIT,
                       (const struct sockaddr *) &notify->address, notify->address_length);
}

static const char *notify_plural(size_t n, const char *one, const char *many) {
        return n == 1 ? one : many;
}

void notify_format_status(const NotifyCounts *counts, char *buf, size_t size) {
        snprintf(buf, size, "Processing requests: %zu %s, %zu %s", counts->n_connections,
                 notify_plural(counts->n_connections, "connection", "connections"), counts->n_names,
                 notify_plural(counts->n_names, "name", "names"));
}

/* Sends text, with STATUS= for the current counts appended when with_status. */
static void notify_send(Notify *notify, const char *text, bool with_status) {
        char message[256], status[128];
        NotifyCounts counts = {};

        if (notify->fd < 0)
                return;
        if (!with_status) {
                notify_sendto(notify, text);
                return;
        }
        notify->count(notify->userdata, &counts);
        notify_format_status(&counts, status, sizeof(status));
        snprintf(message, sizeof(message), "%s%sSTATUS=%s", text, text[0] ? "\n" : "", status);
        notify_sendto(notify, message);
        notify->sent = counts;
        notify->sent_usec = loop_now();
        notify->status_sent = true;
        loop_timer_disarm(notify->loop, &notify->timer);
}

void notify_ready(Notify *notify) {
        notify->ready = true;
        notify_send(notify, "READY=1", true);
}

void notify_reloading(Notify *notify) {
        char message[64];
        struct timespec now;

        clock_gettime(CLOCK_MONOTONIC, &now);
        snprintf(message, sizeof(message), "RELOADING=1\nMONOTONIC_USEC=%llu",
                 (unsigned long long) now.tv_sec * 1000000ULL +
                 (unsigned long long) now.tv_nsec / 1000ULL);
        notify_send(notify, message, false);
}

void notify_stopping(Notify *notify) {
        notify->ready = false;
        notify_send(notify, "STOPPING=1", false);
        loop_timer_disarm(notify->loop, &notify->timer);
}

void notify_watchdog(Notify *notify) {
        notify_send(notify, "WATCHDOG=1", false);
}

static bool notify_counts_changed(Notify *notify) {
        NotifyCounts counts = {};

        notify->count(notify->userdata, &counts);
        return !notify->status_sent || counts.n_connections != notify->sent.n_connections ||
               counts.n_names != notify->sent.n_names;
}

void notify_status_update(Notify *notify) {
        uint64_t due;

        if (notify->fd < 0 || !notify->ready || loop_timer_armed(&notify->timer) ||
            !notify_counts_changed(notify))
                return;
        due = notify->sent_usec + NOTIFY_STATUS_INTERVAL_USEC;
        if (loop_now() >= due)
                notify_send(notify, "", true);
        else
                (void) loop_timer_arm(notify->loop, &notify->timer, due);
}

static int notify_on_timer(LoopTimer *timer, void *userdata) {
        Notify *notify = userdata;

        if (notify->ready && notify_counts_changed(notify))
                notify_send(notify, "", true);
        return 0;
}
