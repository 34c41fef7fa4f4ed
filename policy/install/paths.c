/*
 * Where mssf-policy's files are.
 *
 * The defaults are the system's. --root DIR (or MSSF_ROOT) moves every
 * path under DIR and, unless smackfs is named explicitly, keeps the tool
 * away from the kernel and the bus: an image being built, or a test, must
 * never change the running system. Each file can also be moved alone, by
 * option or environment, so that tests can point one piece elsewhere.
 * This file only computes strings; nothing is opened here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "paths.h"
#include "smack-kernel.h"

static const struct {
        const char *option;
        const char *env;
        const char *default_path;
} path_table[_TOOL_PATH_MAX] = {
        [TOOL_PATH_MANIFEST_DIR] = { "manifest-dir", "MSSF_MANIFEST_DIR", "/var/lib/mssf/manifests" },
        [TOOL_PATH_ORIGIN_DIR] = { "origin-dir", "MSSF_ORIGIN_DIR", "/var/lib/mssf/origins" },
        [TOOL_PATH_POLICY_DB] = { "policy-db", "MSSF_POLICY_DB", "/var/lib/mssf/policy.db" },
        [TOOL_PATH_RULES_DIR] = { "rules-dir", "MSSF_RULES_DIR", "/etc/smack/accesses.d" },
        [TOOL_PATH_DEVICE_POLICY] = { "device-policy", "MSSF_DEVICE_POLICY", "/etc/mssf/device-policy.conf" },
        [TOOL_PATH_LOCK_FILE] = { "lock-file", "MSSF_LOCK_FILE", "/var/lib/mssf/lock" },
        [TOOL_PATH_SMACKFS] = { "smackfs", "MSSF_SMACKFS", SMACKFS_DEFAULT },
        [TOOL_PATH_AEGIS_DIR] = { "aegis-dir", "MSSF_AEGIS_DIR", "/usr/share/mssf/aegis" },
        [TOOL_PATH_APT_ORIGIN_DIR] = { "apt-origin-dir", "MSSF_APT_ORIGIN_DIR", "/var/lib/mssf/apt-origins" },
        [TOOL_PATH_REPOSITORIES] = { "repositories", "MSSF_REPOSITORIES", "/etc/mssf/repositories.conf" },
};

const char *tool_path_option(ToolPathKind kind) {
        return path_table[kind].option;
}

const char *tool_path_env(ToolPathKind kind) {
        return path_table[kind].env;
}

static const char *nonempty(const char *s) {
        return s && *s ? s : NULL;
}

static int path_for(const ToolPathOptions *options, const char *root, ToolPathKind kind,
                    char **ret) {
        const char *given = nonempty(options->paths[kind]);

        if (!given && !options->ignore_environment)
                given = nonempty(getenv(path_table[kind].env));
        if (given)
                *ret = strdup(given);
        else if (root)
                *ret = fileio_join(root, path_table[kind].default_path + 1);
        else
                *ret = strdup(path_table[kind].default_path);
        return *ret ? 0 : -ENOMEM;
}

static int smackfs_for(ToolPaths *paths, const ToolPathOptions *options) {
        const char *given = nonempty(options->paths[TOOL_PATH_SMACKFS]);

        if (!given && !options->ignore_environment)
                given = nonempty(getenv(path_table[TOOL_PATH_SMACKFS].env));
        if (options->no_kernel)
                return 0;
        if (given) {
                paths->smackfs = strdup(given);
                return paths->smackfs ? 0 : -ENOMEM;
        }
        if (paths->root || !smack_kernel_available(SMACKFS_DEFAULT))
                return 0;
        paths->smackfs = strdup(SMACKFS_DEFAULT);
        return paths->smackfs ? 0 : -ENOMEM;
}

int tool_paths_init(ToolPaths *paths, const ToolPathOptions *options) {
        const char *root = nonempty(options->root);
        int r;

        *paths = (ToolPaths) {};
        if (!root && !options->ignore_environment)
                root = nonempty(getenv("MSSF_ROOT"));
        if (root) {
                paths->root = strdup(root);
                if (!paths->root)
                        return -ENOMEM;
        }
        r = path_for(options, paths->root, TOOL_PATH_MANIFEST_DIR, &paths->manifest_dir);
        if (r >= 0)
                r = path_for(options, paths->root, TOOL_PATH_ORIGIN_DIR, &paths->origin_dir);
        if (r >= 0)
                r = path_for(options, paths->root, TOOL_PATH_POLICY_DB, &paths->policy_db);
        if (r >= 0)
                r = path_for(options, paths->root, TOOL_PATH_RULES_DIR, &paths->rules_dir);
        if (r >= 0)
                r = path_for(options, paths->root, TOOL_PATH_DEVICE_POLICY, &paths->device_policy);
        if (r >= 0)
                r = path_for(options, paths->root, TOOL_PATH_LOCK_FILE, &paths->lock_file);
        if (r >= 0)
                r = path_for(options, paths->root, TOOL_PATH_AEGIS_DIR, &paths->aegis_dir);
        if (r >= 0)
                r = path_for(options, paths->root, TOOL_PATH_APT_ORIGIN_DIR, &paths->apt_origin_dir);
        if (r >= 0)
                r = path_for(options, paths->root, TOOL_PATH_REPOSITORIES, &paths->repositories);
        if (r >= 0)
                r = smackfs_for(paths, options);
        if (r >= 0) {
                /* Without its trailing slashes: "/img/" + "/usr/bin/x" = "/img/usr/bin/x". */
                const char *prefix = paths->root ? paths->root : "";
                size_t len = strlen(prefix);

                while (len > 0 && prefix[len - 1] == '/')
                        len--;
                paths->file_root = strndup(prefix, len);
                if (!paths->file_root)
                        r = -ENOMEM;
        }
        if (r < 0) {
                tool_paths_deinit(paths);
                return r;
        }
        paths->reload_bus = !paths->root && !options->no_reload;
        return 0;
}

void tool_paths_deinit(ToolPaths *paths) {
        free(paths->root);
        free(paths->manifest_dir);
        free(paths->origin_dir);
        free(paths->policy_db);
        free(paths->rules_dir);
        free(paths->device_policy);
        free(paths->lock_file);
        free(paths->aegis_dir);
        free(paths->apt_origin_dir);
        free(paths->repositories);
        free(paths->smackfs);
        free(paths->file_root);
        *paths = (ToolPaths) {};
}

char *tool_paths_file(const ToolPaths *paths, const char *path) {
        char *joined;

        if (asprintf(&joined, "%s%s", paths->file_root, path) < 0)
                return NULL;
        return joined;
}
