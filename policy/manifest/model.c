/*
 * The policy model's constructors, destructors and lookups.
 *
 * Pure data handling: no I/O, no logging, no validation (the parsers
 * validate before they build). Invariants kept here: every object owns its
 * strings and children and frees them; arrays of pointers only grow, so a
 * pointer handed out by a lookup stays valid until its owner is freed.
 * Lookups inside one package are linear (a package is small); lookups in
 * the installed set go through its index (setindex.c), because a device
 * has thousands of packages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/*
 * Arrays keep no capacity: they grow to twice their size whenever their
 * length reaches a power of two (0, 1, 2, 4, ...), so there is always room
 * for one more, however they shrank, and appending n items reallocates
 * log n times instead of n (a parse of a thousand manifests appends
 * hundreds of thousands of items).
 */
int model_append(void *array, size_t *n, void *item) {
        void ***arr = array;
        size_t length = *n;

        if (length >= SIZE_MAX / (2 * sizeof(void *)))
                return -ENOMEM;
        if ((length & (length - 1)) == 0) {
                void **grown = realloc(*arr, (length ? 2 * length : 1) * sizeof(void *));

                if (!grown)
                        return -ENOMEM;
                *arr = grown;
        }
        (*arr)[length] = item;
        *n = length + 1;
        return 0;
}

int model_strdup(const char *s, char **ret) {
        if (!s) {
                *ret = NULL;
                return 0;
        }
        char *copy = strdup(s);
        if (!copy)
                return -ENOMEM;
        *ret = copy;
        return 0;
}

char *model_join3(const char *a, const char *b, const char *c) {
        size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
        char *s = malloc(na + nb + nc + 1);

        if (!s)
                return NULL;
        memcpy(s, a, na);
        memcpy(s + na, b, nb);
        memcpy(s + na + nb, c, nc + 1);
        return s;
}

void model_strv_free(char **strv, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(strv[i]);
        free(strv);
}

int model_strv_append(char ***strv, size_t *n, const char *s) {
        _cleanup_free_ char *copy = strdup(s);
        if (!copy)
                return -ENOMEM;
        int r = model_append(strv, n, copy);
        if (r < 0)
                return r;
        TAKE_PTR(copy);
        return 0;
}

bool model_strv_contains(char *const *strv, size_t n, const char *s) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(strv[i], s) == 0)
                        return true;
        return false;
}

/* Free an array of pointers with its element destructor. */
#define FREE_ARRAY(arr, n, destructor)                          \
        do {                                                    \
                for (size_t _i = 0; _i < (n); _i++)             \
                        destructor((arr)[_i]);                  \
                free(arr);                                      \
        } while (0)

/* --------------------------------------------------------------------- */

