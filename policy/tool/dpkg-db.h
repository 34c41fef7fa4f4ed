/* dpkg's database, read only: which package installed which file, and who diverts what. */
#pragma once

#include <stddef.h>

#include "macro.h"

typedef struct SafeRoot SafeRoot;

/* What other packages say about one path. */
typedef struct DpkgClaim {
        char *listed_by;                /* (nullable) another package whose file list names it */
        char *diverted_by;              /* (nullable) who diverts it: a package, or ":" (local) */
        char *diverted_to;              /* (nullable) where the diverted file went */
        /* (nullable) the path is where a diversion of this one put another
         * package's file: the file here is not the diverter's */
        char *holds_diverted;
        /* (nullable) with holds_diverted: the package whose list names that
         * path, whose file this is (this package itself included) */
        char *diverted_owner;
} DpkgClaim;

typedef struct DpkgDb DpkgDb;

/* admindir: /var/lib/dpkg or another (nothing is read yet). */
int dpkg_db_new(const char *admindir, DpkgDb **ret);
DpkgDb *dpkg_db_free(DpkgDb *db);

/* ADMINDIR/info/PACKAGE.SUFFIX, else PACKAGE:ARCH.SUFFIX (Multi-Arch: same): 0 and *ret (NULL if none). */
int dpkg_db_info_file(const DpkgDb *db, const char *package, const char *suffix, char **ret);

/*
 * Every line of package's file lists (every architecture's), as dpkg
 * wrote them: 0 with *ret (allocated strings, NULL when dpkg lists
 * nothing for it) and *ret_n, or -errno. Read a line at a time, of any
 * size; a line longer than a path is skipped.
 */
int dpkg_db_package_paths(const DpkgDb *db, const char *package, char ***ret, size_t *ret_n);

/*
 * For each of the n paths (canonical, as safe_root_canonical() gives
 * them), what packages other than package say about it: fills claims[i]
 * (zeroed by the caller). Every other package's file list and the
 * diversions are read once; their lines are canonicalised through root,
 * so "/bin/x" in one list and "/usr/bin/x" in another are one file.
 * 0 or -errno; a malformed diversions file is -EBADMSG.
 */
int dpkg_db_claims(const DpkgDb *db, const SafeRoot *root, const char *package,
                   const char *const *paths, size_t n, DpkgClaim *claims);
void dpkg_claims_clear(DpkgClaim *claims, size_t n);

DEFINE_CLEANUP(DpkgDb *, dpkg_db_free);
