/*
 * The manifest parser's final pass, over a file that parsed without error:
 * interface defaults are applied to members, and what the file leaves
 * ambiguous or closed is reported.
 *
 * After this pass every Member's requirement is effective (its own
 * annotation, else its interface's default), and a property's write
 * requirement is its com.maemo.Aegis.Write annotation, else the
 * interface's write default, else its read requirement (writing never
 * needs less than reading). Nothing here looks outside the package.
 */
#include <string.h>

#include "manifest-internal.h"
#include "model.h"

static bool own_token_missing(const Parser *p, const char *label) {
        const char *name = label + strlen(p->package->name) + 2;
        return !package_find_token(p->package, name);
}

/* A label the package qualified with its own name but does not provide. */
static bool is_unprovided_own(const Parser *p, const char *label) {
        size_t n = strlen(p->package->name);
        return label && strncmp(label, p->package->name, n) == 0 &&
               strncmp(label + n, "::", 2) == 0 && own_token_missing(p, label);
}

static void warn_unprovided(Parser *p, const char *label, const SourceLoc *loc) {
        if (is_unprovided_own(p, label))
                parser_warning(p, loc, "token %s is not provided by this package: nobody can "
                               "hold it until <provide> declares <credential name=\"%s\"/>",
                               label, label + strlen(p->package->name) + 2);
}

static int apply_default(Requirement *slot, const Requirement *fallback) {
        if (slot->kind != REQUIREMENT_UNSET || fallback->kind == REQUIREMENT_UNSET)
                return 0;
        return requirement_copy(slot, fallback);
}

static int finish_member(Parser *p, const Node *node, const Interface *iface, Member *m) {
        if (apply_default(&m->require, &iface->default_require) < 0)
                return -ENOMEM;
        if (m->kind == MEMBER_PROPERTY) {
                if (apply_default(&m->write, &iface->default_write) < 0 ||
                    apply_default(&m->write, &m->require) < 0)
                        return -ENOMEM;
                warn_unprovided(p, m->write.token, &m->write.loc);
        }
        warn_unprovided(p, m->require.token, &m->require.loc);
        if (m->kind == MEMBER_METHOD && m->require.kind == REQUIREMENT_UNSET)
                parser_warning(p, &m->loc, "method %s.%s at %s has no " "com.maemo.Aegis "
                               "annotation and its interface no default: calls to it are denied "
                               "(write value=\"\" to open it)", iface->name, m->name, node->path);
        return 0;
}

static int finish_interface(Parser *p, const Node *node, Interface *iface) {
        warn_unprovided(p, iface->default_require.token, &iface->default_require.loc);
        warn_unprovided(p, iface->default_write.token, &iface->default_write.loc);
        if (iface->n_members == 0 && iface->default_require.kind == REQUIREMENT_UNSET)
                parser_warning(p, &iface->loc, "interface %s at %s declares no member and no "
                               "default annotation: every call to it is denied", iface->name,
                               node->path);
        for (size_t i = 0; i < iface->n_members; i++) {
                int r = finish_member(p, node, iface, iface->members[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int finish_name(Parser *p, DbusName *d) {
        if (d->own == OWN_TOKEN)
                warn_unprovided(p, d->own_token, &d->loc);
        for (size_t i = 0; i < d->n_nodes; i++)
                for (size_t j = 0; j < d->nodes[i]->n_interfaces; j++) {
                        int r = finish_interface(p, d->nodes[i], d->nodes[i]->interfaces[j]);
                        if (r < 0)
                                return r;
                }
        return 0;
}

int parser_finish(Parser *p) {
        Package *package = p->package;
        for (size_t i = 0; i < package->n_requests; i++) {
                const Request *request = package->requests[i];
                for (size_t j = 0; j < request->n_credentials; j++) {
                        const Credential *c = request->credentials[j];
                        if (c->kind == CREDENTIAL_TOKEN)
                                warn_unprovided(p, c->name, &c->loc);
                }
                if (request->n_credentials == 0)
                        parser_warning(p, &request->loc, "<request> asks for no credential: "
                                       "add <credential name=\"...\"/> or remove it");
        }
        for (size_t i = 0; i < package->n_names; i++) {
                int r = finish_name(p, package->names[i]);
                if (r < 0)
                        return r;
        }
        return p->oom;
}
