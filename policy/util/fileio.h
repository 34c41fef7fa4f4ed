/* File helpers for mssf-policy: bounded reads, atomic writes, snapshots. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "macro.h"

/* Files mssf-policy reads whole (manifests, rule files, policy.db). */
#define FILEIO_MAX_SIZE (64u * 1024u * 1024u)

/*
 * Read path whole into a NUL-terminated buffer (*ret_size without the NUL).
 * -ENOENT when absent, -EFBIG beyond FILEIO_MAX_SIZE, other -errno.
 */
int fileio_read(const char *path, char **ret, size_t *ret_size);

/*
 * A regular file of at most max bytes, read whole through fd from offset 0
 * (pread: fd's own offset is left alone) into a NUL-terminated buffer.
 * fd < 0 stands for an open() that failed, errno still set. 0; 1 with
 * *ret_why saying what the file is instead (errno's text, "not a regular
 * file", "larger than MAX"; valid until the next call); -errno.
 * A file that shrinks while it is read is returned as far as it went.
 */
int fileio_read_regular_fd(int fd, size_t max, char **ret, size_t *ret_size, const char **ret_why);

/*
 * Replace path with data: write a temporary file beside it, fsync, rename
 * over, fsync the directory. Readers see the old or the new file, never a
 * part. On failure path is unchanged and no temporary file is left.
 */
int fileio_write_atomic(const char *path, const void *data, size_t size, mode_t mode);

/* The kernel's XATTR_SIZE_MAX: no extended attribute's value is longer. */
#define FILEIO_XATTR_MAX 65536u

/*
 * An extended attribute's value, whole (NUL-terminated, *ret_size without
 * the NUL): 0 with *ret, which is NULL when path has no such attribute;
 * -E2BIG beyond FILEIO_XATTR_MAX; other -errno. Follows symlinks.
 */
int fileio_get_xattr(const char *path, const char *name, char **ret, size_t *ret_size);

/* The same through a descriptor (fgetxattr). */
int fileio_fget_xattr(int fd, const char *name, char **ret, size_t *ret_size);

struct open_how;
/*
 * openat2(2): the descriptor, or -errno (-ENOSYS on a kernel without it).
 * Its own function so that tests can take it away (-Wl,--wrap).
 */
int fileio_openat2(int dirfd, const char *path, struct open_how *how);

/* Whether a directory entry is one of fileio_write_atomic()'s unfinished writes ("NAME.tmp-XXXXXX"). */
bool fileio_is_temporary(const char *name);

/* unlink that treats an absent file as done. */
int fileio_unlink(const char *path);

/* mkdir -p with mode for what it creates. */
int fileio_mkdir_p(const char *path, mode_t mode);

/* "dir/name" (allocated) or NULL. */
char *fileio_join(const char *dir, const char *name);

/*
 * What a file was: its content and mode, or absent. Restoring puts that
 * back exactly (atomically), so a transaction can undo a write.
 */
typedef struct FileSnapshot {
        char *path;
        bool exists;
        char *data;                     /* (nullable) when !exists */
        size_t size;
        mode_t mode;
} FileSnapshot;

int file_snapshot_new(const char *path, FileSnapshot **ret);
FileSnapshot *file_snapshot_free(FileSnapshot *s);
int file_snapshot_restore(const FileSnapshot *s);

DEFINE_CLEANUP(FileSnapshot *, file_snapshot_free);
