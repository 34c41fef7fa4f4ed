/* The builder's declarations, shared by builder.c and builder-layout.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "format.h"

#define NONE POLICY_DB_NONE

typedef struct StrPool {
        char **strings;                 /* (owned) */
        uint32_t *name_handle;          /* per string: the name it declares, or NONE */
        uint8_t *checked;               /* per string: the BUILDER_CHECKED_* it passed */
        size_t n, cap;
        uint32_t *buckets;              /* (owned) string ids, NONE = empty */
        uint32_t n_buckets;
} StrPool;

typedef struct BuildName {
        uint32_t name;                  /* string id */
        uint32_t own_token;             /* string id or NONE */
        uint32_t package;               /* string id of the declaring package, or NONE */
} BuildName;

typedef struct BuildProvided {
        uint32_t token;                 /* string id: "package::Token" */
        uint32_t package;               /* string id: its package */
} BuildProvided;

typedef struct BuildOwner {
        uint32_t name;                  /* handle */
        uint32_t label;                 /* string id */
} BuildOwner;

typedef struct BuildRule {
        uint32_t name;                  /* handle */
        uint32_t kind;
        uint32_t path, interface, member, token;        /* string ids; NONE */
} BuildRule;

struct PolicyBuilder {
        StrPool pool;
        BuildName *names;
        size_t n_names, cap_names;
        BuildOwner *owners;
        size_t n_owners, cap_owners;
        BuildRule *rules;
        size_t n_rules, cap_rules;
        uint32_t *globals;
        size_t n_globals, cap_globals;
        uint32_t *monitors;
        size_t n_monitors, cap_monitors;
        uint32_t *checkanys;
        size_t n_checkanys, cap_checkanys;
        BuildProvided *provided;
        size_t n_provided, cap_provided;
};

/* Makes room for one more element at index n; 0 or -ENOMEM. */
int builder_grow(void **array, size_t *cap, size_t n, size_t size);

/* Appends value to vector (with counters n and cap); 0 or -ENOMEM. */
#define VEC_PUSH(vec, n, cap, value)                                                    \
        ({                                                                              \
                int _r = builder_grow((void **) &(vec), &(cap), (n), sizeof(*(vec)));   \
                if (_r == 0)                                                            \
                        (vec)[(n)++] = (value);                                         \
                _r;                                                                     \
        })
