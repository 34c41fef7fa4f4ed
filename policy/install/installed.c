/*
 * The installed state, as files: manifest_dir/NAME.xml is package NAME's
 * manifest as it was installed, origin_dir/NAME its origin (one line).
 * Those two are the truth; rule files and policy.db are derived from them
 * and can always be regenerated.
 *
 * Every change to the state runs under an exclusive flock on the lock
 * file, so two package-manager runs cannot interleave. Loading refuses
 * the whole set when one installed manifest no longer loads: compiling
 * without it would silently unprotect its bus names (fail closed).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "device-policy.h"
#include "fileio.h"
#include "heap.h"
#include "installed.h"
#include "manifest-cache.h"
#include "manifest.h"
#include "model.h"
#include "policyset.h"
#include "registration.h"

#define MANIFEST_SUFFIX ".xml"

/* Heap a loaded package and its share of the compile take (16 KiB measured at 1,000). */
#define INSTALLED_HEAP_PER_PACKAGE (20u * 1024u)

int installed_lock(const ToolPaths *paths, int *ret_fd) {
        _cleanup_free_ char *dir = strdup(paths->lock_file);
        _cleanup_close_ int fd = -1;
        int r;

        if (!dir)
                return -ENOMEM;
        r = fileio_mkdir_p(dirname(dir), 0755);
        if (r < 0)
                return r;
        fd = open(paths->lock_file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        while (flock(fd, LOCK_EX) < 0)
                if (errno != EINTR)
                        return -errno;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

char *installed_manifest_path(const ToolPaths *paths, const char *package) {
        _cleanup_free_ char *name = NULL;

        if (asprintf(&name, "%s" MANIFEST_SUFFIX, package) < 0)
                return NULL;
        return fileio_join(paths->manifest_dir, name);
}

char *installed_origin_path(const ToolPaths *paths, const char *package) {
        return fileio_join(paths->origin_dir, package);
}

int installed_read_registration(const ToolPaths *paths, const char *package, Registration *ret) {
        _cleanup_free_ char *path = installed_origin_path(paths, package);
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        int r;

        if (!path)
                return -ENOMEM;
        r = fileio_read(path, &text, &size);
        if (r == -ENOENT) {
                *ret = (Registration) {};
                return 0;
        }
        if (r < 0)
                return r;
        r = registration_parse(text, size, ret);
        return r == REGISTRATION_E_INVALID ? -EBADMSG : r;
}

int installed_read_origin(const ToolPaths *paths, const char *package, char **ret) {
        Registration reg;
        int r = installed_read_registration(paths, package, &reg);

        if (r < 0)
                return r;
        *ret = TAKE_PTR(reg.origin);
        registration_clear(&reg);
        return 0;
}

static int compare_strings(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* NAME when entry is "NAME.xml" (allocated), else NULL with 0. */
static int entry_package(const char *entry, char **ret) {
        size_t n = strlen(entry), suffix = strlen(MANIFEST_SUFFIX);

        *ret = NULL;
        if (entry[0] == '.' || n <= suffix || strcmp(entry + n - suffix, MANIFEST_SUFFIX) != 0)
                return 0;
        *ret = strndup(entry, n - suffix);
        return *ret ? 0 : -ENOMEM;
}

/* The entries of dir that entry_name() accepts, sorted; none when dir does not exist. */
static int list_dir(const char *path, int (*entry_name)(const char *entry, char **ret),
                    char ***ret, size_t *ret_n) {
        DIR *dir = opendir(path);
        char **names = NULL;
        size_t n = 0;
        struct dirent *entry;
        int r = 0;

        if (!dir) {
                if (errno != ENOENT)
                        return -errno;
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        while ((entry = readdir(dir))) {
                char *name;

                r = entry_name(entry->d_name, &name);
                if (r < 0)
                        break;
                if (!name)
                        continue;
                r = model_append(&names, &n, name);
                if (r < 0) {
                        free(name);
                        break;
                }
        }
        closedir(dir);
        if (r < 0) {
                model_strv_free(names, n);
                return r;
        }
        if (n > 1)
                qsort(names, n, sizeof(char *), compare_strings);
        *ret = names;
        *ret_n = n;
        return 0;
}

/* The package from the cache when its files are as they were, else parsed (and cached). */
static int load_package(const ToolPaths *paths, ManifestCache *cache, const char *name,
                        const char *path, bool has_origin, Diagnostics *diag, Package **ret) {
        _cleanup_free_ char *origin_path = installed_origin_path(paths, name);
        _cleanup_free_ char *origin = NULL;
        FileKey manifest_key, origin_key = {};
        DiagnosticsMark mark = diagnostics_mark(diag);
        int r;

        if (!origin_path)
                return -ENOMEM;
        r = file_key_of(path, &manifest_key);
        if (r >= 0 && has_origin)
                r = file_key_of(origin_path, &origin_key);
        if (r >= 0)
                r = manifest_cache_get(cache, name, &manifest_key, &origin_key, path, diag, ret);
        if (r != 0)
                return r < 0 ? r : 0;
        /* Listed once for all packages: most have no origin file to open. */
        r = has_origin ? installed_read_origin(paths, name, &origin) : 0;
        if (r == -EBADMSG) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, origin_path, 0, 0, "not an origin file "
                                "(a first line with the origin, then \"Field: value\" lines "
                                "as mssf-policy writes them)");
                return INSTALLED_E_INVALID;
        }
        if (r < 0)
                return r;
        r = manifest_parse_file(path, name, origin, diag, ret);
        if (r == MANIFEST_E_INVALID)
                return INSTALLED_E_INVALID;
        if (r < 0)
                return r;
        return manifest_cache_put(cache, name, &manifest_key, &origin_key, origin, *ret, diag,
                                  &mark);
}

static int load_one(const ToolPaths *paths, PolicySet *set, ManifestCache *cache,
                    const char *name, bool has_origin, Diagnostics *diag) {
        _cleanup_free_ char *path = installed_manifest_path(paths, name);
        _cleanup_(package_freep) Package *package = NULL;
        int r;

        if (!path)
                return -ENOMEM;
        if (!manifest_valid_package_label(name)) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0,
                                "\"%s\" is not a valid package name: remove or rename this file",
                                name);
                return INSTALLED_E_INVALID;
        }
        r = load_package(paths, cache, name, path, has_origin, diag, &package);
        if (r != 0)
                return r;
        r = policy_set_add(set, package, diag);
        if (r > 0)
                return INSTALLED_E_INVALID;
        if (r < 0)
                return r;
        TAKE_PTR(package);
        return 0;
}

