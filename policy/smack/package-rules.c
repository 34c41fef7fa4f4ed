/*
 * From grants to Smack rules.
 *
 * DESIGN.md decision 4: a resource token is a Smack label and holding it
 * is the rule "App Token w", so the kernel alone says who holds what, for
 * the bus and for kernel objects labelled with the token alike. On top of
 * that an app must be able to reach the services it was granted tokens
 * for, and they must be able to answer it: the bus checks the sender's
 * label has w on the receiver's, both ways. So a grant of T also makes
 * "App P w" and "P App w" for every package P that provides T or guards
 * one of its D-Bus members with T (oFono guarding its modem methods with
 * the global Cellular), as long as that package may serve the token: it
 * provides it, or the device policy lets its origin serve that global
 * token (policy_set_may_serve()). A holder asked for the token, and so
 * for its provider, not for every package that guards a method with it:
 * a store package cannot buy two-way reach with every holder of Cellular
 * by guarding one method with it. Nothing is granted that
 * policy_set_resolve() did not grant: a request the device policy
 * refused, or for a token nobody provides, makes no rule.
 *
 * The output depends only on the policy set, so regenerating every
 * package's rules after any install gives the same files as installing in
 * another order.
 */
#include <errno.h>
#include <string.h>

#include "device-policy.h"
#include "model.h"
#include "package-rules.h"
#include "policyset.h"

static bool requirement_needs(const Requirement *req, const char *token) {
        return req->kind == REQUIREMENT_TOKEN && req->token && strcmp(req->token, token) == 0;
}

static bool interface_needs(const Interface *iface, const char *token) {
        if (requirement_needs(&iface->default_require, token) ||
            requirement_needs(&iface->default_write, token))
                return true;
        for (size_t i = 0; i < iface->n_members; i++)
                if (requirement_needs(&iface->members[i]->require, token) ||
                    requirement_needs(&iface->members[i]->write, token))
                        return true;
        return false;
}

static bool name_needs(const DbusName *name, const char *token) {
        if (name->own == OWN_TOKEN && name->own_token && strcmp(name->own_token, token) == 0)
                return true;
        for (size_t n = 0; n < name->n_nodes; n++)
                for (size_t i = 0; i < name->nodes[n]->n_interfaces; i++)
                        if (interface_needs(name->nodes[n]->interfaces[i], token))
                                return true;
        return false;
}

bool package_serves_token(const Package *package, const char *token) {
        for (size_t i = 0; i < package->n_tokens; i++)
                if (strcmp(package->tokens[i]->label, token) == 0)
                        return true;
        for (size_t i = 0; i < package->n_names; i++)
                if (name_needs(package->names[i], token))
                        return true;
        return false;
}

static const char *target_label(const Package *package, const RequestTarget *target) {
        return target->package ? target->package : package->name;
}

