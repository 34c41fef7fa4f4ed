/*
 * manifest_check(): `mssf-policy check MANIFEST...`, each manifest on its
 * own against the device policy.
 *
 * A manifest alone cannot resolve everything: another package's token
 * exists only if that package is installed, and a bare name that is not a
 * global token of this device policy may be one on another device. Such
 * references are warnings here; parse errors (which would refuse the
 * install) stay errors. So is a label beyond the package's own (an owner,
 * a pkg::/path binary): whether the device policy grants it depends on
 * the origin, which only the install knows. Nothing is granted or
 * written.
 */
#include <stdio.h>
#include <string.h>

#include "device-policy.h"
#include "manifest.h"
#include "model.h"
#include "policyset.h"

typedef struct Checker {
        const Package *package;
        const DevicePolicy *device;
        Diagnostics *diag;
        char **reported;                /* labels already warned about */
        size_t n_reported;
} Checker;

static int warn_once(Checker *c, const char *label, const SourceLoc *loc, const char *why) {
        if (model_strv_contains(c->reported, c->n_reported, label))
                return 0;
        int r = model_strv_append(&c->reported, &c->n_reported, label);
        if (r < 0)
                return r;
        return diagnostics_add(c->diag, DIAGNOSTIC_WARNING, loc->file, loc->line, loc->column,
                               "%s %s", label, why);
}

/* A token label as the rest of the system would see it. */
static int check_token(Checker *c, const char *label, const SourceLoc *loc, bool requested) {
        if (!label)
                return 0;
        const char *sep = strstr(label, "::");
        if (!sep) {
                if (device_policy_has_global_token(c->device, label))
                        return 0;
                const char *similar = device_policy_similar_token(c->device, label);
                if (similar) {
                        _cleanup_free_ char *why = NULL;
                        if (asprintf(&why, "is not a global token, but %s is (the case is "
                                     "significant): write %s", similar, similar) < 0)
                                return -ENOMEM;
                        return warn_once(c, label, loc, why);
                }
                return warn_once(c, label, loc, requested ?
                                 "is neither provided by this package nor a global token of "
                                 "the device policy: it will not be granted" :
                                 "is neither provided by this package nor a global token of "
                                 "the device policy: nobody can hold it, so what it guards is "
                                 "denied to everyone");
        }
        size_t n = strlen(c->package->name);
        if ((size_t) (sep - label) == n && strncmp(label, c->package->name, n) == 0)
                return 0;       /* own token: the parser has checked it */
        return warn_once(c, label, loc, "belongs to another package: it is resolved only when "
                         "that package is installed");
}

static int check_requirement(Checker *c, const Requirement *req) {
        return req->kind == REQUIREMENT_TOKEN ? check_token(c, req->token, &req->loc, false) : 0;
}

/* A label this package names beyond its own: only a device policy's grant to its origin allows it. */
static int check_label(Checker *c, const char *label, const SourceLoc *loc) {
        const Package *p = c->package;
        if (strcmp(label, p->name) == 0 || policy_label_is_under(label, p->name))
                return 0;
        _cleanup_free_ char *why = NULL;
        if (asprintf(&why, "is not package %s's label nor one under it (%s:NAME): the install "
                     "is refused unless the device policy grants the package's origin that "
                     "label (\"label ORIGIN ...\" lines)", p->name, p->name) < 0)
                return -ENOMEM;
        return warn_once(c, label, loc, why);
}

static int check_name(Checker *c, const DbusName *d) {
        int r = d->own == OWN_TOKEN ? check_token(c, d->own_token, &d->loc, false) : 0;
        for (size_t i = 1; r >= 0 && i < d->n_owner_labels; i++)
                r = check_label(c, d->owner_labels[i], &d->owner_locs[i]);
        for (size_t i = 0; r >= 0 && i < d->n_nodes; i++)
                for (size_t j = 0; r >= 0 && j < d->nodes[i]->n_interfaces; j++) {
                        const Interface *iface = d->nodes[i]->interfaces[j];
                        for (size_t k = 0; r >= 0 && k < iface->n_members; k++) {
                                r = check_requirement(c, &iface->members[k]->require);
                                if (r >= 0)
                                        r = check_requirement(c, &iface->members[k]->write);
                        }
                }
        return r;
}

static int check_package(Checker *c) {
        const Package *p = c->package;
        int r = 0;
        for (size_t i = 0; r >= 0 && i < p->n_requests; i++)
                for (size_t j = 0; r >= 0 && j < p->requests[i]->n_credentials; j++) {
                        const Credential *cred = p->requests[i]->credentials[j];
                        if (cred->kind == CREDENTIAL_TOKEN)
                                r = check_token(c, cred->name, &cred->loc, true);
                }
        for (size_t i = 0; r >= 0 && i < p->n_requests; i++)
                for (size_t j = 0; r >= 0 && j < p->requests[i]->n_targets; j++) {
                        const RequestTarget *target = p->requests[i]->targets[j];
                        if (target->package)
                                r = check_label(c, target->package, &target->loc);
                }
        for (size_t i = 0; r >= 0 && i < p->n_names; i++)
                r = check_name(c, p->names[i]);
        return r;
}

static int check_one(const char *path, const char *given_name, const DevicePolicy *device,
                     Diagnostics *diag) {
        _cleanup_free_ char *derived = NULL;
        const char *name = given_name;
        if (!name) {
                int r = manifest_package_name_from_path(path, &derived);
                if (r < 0)
                        return r;
                if (r > 0)
                        return diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0, "no valid "
                                               "package label can be derived from this file "
                                               "name: name the package explicitly") ?:
                               MANIFEST_E_INVALID;
                name = derived;
        }
        _cleanup_(package_freep) Package *package = NULL;
        int r = manifest_parse_file(path, name, NULL, diag, &package);
        if (r == -ENOENT || r == -EACCES || r == -EISDIR)
                return diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0, "cannot read: %s",
                                       strerror(-r)) ?: MANIFEST_E_INVALID;
        if (r != 0)
                return r;
        Checker c = { .package = package, .device = device, .diag = diag };
        r = check_package(&c);
        model_strv_free(c.reported, c.n_reported);
        return r;
}

int manifest_check(const char *const *paths, const char *const *names, size_t n_paths,
                   const DevicePolicy *device, Diagnostics *diag) {
        _cleanup_(device_policy_freep) DevicePolicy *builtin = NULL;
        if (!device) {
                int r = device_policy_new_default(&builtin);
                if (r < 0)
                        return r;
                device = builtin;
        }
        int result = 0;
        for (size_t i = 0; i < n_paths; i++) {
                int r = check_one(paths[i], names ? names[i] : NULL, device, diag);
                if (r < 0)
                        return r;
                if (r > 0)
                        result = MANIFEST_E_INVALID;
        }
        return result;
}
