/*
 * The packages whose judged findings wait for the end of a package
 * manager's run.
 *
 * Whether a package's request is granted depends on the other packages
 * (diagnostic.h, Diagnostic.judged), and a package manager configures the
 * packages of one run one by one, in its own order. So a configure does
 * not print its judged findings; it lists its package here, and the run's
 * trigger, once everything is configured, judges them again and reports
 * those still true (deb/dpkg.c). The list is a file of ours beside the
 * lock (root's, in mssf-policy's state directory), read and written only
 * under the lock: still bounded and checked, as any file, a line that is
 * not a package label is skipped.
 */
#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "macro.h"
#include "manifest.h"
#include "paths.h"
#include "pending-findings.h"

char *pending_findings_path(const ToolPaths *paths) {
        _cleanup_free_ char *dir = strdup(paths->lock_file);

        return dir ? fileio_join(dirname(dir), "findings-pending") : NULL;
}

/* The list's text, "" when there is none. */
static int read_list(const char *path, char **ret, size_t *ret_size) {
        struct stat st;
        int r;

        *ret = NULL;
        *ret_size = 0;
        if (lstat(path, &st) < 0) {
                if (errno != ENOENT)
                        return -errno;
                *ret = strdup("");
                return *ret ? 0 : -ENOMEM;
        }
        if (!S_ISREG(st.st_mode))
                return -EBADMSG;
        if ((size_t) st.st_size > PENDING_FINDINGS_MAX_SIZE)
                return -EFBIG;
        r = fileio_read(path, ret, ret_size);
        if (r == 0 && *ret_size > PENDING_FINDINGS_MAX_SIZE) {
                free(*ret);
                *ret = NULL;
                return -EFBIG;
        }
        return r;
}

static bool listed(char *const *names, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(names[i], name) == 0)
                        return true;
        return false;
}

/* The valid names of text, each once, in order. */
static int parse_list(char *text, char ***ret, size_t *ret_n) {
        char **names = NULL, *save = NULL;
        size_t n = 0;

        for (char *name = strtok_r(text, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
                char **grown;

                if (!manifest_valid_package_label(name) || listed(names, n, name))
                        continue;
                grown = reallocarray(names, n + 1, sizeof(*names));
                if (grown)
                        names = grown;
                if (!grown || !(names[n] = strdup(name))) {
                        pending_findings_free(names, n);
                        return -ENOMEM;
                }
                n++;
        }
        *ret = names;
        *ret_n = n;
        return 0;
}

static int write_list(const char *path, char *const *names, size_t n) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;

        if (n == 0)
                return fileio_unlink(path);
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s\n", names[i]);
        if (fclose(f) != 0)
                return -ENOMEM;
        if (size > PENDING_FINDINGS_MAX_SIZE)
                return -EFBIG;
        return fileio_write_atomic(path, text, size, 0644);
}

int pending_findings_read(const ToolPaths *paths, char ***ret, size_t *ret_n) {
        _cleanup_free_ char *path = pending_findings_path(paths), *text = NULL;
        size_t size;
        int r;

        *ret = NULL;
        *ret_n = 0;
        if (!path)
                return -ENOMEM;
        r = read_list(path, &text, &size);
        return r < 0 ? r : parse_list(text, ret, ret_n);
}

int pending_findings_add(const ToolPaths *paths, const char *package) {
        _cleanup_free_ char *path = pending_findings_path(paths);
        char **names = NULL, **grown;
        size_t n = 0;
        int r;

        if (!path)
                return -ENOMEM;
        if (!manifest_valid_package_label(package))
                return -EINVAL;
        r = pending_findings_read(paths, &names, &n);
        if (r < 0)
                return r;
        if (listed(names, n, package)) {
                pending_findings_free(names, n);
                return 0;
        }
        grown = reallocarray(names, n + 1, sizeof(*names));
        if (grown)
                names = grown;
        if (!grown || !(names[n] = strdup(package))) {
                pending_findings_free(names, n);
                return -ENOMEM;
        }
        n++;
        r = write_list(path, names, n);
        pending_findings_free(names, n);
        return r;
}

int pending_findings_remove(const ToolPaths *paths, char *const *gone, size_t n_gone) {
        _cleanup_free_ char *path = pending_findings_path(paths);
        char **names = NULL;
        size_t n = 0, kept = 0;
        int r;

        if (!path)
                return -ENOMEM;
        r = pending_findings_read(paths, &names, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                if (listed(gone, n_gone, names[i])) {
                        free(names[i]);
                        continue;
                }
                names[kept++] = names[i];
        }
        r = write_list(path, names, kept);
        pending_findings_free(names, kept);
        return r;
}

void pending_findings_free(char **names, size_t n_names) {
        for (size_t i = 0; i < n_names; i++)
                free(names[i]);
        free(names);
}
