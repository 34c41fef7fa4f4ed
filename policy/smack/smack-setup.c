/*
 * Labels on disk for one package: security.SMACK64EXEC on the binaries its
 * manifest names in <for path="...">, so that exec gives the process the
 * package's label and with it the package's rules.
 *
 * Trust: which files are the package's was decided by package-files.c,
 * before anything changed; here each is opened again through the root
 * without following any symlink and written through that descriptor only
 * if it is still the very file that was checked (device and inode), so a
 * path swapped in between cannot redirect a label. "pkg::/path" binaries
 * belong to another package, whose label that package decides: they are
 * never in the file set. The access label (security.SMACK64) of a binary
 * is left as the package manager unpacked it: giving it the package's
 * label would stop every other label from executing it. Every change is
 * recorded in the transaction, so a failed install puts the old labels
 * back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "model.h"
#include "package-files.h"
#include "safe-root.h"
#include "smack-setup.h"

/* The file's current SMACK64EXEC equals label. */
static bool exec_label_is(int fd, const char *label) {
        _cleanup_free_ char *value = NULL;
        size_t size = 0;

        if (fileio_fget_xattr(fd, SMACK_XATTR_EXEC, &value, &size) < 0 || !value)
                return false;
        return strlen(value) == size && strcmp(value, label) == 0;
}

/* Open file again: 0 and *ret_fd, or 1 when it is no longer the file that was checked. */
static int reopen(const SafeRoot *root, const PackageFile *file, int *ret_fd) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        r = safe_root_open(root, file->path, &fd, &st);
        if (r < 0)
                return r;
        if (r > 0 || !safe_root_same_file(&st, &file->st))
                return 1;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int label_new(Transaction *t, const SafeRoot *root, const PackageFile *file,
                     const char *label, Diagnostics *diag) {
        _cleanup_close_ int fd = -1;
        int r;

        r = reopen(root, file, &fd);
        if (r < 0)
                return r;
        if (r > 0) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, file->target->loc.file,
                                file->target->loc.line, file->target->loc.column,
                                "binary %s changed while mssf-policy ran (it is no longer the "
                                "file that was checked): not labelled", file->name);
                return SMACK_SETUP_E_CHANGED;
        }
        if (exec_label_is(fd, label))
                return 0;
        return transaction_set_xattr(t, root, fd, file->path, SMACK_XATTR_EXEC, label,
                                     strlen(label));
}

static int unlabel_old(Transaction *t, const SafeRoot *root, const PackageFile *file,
                       const char *label) {
        _cleanup_close_ int fd = -1;
        int r;

        r = reopen(root, file, &fd);
        if (r != 0)
                return r < 0 ? r : 0;
        if (!exec_label_is(fd, label))
                return 0;
        return transaction_set_xattr(t, root, fd, file->path, SMACK_XATTR_EXEC, NULL, 0);
}

int smack_setup_label(Transaction *t, const SafeRoot *root, const PackageFiles *old_files,
                      const char *old_label, const PackageFiles *new_files,
                      const char *new_label, Diagnostics *diag) {
        int r;

        for (size_t i = 0; old_files && i < old_files->n_files; i++) {
                const PackageFile *file = &old_files->files[i];
                const PackageFile *still = package_files_find(new_files, file->path);

                if (!file->target || (still && still->target))
                        continue;
                r = unlabel_old(t, root, file, old_label);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; new_files && i < new_files->n_files; i++) {
                const PackageFile *file = &new_files->files[i];

                if (!file->target)
                        continue;
                r = label_new(t, root, file, new_label, diag);
                if (r != 0)
                        return r;
        }
        return 0;
}
