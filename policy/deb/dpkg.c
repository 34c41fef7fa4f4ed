/*
 * mssf-policy dpkg: what a package built with dh_mssf runs from its
 * maintainer scripts, and what the mssf-policy package runs when its
 * trigger fires (docs/packaging.md).
 *
 *   configure PACKAGE   postinst configure (and abort-*): register the
 *                       manifest the package ships in AEGIS_DIR
 *   remove PACKAGE      prerm remove: take the registration away
 *   purge PACKAGE       postrm purge: the same if still there, and the
 *                       record apt's hook left
 *   triggered           the mssf-policy package's postinst, when a dpkg
 *                       run changed AEGIS_DIR: policy.db and the bus
 *
 * Who decides the origin. The package's scripts pass only the package
 * name: nothing they say, nor anything in the package (control fields,
 * manifest), can choose an origin. The origin comes from the record
 * `mssf-policy apt-hook` wrote before dpkg ran (apt-hook.c): which
 * repository, verified by apt and by the device maker's keys, offered the
 * very file dpkg unpacked. The record is used only for the version,
 * architecture, manifest bytes and md5sums it was made for, then removed;
 * a reconfigure of the same unpack keeps the origin it registered;
 * anything else (a .deb given to dpkg, even one of the same name, version
 * and manifest; an unmapped repository; a manifest or files that are not
 * the ones apt verified) gets the unknown origin, which the built-in
 * device policy grants nothing. docs/packaging.md has the threat model.
 *
 * The device's configuration. Before configure, remove or the trigger
 * changes anything, dpkg-guard.c checks that every file of /etc/mssf and
 * /etc/smack/accesses.d a package owns is owned by a package of the most
 * trusted origin, each owner's origin decided here as its configure would
 * decide it (a package being unpacked by the same dpkg run included): a
 * .deb given to dpkg -i never met apt's hook, and dpkg has already put
 * its files in place. Refused, nothing changes.
 *
 * Batching. A dpkg run that configures many packages must compile and
 * reload once: configure and remove change labels, rule files and kernel
 * rules at once (a service started by the same postinst must run with its
 * label and grants), check everything the compile checks, and leave
 * policy.db and the bus reload to the trigger, which runs once per dpkg
 * run. Outside dpkg (no DPKG_MAINTSCRIPT_NAME) they write policy.db
 * themselves.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apt-record.h"
#include "dpkg-db.h"
#include "dpkg-guard.h"
#include "dpkg.h"
#include "fileio.h"
#include "install-plan.h"
#include "install.h"
#include "installed.h"
#include "manifest.h"
#include "pending-findings.h"
#include "context.h"
#include "registration.h"
#include "digest.h"
#include "spawn.h"

/* What mssf-policy's own package declares interest in (debian/mssf-policy.triggers). */
#define DPKG_TRIGGER "/usr/share/mssf/aegis"

static bool under_dpkg(void) {
        return getenv("DPKG_MAINTSCRIPT_NAME") != NULL;
}

/* Why FD (opened with O_NOFOLLOW) is no manifest to read, or NULL. */
/* AEGIS_DIR/PACKAGE.aegis: a regular file (no symlink), bounded (why not: into diag, nullable). */
static int read_shipped(ToolContext *c, Diagnostics *diag, const char *package, char **ret_path,
                        char **ret_data, size_t *ret_size) {
        _cleanup_free_ char *name = NULL, *path = NULL;
        _cleanup_close_ int fd = -1;
        const char *why;
        int r;

        if (asprintf(&name, "%s.aegis", package) < 0 || !(path = fileio_join(c->paths.aegis_dir, name)))
                return -ENOMEM;
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        r = fileio_read_regular_fd(fd, MANIFEST_MAX_FILE_SIZE, ret_data, ret_size, &why);
        if (r > 0) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0,
                                "package %s ships no manifest here (%s): dh_mssf installs "
                                "debian/%s.aegis as this file, a regular file of at most 1 MiB",
                                package, why, package);
                return TOOL_E_INVALID;
        }
        if (r < 0)
                return r;
        *ret_path = TAKE_PTR(path);
        return 0;
}

