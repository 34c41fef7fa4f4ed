/*
 * Telling the bus that policy.db changed.
 *
 * After a committed install the bus must load the new policy; the
 * broker (and dbus-daemon) reload on org.freedesktop.DBus.ReloadConfig.
 * sd-bus honours DBUS_SYSTEM_BUS_ADDRESS, so tests point it at their own
 * bus. A bus that is not running is not an error: it will read the new
 * file when it starts. This is the only step of an install that is not
 * undone on failure, which is why it runs after the commit.
 *
 * bus_reload_within() is for a caller inside another program's critical
 * path (rpm): it drives the connection itself against a deadline, since
 * sd-bus would wait for a stopped bus's authentication for much longer
 * than any method call timeout.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

#include "bus-reload.h"
#include "macro.h"

static bool errno_means_no_bus(int r) {
        return r == -ENOENT || r == -ECONNREFUSED || r == -ENOTCONN || r == -ECONNRESET ||
               r == -EHOSTDOWN || r == -ENXIO;
}

int bus_reload(char **ret_error) {
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0)
                return errno_means_no_bus(r) ? BUS_RELOAD_E_NO_BUS : r;
        r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                               "org.freedesktop.DBus", "ReloadConfig", &error, &reply, "");
        if (r < 0) {
                if (errno_means_no_bus(r) && !sd_bus_error_is_set(&error))
                        r = BUS_RELOAD_E_NO_BUS;
                else if (ret_error && error.message)
                        *ret_error = strdup(error.message);
        }
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        /* sd_bus_call_method() returns 1 on success. */
        return r < 0 ? r : 0;
}

typedef struct ReloadCall {
        bool done;
        int r;
        char *error;
} ReloadCall;

static int reload_replied(sd_bus_message *reply, void *userdata, sd_bus_error *unused) {
        ReloadCall *call = userdata;
        const sd_bus_error *error = sd_bus_message_get_error(reply);

        (void) unused;
        call->done = true;
        if (!error)
                return 0;
        call->r = -sd_bus_error_get_errno(error);
        if (call->r == 0)
                call->r = -EIO;
        if (error->message)
                call->error = strdup(error->message);
        return 0;
}

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

int bus_reload_within(uint64_t timeout_usec, char **ret_error) {
        uint64_t deadline = now_usec() + timeout_usec;
        ReloadCall call = {};
        sd_bus_slot *slot = NULL;
        sd_bus *bus = NULL;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0)
                return errno_means_no_bus(r) ? BUS_RELOAD_E_NO_BUS : r;
        r = sd_bus_call_method_async(bus, &slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus", "ReloadConfig", reload_replied, &call,
                                     "");
        while (r >= 0 && !call.done) {
                uint64_t t;

                r = sd_bus_process(bus, NULL);
                if (r != 0)
                        continue;
                t = now_usec();
                if (t >= deadline) {
                        r = BUS_RELOAD_E_TIMEOUT;
                        break;
                }
                r = sd_bus_wait(bus, deadline - t);
        }
        if (r >= 0 && r != BUS_RELOAD_E_TIMEOUT)
                r = call.r;
        if (r < 0 && errno_means_no_bus(r) && !call.error)
                r = BUS_RELOAD_E_NO_BUS;
        if (ret_error && call.error)
                *ret_error = TAKE_PTR(call.error);
        free(call.error);
        sd_bus_slot_unref(slot);
        /* Closed, not flushed: flushing is what could wait. */
        sd_bus_close_unref(bus);
        return r;
}
