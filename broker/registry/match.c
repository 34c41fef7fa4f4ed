/*
 * The match registry: every peer's rules, indexed for broadcast delivery.
 *
 * Job: AddMatch/RemoveMatch bookkeeping and, for each routed message, the
 * set of peers with at least one matching rule, each reported once.
 *
 * Index, from the root down (each level only keys a rule cannot match
 * without, so a lookup miss prunes everything below it):
 *   1. eavesdrop: rules with eavesdrop='true' live in their own index.
 *      A message with a destination can only match those, so unicast
 *      traffic never looks at the ordinary rules at all.
 *   2. sender: one MatchSenderSet per distinct sender='...' value, plus a
 *      wildcard set for rules without a sender. A message looks at the
 *      wildcard set, the set of its sender's unique name and the sets of
 *      the names its sender primary-owns.
 *   3. (interface, member), either possibly absent: a message looks at
 *      the buckets (iface, member), (iface, *), (*, member) and (*, *).
 *   4. inside a bucket, a rule goes to one leaf list: by its arg0 string
 *      if it has one (NameOwnerChanged trackers: thousands of rules that
 *      differ only in arg0), else by its exact path, else by its
 *      path_namespace (looked up for each '/'-prefix of the message path),
 *      else the bucket's plain list.
 * Only the rules on the leaves reached are tested in full, so delivery
 * costs a few hash lookups plus the candidates, whatever the number of
 * peers and rules on the bus. Empty leaves, buckets and sets are freed at
 * once, so the index never outgrows the rules.
 *
 * Dedup: each dispatch bumps the registry stamp; an owner already called
 * back carries the current stamp and is skipped.
 *
 * Invariants: a rule with an owner is on its owner's list and on exactly
 * one leaf; a leaf is in its bucket iff it has rules (the plain leaf is
 * embedded); a bucket is in its set iff it has a rule; a sender set is in
 * its index iff it has a bucket (wildcard sets are embedded).
 *
 * Trust: rule text is untrusted and goes through match_rule_parse(); the
 * MatchMessage is the bus's own view of a validated message.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match-internal.h"
#include "message.h"
#include "names.h"
#include "strmap.h"
#include "validate.h"

/* interface '\1' member: neither can contain '\1', so keys are unambiguous. */
#define MATCH_KEY_MAX (2 * VALIDATE_NAME_MAX + 1)

typedef struct MatchIndex MatchIndex;
typedef struct MatchBucket MatchBucket;

enum {
        MATCH_LEAF_PLAIN,
        MATCH_LEAF_ARG0,
        MATCH_LEAF_PATH,
        MATCH_LEAF_NAMESPACE,
        _MATCH_LEAF_N,
};

struct MatchLeaf {
        MatchBucket *bucket;
        uint8_t kind;
        char *key;              /* (owned) (nullable) NULL for the plain leaf */
        size_t key_len;
        IList rules;            /* MatchRule.leaf_link */
};

struct MatchBucket {
        struct MatchSenderSet *set;
        char *key;              /* (owned) */
        size_t key_len;
        MatchLeaf plain;
        StrMap leaves[_MATCH_LEAF_N];   /* by kind; [MATCH_LEAF_PLAIN] unused */
};

typedef struct MatchSenderSet {
        MatchIndex *index;
        char *name;             /* (owned) (nullable) NULL for the wildcard set */
        StrMap buckets;         /* key -> MatchBucket */
} MatchSenderSet;

struct MatchIndex {
        MatchSenderSet wildcard;
        StrMap senders;         /* sender name -> MatchSenderSet */
};

/*
 * The rules with destination='a unique name', per name, so they go when
 * that peer does (its name never comes back, so they could never match).
 */
struct MatchPeerRules {
        char *name;             /* (owned) the key in MatchRegistry.targets */
        IList rules;            /* MatchRule.target_link */
};

struct MatchRegistry {
        MatchIndex normal;
        MatchIndex eavesdrop;
        StrMap targets;         /* unique name -> MatchPeerRules */
        size_t n_rules;
        uint64_t stamp;
};

