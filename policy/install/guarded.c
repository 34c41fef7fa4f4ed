/*
 * Which paths are the device's MSSF configuration, and where a path a
 * package names really leads.
 *
 * The names come from packages (an archive's members, dpkg's lists, a
 * symlink's target), so they are only compared, never opened: a name is
 * made normal before it is compared, and one with ".." is not guessed at
 * (the caller refuses it). Where a name lands depends on the symlinks
 * already on the system: a package can ship "/usr/share/x/device-policy.conf"
 * where /usr/share/x is a link to /etc/mssf, and dpkg follows directory
 * links when it unpacks. guarded_resolve() therefore walks the tree as
 * the kernel would, reading links with readlinkat() under the root's
 * descriptor and opening nothing. Its answer is as good as the tree at
 * that moment: the callers run before any of the package's code does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "guarded.h"
#include "macro.h"

#define GUARDED_MAX_LINKS 40
#define GUARDED_PATH_MAX 4096

const char *const guarded_dirs[] = { "/etc/mssf", "/etc/smack/accesses.d", NULL };

static bool under(const char *path, const char *dir) {
        size_t length = strlen(dir);

        return strncmp(path, dir, length) == 0 && (path[length] == '/' || path[length] == '\0');
}

bool guarded_path(const char *path) {
        for (size_t i = 0; guarded_dirs[i]; i++)
                if (under(path, guarded_dirs[i]))
                        return true;
        return false;
}

bool guarded_reaches(const char *path) {
        if (strcmp(path, "/") == 0 || guarded_path(path))
                return true;
        for (size_t i = 0; guarded_dirs[i]; i++)
                if (under(guarded_dirs[i], path))
                        return true;
        return false;
}

int guarded_normalize(const char *name, char **ret) {
        _cleanup_free_ char *out = malloc(strlen(name) + 2);
        size_t length = 0;

        if (!out)
                return -ENOMEM;
        for (const char *p = name; *p;) {
                size_t n;

                p += strspn(p, "/");
                n = strcspn(p, "/");
                if (n == 0 || (n == 1 && p[0] == '.')) {
                        p += n;
                        continue;
                }
                if (n == 2 && p[0] == '.' && p[1] == '.')
                        return GUARDED_E_DOTDOT;
                out[length++] = '/';
                memcpy(out + length, p, n);
                length += n;
                p += n;
        }
        if (length == 0)
                out[length++] = '/';
        out[length] = '\0';
        *ret = TAKE_PTR(out);
        return 0;
}

/* Drop the last component of resolved[*length]: "/a/b" -> "/a", "/a" -> "" (the root). */
static void drop_last(char *resolved, size_t *length) {
        char *slash = strrchr(resolved, '/');

        if (slash) {
                *slash = '\0';
                *length = (size_t) (slash - resolved);
        }
}

/* Whether the tree has something (not followed) at resolved[0..length], "" being the root. */
static bool exists(int root_fd, const char *resolved, size_t length) {
        struct stat st;

        return length == 0 || fstatat(root_fd, resolved + 1, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static bool is_directory(int root_fd, const char *resolved) {
        struct stat st;

        return fstatat(root_fd, resolved + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The symlink at resolved, if any: the run's (unless a directory is there,
 * which dpkg leaves in place) or the tree's. 1 and target, 0 for none
 * (*missing set when nothing is there at all), or -errno.
 */
static int link_at(int root_fd, const GuardedRun *run, const char *resolved, bool *missing,
                   char target[static GUARDED_PATH_MAX + 1]) {
        const char *planned = run && run->link_at ? run->link_at(resolved, run->userdata) : NULL;
        ssize_t n;

        if (planned && !is_directory(root_fd, resolved)) {
                if (strlen(planned) > GUARDED_PATH_MAX)
                        return -ENAMETOOLONG;
                strcpy(target, planned);
                return 1;
        }
        n = readlinkat(root_fd, resolved + 1, target, GUARDED_PATH_MAX + 1);
        if (n < 0 && errno == EINVAL)
                return 0;               /* there, and no symlink */
        if (n < 0 && (errno == ENOENT || errno == ENOTDIR)) {
                *missing = true;
                return 0;
        }
        if (n < 0)
                return -errno;
        if ((size_t) n > GUARDED_PATH_MAX)
                return -ENAMETOOLONG;
        target[n] = '\0';
        return 1;
}

int guarded_resolve(int root_fd, const GuardedRun *run, const char *path, bool follow_last,
                    char **ret) {
        _cleanup_free_ char *todo = strdup(path);      /* what is left to walk */
        char resolved[GUARDED_PATH_MAX + 1] = "";       /* walked so far; "" is the root */
        char target[GUARDED_PATH_MAX + 1];
        size_t length = 0;
        unsigned links = 0;
        bool missing = false;                           /* resolved is not in the tree */

        *ret = NULL;
        if (!todo)
                return -ENOMEM;
        for (const char *p = todo; *p;) {
                char *next;
                size_t n;
                bool last;
                int r;

                p += strspn(p, "/");
                n = strcspn(p, "/");
                if (n == 0 || (n == 1 && p[0] == '.')) {
                        p += n;
                        continue;
                }
                if (n == 2 && p[0] == '.' && p[1] == '.') {
                        /* In a tree that is final, ".." past what is not there finds
                         * nothing; before a run, what is not there becomes a directory
                         * or stays away, unless the run makes it a symlink (link_at). */
                        if (missing && !run)
                                return GUARDED_E_UNKNOWN;
                        drop_last(resolved, &length);
                        missing = !exists(root_fd, resolved, length);
                        p += n;
                        continue;
                }
                if (length + 1 + n > GUARDED_PATH_MAX)
                        return -ENAMETOOLONG;
                resolved[length] = '/';
                memcpy(resolved + length + 1, p, n);
                length += 1 + n;
                resolved[length] = '\0';
                p += n;
                last = p[strspn(p, "/")] == '\0';
                if (last && !follow_last)
                        continue;
                if (missing && !(run && run->link_at))
                        continue;       /* nothing below a missing component is in the tree */
                r = link_at(root_fd, run, resolved, &missing, target);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                if (++links > GUARDED_MAX_LINKS)
                        return -ELOOP;
                /* The link is replaced by its target, which the rest follows. */
                drop_last(resolved, &length);
                if (target[0] == '/') {
                        resolved[0] = '\0';
                        length = 0;
                }
                missing = !exists(root_fd, resolved, length);
                if (asprintf(&next, "%s/%s", target, p) < 0)
                        return -ENOMEM;
                free(todo);
                todo = next;
                p = todo;
        }
        *ret = strdup(length > 0 ? resolved : "/");
        return *ret ? 0 : -ENOMEM;
}
