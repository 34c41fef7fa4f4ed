/*
 * The set of installed packages: loading a manifest directory, the checks
 * that need more than one manifest, and the grants.
 *
 * Invariants: no two packages in a set have the same name or declare the
 * same bus name on the same bus (the second is refused, naming both
 * declarations); grants are computed from scratch by policy_set_resolve().
 * A credential is granted only when something vouches for it: the package
 * itself (its own token), another installed package (its token, subject
 * to checkorigin), or the device policy (global tokens and POSIX
 * credentials, by origin). Everything else is reported and not granted.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device-policy.h"
#include "manifest.h"
#include "model.h"
#include "policyset.h"
#include "setindex.h"
#include "strmap.h"

/* --------------------------------------------------------------------- */
/* The set and its lookups, through its index (setindex.c). */

int policy_set_new(DevicePolicy *device, PolicySet **ret) {
        PolicySet *set = calloc(1, sizeof(*set));
        /* On failure the caller still owns device. */
        if (!set || set_index_new(&set->index) < 0) {
                free(set);
                return -ENOMEM;
        }
        if (!device && device_policy_new(&device) < 0) {
                set_index_free(set->index);
                free(set);
                return -ENOMEM;
        }
        set->device = device;
        *ret = set;
        return 0;
}

PolicySet *policy_set_free(PolicySet *set) {
        if (!set)
                return NULL;
        set_index_free(set->index);
        for (size_t i = 0; i < set->n_packages; i++)
                package_free(set->packages[i]);
        free(set->packages);
        device_policy_free(set->device);
        free(set);
        return NULL;
}

const Package *policy_set_find_package(const PolicySet *set, const char *name) {
        return strmap_get(&set->index->packages, name);
}

const ProvidedToken *policy_set_find_token(const PolicySet *set, const char *label,
                                           const Package **ret_provider) {
        const Package *p = strmap_get(&set->index->tokens, label);

        for (size_t j = 0; p && j < p->n_tokens; j++)
                if (strcmp(p->tokens[j]->label, label) == 0) {
                        if (ret_provider)
                                *ret_provider = p;
                        return p->tokens[j];
                }
        return NULL;
}

const Package *policy_set_find_name_owner(const PolicySet *set, BusKind bus, const char *name,
                                          const DbusName **ret_name) {
        const Package *p;
        const DbusName *d;

        if (bus != BUS_SYSTEM && bus != BUS_SESSION)
                return NULL;
        p = strmap_get(&set->index->names[bus], name);
        d = p ? package_find_name(p, bus, name) : NULL;
        if (!d)
                return NULL;
        if (ret_name)
                *ret_name = d;
        return p;
}

void policy_set_token_servers(const PolicySet *set, const char *token,
                              const Package *const **ret, size_t *ret_n) {
        const PackageList *list = set_index_servers(set->index, token);

        *ret = list->packages;
        *ret_n = list->n_packages;
}

/* --------------------------------------------------------------------- */
/* Adding and removing. */

static int check_names(const PolicySet *set, const Package *package, Diagnostics *diag) {
        int result = 0;
        for (size_t i = 0; i < package->n_names; i++) {
                const DbusName *d = package->names[i], *other_name = NULL;
                const Package *other = policy_set_find_name_owner(set, d->bus, d->name, &other_name);
                if (!other)
                        continue;
                int r = diagnostics_add(diag, DIAGNOSTIC_ERROR, package->file, d->loc.line,
                                        d->loc.column, "bus name %s (%s bus) is already declared "
                                        "by package %s at %s:%u:%u: only one package may declare "
                                        "a name", d->name, bus_kind_to_string(d->bus), other->name,
                                        other->file, other_name->loc.line, other_name->loc.column);
                if (r < 0)
                        return r;
                result = POLICY_SET_E_CONFLICT;
        }
        return result;
}

