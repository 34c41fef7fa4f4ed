/*
 * One package's registration, as rpm installs, upgrades and erases it:
 * the rpm side's `mssf-policy dpkg configure` and `remove`, over the same
 * plan, transaction and journal (policy/install).
 *
 * What differs is when. dpkg runs its maintainer scripts after every
 * file is in place, and a failing configure leaves the package
 * half-installed. rpm lets a plugin refuse a package only while it
 * writes the files (fsm_file_prepare), and by then only the files before
 * the manifest in the payload exist, under temporary names. So the check
 * comes in two halves:
 *
 *  - rpm_register_check(), when rpm meets the manifest: everything that
 *    does not need the files (the manifest parses, its name, labels, bus
 *    names and grants are its own, the set compiles: install_check()),
 *    and each <for path> binary judged by the file list rpm is
 *    installing, which rpm read from the header it verified: one of the
 *    package's own regular files that no other installed package lists
 *    and no other manifest names, not set-id without policy="setxid"
 *    and an origin granted it. A refusal here fails the package: rpm
 *    removes what it wrote and its database is unchanged.
 *  - rpm_register(), once rpm has put the files in place: the whole
 *    install path, which judges every file again where it now is
 *    (package-files.c: no symlink on the way, hard links, the content
 *    rpm recorded). A scriptlet that changed a file in between gets the
 *    package refused here, when rpm can no longer take it back: it stays
 *    installed unregistered (no labels, no grants), with the error, and
 *    `mssf-policy verify` reports it.
 *
 * Trust: the manifest and the file list come from the package, the
 * origin from rpm-signer.c, the rest from rpm's database and our own
 * state; nothing here believes a package about another package.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rpm/rpmfiles.h>

#include "context.h"
#include "device-policy.h"
#include "fileio.h"
#include "install-plan.h"
#include "install.h"
#include "installed.h"
#include "manifest.h"
#include "model.h"
#include "package-db.h"
#include "package-files.h"
#include "registration.h"
#include "rpm-db.h"
#include "rpm-register.h"
#include "safe-root.h"
#include "strmap.h"

void rpm_package_clear(RpmPackage *package) {
        free(package->name);
        free(package->evr);
        free(package->arch);
        free(package->manifest_path);
        free(package->manifest);
        free(package->origin);
        free(package->key);
        *package = (RpmPackage) {};
}

char *rpm_package_version(const RpmPackage *package) {
        char *version = NULL;

        if (asprintf(&version, "%s.%s", package->evr, package->arch) < 0)
                return NULL;
        return version;
}

void rpm_strings_clear(RpmStrings *strings) {
        for (size_t i = 0; i < strings->n_items; i++)
                free(strings->items[i]);
        free(strings->items);
        *strings = (RpmStrings) {};
}

bool rpm_strings_has(const RpmStrings *strings, const char *s) {
        for (size_t i = 0; i < strings->n_items; i++)
                if (strcmp(strings->items[i], s) == 0)
                        return true;
        return false;
}

int rpm_strings_add(RpmStrings *strings, const char *s) {
        char **items;

        if (rpm_strings_has(strings, s))
                return 0;
        items = reallocarray(strings->items, strings->n_items + 1, sizeof(char *));
        if (!items)
                return -ENOMEM;
        strings->items = items;
        items[strings->n_items] = strdup(s);
        return items[strings->n_items++] ? 0 : -ENOMEM;
}

/* What judging one package's <for path> binaries by rpm's file list needs. */
typedef struct Judge {
        ToolContext *c;
        const RpmPackage *package;
        const Package *manifest;        /* the parsed manifest, in set */
        const PolicySet *set;
        const SafeRoot *root;
        rpmfiles files;
        StrMap listed;                  /* canonical path -> index + 1 in files */
        char **listed_paths;            /* (owned) listed's keys */
        size_t n_listed;
        bool refused;
} Judge;

static void judge_clear(Judge *j) {
        strmap_deinit(&j->listed);
        for (size_t i = 0; i < j->n_listed; i++)
                free(j->listed_paths[i]);
        free(j->listed_paths);
}

/* Index the file list by canonical path (a name no file can have matches nothing). */
static int index_files(Judge *j) {
        int fc = rpmfilesFC(j->files);

        j->listed_paths = calloc((size_t) (fc > 0 ? fc : 1), sizeof(char *));
        if (!j->listed_paths)
                return -ENOMEM;
        for (int i = 0; i < fc; i++) {
                _cleanup_free_ char *name = rpmfilesFN(j->files, i);
                char *canonical = NULL;
                int r;

                if (!name)
                        return -ENOMEM;
                r = safe_root_canonical(j->root, name, &canonical);
                if (r > 0)
                        continue;
                if (r < 0)
                        return r;
                j->listed_paths[j->n_listed++] = canonical;
                r = strmap_put(&j->listed, canonical, (void *) (uintptr_t) (i + 1));
                if (r < 0)
                        return r;
        }
        return 0;
}

