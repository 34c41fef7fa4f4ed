/*
 * After a crash: finishing what an rpm transaction began.
 *
 * rpm itself does not finish a transaction it was killed in: its
 * database says which packages it had added or removed when it died,
 * and the files are wherever it left them. The plugin's record
 * (rpm-record.h) says what it had begun beyond that, and the install
 * journal what change was half-applied. This module, run by the next rpm
 * transaction's plugin before anything else and by `mssf-policy rpm
 * recover`, makes the registrations follow what rpm's database shows
 * rpm completed:
 *
 *  - a checked manifest ("install") whose package rpm's database lists
 *    at that version, and whose manifest on disk has the checked digest,
 *    is registered with the origin decided then (the record is ours,
 *    root's, written before; the digest binds it to those bytes); any
 *    other is dropped: rpm did not install it;
 *  - a binary labelled by descriptor ("label") keeps its label only
 *    where the package is now registered and names it; elsewhere the
 *    label the plugin wrote is taken off (rpm's leftover temporary file
 *    included), so that no file carries a label nothing registered;
 *  - an erase whose package rpm's database no longer lists with a
 *    manifest is unregistered;
 *  - policy.db is compiled from the registrations, and the record goes.
 *
 * Also the bypass report for `mssf-policy verify`: a package rpm installed
 * with a manifest but no registration (rpm --noplugins, a registration
 * that failed) runs without labels or grants, which fails closed, but
 * must not go unnoticed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <rpm/rpmts.h>

#include "context.h"
#include "fileio.h"
#include "install-plan.h"
#include "install.h"
#include "installed.h"
#include "manifest.h"
#include "model.h"
#include "registration.h"
#include "rpm-db.h"
#include "rpm-record.h"
#include "rpm-recover.h"
#include "rpm-register.h"
#include "safe-root.h"
#include "smack-setup.h"

/* "EVR.ARCH" into package's evr and arch. */
static int split_version(const char *version, RpmPackage *package) {
        const char *dot = strrchr(version, '.');

        if (!dot || dot == version || !dot[1])
                return -EINVAL;
        package->evr = strndup(version, (size_t) (dot - version));
        package->arch = strdup(dot + 1);
        return package->evr && package->arch ? 0 : -ENOMEM;
}

/* Whether name is registered by rpm for exactly version and sha256. */
static bool registered_as(ToolContext *c, const char *name, const RpmPackage *wanted) {
        Registration reg = {};
        bool same;

        if (installed_read_registration(&c->paths, name, &reg) < 0)
                return false;
        same = registration_from_rpm(&reg) && strcmp(reg.version, wanted->evr) == 0 &&
               reg.architecture && strcmp(reg.architecture, wanted->arch) == 0 &&
               strcmp(reg.manifest_sha256, wanted->manifest_sha256) == 0;
        registration_clear(&reg);
        return same;
}

/* An "install" entry: register it if rpm completed the install. */
static int finish_install(ToolContext *c, RpmDb *db, const RpmRecordEntry *e) {
        RpmPackage package = {};
        RpmInstalled installed = {};
        int r;

        r = rpm_db_installed(db, e->name, &installed);
        if (r < 0)
                return r;
        if (!installed.with_manifest || strcmp(installed.with_manifest, e->version) != 0) {
                rpm_installed_clear(&installed);
                return 0;               /* rpm did not install it: nothing to finish */
        }
        rpm_installed_clear(&installed);
        r = rpm_package_read_manifest(c, e->name, &package);
        if (r == 0 && strcmp(package.manifest_sha256, e->sha256) != 0)
                r = 1;                  /* not the manifest that was checked: not ours to finish */
        if (r == 0)
                r = split_version(e->version, &package);
        if (r == 0 && ((e->origin && !(package.origin = strdup(e->origin))) ||
                       (e->key && !(package.key = strdup(e->key)))))
                r = -ENOMEM;
        if (r == 0 && !registered_as(c, e->name, &package)) {
                _cleanup_(install_plan_freep) InstallPlan *plan = NULL;

                r = rpm_register(c, &package, &plan);
                if (r == 0) {
                        fprintf(c->err, "mssf-policy: %s %s registered, origin %s (finishing an "
                                "interrupted rpm transaction)\n", e->name, e->version,
                                e->origin ? e->origin : "unknown");
                        install_note_effects(c, plan);
                }
        }
        rpm_package_clear(&package);
        return r == 1 ? 0 : r;
}