/* Builds the bucket key for (interface, member); false if it cannot exist. */
static bool bucket_key(const char *interface, const char *member, char buf[MATCH_KEY_MAX + 1],
                       size_t *ret_len) {
        size_t ni = interface ? strlen(interface) : 0;
        size_t nm = member ? strlen(member) : 0;

        if (ni > VALIDATE_NAME_MAX || nm > VALIDATE_NAME_MAX)
                return false;
        if (ni > 0)
                memcpy(buf, interface, ni);
        buf[ni] = '\1';
        if (nm > 0)
                memcpy(buf + ni + 1, member, nm);
        buf[ni + 1 + nm] = '\0';
        *ret_len = ni + 1 + nm;
        return true;
}

/* Which leaf of its bucket a rule belongs to, and under which key. */
static uint8_t rule_leaf_kind(const MatchRule *rule, const char **ret_key, size_t *ret_len) {
        if (rule->n_args > 0 && rule->args[0].index == 0 && rule->args[0].kind == MATCH_ARG_STRING) {
                *ret_key = rule->args[0].value;
                *ret_len = rule->args[0].len;
                return MATCH_LEAF_ARG0;
        }
        if (rule->path) {
                *ret_key = rule->path;
                *ret_len = strlen(rule->path);
                return rule->path_is_namespace ? MATCH_LEAF_NAMESPACE : MATCH_LEAF_PATH;
        }
        *ret_key = NULL;
        *ret_len = 0;
        return MATCH_LEAF_PLAIN;
}

static void index_init(MatchIndex *index) {
        *index = (MatchIndex){ .wildcard.index = index };
        strmap_init(&index->wildcard.buckets);
        strmap_init(&index->senders);
}

static void index_deinit(MatchIndex *index) {
        assert(strmap_size(&index->wildcard.buckets) == 0);
        assert(strmap_size(&index->senders) == 0);
        strmap_deinit(&index->wildcard.buckets);
        strmap_deinit(&index->senders);
}

int match_registry_new(MatchRegistry **ret) {
        MatchRegistry *registry = calloc(1, sizeof(*registry));
        if (!registry)
                return -ENOMEM;
        index_init(&registry->normal);
        index_init(&registry->eavesdrop);
        strmap_init(&registry->targets);
        *ret = registry;
        return 0;
}

MatchRegistry *match_registry_free(MatchRegistry *registry) {
        if (!registry)
                return NULL;
        assert(registry->n_rules == 0);
        index_deinit(&registry->normal);
        index_deinit(&registry->eavesdrop);
        assert(strmap_size(&registry->targets) == 0);
        strmap_deinit(&registry->targets);
        free(registry);
        return NULL;
}

size_t match_registry_n_rules(const MatchRegistry *registry) {
        return registry->n_rules;
}

static size_t set_n_nodes(const MatchSenderSet *set) {
        size_t n = set->name ? 1 : 0, iter = 0;
        void *value;

        while (strmap_next(&set->buckets, &iter, NULL, &value)) {
                const MatchBucket *bucket = value;
                n++;
                for (size_t k = MATCH_LEAF_PLAIN + 1; k < _MATCH_LEAF_N; k++)
                        n += strmap_size(&bucket->leaves[k]);
        }
        return n;
}

static size_t index_n_nodes(const MatchIndex *index) {
        size_t n = set_n_nodes(&index->wildcard), iter = 0;
        void *value;

        while (strmap_next(&index->senders, &iter, NULL, &value))
                n += set_n_nodes(value);
        return n;
}

size_t match_registry_n_index_nodes(const MatchRegistry *registry) {
        return index_n_nodes(&registry->normal) + index_n_nodes(&registry->eavesdrop) +
               strmap_size(&registry->targets);
}

void match_owner_init(MatchOwner *owner, MatchRegistry *registry, struct Peer *peer) {
        *owner = (MatchOwner){ .registry = registry, .peer = peer };
        ilist_init(&owner->rules);
}

void match_owner_set_tally(MatchOwner *owner, size_t *tally) {
        if (owner->tally)
                *owner->tally -= owner->n_rules;
        owner->tally = tally;
        if (tally)
                *tally += owner->n_rules;
}

/* n_rules, and the tally that moves with it. */
static void owner_count(MatchOwner *owner, int delta) {
        owner->n_rules += (size_t) delta;
        if (owner->tally)
                *owner->tally += (size_t) delta;
}

/* --- freeing what became empty ------------------------------------------ */

static void set_gc(MatchSenderSet *set) {
        if (!set->name || strmap_size(&set->buckets) > 0)
                return;         /* the wildcard set is embedded */
        strmap_remove(&set->index->senders, set->name);
        strmap_deinit(&set->buckets);
        free(set->name);
        free(set);
}

