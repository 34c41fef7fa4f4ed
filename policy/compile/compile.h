/* Compiling the policy model (installed packages + device policy) into policy.db bytes. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "builder.h"

typedef struct PolicySet PolicySet;

enum {
        POLICY_COMPILE_E_INVALID = 60,  /* a model string the file format refuses */
        POLICY_COMPILE_E_CONFLICT,      /* two packages declare one system bus name */
};

/* What went wrong, for the tool's message; strings point into the set. */
typedef struct PolicyCompileError {
        const char *package;            /* (nullable) the package being compiled */
        const char *name;               /* (nullable) the bus name concerned */
        const char *other_package;      /* (nullable) CONFLICT: the first declarer */
} PolicyCompileError;

/*
 * The file image for set: deterministic (the same set, in any package
 * order, gives the same bytes). Only system-bus names are compiled.
 * Returns 0, POLICY_COMPILE_E_* (with ret_error filled when not NULL),
 * POLICY_BUILDER_E_TOO_LARGE, or a negative errno.
 */
int policy_compile(const PolicySet *set, uint8_t **ret_data, size_t *ret_size,
                   PolicyCompileError *ret_error);
