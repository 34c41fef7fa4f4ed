/*
 * The record of an rpm transaction in progress (rpm-record.h has the
 * format): what the plugin did that rpm's own state does not show and a
 * crash could leave behind (a manifest checked and its binaries labelled
 * by descriptor before the package was registered, an erase begun), so
 * that the next run finishes or undoes it (rpm-recover.c).
 *
 * The file is ours, written atomically, but after a crash it is read as
 * untrusted input: one entry a line, every field checked (a package name
 * must be one we could register, a path normal and absolute, a digest
 * hexadecimal), and a line that is not one of ours makes the whole record
 * refused with its line, never half-applied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "manifest.h"
#include "rpm-record.h"

#define RPM_RECORD_MAGIC "mssf-policy rpm transaction 1"
#define RPM_RECORD_MAX_SIZE (16u << 20)

char *rpm_record_path(const ToolPaths *paths) {
        char *path = NULL;

        if (asprintf(&path, "%s.rpm", paths->lock_file) < 0)
                return NULL;
        return path;
}

int rpm_record_new(RpmRecord **ret) {
        *ret = calloc(1, sizeof(**ret));
        return *ret ? 0 : -ENOMEM;
}

static void entry_clear(RpmRecordEntry *e) {
        free(e->name);
        free(e->version);
        free(e->sha256);
        free(e->origin);
        free(e->key);
        free(e->path);
}

RpmRecord *rpm_record_free(RpmRecord *record) {
        if (!record)
                return NULL;
        for (size_t i = 0; i < record->n_entries; i++)
                entry_clear(&record->entries[i]);
        free(record->entries);
        free(record->suffix);
        free(record);
        return NULL;
}

static int dup_nullable(const char *s, char **ret) {
        *ret = NULL;
        if (!s)
                return 0;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

int rpm_record_add(RpmRecord *record, RpmRecordKind kind, const char *name, const char *version,
                   const char *sha256, const char *origin, const char *key, const char *path) {
        RpmRecordEntry e = { .kind = kind }, *entries;
        int r;

        r = dup_nullable(name, &e.name);
        if (r >= 0)
                r = dup_nullable(version, &e.version);
        if (r >= 0)
                r = dup_nullable(sha256, &e.sha256);
        if (r >= 0)
                r = dup_nullable(origin, &e.origin);
        if (r >= 0)
                r = dup_nullable(key, &e.key);
        if (r >= 0)
                r = dup_nullable(path, &e.path);
        entries = r >= 0 ? reallocarray(record->entries, record->n_entries + 1, sizeof(e)) : NULL;
        if (!entries) {
                entry_clear(&e);
                return -ENOMEM;
        }
        record->entries = entries;
        entries[record->n_entries++] = e;
        return 0;
}

void rpm_record_forget(RpmRecord *record, const char *name) {
        size_t kept = 0;

        for (size_t i = 0; i < record->n_entries; i++) {
                if (strcmp(record->entries[i].name, name) == 0) {
                        entry_clear(&record->entries[i]);
                        continue;
                }
                record->entries[kept++] = record->entries[i];
        }
        record->n_entries = kept;
}

static const char *or_dash(const char *s) {
        return s && *s ? s : "-";
}

int rpm_record_write(const ToolPaths *paths, const RpmRecord *record) {
        _cleanup_free_ char *path = rpm_record_path(paths), *text = NULL;
        size_t size = 0;
        FILE *f;

        if (!path)
                return -ENOMEM;
        if (!record)
                return fileio_unlink(path);
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        fprintf(f, RPM_RECORD_MAGIC "\n");
        if (record->suffix)
                fprintf(f, "suffix %s\n", record->suffix);
        for (size_t i = 0; i < record->n_entries; i++) {
                const RpmRecordEntry *e = &record->entries[i];

                switch (e->kind) {
                case RPM_RECORD_INSTALL:
                        fprintf(f, "install %s %s %s %s %s\n", e->name, e->version, e->sha256,
                                or_dash(e->origin), or_dash(e->key));
                        break;
                case RPM_RECORD_LABEL:
                        fprintf(f, "label %s %s\n", e->name, e->path);
                        break;
                case RPM_RECORD_ERASE:
                        fprintf(f, "erase %s\n", e->name);
                        break;
                }
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        return fileio_write_atomic(path, text, size, 0600);
}

/* A word of printable ASCII, no spaces (a version, an origin, a suffix). */
static bool word_valid(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (*s <= ' ' || *s >= 0x7f)
                        return false;
        return true;
}