static bool bucket_is_empty(const MatchBucket *bucket) {
        if (!ilist_is_empty(&bucket->plain.rules))
                return false;
        for (size_t k = MATCH_LEAF_PLAIN + 1; k < _MATCH_LEAF_N; k++)
                if (strmap_size(&bucket->leaves[k]) > 0)
                        return false;
        return true;
}

static void bucket_gc(MatchBucket *bucket) {
        MatchSenderSet *set = bucket->set;

        if (!bucket_is_empty(bucket))
                return;
        strmap_remove_n(&set->buckets, bucket->key, bucket->key_len);
        for (size_t k = 0; k < _MATCH_LEAF_N; k++)
                strmap_deinit(&bucket->leaves[k]);
        free(bucket->key);
        free(bucket);
        set_gc(set);
}

static void leaf_gc(MatchLeaf *leaf) {
        MatchBucket *bucket = leaf->bucket;

        if (!ilist_is_empty(&leaf->rules))
                return;
        if (leaf->kind != MATCH_LEAF_PLAIN) {
                strmap_remove_n(&bucket->leaves[leaf->kind], leaf->key, leaf->key_len);
                free(leaf->key);
                free(leaf);
        }
        bucket_gc(bucket);
}

static void target_gc(MatchRegistry *registry, MatchPeerRules *target) {
        if (!target || !ilist_is_empty(&target->rules))
                return;
        strmap_remove(&registry->targets, target->name);
        free(target->name);
        free(target);
}

/* Takes rule off its destination's list, freeing the list if it empties. */
static void rule_untarget(MatchRegistry *registry, MatchRule *rule) {
        MatchPeerRules *target = rule->target;

        ilist_remove(&rule->target_link);
        rule->target = NULL;
        target_gc(registry, target);
}

/* Unlinks rule from its owner and the index, frees what became empty, frees rule. */
static void rule_remove(MatchRegistry *registry, MatchRule *rule) {
        MatchLeaf *leaf = rule->leaf;

        rule_untarget(registry, rule);
        ilist_remove(&rule->owner_link);
        ilist_remove(&rule->leaf_link);
        owner_count(rule->owner, -1);
        registry->n_rules--;
        leaf_gc(leaf);
        match_rule_free(rule);
}

void match_owner_deinit(MatchOwner *owner) {
        while (!ilist_is_empty(&owner->rules))
                rule_remove(owner->registry, ILIST_ENTRY(owner->rules.next, MatchRule, owner_link));
}

/* --- finding or creating the place of a rule ----------------------------- */

static int set_get(MatchIndex *index, const char *sender, MatchSenderSet **ret) {
        MatchSenderSet *set = sender ? strmap_get(&index->senders, sender) : &index->wildcard;
        if (set) {
                *ret = set;
                return 0;
        }

        set = calloc(1, sizeof(*set));
        if (!set)
                return -ENOMEM;
        set->index = index;
        strmap_init(&set->buckets);
        set->name = strdup(sender);
        if (!set->name || strmap_put(&index->senders, set->name, set) != 0) {
                free(set->name);
                free(set);
                return -ENOMEM;
        }
        *ret = set;
        return 0;
}

static int bucket_get(MatchSenderSet *set, const char *key, size_t key_len, MatchBucket **ret) {
        MatchBucket *bucket = strmap_get_n(&set->buckets, key, key_len);
        if (bucket) {
                *ret = bucket;
                return 0;
        }

        bucket = calloc(1, sizeof(*bucket));
        if (!bucket)
                return -ENOMEM;
        bucket->set = set;
        bucket->key_len = key_len;
        bucket->plain = (MatchLeaf){ .bucket = bucket, .kind = MATCH_LEAF_PLAIN };
        ilist_init(&bucket->plain.rules);
        for (size_t k = 0; k < _MATCH_LEAF_N; k++)
                strmap_init(&bucket->leaves[k]);
        bucket->key = strndup(key, key_len);
        if (!bucket->key || strmap_put_n(&set->buckets, bucket->key, key_len, bucket) != 0) {
                free(bucket->key);
                free(bucket);
                return -ENOMEM;
        }
        *ret = bucket;
        return 0;
}

