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
 * One thing cannot be derived again: which files' security.ima the change
 * touched (dpkg's file list, or only the manifest's binaries, depends on
 * who ran it) and what each carried before (a hash, a signature, none).
 * So the journal also records, for every file the planned change will
 * touch, its security.ima as it was, and recovery writes exactly that
 * back (integrity_plan_restore()).
 *
 * Trust: the journal is ours, but after a crash it may be cut short or
 * garbled, so it is parsed as untrusted input: every size is checked
 * against what is left, counts are bounded (JOURNAL_MAX_FILES), paths
 * must be absolute and normal, values no longer than an xattr can be,
 * no file twice; a failure names the line. Whether each path lies under
 * the root is checked where the root is known (integrity.c).
 *
 * Format (text lines, each file's bytes verbatim after its size):
 *     mssf-policy journal 3
 *     package NAME
 *     ima-files COUNT
 *     file SIZE                (COUNT times: SIZE bytes of path, then a newline,
 *     <SIZE bytes>\n           the file's device and inode in decimal
 *     inode DEV INO            ("inode unknown" when it could not be opened),
 *     ima HEX                  then the value as it was: lower-case hex,
 *                              "ima absent" for none, "ima empty" for
 *                              a value of no bytes)
 *     origin-file SIZE         ("origin-file absent" when there was none)
 *     <SIZE bytes>
 *     manifest SIZE            ("manifest absent" when not installed)
 *     <SIZE bytes>
 * Version 3 is the same without the inode lines (recovery then writes on
 * whatever regular file is at the path). Version 2 is the same without
 * the ima-files section; version 1 (before origin files had more than the
 * origin, see registration.h) also had "origin ORIGIN" ("-" for none)
 * instead of origin-file. All are still read; for 1 and 2 recovery plans
 * the hashes again (journal.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "installed.h"
#include "integrity.h"
#include "journal.h"
#include "manifest.h"
#include "registration.h"
#include "strmap.h"

#define JOURNAL_MAGIC_1 "mssf-policy journal 1"
#define JOURNAL_MAGIC_2 "mssf-policy journal 2"
#define JOURNAL_MAGIC_3 "mssf-policy journal 3"
#define JOURNAL_MAGIC "mssf-policy journal 4"
/* The shortest entry of ima-files: "file 1\n/\nima absent\n". */
#define JOURNAL_MIN_IMA_ENTRY 20u

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

/* The ima-files section for saved. */
static void format_ima(FILE *f, const IntegritySaved *saved, size_t n) {
        fprintf(f, "ima-files %zu\n", n);
        for (size_t i = 0; i < n; i++) {
                fprintf(f, "file %zu\n%s\n", strlen(saved[i].file), saved[i].file);
                if (saved[i].has_inode)
                        fprintf(f, "inode %" PRIu64 " %" PRIu64 "\n", saved[i].dev, saved[i].ino);
                else
                        fputs("inode unknown\n", f);
                fputs("ima", f);
                if (!saved[i].value)
                        fputs(" absent", f);
                else if (saved[i].value_size == 0)
                        fputs(" empty", f);
                else
                        fputc(' ', f);
                for (size_t b = 0; saved[i].value && b < saved[i].value_size; b++)
                        fprintf(f, "%02x", saved[i].value[b]);
                fputc('\n', f);
        }
}

/* The journal's text for package's state on disk now. */
static int journal_format(const ToolPaths *paths, const char *package,
                          const IntegritySaved *saved, size_t n_saved, char **ret,
                          size_t *ret_size) {
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
        format_ima(f, saved, n_saved);
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

int journal_begin(const ToolPaths *paths, const SafeRoot *root, const char *package,
                  const IntegrityPlan *integrity) {
        _cleanup_free_ char *path = journal_path(paths), *text = NULL;
        IntegritySaved *saved = NULL;
        size_t size = 0, n_saved = integrity ? integrity->n_entries : 0;
        int r;

        if (!path)
                return -ENOMEM;
        /* What the next run could not read back must not be written. */
        if (n_saved > JOURNAL_MAX_FILES)
                return -E2BIG;
        r = integrity_plan_save(root, integrity, &saved);
        if (r < 0)
                return r;
        r = journal_format(paths, package, saved, n_saved, &text, &size);
        integrity_saved_free(saved, n_saved);
        if (r < 0)
                return r;
        if (size > FILEIO_MAX_SIZE)
                return -EFBIG;
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
        integrity_saved_free(journal->ima, journal->n_ima);
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

/* A count or size: decimal digits only, at most max. */
static int parse_size(const char *text, size_t max, size_t *ret) {
        unsigned long long n;
        char *tail = NULL;

        if (!isdigit((unsigned char) text[0]))
                return JOURNAL_E_CORRUPT;
        errno = 0;
        n = strtoull(text, &tail, 10);
        if (errno != 0 || *tail != '\0' || n > max)
                return JOURNAL_E_CORRUPT;
        *ret = (size_t) n;
        return 0;
}

/* After "KEY SIZE\n" (size in sizestr): the SIZE bytes at *p, or NULL for "absent". */
static int take_bytes(const char **p, const char *end, const char *sizestr, char **ret,
                      size_t *ret_size) {
        size_t n;
        int r;

        *ret = NULL;
        *ret_size = 0;
        if (strcmp(sizestr, "absent") == 0)
                return 0;
        r = parse_size(sizestr, (size_t) (end - *p), &n);
        if (r != 0)
                return r;
        *ret = malloc(n + 1);
        if (!*ret)
                return -ENOMEM;
        memcpy(*ret, *p, n);
        (*ret)[n] = '\0';
        *ret_size = n;
        *p += n;
        return 0;
}

/* "KEY SIZE\n<bytes>": both, with *p put back at KEY when they are not there. */
static int take_file(const char **p, const char *end, const char *key, char **ret,
                     size_t *ret_size) {
        _cleanup_free_ char *sizestr = NULL;
        const char *field = *p;
        int r;

        r = take_field(p, end, key, &sizestr);
        if (r == 0)
                r = take_bytes(p, end, sizestr, ret, ret_size);
        if (r != 0)
                *p = field;
        return r;
}

/* Version 2's origin file, whose first line is the origin. */
static int take_origin_file(Journal *j, const char **p, const char *end) {
        const char *field = *p;
        Registration reg;
        size_t size;
        int r;

        r = take_file(p, end, "origin-file", &j->origin_file, &size);
        if (r != 0 || !j->origin_file)
                return r;
        r = registration_parse(j->origin_file, size, &reg);
        if (r == REGISTRATION_E_INVALID) {
                *p = field;
                return JOURNAL_E_CORRUPT;
        }
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

/* An absolute path as realpath() gives it: no empty, "." or ".." component, no NUL. */
static bool path_normal(const char *path, size_t size) {
        if (size == 0 || size >= PATH_MAX || path[0] != '/' || memchr(path, '\0', size))
                return false;
        if (size == 1)
                return true;
        for (size_t i = 0; i < size; i++) {
                const char *component = path + i + 1;
                const char *next;
                size_t length;

                if (path[i] != '/')
                        continue;
                next = memchr(component, '/', size - i - 1);
                length = next ? (size_t) (next - component) : size - i - 1;
                if (length == 0 || (length == 1 && component[0] == '.') ||
                    (length == 2 && component[0] == '.' && component[1] == '.'))
                        return false;
        }
        return true;
}

static int hex_digit(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        return -1;
}

/* "absent", "empty" or lower-case HEX (at most an xattr's size) into saved's value. */
static int parse_value(const char *text, IntegritySaved *saved) {
        size_t length = strlen(text);

        if (strcmp(text, "absent") == 0)
                return 0;
        if (strcmp(text, "empty") != 0 && (length % 2 != 0 || length / 2 > FILEIO_XATTR_MAX))
                return JOURNAL_E_CORRUPT;
        if (strcmp(text, "empty") == 0)
                length = 0;
        saved->value = malloc(length / 2 + 1);
        if (!saved->value)
                return -ENOMEM;
        for (size_t i = 0; i < length / 2; i++) {
                int high = hex_digit(text[2 * i]), low = hex_digit(text[2 * i + 1]);

                if (high < 0 || low < 0)
                        return JOURNAL_E_CORRUPT;
                saved->value[i] = (uint8_t) (high << 4 | low);
        }
        saved->value_size = length / 2;
        return 0;
}

/*
 * One "file SIZE\n<path>\nima VALUE\n" entry: a normal absolute path that
 * seen does not hold yet. On failure *p is at the line that is wrong.
 */
/* "DEV INO" (two decimal numbers) or "unknown", into saved. */
static int parse_inode(const char *text, IntegritySaved *saved) {
        unsigned long long dev, ino;
        char *tail = NULL;

        if (strcmp(text, "unknown") == 0)
                return 0;
        if (!isdigit((unsigned char) text[0]))
                return JOURNAL_E_CORRUPT;
        errno = 0;
        dev = strtoull(text, &tail, 10);
        if (errno != 0 || *tail != ' ' || !isdigit((unsigned char) tail[1]))
                return JOURNAL_E_CORRUPT;
        ino = strtoull(tail + 1, &tail, 10);
        if (errno != 0 || *tail != '\0')
                return JOURNAL_E_CORRUPT;
        saved->has_inode = true;
        saved->dev = dev;
        saved->ino = ino;
        return 0;
}

static int take_ima_entry(IntegritySaved *saved, StrMap *seen, const char **p, const char *end,
                          bool with_inode) {
        _cleanup_free_ char *file = NULL, *value = NULL, *inode = NULL;
        const char *field = *p;
        size_t size = 0;
        int r;

        r = take_file(p, end, "file", &file, &size);
        if (r < 0)
                return r;
        if (r == 0 && (!file || !path_normal(file, size) || *p == end || **p != '\n' ||
                       strmap_get(seen, file)))
                r = JOURNAL_E_CORRUPT;
        if (r != 0) {
                *p = field;
                return r;
        }
        field = ++*p;
        if (with_inode) {
                r = take_field(p, end, "inode", &inode);
                if (r == 0)
                        r = parse_inode(inode, saved);
                if (r != 0) {
                        *p = field;
                        return r;
                }
                field = *p;
        }
        r = take_field(p, end, "ima", &value);
        if (r == 0)
                r = parse_value(value, saved);
        if (r != 0) {
                *p = field;
                return r;
        }
        saved->file = TAKE_PTR(file);
        /* The key is the entry's own string, freed only with the journal. */
        return strmap_put(seen, saved->file, saved);
}

/* Line numbers, counted once as the parser moves on. */
typedef struct LineCounter {
        const char *counted;            /* counted up to here */
        unsigned line;                  /* the line counted is on */
} LineCounter;

static unsigned line_at(LineCounter *lines, const char *p) {
        for (; lines->counted < p; lines->counted++)
                if (*lines->counted == '\n')
                        lines->line++;
        return lines->line;
}

/* Version 3's and 4's "ima-files COUNT" and its entries. */
static int take_ima_files(Journal *j, const char **p, const char *end, LineCounter *lines,
                          bool with_inodes) {
        _cleanup_free_ char *count = NULL;
        const char *field = *p;
        size_t n, most = (size_t) (end - *p) / JOURNAL_MIN_IMA_ENTRY;
        StrMap seen = {};
        int r;

        r = take_field(p, end, "ima-files", &count);
        if (r == 0)
                r = parse_size(count, most < JOURNAL_MAX_FILES ? most : JOURNAL_MAX_FILES, &n);
        if (r != 0) {
                *p = field;
                return r;
        }
        j->has_ima = true;
        if (n == 0)
                return 0;
        j->ima = calloc(n, sizeof(*j->ima));
        if (!j->ima)
                return -ENOMEM;
        j->n_ima = n;
        for (size_t i = 0; r == 0 && i < n; i++) {
                j->ima[i].line = line_at(lines, *p);
                r = take_ima_entry(&j->ima[i], &seen, p, end, with_inodes);
        }
        strmap_deinit(&seen);
        return r;
}

/* The version its first line says (1 to 4), or 0. */
static int journal_version(const char *text, size_t size) {
        const char *magics[] = { JOURNAL_MAGIC_1 "\n", JOURNAL_MAGIC_2 "\n", JOURNAL_MAGIC_3 "\n",
                                 JOURNAL_MAGIC "\n" };

        for (size_t i = 0; i < ELEMENTSOF(magics); i++)
                if (size > strlen(magics[i]) && memcmp(text, magics[i], strlen(magics[i])) == 0)
                        return (int) i + 1;
        return 0;
}

/* On failure *ret_where is where the journal goes wrong. */
static int parse_into(const char *text, size_t size, Journal *j, const char **ret_where) {
        const char *p = text, *end = text + size, *package_line;
        LineCounter lines = { .counted = text, .line = 1 };
        int version = journal_version(text, size);
        int r;

        *ret_where = text;
        if (version == 0)
                return JOURNAL_E_CORRUPT;
        package_line = p += strlen(JOURNAL_MAGIC) + 1;  /* every version's is as long */
        r = take_field(&p, end, "package", &j->package);
        if (r == 0 && !manifest_valid_package_label(j->package)) {
                p = package_line;
                r = JOURNAL_E_CORRUPT;
        }
        if (r == 0 && version >= 3)
                r = take_ima_files(j, &p, end, &lines, version >= 4);
        if (r == 0)
                r = version == 1 ? take_origin_line(j, &p, end) : take_origin_file(j, &p, end);
        if (r == 0)
                r = take_file(&p, end, "manifest", &j->manifest_data, &j->manifest_size);
        if (r == 0 && p != end)
                r = JOURNAL_E_CORRUPT;
        *ret_where = p;
        return r;
}

int journal_parse(const char *text, size_t size, Journal **ret, unsigned *ret_line) {
        _cleanup_(journal_freep) Journal *journal = calloc(1, sizeof(*journal));
        const char *where = text;
        int r;

        if (!journal)
                return -ENOMEM;
        r = parse_into(text, size, journal, &where);
        if (r == JOURNAL_E_CORRUPT && ret_line) {
                LineCounter lines = { .counted = text, .line = 1 };

                *ret_line = line_at(&lines, where);
        }
        if (r != 0)
                return r;
        *ret = TAKE_PTR(journal);
        return 0;
}

int journal_read(const ToolPaths *paths, Journal **ret, unsigned *ret_line) {
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
        return journal_parse(text, size, ret, ret_line);
}

int journal_clean_temporaries(const char *dir_path) {
        DIR *dir = opendir(dir_path);
        struct dirent *entry;
        int r = 0;

        if (!dir)
                return errno == ENOENT ? 0 : -errno;
        while ((entry = readdir(dir))) {
                _cleanup_free_ char *path = NULL;

                if (!fileio_is_temporary(entry->d_name))
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