static bool hex_valid(const char *s, size_t length) {
        size_t n = 0;

        for (; s[n]; n++)
                if (hex_digit_value(s[n]) < 0)
                        return false;
        return n == length || (length == 0 && (n == 40 || n == 64));
}

static bool path_valid(const char *s) {
        for (const char *c = s; *c; c++)
                if ((unsigned char) *c < ' ' || *c == 0x7f)
                        return false;
        return manifest_valid_file_path(s);
}

/* "-" as NULL. */
static const char *nullable(const char *s) {
        return strcmp(s, "-") == 0 ? NULL : s;
}

/* One entry line (modified in place): 0, RPM_RECORD_E_CORRUPT, or -ENOMEM. */
static int parse_entry(RpmRecord *record, char *line) {
        char *words[6] = {}, *save = NULL, *rest;
        size_t n = 0;

        /* The path of a label entry is the rest of its line, spaces and all. */
        if (strncmp(line, "label ", 6) == 0) {
                rest = strchr(line + 6, ' ');
                if (!rest)
                        return RPM_RECORD_E_CORRUPT;
                *rest++ = '\0';
                if (!manifest_valid_package_label(line + 6) || !path_valid(rest))
                        return RPM_RECORD_E_CORRUPT;
                return rpm_record_add(record, RPM_RECORD_LABEL, line + 6, NULL, NULL, NULL, NULL,
                                      rest);
        }
        for (char *w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
                if (n == ELEMENTSOF(words))
                        return RPM_RECORD_E_CORRUPT;
                words[n++] = w;
        }
        if (n == 2 && strcmp(words[0], "suffix") == 0 && !record->suffix && word_valid(words[1]))
                return (record->suffix = strdup(words[1])) ? 0 : -ENOMEM;
        if (n == 2 && strcmp(words[0], "erase") == 0 && manifest_valid_package_label(words[1]))
                return rpm_record_add(record, RPM_RECORD_ERASE, words[1], NULL, NULL, NULL, NULL,
                                      NULL);
        if (n == 6 && strcmp(words[0], "install") == 0 && manifest_valid_package_label(words[1]) &&
            word_valid(words[2]) && hex_valid(words[3], 64) &&
            (strcmp(words[4], "-") == 0 || manifest_valid_label(words[4])) &&
            (strcmp(words[5], "-") == 0 || hex_valid(words[5], 0)))
                return rpm_record_add(record, RPM_RECORD_INSTALL, words[1], words[2], words[3],
                                      nullable(words[4]), nullable(words[5]), NULL);
        return RPM_RECORD_E_CORRUPT;
}

int rpm_record_parse(const char *text, size_t size, RpmRecord **ret, unsigned *ret_line) {
        _cleanup_(rpm_record_freep) RpmRecord *record = NULL;
        _cleanup_free_ char *copy = NULL;
        unsigned line_no = 0;
        char *line, *next;
        int r;

        if (memchr(text, '\0', size) || !(copy = strndup(text, size)))
                return copy ? RPM_RECORD_E_CORRUPT : -ENOMEM;
        r = rpm_record_new(&record);
        if (r < 0)
                return r;
        for (line = copy; line && *line; line = next) {
                next = strchr(line, '\n');
                if (!next) {
                        r = RPM_RECORD_E_CORRUPT;       /* cut short */
                } else {
                        *next++ = '\0';
                        r = ++line_no == 1 ? (strcmp(line, RPM_RECORD_MAGIC) == 0 ? 0 :
                                              RPM_RECORD_E_CORRUPT) :
                                             parse_entry(record, line);
                }
                if (r != 0) {
                        if (ret_line)
                                *ret_line = line_no + (next ? 0 : 1);
                        return r;
                }
        }
        if (line_no == 0) {
                if (ret_line)
                        *ret_line = 1;
                return RPM_RECORD_E_CORRUPT;
        }
        *ret = TAKE_PTR(record);
        return 0;
}

int rpm_record_read(const ToolPaths *paths, RpmRecord **ret, unsigned *ret_line) {
        _cleanup_free_ char *path = rpm_record_path(paths), *text = NULL;
        size_t size = 0;
        int r;

        *ret = NULL;
        if (!path)
                return -ENOMEM;
        r = fileio_read(path, &text, &size);
        if (r == -ENOENT)
                return 0;
        if (r == -EFBIG || (r >= 0 && size > RPM_RECORD_MAX_SIZE)) {
                if (ret_line)
                        *ret_line = 0;
                return RPM_RECORD_E_CORRUPT;
        }
        if (r < 0)
                return r;
        return rpm_record_parse(text, size, ret, ret_line);
}
