/*
 * Pending replies.
 *
 * Job: remember every forwarded method call that may still be answered,
 * so that exactly one reply or error per call passes the bus (replies are
 * the one kind of message that bypasses the send policy, so an unexpected
 * one must never get through), and so that callers learn when the callee
 * died or took too long.
 *
 * Structure: each ReplySlot is on four structures at once: the registry's
 * hash table keyed by (caller, callee, serial) for O(1) reply matching;
 * the caller's "waiting" list (quota, caller disconnect); the callee's
 * "owed" list (callee disconnect: NoReply to each caller); and the
 * registry's deadline list, kept sorted. With one reply_timeout for the
 * whole bus, deadlines arrive in order and insertion is O(1); the list
 * search from the tail only walks when deadlines come out of order.
 *
 * The table is linear probing with backward-shift deletion (no
 * tombstones), at most half full, keyed with SipHash (hash.h): clients
 * pick serials, so the hash must not be predictable.
 *
 * A slot may carry a PropfilterCall with the function that drops it
 * (reply.h); slot_free(), the one place a slot ends, drops it unless
 * reply_registry_take_call() moved it out first.
 *
 * Trust: owners are the caller's embedded structs; the peer handles in
 * them are opaque and never dereferenced.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "reply.h"

#define REPLY_MIN_BUCKETS 16

struct ReplySlot {
        ReplyOwner *caller;
        ReplyOwner *callee;
        uint32_t serial;
        uint64_t deadline;
        uint64_t hash;
        IList caller_link;      /* in caller->waiting */
        IList callee_link;      /* in callee->owed */
        IList deadline_link;    /* in registry->deadlines, ascending */
        PropfilterCall call;    /* (owned) kind NONE: nothing to filter */
        ReplyCallDeinit call_deinit;    /* (nullable) drops call */
};

struct ReplyRegistry {
        ReplySlot **table;      /* (owned) n_buckets entries, NULL = free */
        size_t n_buckets;       /* 0 or a power of two */
        size_t n_slots;
        IList deadlines;
};

static uint64_t slot_hash(const ReplyOwner *caller, const ReplyOwner *callee, uint32_t serial) {
        struct {
                uint64_t caller, callee;
                uint32_t serial;
        } key;

        memset(&key, 0, sizeof(key));
        key.caller = (uint64_t)(uintptr_t)caller;
        key.callee = (uint64_t)(uintptr_t)callee;
        key.serial = serial;
        return hash_bytes(&key, sizeof(key));
}

int reply_registry_new(ReplyRegistry **ret) {
        ReplyRegistry *registry = calloc(1, sizeof(*registry));
        if (!registry)
                return -ENOMEM;
        ilist_init(&registry->deadlines);
        *ret = registry;
        return 0;
}

ReplyRegistry *reply_registry_free(ReplyRegistry *registry) {
        if (!registry)
                return NULL;
        assert(registry->n_slots == 0);
        free(registry->table);
        free(registry);
        return NULL;
}

size_t reply_registry_size(const ReplyRegistry *registry) {
        return registry->n_slots;
}

void reply_owner_init(ReplyOwner *owner, ReplyRegistry *registry, struct Peer *peer) {
        *owner = (ReplyOwner){ .registry = registry, .peer = peer };
        ilist_init(&owner->waiting);
        ilist_init(&owner->owed);
}

void reply_owner_set_tally(ReplyOwner *owner, size_t *tally) {
        if (owner->tally)
                *owner->tally -= owner->n_waiting;
        owner->tally = tally;
        if (tally)
                *tally += owner->n_waiting;
}

static size_t table_find(const ReplyRegistry *registry, const ReplyOwner *caller,
                         const ReplyOwner *callee, uint32_t serial, uint64_t hash) {
        if (registry->n_slots == 0)
                return SIZE_MAX;

        size_t mask = registry->n_buckets - 1;
        for (size_t i = hash & mask;; i = (i + 1) & mask) {
                const ReplySlot *slot = registry->table[i];

                if (!slot)
                        return SIZE_MAX;
                if (slot->hash == hash && slot->caller == caller && slot->callee == callee &&
                    slot->serial == serial)
                        return i;
        }
}

