/* The installed packages: their manifests, origins, and the lock that serialises changes. */
#pragma once

#include <stddef.h>

#include "diagnostic.h"
#include "paths.h"

typedef struct PolicySet PolicySet;

enum {
        INSTALLED_E_INVALID = 1,        /* an installed manifest or the device policy has errors */
};

/* Take the lock (flock on paths->lock_file, created with its directory); blocks. */
int installed_lock(const ToolPaths *paths, int *ret_fd);

/* manifest_dir/PACKAGE.xml and origin_dir/PACKAGE (allocated, or NULL). */
char *installed_manifest_path(const ToolPaths *paths, const char *package);
char *installed_origin_path(const ToolPaths *paths, const char *package);

/* The package's recorded origin: 0 and *ret (NULL when none or unknown), or -errno. */
int installed_read_origin(const ToolPaths *paths, const char *package, char **ret);

struct Registration;
/*
 * The whole origin file (registration.h): 0 and *ret (all NULL when there
 * is none), or -errno; -EBADMSG when it is not an origin file.
 */
int installed_read_registration(const ToolPaths *paths, const char *package,
                                struct Registration *ret);

/* Names of the installed packages (NAME.xml in manifest_dir), sorted. */
int installed_names(const ToolPaths *paths, char ***ret, size_t *ret_n);

/*
 * A policy set of the device policy and every installed manifest but skip
 * (nullable), not yet resolved. INSTALLED_E_INVALID when any of them has
 * errors (they are in diag): the installed state is refused as a whole
 * rather than compiled with a package missing, which would leave that
 * package's bus names unprotected.
 */
int installed_load(const ToolPaths *paths, const char *skip, Diagnostics *diag, PolicySet **ret);
