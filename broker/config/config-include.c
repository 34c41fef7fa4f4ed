/*
 * config-include: <include> and <includedir>, and reading files for them.
 *
 * An included file is parsed into a BusConfig of its own that starts from
 * the includer's limits (config_new_child()) and is merged only when the
 * whole file parsed (config_merge()), as dbus-daemon does. Cycles are found
 * by canonical path against the files being parsed right now; nesting is
 * bounded by CONFIG_MAX_INCLUDE_DEPTH and the whole load by
 * CONFIG_MAX_FILES. A missing <includedir> is fine; its *.conf files are
 * read in strcmp() order, and one that fails is skipped with a warning
 * (dbus-daemon logs it) unless BUS_CONFIG_STRICT.
 *
 * Trust: the paths come from root-owned configuration; we still never read
 * more than CONFIG_MAX_FILE_SIZE bytes of anything.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-internal.h"

/* Reads a whole file of at most CONFIG_MAX_FILE_SIZE bytes (-EFBIG beyond). */
int config_read_file(const char *path, char **ret_data, size_t *ret_size) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *data = NULL;
        struct stat st;
        size_t size = 0, cap;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (st.st_size > CONFIG_MAX_FILE_SIZE)
                return -EFBIG;
        cap = (size_t)st.st_size + 1;
        data = malloc(cap);
        if (!data)
                return -ENOMEM;
        for (;;) {
                ssize_t n;

                if (size == cap) {
                        /* The file grew, or is not a regular file. */
                        char *grown = cap > CONFIG_MAX_FILE_SIZE ? NULL : realloc(data, cap * 2);

                        if (!grown)
                                return cap > CONFIG_MAX_FILE_SIZE ? -EFBIG : -ENOMEM;
                        data = grown;
                        cap *= 2;
                }
                n = read(fd, data + size, cap - size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                size += (size_t)n;
        }
        if (size > CONFIG_MAX_FILE_SIZE)
                return -EFBIG;
        *ret_data = TAKE_PTR(data);
        *ret_size = size;
        return 0;
}

static const char *read_error(int r) {
        if (r == -EFBIG)
                return "File is larger than 1 MiB";
        return strerror(-r);
}

/* Files are told apart by canonical path when they exist, else by name. */
char *config_canonical_name(const char *name) {
        char *canonical = realpath(name, NULL);

        return canonical ? canonical : strdup(name);
}

static int include_check_cycle(ConfigFile *file, unsigned line, const char *path) {
        ConfigLoader *loader = file->loader;
        _cleanup_free_ char *canonical = config_canonical_name(path);

        if (!canonical)
                return config_error_oom(loader->err);
        for (unsigned i = 0; i < loader->depth; i++)
                if (strcmp(loader->stack[i], canonical) == 0)
                        return config_file_fail(file, line, "Circular inclusion of file '%s'", path);
        return 0;
}

/* Reads and parses an included file and merges it into file->config. */
int config_include_file(ConfigFile *file, unsigned line, const char *path, bool ignore_missing) {
        ConfigLoader *loader = file->loader;
        _cleanup_free_ char *data = NULL;
        _cleanup_(bus_config_freep) BusConfig *child = NULL;
        size_t size = 0;
        int r;

        if (loader->depth >= CONFIG_MAX_INCLUDE_DEPTH)
                return config_file_fail(file, line, "Includes nested deeper than %d levels at '%s'",
                                        CONFIG_MAX_INCLUDE_DEPTH, path);
        if (loader->n_files >= CONFIG_MAX_FILES)
                return config_file_fail(file, line, "More than %d configuration files", CONFIG_MAX_FILES);
        r = include_check_cycle(file, line, path);
        if (r != 0)
                return r;
        r = config_read_file(path, &data, &size);
        if (r == -ENOENT && ignore_missing)
                return 0;
        if (r == -ENOMEM)
                return config_error_oom(loader->err);
        if (r < 0)
                return config_file_fail(file, line, "Failed to open \"%s\": %s", path, read_error(r));
        r = config_parse_buffer(loader, path, data, size, file->config, &child);
        if (r != 0)
                return r;
        r = config_merge(file->config, child);
        return r < 0 ? config_error_oom(loader->err) : 0;
}

static int conf_name_compare(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_conf_files(const char *dir, char ***ret, size_t *ret_n) {
        DIR *d = opendir(dir);
        struct dirent *de;
        char **names = NULL;
        size_t n = 0;
        int r = 0;

        if (!d)
                return -errno;
        while (r >= 0 && (de = readdir(d))) {
                size_t len = strlen(de->d_name);

                if (len < 5 || strcmp(de->d_name + len - 5, ".conf") != 0)
                        continue;
                r = config_strv_push(&names, &n, de->d_name);
        }
        closedir(d);
        if (r < 0) {
                for (size_t i = 0; i < n; i++)
                        free(names[i]);
                free(names);
                return r;
        }
        if (n > 0)
                qsort(names, n, sizeof(char *), conf_name_compare);
        *ret = names;
        *ret_n = n;
        return 0;
}

/*
 * dbus-daemon logs and skips a file of an <includedir> that fails; we keep
 * its message in config->warnings (BUS_CONFIG_STRICT makes it fatal).
 */
static int include_dir_entry(ConfigFile *file, unsigned line, const char *path) {
        ConfigLoader *loader = file->loader;
        int r = config_include_file(file, line, path, true);

        if (r >= 0 && r != CONFIG_E_INVALID)
                return r;
        if (r < 0 || (loader->flags & BUS_CONFIG_STRICT))
                return r;
        r = config_strv_push(&file->config->warnings, &file->config->n_warnings,
                             loader->err->message);
        loader->err->message[0] = '\0';
        return r < 0 ? config_error_oom(loader->err) : 0;
}

int config_include_dir(ConfigFile *file, unsigned line, const char *dir) {
        char **names = NULL;
        size_t n = 0;
        int r;

        r = config_strv_push(&file->config->includedirs, &file->config->n_includedirs, dir);
        if (r < 0)
                return config_error_oom(file->loader->err);
        if (file->loader->flags & BUS_CONFIG_NO_INCLUDES)
                return 0;
        r = list_conf_files(dir, &names, &n);
        if (r == -ENOENT)
                return 0;
        if (r == -ENOMEM)
                return config_error_oom(file->loader->err);
        if (r < 0)
                return config_file_fail(file, line, "Failed to read directory \"%s\": %s", dir,
                                        strerror(-r));
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL;

                if (r == 0 && asprintf(&path, "%s/%s", dir, names[i]) < 0)
                        r = config_error_oom(file->loader->err);
                if (r == 0)
                        r = include_dir_entry(file, line, path);
                free(names[i]);
        }
        free(names);
        return r;
}

