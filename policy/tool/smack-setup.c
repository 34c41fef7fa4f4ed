/*
 * Labels on disk for one package: security.SMACK64EXEC on the binaries its
 * manifest names in <for path="...">, so that exec gives the process the
 * package's label and with it the package's rules.
 *
 * Trust: the manifest is the package's own word about its own files, so
 * only paths in its own namespace are labelled; "pkg::/path" names another
 * package's binary, whose label that package decides. A path must be
 * absolute, without "..", and (after symlinks) stay under --root. The
 * access label (security.SMACK64) of a binary is left as the package
 * manager unpacked it: giving it the package's label would stop every
 * other label from executing it. Every change is recorded in the
 * transaction, so a failed install puts the old labels back.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "model.h"
#include "smack-setup.h"

/* Whether package names path as one of its own binaries. */
static bool package_names_binary(const Package *package, const char *path) {
        if (!package)
                return false;
        for (size_t i = 0; i < package->n_requests; i++) {
                const Request *request = package->requests[i];

                if (request->context_install)
                        continue;
                for (size_t j = 0; j < request->n_targets; j++) {
                        const RequestTarget *target = request->targets[j];

                        if (!target->package && target->path && strcmp(target->path, path) == 0)
                                return true;
                }
        }
        return false;
}

static bool path_is_safe(const char *path) {
        if (path[0] != '/')
                return false;
        for (const char *p = path; (p = strstr(p, "/..")); p += 3)
                if (p[3] == '/' || p[3] == '\0')
                        return false;
        return true;
}

/*
 * The file to label: 0 and *ret, which is NULL when it does not exist (a
 * warning when labelling: removing a label from nothing is no news), or
 * SMACK_SETUP_E_PATH after an error in diag.
 */
static int resolve_binary(const ToolPaths *paths, const Package *package,
                          const RequestTarget *target, bool labelling, Diagnostics *diag,
                          char **ret) {
        _cleanup_free_ char *joined = NULL, *resolved = NULL, *root = NULL;
        const char *file = package->file;

        if (!path_is_safe(target->path)) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, file, target->loc.line, target->loc.column,
                                "binary path %s must be absolute and without \"..\"", target->path);
                return SMACK_SETUP_E_PATH;
        }
        joined = tool_paths_file(paths, target->path);
        if (!joined)
                return -ENOMEM;
        resolved = realpath(joined, NULL);
        if (!resolved) {
                if (errno != ENOENT)
                        return -errno;
                *ret = NULL;
                if (!labelling)
                        return 0;
                diagnostics_add(diag, DIAGNOSTIC_WARNING, file, target->loc.line, target->loc.column,
                                "binary %s does not exist: not labelled, it will run without "
                                "this package's credentials", joined);
                return 0;
        }
        if (paths->file_root[0] != '\0') {
                size_t n;

                root = realpath(paths->file_root, NULL);
                if (!root)
                        return -errno;
                n = strlen(root);
                if (strncmp(resolved, root, n) != 0 || (resolved[n] != '/' && n > 1)) {
                        diagnostics_add(diag, DIAGNOSTIC_ERROR, file, target->loc.line,
                                        target->loc.column, "binary %s resolves to %s, outside %s",
                                        target->path, resolved, root);
                        return SMACK_SETUP_E_PATH;
                }
        }
        *ret = TAKE_PTR(resolved);
        return 0;
}

/* The file's current SMACK64EXEC equals label. */
static bool exec_label_is(const char *file, const char *label) {
        char value[256];
        ssize_t n = getxattr(file, SMACK_XATTR_EXEC, value, sizeof(value) - 1);

        if (n < 0)
                return false;
        value[n] = '\0';
        return strcmp(value, label) == 0;
}

static int label_target(Transaction *t, const ToolPaths *paths, const Package *package,
                        const RequestTarget *target, const char *value, Diagnostics *diag) {
        _cleanup_free_ char *file = NULL;
        int r;

        r = resolve_binary(paths, package, target, value != NULL, diag, &file);
        if (r != 0 || !file)
                return r;
        if (value && exec_label_is(file, value))
                return 0;
        if (!value && !exec_label_is(file, package->name))
                return 0;
        return transaction_set_xattr(t, file, SMACK_XATTR_EXEC, value);
}

/* Visit each own binary target of package once; value NULL = unlabel. */
static int label_package(Transaction *t, const ToolPaths *paths, const Package *package,
                         const Package *skip_if_named, const char *value, Diagnostics *diag) {
        int result = 0;

        for (size_t i = 0; i < package->n_requests; i++) {
                const Request *request = package->requests[i];

                if (request->context_install)
                        continue;
                for (size_t j = 0; j < request->n_targets; j++) {
                        const RequestTarget *target = request->targets[j];
                        int r;

                        if (target->package || !target->path)
                                continue;
                        if (package_names_binary(skip_if_named, target->path))
                                continue;
                        r = label_target(t, paths, package, target, value, diag);
                        if (r < 0)
                                return r;
                        if (r > 0)
                                result = r;
                }
        }
        return result;
}

int smack_setup_label(Transaction *t, const ToolPaths *paths, const Package *old_package,
                      const Package *new_package, Diagnostics *diag) {
        int r, result = 0;

        if (old_package) {
                r = label_package(t, paths, old_package, new_package, NULL, diag);
                if (r < 0)
                        return r;
                result = r;
        }
        if (new_package) {
                r = label_package(t, paths, new_package, NULL, new_package->name, diag);
                if (r < 0)
                        return r;
                if (r > 0)
                        result = r;
        }
        return result;
}
