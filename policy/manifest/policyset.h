/* The set of installed packages: loading, cross-package checks, grants. */
#pragma once

#include "diagnostic.h"
#include "model.h"

/* Takes ownership of device (NULL: the empty device policy), on success only. */
int policy_set_new(DevicePolicy *device, PolicySet **ret);
PolicySet *policy_set_free(PolicySet *set);
const Package *policy_set_find_package(const PolicySet *set, const char *name);
/* The token with this full label, and (ret_provider, nullable) its package. */
const ProvidedToken *policy_set_find_token(const PolicySet *set, const char *label,
                                           const Package **ret_provider);
/* The package declaring (bus, name), and (ret_name, nullable) its entry. */
const Package *policy_set_find_name_owner(const PolicySet *set, BusKind bus, const char *name,
                                          const DbusName **ret_name);
/* The packages that provide token or guard something with it (*ret_n may be 0). */
void policy_set_token_servers(const PolicySet *set, const char *token,
                              const Package *const **ret, size_t *ret_n);

DEFINE_CLEANUP(PolicySet *, policy_set_free);

enum {
        POLICY_SET_E_INVALID = 1,       /* errors were added to diag */
        POLICY_SET_E_EXISTS,            /* a package of that name is in the set */
        POLICY_SET_E_CONFLICT,          /* it claims a bus name another package declares */
        POLICY_SET_E_LABEL,             /* it names a label that is not its own: see diag */
};

/*
 * A package speaks only for its own labels. Its name may not be a global
 * token, a monitor or checkany label its origin is not granted, or a label another
 * installed package already names as an owner; each <owner label> of its
 * bus names must be its own label, a label under it (PACKAGE:NAME), or a
 * label the device policy's "label" lines grant its origin, and never
 * one of Smack's special labels (_ * ^ @), a token (pkg::T) or a global
 * token. Errors (with each <owner>'s line and column) and
 * POLICY_SET_E_LABEL, or 0, or -ENOMEM. For the package being installed;
 * policy_set_resolve() drops, with a warning, what installed packages
 * may no longer name.
 */
int policy_set_check_labels(const PolicySet *set, const Package *package, Diagnostics *diag);

/* Whether label is under package's: "PACKAGE:NAME" (one colon, NAME not empty). */
bool policy_label_is_under(const char *label, const char *package);

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
 * granted. Owner labels a package may no longer name (see
 * policy_set_check_labels()) are dropped from the model with a warning,
 * and so is the reach a guarded token would give where the package may
 * not serve it. Every warning it adds is marked judged (diagnostic.h): it
 * depends on the set. Returns 0 or -ENOMEM.
 */
int policy_set_resolve(PolicySet *set, Diagnostics *diag);

/*
 * Whether package may serve token: it provides it, or it is a global
 * token that the device policy's "serve" lines let the package's origin
 * serve. Only then do the token's holders and the package get Smack
 * rules to reach each other (package-rules.c): guarding a member with a
 * token would otherwise let any package reach every holder of it, which
 * no holder asked for. policy_set_resolve() warns where a package guards
 * with a token it may not serve.
 */
bool policy_set_may_serve(const PolicySet *set, const Package *package, const char *token);

/* Whether package holds the granted credential name (after resolve). */
bool policy_set_is_granted(const Package *package, const char *name);
