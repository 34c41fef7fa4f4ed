/*
 * The journal: what makes an install or remove all-or-nothing across a
 * crash or a power cut, not only across errors.
 *
 * The installed manifests and origins are the truth; rule files, labels,
 * kernel rules and policy.db are derived from them. So before a change
 * touches anything, the journal records the one package's manifest and
 * origin as they were (or that it was not installed), written atomically.
 * When the change commits or rolls back, the journal goes. If a run finds
 * a journal, the previous run died in the middle: it puts that package's
 * manifest and origin back and derives everything else again from the
 * manifests (install.c), which undoes whatever part of the change had
 * reached the disk or the kernel. Recovery is itself a transaction and
 * keeps the journal until it succeeds, so a crash during recovery is
 * recovered by the next run.
 *
 * Format (text header, then the manifest's bytes verbatim):
 *     mssf-policy journal 1
 *     package NAME
 *     origin ORIGIN            ("origin -" when none)
 *     manifest SIZE            ("manifest absent" when not installed)
 *     <SIZE bytes>
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "installed.h"
#include "journal.h"
#include "manifest.h"

#define JOURNAL_MAGIC "mssf-policy journal 1"

char *journal_path(const ToolPaths *paths) {
        char *path = NULL;

        if (asprintf(&path, "%s.journal", paths->lock_file) < 0)
                return NULL;
        return path;
}

/* The journal's text for package's state on disk now. */
static int journal_format(const ToolPaths *paths, const char *package, char **ret, size_t *ret_size) {
        _cleanup_free_ char *manifest_path = installed_manifest_path(paths, package);
        _cleanup_free_ char *manifest = NULL, *origin = NULL, *text = NULL;
        size_t manifest_size = 0, size = 0;
        FILE *f;
        int r;

        if (!manifest_path)
                return -ENOMEM;
        r = fileio_read(manifest_path, &manifest, &manifest_size);
        if (r < 0 && r != -ENOENT)
                return r;
        r = installed_read_origin(paths, package, &origin);
        if (r < 0)
                return r;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        fprintf(f, JOURNAL_MAGIC "\npackage %s\norigin %s\n", package, origin ? origin : "-");
        if (manifest) {
                fprintf(f, "manifest %zu\n", manifest_size);
                fwrite(manifest, 1, manifest_size, f);
        } else {
                fprintf(f, "manifest absent\n");
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        *ret_size = size;
        return 0;
}

int journal_begin(const ToolPaths *paths, const char *package) {
        _cleanup_free_ char *path = journal_path(paths), *text = NULL;
        size_t size = 0;
        int r;

        if (!path)
                return -ENOMEM;
        r = journal_format(paths, package, &text, &size);
        if (r < 0)
                return r;
        return fileio_write_atomic(path, text, size, 0600);
}

int journal_end(const ToolPaths *paths) {
        _cleanup_free_ char *path = journal_path(paths);

        if (!path)
                return -ENOMEM;
        return fileio_unlink(path);
}

Journal *journal_free(Journal *journal) {
        if (!journal)
                return NULL;
        free(journal->package);
        free(journal->origin);
        free(journal->manifest_data);
        free(journal);
        return NULL;
}

/* "KEY VALUE\n" at *p: VALUE copied into *ret; advances *p. */
static int take_field(const char **p, const char *end, const char *key, char **ret) {
        size_t key_len = strlen(key);
        const char *newline = memchr(*p, '\n', (size_t) (end - *p));

        if (!newline || (size_t) (newline - *p) <= key_len + 1 ||
            strncmp(*p, key, key_len) != 0 || (*p)[key_len] != ' ' ||
            memchr(*p, '\0', (size_t) (newline - *p)))
                return JOURNAL_E_CORRUPT;
        *ret = strndup(*p + key_len + 1, (size_t) (newline - *p) - key_len - 1);
        if (!*ret)
                return -ENOMEM;
        *p = newline + 1;
        return 0;
}

static int parse_into(const char *text, size_t size, Journal *j) {
        const char *p = text, *end = text + size;
        _cleanup_free_ char *manifest = NULL;
        size_t magic_len = strlen(JOURNAL_MAGIC);
        char *tail = NULL;
        unsigned long long n;
        int r;

        if (size <= magic_len || memcmp(text, JOURNAL_MAGIC "\n", magic_len + 1) != 0)
                return JOURNAL_E_CORRUPT;
        p += magic_len + 1;
        r = take_field(&p, end, "package", &j->package);
        if (r == 0)
                r = take_field(&p, end, "origin", &j->origin);
        if (r == 0)
                r = take_field(&p, end, "manifest", &manifest);
        if (r != 0)
                return r;
        if (!manifest_valid_package_label(j->package))
                return JOURNAL_E_CORRUPT;
        if (strcmp(j->origin, "-") == 0) {
                free(j->origin);
                j->origin = NULL;
        }
        if (strcmp(manifest, "absent") == 0)
                return p == end ? 0 : JOURNAL_E_CORRUPT;
        errno = 0;
        n = strtoull(manifest, &tail, 10);
        if (errno != 0 || *tail != '\0' || n != (unsigned long long) (end - p))
                return JOURNAL_E_CORRUPT;
        j->manifest_data = malloc((size_t) n + 1);
        if (!j->manifest_data)
                return -ENOMEM;
        memcpy(j->manifest_data, p, (size_t) n);
        j->manifest_data[n] = '\0';
        j->manifest_size = (size_t) n;
        return 0;
}

int journal_parse(const char *text, size_t size, Journal **ret) {
        _cleanup_(journal_freep) Journal *journal = calloc(1, sizeof(*journal));
        int r;

        if (!journal)
                return -ENOMEM;
        r = parse_into(text, size, journal);
        if (r != 0)
                return r;
        *ret = TAKE_PTR(journal);
        return 0;
}

int journal_read(const ToolPaths *paths, Journal **ret) {
        _cleanup_free_ char *path = journal_path(paths), *text = NULL;
        size_t size = 0;
        int r;

        if (!path)
                return -ENOMEM;
        r = fileio_read(path, &text, &size);
        if (r == -ENOENT) {
                *ret = NULL;
                return 0;
        }
        if (r < 0)
                return r;
        return journal_parse(text, size, ret);
}

/* "NAME.tmp-XXXXXX", as mkostemp() in fileio_write_atomic() makes them. */
static bool is_temporary(const char *name) {
        const char *tmp = strstr(name, ".tmp-");

        return tmp && tmp != name && strlen(tmp + 5) == 6 && !strchr(tmp + 5, '.');
}

int journal_clean_temporaries(const char *dir_path) {
        DIR *dir = opendir(dir_path);
        struct dirent *entry;
        int r = 0;

        if (!dir)
                return errno == ENOENT ? 0 : -errno;
        while ((entry = readdir(dir))) {
                _cleanup_free_ char *path = NULL;

                if (!is_temporary(entry->d_name))
                        continue;
                path = fileio_join(dir_path, entry->d_name);
                if (!path) {
                        r = -ENOMEM;
                        break;
                }
                r = fileio_unlink(path);
                if (r < 0)
                        break;
        }
        closedir(dir);
        return r;
}