int policy_set_add(PolicySet *set, Package *package, Diagnostics *diag) {
        const Package *existing = policy_set_find_package(set, package->name);
        if (existing) {
                int r = diagnostics_add(diag, DIAGNOSTIC_ERROR, package->file, 0, 0,
                                        "package %s is already loaded from %s", package->name,
                                        existing->file);
                return r < 0 ? r : POLICY_SET_E_EXISTS;
        }
        int r = check_names(set, package, diag);
        if (r != 0)
                return r;
        r = MODEL_APPEND(set->packages, set->n_packages, package);
        if (r < 0)
                return r;
        r = set_index_add(set->index, package);
        if (r < 0) {
                /* The caller frees package: nothing may point into it. */
                set->n_packages--;
                (void) set_index_rebuild(set->index, set->packages, set->n_packages);
        }
        return r;
}

int policy_set_remove(PolicySet *set, const char *name) {
        for (size_t i = 0; i < set->n_packages; i++) {
                if (strcmp(set->packages[i]->name, name) != 0)
                        continue;
                package_free(set->packages[i]);
                memmove(set->packages + i, set->packages + i + 1,
                        (set->n_packages - i - 1) * sizeof(Package *));
                set->n_packages--;
                return set_index_rebuild(set->index, set->packages, set->n_packages);
        }
        return -ENOENT;
}

/* --------------------------------------------------------------------- */
/* Labels: a package speaks for its own. */

static bool is_special_label(const char *label) {
        return strcmp(label, "_") == 0 || strcmp(label, "*") == 0 || strcmp(label, "^") == 0 ||
               strcmp(label, "@") == 0;
}

bool policy_label_is_under(const char *label, const char *package) {
        size_t n = strlen(package);
        return strncmp(label, package, n) == 0 && label[n] == ':' && label[n + 1] != '\0' &&
               label[n + 1] != ':';
}

/* The installed package other than self whose label (or a label under it) label is, or NULL. */
static const Package *label_holder(const PolicySet *set, const Package *self, const char *label) {
        char name[MANIFEST_MAX_LABEL + 1];
        size_t n = strcspn(label, ":");
        if (n > MANIFEST_MAX_LABEL)
                return NULL;
        memcpy(name, label, n);
        name[n] = '\0';
        const Package *holder = policy_set_find_package(set, name);
        return holder == self ? NULL : holder;
}

static bool same_origin(const Package *a, const Package *b) {
        return a == b || (a->origin && b->origin && strcmp(a->origin, b->origin) == 0);
}

static const char *origin_name(const Package *package) {
        return package->origin ? package->origin : "unknown";
}

/*
 * The installed package of another origin than self's that names label
 * (an owner of its bus names, or the package of a pkg::/path binary it
 * grants to), or NULL; *ret_how says which.
 */
static const Package *label_namer(const PolicySet *set, const Package *self, const char *label,
                                  const char **ret_how) {
        for (size_t p = 0; p < set->n_packages; p++) {
                const Package *other = set->packages[p];
                if (other == self || same_origin(other, self))
                        continue;
                for (size_t i = 0; i < other->n_names; i++)
                        if (model_strv_contains(other->names[i]->owner_labels + 1,
                                                other->names[i]->n_owner_labels - 1, label)) {
                                *ret_how = "as an owner of its bus names";
                                return other;
                        }
                for (size_t i = 0; i < other->n_requests; i++)
                        for (size_t j = 0; j < other->requests[i]->n_targets; j++) {
                                const RequestTarget *target = other->requests[i]->targets[j];
                                if (target->package && strcmp(target->package, label) == 0) {
                                        *ret_how = "as the package of a binary it grants to";
                                        return other;
                                }
                        }
        }
        return NULL;
}

/*
 * Why package may not name label, beyond its own (what names it: "owner
 * label", "binary"), allocated into *ret, or NULL. Its own label and
 * those under it always; a label the device policy's "label" lines grant
 * its origin, unless an installed package of another origin holds it;
 * never Smack's special labels, a token, or a global token.
 */
