/*
 * smack-socket-activate: run a bus on a listening socket labelled for
 * Smack, the way systemd does it for a .socket unit with SmackLabel=*
 * SmackLabelIPIn=* SmackLabelIPOut=@:
 *
 *     smack-socket-activate SOCKET_PATH COMMAND [ARGS...]
 *
 * binds a unix stream socket at SOCKET_PATH, labels the file * (every
 * label may connect to it), the socket's incoming side * (every label may
 * write to it) and its outgoing side @ (it may write back to every label),
 * and executes COMMAND with it as fd 3 and LISTEN_FDS=1, LISTEN_PID=self,
 * as socket activation does. Without this a client with a Smack label of
 * its own cannot even connect to a bus whose process is labelled "_": who
 * may talk to whom is the bus's mediation, not the socket's. Needs
 * CAP_MAC_ADMIN (root in the user-mode-linux guest). A helper of
 * uml-demo.sh and of the demo (demo/guest-demo.sh); on a real system
 * systemd's own unit does this. Python does not start inside the guest,
 * hence C.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

static int fail(const char *what) {
        fprintf(stderr, "smack-socket-activate: %s: %s\n", what, strerror(errno));
        return 1;
}

static bool has_star_label(const char *path) {
        char label[8];
        ssize_t n = getxattr(path, "security.SMACK64", label, sizeof(label));

        return n == 1 && label[0] == '*';
}

int main(int argc, char **argv) {
        struct sockaddr_un address = { .sun_family = AF_UNIX };
        char pid[32];
        int fd;

        if (argc < 3) {
                fprintf(stderr, "usage: smack-socket-activate SOCKET_PATH COMMAND [ARGS...]\n");
                return 2;
        }
        if (strlen(argv[1]) >= sizeof(address.sun_path)) {
                fprintf(stderr, "smack-socket-activate: socket path too long\n");
                return 2;
        }
        strcpy(address.sun_path, argv[1]);
        if (unlink(argv[1]) < 0 && errno != ENOENT)
                return fail("unlink");
        /* Non-blocking, as the bus accepts until EAGAIN. */
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return fail("socket");
        if (bind(fd, (struct sockaddr *) &address, sizeof(address)) < 0)
                return fail("bind");
        if (chmod(argv[1], 0666) < 0)
                return fail("chmod");
        if (listen(fd, 128) < 0)
                return fail("listen");
        /*
         * Smack gives a socket's file the star label itself (measured with
         * user-mode-linux 6.1 and 7.2), and newer kernels refuse to set
         * SMACK64 on one at all: set it only where it is something else.
         */
        if (!has_star_label(argv[1]) && setxattr(argv[1], "security.SMACK64", "*", 1, 0) < 0)
                return fail("label the socket file");
        if (fsetxattr(fd, "security.SMACK64IPIN", "*", 1, 0) < 0)
                return fail("label the socket's incoming side");
        if (fsetxattr(fd, "security.SMACK64IPOUT", "@", 1, 0) < 0)
                return fail("label the socket's outgoing side");
        if (fd != 3) {
                if (dup2(fd, 3) < 0)
                        return fail("dup2");
                close(fd);
        }
        snprintf(pid, sizeof(pid), "%d", (int) getpid());
        if (setenv("LISTEN_FDS", "1", 1) < 0 || setenv("LISTEN_PID", pid, 1) < 0)
                return fail("setenv");
        unsetenv("LISTEN_FDNAMES");
        execvp(argv[2], argv + 2);
        return fail(argv[2]);
}
