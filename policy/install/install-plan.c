/*
 * Planning a change to the installed state.
 *
 * Everything an install or remove will write is computed here, in memory,
 * from the files on disk and the new manifest; nothing is changed. The
 * rule store is read whole: mssf-* files are ours and are regenerated for
 * every package; other files in accesses.d (the device maker's) are only
 * read, because what they list must stay loaded too. For each (subject,
 * object) pair the kernel should hold the union of every file's access;
 * kernel_changes lists the pairs whose union changes, plus every rule of
 * the package being installed (so a reinstall also repairs the kernel).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "install-plan.h"
#include "integrity.h"
#include "installed.h"
#include "manifest.h"
#include "model.h"
#include "package-files.h"
#include "package-rules.h"
#include "policyset.h"
#include "safe-root.h"

int install_plan_new(const char *package, InstallPlan **ret) {
        _cleanup_(install_plan_freep) InstallPlan *plan = calloc(1, sizeof(*plan));
        int r;

        if (!plan)
                return -ENOMEM;
        plan->package = strdup(package);
        if (!plan->package)
                return -ENOMEM;
        r = smack_rules_new(&plan->kernel_changes);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(plan);
        return 0;
}

InstallPlan *install_plan_free(InstallPlan *plan) {
        if (!plan)
                return NULL;
        free(plan->package);
        free(plan->origin);
        free(plan->origin_file);
        free(plan->manifest_data);
        package_free(plan->parsed);
        package_free(plan->old_package);
        policy_set_free(plan->set);
        free(plan->policy_data);
        for (size_t i = 0; i < plan->n_rule_files; i++) {
                free(plan->rule_files[i].name);
                free(plan->rule_files[i].old_text);
                free(plan->rule_files[i].new_text);
        }
        free(plan->rule_files);
        strmap_deinit(&plan->rule_file_index);
        smack_rules_free(plan->kernel_changes);
        integrity_plan_free(plan->integrity);
        package_files_free(plan->old_files);
        package_files_free(plan->new_files);
        safe_root_free(plan->root);
        free(plan);
        return NULL;
}

static bool origin_valid(const char *origin) {
        return manifest_valid_label(origin) && !strchr(origin, '*');
}

int install_plan_set_manifest(InstallPlan *plan, char *data, size_t size, const char *file,
                              const char *origin, Diagnostics *diag) {
        int r;

        plan->manifest_data = data;
        plan->manifest_size = size;
        if (!manifest_valid_package_label(plan->package)) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, NULL, 0, 0,
                                "\"%s\" is not a valid package name (it becomes a Smack label: "
                                "printable ASCII without spaces, '/', quotes or \"::\")",
                                plan->package);
                return INSTALL_PLAN_E_INVALID;
        }
        if (origin) {
                if (!origin_valid(origin)) {
                        diagnostics_add(diag, DIAGNOSTIC_ERROR, NULL, 0, 0,
                                        "\"%s\" is not a valid origin name (as the device "
                                        "policy names them: printable ASCII, no spaces or '*')",
                                        origin);
                        return INSTALL_PLAN_E_INVALID;
                }
                plan->origin = strdup(origin);
                if (!plan->origin)
                        return -ENOMEM;
        }
        r = manifest_parse_buffer(data, size, file, plan->package, plan->origin, diag,
                                  &plan->parsed);
        if (r == MANIFEST_E_INVALID)
                return INSTALL_PLAN_E_INVALID;
        return r;
}

int install_plan_read_manifest(InstallPlan *plan, const char *path, const char *origin,
                               Diagnostics *diag) {
        char *data = NULL;
        size_t size = 0;
        int r;

        r = fileio_read(path, &data, &size);
        if (r < 0) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0, "cannot read the manifest: %s",
                                strerror(-r));
                return INSTALL_PLAN_E_INVALID;
        }
        return install_plan_set_manifest(plan, data, size, path, origin, diag);
}

/* The version on disk, for its labels; a copy that no longer loads is only a warning. */
static int load_old(InstallPlan *plan, const ToolPaths *paths, Diagnostics *diag) {
        _cleanup_free_ char *path = installed_manifest_path(paths, plan->package);
        _cleanup_free_ char *origin = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *ignored = NULL;
        int r;

        if (!path)
                return -ENOMEM;
        if (access(path, F_OK) < 0)
                return errno == ENOENT ? 0 : -errno;
        plan->was_installed = true;
        r = installed_read_origin(paths, plan->package, &origin);
        if (r < 0)
                return r;
        r = diagnostics_new(&ignored);
        if (r < 0)
                return r;
        r = manifest_parse_file(path, plan->package, origin, ignored, &plan->old_package);
        if (r == MANIFEST_E_INVALID) {
                diagnostics_add(diag, DIAGNOSTIC_WARNING, path, 0, 0,
                                "the installed manifest no longer loads: its binaries keep "
                                "their SMACK64EXEC labels");
                return 0;
        }
        return r;
}