static int foreign_label_problem(const PolicySet *set, const Package *package, const char *what,
                                 const char *label, char **ret) {
        const Package *holder;
        int r = 0;
        *ret = NULL;
        if (strcmp(label, package->name) == 0 || policy_label_is_under(label, package->name))
                return 0;
        holder = label_holder(set, package, label);
        if (is_special_label(label))
                r = asprintf(ret, "%s '%s' is one of Smack's special labels, which no package "
                             "may name", what, label);
        else if (strstr(label, "::"))
                r = asprintf(ret, "%s '%s' is a token (package::Token), not a label a process "
                             "runs with", what, label);
        else if (device_policy_has_global_token(set->device, label))
                r = asprintf(ret, "%s '%s' is a global token of the device policy, not a label "
                             "a process runs with", what, label);
        else if (holder && !same_origin(holder, package))
                r = asprintf(ret, "%s '%s' is package %s's, which comes from another origin "
                             "(%s, not %s): a package names another's label only where both "
                             "come from one origin and the device policy grants it", what,
                             label, holder->name, origin_name(holder), origin_name(package));
        else if (device_policy_grants_label(set->device, package->origin, label))
                return 0;
        else
                r = asprintf(ret, "%s '%s' is not package %s's%s%s%s: a package may name its "
                             "own label, labels %s:NAME under it, and labels the device policy "
                             "grants its origin (\"label %s ...\" lines)", what, label,
                             package->name, holder ? " (it is package " : "",
                             holder ? holder->name : "", holder ? "'s)" : "", package->name,
                             origin_name(package));
        return r < 0 ? -ENOMEM : 0;
}

static int owner_label_problem(const PolicySet *set, const Package *package, const char *label,
                               char **ret) {
        return foreign_label_problem(set, package, "owner label", label, ret);
}

/* Why package may not grant its credentials to target, another package's binary (or NULL). */
static int target_problem(const PolicySet *set, const Package *package,
                          const RequestTarget *target, char **ret) {
        _cleanup_free_ char *problem = NULL;
        *ret = NULL;
        if (!target->package)
                return 0;
        int r = foreign_label_problem(set, package, "the package of binary", target->package,
                                      &problem);
        if (r < 0 || !problem)
                return r;
        return asprintf(ret, "%s (%s::%s): it would be granted this package's credentials",
                        problem, target->package, target->path ? target->path : "") < 0 ?
                -ENOMEM : 0;
}

/* Why a package may not be called package->name (allocated into *ret), or NULL. */
static int package_name_problem(const PolicySet *set, const Package *package, char **ret) {
        const char *name = package->name, *how = NULL;
        const Package *namer;
        int r = 0;
        *ret = NULL;
        if (device_policy_has_global_token(set->device, name))
                r = asprintf(ret, "package name '%s' is a global token of the device policy: "
                             "a process with that label would hold it", name);
        else if (device_policy_is_monitor(set->device, name) &&
                 !device_policy_grants_label(set->device, package->origin, name))
                r = asprintf(ret, "package name '%s' is a monitor label of the device policy, "
                             "which origin %s is not granted (\"label\" lines)", name,
                             origin_name(package));
        /*
         * The label the device policy lets ask about any token: only a
         * package of an origin granted that label may take it, or a store
         * app named after the key service would learn its callers' tokens.
         */
        else if (device_policy_is_checkany(set->device, name) &&
                 !device_policy_grants_label(set->device, package->origin, name))
                r = asprintf(ret, "package name '%s' is a checkany label of the device policy, "
                             "which origin %s is not granted (\"label\" lines)", name,
                             origin_name(package));
        else if ((namer = label_namer(set, package, name, &how)))
                r = asprintf(ret, "package name '%s' is a label package %s (origin %s) already "
                             "names %s: that label is taken for its origin, not %s", name,
                             namer->name, origin_name(namer), how, origin_name(package));
        return r < 0 ? -ENOMEM : 0;
}

