/*
 * mssf-broker's entry point: dbus-daemon's command line, start-up and
 * signals. The daemon (daemon.c) builds the bus and is the one place the
 * configuration is (re)loaded.
 *
 * Start-up order matters for a system bus: load the configuration (fail
 * before touching anything), check the --policy file is readable, bind
 * every address as the invoking user (root), fork if asked, write the
 * pid file, drop to <user>, print the address and pid, tell systemd we
 * are ready, then run. SIGTERM/SIGINT end the loop cleanly; SIGHUP and
 * ReloadConfig reload the configuration, keeping the old one when the new
 * one fails to load (logged). Signals arrive through a signalfd in the
 * loop, so no handler ever runs asynchronously.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>


#include "activate.h"
#include "bus.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "loop.h"
#include "notify.h"
#include "options.h"
#include "service-env.h"

/* Where mssf-policy writes the compiled MSSF policy (DESIGN: the default of --policy). */
#define MAIN_DEFAULT_POLICY "/var/lib/mssf/policy.db"

typedef struct MainSignals {
        Daemon *daemon;
        int fd;
        LoopSource source;
} MainSignals;

static int main_on_signal(LoopSource *source, uint32_t events, void *userdata) {
        MainSignals *signals = userdata;
        struct signalfd_siginfo info;

        while (read(signals->fd, &info, sizeof(info)) == sizeof(info)) {
                if (info.ssi_signo == SIGHUP)
                        (void) daemon_reload(signals->daemon);
                else if (info.ssi_signo == SIGCHLD)
                        bus_activation_reap(signals->daemon->bus);
                else
                        loop_exit(signals->daemon->bus->loop, 0);
        }
        return 0;
}

static int main_setup_signals(MainSignals *signals) {
        sigset_t mask;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigaddset(&mask, SIGCHLD);      /* activated services (activate.c reaps them) */
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return -errno;
        signal(SIGPIPE, SIG_IGN);
        signals->fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
        if (signals->fd < 0)
                return -errno;
        return loop_add_io(signals->daemon->bus->loop, &signals->source, signals->fd, EPOLLIN,
                           main_on_signal, signals);
}

/* systemd's watchdog (WatchdogSec=): ping at half the interval. */
typedef struct MainWatchdog {
        Loop *loop;
        Notify *notify;
        LoopTimer timer;
        uint64_t interval;      /* usec, 0: no watchdog */
} MainWatchdog;

static int main_on_watchdog(LoopTimer *timer, void *userdata) {
        MainWatchdog *watchdog = userdata;

        notify_watchdog(watchdog->notify);
        return loop_timer_arm(watchdog->loop, &watchdog->timer, loop_now() + watchdog->interval / 2);
}

static int main_setup_watchdog(MainWatchdog *watchdog, Loop *loop, Notify *notify) {
        *watchdog = (MainWatchdog) { .loop = loop, .notify = notify };
        loop_timer_init(&watchdog->timer, main_on_watchdog, watchdog);
        if (service_env_watchdog_usec(&watchdog->interval) <= 0 || watchdog->interval == 0)
                return 0;
        return loop_timer_arm(loop, &watchdog->timer, loop_now() + watchdog->interval / 2);
}

static void main_set_log_target(const Options *options, const BusConfig *config) {
        if (options->syslog_mode == OPTIONS_SYSLOG_NONE)
                log_set_target(LOG_TARGET_STDERR);
        else if (options->syslog_mode == OPTIONS_SYSLOG_BOTH)
                log_set_target(LOG_TARGET_BOTH);
        else if (options->syslog_mode == OPTIONS_SYSLOG_ONLY)
                log_set_target(LOG_TARGET_SYSTEM);
        else
                log_set_target(config->syslog ? LOG_TARGET_SYSTEM : LOG_TARGET_STDERR);
}

