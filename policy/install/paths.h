/* Where mssf-policy reads and writes: defaults, --root, per-file overrides. */
#pragma once

#include <stdbool.h>

#include "macro.h"

/*
 * Each path comes from (first that is set): its command-line option, its
 * environment variable, --root DIR joined with the default, the default.
 * docs/mssf-policy.md lists them.
 */
typedef struct ToolPaths {
        char *root;                     /* (nullable) --root / MSSF_ROOT */
        char *manifest_dir;             /* /var/lib/mssf/manifests */
        char *origin_dir;               /* /var/lib/mssf/origins */
        char *policy_db;                /* /var/lib/mssf/policy.db */
        char *rules_dir;                /* /etc/smack/accesses.d */
        char *device_policy;            /* /etc/mssf/device-policy.conf */
        char *lock_file;                /* /var/lib/mssf/lock */
        char *aegis_dir;                /* /usr/share/mssf/aegis: what packages ship */
        char *apt_origin_dir;           /* /var/lib/mssf/apt-origins: what apt verified */
        char *repositories;             /* /etc/mssf/repositories.conf */
        /* (nullable) smackfs to load rules into: NULL = leave the kernel
         * alone (under --root, or when smackfs is not mounted). */
        char *smackfs;
        /* Binaries named by manifests are looked up under this prefix
         * (root, or "" for /). */
        char *file_root;
        bool reload_bus;                /* ask the system bus to reload */
        /* The lock is held: the cache of parsed manifests may be written. */
        bool write_cache;
} ToolPaths;

typedef enum ToolPathKind {
        TOOL_PATH_MANIFEST_DIR,
        TOOL_PATH_ORIGIN_DIR,
        TOOL_PATH_POLICY_DB,
        TOOL_PATH_RULES_DIR,
        TOOL_PATH_DEVICE_POLICY,
        TOOL_PATH_LOCK_FILE,
        TOOL_PATH_SMACKFS,
        TOOL_PATH_AEGIS_DIR,
        TOOL_PATH_APT_ORIGIN_DIR,
        TOOL_PATH_REPOSITORIES,
        _TOOL_PATH_MAX,
} ToolPathKind;

/* What the command line said; NULL = not given. */
typedef struct ToolPathOptions {
        const char *root;
        const char *paths[_TOOL_PATH_MAX];
        bool no_reload;
        bool no_kernel;
        /* Take nothing from the environment (MSSF_ROOT, MSSF_*): rpm's
         * plugin, whose environment is whoever runs rpm or dnf. */
        bool ignore_environment;
} ToolPathOptions;

/* The option name ("manifest-dir") and environment variable of a kind. */
const char *tool_path_option(ToolPathKind kind);
const char *tool_path_env(ToolPathKind kind);

int tool_paths_init(ToolPaths *paths, const ToolPathOptions *options);
void tool_paths_deinit(ToolPaths *paths);

/* A path named by a manifest ("/usr/bin/x") under file_root (allocated). */
char *tool_paths_file(const ToolPaths *paths, const char *path);
