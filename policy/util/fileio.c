/*
 * File helpers for mssf-policy.
 *
 * Every file the tool changes is written through fileio_write_atomic():
 * a temporary file in the same directory, fsync, rename, fsync of the
 * directory. That is what lets a transaction promise that each file is
 * either the old one or the new one, and what lets the bus read policy.db
 * at any moment. Reads are bounded (FILEIO_MAX_SIZE) because the tool
 * also reads files that other packages wrote. Nothing here interprets a
 * file's content.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fileio.h"

int fileio_read_regular_fd(int fd, size_t max, char **ret, size_t *ret_size, const char **ret_why) {
        _cleanup_free_ char *data = NULL;
        static char too_large[64];
        struct stat st;
        size_t size = 0;

        if (fd < 0 || fstat(fd, &st) < 0) {
                *ret_why = strerror(errno);
                return 1;
        }
        if (!S_ISREG(st.st_mode)) {
                *ret_why = "not a regular file";
                return 1;
        }
        if (st.st_size < 0 || (uint64_t) st.st_size > max) {
                if (max >= 1024 * 1024 && max % (1024 * 1024) == 0)
                        snprintf(too_large, sizeof(too_large), "larger than %zu MiB", max / (1024 * 1024));
                else
                        snprintf(too_large, sizeof(too_large), "larger than %zu bytes", max);
                *ret_why = too_large;
                return 1;
        }
        data = malloc((size_t) st.st_size + 1);
        if (!data)
                return -ENOMEM;
        while (size < (size_t) st.st_size) {
                ssize_t n = pread(fd, data + size, (size_t) st.st_size - size, (off_t) size);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                size += (size_t) n;
        }
        data[size] = '\0';
        *ret = TAKE_PTR(data);
        *ret_size = size;
        return 0;
}

int fileio_read(const char *path, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buffer = NULL;
        size_t size = 0, allocated = 0;
        struct stat st;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        for (;;) {
                ssize_t n;

                if (size + 1 >= allocated) {
                        size_t grow = allocated ? allocated * 2 : 4096;
                        char *bigger;

                        if (allocated > FILEIO_MAX_SIZE)
                                return -EFBIG;
                        bigger = realloc(buffer, grow);
                        if (!bigger)
                                return -ENOMEM;
                        buffer = bigger;
                        allocated = grow;
                }
                n = read(fd, buffer + size, allocated - size - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                size += (size_t) n;
        }
        if (size > FILEIO_MAX_SIZE)
                return -EFBIG;
        buffer[size] = '\0';
        *ret = TAKE_PTR(buffer);
        if (ret_size)
                *ret_size = size;
        return 0;
}

static int write_all(int fd, const void *data, size_t size) {
        const char *p = data;

        while (size > 0) {
                ssize_t n = write(fd, p, size);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += n;
                size -= (size_t) n;
        }
        return 0;
}

static int fsync_parent(const char *path) {
        _cleanup_free_ char *copy = strdup(path);
        _cleanup_close_ int fd = -1;

        if (!copy)
                return -ENOMEM;
        fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fsync(fd) < 0)
                return -errno;
        return 0;
}

int fileio_write_atomic(const char *path, const void *data, size_t size, mode_t mode) {
        _cleanup_free_ char *temp = NULL;
        _cleanup_close_ int fd = -1;
        int r;

        if (asprintf(&temp, "%s.tmp-XXXXXX", path) < 0)
                return -ENOMEM;
        fd = mkostemp(temp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = write_all(fd, data, size);
        if (r >= 0 && fchmod(fd, mode) < 0)
                r = -errno;
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (r >= 0 && rename(temp, path) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlink(temp);
                return r;
        }
        /* The new file is in place; a failed directory sync only weakens
         * durability across a power cut, so it is not a failure. */
        (void) fsync_parent(path);
        return 0;
}

