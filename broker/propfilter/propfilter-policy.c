/*
 * propfilter-policy: the bus's answer to the filter's question, from the
 * compiled policy and the token oracle. Pure like decide.c: no I/O of its
 * own (the oracle may read smackfs), no logging, no allocation.
 *
 * Fail closed: a decision that is neither "allowed" nor "a token is
 * missing" (any other outcome) hides; an oracle error is returned, and
 * the filter then delivers nothing to this recipient.
 */
#include <errno.h>

#include "propfilter-policy.h"

/* Is the interface's own property-read default satisfied under every declared name? */
static int interface_visible(const PropfilterPolicy *p, const char *path, const char *interface) {
        for (size_t i = 0; i < p->n_names; i++) {
                PolicyRequirement requirement;
                int r;

                r = policy_db_lookup(p->db, p->names[i], POLICY_KIND_PROPERTY_READ, path,
                                     interface, NULL, &requirement);
                if (r == POLICY_DB_UNDECLARED || r == POLICY_DB_UNCOVERED)
                        continue;
                if (r != 0)
                        return r < 0 ? r : 0;
                for (size_t t = 0; t < requirement.n_tokens; t++) {
                        r = p->has_token(p->label, policy_requirement_token(&requirement, t),
                                         p->has_token_userdata);
                        if (r != 1)
                                return r < 0 ? r : 0;
                }
        }
        return 1;
}

int propfilter_policy_visible(const char *path, const char *interface, const char *property,
                              void *userdata) {
        const PropfilterPolicy *p = userdata;
        PolicyDecision decision;
        int r;

        if (!p || !p->db || !p->label || !p->has_token || !path || (!p->names && p->n_names > 0))
                return -EINVAL;
        if (!property)
                return interface_visible(p, path, interface);
        r = policy_db_check_property(p->db, p->names, p->n_names, p->label,
                                     POLICY_KIND_PROPERTY_READ, path, interface, property,
                                     p->has_token, p->has_token_userdata, &decision);
        if (r < 0)
                return r;
        return r == 0 ? 1 : 0;
}
