/* rpm's database, read only: which package installed which file, and what rpm recorded of it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <rpm/rpmtypes.h>

#include "macro.h"
#include "package-db.h"

/* Where a package's manifest is, inside the root: AEGIS_DIR "NAME.aegis" (the dpkg side's path). */
#define RPM_AEGIS_DIR "/usr/share/mssf/aegis/"

/* A PackageDb over rpm's database (package-db.h). */
typedef struct RpmDb RpmDb;

/* Over ts's open database (not owned: it must outlive db): the plugin's. */
int rpm_db_new(rpmts ts, RpmDb **ret);
/*
 * A read-only view of its own, of root's database (NULL: "/") as rpm's
 * configuration (macros: %_dbpath) places it: mssf-policy's. A root
 * without an rpm database is an empty one.
 */
int rpm_db_open(const char *root, RpmDb **ret);
RpmDb *rpm_db_free(RpmDb *db);

/* The same object, as the install path sees it (freed with package_db_free() then). */
PackageDb *rpm_db_package_db(RpmDb *db);
rpmts rpm_db_ts(const RpmDb *db);

/*
 * (nullable) The transaction element being installed: its file list
 * stands for its name's (the version in the database, if any, is the one
 * it replaces), as rpm will write it (relocations applied).
 */
void rpm_db_set_element(RpmDb *db, rpmte te);

/* The installed packages of one name (there may be several: kernels, multilib). */
typedef struct RpmInstalled {
        size_t n;                       /* how many */
        char *with_manifest;            /* (nullable) "EVR.ARCH" of one that lists its manifest */
} RpmInstalled;

void rpm_installed_clear(RpmInstalled *installed);

/* What the database holds of name: 0 and *ret, or -errno. */
int rpm_db_installed(const RpmDb *db, const char *name, RpmInstalled *ret);

/* Whether the database still holds the package instance (rpmteDBInstance()) instance. */
bool rpm_db_has_instance(const RpmDb *db, unsigned int instance);

/*
 * Every installed package that lists its own manifest (RPM_AEGIS_DIR
 * NAME.aegis): names and "EVR.ARCH" (allocated, *ret_n of each). 0 or -errno.
 */
int rpm_db_with_manifest(const RpmDb *db, char ***ret_names, char ***ret_versions, size_t *ret_n);

/*
 * The PackageDb operations (package-db.h), for rpm: a package's paths are
 * every file of every installed instance of that name (or of the
 * element); the claims come from the other packages that rpm's index of
 * installed files names for the path or a merged-/usr alias of it; the
 * recorded contents are rpm's file digests (SHA-256 or MD5; %config and
 * %ghost files have none that holds); the files rpm carries an IMA
 * signature for are its own (ima_managed).
 */

DEFINE_CLEANUP(RpmDb *, rpm_db_free);
