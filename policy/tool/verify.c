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
 * A package rpm registered is checked against rpm's database (its file
 * list), and a file rpm gives an IMA signature of its own is rpm's to
 * verify, not ours. Then, with the RPM side built, rpm's packages are
 * compared with the registrations (rpm-recover.c): one that carries a
 * manifest and is not registered was installed around the plugin.
 *
 * Exit: 0 everything matches, TOOL_E_MISMATCH (6) something differs,
 * TOOL_E_NOT_INSTALLED (4) the package named is not installed, 3 an
 * installed manifest does not parse, 1 a system error, or a package rpm
 * installed without its registration (or an rpm transaction that was
 * interrupted).
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
#include "package-db.h"
#include "package-files.h"
#include "registration.h"
#include "safe-root.h"
#include "smack-setup.h"
#if MSSF_HAVE_RPM
#include "rpm-db.h"
#include "rpm-recover.h"
#endif

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
                        const char *package, const PackageFile *file, bool evm, bool managed) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        if (safe_root_open(root, file->path, &fd, &st) != 0 ||
            !safe_root_same_file(&st, &file->st)) {
                count->files++;
                return finding(c, count, package, file->path, "replaced while verify ran");
        }
        if (managed)
                count->files++;         /* its security.ima is the package manager's to check */
        else
                verify_ima(c, count, package, fd, file->path, evm);
        if (file->target)
                verify_label(c, count, package, fd, file->path, package);
}

/* The database a package's registration names: rpm's for rpm's (opened once), else c's. */
static int database_of(ToolContext *c, const Registration *reg, PackageDb **rpm_db,
                       const PackageDb **ret) {
        *ret = c->package_db;
#if MSSF_HAVE_RPM
        if (registration_from_rpm(reg)) {
                RpmDb *db = NULL;
                int r;

                if (!*rpm_db) {
                        r = rpm_db_open(c->paths.root, &db);
                        if (r < 0)
                                return r;
                        *rpm_db = rpm_db_package_db(db);
                }
                *ret = *rpm_db;
        }
#else
        (void) reg;
        (void) rpm_db;
#endif
        return 0;
}

static int verify_package(ToolContext *c, VerifyCount *count, const SafeRoot *root,
                          const char *package_name, bool evm, PackageDb **rpm_db) {
        _cleanup_free_ char *manifest = installed_manifest_path(&c->paths, package_name);
        _cleanup_(package_freep) Package *package = NULL;
        _cleanup_(package_files_freep) PackageFiles *files = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *ignored = NULL;
        PackageFilesContext context = { .root = root, .db = c->package_db };
        _cleanup_free_ bool *managed = NULL;
        Registration reg = {};
        bool from_manager;
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
        /* A package manager's file list is the package's only when it registered it (as install did). */
        r = installed_read_registration(&c->paths, package_name, &reg);
        if (r < 0)
                return r;
        from_manager = registration_from_dpkg(&reg) || registration_from_rpm(&reg);
        r = database_of(c, &reg, rpm_db, &context.db);
        registration_clear(&reg);
        if (r < 0)
                return r;
        /* What install would not have touched (another package's file) is not this one's to verify. */
        r = diagnostics_new(&ignored);
        if (r >= 0)
                r = package_files_new(&context, package_name, package, from_manager, false,
                                      ignored, &files);
        if (r >= 0)
                r = integrity_managed_files(context.db, package_name, files, &managed);
        if (r < 0)
                return r;
        for (size_t i = 0; i < files->n_files; i++)
                verify_file(c, count, root, package_name, &files->files[i], evm,
                            managed && managed[i]);
        return 0;
}

/* rpm's packages against the registrations (none without the RPM side): *ret_bypassed, how many. */
static int verify_rpm(ToolContext *c, const char *package, size_t *ret_bypassed) {
        *ret_bypassed = 0;
#if MSSF_HAVE_RPM
        return rpm_verify_registrations(c, package, c->out, ret_bypassed);
#else
        (void) c;
        (void) package;
        return 0;
#endif
}

static bool drop(Diagnostic *d, void *userdata) {
        (void) d;
        (void) userdata;
        return false;
}

int tool_verify(ToolContext *c, const char *package) {
        _cleanup_(package_db_freep) PackageDb *rpm_db = NULL;
        _cleanup_(safe_root_freep) SafeRoot *root = NULL;
        char **names = NULL;
        bool evm = !c->paths.root && (ima_evm_state() & 1);
        VerifyCount count = {};
        size_t n_names = 0, bypassed = 0;
        int r = 0;

        r = safe_root_new(c->paths.file_root, &root);
        if (r < 0)
                return r;
        if (package)
                r = verify_package(c, &count, root, package, evm, &rpm_db);
        else {
                r = installed_names(&c->paths, &names, &n_names);
                for (size_t i = 0; r >= 0 && i < n_names; i++) {
                        int one = verify_package(c, &count, root, names[i], evm, &rpm_db);

                        if (one != 0)
                                r = one < 0 ? one : (r == 0 ? one : r);
                }
                names_free(names, n_names);
        }
        /* A package rpm installed without its registration is not "installed" for us: looked at anyway. */
        if (r == 0 || (r == TOOL_E_NOT_INSTALLED && package)) {
                int rpm = verify_rpm(c, package, &bypassed);

                if (rpm < 0)
                        return rpm;
                if (bypassed > 0 && r == TOOL_E_NOT_INSTALLED) {
                        diagnostics_filter(c->diag, drop, NULL);
                        r = 0;
                }
        }
        if (r != 0)
                return r;
        fprintf(c->err, "verify: %zu file%s checked, %zu finding%s", count.files,
                count.files == 1 ? "" : "s", count.findings, count.findings == 1 ? "" : "s");
        if (bypassed > 0)
                fprintf(c->err, ", %zu about rpm's packages and their registrations", bypassed);
        fputc('\n', c->err);
        if (bypassed > 0)
                return 1;
        return count.findings > 0 ? TOOL_E_MISMATCH : 0;
}
