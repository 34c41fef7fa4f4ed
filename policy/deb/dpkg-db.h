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

DEFINE_CLEANUP(DpkgDb *, dpkg_db_free);
