/* One package's registration as rpm installs, upgrades or erases it: checked, made, taken away. */
#pragma once

#include <stddef.h>

#include <rpm/rpmtypes.h>

#include "digest.h"
#include "macro.h"

typedef struct ToolContext ToolContext;
typedef struct InstallPlan InstallPlan;

/* A package version rpm installs, with the manifest it ships and the origin its signature gives. */
typedef struct RpmPackage {
        char *name;
        char *evr;                      /* rpm's [EPOCH:]VERSION-RELEASE */
        char *arch;
        char *manifest_path;            /* inside the root: RPM_AEGIS_DIR NAME.aegis */
        char *manifest;                 /* its bytes (NUL-terminated) */
        size_t manifest_size;
        char manifest_sha256[DIGEST_SHA256_HEX_SIZE];
        char *origin;                   /* (nullable) the unknown origin */
        char *key;                      /* (nullable) the signing key's fingerprint */
        const char *why_unknown;        /* (static, nullable) */
} RpmPackage;

void rpm_package_clear(RpmPackage *package);
/* "EVR.ARCH" (allocated), as rpm-db.h and the record name a version. */
char *rpm_package_version(const RpmPackage *package);

/* A small set of strings: the binaries a check found the package's own (canonical paths), ... */
typedef struct RpmStrings {
        char **items;
        size_t n_items;
} RpmStrings;

void rpm_strings_clear(RpmStrings *strings);
bool rpm_strings_has(const RpmStrings *strings, const char *s);
/* Add s (copied) unless it is there: 0 or -ENOMEM. */
int rpm_strings_add(RpmStrings *strings, const char *s);

/*
 * Before rpm has written all of the package's files (rpm's plugin, when
 * it meets the manifest): everything that can refuse the package, under
 * the lock, changing nothing. The manifest parses; its name, labels, bus
 * names and grants are its own (install_plan_load(), install_check());
 * and each <for path> binary is, by the file list rpm is installing
 * (files: rpmteFiles() of its element), a regular file of the package's
 * and no other installed package's, not set-user-ID or set-group-ID
 * without policy="setxid" and an origin granted it. c->package_db is rpm's
 * (rpm-db.h), with the element. 0 with *ret_targets (those binaries,
 * canonical paths),
 * a TOOL_E_* code with diagnostics naming the manifest's line and column,
 * or -errno.
 */
int rpm_register_check(ToolContext *c, const RpmPackage *package, rpmfiles files,
                       RpmStrings *ret_targets);

/*
 * Register package, as `mssf-policy dpkg configure` does (all or nothing,
 * journalled): manifest copy, origin file (Package-Manager: rpm), labels,
 * reference hashes, rule files, kernel rules; policy.db and the bus are
 * left to the caller (c->defer_policy_db). Its files are checked again
 * where they now are. Takes the lock. 0, TOOL_E_*, or -errno. On success
 * *ret_plan (nullable) is the change made, for the caller to say what it
 * did to other packages once it has said what it did to this one
 * (install_note_effects()).
 */
int rpm_register(ToolContext *c, const RpmPackage *package, InstallPlan **ret_plan);

/*
 * Take name's registration away, if rpm made one (*ret_done: it did;
 * *ret_plan, nullable, as for rpm_register()). Takes the lock.
 */
int rpm_unregister(ToolContext *c, const char *name, bool *ret_done, InstallPlan **ret_plan);

/*
 * The manifest name ships, as rpm installed it (RPM_AEGIS_DIR NAME.aegis
 * under c's root): a regular file, no symlink, at most
 * MANIFEST_MAX_FILE_SIZE; into package (name, path, bytes, digest).
 * 0, TOOL_E_INVALID with diagnostics, or -errno.
 */
int rpm_package_read_manifest(ToolContext *c, const char *name, RpmPackage *package);
