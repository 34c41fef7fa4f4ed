/*
 * Child processes for the package-manager glue (dpkg.c, apt-hook.c).
 *
 * The tools mssf-policy runs are Debian's own (dpkg-query, dpkg-deb,
 * apt-get, apt-helper, gpgv, tar), found in PATH as dpkg and apt find
 * them. Their stdout is data we parse; their stderr is kept in a memfd
 * and only surfaces in our error message when they fail, so a successful
 * run prints nothing. A child that is killed or exits non-zero is a
 * failure its caller reports; nothing here retries or ignores one.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

#define SPAWN_STDERR_MAX 4096

static void child(char *const argv[], int input_fd, int out_fd, int err_fd) {
        int null_fd = -1;

        if (input_fd < 0) {
                null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
                input_fd = null_fd;
        }
        if (input_fd < 0 || dup2(input_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
            dup2(err_fd, STDERR_FILENO) < 0)
                _exit(127);
        /* The package manager may have blocked signals; the tool expects defaults. */
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(argv[0], argv);
        dprintf(STDERR_FILENO, "cannot run %s: %s", argv[0], strerror(errno));
        _exit(127);
}

int spawn_start(char *const argv[], int input_fd, Spawned *ret) {
        _cleanup_close_ int err_fd = memfd_create("mssf-policy-stderr", MFD_CLOEXEC);
        int pipe_fds[2];
        FILE *out;
        pid_t pid;

        if (err_fd < 0)
                return -errno;
        if (pipe2(pipe_fds, O_CLOEXEC) < 0)
                return -errno;
        pid = fork();
        if (pid < 0) {
                int r = -errno;

                close(pipe_fds[0]);
                close(pipe_fds[1]);
                return r;
        }
        if (pid == 0)
                child(argv, input_fd, pipe_fds[1], err_fd);
        close(pipe_fds[1]);
        out = fdopen(pipe_fds[0], "r");
        if (!out) {
                int r = -errno;

                close(pipe_fds[0]);
                kill(pid, SIGKILL);
                (void) waitpid(pid, NULL, 0);
                return r;
        }
        *ret = (Spawned) { .pid = pid, .out = out, .err_fd = TAKE_FD(err_fd), .name = argv[0] };
        return 0;
}

static char *read_stderr(int fd) {
        char *text = malloc(SPAWN_STDERR_MAX + 1);
        ssize_t n;

        if (!text)
                return NULL;
        n = pread(fd, text, SPAWN_STDERR_MAX, 0);
        if (n < 0)
                n = 0;
        while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
                n--;
        text[n] = '\0';
        return text;
}

int spawn_finish(Spawned *s, int *ret_status, char **ret_stderr) {
        int status, r = 0;

        if (s->out) {
                fclose(s->out);
                s->out = NULL;
        }
        while (waitpid(s->pid, &status, 0) < 0)
                if (errno != EINTR) {
                        r = -errno;
                        break;
                }
        if (r == 0) {
                *ret_status = WIFEXITED(status) ? WEXITSTATUS(status) :
                              WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
                if (ret_stderr)
                        *ret_stderr = read_stderr(s->err_fd);
        }
        s->err_fd = safe_close(s->err_fd);
        return r;
}

int spawn_capture(char *const argv[], size_t max, char **ret, size_t *ret_size, int *ret_status,
                  char **ret_stderr) {
        return spawn_capture_from(argv, -1, max, ret, ret_size, ret_status, ret_stderr);
}

int spawn_capture_from(char *const argv[], int input_fd, size_t max, char **ret, size_t *ret_size,
                       int *ret_status, char **ret_stderr) {
        _cleanup_free_ char *data = NULL;
        size_t size = 0, allocated = 0;
        Spawned s;
        int r;

        r = spawn_start(argv, input_fd, &s);
        if (r < 0)
                return r;
        for (;;) {
                size_t n;

                if (size + 4096 + 1 > allocated) {
                        size_t grow = allocated ? allocated * 2 : 8192;
                        char *bigger = realloc(data, grow);

                        if (!bigger) {
                                r = -ENOMEM;
                                break;
                        }
                        data = bigger;
                        allocated = grow;
                }
                n = fread(data + size, 1, allocated - size - 1, s.out);
                size += n;
                if (size > max) {
                        r = -EFBIG;
                        break;
                }
                if (n == 0)
                        break;
        }
        if (r < 0)
                kill(s.pid, SIGKILL);
        else if (ferror(s.out))
                r = -EIO;
        {
                int finish = spawn_finish(&s, ret_status, ret_stderr);

                if (r == 0)
                        r = finish;
        }
        if (r < 0) {
                if (ret_stderr) {
                        free(*ret_stderr);
                        *ret_stderr = NULL;
                }
                return r;
        }
        data[size] = '\0';
        *ret = TAKE_PTR(data);
        if (ret_size)
                *ret_size = size;
        return 0;
}