static int main_drop_privileges(const char *user) {
        struct passwd *pw;

        if (!user || geteuid() != 0)
                return 0;
        pw = getpwnam(user);
        if (!pw)
                return log_error_errno(ENOENT, "Could not get UID and GID for username \"%s\"", user);
        if (pw->pw_uid == 0)
                return 0;
        if (initgroups(user, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
                return log_error_errno(errno, "Failed to switch to user \"%s\"", user);
        return 0;
}

/*
 * Fork into the background. The parent waits until the child reports it
 * is ready (address and pid printed) through *ret_ready_fd, so whoever
 * started us can connect as soon as we return, as with dbus-daemon.
 */
static int main_daemonize(bool keep_umask, int *ret_ready_fd) {
        int ready[2], null_fd;
        pid_t pid;

        if (pipe2(ready, O_CLOEXEC) < 0)
                return log_error_errno(errno, "Failed to create a pipe");
        pid = fork();
        if (pid < 0)
                return log_error_errno(errno, "Failed to fork");
        if (pid > 0) {
                char byte;

                safe_close(ready[1]);
                _exit(read(ready[0], &byte, 1) == 1 ? 0 : 1);
        }
        safe_close(ready[0]);
        *ret_ready_fd = ready[1];
        setsid();
        if (!keep_umask)
                umask(022);
        if (chdir("/") < 0)
                return -errno;
        null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd >= 0) {
                dup2(null_fd, STDIN_FILENO);
                safe_close(null_fd);
        }
        return 0;
}

static int main_write_pidfile(const char *path) {
        FILE *f = fopen(path, "we");

        if (!f)
                return log_error_errno(errno, "Failed to write the pid file %s", path);
        fprintf(f, "%d\n", (int) getpid());
        fclose(f);
        return 0;
}

static void main_print(int fd, const char *text) {
        dprintf(fd, "%s\n", text);
}

static int main_start(Bus *bus, const Options *options, MainSignals *signals, const char **ret_pidfile) {
        const char *pidfile = options->nopidfile ? NULL : bus->config->pidfile;
        _cleanup_close_ int ready_fd = -1;
        char pid[32];
        int r;

        r = bus_listen(bus, options->address);
        if (r < 0)
                return r;
        if (options->fork_mode == OPTIONS_FORK_YES ||
            (options->fork_mode == OPTIONS_FORK_DEFAULT && bus->config->fork)) {
                r = main_daemonize(bus->config->keep_umask, &ready_fd);
                if (r < 0)
                        return r;
        }
        /* After the fork: a signalfd polls the signals of the process that added it to epoll. */
        r = main_setup_signals(signals);
        if (r < 0)
                return r;
        if (pidfile) {
                r = main_write_pidfile(pidfile);
                if (r < 0)
                        return r;
                *ret_pidfile = pidfile;
        }
        r = main_drop_privileges(bus->config->user);
        if (r < 0)
                return r;
        if (options->print_address_fd >= 0) {
                _cleanup_free_ char *addresses = NULL;

                r = bus_addresses(bus, &addresses);
                if (r < 0)
                        return r;
                main_print(options->print_address_fd, addresses);
        }
        snprintf(pid, sizeof(pid), "%d", (int) getpid());
        if (options->print_pid_fd >= 0)
                main_print(options->print_pid_fd, pid);
        if (ready_fd >= 0)
                (void) !write(ready_fd, "R", 1);
        notify_ready(&bus->notify);
        return 0;
}

/*
 * Every connection costs a socket and a pidfd: raise the soft fd limit to
 * the hard one, as dbus-daemon raises its own. Best effort.
 */
static void main_raise_fd_limit(void) {
        struct rlimit limit;

        if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
                limit.rlim_cur = limit.rlim_max;
                (void) setrlimit(RLIMIT_NOFILE, &limit);
        }
}

static int main_run(const Options *options) {
        _cleanup_(loop_freep) Loop *loop = NULL;
        _cleanup_(daemon_freep) Daemon *daemon = NULL;
        Bus *bus;
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        MainSignals signals = { .fd = -1 };
        MainWatchdog watchdog = {};
        ConfigError error = {};
        const char *pidfile = NULL;
        int r;

        r = bus_config_load(options->config_file, &config, &error);
        if (r != 0) {
                fprintf(stderr, "Failed to start message bus: %s\n",
                        error.message[0] ? error.message : strerror(r < 0 ? -r : EINVAL));
                return 1;
        }
        main_set_log_target(options, config);
        main_raise_fd_limit();
        r = loop_new(&loop);
        if (r == 0)
                r = daemon_new(loop, TAKE_PTR(config), &daemon);
        if (r < 0) {
                log_error_errno(r, "Failed to set up the bus");
                return 1;
        }
        bus = daemon->bus;
        daemon->config_path = strdup(options->config_file);
        daemon->policy_path = strdup(options->policy ? options->policy : MAIN_DEFAULT_POLICY);
        /* A compiled policy that exists but does not load stops the bus: it must not run blind. */
        if (!daemon->policy_path || bus_setup_security(bus, daemon->policy_path) < 0)
                return 1;
        bus->activation->systemd = options->systemd_activation;
        signals.daemon = daemon;
        /* Start-up failures are logged where they happen. */
        r = main_start(bus, options, &signals, &pidfile);
        if (r == 0)
                r = main_setup_watchdog(&watchdog, loop, &bus->notify);
        if (r == 0)
                daemon_watch_config(daemon);
        if (r == 0) {
                r = loop_run(loop);
                if (r < 0)
                        log_error_errno(r, "The bus failed");
        }
        notify_stopping(&bus->notify);
        if (watchdog.loop)
                loop_timer_disarm(loop, &watchdog.timer);
        if (pidfile)
                (void) unlink(pidfile);
        daemon_free(TAKE_PTR(daemon));
        safe_close(signals.fd);
        return r < 0 ? 1 : 0;
}

int main(int argc, char *argv[]) {
        Options options;
        int r;

        r = options_parse(argc, argv, &options);
        if (r != 0)
                return r == OPTIONS_E_EXIT ? 0 : 1;
        r = main_run(&options);
        options_deinit(&options);
        return r;
}
