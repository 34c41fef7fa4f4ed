/*
 * The daemon: builds the bus, sets up its activation state, gives it the
 * driver and activation through its hooks, and reloads.
 *
 * A reload reads the configuration file first (one that does not load
 * changes nothing). Then, in this order: the bus's part (the policy and
 * every peer's view of it, all or nothing, then the configuration:
 * bus_reload()), activation's (the service directories again; a table
 * that does not load keeps the previous one), the directory watches, and
 * last ActivatableServicesChanged, which dbus-daemon sends after every
 * reload whatever changed.
 *
 * Trust: the configuration comes from root-owned files; a reload's
 * trigger (SIGHUP, ReloadConfig, inotify) carries nothing else.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "activate.h"
#include "bus-hooks.h"
#include "bus.h"
#include "config.h"
#include "daemon.h"
#include "driver.h"
#include "log.h"
#include "notify.h"

static int daemon_on_reload(Bus *bus) {
        return daemon_reload(bus->hooks_userdata);
}

static const BusHooks daemon_bus_hooks = {
        .hello = driver_hello,
        .driver_message = driver_dispatch,
        .name_changed = driver_emit_name_change,
        .activate = bus_activate,
        .activatable = bus_activation_knows,
        .peer_gone = bus_activation_forget_peer,
        .reload = daemon_on_reload,
};

static int daemon_on_config_changed(void *userdata) {
        return daemon_reload(userdata);
}

int daemon_new(Loop *loop, BusConfig *config, Daemon **ret) {
        _cleanup_(daemon_freep) Daemon *daemon = NULL;
        int r;

        daemon = calloc(1, sizeof(*daemon));
        if (!daemon) {
                bus_config_free(config);
                return -ENOMEM;
        }
        config_watch_init(&daemon->config_watch, loop, daemon_on_config_changed, daemon);
        r = bus_new(loop, config, &daemon_bus_hooks, daemon, &daemon->bus);
        if (r < 0)
                return r;
        r = bus_activation_init(daemon->bus);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(daemon);
        return 0;
}

Daemon *daemon_free(Daemon *daemon) {
        if (!daemon)
                return NULL;
        config_watch_deinit(&daemon->config_watch);
        if (daemon->bus)
                bus_activation_deinit(daemon->bus);
        bus_free(daemon->bus);
        free(daemon->config_path);
        free(daemon->policy_path);
        free(daemon);
        return NULL;
}

static int daemon_reload_config(Daemon *daemon) {
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        ConfigError error = {};
        Bus *bus = daemon->bus;
        int r;

        r = bus_config_load(daemon->config_path, &config, &error);
        if (r != 0) {
                log_error("Failed to reload the configuration, keeping the previous one: %s",
                          error.message[0] ? error.message : strerror(r < 0 ? -r : EINVAL));
                return r < 0 ? r : -EINVAL;
        }
        r = bus_reload(bus, TAKE_PTR(config));
        if (r < 0)
                return r;
        /* A table that does not load keeps the previous one (logged). */
        (void) bus_activation_reload(bus);
        if (daemon->watching_config)
                (void) config_watch_set(&daemon->config_watch, bus->config);
        /* As dbus-daemon: after every reload, whatever changed. */
        r = driver_emit_activatable_services_changed(bus);
        if (r < 0)
                log_warning_errno(r, "Failed to announce ActivatableServicesChanged");
        log_info("Reloaded the configuration from %s and the policy from %s", daemon->config_path,
                 daemon->policy_path);
        return 0;
}

/*
 * Every reload (SIGHUP, ReloadConfig, mssf-policy's request, a watched
 * directory) is framed for systemd by RELOADING=1 and READY=1, the latter
 * also when the new configuration failed and the old one stays: the bus
 * is serving again.
 */
int daemon_reload(Daemon *daemon) {
        int r;

        if (!daemon->config_path)
                return 0;
        notify_reloading(&daemon->bus->notify);
        r = daemon_reload_config(daemon);
        notify_ready(&daemon->bus->notify);
        return r;
}

void daemon_watch_config(Daemon *daemon) {
        daemon->watching_config = true;
        (void) config_watch_set(&daemon->config_watch, daemon->bus->config);
}
