/*
 * test-dbus-daemon: the reference. Runs the real dbus-daemon on every
 * invalid fixture: it must refuse each one too, and, unless the case lists
 * a deliberate deviation, print the very message we print (without our
 * "file:line:" prefix, which dbus-daemon does not give). Skipped when
 * dbus-daemon is not installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "invalid-cases.h"

#define DBUS_DAEMON "/usr/bin/dbus-daemon"

extern char **environ;

/* Reads fd to EOF or for at most five seconds. */
static size_t read_output(int fd, char *buf, size_t size) {
        time_t deadline = time(NULL) + 5;
        size_t n = 0;

        while (n + 1 < size && time(NULL) < deadline) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                ssize_t k;

                if (poll(&p, 1, 1000) <= 0)
                        continue;
                k = read(fd, buf + n, size - 1 - n);
                if (k <= 0)
                        break;
                n += (size_t)k;
        }
        buf[n] = '\0';
        return n;
}

/* Runs dbus-daemon on path; returns its exit status, -1 if it had to be killed. */
static int run_dbus_daemon(const char *path, char *out, size_t size) {
        char config_arg[1024];
        char *argv[] = { (char *)DBUS_DAEMON, config_arg, (char *)"--nofork", (char *)"--nopidfile", NULL };
        posix_spawn_file_actions_t actions;
        int pipefd[2], status;
        pid_t pid;

        snprintf(config_arg, sizeof(config_arg), "--config-file=%s", path);
        assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
        posix_spawn_file_actions_adddup2(&actions, pipefd[1], 2);
        assert_int_equal(posix_spawn(&pid, DBUS_DAEMON, &actions, NULL, argv, environ), 0);
        posix_spawn_file_actions_destroy(&actions);
        close(pipefd[1]);
        read_output(pipefd[0], out, size);
        close(pipefd[0]);
        for (int tries = 0; waitpid(pid, &status, WNOHANG) == 0; tries++) {
                if (tries == 500) {
                        kill(pid, SIGKILL);
                        waitpid(pid, &status, 0);
                        return -1;
                }
                usleep(10 * 1000);
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_dbus_daemon_agrees(void **state) {
        size_t same = 0;

        if (access(DBUS_DAEMON, X_OK) < 0)
                skip();
        for (size_t i = 0; i < ELEMENTSOF(invalid_cases); i++) {
                const char *ours = strchr(invalid_cases[i].where_and_what, ' ') + 1;
                char path[512], out[4096];
                int status;

                if (invalid_cases[i].deviation)
                        continue;
                snprintf(path, sizeof(path), "%s/invalid/%s.conf", FIXTURE_DIR, invalid_cases[i].name);
                status = run_dbus_daemon(path, out, sizeof(out));
                if (status <= 0)
                        fail_msg("%s: dbus-daemon accepted it (status %d): %s", invalid_cases[i].name, status, out);
                if (!strstr(out, ours))
                        fail_msg("%s: dbus-daemon says\n  %s\nwe say\n  %s", invalid_cases[i].name, out, ours);
                same++;
        }
        print_message("dbus-daemon prints our message for %zu of %zu invalid fixtures\n", same,
                      ELEMENTSOF(invalid_cases));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_dbus_daemon_agrees),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
