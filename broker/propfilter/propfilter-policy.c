/*
 * propfilter-policy: the bus's answer to the filter's question, from the
 * compiled policy and the token oracle. Pure like decide.c: no I/O of its
 * own (the oracle may read smackfs), no logging, no allocation.
 *
 * Under one of the sender's declared names a property is visible only
 * where a manifest line covers it (its own rule or its interface's
 * default, at that exact path) and the recipient holds what that line
 * needs; an interface is visible only where the manifest declares
 * properties of it at that path (or opens them by a default) and its
 * default, if any, is satisfied. So a service serving a subtree, or
 * objects the manifest does not name, shows nothing of them: what the
 * manifest does not cover is not declared, as for methods.
 *
 * Fail closed: any outcome but "allowed" hides; an oracle error is
 * returned, and the filter then delivers nothing to this recipient.
 */
#include <errno.h>

#include "propfilter-policy.h"

int propfilter_policy_visible(const char *path, const char *interface, const char *property,
                              void *userdata) {
        const PropfilterPolicy *p = userdata;
        PolicyDecision decision;
        int r;

        if (!p || !p->db || !p->label || !p->has_token || !path || (!p->names && p->n_names > 0))
                return -EINVAL;
        if (!property)
                r = policy_db_check_interface(p->db, p->names, p->n_names, p->label,
                                              POLICY_KIND_PROPERTY_READ, path, interface,
                                              p->has_token, p->has_token_userdata, &decision);
        else
                r = policy_db_check_property(p->db, p->names, p->n_names, p->label,
                                             POLICY_KIND_PROPERTY_READ, path, interface, property,
                                             p->has_token, p->has_token_userdata, &decision);
        if (r < 0)
                return r;
        return r == 0 ? 1 : 0;
}