/* The canonical paths of the binaries name's registered manifest names (none when not registered). */
static int registered_targets(ToolContext *c, const SafeRoot *root, const char *name,
                              RpmStrings *ret) {
        _cleanup_free_ char *path = installed_manifest_path(&c->paths, name);
        _cleanup_(package_freep) Package *package = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *ignored = NULL;
        RpmStrings targets = {};
        int r;

        *ret = targets;
        if (!path)
                return -ENOMEM;
        if (access(path, F_OK) < 0)
                return 0;
        r = diagnostics_new(&ignored);
        if (r < 0)
                return r;
        r = manifest_parse_file(path, name, NULL, ignored, &package);
        if (r != 0)
                return r < 0 ? r : 0;   /* it does not load: it names nothing */
        for (size_t i = 0; r >= 0 && i < package->n_requests; i++)
                for (size_t t = 0; r >= 0 && t < package->requests[i]->n_targets; t++) {
                        const RequestTarget *target = package->requests[i]->targets[t];
                        _cleanup_free_ char *canonical = NULL;

                        if (package->requests[i]->context_install || !target->path ||
                            target->package ||
                            safe_root_canonical(root, target->path, &canonical) != 0)
                                continue;
                        r = rpm_strings_add(&targets, canonical);
                }
        if (r < 0) {
                rpm_strings_clear(&targets);
                return r;
        }
        *ret = targets;
        return 0;
}

/* Take name's SMACK64EXEC off the file at path, if it is there and says name. */
static int unlabel(ToolContext *c, const SafeRoot *root, const char *path, const char *name) {
        _cleanup_free_ char *value = NULL;
        _cleanup_close_ int fd = -1;
        struct stat st;
        size_t size = 0;
        int r;

        r = safe_root_open(root, path, &fd, &st);
        if (r != 0)
                return r < 0 ? r : 0;
        r = fileio_fget_xattr(fd, SMACK_XATTR_EXEC, &value, &size);
        if (r < 0 || !value || strcmp(value, name) != 0)
                return r < 0 ? r : 0;
        if (fremovexattr(fd, SMACK_XATTR_EXEC) < 0)
                return -errno;
        fprintf(c->err, "mssf-policy: %s: %s label taken off (an interrupted rpm transaction set "
                "it, and %s does not name it now)\n", path, name, name);
        return 0;
}

/* A "label" entry: keep the label only where the registration names the file. */
static int finish_label(ToolContext *c, const SafeRoot *root, const RpmRecord *record,
                        const RpmRecordEntry *e) {
        _cleanup_free_ char *canonical = NULL, *temporary = NULL;
        RpmStrings targets = {};
        int r;

        r = safe_root_canonical(root, e->path, &canonical);
        if (r != 0)
                return r < 0 ? r : 0;
        r = registered_targets(c, root, e->name, &targets);
        if (r < 0)
                return r;
        if (!rpm_strings_has(&targets, canonical))
                r = unlabel(c, root, canonical, e->name);
        rpm_strings_clear(&targets);
        /* rpm's temporary file, where rpm died before renaming it: never anyone's binary. */
        if (r >= 0 && record->suffix) {
                if (asprintf(&temporary, "%s%s", canonical, record->suffix) < 0)
                        return -ENOMEM;
                r = unlabel(c, root, temporary, e->name);
        }
        return r;
}