/* The version and architecture dpkg has for package (as it is being configured; why not: into diag, nullable). */
static int query_dpkg(ToolContext *c, Diagnostics *diag, const char *package, char **ret_version,
                      char **ret_arch) {
        _cleanup_free_ char *admindir = NULL, *out = NULL, *err = NULL;
        char *argv[8];
        size_t n = 0;
        int status = 0, r;
        char *newline;

        argv[n++] = (char *) "dpkg-query";
        if (c->paths.root && asprintf(&admindir, "--admindir=%s/var/lib/dpkg", c->paths.root) < 0)
                return -ENOMEM;
        if (admindir)
                argv[n++] = admindir;
        argv[n++] = (char *) "--show";
        argv[n++] = (char *) "--showformat=${Version}\\n${Architecture}\\n";
        argv[n++] = (char *) "--";
        argv[n++] = (char *) package;
        argv[n] = NULL;
        r = spawn_capture(argv, 4096, &out, NULL, &status, &err);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || status != 0 || !(newline = strchr(out, '\n')) || newline == out) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, NULL, 0, 0,
                                "dpkg does not know package %s (dpkg-query: %s)", package,
                                r < 0 ? strerror(-r) : err && *err ? err : "no answer");
                return TOOL_E_INVALID;
        }
        *newline = '\0';
        newline[1 + strcspn(newline + 1, "\n")] = '\0';
        *ret_version = strdup(out);
        *ret_arch = strdup(newline + 1);
        if (!*ret_version || !*ret_arch) {
                free(*ret_version);
                free(*ret_arch);
                return -ENOMEM;
        }
        return 0;
}

