/* What the package manager knows of installed packages' files: the one interface the install path asks. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "diagnostic.h"
#include "digest.h"
#include "macro.h"

typedef struct SafeRoot SafeRoot;

/*
 * What packages other than the one asking say about one path. Diversions
 * are dpkg's: another package manager leaves those fields NULL.
 */
typedef struct PackageClaim {
        char *listed_by;                /* (nullable) another package whose file list names it */
        char *diverted_by;              /* (nullable) who diverts it: a package, or ":" (local) */
        char *diverted_to;              /* (nullable) where the diverted file went */
        /* (nullable) the path is where a diversion of this one put another
         * package's file: the file here is not the diverter's */
        char *holds_diverted;
        /* (nullable) with holds_diverted: the package whose list names that
         * path, whose file this is (this package itself included) */
        char *diverted_owner;
} PackageClaim;

void package_claims_clear(PackageClaim *claims, size_t n);

/*
 * A package manager's database, read only: dpkg's (deb/dpkg-db.c) and
 * rpm's (rpm/rpm-db.c). The install path (package-files.c, integrity.c) asks only
 * through these operations, so it never knows which one runs it; the
 * command that starts a change (mssf-policy's own, or dpkg's) chooses.
 * Everything it answers comes from packages, and is treated so.
 */
typedef struct PackageDb PackageDb;

typedef struct PackageDbOps {
        const char *name;               /* "dpkg", for messages */
        /*
         * Every path the package manager lists for package, as it wrote
         * them: 0 with *ret (allocated strings; NULL when it lists
         * nothing) and *ret_n, or -errno.
         */
        int (*package_paths)(const PackageDb *db, const char *package, char ***ret,
                             size_t *ret_n);
        /*
         * For each of the n paths (canonical: safe_root_canonical()), what
         * packages other than package say about it, into claims[i] (zeroed
         * by the caller): 0 or -errno.
         */
        int (*claims)(const PackageDb *db, const SafeRoot *root, const char *package,
                      const char *const *paths, size_t n, PackageClaim *claims);
        /*
         * Whether each of package's n files (as the package names it, and
         * canonical) still has the content the package manager recorded
         * when it unpacked it: bad[i] set where it does not (errors naming
         * the record's file, line and column in diag), untouched where it
         * does or nothing was recorded. 0, or -errno.
         */
        int (*check_contents)(const PackageDb *db, const char *package, const char *const *names,
                              const char *const *paths, const FileDigests *digests, size_t n,
                              bool *bad, Diagnostics *diag);
        /*
         * (nullable: none) Which of package's n files (as the package names
         * them, and canonical) get a security.ima from the package manager
         * itself (rpm's ima plugin writes the file signature a package
         * carries): managed[i] set for those (zeroed by the caller), which
         * are left alone. 0, or -errno.
         */
        int (*ima_managed)(const PackageDb *db, const char *package, const char *const *names,
                           const char *const *paths, size_t n, bool *managed);
        void (*free)(PackageDb *db);
} PackageDbOps;

struct PackageDb {
        const PackageDbOps *ops;
};

static inline PackageDb *package_db_free(PackageDb *db) {
        if (db)
                db->ops->free(db);
        return NULL;
}

DEFINE_CLEANUP(PackageDb *, package_db_free);
