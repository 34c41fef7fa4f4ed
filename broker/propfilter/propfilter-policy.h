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
 * property is visible when policy_db_check_property() allows reading it
 * (every declared name's covering property-read rule satisfied; an
 * uncovered one is open). An interface (property NULL) is protected when,
 * under some declared name, its property-read default, the rule
 * (PROPERTY_READ, path, interface, no member) that the manifest's
 * interface-level annotation compiles to, needs a token label lacks; with
 * interface NULL, the union of that path's defaults. Returns 1, 0, or the
 * oracle's negative errno (-EINVAL for a bad argument).
 */
int propfilter_policy_visible(const char *path, const char *interface, const char *property,
                              void *userdata);
