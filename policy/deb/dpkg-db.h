/* dpkg's database, read only: which package installed which file, who diverts what, what dpkg recorded of them. */
#pragma once

#include "macro.h"
#include "package-db.h"
#include "paths.h"

/* A PackageDb over dpkg's admin directory (docs/packaging.md). */
typedef struct DpkgDb DpkgDb;

/* admindir: /var/lib/dpkg or another (nothing is read yet). */
int dpkg_db_new(const char *admindir, DpkgDb **ret);
/* The admin directory for paths: ROOT/var/lib/dpkg with --root, else $DPKG_ADMINDIR, else /var/lib/dpkg. */
int dpkg_db_new_for(const ToolPaths *paths, DpkgDb **ret);
DpkgDb *dpkg_db_free(DpkgDb *db);

/* The same object, as the install path sees it (freed with package_db_free() then). */
PackageDb *dpkg_db_package_db(DpkgDb *db);

/* ADMINDIR/info/PACKAGE.SUFFIX, else PACKAGE:ARCH.SUFFIX (Multi-Arch: same): 0 and *ret (NULL if none). */
int dpkg_db_info_file(const DpkgDb *db, const char *package, const char *suffix, char **ret);

/*
 * The PackageDb operations (package-db.h), for dpkg: a package's paths are
 * every line of its file lists (every architecture's), read a line at a
 * time of any size (a line longer than a path is skipped); the claims
 * come from every other package's list and the diversions, their lines
 * canonicalised through the root so "/bin/x" and "/usr/bin/x" are one
 * file; the recorded contents are info/PACKAGE.md5sums.
 */

/* A file of the device's configuration (guarded.h) that a package owns. */
typedef struct DpkgGuardedFile {
        char *path;                     /* where it is, in the root, symlinks followed */
        char *owner;                    /* the package it counts as */
        char *listed;                   /* the line of a list that put it there */
        char *lister;                   /* whose list that is (owner, unless diverted) */
} DpkgGuardedFile;

/*
 * Every non-directory in the device's configuration that dpkg says a
 * package put there: each line of every info/NAME.list, resolved through
 * the symlinks of the tree at root_fd as dpkg followed them when it
 * unpacked (guarded_resolve()), kept where that is guarded and something
 * that is not a directory is there now. A line another package diverts
 * counts where the diversion put it, as the diverting package's (dpkg
 * put it there because that package asked); a local diversion is the
 * administrator's, and counts for no package. 0 and *ret, *ret_n; or
 * -errno with *ret_error (nullable) naming the line that could not be
 * resolved.
 */
int dpkg_db_guarded_files(const DpkgDb *db, int root_fd, DpkgGuardedFile **ret, size_t *ret_n,
                          char **ret_error);
void dpkg_guarded_files_free(DpkgGuardedFile *files, size_t n);

DEFINE_CLEANUP(DpkgDb *, dpkg_db_free);