static bool same(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

/*
 * What ties an origin to the files dpkg unpacked: the SHA-256 of
 * info/PACKAGE.md5sums (apt's record carries that of the .deb it
 * verified) and which unpack it was (registration.h: dpkg writes
 * info/PACKAGE.list anew at every unpack). Empty when dpkg has no such
 * file: then nothing is kept or taken from a record.
 */
typedef struct Unpack {
        char md5sums_sha256[DIGEST_SHA256_HEX_SIZE];
        char id[80];
} Unpack;

static int read_unpack(ToolContext *c, const char *package, Unpack *ret) {
        _cleanup_free_ char *list = NULL, *md5sums = NULL, *text = NULL;
        _cleanup_(dpkg_db_freep) DpkgDb *db = NULL;
        struct stat st;
        size_t size = 0;
        int r;

        *ret = (Unpack) {};
        r = dpkg_db_new_for(&c->paths, &db);
        if (r < 0)
                return r;
        r = dpkg_db_info_file(db, package, "list", &list);
        if (r < 0)
                return r;
        if (list && stat(list, &st) == 0)
                snprintf(ret->id, sizeof(ret->id), "%ju:%ju %lld.%09ld", (uintmax_t) st.st_dev,
                         (uintmax_t) st.st_ino, (long long) st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
        r = dpkg_db_info_file(db, package, "md5sums", &md5sums);
        if (r < 0 || !md5sums)
                return r;
        r = fileio_read(md5sums, &text, &size);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        return digest_sha256_hex(text, size, ret->md5sums_sha256);
}

/* The origin, and how it was established, for the package file being configured. */
typedef struct Decision {
        const char *origin;             /* (not owned, nullable) unknown */
        const char *repository;         /* (not owned, nullable) */
        bool from_record;               /* apt's record decided: remove it afterwards */
        const char *why_unknown;        /* (static, nullable) */
} Decision;

static Decision decide(const AptRecord *record, const Registration *old, const char *version,
                       const char *arch, const char *sha256, const Unpack *unpack) {
        bool record_fits = record->package && same(record->version, version) &&
                           same(record->architecture, arch);

        if (record_fits && same(record->manifest_sha256, sha256) && unpack->md5sums_sha256[0] &&
            same(record->md5sums_sha256, unpack->md5sums_sha256))
                return (Decision) {
                        .origin = record->origin,
                        .repository = record->repository,
                        .from_record = true,
                        .why_unknown = record->origin ? NULL :
                                "no repository that /etc/mssf/repositories.conf maps offered this "
                                "file",
                };
        if (registration_from_dpkg(old) && same(old->version, version) &&
            same(old->architecture, arch) && same(old->manifest_sha256, sha256) && unpack->id[0] &&
            same(old->unpacked, unpack->id))
                return (Decision) { .origin = old->origin, .repository = old->repository };
        if (record_fits && !same(record->manifest_sha256, sha256))
                return (Decision) { .why_unknown = "its manifest is not the one apt verified" };
        if (record_fits)
                return (Decision) { .why_unknown = "its files are not the ones apt verified (its "
                                                   "md5sums differ from the file apt checked)" };
        return (Decision) {
                .why_unknown = "apt did not install this file from a verified repository "
                               "(a .deb given to dpkg, or apt without mssf-policy's hook)",
        };
}

/* The package being configured, whose origin is already decided (dpkg_configure()). */
typedef struct Configuring {
        const char *package;
        const Decision *decision;
} Configuring;

/*
 * dpkg-guard.c's question: package's origin as its configure would decide
 * it now, from the same record, registration and unpack. A package that
 * ships no manifest, or that dpkg does not know, has the unknown origin.
 */
static int origin_now(ToolContext *c, const char *package, char **ret, void *userdata) {
        const Configuring *configuring = userdata;
        _cleanup_free_ char *version = NULL, *arch = NULL, *path = NULL, *data = NULL;
        char sha256[DIGEST_SHA256_HEX_SIZE];
        AptRecord record = {};
        Registration reg = {};
        Unpack unpack;
        Decision d;
        size_t size = 0;
        int r;

        *ret = NULL;
        if (configuring && strcmp(package, configuring->package) == 0) {
                d = *configuring->decision;
                goto done;
        }
        r = query_dpkg(c, NULL, package, &version, &arch);
        if (r == 0)
                r = read_shipped(c, NULL, package, &path, &data, &size);
        if (r != 0)
                return r < 0 ? r : 0;
        r = digest_sha256_hex(data, size, sha256);
        if (r == 0)
                r = apt_record_read(&c->paths, package, &record);
        if (r == APT_RECORD_E_INVALID)
                r = 0;
        if (r == 0)
                r = installed_read_registration(&c->paths, package, &reg);
        if (r == -EBADMSG)
                r = 0;
        if (r == 0)
                r = read_unpack(c, package, &unpack);
        if (r < 0) {
                apt_record_clear(&record);
                registration_clear(&reg);
                return r;
        }
        d = decide(&record, &reg, version, arch, sha256, &unpack);
done:
        if (d.origin && !(*ret = strdup(d.origin)))
                r = -ENOMEM;
        else
                r = 0;
        apt_record_clear(&record);
        registration_clear(&reg);
        return r;
}

/*
 * What a maintainer script's run reports: the findings about the
 * package's shipped manifest (file: AEGIS_DIR/PACKAGE.aegis; NULL for
 * remove and purge: none), errors, and findings without a file; never
 * the other installed manifests', which every change loads and judges
 * again. What the change does to other packages is one line each
 * (install_note_effects()). Findings judged against the other packages
 * (Diagnostic.judged: a token not granted because its provider is not
 * configured yet) wait for the trigger when there is one: it judges them
 * once the whole dpkg run is configured and reports only what is still
 * true then (pending-findings.c, about_pending()). Should the trigger
 * fail, the list stays and the next trigger reports them.
 */
typedef struct Focus {
        const char *file;
        size_t judged;          /* judged findings about file kept */
} Focus;

static bool about_focus(Diagnostic *d, void *userdata) {
        Focus *focus = userdata;

        if (d->severity == DIAGNOSTIC_ERROR || !d->file)
                return true;
        if (!focus->file || strcmp(d->file, focus->file) != 0)
                return false;
        if (d->judged)
                focus->judged++;
        return true;
}

static bool not_judged_about(Diagnostic *d, void *userdata) {
        const char *file = userdata;

        return d->severity == DIAGNOSTIC_ERROR || !d->judged || !d->file || strcmp(d->file, file) != 0;
}

enum {
        CATCH_UP_DONE,                  /* policy.db is current, or needed nothing */
        CATCH_UP_TRIGGERED,             /* dpkg's trigger will compile it, at the run's end */
};

/*
 * policy.db lags behind a committed change, or judged findings wait for
 * the run's end: have the trigger (or, outside dpkg, us) catch up.
 * CATCH_UP_* or a TOOL_E_* code or -errno from compiling here.
 */
static int catch_up(ToolContext *c, bool findings_wait) {
        char *argv[] = { (char *) "dpkg-trigger", (char *) "--no-await", (char *) DPKG_TRIGGER, NULL };
        _cleanup_free_ char *out = NULL, *err = NULL;
        int status = 0, r;

        if (!c->policy_db_stale && !findings_wait)
                return CATCH_UP_DONE;
        if (under_dpkg() && !c->paths.root) {
                r = spawn_capture(argv, 4096, &out, NULL, &status, &err);
                if (r >= 0 && status == 0)
                        return CATCH_UP_TRIGGERED;
                fprintf(c->err, "warning: dpkg-trigger %s failed (%s): compiling policy.db now\n",
                        DPKG_TRIGGER, r < 0 ? strerror(-r) : err && *err ? err : "no reason given");
        }
        if (!c->policy_db_stale)
                return CATCH_UP_DONE;
        r = install_compile(c, NULL, true, NULL);
        return r != 0 ? r : CATCH_UP_DONE;
}

/* The trigger's report: judged findings of the pending packages, named by their shipped manifests. */
typedef struct Pending {
        const ToolContext *c;
        char **names;
        size_t n_names;
        char **installed;       /* each name's installed manifest, as the compile names it */
} Pending;

static bool about_pending(Diagnostic *d, void *userdata) {
        Pending *p = userdata;

        if (d->severity == DIAGNOSTIC_ERROR || !d->file)
                return true;
        if (!d->judged)
                return false;
        for (size_t i = 0; i < p->n_names; i++) {
                char *shipped = NULL;

                if (strcmp(d->file, p->installed[i]) != 0)
                        continue;
                /* The installed copy is the shipped file's bytes: the same lines and columns. */
                if (asprintf(&shipped, "%s/%s.aegis", p->c->paths.aegis_dir, p->names[i]) < 0)
                        return true;
                free(d->file);
                d->file = shipped;
                return true;
        }
        return false;
}

static void pending_clear(Pending *p) {
        pending_findings_free(p->names, p->n_names);
        if (p->installed)
                pending_findings_free(p->installed, p->n_names);
        *p = (Pending) {};
}

/* Under the lock: the packages whose judged findings this trigger reports. */
static int pending_load(ToolContext *c, Pending *p) {
        int r;

        *p = (Pending) { .c = c };
        r = pending_findings_read(&c->paths, &p->names, &p->n_names);
        if (r < 0)
                return r;
        p->installed = calloc(p->n_names ? p->n_names : 1, sizeof(*p->installed));
        if (!p->installed)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_names; i++)
                if (!(p->installed[i] = installed_manifest_path(&c->paths, p->names[i])))
                        return -ENOMEM;
        return 0;
}

/* Leave package's judged findings (about file) to the trigger; said now if they cannot be. */
static void defer_findings(ToolContext *c, const char *package, const char *file) {
        _cleanup_close_ int lock = -1;
        int r = install_lock(c, &lock);

        if (r == 0)
                r = pending_findings_add(&c->paths, package);
        if (r != 0) {
                fprintf(c->err, "warning: cannot leave %s's findings to the trigger (%s): "
                        "they are reported now, as they stand\n", package,
                        r < 0 ? strerror(-r) : "the lock");
                return;
        }
        diagnostics_filter(c->diag, not_judged_about, (void *) file);
}

/* Whether the registration on disk already says exactly this. */
/* An origin file's text up to its Unpacked line, which registration_format() writes last. */
static size_t registered_part(const char *text) {
        const char *unpacked = strstr(text, "\nUnpacked: ");

        return unpacked ? (size_t) (unpacked - text) + 1 : strlen(text);
}

/* Whether the registration says what it said before: a new unpack of the same file is no news. */
static bool unchanged(const ToolContext *c, const InstallPlan *plan) {
        _cleanup_free_ char *manifest_path = installed_manifest_path(&c->paths, plan->package);
        _cleanup_free_ char *origin_path = installed_origin_path(&c->paths, plan->package);
        _cleanup_free_ char *manifest = NULL, *origin = NULL;
        size_t manifest_size = 0, origin_size = 0;

        if (!manifest_path || !origin_path ||
            fileio_read(manifest_path, &manifest, &manifest_size) < 0 ||
            fileio_read(origin_path, &origin, &origin_size) < 0)
                return false;
        return manifest_size == plan->manifest_size &&
               memcmp(manifest, plan->manifest_data, manifest_size) == 0 &&
               registered_part(origin) == registered_part(plan->origin_file) &&
               memcmp(origin, plan->origin_file, registered_part(origin)) == 0;
}

static void note_registered(ToolContext *c, const char *package, const char *version,
                            const Decision *d) {
        if (d->origin)
                fprintf(c->err, "mssf-policy: %s %s registered, origin %s%s%s%s\n", package,
                        version, d->origin, d->repository ? " (" : "",
                        d->repository ? d->repository : "", d->repository ? ")" : "");
        else
                fprintf(c->err, "mssf-policy: %s %s registered with the unknown origin: %s\n",
                        package, version, d->why_unknown ? d->why_unknown : "it never had one");
}

/* The plan for package's shipped manifest, with the origin decided under the lock. */
static int plan_configure(ToolContext *c, const char *package, InstallPlan *plan,
                          Decision *ret_decision, AptRecord *record, Registration *old,
                          const char *version, const char *arch) {
        _cleanup_free_ char *path = NULL, *data = NULL;
        char sha256[DIGEST_SHA256_HEX_SIZE];
        Registration reg;
        Unpack unpack;
        size_t size = 0;
        int r;

        r = read_shipped(c, c->diag, package, &path, &data, &size);
        if (r != 0)
                return r;
        r = digest_sha256_hex(data, size, sha256);
        if (r < 0)
                return r;
        r = apt_record_read(&c->paths, package, record);
        if (r == APT_RECORD_E_INVALID) {
                _cleanup_free_ char *record_path = apt_record_path(&c->paths, package);

                fprintf(c->err, "warning: %s is not a record mssf-policy wrote: ignored\n",
                        record_path ? record_path : package);
        } else if (r < 0)
                return r;
        r = installed_read_registration(&c->paths, package, old);
        if (r == -EBADMSG)
                *old = (Registration) {};
        else if (r < 0)
                return r;
        r = read_unpack(c, package, &unpack);
        if (r < 0)
                return r;
        *ret_decision = decide(record, old, version, arch, sha256, &unpack);
        r = install_plan_set_manifest(plan, TAKE_PTR(data), size, path, ret_decision->origin,
                                      c->diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        reg = (Registration) {
                .origin = (char *) ret_decision->origin,
                .version = (char *) version,
                .architecture = (char *) arch,
                .manifest_sha256 = sha256,
                .repository = (char *) ret_decision->repository,
                .unpacked = unpack.id[0] ? unpack.id : NULL,
        };
        r = registration_format(&reg, &plan->origin_file);
        if (r < 0)
                return r;
        r = install_plan_load(plan, &c->paths, c->diag);
        return r > 0 ? TOOL_E_INVALID : r;
}

static int dpkg_configure(ToolContext *c, const char *package) {
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        _cleanup_free_ char *version = NULL, *arch = NULL, *shipped = NULL;
        _cleanup_close_ int lock = -1;
        AptRecord record = {};
        Registration old = {};
        Decision decision = {};
        Focus focus = {};
        bool quiet;
        int r;

        if (asprintf(&shipped, "%s/%s.aegis", c->paths.aegis_dir, package) < 0)
                return -ENOMEM;
        focus.file = shipped;
        diagnostics_set_keep(c->diag, about_focus, &focus);
        r = query_dpkg(c, c->diag, package, &version, &arch);
        if (r != 0)
                return r;
        r = install_plan_new(package, &plan);
        if (r < 0)
                return r;
        plan->from_dpkg = true;
        r = install_lock(c, &lock);
        if (r == 0)
                r = plan_configure(c, package, plan, &decision, &record, &old, version, arch);
        if (r == 0)
                r = dpkg_guard_check(c, origin_now,
                                     &(Configuring) { .package = package, .decision = &decision });
        quiet = r == 0 && unchanged(c, plan);
        if (r == 0)
                r = install_run(c, plan);
        lock = safe_close(lock);
        if (r == 0) {
                if (decision.from_record)
                        (void) apt_record_remove(&c->paths, package);
                if (!quiet)
                        note_registered(c, package, version, &decision);
                install_note_effects(c, plan);
                r = catch_up(c, focus.judged > 0);
                if (r == CATCH_UP_TRIGGERED && focus.judged > 0)
                        defer_findings(c, package, shipped);
                r = r == CATCH_UP_TRIGGERED ? 0 : r;
        }
        diagnostics_set_keep(c->diag, NULL, NULL);
        apt_record_clear(&record);
        registration_clear(&old);
        return r;
}

/* remove and purge: take the registration away (quietly done when there is none). */
static int dpkg_remove(ToolContext *c, const char *package, bool purge) {
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        _cleanup_close_ int lock = -1;
        Focus focus = {};
        int r;

        diagnostics_set_keep(c->diag, about_focus, &focus);
        r = install_plan_new(package, &plan);
        if (r < 0)
                return r;
        plan->from_dpkg = true;
        r = install_lock(c, &lock);
        if (r == 0)
                r = install_plan_load(plan, &c->paths, c->diag);
        if (r > 0)
                r = TOOL_E_INVALID;
        if (r == 0 && plan->was_installed)
                r = dpkg_guard_check(c, origin_now, NULL);
        if (r == 0 && plan->was_installed)
                r = install_run(c, plan);
        lock = safe_close(lock);
        if (r == 0 && purge)
                r = apt_record_remove(&c->paths, package);
        if (r == 0 && plan->was_installed) {
                fprintf(c->err, "mssf-policy: %s unregistered\n", package);
                install_note_effects(c, plan);
                r = catch_up(c, false);
                r = r == CATCH_UP_TRIGGERED ? 0 : r;
        }
        diagnostics_set_keep(c->diag, NULL, NULL);
        return r;
}

/* A dpkg-registered package whose shipped manifest is gone (a version without one, a forced removal). */
static int is_orphan(ToolContext *c, const char *package, bool *ret) {
        _cleanup_free_ char *name = NULL, *path = NULL;
        Registration reg;
        int r;

        *ret = false;
        r = installed_read_registration(&c->paths, package, &reg);
        if (r < 0)
                return r == -EBADMSG ? 0 : r;
        if (registration_from_dpkg(&reg)) {
                if (asprintf(&name, "%s.aegis", package) < 0 ||
                    !(path = fileio_join(c->paths.aegis_dir, name))) {
                        registration_clear(&reg);
                        return -ENOMEM;
                }
                *ret = access(path, F_OK) < 0 && errno == ENOENT;
        }
        registration_clear(&reg);
        return 0;
}

static int dpkg_triggered(ToolContext *c) {
        _cleanup_close_ int lock = -1;
        char **names = NULL;
        size_t n_names = 0;
        bool written = false;
        Focus nothing = {};
        Pending pending = {};
        int r;

        diagnostics_set_keep(c->diag, about_focus, &nothing);
        r = install_lock(c, &lock);
        if (r == 0)
                r = dpkg_guard_check(c, origin_now, NULL);
        if (r == 0)
                r = installed_names(&c->paths, &names, &n_names);
        for (size_t i = 0; r == 0 && i < n_names; i++) {
                _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
                bool orphan;

                r = is_orphan(c, names[i], &orphan);
                if (r < 0 || !orphan)
                        continue;
                c->defer_policy_db = true;
                r = install_plan_new(names[i], &plan);
                if (r == 0) {
                        plan->from_dpkg = true;
                        r = install_plan_load(plan, &c->paths, c->diag);
                }
                if (r > 0)
                        r = TOOL_E_INVALID;
                if (r == 0)
                        r = install_run(c, plan);
                if (r == 0) {
                        fprintf(c->err, "mssf-policy: %s unregistered: its manifest %s/%s.aegis "
                                "is gone\n", names[i], c->paths.aegis_dir, names[i]);
                        install_note_effects(c, plan);
                }
        }
        for (size_t i = 0; i < n_names; i++)
                free(names[i]);
        free(names);
        if (r == 0) {
                /* Only a report: a list that cannot be read does not hold back policy.db. */
                r = pending_load(c, &pending);
                if (r < 0 && r != -ENOMEM) {
                        fprintf(c->err, "warning: the findings left to this trigger cannot be read "
                                "(%s): not reported\n", strerror(-r));
                        pending_clear(&pending);
                        r = 0;
                }
        }
        lock = safe_close(lock);
        c->defer_policy_db = false;
        /* The whole run is configured: what is judged now is what holds. */
        diagnostics_set_keep(c->diag, about_pending, &pending);
        if (r == 0)
                r = install_compile(c, NULL, true, &written);
        diagnostics_set_keep(c->diag, NULL, NULL);
        /* Reported: off the list (a configure may have added others meanwhile). */
        if (r == 0 && pending.n_names > 0) {
                r = install_lock(c, &lock);
                if (r == 0)
                        r = pending_findings_remove(&c->paths, pending.names, pending.n_names);
                lock = safe_close(lock);
        }
        pending_clear(&pending);
        if (r == 0 && written)
                fprintf(c->err, "mssf-policy: policy.db compiled and the bus told\n");
        return r;
}

static int dpkg_action(ToolContext *c, const char *action, const char *package);

int tool_dpkg(ToolContext *c, const char *action, const char *package) {
        _cleanup_(package_db_freep) PackageDb *own_db = NULL;
        int r;

        /* dpkg runs us: its database says whose each file is, whoever called. */
        if (!c->package_db) {
                DpkgDb *db = NULL;

                r = dpkg_db_new_for(&c->paths, &db);
                if (r < 0)
                        return r;
                c->package_db = own_db = dpkg_db_package_db(db);
        }
        r = dpkg_action(c, action, package);
        if (own_db)
                c->package_db = NULL;
        return r;
}

static int dpkg_action(ToolContext *c, const char *action, const char *package) {
        if (package && !manifest_valid_package_label(package)) {
                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, NULL, 0, 0,
                                "\"%s\" is not a package name mssf-policy can register (it "
                                "becomes a Smack label)", package);
                return TOOL_E_INVALID;
        }
        c->defer_policy_db = under_dpkg();
        if (strcmp(action, "configure") == 0)
                return dpkg_configure(c, package);
        if (strcmp(action, "remove") == 0)
                return dpkg_remove(c, package, false);
        if (strcmp(action, "purge") == 0)
                return dpkg_remove(c, package, true);
        if (strcmp(action, "triggered") == 0)
                return dpkg_triggered(c);
        return -EINVAL;
}
