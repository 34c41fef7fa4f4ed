/*
 * Telling the bus that policy.db changed.
 *
 * After a committed install the bus must load the new policy; the
 * broker (and dbus-daemon) reload on org.freedesktop.DBus.ReloadConfig.
 * sd-bus honours DBUS_SYSTEM_BUS_ADDRESS, so tests point it at their own
 * bus. A bus that is not running is not an error: it will read the new
 * file when it starts. This is the only step of an install that is not
 * undone on failure, which is why it runs after the commit.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

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