static int leaf_get(MatchBucket *bucket, uint8_t kind, const char *key, size_t key_len,
                    MatchLeaf **ret) {
        if (kind == MATCH_LEAF_PLAIN) {
                *ret = &bucket->plain;
                return 0;
        }

        MatchLeaf *leaf = strmap_get_n(&bucket->leaves[kind], key, key_len);
        if (leaf) {
                *ret = leaf;
                return 0;
        }

        leaf = calloc(1, sizeof(*leaf));
        if (!leaf)
                return -ENOMEM;
        *leaf = (MatchLeaf){ .bucket = bucket, .kind = kind, .key_len = key_len };
        ilist_init(&leaf->rules);
        leaf->key = strndup(key, key_len);
        if (!leaf->key || strmap_put_n(&bucket->leaves[kind], leaf->key, key_len, leaf) != 0) {
                free(leaf->key);
                free(leaf);
                return -ENOMEM;
        }
        *ret = leaf;
        return 0;
}

/* The leaf for rule, created as needed; on failure nothing new is left behind. */
static int rule_find_leaf(MatchRegistry *registry, const MatchRule *rule, MatchLeaf **ret) {
        MatchIndex *index = rule->eavesdrop ? &registry->eavesdrop : &registry->normal;
        char key[MATCH_KEY_MAX + 1];
        size_t key_len, leaf_key_len;
        const char *leaf_key;
        MatchSenderSet *set;
        MatchBucket *bucket;
        int r;

        /* Parsed values are validated names: at most VALIDATE_NAME_MAX each. */
        if (!bucket_key(rule->interface, rule->member, key, &key_len))
                return -EINVAL;
        uint8_t kind = rule_leaf_kind(rule, &leaf_key, &leaf_key_len);

        r = set_get(index, rule->sender, &set);
        if (r < 0)
                return r;
        r = bucket_get(set, key, key_len, &bucket);
        if (r < 0) {
                set_gc(set);
                return r;
        }
        r = leaf_get(bucket, kind, leaf_key, leaf_key_len, ret);
        if (r < 0) {
                bucket_gc(bucket);
                return r;
        }
        return 0;
}

static int target_get(MatchRegistry *registry, const char *name, MatchPeerRules **ret) {
        MatchPeerRules *target = strmap_get(&registry->targets, name);
        if (target) {
                *ret = target;
                return 0;
        }

        target = calloc(1, sizeof(*target));
        if (!target)
                return -ENOMEM;
        ilist_init(&target->rules);
        target->name = strdup(name);
        if (!target->name || strmap_put(&registry->targets, target->name, target) != 0) {
                free(target->name);
                free(target);
                return -ENOMEM;
        }
        *ret = target;
        return 0;
}

int match_owner_add(MatchOwner *owner, const char *text, size_t n, size_t max_rules) {
        _cleanup_(match_rule_freep) MatchRule *rule = NULL;
        MatchLeaf *leaf;
        int r;

        if (owner->n_rules >= max_rules)
                return MATCH_E_QUOTA;
        r = match_rule_parse(text, n, &rule);
        if (r != 0)
                return r;
        if (rule->destination && rule->destination[0] == ':') {
                r = target_get(owner->registry, rule->destination, &rule->target);
                if (r < 0)
                        return r;
                ilist_append(&rule->target->rules, &rule->target_link);
        }
        r = rule_find_leaf(owner->registry, rule, &leaf);
        if (r < 0) {
                rule_untarget(owner->registry, rule);
                return r;
        }

        rule->owner = owner;
        rule->leaf = leaf;
        ilist_append(&leaf->rules, &rule->leaf_link);
        ilist_append(&owner->rules, &rule->owner_link);
        owner_count(owner, +1);
        owner->registry->n_rules++;
        TAKE_PTR(rule);
        return 0;
}

int match_owner_remove(MatchOwner *owner, const char *text, size_t n) {
        _cleanup_(match_rule_freep) MatchRule *value = NULL;
        int r;

        r = match_rule_parse(text, n, &value);
        if (r != 0)
                return r;

        /* Newest first, as dbus-daemon removes the most recently added match. */
        for (IList *l = owner->rules.prev; l != &owner->rules; l = l->prev) {
                MatchRule *rule = ILIST_ENTRY(l, MatchRule, owner_link);
                if (match_rule_equal(rule, value)) {
                        rule_remove(owner->registry, rule);
                        return 0;
                }
        }
        return MATCH_E_NOT_FOUND;
}

