/* Asking the running system bus to reload its configuration and policy. */
#pragma once

enum {
        BUS_RELOAD_E_NO_BUS = 1,        /* no system bus is running: nothing to tell */
};

/*
 * org.freedesktop.DBus.ReloadConfig on the system bus
 * (DBUS_SYSTEM_BUS_ADDRESS when set). 0 when the bus reloaded,
 * BUS_RELOAD_E_NO_BUS when none answers at that address, -errno
 * otherwise. *ret_error (nullable) gets the D-Bus error message, if any.
 */
int bus_reload(char **ret_error);