static void table_place(ReplySlot **table, size_t n_buckets, ReplySlot *slot) {
        size_t mask = n_buckets - 1;
        size_t i = slot->hash & mask;

        while (table[i])
                i = (i + 1) & mask;
        table[i] = slot;
}

static int table_grow(ReplyRegistry *registry) {
        if (registry->n_slots + 1 <= registry->n_buckets / 2)
                return 0;

        size_t n_buckets = registry->n_buckets ? registry->n_buckets * 2 : REPLY_MIN_BUCKETS;
        ReplySlot **table = calloc(n_buckets, sizeof(*table));
        if (!table)
                return -ENOMEM;
        for (size_t i = 0; i < registry->n_buckets; i++)
                if (registry->table[i])
                        table_place(table, n_buckets, registry->table[i]);
        free(registry->table);
        registry->table = table;
        registry->n_buckets = n_buckets;
        return 0;
}

/* Knuth's algorithm R: refill the hole so every probe sequence stays unbroken. */
static void table_remove_at(ReplyRegistry *registry, size_t hole) {
        size_t mask = registry->n_buckets - 1;

        registry->table[hole] = NULL;
        for (size_t j = (hole + 1) & mask; registry->table[j]; j = (j + 1) & mask) {
                size_t home = registry->table[j]->hash & mask;

                /* Entry j may move into the hole unless its home lies in (hole, j]. */
                bool home_between = hole <= j ? (hole < home && home <= j) :
                                                (hole < home || home <= j);
                if (home_between)
                        continue;
                registry->table[hole] = registry->table[j];
                registry->table[j] = NULL;
                hole = j;
        }
}

static void slot_free(ReplyRegistry *registry, ReplySlot *slot) {
        size_t i = table_find(registry, slot->caller, slot->callee, slot->serial, slot->hash);

        assert(i != SIZE_MAX);
        table_remove_at(registry, i);
        registry->n_slots--;
        ilist_remove(&slot->caller_link);
        ilist_remove(&slot->callee_link);
        ilist_remove(&slot->deadline_link);
        slot->caller->n_waiting--;
        if (slot->caller->tally)
                (*slot->caller->tally)--;
        if (slot->call_deinit)
                slot->call_deinit(&slot->call);
        free(slot);
}

static void owner_drop_list(ReplyOwner *owner, IList *list, size_t link_offset) {
        while (!ilist_is_empty(list)) {
                ReplySlot *slot = (ReplySlot *)((char *)list->next - link_offset);
                slot_free(owner->registry, slot);
        }
}

void reply_owner_deinit(ReplyOwner *owner) {
        if (!owner->registry)
                return;
        owner_drop_list(owner, &owner->waiting, offsetof(ReplySlot, caller_link));
        owner_drop_list(owner, &owner->owed, offsetof(ReplySlot, callee_link));
        assert(owner->n_waiting == 0);
}

static void deadline_insert(ReplyRegistry *registry, ReplySlot *slot) {
        IList *pos = registry->deadlines.prev;

        /* Usually the newest deadline is the latest: no step at all. */
        while (pos != &registry->deadlines &&
               ILIST_ENTRY(pos, ReplySlot, deadline_link)->deadline > slot->deadline)
                pos = pos->prev;
        ilist_insert_after(pos, &slot->deadline_link);
}

int reply_registry_expect(ReplyRegistry *registry, ReplyOwner *caller, ReplyOwner *callee,
                          uint32_t serial, uint64_t deadline_usec, size_t max_replies) {
        return reply_registry_expect_call(registry, caller, callee, serial, deadline_usec, max_replies,
                                          NULL, NULL);
}