int install_plan_load(InstallPlan *plan, const ToolPaths *paths, Diagnostics *diag) {
        int r;

        r = installed_load(paths, plan->package, diag, &plan->set);
        if (r != 0)
                return r > 0 ? INSTALL_PLAN_E_INVALID : r;
        r = load_old(plan, paths, diag);
        if (r < 0)
                return r;
        if (!plan->parsed)
                return 0;
        r = policy_set_add(plan->set, plan->parsed, diag);
        if (r > 0)
                return INSTALL_PLAN_E_INVALID;
        if (r < 0)
                return r;
        plan->new_package = TAKE_PTR(plan->parsed);
        /* A new manifest that names another's label refuses; recovery only confines (resolve). */
        if (plan->recovering)
                return 0;
        r = policy_set_check_labels(plan->set, plan->new_package, diag);
        return r > 0 ? INSTALL_PLAN_E_INVALID : r;
}

int install_plan_open_root(InstallPlan *plan, const ToolPaths *paths) {
        return plan->root ? 0 : safe_root_new(paths->file_root, &plan->root);
}

int install_plan_files(InstallPlan *plan, const ToolPaths *paths, const PackageDb *db,
                       Diagnostics *diag) {
        PackageFilesContext context;
        int r;

        r = install_plan_open_root(plan, paths);
        if (r < 0)
                return r;
        context = (PackageFilesContext) { .root = plan->root, .db = db, .set = plan->set };
        /* On remove, the package manager's list still names what the package installed. */
        r = package_files_new(&context, plan->package, plan->old_package,
                              plan->from_dpkg && !plan->new_package, false, diag,
                              &plan->old_files);
        if (r != 0 || !plan->new_package)
                return r > 0 ? INSTALL_PLAN_E_INVALID : r;
        r = package_files_new(&context, plan->package, plan->new_package, plan->from_dpkg,
                              !plan->recovering, diag, &plan->new_files);
        return r > 0 ? INSTALL_PLAN_E_INVALID : r;
}

static RuleFile *plan_rule_file(InstallPlan *plan, const char *name, int *r) {
        uintptr_t found = (uintptr_t) strmap_get(&plan->rule_file_index, name);
        RuleFile *file;

        if (found)
                return &plan->rule_files[found - 1];
        if (plan->n_rule_files == plan->n_rule_files_allocated) {
                size_t grow = plan->n_rule_files_allocated ? plan->n_rule_files_allocated * 2 : 64;
                RuleFile *bigger = reallocarray(plan->rule_files, grow, sizeof(RuleFile));

                if (!bigger) {
                        *r = -ENOMEM;
                        return NULL;
                }
                plan->rule_files = bigger;
                plan->n_rule_files_allocated = grow;
        }
        file = &plan->rule_files[plan->n_rule_files];
        *file = (RuleFile) { .name = strdup(name) };
        /* The key is the file's own name string, which moves with nothing. */
        if (!file->name ||
            strmap_put(&plan->rule_file_index, file->name,
                       (void *) (uintptr_t) (plan->n_rule_files + 1)) < 0) {
                free(file->name);
                *r = -ENOMEM;
                return NULL;
        }
        plan->n_rule_files++;
        return file;
}

static bool is_ours(const char *name) {
        return strncmp(name, PACKAGE_RULES_PREFIX, strlen(PACKAGE_RULES_PREFIX)) == 0;
}

/* Add the rules of text to union (file for the warning); unparsable foreign files are skipped. */
static int union_add_text(SmackRules *all, const char *text, const char *file, Diagnostics *diag) {
        _cleanup_(smack_rules_freep) SmackRules *rules = NULL;
        unsigned line = 0;
        int r;

        r = smack_rules_new(&rules);
        if (r < 0)
                return r;
        r = smack_rules_parse(rules, text, false, &line);
        if (r < 0)
                return r;
        if (r > 0) {
                diagnostics_add(diag, DIAGNOSTIC_WARNING, file, line, 0,
                                "not a Smack rule (\"subject object access\"): this file's rules "
                                "are not taken into account");
                return 0;
        }
        return smack_rules_merge(all, rules);
}

