/* What an install or remove will change, computed before anything is changed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diagnostic.h"
#include "paths.h"
#include "smack-rules.h"
#include "strmap.h"
#include "transaction.h"

typedef struct PackageDb PackageDb;
typedef struct IntegrityPlan IntegrityPlan;
typedef struct PackageFiles PackageFiles;
typedef struct SafeRoot SafeRoot;
typedef struct Package Package;
typedef struct PolicySet PolicySet;

/* One file of the rule store, before and after. */
typedef struct RuleFile {
        char *name;                     /* "mssf-PACKAGE" */
        char *old_text;                 /* (nullable) absent before */
        mode_t old_mode;                /* its permissions before, when it was there */
        char *new_text;                 /* (nullable) absent after */
} RuleFile;

typedef struct InstallPlan {
        char *package;
        char *origin;                   /* (nullable) install: --origin */
        /* (nullable) the whole origin file to write (registration.h); NULL:
         * just the origin line, or no file without an origin. */
        char *origin_file;
        char *manifest_data;            /* (nullable) install: the bytes to copy; remove: NULL */
        size_t manifest_size;
        Package *parsed;                /* (nullable) install: until the set takes it */
        const Package *new_package;     /* (nullable) in set: the package after */
        Package *old_package;           /* (nullable) the installed version, if it loads */
        bool was_installed;
        bool from_dpkg;                 /* the package manager runs us: its list is the package's */
        bool recovering;                /* undoing a crash: old claims are not refused anew */
        SafeRoot *root;                 /* (nullable until install_plan_files) where files are */
        /* (nullable) the package's own files (package-files.h), before and after */
        PackageFiles *old_files;
        PackageFiles *new_files;
        PolicySet *set;                 /* the installed set after the change */
        uint8_t *policy_data;           /* policy.db after */
        size_t policy_size;
        RuleFile *rule_files;
        size_t n_rule_files;
        size_t n_rule_files_allocated;
        StrMap rule_file_index;         /* name -> index + 1 in rule_files */
        SmackRules *kernel_changes;     /* pairs to set in the kernel, with their access */
        /* (nullable) security.ima changes (integrity.h): planned from the files
         * unless already set (recovery sets the journal's values to put back). */
        IntegrityPlan *integrity;
} InstallPlan;

enum {
        INSTALL_PLAN_E_INVALID = 1,     /* errors are in diag */
};

int install_plan_new(const char *package, InstallPlan **ret);
InstallPlan *install_plan_free(InstallPlan *plan);

/* install: validate the package name and parse the manifest (errors name path:line:column). */
int install_plan_read_manifest(InstallPlan *plan, const char *path, const char *origin,
                               Diagnostics *diag);

/*
 * The same over bytes already read (takes data; file names them in
 * diagnostics): how recovery puts back the manifest a journal recorded.
 */
int install_plan_set_manifest(InstallPlan *plan, char *data, size_t size, const char *file,
                              const char *origin, Diagnostics *diag);

/* Load the installed set without plan->package, then add plan->parsed (if any). */
int install_plan_load(InstallPlan *plan, const ToolPaths *paths, Diagnostics *diag);

/* After policy_set_resolve(): every package's rule file, and the kernel changes. */
int install_plan_rules(InstallPlan *plan, const ToolPaths *paths, Diagnostics *diag);

/* Open the root the package's files are in (once per plan). */
int install_plan_open_root(InstallPlan *plan, const ToolPaths *paths);

/*
 * Open the root the package's files are in, and find which of them are
 * the package's (package-files.h), as the package manager's database db
 * (nullable: none) says: those new_package names must be
 * (INSTALL_PLAN_E_INVALID with errors in diag), those old_package named
 * are only kept where they are. After install_plan_load().
 */
int install_plan_files(InstallPlan *plan, const ToolPaths *paths, const PackageDb *db,
                       Diagnostics *diag);

/*
 * mssf-policy's rule files are root's alone: the boot-time loader and
 * mssf-policy read them, the bus never does. Who holds which token is
 * readable from smackfs anyway, but a device maker who closes load2 at
 * boot must not find the same list here.
 */
#define INSTALL_PLAN_RULES_MODE 0600

/* Write (or remove) each rule file whose text changes, or whose mode is not INSTALL_PLAN_RULES_MODE. */
int install_plan_write_rules(Transaction *t, const InstallPlan *plan, const ToolPaths *paths);

DEFINE_CLEANUP(InstallPlan *, install_plan_free);
