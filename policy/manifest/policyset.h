/* The set of installed packages: loading, cross-package checks, grants. */
#pragma once

#include "diagnostic.h"
#include "model.h"

enum {
        POLICY_SET_E_INVALID = 1,       /* errors were added to diag */
        POLICY_SET_E_EXISTS,            /* a package of that name is in the set */
        POLICY_SET_E_CONFLICT,          /* it claims a bus name another package declares */
};

/*
 * Add one package. On success the set owns it; on any failure the caller
 * still does. A bus name already declared by another package is an error
 * naming both file:line (POLICY_SET_E_CONFLICT).
 */
int policy_set_add(PolicySet *set, Package *package, Diagnostics *diag);
/* Remove (and free) the package called name: 0, or -ENOENT. */
int policy_set_remove(PolicySet *set, const char *name);

/*
 * Load every NAME.xml of dir as package NAME (NAME must be a valid package
 * label), with its origin from NAME.origin (first line) when that exists.
 * Files that fail are reported and skipped; returns 0 if every file loaded,
 * POLICY_SET_E_INVALID if some did not, -errno if dir cannot be read.
 */
int policy_set_load_dir(PolicySet *set, const char *dir, Diagnostics *diag);

/*
 * Compute every package's grants (Package.grants) from the requests, the
 * tokens the set provides and the device policy. A request for a token no
 * package and no device policy provides is reported (warning) and not
 * granted. Returns 0 or -ENOMEM.
 */
int policy_set_resolve(PolicySet *set, Diagnostics *diag);

/* Whether package holds the granted credential name (after resolve). */
bool policy_set_is_granted(const Package *package, const char *name);
