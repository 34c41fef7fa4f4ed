/*
 * The atomic writer of policy.db. The bus may load the file at any moment
 * (a reload races with an install), so the file at path is never written
 * in place: readers see the old inode or the new one. The temporary name
 * is path plus a random suffix from mkostemp(), in the same directory so
 * that rename() is atomic. Trusts its caller for the contents.
 */
#include "db-write.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"

static int write_all(int fd, const void *data, size_t size) {
        const char *p = data;

        while (size > 0) {
                ssize_t n = write(fd, p, size);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                p += n;
                size -= (size_t) n;
        }
        return 0;
}

static int fsync_directory_of(const char *path) {
        _cleanup_free_ char *copy = strdup(path);
        _cleanup_close_ int fd = -1;

        if (!copy)
                return -ENOMEM;
        fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        return fsync(fd) < 0 ? -errno : 0;
}

static int fill_temporary(int fd, const void *data, size_t size) {
        int r = write_all(fd, data, size);

        if (r < 0)
                return r;
        if (fchmod(fd, 0644) < 0 || fsync(fd) < 0)
                return -errno;
        return 0;
}

int policy_db_write(const char *path, const void *data, size_t size) {
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = -1;
        int r;

        if (!path || !*path || (!data && size > 0))
                return -EINVAL;
        if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
                tmp = NULL;
                return -ENOMEM;
        }
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = fill_temporary(fd, data, size);
        if (r == 0 && close(TAKE_FD(fd)) < 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                unlink(tmp);
                return r;
        }
        return fsync_directory_of(path);
}