int reply_registry_expect_call(ReplyRegistry *registry, ReplyOwner *caller, ReplyOwner *callee,
                               uint32_t serial, uint64_t deadline_usec, size_t max_replies,
                               PropfilterCall *call, ReplyCallDeinit call_deinit) {
        assert(caller->registry == registry && callee->registry == registry);

        if (caller->n_waiting >= max_replies)
                return REPLY_E_QUOTA;

        uint64_t hash = slot_hash(caller, callee, serial);
        if (table_find(registry, caller, callee, serial, hash) != SIZE_MAX)
                return REPLY_E_EXISTS;

        int r = table_grow(registry);
        if (r < 0)
                return r;

        ReplySlot *slot = malloc(sizeof(*slot));
        if (!slot)
                return -ENOMEM;
        *slot = (ReplySlot){
                .caller = caller, .callee = callee, .serial = serial,
                .deadline = deadline_usec, .hash = hash,
        };
        if (call) {
                slot->call = *call;
                slot->call_deinit = call_deinit;
                *call = (PropfilterCall) { .kind = PROPFILTER_NONE };
        }
        table_place(registry->table, registry->n_buckets, slot);
        registry->n_slots++;
        ilist_append(&caller->waiting, &slot->caller_link);
        ilist_append(&callee->owed, &slot->callee_link);
        deadline_insert(registry, slot);
        caller->n_waiting++;
        if (caller->tally)
                (*caller->tally)++;
        return 0;
}

int reply_registry_take(ReplyRegistry *registry, ReplyOwner *caller, ReplyOwner *callee,
                        uint32_t serial) {
        return reply_registry_take_call(registry, caller, callee, serial, NULL);
}

int reply_registry_take_call(ReplyRegistry *registry, ReplyOwner *caller, ReplyOwner *callee,
                             uint32_t serial, PropfilterCall *ret_call) {
        uint64_t hash = slot_hash(caller, callee, serial);
        size_t i = table_find(registry, caller, callee, serial, hash);
        ReplySlot *slot;

        if (i == SIZE_MAX)
                return REPLY_E_NONE;
        slot = registry->table[i];
        if (ret_call) {
                *ret_call = slot->call;
                slot->call = (PropfilterCall) { .kind = PROPFILTER_NONE };
                slot->call_deinit = NULL;
        }
        slot_free(registry, slot);
        return 0;
}

static void event_from(const ReplySlot *slot, ReplyEvent *ret_event) {
        *ret_event = (ReplyEvent){
                .caller = slot->caller, .callee = slot->callee, .serial = slot->serial,
        };
}

int reply_registry_pop_owed(ReplyOwner *callee, ReplyEvent *ret_event) {
        if (ilist_is_empty(&callee->owed))
                return REPLY_E_NONE;

        ReplySlot *slot = ILIST_ENTRY(callee->owed.next, ReplySlot, callee_link);
        event_from(slot, ret_event);
        slot_free(callee->registry, slot);
        return 0;
}

bool reply_registry_next_deadline(const ReplyRegistry *registry, uint64_t *ret_deadline_usec) {
        if (ilist_is_empty(&registry->deadlines))
                return false;
        *ret_deadline_usec = ILIST_ENTRY(registry->deadlines.next, ReplySlot, deadline_link)->deadline;
        return true;
}

int reply_registry_pop_expired(ReplyRegistry *registry, uint64_t now_usec, ReplyEvent *ret_event) {
        if (ilist_is_empty(&registry->deadlines))
                return REPLY_E_NONE;

        ReplySlot *slot = ILIST_ENTRY(registry->deadlines.next, ReplySlot, deadline_link);
        if (slot->deadline > now_usec)
                return REPLY_E_NONE;
        event_from(slot, ret_event);
        slot_free(registry, slot);
        return 0;
}

bool reply_owner_is_waiting_on(const ReplyOwner *caller, const ReplyOwner *callee) {
        for (const IList *node = caller->waiting.next; node != &caller->waiting; node = node->next) {
                const ReplySlot *slot = ILIST_ENTRY(node, ReplySlot, caller_link);

                if (slot->callee == callee)
                        return true;
        }
        return false;
}
