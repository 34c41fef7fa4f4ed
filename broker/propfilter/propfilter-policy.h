/* The propfilter callback answered from the compiled MSSF policy. */
#pragma once

#include <stddef.h>

#include "decide.h"

/*
 * What propfilter_policy_visible() needs, as userdata: the policy
 * snapshot, the well-known names of the connection the properties come
 * from (the GetAll/GetManagedObjects replier, the signal's sender), the
 * recipient's label and the token oracle. Valid for one
 * propfilter_filter() call; lives on the caller's stack.
 */
typedef struct PropfilterPolicy {
        const PolicyDb *db;
        const char *const *names;
        size_t n_names;
        const char *label;
        PolicyHasToken has_token;
        void *has_token_userdata;
} PropfilterPolicy;

/*
 * A PropfilterVisible (propfilter.h), userdata a PropfilterPolicy. A
 * property is visible when policy_db_check_property() allows reading it:
 * with no declared name among names, always; under declared names, only
 * where a rule covers it (its own or its interface's default, at that
 * exact path) and every covering rule's tokens are held. An interface
 * (property NULL) is visible when policy_db_check_interface() allows it:
 * the manifest has property-read rules for it at that path and its
 * default, if any, is satisfied; with interface NULL, any rule there
 * without interface (the unions). Returns 1, 0, or the oracle's negative
 * errno (-EINVAL for a bad argument).
 */
int propfilter_policy_visible(const char *path, const char *interface, const char *property,
                              void *userdata);
