/*
 * smack-helper: the small tool that Smack test scripts under
 * user-mode-linux use for what a shell cannot do alone.
 *
 *   smack-helper run LABEL CMD [ARGS...]    run CMD as LABEL, without
 *                                           CAP_MAC_OVERRIDE/CAP_MAC_ADMIN
 *   smack-helper exec CMD [ARGS...]         run CMD without those two
 *                                           capabilities, its label left
 *                                           to the exec (SMACK64EXEC)
 *   smack-helper peersec LABEL              print the SO_PEERSEC label a
 *                                           unix-socket server sees for a
 *                                           client labelled LABEL
 *   smack-helper access SUBJECT OBJECT ACC  ask smackfs/access2; prints 1/0
 *   smack-helper getxattr PATH NAME         print an xattr's value
 *   smack-helper setxattr PATH NAME VALUE   set an xattr
 *
 * Root bypasses Smack through CAP_MAC_OVERRIDE, so "run" drops both Smack
 * capabilities from the bounding set and from the current sets before it
 * executes: whatever CMD does is judged by the kernel like an ordinary
 * process of that label. Exit codes: 0 success, 1 failure (with a message
 * on stderr), 2 usage. It runs inside a throwaway guest and trusts its
 * arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "macro.h"

#define SMACK_LABEL_MAX 256

static int write_file(const char *path, const char *text) {
        _cleanup_close_ int fd = -1;
        size_t len = strlen(text);

        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (write(fd, text, len) != (ssize_t) len)
                return errno > 0 ? -errno : -EIO;
        return 0;
}

static int set_own_label(const char *label) {
        return write_file("/proc/self/attr/current", label);
}

/* Remove CAP_MAC_OVERRIDE and CAP_MAC_ADMIN for good. */
static int drop_mac_caps(void) {
        struct __user_cap_header_struct header = {
                .version = _LINUX_CAPABILITY_VERSION_3,
        };
        struct __user_cap_data_struct data[2];
        static const int caps[] = { CAP_MAC_OVERRIDE, CAP_MAC_ADMIN };

        for (size_t i = 0; i < ELEMENTSOF(caps); i++)
                if (prctl(PR_CAPBSET_DROP, caps[i], 0, 0, 0) < 0)
                        return -errno;
        if (syscall(SYS_capget, &header, data) < 0)
                return -errno;
        for (size_t i = 0; i < ELEMENTSOF(caps); i++) {
                unsigned word = caps[i] / 32, bit = 1u << (caps[i] % 32);

                data[word].effective &= ~bit;
                data[word].permitted &= ~bit;
                data[word].inheritable &= ~bit;
        }
        if (syscall(SYS_capset, &header, data) < 0)
                return -errno;
        return 0;
}

static int cmd_run(char **argv) {
        int r;

        r = set_own_label(argv[0]);
        if (r < 0) {
                fprintf(stderr, "smack-helper: cannot set label %s: %s\n", argv[0], strerror(-r));
                return 1;
        }
        r = drop_mac_caps();
        if (r < 0) {
                fprintf(stderr, "smack-helper: cannot drop capabilities: %s\n", strerror(-r));
                return 1;
        }
        execvp(argv[1], argv + 1);
        fprintf(stderr, "smack-helper: cannot execute %s: %m\n", argv[1]);
        return 1;
}

/* The label comes from the exec itself: CMD's SMACK64EXEC, as on a device. */
static int cmd_exec(char **argv) {
        int r = drop_mac_caps();

        if (r < 0) {
                fprintf(stderr, "smack-helper: cannot drop capabilities: %s\n", strerror(-r));
                return 1;
        }
        execvp(argv[0], argv);
        fprintf(stderr, "smack-helper: cannot execute %s: %m\n", argv[0]);
        return 1;
}

static int peersec_client(const struct sockaddr_un *address, socklen_t len, const char *label) {
        _cleanup_close_ int fd = -1;
        char byte;

        if (set_own_label(label) < 0)
                return 1;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (const struct sockaddr *) address, len) < 0)
                return 1;
        /* Stay connected until the server has looked at us. */
        return read(fd, &byte, 1) < 0;
}

