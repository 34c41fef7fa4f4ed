/* Files that packages name, opened under a root without following any symlink. */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>

#include "macro.h"

/*
 * The root that package paths are resolved in: "/" on a device, --root
 * in an image or a test. It is opened once, and which merged-/usr aliases
 * (/bin -> usr/bin, ...) it has is read once.
 */
typedef struct SafeRoot SafeRoot;

enum {
        SAFE_ROOT_E_PATH = 1,           /* not absolute, or a ".", ".." or empty component */
        SAFE_ROOT_E_MISSING,            /* nothing there (or a component is not a directory) */
        SAFE_ROOT_E_SYMLINK,            /* a symbolic link is on the way, or is the file */
        SAFE_ROOT_E_NOT_REGULAR,        /* a directory, device, FIFO or socket */
};

/* root: a directory ("" or NULL: "/"). 0 and *ret, or -errno. */
int safe_root_new(const char *root, SafeRoot **ret);
SafeRoot *safe_root_free(SafeRoot *root);

/* The root's own path, absolute and without links ("/", or where --root is). */
const char *safe_root_path(const SafeRoot *root);
/* path (inside the root) as the host names it: the root's path + path (allocated). */
char *safe_root_host_path(const SafeRoot *root, const char *path);
/* host_path's part inside the root ("/usr/bin/x"), or NULL when it is not under it (lexically). */
const char *safe_root_inside(const SafeRoot *root, const char *host_path);

/*
 * path as the file is found in the root (allocated into *ret): path must
 * be absolute and normal (no empty, "." or ".." component, no trailing
 * slash), else SAFE_ROOT_E_PATH. Its first component is replaced where the
 * root has that merged-/usr alias ("/bin/sh" -> "/usr/bin/sh" when the
 * root's bin is the symlink usr/bin): the only symlinks this module
 * follows, because on a merged-/usr system dpkg's lists still name /bin
 * and /lib and no package can change those links.
 */
int safe_root_canonical(const SafeRoot *root, const char *path, char **ret);

/*
 * Open the regular file at path (canonical) for reading and for its
 * extended attributes, following no symlink at any step and not leaving
 * the root (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where the kernel
 * has it, one O_NOFOLLOW component at a time where it does not). Never
 * blocks (O_NONBLOCK: a FIFO is refused, not waited on) and never takes a
 * controlling terminal. 0 with *ret_fd and *ret_st; SAFE_ROOT_E_* as the
 * verdict (the file is not opened; with SAFE_ROOT_E_NOT_REGULAR, *ret_st
 * says what it is); -errno.
 */
int safe_root_open(const SafeRoot *root, const char *path, int *ret_fd, struct stat *ret_st);

/*
 * After SAFE_ROOT_E_SYMLINK: the first component of path (canonical) that
 * is a symlink, and where it points, as "/opt/x -> /usr/sbin"
 * (allocated), or NULL when it is no longer one (it changed since).
 */
char *safe_root_describe_symlink(const SafeRoot *root, const char *path);

/* Whether two stats are the same file (device and inode). */
bool safe_root_same_file(const struct stat *a, const struct stat *b);

DEFINE_CLEANUP(SafeRoot *, safe_root_free);
