/*
 * daemon: one bus with its activation and its driver, wired together, and
 * the one place the configuration is (re)loaded (broker/daemon/, README.md).
 *
 * Direction, from the top floor down; each room uses only rooms below it:
 *   daemon/      start-up, options, reload on change; builds the others
 *   driver/      org.freedesktop.DBus and org.mssf.Broker1
 *   activation/  who starts what, and the calls waiting for it
 *   bus/         routing: one message in, copies out, or an error
 *   security/, busconfig/, mediation/, propfilter/, smack/
 *   io/          the loop, sockets, SASL, credentials, sd_notify, the journal
 *   registry/, wire/, config/
 * The bus calls up only through the BusHooks that this room gives it
 * (bus/bus-hooks.h).
 */
#pragma once

#include <stdbool.h>

#include "config-watch.h"
#include "macro.h"

typedef struct Bus Bus;
typedef struct BusConfig BusConfig;

typedef struct Daemon {
        Bus *bus;                       /* (owned) with its activation state */
        char *config_path;              /* (owned, nullable) what a reload reads; none: nothing to reload */
        char *policy_path;              /* (owned, nullable) --policy, named when a reload succeeds */
        ConfigWatch config_watch;       /* reload on change, once daemon_watch_config() armed it */
        bool watching_config;
} Daemon;

/* The bus for config (taken) on loop, with its activation state, its driver and its hooks. */
int daemon_new(Loop *loop, BusConfig *config, Daemon **ret);
Daemon *daemon_free(Daemon *daemon);

/*
 * SIGHUP, ReloadConfig (the bus's reload hook), or a change in a watched
 * directory: the configuration file again, framed for systemd by
 * RELOADING=1 and READY=1, the latter also when the new configuration
 * failed and the old one stays (logged; the result is then negative).
 */
int daemon_reload(Daemon *daemon);
/*
 * From now on, a change in a directory the configuration names
 * (<includedir>s, service directories) reloads as SIGHUP does, as with
 * dbus-daemon; each reload watches what its configuration names. Logs its
 * own failures.
 */
void daemon_watch_config(Daemon *daemon);

DEFINE_CLEANUP(Daemon *, daemon_free)
