/*
 * The compiler: the manifest model onto the builder.
 *
 * The model is trusted to be validated (the manifest parser did that), but
 * the builder re-checks every string, so a model mistake is refused here
 * rather than written. The mapping (docs/policy-db.md, "From manifests"):
 *  - each system-bus DbusName becomes a declared name, with its declaring
 *    package (so that the bus knows whom a connection serving it speaks
 *    for), its owner labels (the package's label first) and, for
 *    own="Token", its own token;
 *    session-bus names are not this bus's business and are skipped;
 *  - a member with a requirement (its own annotation, else the interface
 *    default: the model has already applied that) becomes a rule: method
 *    and signal with their kind, a property twice (read, and write from
 *    its write requirement); an UNSET member gets no rule, so an unset
 *    method stays denied ("not declared") and an unset signal or property
 *    stays open;
 *  - an interface default becomes a default rule (member none) for
 *    methods, signals and property reads, and its write default (else the
 *    read one) for property writes, so members the manifest does not list
 *    are covered too;
 *  - every package's provided tokens, as full labels;
 *  - the device policy's global tokens, monitor and checkany labels.
 * The builder derives from these what each package serves (provides, or
 * guards with its names' rules and own tokens). A bus name declared by two packages is refused (fail closed: there is
 * no safe way to merge two owners' rules).
 */
#include "compile.h"

#include <errno.h>
#include <stdlib.h>

#include "model.h"

typedef struct Compiler {
        PolicyBuilder *builder;
        const Package **declarer;       /* per name handle */
        size_t n_declarers;
        PolicyCompileError error;
} Compiler;

/* The token of a requirement: 0 and *ret (NULL = open), or 1 when UNSET. */
static int requirement_token(const Requirement *req, const char **ret) {
        switch (req->kind) {
        case REQUIREMENT_OPEN:
                *ret = NULL;
                return 0;
        case REQUIREMENT_TOKEN:
                *ret = req->token;
                return req->token ? 0 : -EINVAL;
        case REQUIREMENT_UNSET:
        default:
                return 1;
        }
}

/* A rule for req, unless it is UNSET. */
static int add_requirement(Compiler *c, uint32_t name, PolicyKind kind, const char *path,
                           const char *interface, const char *member, const Requirement *req) {
        const char *token;
        int r = requirement_token(req, &token);

        if (r != 0)
                return r < 0 ? r : 0;
        return policy_builder_add_rule(c->builder, name, kind, path, interface, member, token);
}

static int add_member(Compiler *c, uint32_t name, const char *path, const char *interface,
                      const Member *m) {
        int r;

        switch (m->kind) {
        case MEMBER_METHOD:
                return add_requirement(c, name, POLICY_KIND_METHOD, path, interface, m->name,
                                       &m->require);
        case MEMBER_SIGNAL:
                return add_requirement(c, name, POLICY_KIND_SIGNAL, path, interface, m->name,
                                       &m->require);
        case MEMBER_PROPERTY:
                r = add_requirement(c, name, POLICY_KIND_PROPERTY_READ, path, interface,
                                    m->name, &m->require);
                if (r != 0)
                        return r;
                return add_requirement(c, name, POLICY_KIND_PROPERTY_WRITE, path, interface,
                                       m->name, &m->write);
        default:
                return -EINVAL;
        }
}

static int add_interface(Compiler *c, uint32_t name, const char *path, const Interface *iface) {
        static const PolicyKind read_kinds[] = {
                POLICY_KIND_METHOD, POLICY_KIND_SIGNAL, POLICY_KIND_PROPERTY_READ,
        };
        const Requirement *write = iface->default_write.kind != REQUIREMENT_UNSET
                ? &iface->default_write : &iface->default_require;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(read_kinds); i++) {
                r = add_requirement(c, name, read_kinds[i], path, iface->name, NULL,
                                    &iface->default_require);
                if (r != 0)
                        return r;
        }
        r = add_requirement(c, name, POLICY_KIND_PROPERTY_WRITE, path, iface->name, NULL, write);
        for (size_t i = 0; r == 0 && i < iface->n_members; i++)
                r = add_member(c, name, path, iface->name, iface->members[i]);
        return r;
}

