/*
 * The match registry: every peer's rules, indexed for broadcast delivery.
 *
 * Job: AddMatch/RemoveMatch bookkeeping and, for each routed message, the
 * set of peers with at least one matching rule, each reported once.
 *
 * Index: rules are grouped first by their sender key (a MatchSenderSet per
 * distinct sender='...' value, plus one wildcard set for rules without a
 * sender), then inside a set by the pair (interface, member), either of
 * which may be absent, into MatchBuckets. A message can only match rules
 * in the wildcard set, the set of its sender's unique name and the sets of
 * the names its sender primary-owns; inside each it can only match the
 * buckets (iface, member), (iface, *), (*, member) and (*, *). So delivery
 * costs a handful of hash lookups plus a full test of just the candidate
 * rules, whatever the number of peers and rules on the bus. Empty buckets
 * and sets are freed at once, so the index never outgrows the rules.
 *
 * Dedup: each dispatch bumps the registry stamp; an owner already called
 * back carries the current stamp and is skipped.
 *
 * Invariants: a rule with an owner is on its owner's list and in exactly
 * one bucket; a bucket is in its set's map iff it has rules; a sender set
 * is in the senders map iff it has buckets (the wildcard set is embedded).
 *
 * Trust: rule text is untrusted and goes through match_rule_parse(); the
 * MatchMessage is the bus's own view of a validated message.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match-rule.h"
#include "names.h"
#include "strmap.h"
#include "validate.h"

/* interface '\1' member: neither can contain '\1', so keys are unambiguous. */
#define MATCH_KEY_MAX (2 * VALIDATE_NAME_MAX + 1)

typedef struct MatchSenderSet {
        char *name;             /* (owned) (nullable) NULL for the wildcard set */
        StrMap buckets;         /* key -> MatchBucket */
} MatchSenderSet;

struct MatchBucket {
        MatchSenderSet *set;
        char *key;              /* (owned) */
        size_t key_len;
        IList rules;            /* MatchRule.bucket_link */
};