static int peersec_server(int listen_fd) {
        _cleanup_close_ int fd = -1;
        char label[SMACK_LABEL_MAX + 1] = "";
        socklen_t len = SMACK_LABEL_MAX;

        fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERSEC, label, &len) < 0)
                return -errno;
        label[len < SMACK_LABEL_MAX ? len : SMACK_LABEL_MAX] = '\0';
        printf("%s\n", label);
        return 0;
}

static int cmd_peersec(char **argv) {
        struct sockaddr_un address = { .sun_family = AF_UNIX };
        socklen_t len;
        _cleanup_close_ int listen_fd = -1;
        int r, status;
        pid_t pid;

        /* Abstract name: nothing on disk, unique per process. */
        snprintf(address.sun_path + 1, sizeof(address.sun_path) - 1, "smack-helper-%d", (int) getpid());
        len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + strlen(address.sun_path + 1));
        listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *) &address, len) < 0 || listen(listen_fd, 1) < 0) {
                fprintf(stderr, "smack-helper: cannot listen: %m\n");
                return 1;
        }
        pid = fork();
        if (pid < 0)
                return 1;
        if (pid == 0)
                _exit(peersec_client(&address, len, argv[0]));
        r = peersec_server(listen_fd);
        listen_fd = safe_close(listen_fd);
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
                return 1;
        if (r < 0) {
                fprintf(stderr, "smack-helper: SO_PEERSEC: %s\n", strerror(-r));
                return 1;
        }
        return 0;
}

static int cmd_access(char **argv) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *request = NULL;
        char answer[4] = "";
        ssize_t n;

        if (asprintf(&request, "%s %s %s", argv[0], argv[1], argv[2]) < 0)
                return 1;
        fd = open("/sys/fs/smackfs/access2", O_RDWR | O_CLOEXEC);
        if (fd < 0 || write(fd, request, strlen(request)) < 0) {
                fprintf(stderr, "smack-helper: access2: %m\n");
                return 1;
        }
        n = read(fd, answer, sizeof(answer) - 1);
        if (n <= 0) {
                fprintf(stderr, "smack-helper: access2: no answer\n");
                return 1;
        }
        answer[n] = '\0';
        printf("%s\n", answer);
        return 0;
}

static int cmd_getxattr(char **argv) {
        char value[SMACK_LABEL_MAX + 1];
        ssize_t n;

        n = getxattr(argv[0], argv[1], value, SMACK_LABEL_MAX);
        if (n < 0) {
                fprintf(stderr, "smack-helper: getxattr %s %s: %m\n", argv[0], argv[1]);
                return 1;
        }
        value[n] = '\0';
        printf("%s\n", value);
        return 0;
}

static int cmd_setxattr(char **argv) {
        if (setxattr(argv[0], argv[1], argv[2], strlen(argv[2]), 0) < 0) {
                fprintf(stderr, "smack-helper: setxattr %s %s: %m\n", argv[0], argv[1]);
                return 1;
        }
        return 0;
}

int main(int argc, char **argv) {
        static const struct {
                const char *name;
                int min_args;
                int max_args;
                int (*run)(char **argv);
        } commands[] = {
                { "run", 2, -1, cmd_run },
                { "exec", 1, -1, cmd_exec },
                { "peersec", 1, 1, cmd_peersec },
                { "access", 3, 3, cmd_access },
                { "getxattr", 2, 2, cmd_getxattr },
                { "setxattr", 3, 3, cmd_setxattr },
        };

        for (size_t i = 0; argc >= 2 && i < ELEMENTSOF(commands); i++) {
                int n = argc - 2;

                if (strcmp(argv[1], commands[i].name) != 0)
                        continue;
                if (n < commands[i].min_args || (commands[i].max_args >= 0 && n > commands[i].max_args))
                        break;
                return commands[i].run(argv + 2);
        }
        fprintf(stderr,
                "usage: smack-helper run LABEL CMD [ARGS...]\n"
                "       smack-helper exec CMD [ARGS...]\n"
                "       smack-helper peersec LABEL\n"
                "       smack-helper access SUBJECT OBJECT ACCESS\n"
                "       smack-helper getxattr PATH NAME\n"
                "       smack-helper setxattr PATH NAME VALUE\n");
        return 2;
}
