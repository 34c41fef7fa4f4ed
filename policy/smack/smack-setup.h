/* Labelling a package's files: SMACK64EXEC on its binaries, through descriptors. */
#pragma once

#include "diagnostic.h"
#include "transaction.h"

typedef struct PackageFiles PackageFiles;
typedef struct SafeRoot SafeRoot;

#define SMACK_XATTR_EXEC "security.SMACK64EXEC"
#define SMACK_XATTR_ACCESS "security.SMACK64"

enum {
        SMACK_SETUP_E_CHANGED = 1,      /* a binary changed after it was checked: see diag */
};

/*
 * Make the labels on disk match the new version where the old one had
 * them. new_files (nullable: removed) and old_files (nullable: not
 * installed before) are what package_files_new() found; their files with
 * a <for> target are the binaries:
 *  - each of new_files' binaries gets security.SMACK64EXEC=new_label;
 *  - a binary only old_files had loses SMACK64EXEC, if it still carries
 *    old_label (a label someone else set stays).
 * Each file is opened again through root without following symlinks and
 * must still be the file that was checked (else SMACK_SETUP_E_CHANGED for
 * a new binary, with an error in diag; an old one is left alone). Every
 * change goes through t. Returns 0, SMACK_SETUP_E_CHANGED or -errno.
 */
int smack_setup_label(Transaction *t, const SafeRoot *root, const PackageFiles *old_files,
                      const char *old_label, const PackageFiles *new_files,
                      const char *new_label, Diagnostics *diag);
