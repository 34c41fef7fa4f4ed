/* busconfig-internal: the structures shared by the policy and client halves. */
#pragma once

#include "busconfig-policy.h"
#include "strmap.h"

/* One rule of a context list, with the label of the context it came from. */
typedef struct BcRuleRef {
        const BusPolicyRule *rule;      /* (borrowed from the BusConfig) */
        const char *context;            /* (borrowed from BusconfigPolicy.contexts) */
        uint32_t id;                    /* user=/group= rules: the uid/gid, resolved at load */
} BcRuleRef;

typedef struct BcRuleSet {
        BcRuleRef *refs;                /* (owned) in file order */
        size_t n_refs;
        size_t cap;
} BcRuleSet;

/* The rules of one user="" or group="" context, by numeric id. */
typedef struct BcIdRules {
        uint32_t id;
        BcRuleSet set;
} BcIdRules;

struct BusconfigPolicy {
        unsigned refcount;
        uid_t bus_uid;
        BcRuleSet default_rules;
        BcRuleSet mandatory_rules;
        BcRuleSet console_true;
        BcRuleSet console_false;
        BcIdRules *by_uid;              /* (owned) sorted by id */
        size_t n_by_uid;
        BcIdRules *by_gid;              /* (owned) sorted by id */
        size_t n_by_gid;
        char **contexts;                /* (owned) one label per <policy> */
        size_t n_contexts;
        StrMap clients;                 /* identity key -> BusconfigClient (weak) */
        bool connect_uses_groups;       /* a default or mandatory rule names a group (set at load) */
};

/*
 * One rule in a client's combined list. order is its position there: of
 * two matching rules the higher order wins (dbus-daemon's "last match").
 */
typedef struct BcEntry {
        const BusPolicyRule *rule;
        const char *context;
        uint32_t order;
} BcEntry;

typedef struct BcList {
        const BcEntry **items;          /* (owned array) ascending order */
        size_t n_items;
        size_t cap;
} BcList;

/*
 * The rules of one kind, indexed: by the one name they require (a
 * destination, a sender or an owned name), by prefix, and those that
 * match any name.
 */
typedef struct BcIndex {
        StrMap by_name;                 /* name -> BcList (owned) */
        BcList prefix;
        BcList any;
} BcIndex;

/*
 * A rule kind whose rules allow every message with at most max_fds
 * descriptors, whatever the message and the peer (valid: false when
 * that is not known to hold).
 */
typedef struct BcAllowAll {
        bool valid;
        unsigned max_fds;
} BcAllowAll;

struct BusconfigClient {
        unsigned refcount;
        BusconfigPolicy *policy;        /* (owned reference) */
        char *key;                      /* (owned) key in policy->clients */
        BcEntry *entries;               /* (owned) */
        size_t n_entries;
        BcIndex send;
        BcIndex receive;
        BcIndex own;
        BcAllowAll send_all;            /* precomputed by bc_client_build() */
        BcAllowAll receive_all;
};

/* busconfig-client.c */
int bc_client_build(BusconfigClient *client, const BcRuleSet *const *sets, size_t n_sets);
void bc_client_deinit(BusconfigClient *client);