/* An "erase" entry: unregister where rpm no longer has the package with a manifest. */
static int finish_erase(ToolContext *c, RpmDb *db, const RpmRecordEntry *e) {
        RpmInstalled installed = {};
        bool done = false;
        int r;

        r = rpm_db_installed(db, e->name, &installed);
        if (r < 0)
                return r;
        if (!installed.with_manifest) {
                _cleanup_(install_plan_freep) InstallPlan *plan = NULL;

                r = rpm_unregister(c, e->name, &done, &plan);
                if (r == 0 && done) {
                        fprintf(c->err, "mssf-policy: %s unregistered (finishing an interrupted "
                                "rpm transaction)\n", e->name);
                        install_note_effects(c, plan);
                }
        }
        rpm_installed_clear(&installed);
        return r;
}

static int finish(ToolContext *c, RpmDb *db, const RpmRecord *record) {
        _cleanup_(safe_root_freep) SafeRoot *root = NULL;
        int r;

        r = safe_root_new(c->paths.file_root, &root);
        for (size_t i = 0; r == 0 && i < record->n_entries; i++)
                if (record->entries[i].kind == RPM_RECORD_INSTALL)
                        r = finish_install(c, db, &record->entries[i]);
        for (size_t i = 0; r == 0 && i < record->n_entries; i++) {
                const RpmRecordEntry *e = &record->entries[i];

                if (e->kind == RPM_RECORD_LABEL)
                        r = finish_label(c, root, record, e);
                else if (e->kind == RPM_RECORD_ERASE)
                        r = finish_erase(c, db, e);
        }
        return r;
}

int rpm_recover(ToolContext *c, RpmDb *db, bool *ret_written) {
        _cleanup_(rpm_record_freep) RpmRecord *record = NULL;
        _cleanup_close_ int lock = -1;
        PackageDb *saved_db = c->package_db;
        bool saved_defer = c->defer_policy_db;
        unsigned line = 0;
        int r;

        if (ret_written)
                *ret_written = false;
        /* The install journal first: its change was under way when the record was written. */
        r = install_lock(c, &lock);
        if (r != 0)
                return r;
        lock = safe_close(lock);
        r = rpm_record_read(&c->paths, &record, &line);
        if (r == RPM_RECORD_E_CORRUPT) {
                _cleanup_free_ char *path = rpm_record_path(&c->paths);

                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, path, line, 0, "unreadable record of "
                                "an interrupted rpm transaction: check the registrations against "
                                "'rpm -qa' ('mssf-policy verify'), remove this file and run "
                                "'mssf-policy compile'");
                return TOOL_E_INVALID;
        }
        if (r < 0 || !record)
                return r;
        c->package_db = rpm_db_package_db(db);
        c->defer_policy_db = true;
        r = finish(c, db, record);
        c->package_db = saved_db;
        c->defer_policy_db = saved_defer;
        if (r == 0)
                r = install_compile(c, NULL, true, ret_written);
        if (r == 0)
                r = rpm_record_write(&c->paths, NULL);
        return r;
}

int tool_rpm_recover(ToolContext *c) {
        _cleanup_(rpm_db_freep) RpmDb *db = NULL;
        bool written = false;
        rpmtxn txn;
        int r;

        r = rpm_db_open(c->paths.root, &db);
        if (r < 0)
                return r;
        /* A record of a transaction that is still running is not an interrupted one. */
        txn = rpmtxnBegin(rpm_db_ts(db), RPMTXN_WRITE);
        if (!txn) {
                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, NULL, 0, 0, "cannot take rpm's "
                                "transaction lock: nothing was changed");
                return TOOL_E_INVALID;
        }
        r = rpm_recover(c, db, &written);
        rpmtxnEnd(txn);
        if (r == 0 && written)
                fprintf(c->err, "mssf-policy: policy.db compiled\n");
        return r;
}

/* Whether rpm_db_with_manifest() listed name, and at which version. */
static const char *listed_version(char **names, char **versions, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(names[i], name) == 0)
                        return versions[i];
        return NULL;
}

