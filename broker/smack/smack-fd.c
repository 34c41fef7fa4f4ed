/*
 * Descriptors passed over the bus, judged for a recipient's label before
 * they are handed to it: a recipient that cannot receive one has its
 * recvmsg() truncated by the kernel, which libdbus and sd-bus treat as a
 * broken connection, so a copy it could not receive must not be sent.
 * The answer has three values, not two: a descriptor whose label cannot
 * be read through it is not one the kernel refuses (it judges the inode's
 * own label, which may be the floor), so a caller that must refuse only
 * what the kernel would certainly refuse can tell it apart, and one that
 * must fail closed (an observer's copy) cannot mistake it for a "yes".
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

/* The label under xattr name judged for access: 0, DENIED or UNREADABLE (*ret filled), or a negative errno. */
static int label_check(SmackOracle *oracle, const SmackLabel *subject, int fd, const char *name,
                       const char *access, SmackFdLabel *ret) {
        const SmackLabel *label;
        int r = fd_label(fd, name, &label);

        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                *ret = (SmackFdLabel) { .access = access, .error = r };
                return SMACK_FD_E_UNREADABLE;
        }
        r = smack_has_access(oracle, subject, label, access);
        if (r < 0)
                return r;
        *ret = (SmackFdLabel) { .label = label, .access = access };
        return r > 0 ? 0 : SMACK_FD_E_DENIED;
}

static int socket_check(SmackOracle *oracle, const SmackLabel *subject, int fd, SmackFdLabel *ret) {
        static const char *const names[] = { "security.SMACK64IPOUT", "security.SMACK64IPIN" };

        for (size_t i = 0; i < 2; i++) {
                int r = label_check(oracle, subject, fd, names[i], "rw", ret);

                if (r != 0)
                        return r;
        }
        return 0;
}

int smack_fd_check(SmackOracle *oracle, const SmackLabel *subject, int fd, SmackFdLabel *ret) {
        SmackFdLabel judged;
        const char *access;
        struct stat st;
        int r;

        if (!oracle || !subject || fd < 0 || !ret)
                return -EINVAL;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISSOCK(st.st_mode)) {
                r = socket_check(oracle, subject, fd, &judged);
        } else {
                access = fd_access(fd, &r);
                if (!access)
                        return r;
                r = label_check(oracle, subject, fd, "security.SMACK64", access, &judged);
        }
        if (r == SMACK_FD_E_DENIED || r == SMACK_FD_E_UNREADABLE)
                *ret = judged;
        return r;
}

int smack_fd_receivable(SmackOracle *oracle, const SmackLabel *subject, int fd) {
        SmackFdLabel judged;
        int r = smack_fd_check(oracle, subject, fd, &judged);

        if (r == SMACK_FD_E_UNREADABLE)
                return judged.error;
        if (r == SMACK_FD_E_DENIED)
                return 0;
        return r == 0 ? 1 : r;
}
