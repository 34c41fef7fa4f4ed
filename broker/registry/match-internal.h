/* MatchRule internals shared by match-rule.c (parse, compare, test) and match.c (index). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ilist.h"
#include "match.h"

typedef struct MatchLeaf MatchLeaf;
typedef struct MatchPeerRules MatchPeerRules;

enum {
        MATCH_ARG_STRING,       /* argN: string equality */
        MATCH_ARG_PATH,         /* argNpath: equality or '/'-terminated prefix either way */
        MATCH_ARG_NAMESPACE,    /* arg0namespace: the name or a '.'-separated child */
};

typedef struct MatchArgRule {
        const char *value;      /* points into MatchRule.strings */
        uint16_t len;
        uint8_t index;          /* 0..63, strictly increasing within a rule */
        uint8_t kind;
} MatchArgRule;

struct MatchRule {
        MatchOwner *owner;      /* (nullable) NULL for a standalone parsed rule */
        MatchLeaf *leaf;        /* (nullable) the index list holding it */
        IList owner_link;       /* in owner->rules */
        IList leaf_link;        /* in leaf->rules */
        MatchPeerRules *target; /* (nullable) set iff destination is a unique name */
        IList target_link;      /* in target->rules */

        uint8_t type;           /* 0: any */
        bool eavesdrop;
        bool path_is_namespace;
        /* (nullable) each points into strings */
        const char *sender;
        const char *interface;
        const char *member;
        const char *path;
        const char *destination;

        char *strings;          /* (owned) every value, NUL-terminated */
        size_t n_args;
        MatchArgRule *args;     /* n_args entries, in the rule's own allocation */
};

_Static_assert(sizeof(MatchRule) % _Alignof(MatchArgRule) == 0, "args follow the rule");
