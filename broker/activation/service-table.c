/*
 * service-table: every activatable name of the bus, read from the
 * configured servicedirs at start and on reload.
 *
 * Directories come in priority order (the config's order); within one,
 * files are read in name order so the result does not depend on readdir.
 * The first file to provide a name wins and later ones are reported, as
 * dbus-daemon does. The table is immutable once built: a reload builds a
 * new table and swaps it in.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service-file.h"
#include "strmap.h"

#define SERVICE_TABLE_MAX_FILES 65536u

struct ServiceTable {
        StrMap by_name;                 /* name -> ServiceFile (owned) */
        const char **names;             /* (owned array) sorted */
        size_t n_names;
};

typedef struct Warnings {
        char **lines;
        size_t n;
} Warnings;

_printf_(2, 3) static int warn(Warnings *w, const char *fmt, ...) {
        char *line = NULL;
        va_list ap;
        va_start(ap, fmt);
        int r = vasprintf(&line, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        char **grown = reallocarray(w->lines, w->n + 2, sizeof(char *));
        if (!grown) {
                free(line);
                return -ENOMEM;
        }
        grown[w->n++] = line;
        grown[w->n] = NULL;
        w->lines = grown;
        return 0;
}

ServiceTable *service_table_free(ServiceTable *table) {
        if (!table)
                return NULL;
        size_t iter = 0;
        const char *key;
        void *value;
        while (strmap_next(&table->by_name, &iter, &key, &value))
                service_file_free(value);
        strmap_deinit(&table->by_name);
        free(table->names);
        free(table);
        return NULL;
}

static bool has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);
        return n > m && strcmp(s + n - m, suffix) == 0;
}

static int add_file(ServiceTable *table, const char *dir, const char *entry, unsigned flags, Warnings *w) {
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/%s", dir, entry) < 0)
                return -ENOMEM;
        ServiceFileError err = { { 0 } };
        _cleanup_(service_file_freep) ServiceFile *file = NULL;
        int r = service_file_load(path, &file, &err);
        if (r == -ENOMEM)
                return r;
        if (r != 0)
                return warn(w, "%s: skipped", err.message);
        size_t n = strlen(file->name);
        if ((flags & SERVICE_TABLE_STRICT_NAMING) &&
            (strncmp(entry, file->name, n) != 0 || strcmp(entry + n, ".service") != 0))
                return warn(w, "%s: should be named \"%s.service\" for Name=%s: skipped", path, file->name,
                            file->name);
        const ServiceFile *earlier = strmap_get(&table->by_name, file->name);
        if (earlier)
                return warn(w, "%s: Name=%s is already provided by %s: skipped", path, file->name,
                            earlier->path);
        r = strmap_put(&table->by_name, file->name, file);
        if (r < 0)
                return r;
        TAKE_PTR(file);
        return 0;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int add_dir(ServiceTable *table, const char *dir, unsigned flags, Warnings *w) {
        struct dirent **entries = NULL;
        int n = scandir(dir, &entries, NULL, alphasort);
        if (n < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : warn(w, "%s: %s: skipped", dir, strerror(errno));
        int r = 0;
        for (int i = 0; i < n; i++) {
                if (r == 0 && has_suffix(entries[i]->d_name, ".service")) {
                        if (strmap_size(&table->by_name) >= SERVICE_TABLE_MAX_FILES)
                                r = warn(w, "%s: more than %u service files: the rest is skipped", dir,
                                         SERVICE_TABLE_MAX_FILES);
                        else
                                r = add_file(table, dir, entries[i]->d_name, flags, w);
                }
                free(entries[i]);
        }
        free(entries);
        return r;
}

static int index_names(ServiceTable *table) {
        table->n_names = strmap_size(&table->by_name);
        table->names = calloc(table->n_names + 1, sizeof(char *));
        if (!table->names)
                return -ENOMEM;
        size_t iter = 0, i = 0;
        const char *key;
        void *value;
        while (strmap_next(&table->by_name, &iter, &key, &value))
                table->names[i++] = ((ServiceFile *)value)->name;
        qsort(table->names, table->n_names, sizeof(char *), cmp_str);
        return 0;
}

int service_table_load(char *const *dirs, size_t n_dirs, unsigned flags, ServiceTable **ret,
                       char ***ret_warnings) {
        _cleanup_(service_table_freep) ServiceTable *table = calloc(1, sizeof(*table));
        Warnings w = { 0 };
        if (!table)
                return -ENOMEM;
        strmap_init(&table->by_name);
        int r = 0;
        for (size_t i = 0; i < n_dirs && r >= 0; i++)
                r = add_dir(table, dirs[i], flags, &w);
        if (r >= 0)
                r = index_names(table);
        if (r < 0) {
                service_strv_free(w.lines);
                return r;
        }
        if (ret_warnings)
                *ret_warnings = w.lines;
        else
                service_strv_free(w.lines);
        *ret = TAKE_PTR(table);
        return 0;
}

const ServiceFile *service_table_lookup(const ServiceTable *table, const char *name) {
        return table ? strmap_get(&table->by_name, name) : NULL;
}

size_t service_table_names(const ServiceTable *table, const char *const **ret_names) {
        *ret_names = table->names;
        return table->n_names;
}