/* Frees the rules of a leaf that is about to be freed as a whole. */
static void leaf_drop_rules(MatchRegistry *registry, MatchLeaf *leaf) {
        while (!ilist_is_empty(&leaf->rules)) {
                MatchRule *rule = ILIST_ENTRY(leaf->rules.next, MatchRule, leaf_link);

                rule_untarget(registry, rule);
                ilist_remove(&rule->leaf_link);
                ilist_remove(&rule->owner_link);
                owner_count(rule->owner, -1);
                registry->n_rules--;
                match_rule_free(rule);
        }
}

static void bucket_drop(MatchRegistry *registry, MatchBucket *bucket) {
        leaf_drop_rules(registry, &bucket->plain);
        for (size_t k = MATCH_LEAF_PLAIN + 1; k < _MATCH_LEAF_N; k++) {
                size_t iter = 0;
                void *value;

                while (strmap_next(&bucket->leaves[k], &iter, NULL, &value)) {
                        MatchLeaf *leaf = value;
                        leaf_drop_rules(registry, leaf);
                        free(leaf->key);
                        free(leaf);
                }
                strmap_deinit(&bucket->leaves[k]);
        }
        free(bucket->key);
        free(bucket);
}

/* Frees a whole sender set with its rules in one walk: O(its rules). */
static void set_drop(MatchRegistry *registry, MatchSenderSet *set) {
        size_t iter = 0;
        void *value;

        while (strmap_next(&set->buckets, &iter, NULL, &value))
                bucket_drop(registry, value);
        strmap_deinit(&set->buckets);
        strmap_remove(&set->index->senders, set->name);
        free(set->name);
        free(set);
}

static void index_forget_sender(MatchRegistry *registry, MatchIndex *index, const char *name) {
        MatchSenderSet *set = strmap_get(&index->senders, name);

        if (set)
                set_drop(registry, set);
}

void match_registry_forget_sender(MatchRegistry *registry, const char *unique_name) {
        MatchPeerRules *target;

        index_forget_sender(registry, &registry->normal, unique_name);
        index_forget_sender(registry, &registry->eavesdrop, unique_name);

        /* The last removal frees the list: look it up afresh each time. */
        while ((target = strmap_get(&registry->targets, unique_name)))
                rule_remove(registry, ILIST_ENTRY(target->rules.next, MatchRule, target_link));
}

/* --- delivery ------------------------------------------------------------ */

/* One (interface, member) bucket key of the message, hashed once per dispatch. */
typedef struct MatchKey {
        char buf[MATCH_KEY_MAX + 1];
        size_t len;
        uint32_t hash;
} MatchKey;

typedef struct MatchDispatch {
        MatchRegistry *registry;
        const MatchMessage *msg;
        MatchRecipientFn fn;
        void *userdata;
        bool eavesdrop;
        MatchKey *keys;         /* [4]: (iface, member), (iface, *), (*, member), (*, *) */
        size_t n_keys;
        bool keys_ready;        /* computed when a first non-empty set needs them */
} MatchDispatch;

