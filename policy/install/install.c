/*
 * install, remove and compile: the changes mssf-policy makes to a system.
 *
 * Threat model: what a package may say.
 *
 * Who writes manifests. The device maker (its system packages), store
 * authors, and anyone with a .deb: dpkg runs mssf-policy for every
 * package that ships /usr/share/mssf/aegis/NAME.aegis, whoever built it.
 * The manifest, the package's files, its control fields and its
 * maintainer scripts are all the package's word: never trusted, parsed
 * with bounds, and believed only about the package itself. Trusted: the
 * kernel, dpkg's database (info/PACKAGE.list, diversions: dpkg writes
 * them from the archives under its lock), the device maker's root-owned
 * configuration (device policy, repositories.conf and its keyrings), and
 * what apt verified. Not defended against: maintainer scripts, which run
 * as root and can do anything mssf-policy can (docs/packaging.md says
 * what the device's package manager must do about that); mssf-policy
 * must not be the tool they trick into doing it for them.
 *
 * What a manifest may speak of, and what refuses the install (each with
 * the manifest's line and column, before anything changes):
 *  - files: only regular files its own package installs
 *    (package-files.c): under dpkg in its own list and no other's,
 *    diversions respected; by hand, listed by no other dpkg package; in
 *    both, named by no other installed manifest; every hard link its
 *    own; set-id only with policy="setxid" and an origin granted
 *    CAP::setuid/CAP::setgid. Every label and hash is written through a
 *    descriptor opened without following a symlink, on the very inode
 *    that was checked (safe-root.c), so a symlink shipped, made by a
 *    script, or swapped in while we run redirects nothing;
 *  - labels: its own (its package name, which may not be a global token,
 *    a monitor label or a label another package names), labels under it
 *    (PACKAGE:NAME), and those the device policy's "label" lines grant
 *    its origin; never Smack's special labels, a token or a global token
 *    (policy_set_check_labels());
 *  - tokens: those it provides (package::Token, never another's), and
 *    requests, which the origin and checkorigin decide (policy_set_resolve():
 *    what is not granted is a warning and makes no rule); guarding a
 *    member with a token buys reach from its holders only where the
 *    package provides it or the device policy lets its origin serve it
 *    (policy_set_may_serve());
 *  - bus names: those it declares, first come (policy_set_add()), but for
 *    those the device policy reserves to other origins.
 * What the origin adds: which global tokens, POSIX credentials, other
 * packages' checkorigin tokens and extra labels the device maker lets a
 * package of that origin have. Nothing in the package chooses it.
 *
 * What an installed version said is not refused again but confined: a
 * package registered before these rules keeps loading, and what it may no
 * longer name (a foreign owner label, another package's file) is dropped
 * from its rules and left untouched on disk, with a warning. Finally no
 * rule file names a label that no installed package, token or grant owns
 * (package-rules.c fails the change rather than write one).
 *
 * Each change is planned in memory first (parse and validate the
 * manifest, load every installed one, resolve grants, generate every
 * package's rule file, compile policy.db, decide which files are the
 * package's and hash them), so that every check that can refuse runs
 * before anything is touched. Only then is the system changed, step by
 * step, through one Transaction: manifest copy and origin, SMACK64EXEC
 * labels, security.ima reference hashes (integrity.c), rule files,
 * kernel rules, policy.db. A failure at any step rolls all of it back.
 * The bus is told last, after the commit; a bus that is not running is
 * only a note.
 *
 * Rule files are regenerated for every installed package on every change,
 * because one package's rules depend on others (an app's rule to reach a
 * service exists only while that service is installed). The kernel gets,
 * for every (subject, object) pair whose rule-store union changed, that
 * union: what the remaining files still list stays, whoever added it.
 */
#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-reload.h"
#include "compile.h"
#include "effects.h"
#include "fileio.h"
#include "installed.h"
#include "integrity.h"
#include "journal.h"
#include "install-plan.h"
#include "install.h"
#include "manifest.h"
#include "model.h"
#include "context.h"
#include "policyset.h"
#include "smack-kernel.h"
#include "smack-setup.h"
#include "transaction.h"

static const char *compile_error_reason(int r) {
        switch (r) {
        case POLICY_COMPILE_E_CONFLICT:
                return "two packages declare the same system bus name: remove one of them first";
        case POLICY_BUILDER_E_TOO_LARGE:
                return "the policy would exceed the policy.db format's limits";
        default:
                return "a value the policy.db format refuses";
        }
}