int policy_set_check_labels(const PolicySet *set, const Package *package, Diagnostics *diag) {
        _cleanup_free_ char *problem = NULL;
        int r = package_name_problem(set, package, &problem), result = 0;
        if (r < 0)
                return r;
        if (problem) {
                r = diagnostics_add(diag, DIAGNOSTIC_ERROR, package->file, package->loc.line,
                                    package->loc.column, "%s", problem);
                if (r < 0)
                        return r;
                result = POLICY_SET_E_LABEL;
        }
        for (size_t i = 0; i < package->n_requests; i++)
                for (size_t j = 0; j < package->requests[i]->n_targets; j++) {
                        const RequestTarget *target = package->requests[i]->targets[j];
                        free(problem);
                        r = target_problem(set, package, target, &problem);
                        if (r < 0)
                                return r;
                        if (!problem)
                                continue;
                        r = diagnostics_add(diag, DIAGNOSTIC_ERROR, package->file, target->loc.line,
                                            target->loc.column, "%s", problem);
                        if (r < 0)
                                return r;
                        result = POLICY_SET_E_LABEL;
                }
        for (size_t i = 0; i < package->n_names; i++) {
                const DbusName *d = package->names[i];
                if (d->bus == BUS_SYSTEM &&
                    !device_policy_allows_name(set->device, package->origin, d->name)) {
                        r = diagnostics_add(diag, DIAGNOSTIC_ERROR, package->file, d->loc.line,
                                            d->loc.column, "bus name %s is reserved by the device "
                                            "policy to other origins than %s (\"name ORIGIN ...\" "
                                            "lines): this package may not declare it", d->name,
                                            origin_name(package));
                        if (r < 0)
                                return r;
                        result = POLICY_SET_E_LABEL;
                }
                for (size_t j = 1; j < d->n_owner_labels; j++) {
                        free(problem);
                        r = owner_label_problem(set, package, d->owner_labels[j], &problem);
                        if (r < 0)
                                return r;
                        if (!problem)
                                continue;
                        r = diagnostics_add(diag, DIAGNOSTIC_ERROR, package->file,
                                            d->owner_locs[j].line, d->owner_locs[j].column, "%s",
                                            problem);
                        if (r < 0)
                                return r;
                        result = POLICY_SET_E_LABEL;
                }
        }
        return result;
}

/* What an installed package may no longer name is dropped, with a warning: never written. */
static int drop_foreign_labels(PolicySet *set, Package *package, Diagnostics *diag) {
        for (size_t i = 0; i < package->n_requests; i++)
                for (size_t j = 0; j < package->requests[i]->n_targets; j++) {
                        RequestTarget *target = package->requests[i]->targets[j];
                        _cleanup_free_ char *problem = NULL;
                        int r = target_problem(set, package, target, &problem);
                        target->refused = problem != NULL;
                        if (r < 0)
                                return r;
                        if (problem && diagnostics_add(diag, DIAGNOSTIC_WARNING, package->file,
                                                       target->loc.line, target->loc.column,
                                                       "%s: it is granted nothing", problem) < 0)
                                return -ENOMEM;
                }
        for (size_t i = 0; i < package->n_names; i++) {
                DbusName *d = package->names[i];
                for (size_t j = 1; j < d->n_owner_labels; ) {
                        _cleanup_free_ char *problem = NULL;
                        int r = owner_label_problem(set, package, d->owner_labels[j], &problem);
                        if (r < 0)
                                return r;
                        if (!problem) {
                                j++;
                                continue;
                        }
                        r = diagnostics_add(diag, DIAGNOSTIC_WARNING, package->file,
                                            d->owner_locs[j].line, d->owner_locs[j].column,
                                            "%s: dropped, it may not own %s", problem, d->name);
                        if (r < 0)
                                return r;
                        dbus_name_drop_owner_label(d, j);
                }
        }
        return 0;
}

/* --------------------------------------------------------------------- */
/* Loading a directory. */

