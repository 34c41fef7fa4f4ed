/* Building a compiled policy file image from declarations, in any order. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "db-read.h"
#include "macro.h"

/*
 * The builder knows nothing of manifests (compile.c maps the manifest model
 * onto it; tests and the benchmark use it directly). Declarations may come
 * in any order and repeat: repeated rules for one key merge, and every
 * token any of them names is then required. The output depends only on
 * the set of declarations, never on their order, so it is reproducible
 * byte for byte.
 */
typedef struct PolicyBuilder PolicyBuilder;

enum {
        POLICY_BUILDER_E_INVALID = 40,  /* a string not valid for its role */
        POLICY_BUILDER_E_CONFLICT,      /* a name given two different own tokens or declarers */
        POLICY_BUILDER_E_TOO_LARGE,     /* the image would exceed the format's limits */
};

int policy_builder_new(PolicyBuilder **ret);
PolicyBuilder *policy_builder_free(PolicyBuilder *builder);

/*
 * Declare a well-known bus name; declaring it again returns the same
 * handle. A declared name with no owner labels and no own token can be
 * owned by nobody.
 */
int policy_builder_add_name(PolicyBuilder *builder, const char *name, uint32_t *ret_handle);
int policy_builder_add_owner(PolicyBuilder *builder, uint32_t name, const char *label);
int policy_builder_set_own_token(PolicyBuilder *builder, uint32_t name, const char *token);
/*
 * The package that declared the name (its label). The package then
 * serves every token the name's rules and own token need (format 3's
 * packages, docs/policy-db.md). A name without one records no declarer.
 */
int policy_builder_set_declarer(PolicyBuilder *builder, uint32_t name, const char *package);

/*
 * A requirement under a declared name: for (kind, path, interface, member)
 * token is needed (token NULL: explicitly open). member NULL declares the
 * interface's default for members without a rule of their own. Rules
 * without an interface are derived by the builder (docs/policy-db.md).
 */
int policy_builder_add_rule(PolicyBuilder *builder, uint32_t name, PolicyKind kind,
                            const char *path, const char *interface, const char *member,
                            const char *token);

int policy_builder_add_global_token(PolicyBuilder *builder, const char *token);
int policy_builder_add_monitor_label(PolicyBuilder *builder, const char *label);
/* A label that may ask CheckToken about any token of its callers (the device policy's checkany). */
int policy_builder_add_checkany_label(PolicyBuilder *builder, const char *label);
/*
 * A token some installed package provides, as its full label
 * ("pkg::Token"): that names its package, which serves it. Anything else
 * is POLICY_BUILDER_E_INVALID.
 */
int policy_builder_add_provided_token(PolicyBuilder *builder, const char *token);

/* The file image (malloc'd), checksum included. */
int policy_builder_build(const PolicyBuilder *builder, uint8_t **ret_data, size_t *ret_size);

DEFINE_CLEANUP(PolicyBuilder *, policy_builder_free);