int package_request_subjects(const Package *package, const Request *request,
                             int (*fn)(const char *label, void *userdata), void *userdata) {
        if (request->context_install)
                return 0;
        if (request->n_targets == 0)
                return fn(package->name, userdata);
        for (size_t i = 0; i < request->n_targets; i++) {
                const char *label = target_label(package, request->targets[i]);
                bool seen = false;
                int r;

                /* Another package's binary this package may not grant to gets nothing. */
                if (request->targets[i]->refused)
                        continue;
                for (size_t j = 0; j < i && !seen; j++)
                        seen = !request->targets[j]->refused &&
                               strcmp(target_label(package, request->targets[j]), label) == 0;
                if (seen)
                        continue;
                r = fn(label, userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

typedef struct GrantContext {
        const PolicySet *set;
        const char *token;
        SmackRules *rules;
} GrantContext;

/* subject <-> label, both ways (nothing for subject itself). */
static int add_reach(SmackRules *rules, const char *subject, const char *label) {
        int r;

        if (strcmp(subject, label) == 0)
                return 0;
        r = smack_rules_add(rules, subject, label, SMACK_ACCESS_WRITE);
        if (r < 0)
                return r;
        return smack_rules_add(rules, label, subject, SMACK_ACCESS_WRITE);
}

/* The service's own label and every <owner label> of its names: whoever may serve them. */
static int add_service_reach(SmackRules *rules, const char *subject, const Package *service) {
        int r = add_reach(rules, subject, service->name);

        for (size_t i = 0; r >= 0 && i < service->n_names; i++)
                for (size_t j = 0; r >= 0 && j < service->names[i]->n_owner_labels; j++)
                        r = add_reach(rules, subject, service->names[i]->owner_labels[j]);
        return r;
}

static bool label_is_owned(const PolicySet *set, const char *label);

static int add_grant_for_subject(const char *subject, void *userdata) {
        const GrantContext *c = userdata;
        const Package *const *services;
        size_t n_services;
        int r;

        /* Another package's binary, that package not installed: its rules come when it is. */
        if (!label_is_owned(c->set, subject))
                return 0;
        r = smack_rules_add(c->rules, subject, c->token, SMACK_ACCESS_WRITE);
        if (r < 0)
                return r;
        /* The set's index: every package for which package_serves_token() holds. */
        policy_set_token_servers(c->set, c->token, &services, &n_services);
        for (size_t i = 0; i < n_services; i++) {
                /* Guarding with a token buys reach only where the package may hold it. */
                if (!policy_set_may_serve(c->set, services[i], c->token))
                        continue;
                r = add_service_reach(c->rules, subject, services[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Whether some installed package names label as an owner of its bus names (still, after resolve). */
static bool named_as_owner(const PolicySet *set, const char *label) {
        for (size_t p = 0; p < set->n_packages; p++)
                for (size_t i = 0; i < set->packages[p]->n_names; i++) {
                        const DbusName *d = set->packages[p]->names[i];

                        for (size_t j = 0; j < d->n_owner_labels; j++)
                                if (strcmp(d->owner_labels[j], label) == 0)
                                        return true;
                }
        return false;
}

/*
 * Whether someone owns label: an installed package (its name, or a label
 * under it), a token an installed package provides, a global token, or a
 * label a package was let name as an owner. Never Smack's special labels.
 */
static bool label_is_owned(const PolicySet *set, const char *label) {
        char name[256];
        size_t n = strcspn(label, ":");
        const Package *provider = NULL;

        if (strcmp(label, "_") == 0 || strcmp(label, "*") == 0 || strcmp(label, "^") == 0 ||
            strcmp(label, "@") == 0)
                return false;
        if (n < sizeof(name)) {
                memcpy(name, label, n);
                name[n] = '\0';
                if (policy_set_find_package(set, name) &&
                    (label[n] == '\0' || policy_label_is_under(label, name)))
                        return true;
        }
        return policy_set_find_token(set, label, &provider) ||
               device_policy_has_global_token(set->device, label) || named_as_owner(set, label);
}

int package_rules_build(const PolicySet *set, const Package *package, SmackRules *rules) {
        for (size_t i = 0; i < package->n_grants; i++) {
                const Grant *grant = package->grants[i];
                GrantContext context = { .set = set, .token = grant->name, .rules = rules };
                int r;

                if (grant->kind != CREDENTIAL_TOKEN || grant->result != GRANT_GRANTED || !grant->request)
                        continue;
                if (!smack_label_valid(grant->name))
                        return -EINVAL;
                r = package_request_subjects(package, grant->request, add_grant_for_subject, &context);
                if (r < 0)
                        return r;
        }
        /* The checks above keep every rule to owned labels; a rule that is not is a bug: fail. */
        for (size_t i = 0; i < rules->n_rules; i++)
                if (!label_is_owned(set, rules->rules[i].subject) ||
                    !label_is_owned(set, rules->rules[i].object))
                        return -EPROTO;
        return 0;
}