/* Remember who declared handle; a second package is a conflict. */
static int claim(Compiler *c, uint32_t handle, const Package *package, const DbusName *d) {
        if (handle < c->n_declarers) {
                if (c->declarer[handle] == package)
                        return 0;
                c->error.name = d->name;
                c->error.other_package = c->declarer[handle]->name;
                return POLICY_COMPILE_E_CONFLICT;
        }
        const Package **declarer = reallocarray(c->declarer, handle + 1, sizeof(*declarer));
        if (!declarer)
                return -ENOMEM;
        declarer[handle] = package;
        c->declarer = declarer;
        c->n_declarers = handle + 1;
        return 0;
}

static int add_name(Compiler *c, const Package *package, const DbusName *d) {
        uint32_t handle;
        int r;

        c->error.name = d->name;
        r = policy_builder_add_name(c->builder, d->name, &handle);
        if (r == 0)
                r = claim(c, handle, package, d);
        if (r == 0)
                r = policy_builder_set_declarer(c->builder, handle, package->name);
        for (size_t i = 0; r == 0 && i < d->n_owner_labels; i++)
                r = policy_builder_add_owner(c->builder, handle, d->owner_labels[i]);
        if (r == 0 && d->own == OWN_TOKEN && d->own_token)
                r = policy_builder_set_own_token(c->builder, handle, d->own_token);
        for (size_t i = 0; r == 0 && i < d->n_nodes; i++)
                for (size_t j = 0; r == 0 && j < d->nodes[i]->n_interfaces; j++)
                        r = add_interface(c, handle, d->nodes[i]->path,
                                          d->nodes[i]->interfaces[j]);
        return r;
}

static int add_package(Compiler *c, const Package *package) {
        c->error = (PolicyCompileError) { .package = package->name };
        /* So that the bus resolves a service's bare token names as its manifest does. */
        for (size_t i = 0; i < package->n_tokens; i++) {
                int r = policy_builder_add_provided_token(c->builder, package->tokens[i]->label);

                if (r != 0)
                        return r;
        }
        for (size_t i = 0; i < package->n_names; i++) {
                int r;

                if (package->names[i]->bus != BUS_SYSTEM)
                        continue;
                r = add_name(c, package, package->names[i]);
                if (r != 0)
                        return r;
        }
        return 0;
}

static int add_device(Compiler *c, const DevicePolicy *device) {
        int r = 0;

        c->error = (PolicyCompileError) { 0 };
        if (!device)
                return 0;
        for (size_t i = 0; r == 0 && i < device->n_global_tokens; i++)
                r = policy_builder_add_global_token(c->builder, device->global_tokens[i]);
        for (size_t i = 0; r == 0 && i < device->n_monitor_labels; i++)
                r = policy_builder_add_monitor_label(c->builder, device->monitor_labels[i]);
        for (size_t i = 0; r == 0 && i < device->n_checkany_labels; i++)
                r = policy_builder_add_checkany_label(c->builder, device->checkany_labels[i]);
        return r;
}

static int compile_into(Compiler *c, const PolicySet *set, uint8_t **ret_data, size_t *ret_size) {
        int r;

        for (size_t i = 0; i < set->n_packages; i++) {
                r = add_package(c, set->packages[i]);
                if (r != 0)
                        return r;
        }
        r = add_device(c, set->device);
        if (r != 0)
                return r;
        c->error = (PolicyCompileError) { 0 };
        return policy_builder_build(c->builder, ret_data, ret_size);
}

int policy_compile(const PolicySet *set, uint8_t **ret_data, size_t *ret_size,
                   PolicyCompileError *ret_error) {
        Compiler c = { 0 };
        int r;

        if (!set || !ret_data || !ret_size)
                return -EINVAL;
        r = policy_builder_new(&c.builder);
        if (r < 0)
                return r;
        r = compile_into(&c, set, ret_data, ret_size);
        policy_builder_free(c.builder);
        free(c.declarer);
        if (r == POLICY_BUILDER_E_INVALID || r == POLICY_BUILDER_E_CONFLICT)
                r = POLICY_COMPILE_E_INVALID;
        if (r > 0 && ret_error)
                *ret_error = c.error;
        return r;
}
