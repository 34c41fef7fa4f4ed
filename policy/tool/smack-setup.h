/* Labelling a package's files: SMACK64EXEC on its binaries, through libattr. */
#pragma once

#include "diagnostic.h"
#include "paths.h"
#include "transaction.h"

typedef struct Package Package;

#define SMACK_XATTR_EXEC "security.SMACK64EXEC"
#define SMACK_XATTR_ACCESS "security.SMACK64"

enum {
        SMACK_SETUP_E_PATH = 1,         /* a binary path that cannot be labelled safely */
};

/*
 * Make the labels on disk match new_package (nullable: removed) where
 * old_package (nullable: not installed before) had them:
 *  - every own "<for path>" binary of new_package gets
 *    security.SMACK64EXEC=<package>, so it runs with the package's label;
 *  - a binary only old_package named loses SMACK64EXEC, if it still
 *    carries old_package's label (a label someone else set stays).
 * "pkg::/path" binaries belong to another package and are not touched
 * (their credentials go to pkg's label in the rules instead). A binary
 * that does not exist is a warning: it runs with no credentials, which
 * is safe. Paths are looked up under paths->file_root and may not leave it.
 * Every change goes through t. Returns 0, SMACK_SETUP_E_PATH (errors in
 * diag) or -errno.
 */
int smack_setup_label(Transaction *t, const ToolPaths *paths, const Package *old_package,
                      const Package *new_package, Diagnostics *diag);
