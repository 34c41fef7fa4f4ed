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
 * Format (text lines, each file's bytes verbatim after its size):
 *     mssf-policy journal 2
 *     package NAME
 *     origin-file SIZE         ("origin-file absent" when there was none)
 *     <SIZE bytes>
 *     manifest SIZE            ("manifest absent" when not installed)
 *     <SIZE bytes>
 * Version 1 (before origin files had more than the origin, see
 * registration.h) had "origin ORIGIN" ("-" for none) instead of
 * origin-file; it is still read.
 */
#include <ctype.h>
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
#include "registration.h"

#define JOURNAL_MAGIC_1 "mssf-policy journal 1"
#define JOURNAL_MAGIC "mssf-policy journal 2"

char *journal_path(const ToolPaths *paths) {
        char *path = NULL;

        if (asprintf(&path, "%s.journal", paths->lock_file) < 0)
                return NULL;
        return path;
}

/* "KEY SIZE\n<bytes>" or "KEY absent\n" for path's content now. */
static int format_file(FILE *f, const char *key, const char *path) {
        _cleanup_free_ char *data = NULL;
        size_t size = 0;
        int r = fileio_read(path, &data, &size);

        if (r == -ENOENT) {
                fprintf(f, "%s absent\n", key);
                return 0;
        }
        if (r < 0)
                return r;
        fprintf(f, "%s %zu\n", key, size);
        fwrite(data, 1, size, f);
        return 0;
}

/* The journal's text for package's state on disk now. */
static int journal_format(const ToolPaths *paths, const char *package, char **ret, size_t *ret_size) {
        _cleanup_free_ char *manifest_path = installed_manifest_path(paths, package);
        _cleanup_free_ char *origin_path = installed_origin_path(paths, package);
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        if (!manifest_path || !origin_path)
                return -ENOMEM;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        fprintf(f, JOURNAL_MAGIC "\npackage %s\n", package);
        r = format_file(f, "origin-file", origin_path);
        if (r >= 0)
                r = format_file(f, "manifest", manifest_path);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0)
                return r;
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
        free(journal->origin_file);
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

/* After "KEY SIZE\n" (size in sizestr): the SIZE bytes at *p, or NULL for "absent". */
static int take_bytes(const char **p, const char *end, const char *sizestr, char **ret,
                      size_t *ret_size) {
        unsigned long long n;
        char *tail = NULL;

        *ret = NULL;
        *ret_size = 0;
        if (strcmp(sizestr, "absent") == 0)
                return 0;
        errno = 0;
        n = strtoull(sizestr, &tail, 10);
        if (errno != 0 || *tail != '\0' || !isdigit((unsigned char) sizestr[0]) ||
            n > (unsigned long long) (end - *p))
                return JOURNAL_E_CORRUPT;
        *ret = malloc((size_t) n + 1);
        if (!*ret)
                return -ENOMEM;
        memcpy(*ret, *p, (size_t) n);
        (*ret)[n] = '\0';
        *ret_size = (size_t) n;
        *p += n;
        return 0;
}

/* Version 2's origin file, whose first line is the origin. */
static int take_origin_file(Journal *j, const char **p, const char *end) {
        _cleanup_free_ char *sizestr = NULL;
        Registration reg;
        size_t size;
        int r;

        r = take_field(p, end, "origin-file", &sizestr);
        if (r == 0)
                r = take_bytes(p, end, sizestr, &j->origin_file, &size);
        if (r != 0 || !j->origin_file)
                return r;
        r = registration_parse(j->origin_file, size, &reg);
        if (r == REGISTRATION_E_INVALID)
                return JOURNAL_E_CORRUPT;
        if (r < 0)
                return r;
        j->origin = TAKE_PTR(reg.origin);
        registration_clear(&reg);
        return 0;
}

/* Version 1's "origin ORIGIN" line. */
static int take_origin_line(Journal *j, const char **p, const char *end) {
        int r = take_field(p, end, "origin", &j->origin);

        if (r == 0 && strcmp(j->origin, "-") == 0) {
                free(j->origin);
                j->origin = NULL;
        }
        return r;
}

static int parse_into(const char *text, size_t size, Journal *j) {
        const char *p = text, *end = text + size;
        _cleanup_free_ char *manifest = NULL;
        size_t magic_len = strlen(JOURNAL_MAGIC);
        bool v1;
        int r;

        if (size <= magic_len)
                return JOURNAL_E_CORRUPT;
        v1 = memcmp(text, JOURNAL_MAGIC_1 "\n", magic_len + 1) == 0;
        if (!v1 && memcmp(text, JOURNAL_MAGIC "\n", magic_len + 1) != 0)
                return JOURNAL_E_CORRUPT;
        p += magic_len + 1;
        r = take_field(&p, end, "package", &j->package);
        if (r == 0)
                r = v1 ? take_origin_line(j, &p, end) : take_origin_file(j, &p, end);
        if (r == 0)
                r = take_field(&p, end, "manifest", &manifest);
        if (r != 0)
                return r;
        if (!manifest_valid_package_label(j->package))
                return JOURNAL_E_CORRUPT;
        r = take_bytes(&p, end, manifest, &j->manifest_data, &j->manifest_size);
        if (r != 0)
                return r;
        return p == end ? 0 : JOURNAL_E_CORRUPT;
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
