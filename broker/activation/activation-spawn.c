/*
 * activation-spawn: launches an activatable service the way dbus-daemon
 * does without systemd, and reports whether exec itself worked.
 *
 * The child reports a failure before or at exec through a close-on-exec
 * pipe (stage and errno); end of file on that pipe means exec succeeded.
 * So the caller learns "no such program" or "no such user" at once and
 * can answer every queued caller with Spawn.ExecFailed instead of waiting
 * for the start timeout. The daemon blocks signals for its signalfd: the
 * child unblocks them and resets their handlers before exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "activation-spawn.h"
#include "macro.h"
#include "service-file.h"

extern char **environ;

enum { STAGE_EXEC = 1, STAGE_USER, STAGE_ENV, STAGE_SETUP };

typedef struct ChildReport {
        int stage;
        int error;
} ChildReport;

__attribute__((noreturn)) static void child_fail(int fd, int stage, int error) {
        ChildReport report = { stage, error };
        (void)!write(fd, &report, sizeof(report));
        _exit(127);
}

static int child_switch_user(const char *user) {
        struct passwd *pw = getpwnam(user);
        if (!pw)
                return ENOENT;
        if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
                return errno;
        return 0;
}

static int child_env(const ActivationSpawn *spawn) {
        for (char *const *e = spawn->env; e && *e; e++)
                if (putenv(*e) < 0)
                        return errno;
        if (setenv("DBUS_STARTER_ADDRESS", spawn->bus_address, 1) < 0 ||
            setenv("DBUS_STARTER_BUS_TYPE", spawn->bus_type, 1) < 0)
                return errno;
        const char *var = strcmp(spawn->bus_type, "system") ? "DBUS_SESSION_BUS_ADDRESS" : "DBUS_SYSTEM_BUS_ADDRESS";
        return setenv(var, spawn->bus_address, 1) < 0 ? errno : 0;
}

static void close_from_to(unsigned first, unsigned last) {
        if (syscall(SYS_close_range, first, last, 0) == 0)
                return;
        long max = sysconf(_SC_OPEN_MAX);
        for (long fd = first; fd <= (long)last && fd < (max > 0 ? max : 65536); fd++)
                close((int)fd);
}

static int child_setup(int report_fd) {
        sigset_t all;
        sigemptyset(&all);
        for (int sig = 1; sig < NSIG; sig++)
                signal(sig, SIG_DFL);
        if (sigprocmask(SIG_SETMASK, &all, NULL) < 0 || setsid() < 0)
                return errno;
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0)
                return errno;
        /* Close everything but 0-2 and the report pipe (close-on-exec). */
        if (report_fd > 3)
                close_from_to(3, (unsigned)report_fd - 1);
        close_from_to((unsigned)report_fd + 1, ~0u);
        return 0;
}

__attribute__((noreturn)) static void child_run(const ServiceFile *file, const ActivationSpawn *spawn, int report_fd) {
        int e = child_setup(report_fd);
        if (e)
                child_fail(report_fd, STAGE_SETUP, e);
        if ((e = child_env(spawn)))
                child_fail(report_fd, STAGE_ENV, e);
        if (spawn->switch_user && file->user && (e = child_switch_user(file->user)))
                child_fail(report_fd, STAGE_USER, e);
        execve(file->argv[0], file->argv, environ);
        child_fail(report_fd, STAGE_EXEC, errno);
}

static int read_report(int fd, ChildReport *report) {
        size_t got = 0;
        while (got < sizeof(*report)) {
                ssize_t n = read(fd, (char *)report + got, sizeof(*report) - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return got == 0 ? 0 : -EIO;
                got += (size_t)n;
        }
        return 1;
}

int activation_spawn(const ServiceFile *file, const ActivationSpawn *spawn, pid_t *ret_pid,
                     char *err, size_t err_size) {
        int pipefd[2];
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid < 0) {
                int e = errno;
                safe_close(pipefd[0]);
                safe_close(pipefd[1]);
                return -e;
        }
        if (pid == 0) {
                safe_close(pipefd[0]);
                child_run(file, spawn, pipefd[1]);
        }
        safe_close(pipefd[1]);
        ChildReport report = { 0, 0 };
        int r = read_report(pipefd[0], &report);
        safe_close(pipefd[0]);
        if (r == 0) {
                *ret_pid = pid;
                return 0;
        }
        (void)waitpid(pid, NULL, 0);
        if (r < 0)
                return r;
        if (report.stage == STAGE_USER) {
                snprintf(err, err_size, "Failed to switch to user \"%s\" for %s: %s", file->user, file->name,
                         report.error == ENOENT ? "no such user" : strerror(report.error));
                return ACTIVATION_SPAWN_E_USER;
        }
        snprintf(err, err_size, "Failed to execute program %s: %s", file->argv[0], strerror(report.error));
        return ACTIVATION_SPAWN_E_EXEC;
}