/* The first line of dir/NAME.origin, or NULL when there is none. */
static int read_origin(const char *dir, const char *name, char **ret) {
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/%s.origin", dir, name) < 0)
                return -ENOMEM;
        FILE *f = fopen(path, "re");
        if (!f) {
                *ret = NULL;
                return errno == ENOENT ? 0 : -errno;
        }
        char line[256];
        bool ok = fgets(line, sizeof(line), f) != NULL;
        fclose(f);
        line[ok ? strcspn(line, " \t\r\n") : 0] = '\0';
        if (!line[0]) {
                *ret = NULL;
                return 0;
        }
        return model_strdup(line, ret);
}

static int compare_strings(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The NAME.xml entries of dir, sorted (so diagnostics are reproducible). */
static int list_manifests(const char *dir, char ***ret, size_t *ret_n) {
        DIR *d = opendir(dir);
        if (!d)
                return -errno;
        char **names = NULL;
        size_t n = 0;
        int r = 0;
        struct dirent *de;
        while (r >= 0 && (de = readdir(d))) {
                size_t len = strlen(de->d_name);
                if (de->d_name[0] == '.' || len <= 4 || strcmp(de->d_name + len - 4, ".xml") != 0)
                        continue;
                r = model_strv_append(&names, &n, de->d_name);
        }
        closedir(d);
        if (r < 0) {
                model_strv_free(names, n);
                return r;
        }
        if (n > 0)
                qsort(names, n, sizeof(char *), compare_strings);
        *ret = names;
        *ret_n = n;
        return 0;
}

static int load_one(PolicySet *set, const char *dir, const char *entry, Diagnostics *diag) {
        _cleanup_free_ char *name = strndup(entry, strlen(entry) - 4);
        _cleanup_free_ char *path = NULL, *origin = NULL;
        if (!name || asprintf(&path, "%s/%s", dir, entry) < 0)
                return -ENOMEM;
        if (!manifest_valid_package_label(name)) {
                int r = diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0, "file name '%s' "
                                        "is not NAME.xml with a valid package label NAME: "
                                        "skipped", entry);
                return r < 0 ? r : POLICY_SET_E_INVALID;
        }
        int r = read_origin(dir, name, &origin);
        if (r < 0)
                return r;
        _cleanup_(package_freep) Package *package = NULL;
        r = manifest_parse_file(path, name, origin, diag, &package);
        if (r == MANIFEST_E_INVALID)
                return POLICY_SET_E_INVALID;
        if (r < 0)
                return r;
        r = policy_set_add(set, package, diag);
        if (r < 0)
                return r;
        if (r > 0)
                return POLICY_SET_E_INVALID;
        TAKE_PTR(package);
        return 0;
}

int policy_set_load_dir(PolicySet *set, const char *dir, Diagnostics *diag) {
        char **entries = NULL;
        size_t n = 0;
        int r = list_manifests(dir, &entries, &n);
        if (r < 0)
                return r;
        int result = 0;
        for (size_t i = 0; i < n; i++) {
                r = load_one(set, dir, entries[i], diag);
                if (r < 0) {
                        result = r;
                        break;
                }
                if (r > 0)
                        result = POLICY_SET_E_INVALID;
        }
        model_strv_free(entries, n);
        return result;
}

/* --------------------------------------------------------------------- */
/* Grants. */

typedef struct Resolver {
        PolicySet *set;
        Package *package;
        Diagnostics *diag;
} Resolver;

/* The verdict for one concrete credential name of a kind. */
static GrantResult judge(const Resolver *res, CredentialKind kind, const char *name) {
        const Package *package = res->package;
        const DevicePolicy *device = res->set->device;
        if (kind != CREDENTIAL_TOKEN)
                return device_policy_allows(device, package->origin, name, false) ?
                        GRANT_GRANTED : GRANT_ORIGIN_DENIED;
        const Package *provider = NULL;
        const ProvidedToken *token = policy_set_find_token(res->set, name, &provider);
        if (!token) {
                if (!device_policy_has_global_token(device, name))
                        return GRANT_UNKNOWN_TOKEN;
                return device_policy_allows(device, package->origin, name, false) ?
                        GRANT_GRANTED : GRANT_ORIGIN_DENIED;
        }
        if (!token->check_origin || same_origin(package, provider) ||
            device_policy_allows(device, package->origin, name, true))
                return GRANT_GRANTED;
        return GRANT_CHECKORIGIN_DENIED;
}

