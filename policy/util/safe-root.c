/*
 * Opening the files that packages name, without being led elsewhere.
 *
 * mssf-policy runs as root and writes security.SMACK64EXEC and
 * security.ima on files whose paths come from packages: a manifest's
 * <for path>, dpkg's file list. A path is only a name; what matters is
 * the file mssf-policy finally writes on. A symlink anywhere on the way
 * (one the package shipped, one its maintainer script made, one a
 * process swapped in between our check and our write) would turn "my
 * binary" into another package's daemon or /bin/sh. So nothing here
 * follows a symlink: the parent directory is opened with openat2's
 * RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS (or, on a kernel without openat2,
 * one O_NOFOLLOW component at a time, each checked to be a directory),
 * and the file is opened in that directory with O_NOFOLLOW. Every later
 * read and write goes through the descriptor, never the path again.
 *
 * The file is first opened with O_PATH, which has no side effect, and
 * opened for reading only once fstat() says it is a regular file: opening
 * a device node can do things (a watchdog starts counting, a tape
 * rewinds). The second open is by name in the same directory, so it is
 * checked to be the same inode; a FIFO swapped in between does not block
 * (O_NONBLOCK) and is refused.
 *
 * The one exception is the merged-/usr aliases at the top of the root
 * (/bin -> usr/bin, /lib -> usr/lib, ...): on Debian 12 dpkg's lists still
 * name /bin/sh and /lib/x86_64-linux-gnu/..., which exist only through
 * them. They are recognised once, by their exact target, and the path is
 * rewritten to the real directory rather than followed; only root can
 * change them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "manifest.h"
#include "safe-root.h"

/* The longest symlink target described. */
#define SAFE_ROOT_PATH_MAX 4096

static const char *const usr_aliases[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };

struct SafeRoot {
        int fd;                         /* O_PATH of the root directory */
        char *path;                     /* for messages */
        unsigned aliases;               /* bit i: usr_aliases[i] is the link usr/NAME */
};

/* Whether ROOT/name is the symlink "usr/name" or "/usr/name". */
static bool is_usr_alias(int root_fd, const char *name) {
        char target[64], relative[32], absolute[32];
        ssize_t n = readlinkat(root_fd, name, target, sizeof(target) - 1);

        if (n < 0)
                return false;
        target[n] = '\0';
        snprintf(relative, sizeof(relative), "usr/%s", name);
        snprintf(absolute, sizeof(absolute), "/usr/%s", name);
        return strcmp(target, relative) == 0 || strcmp(target, absolute) == 0;
}

