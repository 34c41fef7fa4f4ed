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
        uint8_t *value;                 /* (nullable) the security.ima to write; NULL: remove it */
        size_t value_size;
} IntegrityEntry;

typedef struct IntegrityPlan {
        IntegrityEntry *entries;
        size_t n_entries;
        size_t n_allocated;
} IntegrityPlan;

/* One file's security.ima as it was before a change: what the crash journal keeps. */
typedef struct IntegritySaved {
        char *file;                     /* as in IntegrityEntry */
        uint8_t *value;                 /* (nullable) NULL: the file had none */
        size_t value_size;
        unsigned line;                  /* where the journal recorded it (diagnostics), or 0 */
} IntegritySaved;

enum {
        /* a file differs from the package's md5sums, a journal names a file
         * outside the root, ...: see diag */
        INTEGRITY_E_INVALID = 1,
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
 * The security.ima, as it is now, of every file plan (nullable: none)
 * changes: 0 and *ret (plan->n_entries of them, in plan order; NULL for
 * none), or -errno. Read before the change, for the crash journal.
 */
int integrity_plan_save(const IntegrityPlan *plan, IntegritySaved **ret);
/* Free n saved values (NULL-safe). */
void integrity_saved_free(IntegritySaved *saved, size_t n);

/*
 * The plan that puts saved values back exactly as they were: how recovery
 * undoes an interrupted change (nothing is hashed, no md5sums consulted).
 * Each file must lie under paths->file_root, else INTEGRITY_E_INVALID with
 * "source:line: error" in diag (the journal is not this root's). A file
 * that is gone, or is no longer a regular file at that very path (a
 * symlink now on the way), is left out with a warning: nothing is written
 * where the change did not write.
 */
int integrity_plan_restore(const ToolPaths *paths, const IntegritySaved *saved, size_t n,
                           const char *source, Diagnostics *diag, IntegrityPlan **ret);

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