_printf_(3, 4)
static int refuse(Judge *j, const RequestTarget *target, const char *format, ...) {
        va_list ap;
        int r;

        j->refused = true;
        va_start(ap, format);
        r = diagnostics_addv(j->c->diag, DIAGNOSTIC_ERROR, j->manifest->file, target->loc.line,
                             target->loc.column, format, ap);
        va_end(ap);
        return r < 0 ? r : 0;
}

/* Another installed package whose manifest names path as its binary, or NULL. */
static const char *named_by_other(const Judge *j, const char *path) {
        for (size_t p = 0; p < j->set->n_packages; p++) {
                const Package *other = j->set->packages[p];

                if (strcmp(other->name, j->package->name) == 0)
                        continue;
                for (size_t i = 0; i < other->n_requests; i++)
                        for (size_t t = 0; t < other->requests[i]->n_targets; t++) {
                                const RequestTarget *target = other->requests[i]->targets[t];
                                _cleanup_free_ char *canonical = NULL;

                                if (other->requests[i]->context_install || !target->path ||
                                    target->package)
                                        continue;
                                if (safe_root_canonical(j->root, target->path, &canonical) == 0 &&
                                    strcmp(canonical, path) == 0)
                                        return other->name;
                        }
        }
        return NULL;
}

/* Whose path is, if not the package's: a sentence for the message (allocated), or NULL. */
static int foreign_owner(Judge *j, const char *path, bool listed, char **ret) {
        const PackageDb *db = j->c->package_db;
        PackageClaim claim = {};
        const char *other;
        int r = 0;

        *ret = NULL;
        if (db) {
                r = db->ops->claims(db, j->root, j->package->name, &path, 1, &claim);
                if (r < 0)
                        return r;
        }
        if (claim.listed_by)
                r = asprintf(ret, "it belongs to package %s (rpm lists it for %s)", claim.listed_by,
                             claim.listed_by);
        else if ((other = named_by_other(j, path)))
                r = asprintf(ret, "it belongs to package %s (its manifest names it as its binary)",
                             other);
        else if (!listed)
                r = asprintf(ret, "rpm's file list of %s does not name it", j->package->name);
        package_claims_clear(&claim, 1);
        return r < 0 ? -ENOMEM : 0;
}

static int judge_target(Judge *j, const Request *request, const RequestTarget *target,
                        RpmStrings *targets) {
        _cleanup_free_ char *path = NULL, *foreign = NULL;
        uintptr_t found;
        rpm_mode_t mode;
        int r, ix;

        r = safe_root_canonical(j->root, target->path, &path);
        if (r < 0)
                return r;
        if (r > 0)
                return refuse(j, target, "binary path %s is not a normal absolute path (no \".\", "
                              "\"..\" or empty component, no trailing '/')", target->path);
        found = (uintptr_t) strmap_get(&j->listed, path);
        r = foreign_owner(j, path, found != 0, &foreign);
        if (r < 0)
                return r;
        if (foreign)
                return refuse(j, target, "binary %s is not a file of package %s: %s", target->path,
                              j->package->name, foreign);
        ix = (int) found - 1;
        mode = rpmfilesFMode(j->files, ix);
        if (rpmfilesFFlags(j->files, ix) & RPMFILE_GHOST)
                return refuse(j, target, "binary %s is a %%ghost file of package %s: rpm does not "
                              "write it", target->path, j->package->name);
        if (!S_ISREG(mode))
                return refuse(j, target, "binary %s is %s: only a regular file can be labelled",
                              target->path, package_file_kind(mode));
        if ((mode & (S_ISUID | S_ISGID)) &&
            !package_setxid_allowed(j->set, j->package->origin, request->policy & REQUEST_POLICY_SETXID, mode))
                return refuse(j, target, "binary %s cannot be labelled: it is set-%s-ID: a binary "
                              "that runs with its owner's rights needs policy=\"setxid\" on its "
                              "<request>, and an origin the device policy grants CAP::%s "
                              "(origin %s)", target->path, mode & S_ISUID ? "user" : "group",
                              mode & S_ISUID ? "setuid" : "setgid",
                              j->package->origin ? j->package->origin : "unknown");
        return rpm_strings_add(targets, path);
}

/* Each <for path> binary of the manifest, by rpm's file list (see the top of this file). */
static int judge_targets(Judge *j, RpmStrings *targets) {
        int r = index_files(j);

        for (size_t i = 0; r >= 0 && i < j->manifest->n_requests; i++) {
                const Request *request = j->manifest->requests[i];

                for (size_t t = 0; r >= 0 && t < request->n_targets; t++) {
                        const RequestTarget *target = request->targets[t];

                        /* Only its own binaries: "pkg::/path" names another package's. */
                        if (request->context_install || !target->path || target->package)
                                continue;
                        r = judge_target(j, request, target, targets);
                }
        }
        return r;
}

