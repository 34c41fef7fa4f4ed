/* IMA reference hashes on a package's files: planned before, written inside the transaction. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "diagnostic.h"
#include "ima.h"
#include "macro.h"
#include "transaction.h"

typedef struct PackageDb PackageDb;
typedef struct PackageFiles PackageFiles;
typedef struct SafeRoot SafeRoot;

typedef struct IntegrityEntry {
        char *file;                     /* as the journal names it: the root's path + path */
        char *path;                     /* inside the root, canonical */
        struct stat st;                 /* the file that was hashed (see check_file) */
        /* The write must find the same file (dev, ino) and, for a value, the
         * same content; false: recovery, which puts back whatever it recorded. */
        bool check_file;
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
        /* The file the change was to touch (device, inode); false: not known
         * (it could not be opened, or a journal older than version 4). */
        bool has_inode;
        uint64_t dev;
        uint64_t ino;
        unsigned line;                  /* where the journal recorded it (diagnostics), or 0 */
} IntegritySaved;

enum {
        /* a file differs from the package's md5sums or changed while we ran,
         * a journal names a file outside the root, ...: see diag */
        INTEGRITY_E_INVALID = 1,
};

/*
 * Which of files (nullable) the package manager gives a security.ima of
 * its own (package-db.h: ima_managed, db nullable): *ret, one flag per
 * file (allocated; NULL when none is), or -errno. mssf-policy neither
 * writes nor removes nor verifies theirs.
 */
int integrity_managed_files(const PackageDb *db, const char *package_name,
                            const PackageFiles *files, bool **ret);

/*
 * What the change does to security.ima: new_files' files (nullable:
 * removed) get their hash (but those the package manager gives one of
 * its own), each checked against what the package manager
 * (db, nullable: none) recorded of package_name's files (a mismatch is
 * INTEGRITY_E_INVALID with the record's "FILE:LINE: ..." in diag, dpkg's
 * md5sums); files only old_files (nullable) had lose
 * it. Both sets come from package_files_new(): the package's own regular
 * files. Reads every file now, through a descriptor, before anything is
 * changed.
 */
int integrity_plan_new(const SafeRoot *root, const PackageDb *db, const char *package_name,
                       const PackageFiles *old_files, const PackageFiles *new_files,
                       Diagnostics *diag, IntegrityPlan **ret);
IntegrityPlan *integrity_plan_free(IntegrityPlan *plan);

/*
 * The security.ima, as it is now, of every file plan (nullable: none)
 * changes: 0 and *ret (plan->n_entries of them, in plan order; NULL for
 * none), or -errno. Read before the change, for the crash journal; a file
 * that cannot be opened safely is recorded as having none.
 */
int integrity_plan_save(const SafeRoot *root, const IntegrityPlan *plan, IntegritySaved **ret);
/* Free n saved values (NULL-safe). */
void integrity_saved_free(IntegritySaved *saved, size_t n);

/*
 * The plan that puts saved values back exactly as they were: how recovery
 * undoes an interrupted change (nothing is hashed, no md5sums consulted).
 * Each file must lie under the root, else INTEGRITY_E_INVALID with
 * "source:line: error" in diag (the journal is not this root's). A file
 * that is gone, is no longer a regular file reached without a symlink, or
 * (where the journal knows it) is no longer the very inode the change was
 * to touch, is left out with a warning: nothing is written where the
 * change did not write.
 */
int integrity_plan_restore(const SafeRoot *root, const IntegritySaved *saved, size_t n,
                           const char *source, Diagnostics *diag, IntegrityPlan **ret);

/*
 * Write the plan through t, each file opened again through root without
 * following symlinks: a planned file must still be the same file with the
 * same content (else INTEGRITY_E_INVALID: it changed while mssf-policy
 * ran). With evm (EVM's HMAC key loaded in this kernel, no --root),
 * checks that the kernel wrote security.evm beside each reference hash.
 * 0, INTEGRITY_E_INVALID (diag) or -errno.
 */
int integrity_apply(Transaction *t, const SafeRoot *root, const IntegrityPlan *plan, bool evm,
                    Diagnostics *diag);

DEFINE_CLEANUP(IntegrityPlan *, integrity_plan_free);