static int report_compile_error(ToolContext *c, int r, const PolicyCompileError *error) {
        _cleanup_free_ char *where = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&where, &size);

        if (!f)
                return -ENOMEM;
        if (error->package)
                fprintf(f, " (package %s", error->package);
        if (error->name)
                fprintf(f, "%s bus name %s", error->package ? "," : " (", error->name);
        if (error->other_package)
                fprintf(f, ", also declared by %s", error->other_package);
        if (error->package || error->name)
                fputc(')', f);
        if (fclose(f) != 0)
                return -ENOMEM;
        diagnostics_add(c->diag, DIAGNOSTIC_ERROR, NULL, 0, 0, "cannot compile the policy%s: %s",
                        where, compile_error_reason(r));
        return TOOL_E_INVALID;
}

/* Resolve the new state, compile its policy and generate its rules: nothing is written. */
static int plan_compile(ToolContext *c, InstallPlan *plan) {
        PolicyCompileError error = {};
        int r;

        r = policy_set_resolve(plan->set, c->diag);
        if (r < 0)
                return r;
        r = policy_compile(plan->set, &plan->policy_data, &plan->policy_size, &error);
        if (r > 0)
                return report_compile_error(c, r, &error);
        if (r < 0)
                return r;
        return install_plan_rules(plan, &c->paths, c->diag);
}

