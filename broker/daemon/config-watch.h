/* Reload on change: inotify on the configuration's <includedir>s and service directories. */
#pragma once

#include <stdint.h>

#include "loop.h"

typedef struct BusConfig BusConfig;

/* A change settles for this long (usec) before the reload: one reload per burst of writes. */
#define CONFIG_WATCH_SETTLE_USEC 50000ULL

/* The reload (main's: the same as SIGHUP). Its return value is ignored: a reload logs its own failure. */
typedef int (*ConfigWatchFn)(void *userdata);

typedef struct ConfigWatch {
        Loop *loop;             /* (not owned) */
        int fd;                 /* (owned) inotify, -1 when nothing is watched */
        LoopSource source;
        LoopTimer settle;       /* armed by the first event of a burst */
        ConfigWatchFn fn;
        void *userdata;
} ConfigWatch;

void config_watch_init(ConfigWatch *watch, Loop *loop, ConfigWatchFn fn, void *userdata);
void config_watch_deinit(ConfigWatch *watch);

/*
 * Watches what config names, replacing the previous watches: every
 * <includedir> and every service directory (those that exist), as
 * dbus-daemon does. A directory that cannot be watched is logged and
 * left out; the other watches stay.
 */
int config_watch_set(ConfigWatch *watch, const BusConfig *config);