int installed_names(const ToolPaths *paths, char ***ret, size_t *ret_n) {
        return list_dir(paths->manifest_dir, entry_package, ret, ret_n);
}

/* Every file in the origin directory but hidden and temporary ones. */
static int entry_origin(const char *entry, char **ret) {
        *ret = NULL;
        if (entry[0] == '.' || fileio_is_temporary(entry))
                return 0;
        *ret = strdup(entry);
        return *ret ? 0 : -ENOMEM;
}

static bool sorted_contains(char *const *names, size_t n, const char *name) {
        return n > 0 && bsearch(&name, names, n, sizeof(char *), compare_strings);
}

static void names_free(char **names, size_t n) {
        model_strv_free(names, n);
}

int installed_load(const ToolPaths *paths, const char *skip, Diagnostics *diag, PolicySet **ret) {
        _cleanup_(device_policy_freep) DevicePolicy *device = NULL;
        _cleanup_(policy_set_freep) PolicySet *set = NULL;
        _cleanup_(manifest_cache_freep) ManifestCache *cache = NULL;
        char **names = NULL, **origins = NULL;
        size_t n_names = 0, n_origins = 0;
        int r, result = 0;

        r = device_policy_load(paths->device_policy, diag, &device);
        if (r == DEVICE_POLICY_E_INVALID)
                return INSTALLED_E_INVALID;
        if (r < 0)
                return r;
        r = policy_set_new(device, &set);
        if (r < 0)
                return r;
        TAKE_PTR(device);
        r = installed_names(paths, &names, &n_names);
        if (r >= 0)
                heap_reserve(n_names * INSTALLED_HEAP_PER_PACKAGE);
        if (r >= 0)
                r = list_dir(paths->origin_dir, entry_origin, &origins, &n_origins);
        if (r >= 0)
                r = manifest_cache_load(paths, &cache);
        for (size_t i = 0; r >= 0 && i < n_names; i++) {
                if (skip && strcmp(names[i], skip) == 0)
                        continue;
                r = load_one(paths, set, cache, names[i],
                             sorted_contains(origins, n_origins, names[i]), diag);
                if (r > 0)
                        result = r;
        }
        names_free(names, n_names);
        names_free(origins, n_origins);
        if (r < 0)
                return r;
        /* Only a run holding the lock writes it; a failure costs a parse next time. */
        if (paths->write_cache && result == 0)
                (void) manifest_cache_save(cache, paths);
        if (result > 0)
                return result;
        *ret = TAKE_PTR(set);
        return 0;
}