/* The bucket keys a message can match, without repeats. */
static void dispatch_keys(MatchDispatch *d) {
        const MatchMessage *msg = d->msg;
        const char *combos[4][2] = {
                { msg->interface, msg->member },
                { msg->interface, NULL },
                { NULL, msg->member },
                { NULL, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(combos); i++) {
                MatchKey *key = &d->keys[d->n_keys];

                if ((i == 0 && (!msg->interface || !msg->member)) ||
                    (i == 1 && !msg->interface) || (i == 2 && !msg->member))
                        continue;
                if (!bucket_key(combos[i][0], combos[i][1], key->buf, &key->len))
                        continue;
                key->hash = strmap_hash(key->buf, key->len);
                d->n_keys++;
        }
        d->keys_ready = true;
}

static int dispatch_leaf(MatchDispatch *d, const MatchLeaf *leaf) {
        for (const IList *l = leaf->rules.next; l != &leaf->rules; l = l->next) {
                const MatchRule *rule = ILIST_ENTRY(l, MatchRule, leaf_link);
                MatchOwner *owner = rule->owner;

                if (owner->stamp == d->registry->stamp)
                        continue;
                if (d->msg->recipient && owner->peer == d->msg->recipient)
                        continue;
                if (!match_rule_matches(rule, d->msg))
                        continue;
                owner->stamp = d->registry->stamp;
                int r = d->fn(d->userdata, owner, d->eavesdrop);
                if (r != 0)
                        return r;
        }
        return 0;
}

static int dispatch_keyed(MatchDispatch *d, const MatchBucket *bucket, uint8_t kind,
                          const char *key, size_t key_len) {
        const MatchLeaf *leaf = strmap_get_n(&bucket->leaves[kind], key, key_len);
        return leaf ? dispatch_leaf(d, leaf) : 0;
}

/* path_namespace leaves: "/" and every prefix of the path ending at a '/' boundary. */
static int dispatch_namespaces(MatchDispatch *d, const MatchBucket *bucket, const char *path) {
        size_t len = strlen(path);
        int r;

        r = dispatch_keyed(d, bucket, MATCH_LEAF_NAMESPACE, "/", 1);
        for (size_t i = 2; r == 0 && i <= len; i++)
                if (path[i] == '/' || path[i] == '\0')
                        r = dispatch_keyed(d, bucket, MATCH_LEAF_NAMESPACE, path, i);
        return r;
}

static int dispatch_bucket(MatchDispatch *d, const MatchBucket *bucket) {
        const MatchMessage *msg = d->msg;
        int r;

        r = dispatch_leaf(d, &bucket->plain);
        if (r == 0 && strmap_size(&bucket->leaves[MATCH_LEAF_ARG0]) > 0 && msg->n_args > 0 &&
            msg->args[0].type == 's' && msg->args[0].str)
                r = dispatch_keyed(d, bucket, MATCH_LEAF_ARG0, msg->args[0].str, strlen(msg->args[0].str));
        if (r == 0 && msg->path && strmap_size(&bucket->leaves[MATCH_LEAF_PATH]) > 0)
                r = dispatch_keyed(d, bucket, MATCH_LEAF_PATH, msg->path, strlen(msg->path));
        if (r == 0 && msg->path && msg->path[0] == '/' &&
            strmap_size(&bucket->leaves[MATCH_LEAF_NAMESPACE]) > 0)
                r = dispatch_namespaces(d, bucket, msg->path);
        return r;
}

static int dispatch_set(MatchDispatch *d, const MatchSenderSet *set) {
        if (strmap_size(&set->buckets) == 0)
                return 0;
        if (!d->keys_ready)
                dispatch_keys(d);
        for (size_t i = 0; i < d->n_keys; i++) {
                const MatchKey *key = &d->keys[i];
                const MatchBucket *bucket = strmap_get_hashed(&set->buckets, key->buf, key->len, key->hash);

                if (!bucket)
                        continue;
                int r = dispatch_bucket(d, bucket);
                if (r != 0)
                        return r;
        }
        return 0;
}

static int dispatch_index(MatchDispatch *d, const MatchIndex *index) {
        const MatchMessage *msg = d->msg;
        int r;

        r = dispatch_set(d, &index->wildcard);
        if (r != 0 || strmap_size(&index->senders) == 0)
                return r;
        if (msg->sender) {
                const MatchSenderSet *set = strmap_get(&index->senders, msg->sender);
                r = set ? dispatch_set(d, set) : 0;
                if (r != 0)
                        return r;
        }
        if (!msg->sender_names)
                return 0;

        const IList *iter = NULL;
        const char *name;
        bool primary;
        while (name_peer_state_next(msg->sender_names, &iter, &name, &primary)) {
                if (!primary)
                        continue;
                const MatchSenderSet *set = strmap_get(&index->senders, name);
                r = set ? dispatch_set(d, set) : 0;
                if (r != 0)
                        return r;
        }
        return 0;
}

int match_registry_dispatch(MatchRegistry *registry, const MatchMessage *msg,
                            MatchRecipientFn fn, void *userdata) {
        MatchKey keys[4];       /* filled on first use: not zeroed for unicast traffic */
        MatchDispatch d = {
                .registry = registry, .msg = msg, .fn = fn, .userdata = userdata,
                .eavesdrop = msg->destination != NULL, .keys = keys,
        };
        int r;

        if (registry->n_rules == 0)
                return 0;
        registry->stamp++;

        /* Only eavesdroppers can match a message that has a destination. */
        if (!msg->destination) {
                r = dispatch_index(&d, &registry->normal);
                if (r != 0)
                        return r;
        }
        return dispatch_index(&d, &registry->eavesdrop);
}
