/* IMA reference hashes on a package's files: planned before, written inside the transaction. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diagnostic.h"
#include "ima.h"
#include "macro.h"
#include "paths.h"
#include "transaction.h"

typedef struct Package Package;

typedef struct IntegrityEntry {
        char *file;                     /* the file on disk (under paths->file_root, resolved) */
        bool set;                       /* true: write value; false: remove security.ima */
        uint8_t value[IMA_VALUE_SIZE];
} IntegrityEntry;

typedef struct IntegrityPlan {
        IntegrityEntry *entries;
        size_t n_entries;
        size_t n_allocated;
} IntegrityPlan;

enum {
        INTEGRITY_E_INVALID = 1,        /* a file differs from the package's md5sums: see diag */
};

/*
 * The package's protected files: its own "<for path>" binaries and, when
 * dpkg has a file list for it (ADMINDIR/info/PACKAGE.list), every regular
 * file dpkg installed for it; each resolved under paths->file_root, and
 * *ret_n (a NULL-terminated array of allocated strings). Missing files,
 * non-regular files and files outside the root are left out.
 */
int integrity_package_files(const ToolPaths *paths, const char *package_name,
                            const Package *package, bool with_dpkg, char ***ret, size_t *ret_n);

/*
 * What the change does to security.ima: new_package's files (nullable:
 * removed) get their hash, each checked against dpkg's md5sums where the
 * package has one (a mismatch is INTEGRITY_E_INVALID with
 * "md5sums:LINE: ..." in diag); files only old_package (nullable) named
 * lose it. with_dpkg: dpkg runs us, so its file list of package_name is
 * this package's (run by hand, a dpkg package of the same name may be
 * another one: only the manifest's binaries). Reads every file now,
 * before anything is changed.
 */
int integrity_plan_new(const ToolPaths *paths, const char *package_name,
                       const Package *old_package, const Package *new_package, bool with_dpkg,
                       Diagnostics *diag, IntegrityPlan **ret);
IntegrityPlan *integrity_plan_free(IntegrityPlan *plan);

/*
 * Write the plan through t. With EVM's HMAC key loaded in this kernel
 * (and no --root), checks that the kernel wrote security.evm beside each
 * reference hash. 0, INTEGRITY_E_INVALID (diag) or -errno.
 */
int integrity_apply(Transaction *t, const ToolPaths *paths, const IntegrityPlan *plan,
                    Diagnostics *diag);

/* dpkg's admin directory for these paths (allocated): ROOT/var/lib/dpkg, $DPKG_ADMINDIR, /var/lib/dpkg. */
char *integrity_dpkg_admindir(const ToolPaths *paths);
/* ADMINDIR/info/PACKAGE.SUFFIX, or PACKAGE:ARCH.SUFFIX (Multi-Arch: same): 0 and *ret (NULL if none). */
int integrity_dpkg_info_file(const ToolPaths *paths, const char *package, const char *suffix, char **ret);

DEFINE_CLEANUP(IntegrityPlan *, integrity_plan_free);
