/*
 * mssf-policy verify [PACKAGE]: does each installed package's file still
 * carry what mssf-policy set, and still match it?
 *
 * For every installed package (or the one named): each protected file
 * (package_files_new(): its own binaries and dpkg's list) must have a
 * security.ima that is a sha256 reference equal to the file's hash now;
 * each of its own binaries must carry SMACK64EXEC = the package's label;
 * with EVM's key loaded, each must carry security.evm. One line per
 * finding on stdout ("PACKAGE: /file: what"), nothing for a file that is
 * right, then a summary on stderr. Reading only: it takes no lock and
 * changes nothing, so it is safe from cron or a health check.
 *
 * Exit: 0 everything matches, TOOL_E_MISMATCH (6) something differs,
 * TOOL_E_NOT_INSTALLED (4) the package named is not installed, 3 an
 * installed manifest does not parse, 1 a system error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fileio.h"
#include "ima.h"
#include "installed.h"
#include "integrity.h"
#include "manifest.h"
#include "model.h"
#include "context.h"
#include "verify.h"
#include "package-files.h"
#include "registration.h"
#include "safe-root.h"
#include "smack-setup.h"

static void names_free(char **names, size_t n) {
        for (size_t i = 0; names && i < n; i++)
                free(names[i]);
        free(names);
}

typedef struct VerifyCount {
        size_t files;
        size_t findings;
} VerifyCount;

static void finding(ToolContext *c, VerifyCount *count, const char *package, const char *file,
                    const char *what) {
        fprintf(c->out, "%s: %s: %s\n", package, file, what);
        count->findings++;
}

static void verify_ima(ToolContext *c, VerifyCount *count, const char *package, int fd,
                       const char *file, bool evm) {
        uint8_t value[IMA_VALUE_SIZE + 1];
        ssize_t n = fgetxattr(fd, IMA_XATTR, value, sizeof(value));
        ImaDigests now;
        int r;

        count->files++;
        if (n < 0 && errno == ENODATA)
                return finding(c, count, package, file, "no security.ima (lost its reference hash)");
        if (n < 0 && errno != ERANGE)
                return finding(c, count, package, file, "security.ima cannot be read");
        if (n < 0 || n != IMA_VALUE_SIZE || value[0] != IMA_XATTR_DIGEST_NG ||
            value[1] != IMA_HASH_ALGO_SHA256)
                return finding(c, count, package, file,
                               "security.ima is not a sha256 reference hash (replaced)");
        r = ima_digest_fd(fd, &now);
        if (r < 0)
                return finding(c, count, package, file, "cannot be read to hash it");
        if (!ima_value_equal(value, (size_t) n, now.value))
                finding(c, count, package, file,
                        "content changed (does not match its security.ima)");
        if (evm && fgetxattr(fd, EVM_XATTR, NULL, 0) < 0)
                finding(c, count, package, file, "no security.evm (EVM's key is loaded)");
}

static void verify_label(ToolContext *c, VerifyCount *count, const char *package, int fd,
                         const char *file, const char *label) {
        char value[256], what[600];
        ssize_t n = fgetxattr(fd, SMACK_XATTR_EXEC, value, sizeof(value) - 1);

        if (n < 0) {
                snprintf(what, sizeof(what), "no %s (should be '%s')", SMACK_XATTR_EXEC, label);
                return finding(c, count, package, file, what);
        }
        value[n] = '\0';
        if (strcmp(value, label) == 0)
                return;
        snprintf(what, sizeof(what), "%s is '%s', not '%s'", SMACK_XATTR_EXEC, value, label);
        finding(c, count, package, file, what);
}

/* One file as package-files.c found it: opened again, the same file or a finding. */
static void verify_file(ToolContext *c, VerifyCount *count, const SafeRoot *root,
                        const char *package, const PackageFile *file, bool evm) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        if (safe_root_open(root, file->path, &fd, &st) != 0 ||
            !safe_root_same_file(&st, &file->st)) {
                count->files++;
                return finding(c, count, package, file->path, "replaced while verify ran");
        }
        verify_ima(c, count, package, fd, file->path, evm);
        if (file->target)
                verify_label(c, count, package, fd, file->path, package);
}

static int verify_package(ToolContext *c, VerifyCount *count, const SafeRoot *root,
                          const char *package_name, bool evm) {
        _cleanup_free_ char *manifest = installed_manifest_path(&c->paths, package_name);
        _cleanup_(package_freep) Package *package = NULL;
        _cleanup_(package_files_freep) PackageFiles *files = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *ignored = NULL;
        PackageFilesContext context = { .root = root, .db = c->package_db };
        Registration reg = {};
        bool from_dpkg;
        int r;

        if (!manifest)
                return -ENOMEM;
        if (access(manifest, F_OK) < 0) {
                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, NULL, 0, 0,
                                "package %s is not installed (no %s)", package_name, manifest);
                return TOOL_E_NOT_INSTALLED;
        }
        r = manifest_parse_file(manifest, package_name, NULL, c->diag, &package);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        /* dpkg's file list is the package's only when dpkg registered it (as install did). */
        r = installed_read_registration(&c->paths, package_name, &reg);
        if (r < 0)
                return r;
        from_dpkg = registration_from_dpkg(&reg);
        registration_clear(&reg);
        /* What install would not have touched (another package's file) is not this one's to verify. */
        r = diagnostics_new(&ignored);
        if (r >= 0)
                r = package_files_new(&context, package_name, package, from_dpkg, false, ignored,
                                      &files);
        if (r < 0)
                return r;
        for (size_t i = 0; i < files->n_files; i++)
                verify_file(c, count, root, package_name, &files->files[i], evm);
        return 0;
}

int tool_verify(ToolContext *c, const char *package) {
        char **names = NULL;
        bool evm = !c->paths.root && (ima_evm_state() & 1);
        VerifyCount count = {};
        size_t n_names = 0;
        int r = 0;

        _cleanup_(safe_root_freep) SafeRoot *root = NULL;

        r = safe_root_new(c->paths.file_root, &root);
        if (r < 0)
                return r;
        if (package)
                r = verify_package(c, &count, root, package, evm);
        else {
                r = installed_names(&c->paths, &names, &n_names);
                for (size_t i = 0; r >= 0 && i < n_names; i++) {
                        int one = verify_package(c, &count, root, names[i], evm);

                        if (one != 0)
                                r = one < 0 ? one : (r == 0 ? one : r);
                }
                names_free(names, n_names);
        }
        if (r != 0)
                return r;
        fprintf(c->err, "verify: %zu file%s checked, %zu finding%s\n", count.files,
                count.files == 1 ? "" : "s", count.findings, count.findings == 1 ? "" : "s");
        return count.findings > 0 ? TOOL_E_MISMATCH : 0;
}