static int report(const Resolver *res, const Credential *c, const char *name, GrantResult result) {
        static const char *const why[] = {
                [GRANT_UNKNOWN_TOKEN] = "no installed package provides it and it is not a "
                                        "global token of the device policy",
                [GRANT_ORIGIN_DENIED] = "the device policy does not grant it to this origin",
                [GRANT_CHECKORIGIN_DENIED] = "its provider declares checkorigin and this "
                                             "package comes from another origin",
        };
        if (result == GRANT_GRANTED)
                return 0;
        const char *similar = result == GRANT_UNKNOWN_TOKEN ?
                device_policy_similar_token(res->set->device, name) : NULL;
        return diagnostics_add(res->diag, DIAGNOSTIC_WARNING, c->loc.file, c->loc.line,
                               c->loc.column, "%s is not granted to %s (origin %s): %s%s%s%s",
                               name, res->package->name,
                               res->package->origin ? res->package->origin : "unknown",
                               why[result], similar ? " (did you mean " : "",
                               similar ? similar : "", similar ? "? the case is significant)" : "");
}

static int add_grant(Resolver *res, const Request *request, const Credential *c,
                     CredentialKind kind, const char *name, bool quiet_denial) {
        GrantResult result = judge(res, kind, name);
        Grant *g = NULL;
        if (grant_new(name, kind, result, request, c, &g) < 0)
                return -ENOMEM;
        if (MODEL_APPEND(res->package->grants, res->package->n_grants, g) < 0) {
                grant_free(g);
                return -ENOMEM;
        }
        return quiet_denial ? 0 : report(res, c, name, result);
}

/*
 * match="...": every known token the pattern covers, each judged alone,
 * once per request however many of its patterns cover it (seen: the
 * request's tokens so far), so that a manifest of many patterns over
 * many tokens costs what its distinct grants cost.
 */
static int expand_match(Resolver *res, const Request *request, const Credential *c,
                        StrMap *seen) {
        const PolicySet *set = res->set;
        size_t matched = 0;
        for (size_t i = 0; i < set->device->n_global_tokens; i++) {
                const char *name = set->device->global_tokens[i];
                if (fnmatch(c->name, name, 0) != 0)
                        continue;
                matched++;
                if (strmap_get(seen, name))
                        continue;
                if (strmap_put(seen, name, (void *) name) < 0 ||
                    add_grant(res, request, c, CREDENTIAL_TOKEN, name, true) < 0)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < set->n_packages; i++)
                for (size_t j = 0; j < set->packages[i]->n_tokens; j++) {
                        const char *label = set->packages[i]->tokens[j]->label;
                        if (fnmatch(c->name, label, 0) != 0)
                                continue;
                        matched++;
                        if (strmap_get(seen, label))
                                continue;
                        if (strmap_put(seen, label, (void *) label) < 0 ||
                            add_grant(res, request, c, CREDENTIAL_TOKEN, label, true) < 0)
                                return -ENOMEM;
                }
        if (matched > 0)
                return 0;
        return diagnostics_add(res->diag, DIAGNOSTIC_WARNING, c->loc.file, c->loc.line,
                               c->loc.column, "match=\"%s\" covers no known token: it grants "
                               "nothing (POSIX credentials are not expanded from patterns)",
                               c->name);
}

static int resolve_package(Resolver *res) {
        Package *package = res->package;
        for (size_t i = 0; i < package->n_grants; i++)
                grant_free(package->grants[i]);
        free(package->grants);
        package->grants = NULL;
        package->n_grants = 0;
        for (size_t i = 0; i < package->n_requests; i++) {
                const Request *request = package->requests[i];
                StrMap seen = {};
                int r = 0;
                for (size_t j = 0; j < request->n_credentials && r >= 0; j++) {
                        const Credential *c = request->credentials[j];
                        r = c->kind == CREDENTIAL_MATCH ? expand_match(res, request, c, &seen) :
                                add_grant(res, request, c, c->kind, c->name, false);
                }
                strmap_deinit(&seen);
                if (r < 0)
                        return r;
        }
        return 0;
}

