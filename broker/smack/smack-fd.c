/*
 * Descriptors passed over the bus, judged for a recipient's label before
 * they are handed to it: a recipient that cannot receive one has its
 * recvmsg() truncated by the kernel, which libdbus and sd-bus treat as a
 * broken connection, so a copy it could not receive must not be sent.
 */
#include "smack-fd.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>

/* The interned label of fd's xattr name ("security.SMACK64..."): 0, or a negative errno. */
static int fd_label(int fd, const char *name, const SmackLabel **ret) {
        char text[SMACK_LABEL_MAX + 1];
        ssize_t n = fgetxattr(fd, name, text, sizeof(text) - 1);
        int r;

        if (n < 0)
                return -errno;
        /* The kernel may count the NUL in; a label has none inside. */
        while (n > 0 && text[n - 1] == '\0')
                n--;
        if (n == 0)
                return -ENODATA;
        text[n] = '\0';
        r = smack_label_intern(text, ret);
        return r < 0 ? r : r > 0 ? -EINVAL : 0;
}

/* "r", "w" or "rw": how fd was opened (O_PATH: "r", though its label cannot be read anyway). */
static const char *fd_access(int fd, int *ret_error) {
        int flags = fcntl(fd, F_GETFL);

        *ret_error = flags < 0 ? -errno : 0;
        if (flags < 0)
                return NULL;
        if (flags & O_PATH)
                return "r";
        switch (flags & O_ACCMODE) {
        case O_WRONLY:
                return "w";
        case O_RDWR:
                return "rw";
        default:
                return "r";
        }
}

static int socket_receivable(SmackOracle *oracle, const SmackLabel *subject, int fd) {
        static const char *const names[] = { "security.SMACK64IPOUT", "security.SMACK64IPIN" };

        for (size_t i = 0; i < 2; i++) {
                const SmackLabel *label;
                int r = fd_label(fd, names[i], &label);

                if (r < 0)
                        return r;
                r = smack_has_access(oracle, subject, label, "rw");
                if (r <= 0)
                        return r;
        }
        return 1;
}

int smack_fd_receivable(SmackOracle *oracle, const SmackLabel *subject, int fd) {
        const SmackLabel *label;
        const char *access;
        struct stat st;
        int r;

        if (!oracle || !subject || fd < 0)
                return -EINVAL;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISSOCK(st.st_mode))
                return socket_receivable(oracle, subject, fd);
        access = fd_access(fd, &r);
        if (!access)
                return r;
        r = fd_label(fd, "security.SMACK64", &label);
        if (r < 0)
                return r;
        return smack_has_access(oracle, subject, label, access);
}