/* Compile, resolve and generate everything the new state needs. */
static int plan_prepare(ToolContext *c, InstallPlan *plan) {
        int r;

        r = plan_compile(c, plan);
        if (r != 0)
                return r;
        /* Which files are the package's: a <for path> that names another's refuses here. */
        r = install_plan_files(plan, &c->paths, c->package_db, c->diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        /* Recovery's comes from the journal: what the interrupted change found. */
        if (plan->integrity)
                return 0;
        /* Reads every file now: a changed one refuses before anything is touched. */
        r = integrity_plan_new(plan->root, c->package_db, plan->package, plan->old_files,
                               plan->new_files, c->diag, &plan->integrity);
        return r > 0 ? TOOL_E_INVALID : r;
}

static int ensure_dirs(const ToolPaths *paths) {
        const char *files[] = { paths->policy_db };
        const char *dirs[] = { paths->manifest_dir, paths->origin_dir, paths->rules_dir };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                r = fileio_mkdir_p(dirs[i], 0755);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *dir = strdup(files[i]);

                if (!dir)
                        return -ENOMEM;
                r = fileio_mkdir_p(dirname(dir), 0755);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The installed copy of the manifest and its origin (install), or neither (remove). */
static int step_manifest(Transaction *t, ToolContext *c, const InstallPlan *plan) {
        _cleanup_free_ char *manifest = installed_manifest_path(&c->paths, plan->package);
        _cleanup_free_ char *origin = installed_origin_path(&c->paths, plan->package);
        _cleanup_free_ char *origin_line = NULL;
        int r;

        if (!manifest || !origin)
                return -ENOMEM;
        if (!plan->manifest_data) {
                r = transaction_remove_file(t, manifest);
                if (r >= 0)
                        r = transaction_remove_file(t, origin);
                return r;
        }
        r = transaction_write_file(t, manifest, plan->manifest_data, plan->manifest_size, 0644);
        if (r < 0)
                return r;
        if (plan->origin_file)
                return transaction_write_file(t, origin, plan->origin_file,
                                              strlen(plan->origin_file), 0644);
        if (!plan->origin)
                return transaction_remove_file(t, origin);
        if (asprintf(&origin_line, "%s\n", plan->origin) < 0)
                return -ENOMEM;
        return transaction_write_file(t, origin, origin_line, strlen(origin_line), 0644);
}

static int step_kernel(Transaction *t, ToolContext *c, const InstallPlan *plan) {
        if (!c->paths.smackfs) {
                if (!c->paths.root && plan->kernel_changes->n_rules > 0)
                        fprintf(c->err, "note: smackfs is not mounted: the rules are stored in %s "
                                "but not loaded into the kernel\n", c->paths.rules_dir);
                return 0;
        }
        for (size_t i = 0; i < plan->kernel_changes->n_rules; i++) {
                const SmackRule *rule = &plan->kernel_changes->rules[i];
                int r = transaction_set_rule(t, rule->subject, rule->object, rule->access);

                if (r < 0)
                        return r;
        }
        return 0;
}

static int apply_plan(Transaction *t, ToolContext *c, const InstallPlan *plan) {
        int r;

        r = ensure_dirs(&c->paths);
        if (r < 0)
                return r;
        r = step_manifest(t, c, plan);
        if (r < 0)
                return r;
        r = smack_setup_label(t, plan->root, plan->old_files, plan->package, plan->new_files,
                              plan->package, c->diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        r = integrity_apply(t, plan->root, plan->integrity,
                            !c->paths.root && (ima_evm_state() & 1), c->diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        r = install_plan_write_rules(t, plan, &c->paths);
        if (r < 0)
                return r;
        r = step_kernel(t, c, plan);
        if (r < 0 || c->defer_policy_db)
                return r;
        return transaction_write_file(t, c->paths.policy_db, plan->policy_data, plan->policy_size,
                                      0644);
}

/* Whether the deferred policy.db differs from the one on disk. */
static bool policy_db_differs(const ToolContext *c, const InstallPlan *plan) {
        _cleanup_free_ char *current = NULL;
        size_t size = 0;

        if (fileio_read(c->paths.policy_db, &current, &size) < 0)
                return true;
        return size != plan->policy_size || memcmp(current, plan->policy_data, size) != 0;
}

static void tell_bus(ToolContext *c) {
        _cleanup_free_ char *message = NULL;
        int r;

        if (!c->paths.reload_bus)
                return;
        r = bus_reload(&message);
        if (r == BUS_RELOAD_E_NO_BUS)
                fprintf(c->err, "note: no system bus is running; it will read the new policy "
                        "when it starts\n");
        else if (r < 0)
                fprintf(c->err, "warning: the system bus did not reload (%s%s%s); the new policy "
                        "is installed: run 'mssf-policy compile' or restart the bus\n",
                        strerror(-r), message ? ": " : "", message ? message : "");
}

/*
 * Apply, then commit or roll back; 0, a TOOL_E_* code or -errno.
 * *ret_stuck: the rollback failed too, so the journal must stay.
 */
static int apply_or_roll_back(ToolContext *c, const InstallPlan *plan, bool *ret_stuck) {
        /* Declared first, freed last: the transaction's rollback may still need it. */
        _cleanup_(smack_kernel_rules_freep) SmackKernelRules *kernel = NULL;
        _cleanup_(transaction_freep) Transaction *t = NULL;
        TransactionRules rules;
        int r, undo;

        *ret_stuck = false;
        if (c->paths.smackfs) {
                r = smack_kernel_rules_new(c->paths.smackfs, &kernel);
                if (r < 0)
                        return r;
                rules = smack_kernel_transaction_rules(kernel);
        }
        r = transaction_new(kernel ? &rules : NULL, &t);
        if (r < 0)
                return r;
        r = apply_plan(t, c, plan);
        if (r == 0) {
                transaction_commit(t);
                return 0;
        }
        if (r < 0 && transaction_failure(t))
                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, NULL, 0, 0, "%s failed: %s",
                                transaction_failure(t), strerror(-r));
        undo = transaction_rollback(t);
        if (undo < 0) {
                *ret_stuck = true;
                fprintf(c->err, "error: rolling back failed too (%s); the next mssf-policy "
                        "run will finish undoing this change\n", strerror(-undo));
        }
        return r;
}

/*
 * Journal, apply, forget the journal, then tell the bus. The package
 * manager's Ctrl-C or SIGTERM waits until the change is committed or
 * rolled back: dying in the middle would leave exactly the half-changed
 * system the transaction exists to prevent (a crash is what the journal
 * is for).
 */
static int run_plan(ToolContext *c, InstallPlan *plan, bool journalled) {
        sigset_t blocked, saved;
        bool stuck = false;
        int r;

        r = plan_prepare(c, plan);
        if (r != 0)
                return r;
        sigemptyset(&blocked);
        sigaddset(&blocked, SIGINT);
        sigaddset(&blocked, SIGTERM);
        sigaddset(&blocked, SIGHUP);
        sigaddset(&blocked, SIGQUIT);
        sigprocmask(SIG_BLOCK, &blocked, &saved);
        r = journalled ? journal_begin(&c->paths, plan->root, plan->package, plan->integrity) : 0;
        if (r < 0) {
                _cleanup_free_ char *path = journal_path(&c->paths);

                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, path, 0, 0,
                                "cannot write the journal: %s", strerror(-r));
        } else {
                r = apply_or_roll_back(c, plan, &stuck);
                if (!stuck && journalled) {
                        int end = journal_end(&c->paths);

                        if (r == 0 && end < 0)
                                r = end;
                }
        }
        sigprocmask(SIG_SETMASK, &saved, NULL);
        if (r != 0)
                return r;
        if (c->defer_policy_db)
                c->policy_db_stale = c->policy_db_stale || policy_db_differs(c, plan);
        else
                tell_bus(c);
        return 0;
}

/* Files half-written by an interrupted run. */
static int clean_temporaries(const ToolPaths *paths) {
        _cleanup_free_ char *db_dir = strdup(paths->policy_db);
        const char *dirs[] = { paths->manifest_dir, paths->origin_dir, paths->rules_dir, NULL };
        int r = 0;

        if (!db_dir)
                return -ENOMEM;
        dirs[3] = dirname(db_dir);
        for (size_t i = 0; i < ELEMENTSOF(dirs) && r >= 0; i++)
                r = journal_clean_temporaries(dirs[i]);
        return r;
}

/* The journal's security.ima values, to put back as they were (version 3 on). */
static int recover_integrity(ToolContext *c, const Journal *journal, InstallPlan *plan) {
        _cleanup_free_ char *path = NULL;
        int r;

        if (!journal->has_ima)
                return 0;               /* an older journal: planned again from the manifests */
        path = journal_path(&c->paths);
        if (!path)
                return -ENOMEM;
        r = install_plan_open_root(plan, &c->paths);
        if (r < 0)
                return r;
        r = integrity_plan_restore(plan->root, journal->ima, journal->n_ima, path, c->diag,
                                   &plan->integrity);
        return r > 0 ? TOOL_E_INVALID : r;
}

/*
 * A journal means the last change died half-way: put the package's
 * manifest and origin back as the journal recorded them, put back each
 * security.ima the journal recorded, and derive every rule file, label,
 * kernel rule and policy.db again. Call with the lock.
 */
static int recover(ToolContext *c) {
        _cleanup_(journal_freep) Journal *journal = NULL;
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        _cleanup_free_ char *file = NULL;
        unsigned line = 0;
        int r;

        r = journal_read(&c->paths, &journal, &line);
        if (r == JOURNAL_E_CORRUPT) {
                _cleanup_free_ char *path = journal_path(&c->paths);

                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, path, line, 0, "unreadable journal of "
                                "an interrupted change: check the installed manifests and the "
                                "security.ima of the package's files, remove this file and run "
                                "'mssf-policy compile'");
                return TOOL_E_INVALID;
        }
        if (r < 0 || !journal)
                return r;
        r = install_plan_new(journal->package, &plan);
        if (r < 0)
                return r;
        plan->recovering = true;
        r = recover_integrity(c, journal, plan);
        if (r != 0)
                return r;
        file = installed_manifest_path(&c->paths, journal->package);
        if (!file)
                return -ENOMEM;
        if (journal->manifest_data) {
                r = install_plan_set_manifest(plan, TAKE_PTR(journal->manifest_data),
                                              journal->manifest_size, file, journal->origin,
                                              c->diag);
                if (r != 0)
                        return r > 0 ? TOOL_E_INVALID : r;
                plan->origin_file = TAKE_PTR(journal->origin_file);
        }
        r = install_plan_load(plan, &c->paths, c->diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        r = run_plan(c, plan, false);
        if (r != 0)
                return r;
        fprintf(c->err, "note: undid an interrupted change to package %s\n", journal->package);
        return journal_end(&c->paths);
}

int install_run(ToolContext *c, InstallPlan *plan) {
        return run_plan(c, plan, true);
}

int install_check(ToolContext *c, InstallPlan *plan) {
        return plan_compile(c, plan);
}

/* The lock, and the state an interrupted run left put right. */
int install_lock(ToolContext *c, int *ret_lock) {
        _cleanup_close_ int lock = -1;
        int r;

        r = installed_lock(&c->paths, &lock);
        if (r < 0)
                return r;
        c->paths.write_cache = true;
        /* With the lock held, a temporary file can only be a dead run's. */
        r = clean_temporaries(&c->paths);
        if (r >= 0)
                r = recover(c);
        if (r != 0)
                return r;
        *ret_lock = TAKE_FD(lock);
        return 0;
}

void install_note_effects(ToolContext *c, const InstallPlan *plan) {
        int r = effects_on_others(plan, c->err, "mssf-policy: ");

        if (r < 0)
                fprintf(c->err, "warning: the change is made, but what it changed for other "
                        "packages cannot be said: %s\n", strerror(-r));
}

/*
 * By hand, the user hears about the file they gave (file NULL: none) and
 * nothing of the other installed manifests, which every change loads and
 * judges again: errors (any one refuses the change) and findings without
 * a file still come through. What the change does to other packages is
 * said in one line each (effects_on_others()).
 */
static bool about_given_file(Diagnostic *d, void *userdata) {
        const char *file = userdata;

        return d->severity == DIAGNOSTIC_ERROR || !d->file || (file && strcmp(d->file, file) == 0);
}

/* The change is made once run_plan() returns 0: what follows only reports. */
static int run_by_hand(ToolContext *c, InstallPlan *plan) {
        int r = run_plan(c, plan, true);

        if (r == 0)
                install_note_effects(c, plan);
        return r;
}

int tool_install(ToolContext *c, const char *package, const char *manifest, const char *origin) {
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        _cleanup_close_ int lock = -1;
        int r;

        diagnostics_set_keep(c->diag, about_given_file, (void *) manifest);

        /*
         * Not a boundary (a root script can unset the variable), but the
         * documented interface: a package's origin is what apt verified,
         * established by `mssf-policy dpkg configure` (docs/packaging.md).
         */
        if (origin && getenv("DPKG_MAINTSCRIPT_PACKAGE")) {
                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, NULL, 0, 0,
                                "a maintainer script may not choose a package's origin "
                                "(--origin %s from %s's %s): packages register with "
                                "'mssf-policy dpkg configure' (dh_mssf), which takes the "
                                "origin from what apt verified", origin,
                                getenv("DPKG_MAINTSCRIPT_PACKAGE"),
                                getenv("DPKG_MAINTSCRIPT_NAME") ?: "script");
                return TOOL_E_INVALID;
        }
        r = install_plan_new(package, &plan);
        if (r < 0)
                return r;
        r = install_plan_read_manifest(plan, manifest, origin, c->diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        r = install_lock(c, &lock);
        if (r != 0)
                return r;
        r = install_plan_load(plan, &c->paths, c->diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        return run_by_hand(c, plan);
}

int tool_remove(ToolContext *c, const char *package) {
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        _cleanup_close_ int lock = -1;
        int r;

        diagnostics_set_keep(c->diag, about_given_file, NULL);

        r = install_plan_new(package, &plan);
        if (r < 0)
                return r;
        r = install_lock(c, &lock);
        if (r != 0)
                return r;
        r = install_plan_load(plan, &c->paths, c->diag);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        if (!plan->was_installed) {
                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, NULL, 0, 0,
                                "package %s is not installed (no %s/%s.xml)", package,
                                c->paths.manifest_dir, package);
                return TOOL_E_NOT_INSTALLED;
        }
        return run_by_hand(c, plan);
}

int install_compile(ToolContext *c, const char *output, bool if_changed, bool *ret_written) {
        _cleanup_(policy_set_freep) PolicySet *set = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_free_ char *current = NULL;
        _cleanup_close_ int lock = -1;
        PolicyCompileError error = {};
        size_t size = 0, current_size = 0;
        int r;

        if (ret_written)
                *ret_written = false;
        if (!output) {
                r = install_lock(c, &lock);
                if (r != 0)
                        return r;
        }
        r = installed_load(&c->paths, NULL, c->diag, &set);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        r = policy_set_resolve(set, c->diag);
        if (r < 0)
                return r;
        r = policy_compile(set, &data, &size, &error);
        if (r > 0)
                return report_compile_error(c, r, &error);
        if (r < 0)
                return r;
        if (if_changed && fileio_read(output ? output : c->paths.policy_db, &current,
                                      &current_size) >= 0 &&
            current_size == size && memcmp(current, data, size) == 0)
                return 0;
        if (!output) {
                _cleanup_free_ char *dir = strdup(c->paths.policy_db);

                if (!dir)
                        return -ENOMEM;
                r = fileio_mkdir_p(dirname(dir), 0755);
                if (r < 0)
                        return r;
        }
        r = fileio_write_atomic(output ? output : c->paths.policy_db, data, size, 0644);
        if (r < 0)
                return r;
        if (ret_written)
                *ret_written = true;
        if (!output) {
                lock = safe_close(lock);
                tell_bus(c);
        }
        return 0;
}

int tool_compile(ToolContext *c, const char *output) {
        return install_compile(c, output, false, NULL);
}