bool policy_set_may_serve(const PolicySet *set, const Package *package, const char *token) {
        for (size_t i = 0; i < package->n_tokens; i++)
                if (strcmp(package->tokens[i]->label, token) == 0)
                        return true;
        return device_policy_allows_serving(set->device, package->origin, token);
}

/* What check_served() has said already: one warning per token. */
typedef struct Unserved {
        const Resolver *res;
        const char *name;               /* the bus name being looked at */
        char **warned;
        size_t n_warned;
} Unserved;

/* Warn where the package guards with a token it may not serve. */
static int check_served_requirement(Unserved *u, const Requirement *req) {
        const Package *package = u->res->package;
        if (req->kind != REQUIREMENT_TOKEN || !req->token ||
            model_strv_contains(u->warned, u->n_warned, req->token) ||
            policy_set_may_serve(u->res->set, package, req->token))
                return 0;
        int r = model_strv_append(&u->warned, &u->n_warned, req->token);
        if (r < 0)
                return r;
        return diagnostics_add(u->res->diag, DIAGNOSTIC_WARNING, req->loc.file, req->loc.line,
                               req->loc.column, "%s guards %s with %s, which package %s "
                               "neither provides nor may serve (origin %s: the device policy's "
                               "\"serve\" lines): holders of %s get no Smack rule to reach %s "
                               "for it, nor it to them (dropped)", package->name, u->name,
                               req->token, package->name,
                               package->origin ? package->origin : "unknown", req->token,
                               package->name);
}

/* Every token the package's D-Bus declarations guard with, judged by policy_set_may_serve(). */
static int check_served(const Resolver *res) {
        const Package *package = res->package;
        Unserved u = { .res = res };
        int r = 0;
        for (size_t i = 0; r >= 0 && i < package->n_names; i++) {
                const DbusName *d = package->names[i];
                Requirement own = { .kind = REQUIREMENT_TOKEN, .token = d->own_token, .loc = d->loc };
                u.name = d->name;
                if (d->own == OWN_TOKEN)
                        r = check_served_requirement(&u, &own);
                for (size_t n = 0; r >= 0 && n < d->n_nodes; n++)
                        for (size_t f = 0; r >= 0 && f < d->nodes[n]->n_interfaces; f++) {
                                const Interface *iface = d->nodes[n]->interfaces[f];
                                r = check_served_requirement(&u, &iface->default_require);
                                if (r >= 0)
                                        r = check_served_requirement(&u, &iface->default_write);
                                for (size_t m = 0; r >= 0 && m < iface->n_members; m++) {
                                        r = check_served_requirement(&u, &iface->members[m]->require);
                                        if (r >= 0)
                                                r = check_served_requirement(&u, &iface->members[m]->write);
                                }
                        }
        }
        model_strv_free(u.warned, u.n_warned);
        return r < 0 ? r : 0;
}

/* Everything said here depends on the other packages of the set: judged (diagnostic.h). */
int policy_set_resolve(PolicySet *set, Diagnostics *diag) {
        bool was_judging = diagnostics_judging(diag, true);
        int r = 0;

        for (size_t i = 0; r >= 0 && i < set->n_packages; i++) {
                Resolver res = { .set = set, .package = set->packages[i], .diag = diag };
                r = drop_foreign_labels(set, set->packages[i], diag);
                if (r >= 0)
                        r = resolve_package(&res);
                if (r >= 0)
                        r = check_served(&res);
        }
        diagnostics_judging(diag, was_judging);
        return r < 0 ? r : 0;
}

bool policy_set_is_granted(const Package *package, const char *name) {
        for (size_t i = 0; i < package->n_grants; i++)
                if (package->grants[i]->result == GRANT_GRANTED &&
                    strcmp(package->grants[i]->name, name) == 0)
                        return true;
        return false;
}