struct MatchRegistry {
        MatchSenderSet wildcard;
        StrMap senders;         /* sender name -> MatchSenderSet */
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

int match_registry_new(MatchRegistry **ret) {
        MatchRegistry *registry = calloc(1, sizeof(*registry));
        if (!registry)
                return -ENOMEM;
        strmap_init(&registry->wildcard.buckets);
        strmap_init(&registry->senders);
        *ret = registry;
        return 0;
}

MatchRegistry *match_registry_free(MatchRegistry *registry) {
        if (!registry)
                return NULL;
        assert(registry->n_rules == 0);
        strmap_deinit(&registry->wildcard.buckets);
        strmap_deinit(&registry->senders);
        free(registry);
        return NULL;
}

size_t match_registry_n_rules(const MatchRegistry *registry) {
        return registry->n_rules;
}

void match_owner_init(MatchOwner *owner, MatchRegistry *registry, struct Peer *peer) {
        *owner = (MatchOwner){ .registry = registry, .peer = peer };
        ilist_init(&owner->rules);
}

static void sender_set_free(MatchRegistry *registry, MatchSenderSet *set) {
        if (!set->name)
                return;         /* the wildcard set lives in the registry */
        strmap_remove(&registry->senders, set->name);
        strmap_deinit(&set->buckets);
        free(set->name);
        free(set);
}

static void bucket_free(MatchRegistry *registry, MatchBucket *bucket) {
        MatchSenderSet *set = bucket->set;

        strmap_remove_n(&set->buckets, bucket->key, bucket->key_len);
        free(bucket->key);
        free(bucket);
        if (strmap_size(&set->buckets) == 0)
                sender_set_free(registry, set);
}

/* Unlinks rule from its owner and bucket, frees what became empty, frees rule. */
static void rule_remove(MatchRegistry *registry, MatchRule *rule) {
        MatchBucket *bucket = rule->bucket;

        ilist_remove(&rule->owner_link);
        ilist_remove(&rule->bucket_link);
        rule->owner->n_rules--;
        registry->n_rules--;
        if (ilist_is_empty(&bucket->rules))
                bucket_free(registry, bucket);
        match_rule_free(rule);
}

void match_owner_deinit(MatchOwner *owner) {
        while (!ilist_is_empty(&owner->rules))
                rule_remove(owner->registry, ILIST_ENTRY(owner->rules.next, MatchRule, owner_link));
}

static int sender_set_get(MatchRegistry *registry, const char *sender, MatchSenderSet **ret) {
        if (!sender) {
                *ret = &registry->wildcard;
                return 0;
        }

        MatchSenderSet *set = strmap_get(&registry->senders, sender);
        if (set) {
                *ret = set;
                return 0;
        }

        set = calloc(1, sizeof(*set));
        if (!set)
                return -ENOMEM;
        strmap_init(&set->buckets);
        set->name = strdup(sender);
        if (!set->name || strmap_put(&registry->senders, set->name, set) != 0) {
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
        ilist_init(&bucket->rules);
        bucket->key = strndup(key, key_len);
        if (!bucket->key || strmap_put_n(&set->buckets, bucket->key, key_len, bucket) != 0) {
                free(bucket->key);
                free(bucket);
                return -ENOMEM;
        }
        *ret = bucket;
        return 0;
}

/* Puts rule into the index and onto owner's list; nothing changes on failure. */
static int rule_insert(MatchOwner *owner, MatchRule *rule) {
        MatchRegistry *registry = owner->registry;
        char key[MATCH_KEY_MAX + 1];
        size_t key_len;
        MatchSenderSet *set;
        MatchBucket *bucket;
        int r;

        /* Parsed values are validated names: at most VALIDATE_NAME_MAX each. */
        if (!bucket_key(rule->interface, rule->member, key, &key_len))
                return -EINVAL;
        r = sender_set_get(registry, rule->sender, &set);
        if (r < 0)
                return r;
        r = bucket_get(set, key, key_len, &bucket);
        if (r < 0) {
                if (strmap_size(&set->buckets) == 0)
                        sender_set_free(registry, set);
                return r;
        }

        rule->owner = owner;
        rule->bucket = bucket;
        ilist_append(&bucket->rules, &rule->bucket_link);
        ilist_append(&owner->rules, &rule->owner_link);
        owner->n_rules++;
        registry->n_rules++;
        return 0;
}

int match_owner_add(MatchOwner *owner, const char *text, size_t n, size_t max_rules) {
        _cleanup_(match_rule_freep) MatchRule *rule = NULL;
        int r;

        if (owner->n_rules >= max_rules)
                return MATCH_E_QUOTA;
        r = match_rule_parse(text, n, &rule);
        if (r != 0)
                return r;
        r = rule_insert(owner, rule);
        if (r < 0)
                return r;
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

void match_registry_forget_sender(MatchRegistry *registry, const char *unique_name) {
        MatchSenderSet *set;

        /* Each removal may free its bucket, and the last one the set: look up afresh. */
        while ((set = strmap_get(&registry->senders, unique_name))) {
                size_t iter = 0;
                void *value = NULL;

                /* A set in the map has at least one bucket, a bucket at least one rule. */
                if (!strmap_next(&set->buckets, &iter, NULL, &value))
                        break;
                MatchBucket *bucket = value;
                rule_remove(registry, ILIST_ENTRY(bucket->rules.next, MatchRule, bucket_link));
        }
}

typedef struct MatchDispatch {
        MatchRegistry *registry;
        const MatchMessage *msg;
        MatchRecipientFn fn;
        void *userdata;
        bool eavesdrop;
} MatchDispatch;

static int dispatch_bucket(MatchDispatch *d, const MatchBucket *bucket) {
        const IList *l;

        for (l = bucket->rules.next; l != &bucket->rules; l = l->next) {
                const MatchRule *rule = ILIST_ENTRY(l, MatchRule, bucket_link);
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

static int dispatch_set(MatchDispatch *d, const MatchSenderSet *set) {
        const MatchMessage *msg = d->msg;
        const char *combos[4][2] = {
                { msg->interface, msg->member },
                { msg->interface, NULL },
                { NULL, msg->member },
                { NULL, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(combos); i++) {
                char key[MATCH_KEY_MAX + 1];
                size_t key_len;

                /* Skip combinations that repeat one already looked up. */
                if ((i == 0 && (!msg->interface || !msg->member)) ||
                    (i == 1 && !msg->interface) || (i == 2 && !msg->member))
                        continue;
                if (!bucket_key(combos[i][0], combos[i][1], key, &key_len))
                        continue;

                const MatchBucket *bucket = strmap_get_n(&set->buckets, key, key_len);
                if (!bucket)
                        continue;
                int r = dispatch_bucket(d, bucket);
                if (r != 0)
                        return r;
        }
        return 0;
}

static int dispatch_sender(MatchDispatch *d, const char *name) {
        const MatchSenderSet *set = strmap_get(&d->registry->senders, name);
        return set ? dispatch_set(d, set) : 0;
}

int match_registry_dispatch(MatchRegistry *registry, const MatchMessage *msg,
                            MatchRecipientFn fn, void *userdata) {
        MatchDispatch d = {
                .registry = registry, .msg = msg, .fn = fn, .userdata = userdata,
                .eavesdrop = msg->destination != NULL,
        };
        int r;

        if (registry->n_rules == 0)
                return 0;
        registry->stamp++;

        r = dispatch_set(&d, &registry->wildcard);
        if (r != 0 || strmap_size(&registry->senders) == 0)
                return r;
        if (msg->sender) {
                r = dispatch_sender(&d, msg->sender);
                if (r != 0)
                        return r;
        }
        if (msg->sender_names) {
                const IList *iter = NULL;
                const char *name;
                bool primary;

                while (name_peer_state_next(msg->sender_names, &iter, &name, &primary)) {
                        if (!primary)
                                continue;
                        r = dispatch_sender(&d, name);
                        if (r != 0)
                                return r;
                }
        }
        return 0;
}
