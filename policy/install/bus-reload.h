/* Asking the running system bus to reload its configuration and policy. */
#pragma once

#include <stdint.h>

enum {
        BUS_RELOAD_E_NO_BUS = 1,        /* no system bus is running: nothing to tell */
        BUS_RELOAD_E_TIMEOUT,           /* asked, but no answer in time (it may still reload) */
};

/*
 * org.freedesktop.DBus.ReloadConfig on the system bus
 * (DBUS_SYSTEM_BUS_ADDRESS when set). 0 when the bus reloaded,
 * BUS_RELOAD_E_NO_BUS when none answers at that address, -errno
 * otherwise. *ret_error (nullable) gets the D-Bus error message, if any.
 */
int bus_reload(char **ret_error);

/*
 * The same, waiting for the bus at most timeout_usec in all (connecting,
 * authenticating, the reply): for a caller that must never hang on a bus
 * that is stopped or overloaded (rpm's plugin, inside rpm). 0 when the
 * bus reloaded, BUS_RELOAD_E_NO_BUS, BUS_RELOAD_E_TIMEOUT, or -errno
 * (*ret_error as above).
 */
int bus_reload_within(uint64_t timeout_usec, char **ret_error);