static void finding(FILE *out, size_t *count, const char *name, const char *what) {
        fprintf(out, "%s: " RPM_AEGIS_DIR "%s.aegis: %s\n", name, name, what);
        (*count)++;
}

/* Whether reg (rpm's) is for "EVR.ARCH" version. */
static bool same_version(const Registration *reg, const char *version) {
        size_t length = strlen(reg->version);

        return strncmp(version, reg->version, length) == 0 && version[length] == '.' &&
               strcmp(version + length + 1, reg->architecture) == 0;
}

/* rpm's packages with a manifest against the registrations. */
static int compare(ToolContext *c, const char *only, char **names, char **versions, size_t n,
                   FILE *out, size_t *count) {
        char **registered = NULL;
        size_t n_registered = 0;
        int r;

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *manifest = installed_manifest_path(&c->paths, names[i]);
                _cleanup_free_ char *what = NULL;
                Registration reg = {};

                if (only && strcmp(only, names[i]) != 0)
                        continue;
                if (!manifest)
                        return -ENOMEM;
                r = installed_read_registration(&c->paths, names[i], &reg);
                if (r < 0 && r != -EBADMSG)
                        return r;
                if (access(manifest, F_OK) < 0)
                        r = asprintf(&what, "rpm installed %s with a manifest, but it is not "
                                     "registered (installed without the mssf plugin, or its "
                                     "registration failed): its binaries have no labels and no "
                                     "grants; reinstall it with the plugin", versions[i]);
                else if (!registration_from_rpm(&reg))
                        r = asprintf(&what, "rpm installed %s with a manifest, but the "
                                     "registration is not rpm's (made by hand or by dpkg)",
                                     versions[i]);
                else if (!same_version(&reg, versions[i]))
                        r = asprintf(&what, "registered for %s.%s, but rpm has %s (changed "
                                     "without the mssf plugin)", reg.version, reg.architecture,
                                     versions[i]);
                else
                        r = 0;
                registration_clear(&reg);
                if (r < 0)
                        return -ENOMEM;
                if (what)
                        finding(out, count, names[i], what);
        }
        r = installed_names(&c->paths, &registered, &n_registered);
        for (size_t i = 0; r >= 0 && i < n_registered; i++) {
                Registration reg = {};

                if ((only && strcmp(only, registered[i]) != 0) ||
                    installed_read_registration(&c->paths, registered[i], &reg) < 0)
                        continue;
                if (registration_from_rpm(&reg) && !listed_version(names, versions, n, registered[i]))
                        finding(out, count, registered[i], "registered by rpm, but rpm no longer "
                                "has the package with a manifest (erased without the mssf "
                                "plugin): 'mssf-policy remove' takes its grants away");
                registration_clear(&reg);
        }
        for (size_t i = 0; i < n_registered; i++)
                free(registered[i]);
        free(registered);
        return r < 0 ? r : 0;
}

int rpm_verify_registrations(ToolContext *c, const char *package, FILE *out,
                             size_t *ret_findings) {
        _cleanup_(rpm_db_freep) RpmDb *db = NULL;
        _cleanup_free_ char *record = rpm_record_path(&c->paths);
        char **names = NULL, **versions = NULL;
        size_t n = 0, count = 0;
        int r;

        *ret_findings = 0;
        if (!record)
                return -ENOMEM;
        if (access(record, F_OK) == 0) {
                fprintf(out, "%s: an rpm transaction was interrupted: run 'mssf-policy rpm "
                        "recover'\n", record);
                count++;
        }
        r = rpm_db_open(c->paths.root, &db);
        if (r < 0)
                return r;
        r = rpm_db_with_manifest(db, &names, &versions, &n);
        if (r >= 0)
                r = compare(c, package, names, versions, n, out, &count);
        for (size_t i = 0; i < n; i++) {
                free(names[i]);
                free(versions[i]);
        }
        free(names);
        free(versions);
        *ret_findings = count;
        return r;
}
