/*
 * What the kernel says about the process at the other end of a unix
 * socket, read once at accept (DESIGN decision 2) and never again: a
 * connection's identity does not change, and /proc/PID is never consulted
 * because PIDs are reused.
 *
 * SO_PEERCRED is mandatory. The rest is best effort and says so: no
 * SO_PEERSEC label (ENOPROTOOPT on a host without an LSM that labels
 * sockets) is "no label"; no SO_PEERGROUPS falls back to the primary gid;
 * no SO_PEERPIDFD (older kernels) is "no pidfd". A label is trimmed of
 * the trailing NULs some LSMs include.
 *
 * The one exception to "the kernel's word": creds_nss_groups() asks NSS
 * which groups a uid is in, because dbus-daemon's connect check
 * (<allow user=> / <allow group=>) does, and refuses a uid NSS does not
 * know at all.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "creds.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

#define CREDS_LABEL_MAX 4096
#define CREDS_GROUPS_MAX 65536

static int creds_read_label(int fd, char **ret) {
        socklen_t len = 256;

        for (;;) {
                _cleanup_free_ char *label = malloc(len + 1);

                if (!label)
                        return -ENOMEM;
                if (getsockopt(fd, SOL_SOCKET, SO_PEERSEC, label, &len) == 0) {
                        label[len] = 0;
                        while (len > 0 && label[len - 1] == 0)
                                len--;
                        *ret = len > 0 ? TAKE_PTR(label) : NULL;
                        return 0;
                }
                if (errno == ENOPROTOOPT || errno == EOPNOTSUPP) {
                        *ret = NULL;
                        return 0;
                }
                if (errno != ERANGE || len > CREDS_LABEL_MAX)
                        return -errno;
                /* len now holds the size the kernel needs */
        }
}

/*
 * groups[0] is free, groups[1..n] the supplementary groups: put the
 * primary gid first unless it is among them (dbus-daemon lists the
 * primary group too), and return the count.
 */
static size_t creds_groups_with_primary(gid_t *groups, gid_t primary, size_t n) {
        for (size_t i = 1; i <= n; i++)
                if (groups[i] == primary) {
                        memmove(groups, groups + 1, n * sizeof(gid_t));
                        return n;
                }
        groups[0] = primary;
        return n + 1;
}

static int creds_read_groups(int fd, gid_t primary, gid_t **ret, size_t *ret_n) {
        socklen_t len = 64 * sizeof(gid_t);

        for (;;) {
                _cleanup_free_ gid_t *groups = malloc(len + sizeof(gid_t));

                if (!groups)
                        return -ENOMEM;
                if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups + 1, &len) == 0) {
                        *ret_n = creds_groups_with_primary(groups, primary, len / sizeof(gid_t));
                        *ret = TAKE_PTR(groups);
                        return 0;
                }
                if (errno == ERANGE && len <= CREDS_GROUPS_MAX * sizeof(gid_t))
                        continue;
                if (errno != ENOPROTOOPT)
                        return -errno;
                groups[0] = primary;
                *ret_n = 1;
                *ret = TAKE_PTR(groups);
                return 0;
        }
}

static int creds_read_pidfd(int fd) {
        int pidfd = -1;
        socklen_t len = sizeof(pidfd);

        /* No fcntl(FD_CLOEXEC) here: the kernel creates every pidfd with
         * O_CLOEXEC, and the broker's one exec, an activated service, closes
         * every descriptor but its report pipe first (activation-spawn.c).
         * That saves a system call per connect. */
        if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0)
                return -1;
        return pidfd;
}

int creds_read(int fd, Creds *ret) {
        Creds creds = CREDS_NULL;
        struct ucred ucred;
        socklen_t len = sizeof(ucred);
        int r;

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &ucred, &len) < 0)
                return -errno;
        creds.pid = ucred.pid;
        creds.uid = ucred.uid;
        creds.gid = ucred.gid;

        r = creds_read_label(fd, &creds.label);
        if (r < 0)
                goto fail;
        r = creds_read_groups(fd, creds.gid, &creds.groups, &creds.n_groups);
        if (r < 0)
                goto fail;
        creds.pidfd = creds_read_pidfd(fd);
        *ret = creds;
        return 0;
fail:
        creds_deinit(&creds);
        return r;
}

void creds_deinit(Creds *creds) {
        free(creds->groups);
        free(creds->nss_groups);
        free(creds->label);
        safe_close(creds->pidfd);
        *creds = CREDS_NULL;
}

/* getpwuid_r() with a buffer grown as it asks; CREDS_E_NO_USER when there is no entry. */
static int creds_passwd(uid_t uid, struct passwd *pw, char **ret_buffer) {
        long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
        size_t size = hint > 0 ? (size_t) hint : 1024;

        for (;;) {
                _cleanup_free_ char *buffer = malloc(size);
                struct passwd *found = NULL;
                int r;

                if (!buffer)
                        return -ENOMEM;
                r = getpwuid_r(uid, pw, buffer, size, &found);
                if (r == 0 && found) {
                        *ret_buffer = TAKE_PTR(buffer);
                        return 0;
                }
                if (r == 0 || r == ENOENT || r == ESRCH)
                        return CREDS_E_NO_USER;
                if (r != ERANGE || size > 1024 * 1024)
                        return -r;
                size *= 2;
        }
}

int creds_nss_user(uid_t uid) {
        _cleanup_free_ char *buffer = NULL;
        struct passwd pw;

        return creds_passwd(uid, &pw, &buffer);
}

int creds_nss_groups(uid_t uid, gid_t **ret, size_t *ret_n) {
        _cleanup_free_ char *buffer = NULL;
        struct passwd pw;
        int n = 16;
        int r = creds_passwd(uid, &pw, &buffer);

        if (r != 0)
                return r;
        for (;;) {
                _cleanup_free_ gid_t *groups = malloc((size_t) n * sizeof(gid_t));
                int want = n;

                if (!groups)
                        return -ENOMEM;
                /* The primary group comes first, as getgrouplist() puts it. */
                if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &want) >= 0) {
                        *ret = TAKE_PTR(groups);
                        *ret_n = (size_t) want;
                        return 0;
                }
                if (want <= n || want > CREDS_GROUPS_MAX)
                        return -E2BIG;
                n = want;
        }
}