/* Sized by asking first: security.ima may hold a signature of several hundred bytes. */
/* The value of an xattr through get (getxattr on a path, fgetxattr on a descriptor). */
static int get_xattr(ssize_t (*get)(const void *where, const char *name, void *value, size_t size),
                     const void *where, const char *name, char **ret, size_t *ret_size) {
        _cleanup_free_ char *value = NULL;
        ssize_t n = get(where, name, NULL, 0);

        if (n > (ssize_t) FILEIO_XATTR_MAX)
                return -E2BIG;
        if (n >= 0) {
                value = malloc((size_t) n + 1);
                if (!value)
                        return -ENOMEM;
                n = get(where, name, value, (size_t) n);
        }
        if (n < 0) {
                if (errno != ENODATA)
                        return -errno;
                *ret = NULL;
                *ret_size = 0;
                return 0;
        }
        value[n] = '\0';
        *ret = TAKE_PTR(value);
        *ret_size = (size_t) n;
        return 0;
}

static ssize_t get_by_path(const void *where, const char *name, void *value, size_t size) {
        return getxattr(where, name, value, size);
}

static ssize_t get_by_fd(const void *where, const char *name, void *value, size_t size) {
        return fgetxattr(*(const int *) where, name, value, size);
}

int fileio_get_xattr(const char *path, const char *name, char **ret, size_t *ret_size) {
        return get_xattr(get_by_path, path, name, ret, ret_size);
}

int fileio_fget_xattr(int fd, const char *name, char **ret, size_t *ret_size) {
        return get_xattr(get_by_fd, &fd, name, ret, ret_size);
}

int fileio_openat2(int dirfd, const char *path, struct open_how *how) {
        long fd = syscall(SYS_openat2, dirfd, path, how, sizeof(*how));

        return fd < 0 ? -errno : (int) fd;
}

bool fileio_is_temporary(const char *name) {
        const char *tmp = strstr(name, ".tmp-");

        return tmp && tmp != name && strlen(tmp + 5) == 6 && !strchr(tmp + 5, '.');
}

int fileio_unlink(const char *path) {
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

int fileio_mkdir_p(const char *path, mode_t mode) {
        _cleanup_free_ char *copy = strdup(path);

        if (!copy)
                return -ENOMEM;
        for (char *p = copy + 1; ; p++) {
                if (*p != '/' && *p != '\0')
                        continue;
                char saved = *p;

                *p = '\0';
                if (copy[0] != '\0' && mkdir(copy, mode) < 0 && errno != EEXIST)
                        return -errno;
                *p = saved;
                if (saved == '\0')
                        break;
        }
        return 0;
}

char *fileio_join(const char *dir, const char *name) {
        char *joined;
        size_t len = strlen(dir);

        while (len > 1 && dir[len - 1] == '/')
                len--;
        if (asprintf(&joined, "%.*s/%s", (int) len, dir, name) < 0)
                return NULL;
        return joined;
}

int file_snapshot_new(const char *path, FileSnapshot **ret) {
        _cleanup_(file_snapshot_freep) FileSnapshot *s = calloc(1, sizeof(*s));
        struct stat st;
        int r;

        if (!s)
                return -ENOMEM;
        s->path = strdup(path);
        if (!s->path)
                return -ENOMEM;
        if (stat(path, &st) < 0) {
                if (errno != ENOENT)
                        return -errno;
                *ret = TAKE_PTR(s);
                return 0;
        }
        r = fileio_read(path, &s->data, &s->size);
        if (r < 0)
                return r;
        s->exists = true;
        s->mode = st.st_mode & 07777;
        *ret = TAKE_PTR(s);
        return 0;
}

FileSnapshot *file_snapshot_free(FileSnapshot *s) {
        if (!s)
                return NULL;
        free(s->path);
        free(s->data);
        free(s);
        return NULL;
}

int file_snapshot_restore(const FileSnapshot *s) {
        if (!s->exists)
                return fileio_unlink(s->path);
        return fileio_write_atomic(s->path, s->data, s->size, s->mode);
}