int safe_root_new(const char *root, SafeRoot **ret) {
        _cleanup_(safe_root_freep) SafeRoot *s = calloc(1, sizeof(*s));

        if (!s)
                return -ENOMEM;
        if (!root || !root[0])
                root = "/";
        s->fd = -1;
        /* The root itself is the administrator's word (--root), so it may be a link. */
        s->path = realpath(root, NULL);
        if (!s->path)
                return -errno;
        s->fd = open(s->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (s->fd < 0)
                return -errno;
        for (size_t i = 0; i < ELEMENTSOF(usr_aliases); i++)
                if (is_usr_alias(s->fd, usr_aliases[i]))
                        s->aliases |= 1u << i;
        *ret = TAKE_PTR(s);
        return 0;
}

SafeRoot *safe_root_free(SafeRoot *root) {
        if (!root)
                return NULL;
        safe_close(root->fd);
        free(root->path);
        free(root);
        return NULL;
}

const char *safe_root_path(const SafeRoot *root) {
        return root->path;
}

char *safe_root_host_path(const SafeRoot *root, const char *path) {
        char *joined;

        if (strcmp(root->path, "/") == 0)
                return strdup(path);
        return asprintf(&joined, "%s%s", root->path, path) < 0 ? NULL : joined;
}

const char *safe_root_inside(const SafeRoot *root, const char *host_path) {
        size_t n = strlen(root->path);

        if (strcmp(root->path, "/") == 0)
                return host_path[0] == '/' ? host_path : NULL;
        if (strncmp(host_path, root->path, n) != 0 || host_path[n] != '/')
                return NULL;
        return host_path + n;
}

/* One rule with the manifest's for every path a package names. */
static bool path_is_normal(const char *path) {
        return manifest_valid_file_path(path);
}

int safe_root_canonical(const SafeRoot *root, const char *path, char **ret) {
        char *canonical;

        if (!path_is_normal(path))
                return SAFE_ROOT_E_PATH;
        for (size_t i = 0; i < ELEMENTSOF(usr_aliases); i++) {
                size_t n = strlen(usr_aliases[i]);

                if (!(root->aliases & (1u << i)) || strncmp(path + 1, usr_aliases[i], n) != 0 ||
                    path[1 + n] != '/')
                        continue;
                if (asprintf(&canonical, "/usr%s", path) < 0)
                        return -ENOMEM;
                *ret = canonical;
                return 0;
        }
        canonical = strdup(path);
        if (!canonical)
                return -ENOMEM;
        *ret = canonical;
        return 0;
}

static int verdict_of_errno(int error) {
        switch (error) {
        case ELOOP:
                return SAFE_ROOT_E_SYMLINK;
        case ENOENT:
        case ENOTDIR:
                return SAFE_ROOT_E_MISSING;
        case EXDEV:
                return SAFE_ROOT_E_PATH;        /* it would leave the root */
        case ENXIO:
                return SAFE_ROOT_E_NOT_REGULAR; /* a socket */
        default:
                return -error;
        }
}

/* One directory at a time, for kernels without openat2: 0 and *ret_fd, a verdict, or -errno. */
static int walk_directories(int root_fd, const char *relative, int *ret_fd) {
        _cleanup_close_ int dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        _cleanup_free_ char *copy = strdup(relative);
        char *save = NULL;

        if (dir < 0)
                return -errno;
        if (!copy)
                return -ENOMEM;
        for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
                int next = openat(dir, part, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                struct stat st;

                if (next < 0)
                        return verdict_of_errno(errno);
                safe_close(dir);
                dir = next;
                if (fstat(dir, &st) < 0)
                        return -errno;
                if (S_ISLNK(st.st_mode))
                        return SAFE_ROOT_E_SYMLINK;
                if (!S_ISDIR(st.st_mode))
                        return SAFE_ROOT_E_MISSING;
        }
        *ret_fd = TAKE_FD(dir);
        return 0;
}

/* The directory that holds path's last component: 0 and *ret_fd, a verdict, or -errno. */
static int open_parent(const SafeRoot *root, const char *path, const char **ret_last,
                       int *ret_fd) {
        const char *last = strrchr(path, '/');
        _cleanup_free_ char *parent = NULL;
        struct open_how how = {
                .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        int fd;

        *ret_last = last + 1;
        if (last == path) {
                fd = fcntl(root->fd, F_DUPFD_CLOEXEC, 3);
                if (fd < 0)
                        return -errno;
                *ret_fd = fd;
                return 0;
        }
        parent = strndup(path + 1, (size_t) (last - path - 1));
        if (!parent)
                return -ENOMEM;
        fd = fileio_openat2(root->fd, parent, &how);
        if (fd == -ENOSYS)
                return walk_directories(root->fd, parent, ret_fd);
        if (fd < 0)
                return verdict_of_errno(-fd);
        *ret_fd = fd;
        return 0;
}

bool safe_root_same_file(const struct stat *a, const struct stat *b) {
        return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int safe_root_open(const SafeRoot *root, const char *path, int *ret_fd, struct stat *ret_st) {
        _cleanup_close_ int dir = -1, handle = -1, fd = -1;
        struct stat before, st;
        const char *last;
        int r;

        if (!path_is_normal(path))
                return SAFE_ROOT_E_PATH;
        r = open_parent(root, path, &last, &dir);
        if (r != 0)
                return r;
        handle = openat(dir, last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (handle < 0)
                return verdict_of_errno(errno);
        if (fstat(handle, &before) < 0)
                return -errno;
        if (S_ISLNK(before.st_mode))
                return SAFE_ROOT_E_SYMLINK;
        if (!S_ISREG(before.st_mode)) {
                *ret_st = before;
                return SAFE_ROOT_E_NOT_REGULAR;
        }
        fd = openat(dir, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return verdict_of_errno(errno);
        if (fstat(fd, &st) < 0)
                return -errno;
        /* Renamed over between the two opens: whatever it is now, it is not what was checked. */
        if (!S_ISREG(st.st_mode) || !safe_root_same_file(&before, &st)) {
                *ret_st = st;
                return SAFE_ROOT_E_NOT_REGULAR;
        }
        *ret_st = st;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

char *safe_root_describe_symlink(const SafeRoot *root, const char *path) {
        _cleanup_free_ char *copy = strdup(path);
        char target[SAFE_ROOT_PATH_MAX];

        if (!copy || !path_is_normal(path))
                return NULL;
        for (char *slash = copy + 1; ; slash++) {
                char *description = NULL;
                struct stat st;
                ssize_t n;
                bool end;

                slash = strchr(slash, '/');
                end = !slash;
                if (slash)
                        *slash = '\0';
                if (fstatat(root->fd, copy + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return NULL;
                if (S_ISLNK(st.st_mode)) {
                        n = readlinkat(root->fd, copy + 1, target, sizeof(target) - 1);
                        if (n < 0)
                                return NULL;
                        target[n] = '\0';
                        return asprintf(&description, "%s -> %s", copy, target) < 0 ?
                                NULL : description;
                }
                if (end)
                        return NULL;
                *slash = '/';
        }
}