int credential_new(CredentialKind kind, const char *name, const char *written,
                   const char *provider, SourceLoc loc, Credential **ret) {
        _cleanup_(credential_freep) Credential *c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->kind = kind;
        c->loc = loc;
        if (model_strdup(name, &c->name) < 0 || model_strdup(written, &c->written) < 0 ||
            model_strdup(provider, &c->provider) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(c);
        return 0;
}

Credential *credential_free(Credential *c) {
        if (!c)
                return NULL;
        free(c->name);
        free(c->written);
        free(c->provider);
        free(c);
        return NULL;
}

int request_target_new(const char *path, const char *package, const char *id,
                       SourceLoc loc, RequestTarget **ret) {
        _cleanup_(request_target_freep) RequestTarget *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->loc = loc;
        if (model_strdup(path, &t->path) < 0 || model_strdup(package, &t->package) < 0 ||
            model_strdup(id, &t->id) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(t);
        return 0;
}

RequestTarget *request_target_free(RequestTarget *t) {
        if (!t)
                return NULL;
        free(t->path);
        free(t->package);
        free(t->id);
        free(t);
        return NULL;
}

int request_new(SourceLoc loc, Request **ret) {
        Request *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->loc = loc;
        *ret = r;
        return 0;
}

Request *request_free(Request *r) {
        if (!r)
                return NULL;
        FREE_ARRAY(r->credentials, r->n_credentials, credential_free);
        FREE_ARRAY(r->targets, r->n_targets, request_target_free);
        free(r);
        return NULL;
}

int provided_token_new(const char *package, const char *name, bool check_origin,
                       SourceLoc loc, ProvidedToken **ret) {
        _cleanup_(provided_token_freep) ProvidedToken *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->check_origin = check_origin;
        t->loc = loc;
        t->name = strdup(name);
        t->label = model_join3(package, "::", name);
        if (!t->name || !t->label)
                return -ENOMEM;
        *ret = TAKE_PTR(t);
        return 0;
}

ProvidedToken *provided_token_free(ProvidedToken *t) {
        if (!t)
                return NULL;
        free(t->name);
        free(t->label);
        free(t);
        return NULL;
}

/* --------------------------------------------------------------------- */

int requirement_set(Requirement *req, RequirementKind kind, const char *token, SourceLoc loc) {
        char *copy = NULL;
        if (kind == REQUIREMENT_TOKEN && model_strdup(token, &copy) < 0)
                return -ENOMEM;
        free(req->token);
        req->kind = kind;
        req->token = copy;
        req->loc = loc;
        return 0;
}

void requirement_clear(Requirement *req) {
        free(req->token);
        *req = (Requirement) { .kind = REQUIREMENT_UNSET };
}

int requirement_copy(Requirement *dst, const Requirement *src) {
        return requirement_set(dst, src->kind, src->token, src->loc);
}

bool requirement_equal(const Requirement *a, const Requirement *b) {
        if (a->kind != b->kind)
                return false;
        if (a->kind != REQUIREMENT_TOKEN)
                return true;
        return strcmp(a->token, b->token) == 0;
}

int member_new(MemberKind kind, const char *name, SourceLoc loc, Member **ret) {
        Member *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->kind = kind;
        m->loc = loc;
        m->access = PROPERTY_ACCESS_READWRITE;
        m->name = strdup(name);
        if (!m->name)
                return member_free(m), -ENOMEM;
        *ret = m;
        return 0;
}

Member *member_free(Member *m) {
        if (!m)
                return NULL;
        free(m->name);
        requirement_clear(&m->require);
        requirement_clear(&m->write);
        free(m);
        return NULL;
}

int interface_new(const char *name, SourceLoc loc, Interface **ret) {
        Interface *i = calloc(1, sizeof(*i));
        if (!i)
                return -ENOMEM;
        i->loc = loc;
        i->name = strdup(name);
        if (!i->name)
                return interface_free(i), -ENOMEM;
        *ret = i;
        return 0;
}

Interface *interface_free(Interface *i) {
        if (!i)
                return NULL;
        free(i->name);
        requirement_clear(&i->default_require);
        requirement_clear(&i->default_write);
        FREE_ARRAY(i->members, i->n_members, member_free);
        free(i);
        return NULL;
}

int node_new(const char *path, SourceLoc loc, Node **ret) {
        Node *n = calloc(1, sizeof(*n));
        if (!n)
                return -ENOMEM;
        n->loc = loc;
        n->path = strdup(path);
        if (!n->path)
                return node_free(n), -ENOMEM;
        *ret = n;
        return 0;
}

Node *node_free(Node *n) {
        if (!n)
                return NULL;
        free(n->path);
        FREE_ARRAY(n->interfaces, n->n_interfaces, interface_free);
        free(n);
        return NULL;
}

int dbus_name_new(const char *name, BusKind bus, SourceLoc loc, DbusName **ret) {
        DbusName *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->bus = bus;
        d->own = OWN_SELF;
        d->loc = loc;
        d->name = strdup(name);
        if (!d->name)
                return dbus_name_free(d), -ENOMEM;
        *ret = d;
        return 0;
}

DbusName *dbus_name_free(DbusName *d) {
        if (!d)
                return NULL;
        free(d->name);
        free(d->own_token);
        model_strv_free(d->owner_labels, d->n_owner_labels);
        free(d->owner_locs);
        FREE_ARRAY(d->nodes, d->n_nodes, node_free);
        free(d);
        return NULL;
}

int dbus_name_add_owner_label(DbusName *d, const char *label, SourceLoc loc) {
        if (model_strv_contains(d->owner_labels, d->n_owner_labels, label))
                return 0;
        SourceLoc *locs = reallocarray(d->owner_locs, d->n_owner_labels + 1, sizeof(*locs));
        if (!locs)
                return -ENOMEM;
        d->owner_locs = locs;
        locs[d->n_owner_labels] = loc;
        return model_strv_append(&d->owner_labels, &d->n_owner_labels, label);
}

void dbus_name_drop_owner_label(DbusName *d, size_t i) {
        free(d->owner_labels[i]);
        memmove(d->owner_labels + i, d->owner_labels + i + 1,
                (d->n_owner_labels - i - 1) * sizeof(*d->owner_labels));
        memmove(d->owner_locs + i, d->owner_locs + i + 1,
                (d->n_owner_labels - i - 1) * sizeof(*d->owner_locs));
        d->n_owner_labels--;
}

int account_new(const char *user, const char *group, SourceLoc loc, Account **ret) {
        _cleanup_(account_freep) Account *a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        a->loc = loc;
        if (model_strdup(user, &a->user) < 0 || model_strdup(group, &a->group) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(a);
        return 0;
}

Account *account_free(Account *a) {
        if (!a)
                return NULL;
        free(a->user);
        free(a->group);
        free(a);
        return NULL;
}

int grant_new(const char *name, CredentialKind kind, GrantResult result,
              const Request *request, const Credential *credential, Grant **ret) {
        Grant *g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        g->kind = kind;
        g->result = result;
        g->request = request;
        g->credential = credential;
        g->name = strdup(name);
        if (!g->name)
                return grant_free(g), -ENOMEM;
        *ret = g;
        return 0;
}

Grant *grant_free(Grant *g) {
        if (!g)
                return NULL;
        free(g->name);
        free(g);
        return NULL;
}

/* --------------------------------------------------------------------- */

int package_new(const char *name, const char *origin, const char *file, Package **ret) {
        _cleanup_(package_freep) Package *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        if (model_strdup(name, &p->name) < 0 || model_strdup(origin, &p->origin) < 0 ||
            model_strdup(file, &p->file) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(p);
        return 0;
}

Package *package_free(Package *p) {
        if (!p)
                return NULL;
        FREE_ARRAY(p->requests, p->n_requests, request_free);
        FREE_ARRAY(p->tokens, p->n_tokens, provided_token_free);
        FREE_ARRAY(p->names, p->n_names, dbus_name_free);
        FREE_ARRAY(p->accounts, p->n_accounts, account_free);
        FREE_ARRAY(p->grants, p->n_grants, grant_free);
        free(p->name);
        free(p->origin);
        free(p->file);
        free(p);
        return NULL;
}

const ProvidedToken *package_find_token(const Package *package, const char *name) {
        for (size_t i = 0; i < package->n_tokens; i++)
                if (strcmp(package->tokens[i]->name, name) == 0)
                        return package->tokens[i];
        return NULL;
}

const DbusName *package_find_name(const Package *package, BusKind bus, const char *name) {
        for (size_t i = 0; i < package->n_names; i++)
                if (package->names[i]->bus == bus && strcmp(package->names[i]->name, name) == 0)
                        return package->names[i];
        return NULL;
}

const Node *dbus_name_find_node(const DbusName *name, const char *path) {
        for (size_t i = 0; i < name->n_nodes; i++)
                if (strcmp(name->nodes[i]->path, path) == 0)
                        return name->nodes[i];
        return NULL;
}

const Interface *node_find_interface(const Node *node, const char *name) {
        for (size_t i = 0; i < node->n_interfaces; i++)
                if (strcmp(node->interfaces[i]->name, name) == 0)
                        return node->interfaces[i];
        return NULL;
}

const Member *interface_find_member(const Interface *iface, MemberKind kind, const char *name) {
        for (size_t i = 0; i < iface->n_members; i++)
                if (iface->members[i]->kind == kind && strcmp(iface->members[i]->name, name) == 0)
                        return iface->members[i];
        return NULL;
}

/* --------------------------------------------------------------------- */

int origin_grant_new(const char *origin, SourceLoc loc, OriginGrant **ret) {
        OriginGrant *o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        o->loc = loc;
        o->origin = strdup(origin);
        if (!o->origin)
                return origin_grant_free(o), -ENOMEM;
        *ret = o;
        return 0;
}

OriginGrant *origin_grant_free(OriginGrant *o) {
        if (!o)
                return NULL;
        free(o->origin);
        model_strv_free(o->patterns, o->n_patterns);
        free(o);
        return NULL;
}

int device_policy_new(DevicePolicy **ret) {
        DevicePolicy *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

DevicePolicy *device_policy_free(DevicePolicy *p) {
        if (!p)
                return NULL;
        free(p->file);
        model_strv_free(p->global_tokens, p->n_global_tokens);
        FREE_ARRAY(p->origins, p->n_origins, origin_grant_free);
        FREE_ARRAY(p->label_origins, p->n_label_origins, origin_grant_free);
        FREE_ARRAY(p->serve_origins, p->n_serve_origins, origin_grant_free);
        FREE_ARRAY(p->name_origins, p->n_name_origins, origin_grant_free);
        model_strv_free(p->monitor_labels, p->n_monitor_labels);
        model_strv_free(p->checkany_labels, p->n_checkany_labels);
        free(p);
        return NULL;
}

bool device_policy_has_global_token(const DevicePolicy *policy, const char *token) {
        return model_strv_contains(policy->global_tokens, policy->n_global_tokens, token);
}

/* origin's line among rules, else the "*" line, else NULL. */
static const OriginGrant *find_origin(OriginGrant *const *rules, size_t n, const char *origin) {
        const OriginGrant *fallback = NULL;
        for (size_t i = 0; i < n; i++) {
                const OriginGrant *o = rules[i];
                if (origin && strcmp(o->origin, origin) == 0)
                        return o;
                if (strcmp(o->origin, "*") == 0)
                        fallback = o;
        }
        return fallback;
}

const OriginGrant *device_policy_find_origin(const DevicePolicy *policy, const char *origin) {
        return find_origin(policy->origins, policy->n_origins, origin);
}

const OriginGrant *device_policy_find_label_origin(const DevicePolicy *policy,
                                                   const char *origin) {
        return find_origin(policy->label_origins, policy->n_label_origins, origin);
}

const OriginGrant *device_policy_find_serve_origin(const DevicePolicy *policy,
                                                   const char *origin) {
        return find_origin(policy->serve_origins, policy->n_serve_origins, origin);
}

const OriginGrant *device_policy_find_name_origin(const DevicePolicy *policy,
                                                  const char *origin) {
        /* No "*" line: a name reserved for every origin is reserved for none. */
        for (size_t i = 0; origin && i < policy->n_name_origins; i++)
                if (strcmp(policy->name_origins[i]->origin, origin) == 0)
                        return policy->name_origins[i];
        return NULL;
}

/* --------------------------------------------------------------------- */

const char *credential_kind_to_string(CredentialKind kind) {
        static const char *const table[] = {
                [CREDENTIAL_TOKEN] = "token",
                [CREDENTIAL_UID] = "UID",
                [CREDENTIAL_GID] = "GID",
                [CREDENTIAL_GRP] = "GRP",
                [CREDENTIAL_CAP] = "CAP",
                [CREDENTIAL_MATCH] = "match",
        };
        return (size_t) kind < ELEMENTSOF(table) ? table[kind] : NULL;
}

const char *member_kind_to_string(MemberKind kind) {
        static const char *const table[] = {
                [MEMBER_METHOD] = "method",
                [MEMBER_SIGNAL] = "signal",
                [MEMBER_PROPERTY] = "property",
        };
        return (size_t) kind < ELEMENTSOF(table) ? table[kind] : NULL;
}

const char *bus_kind_to_string(BusKind bus) {
        static const char *const table[] = {
                [BUS_SYSTEM] = "system",
                [BUS_SESSION] = "session",
        };
        return (size_t) bus < ELEMENTSOF(table) ? table[bus] : NULL;
}

const char *grant_result_to_string(GrantResult result) {
        static const char *const table[] = {
                [GRANT_GRANTED] = "granted",
                [GRANT_UNKNOWN_TOKEN] = "unknown token",
                [GRANT_ORIGIN_DENIED] = "not allowed for this origin",
                [GRANT_CHECKORIGIN_DENIED] = "checkorigin token of another origin",
        };
        return (size_t) result < ELEMENTSOF(table) ? table[result] : NULL;
}
