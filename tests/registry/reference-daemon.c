/*
 * A private reference dbus-daemon for the differential tests: a temporary
 * directory holds its configuration and socket; it runs until stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reference-daemon.h"

bool reference_daemon_available(void) {
        return access(REFERENCE_DAEMON, X_OK) == 0;
}

static int write_config(ReferenceDaemon *daemon, int max_names, int max_match_rules) {
        FILE *f = fopen(daemon->config, "w");
        if (!f)
                return -errno;
        fprintf(f, "<busconfig><type>session</type><listen>unix:dir=%s</listen>"
                   "<auth>EXTERNAL</auth><policy context=\"default\">"
                   "<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/>"
                   "<allow own=\"*\"/></policy>"
                   "<limit name=\"max_names_per_connection\">%d</limit>"
                   "<limit name=\"max_match_rules_per_connection\">%d</limit></busconfig>\n",
                daemon->dir, max_names, max_match_rules);
        return fclose(f) == 0 ? 0 : -errno;
}

int reference_daemon_start(ReferenceDaemon *daemon, int max_names, int max_match_rules) {
        char config_arg[160], fd_arg[32];
        int fds[2], r;

        memset(daemon, 0, sizeof(*daemon));
        snprintf(daemon->dir, sizeof(daemon->dir), "/tmp/registry-reference.XXXXXX");
        if (!mkdtemp(daemon->dir))
                return -errno;
        snprintf(daemon->config, sizeof(daemon->config), "%s/bus.conf", daemon->dir);
        r = write_config(daemon, max_names, max_match_rules);
        if (r < 0)
                return r;
        if (pipe(fds) < 0)
                return -errno;

        daemon->pid = fork();
        if (daemon->pid < 0)
                return -errno;
        if (daemon->pid == 0) {
                /* Its warnings (LimitsExceeded, fd limits) are expected noise here. */
                int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (null_fd >= 0)
                        dup2(null_fd, STDERR_FILENO);
                close(fds[0]);
                snprintf(config_arg, sizeof(config_arg), "--config-file=%s", daemon->config);
                snprintf(fd_arg, sizeof(fd_arg), "--print-address=%d", fds[1]);
                execl(REFERENCE_DAEMON, REFERENCE_DAEMON, "--nofork", "--nopidfile", fd_arg, config_arg,
                      (char *)NULL);
                _exit(127);
        }
        close(fds[1]);
        ssize_t n = read(fds[0], daemon->address, sizeof(daemon->address) - 1);
        close(fds[0]);
        if (n <= 0) {
                reference_daemon_stop(daemon);
                return -EIO;
        }
        daemon->address[n] = '\0';
        daemon->address[strcspn(daemon->address, "\n")] = '\0';
        return 0;
}

void reference_daemon_stop(ReferenceDaemon *daemon) {
        if (daemon->pid > 0) {
                kill(daemon->pid, SIGTERM);
                waitpid(daemon->pid, NULL, 0);
                daemon->pid = 0;
        }
        unlink(daemon->config);
        rmdir(daemon->dir);
}

DBusConnection *reference_daemon_connect(const ReferenceDaemon *daemon) {
        DBusError error;

        dbus_error_init(&error);
        DBusConnection *conn = dbus_connection_open_private(daemon->address, &error);
        if (conn && !dbus_bus_register(conn, &error)) {
                reference_daemon_disconnect(conn);
                conn = NULL;
        }
        if (!conn)
                fprintf(stderr, "connecting to %s: %s\n", daemon->address, error.message);
        dbus_error_free(&error);
        return conn;
}

void reference_daemon_disconnect(DBusConnection *conn) {
        if (!conn)
                return;
        dbus_connection_close(conn);
        dbus_connection_unref(conn);
}