/* A plan with package's manifest and origin, and its registration as rpm's. */
static int plan_for(const RpmPackage *package, Diagnostics *diag, InstallPlan **ret) {
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        _cleanup_free_ char *copy = NULL, *repository = NULL;
        Registration reg;
        int r;

        r = install_plan_new(package->name, &plan);
        if (r < 0)
                return r;
        plan->from_dpkg = true;         /* the package manager runs us: its list is the package's */
        copy = malloc(package->manifest_size + 1);
        if (!copy)
                return -ENOMEM;
        memcpy(copy, package->manifest, package->manifest_size);
        copy[package->manifest_size] = '\0';
        r = install_plan_set_manifest(plan, TAKE_PTR(copy), package->manifest_size,
                                      package->manifest_path, package->origin, diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        if (package->key && asprintf(&repository, "signed by %s", package->key) < 0)
                return -ENOMEM;
        reg = (Registration) {
                .origin = package->origin,
                .version = package->evr,
                .architecture = package->arch,
                .manifest_sha256 = (char *) package->manifest_sha256,
                .repository = repository,
                .package_manager = (char *) "rpm",
        };
        r = registration_format(&reg, &plan->origin_file);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(plan);
        return 0;
}

/* package's plan, loaded against the installed state under the install lock (*ret_lock, to close). */
static int plan_loaded(ToolContext *c, const RpmPackage *package, InstallPlan **ret_plan, int *ret_lock) {
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        _cleanup_close_ int lock = -1;
        int r;

        r = plan_for(package, c->diag, &plan);
        if (r != 0)
                return r;
        r = install_lock(c, &lock);
        if (r != 0)
                return r;
        r = install_plan_load(plan, &c->paths, c->diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        *ret_plan = TAKE_PTR(plan);
        *ret_lock = TAKE_FD(lock);
        return 0;
}

int rpm_register_check(ToolContext *c, const RpmPackage *package, rpmfiles files,
                       RpmStrings *ret_targets) {
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        _cleanup_close_ int lock = -1;
        RpmStrings targets = {};
        Judge j = { .c = c, .package = package, .files = files };
        int r;

        r = plan_loaded(c, package, &plan, &lock);
        if (r != 0)
                return r;
        r = install_plan_open_root(plan, &c->paths);
        if (r < 0)
                return r;
        j.manifest = plan->new_package;
        j.set = plan->set;
        j.root = plan->root;
        r = judge_targets(&j, &targets);
        judge_clear(&j);
        if (r == 0 && j.refused)
                r = TOOL_E_INVALID;
        if (r == 0)
                r = install_check(c, plan);
        if (r != 0) {
                rpm_strings_clear(&targets);
                return r;
        }
        *ret_targets = targets;
        return 0;
}

int rpm_register(ToolContext *c, const RpmPackage *package, InstallPlan **ret_plan) {
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        _cleanup_close_ int lock = -1;
        int r;

        r = plan_loaded(c, package, &plan, &lock);
        if (r != 0)
                return r;
        r = install_run(c, plan);
        if (r == 0 && ret_plan)
                *ret_plan = TAKE_PTR(plan);
        return r;
}

int rpm_unregister(ToolContext *c, const char *name, bool *ret_done, InstallPlan **ret_plan) {
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        _cleanup_close_ int lock = -1;
        Registration reg = {};
        int r;

        *ret_done = false;
        r = install_plan_new(name, &plan);
        if (r < 0)
                return r;
        plan->from_dpkg = true;
        r = install_lock(c, &lock);
        if (r != 0)
                return r;
        /* A registration by hand or by dpkg is not rpm's to take away. */
        r = installed_read_registration(&c->paths, name, &reg);
        if (r == -EBADMSG || (r == 0 && !registration_from_rpm(&reg))) {
                registration_clear(&reg);
                return 0;
        }
        registration_clear(&reg);
        if (r < 0)
                return r;
        r = install_plan_load(plan, &c->paths, c->diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        if (!plan->was_installed)
                return 0;
        r = install_run(c, plan);
        *ret_done = r == 0;
        if (r == 0 && ret_plan)
                *ret_plan = TAKE_PTR(plan);
        return r;
}

int rpm_package_read_manifest(ToolContext *c, const char *name, RpmPackage *package) {
        _cleanup_free_ char *file = NULL, *path = NULL, *data = NULL;
        _cleanup_close_ int fd = -1;
        const char *why;
        size_t size = 0;
        int r;

        if (asprintf(&file, "%s.aegis", name) < 0 || !(path = fileio_join(c->paths.aegis_dir, file)))
                return -ENOMEM;
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        r = fileio_read_regular_fd(fd, MANIFEST_MAX_FILE_SIZE, &data, &size, &why);
        if (r > 0) {
                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, path, 0, 0,
                                "package %s's manifest cannot be read here (%s): a regular file "
                                "of at most 1 MiB", name, why);
                return TOOL_E_INVALID;
        }
        if (r < 0)
                return r;
        r = digest_sha256_hex(data, size, package->manifest_sha256);
        if (r < 0)
                return r;
        if (asprintf(&package->manifest_path, RPM_AEGIS_DIR "%s.aegis", name) < 0 ||
            !(package->name = strdup(name)))
                return -ENOMEM;
        package->manifest = TAKE_PTR(data);
        package->manifest_size = size;
        return 0;
}