/* Read the rule store: old texts of our files, old union, and the foreign part of the union. */
static int read_store(InstallPlan *plan, const ToolPaths *paths, SmackRules *old_union,
                      SmackRules *foreign, Diagnostics *diag) {
        DIR *dir = opendir(paths->rules_dir);
        struct dirent *entry;
        int r = 0;

        if (!dir)
                return errno == ENOENT ? 0 : -errno;
        while (r >= 0 && (entry = readdir(dir))) {
                _cleanup_free_ char *path = NULL, *text = NULL;
                RuleFile *file;

                if (entry->d_name[0] == '.' || fileio_is_temporary(entry->d_name))
                        continue;
                path = fileio_join(paths->rules_dir, entry->d_name);
                if (!path) {
                        r = -ENOMEM;
                        break;
                }
                r = fileio_read(path, &text, NULL);
                if (r == -EISDIR) {
                        r = 0;
                        continue;
                }
                if (r < 0)
                        break;
                r = union_add_text(old_union, text, path, diag);
                if (r < 0)
                        break;
                if (!is_ours(entry->d_name)) {
                        r = union_add_text(foreign, text, path, diag);
                        continue;
                }
                file = plan_rule_file(plan, entry->d_name, &r);
                if (file) {
                        struct stat st;

                        file->old_text = TAKE_PTR(text);
                        file->old_mode = stat(path, &st) == 0 ? st.st_mode & 07777 : 0;
                }
        }
        closedir(dir);
        return r;
}

/* The new text of every installed package's file (NULL when it has no rules). */
static int generate_files(InstallPlan *plan, SmackRules *new_union, SmackRules **ret_own) {
        for (size_t i = 0; i < plan->set->n_packages; i++) {
                const Package *package = plan->set->packages[i];
                _cleanup_(smack_rules_freep) SmackRules *rules = NULL;
                _cleanup_free_ char *name = NULL, *header = NULL;
                RuleFile *file;
                int r = 0;

                if (asprintf(&name, PACKAGE_RULES_PREFIX "%s", package->name) < 0 ||
                    asprintf(&header, "Smack rules of package %s, written by mssf-policy: "
                             "do not edit", package->name) < 0)
                        return -ENOMEM;
                r = smack_rules_new(&rules);
                if (r >= 0)
                        r = package_rules_build(plan->set, package, rules);
                if (r >= 0)
                        r = smack_rules_merge(new_union, rules);
                if (r < 0)
                        return r;
                file = plan_rule_file(plan, name, &r);
                if (!file)
                        return r;
                if (rules->n_rules > 0) {
                        r = smack_rules_format(rules, header, &file->new_text);
                        if (r < 0)
                                return r;
                }
                if (package == plan->new_package)
                        *ret_own = TAKE_PTR(rules);
        }
        return 0;
}

static int add_change(SmackRules *changes, const SmackRule *rule, const SmackRules *new_union) {
        return smack_rules_set(changes, rule->subject, rule->object,
                               smack_rules_get(new_union, rule->subject, rule->object));
}

/* Pairs whose union differs, and the installed package's own pairs. */
static int compute_changes(InstallPlan *plan, const SmackRules *old_union,
                           const SmackRules *new_union, const SmackRules *own) {
        const SmackRules *sets[] = { old_union, new_union };
        int r;

        for (size_t s = 0; s < ELEMENTSOF(sets); s++)
                for (size_t i = 0; i < sets[s]->n_rules; i++) {
                        const SmackRule *rule = &sets[s]->rules[i];

                        if (smack_rules_get(old_union, rule->subject, rule->object) ==
                            smack_rules_get(new_union, rule->subject, rule->object))
                                continue;
                        r = add_change(plan->kernel_changes, rule, new_union);
                        if (r < 0)
                                return r;
                }
        for (size_t i = 0; own && i < own->n_rules; i++) {
                r = add_change(plan->kernel_changes, &own->rules[i], new_union);
                if (r < 0)
                        return r;
        }
        smack_rules_sort(plan->kernel_changes);
        return 0;
}

int install_plan_rules(InstallPlan *plan, const ToolPaths *paths, Diagnostics *diag) {
        _cleanup_(smack_rules_freep) SmackRules *old_union = NULL, *new_union = NULL, *own = NULL;
        int r;

        r = smack_rules_new(&old_union);
        if (r >= 0)
                r = smack_rules_new(&new_union);
        if (r >= 0)
                r = read_store(plan, paths, old_union, new_union, diag);
        if (r >= 0)
                r = generate_files(plan, new_union, &own);
        if (r >= 0)
                r = compute_changes(plan, old_union, new_union, own);
        return r;
}

static bool same_text(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}

int install_plan_write_rules(Transaction *t, const InstallPlan *plan, const ToolPaths *paths) {
        for (size_t i = 0; i < plan->n_rule_files; i++) {
                const RuleFile *file = &plan->rule_files[i];
                _cleanup_free_ char *path = NULL;
                int r;

                if (same_text(file->old_text, file->new_text) &&
                    (!file->new_text || file->old_mode == INSTALL_PLAN_RULES_MODE))
                        continue;
                path = fileio_join(paths->rules_dir, file->name);
                if (!path)
                        return -ENOMEM;
                if (file->new_text)
                        r = transaction_write_file(t, path, file->new_text, strlen(file->new_text),
                                                   INSTALL_PLAN_RULES_MODE);
                else
                        r = transaction_remove_file(t, path);
                if (r < 0)
                        return r;
        }
        return 0;
}
