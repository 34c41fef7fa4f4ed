/*
 * Reload on change, as dbus-daemon does on Linux: a package that drops a
 * file into /etc/dbus-1/system.d (or a .service file into a service
 * directory) is picked up without anyone sending SIGHUP.
 *
 * Directories are watched, not files: editors and package managers
 * replace a file by rename, which a watch on the file itself would miss.
 * The directories are dbus-daemon 1.14's: every <includedir> and every
 * service directory (not the main file's: an edit of system.conf itself
 * waits for SIGHUP or ReloadConfig, as there). The set is rebuilt from
 * each configuration that loads (config_watch_set), on a
 * fresh inotify descriptor, so a directory the new configuration no
 * longer names stops triggering reloads. Events are not interpreted:
 * any write, creation, removal or rename in a watched directory arms a
 * short settle timer, and the reload runs once when it fires, so a burst
 * of writes (an upgrade) costs one reload. What the reload reads is
 * validated there as from SIGHUP; a broken file keeps the old
 * configuration. No watch is a silent fallback: a directory that cannot
 * be watched is logged.
 */
#include "config-watch.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "macro.h"

#define CONFIG_WATCH_EVENTS (IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
                             IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

static int config_watch_on_settle(LoopTimer *timer, void *userdata) {
        ConfigWatch *watch = userdata;

        (void) timer;
        (void) watch->fn(watch->userdata);
        return 0;
}

static int config_watch_on_event(LoopSource *source, uint32_t events, void *userdata) {
        ConfigWatch *watch = userdata;
        char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

        (void) source;
        (void) events;
        /* Only the fact of a change matters: drain, then settle. */
        while (read(watch->fd, buffer, sizeof(buffer)) > 0)
                ;
        if (loop_timer_armed(&watch->settle))
                return 0;
        return loop_timer_arm(watch->loop, &watch->settle, loop_now() + CONFIG_WATCH_SETTLE_USEC);
}

void config_watch_init(ConfigWatch *watch, Loop *loop, ConfigWatchFn fn, void *userdata) {
        *watch = (ConfigWatch) { .loop = loop, .fd = -1, .fn = fn, .userdata = userdata };
        loop_timer_init(&watch->settle, config_watch_on_settle, watch);
}

static void config_watch_close(ConfigWatch *watch) {
        if (watch->fd < 0)
                return;
        loop_remove_io(watch->loop, &watch->source);
        watch->fd = safe_close(watch->fd);
}

/* Also for a zeroed, never initialised watch (bus_free() after a failed bus_new()). */
void config_watch_deinit(ConfigWatch *watch) {
        if (!watch->loop)
                return;
        loop_timer_disarm(watch->loop, &watch->settle);
        config_watch_close(watch);
}

/* A directory that does not exist is not an error: dbus-daemon skips it too. */
static void config_watch_add(int fd, const char *directory) {
        if (inotify_add_watch(fd, directory, CONFIG_WATCH_EVENTS) >= 0)
                return;
        if (errno != ENOENT && errno != ENOTDIR)
                log_warning_errno(errno, "Cannot watch %s for configuration changes", directory);
}

int config_watch_set(ConfigWatch *watch, const BusConfig *config) {
        _cleanup_close_ int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        int r;

        if (fd < 0)
                return log_warning_errno(errno, "Cannot watch the configuration for changes");
        for (size_t i = 0; i < config->n_includedirs; i++)
                config_watch_add(fd, config->includedirs[i]);
        for (size_t i = 0; i < config->n_servicedirs; i++)
                config_watch_add(fd, config->servicedirs[i]);
        config_watch_close(watch);
        r = loop_add_io(watch->loop, &watch->source, fd, EPOLLIN, config_watch_on_event, watch);
        if (r < 0)
                return log_warning_errno(-r, "Cannot watch the configuration for changes");
        watch->fd = TAKE_FD(fd);
        return 0;
}
