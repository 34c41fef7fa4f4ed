/*
 * Well-known names and their queues.
 *
 * Job: decide RequestName/ReleaseName outcomes and keep, for each name, the
 * ordered queue of peers that want it (the first is the primary owner),
 * and for each peer the list of its entries, so a disconnect costs
 * O(that peer's names).
 *
 * Semantics are dbus-daemon's (bus/services.c), including its less obvious
 * corners, because clients are written against it:
 *   - re-requesting a name one owns updates its flags (ALREADY_OWNER);
 *   - re-requesting while queued updates the flags and keeps the place,
 *     except that REPLACE_EXISTING moves the peer to second place even when
 *     the owner does not allow replacement (it stays IN_QUEUE);
 *   - DO_NOT_QUEUE that cannot win removes the peer's existing queue entry
 *     and answers EXISTS;
 *   - on replacement the new owner goes first and the old owner second,
 *     unless the old owner asked for DO_NOT_QUEUE: then it is dropped;
 *   - the per-connection limit counts owned and queued names and the
 *     unique name, and is checked before anything else.
 *
 * Invariants: a Name is in the map iff its queue is not empty; every
 * NameOwnership is on exactly one name queue and one peer list;
 * NamePeerState.n_ownerships is the length of its list, and its tally, if
 * any, moves with it. Every mutation
 * allocates first, so -ENOMEM leaves everything unchanged.
 *
 * Trust: the caller has validated the name and applied the ownership
 * policy (names.h); peers are opaque handles.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

#define OWNERSHIP_FLAGS (NAMES_FLAG_ALLOW_REPLACEMENT | NAMES_FLAG_DO_NOT_QUEUE)

void name_peer_state_init(NamePeerState *state, struct Peer *peer, const char *unique_name) {
        *state = (NamePeerState){ .peer = peer, .unique_name = unique_name };
        ilist_init(&state->ownerships);
}

void name_peer_state_set_tally(NamePeerState *state, size_t *tally) {
        if (state->tally)
                *state->tally -= state->n_ownerships;
        state->tally = tally;
        if (tally)
                *tally += state->n_ownerships;
}

void name_peer_state_deinit(NamePeerState *state) {
        assert(ilist_is_empty(&state->ownerships));
        assert(state->n_ownerships == 0);
}

static Name *name_new(const char *str, size_t n) {
        Name *name = malloc(sizeof(*name));
        if (!name)
                return NULL;
        name->str = strndup(str, n);
        if (!name->str) {
                free(name);
                return NULL;
        }
        ilist_init(&name->queue);
        return name;
}

static void name_free(Name *name) {
        free(name->str);
        free(name);
}

static NameOwnership *ownership_new(Name *name, NamePeerState *peer, uint32_t flags) {
        NameOwnership *own = malloc(sizeof(*own));
        if (!own)
                return NULL;
        *own = (NameOwnership){ .name = name, .peer = peer, .flags = flags & OWNERSHIP_FLAGS };
        ilist_init(&own->name_link);
        ilist_init(&own->peer_link);
        ilist_append(&peer->ownerships, &own->peer_link);
        peer->n_ownerships++;
        if (peer->tally)
                (*peer->tally)++;
        return own;
}

static void ownership_free(NameOwnership *own) {
        ilist_remove(&own->name_link);
        ilist_remove(&own->peer_link);
        own->peer->n_ownerships--;
        if (own->peer->tally)
                (*own->peer->tally)--;
        free(own);
}

static NameOwnership *name_primary(const Name *name) {
        return ILIST_ENTRY(name->queue.next, NameOwnership, name_link);
}

/*
 * peer's entry in name's queue. Walks the peer's own list, which the
 * per-connection limit bounds, rather than the queue, which any number of
 * peers can lengthen.
 */
static NameOwnership *name_find(const Name *name, const NamePeerState *peer) {
        for (IList *l = peer->ownerships.next; l != &peer->ownerships; l = l->next) {
                NameOwnership *own = ILIST_ENTRY(l, NameOwnership, peer_link);
                if (own->name == name)
                        return own;
        }
        return NULL;
}

static void change_set(NameChange *change, const char *name, size_t n,
                       NamePeerState *old_owner, NamePeerState *new_owner) {
        memcpy(change->name, name, n);
        change->name[n] = '\0';
        change->old_owner = old_owner;
        change->new_owner = new_owner;
}

/* Moves (or puts) own right behind the primary owner. */
static void queue_put_second(Name *name, NameOwnership *own) {
        ilist_remove(&own->name_link);
        ilist_insert_after(name->queue.next, &own->name_link);
}

static int name_length(const char *name, size_t *ret_n) {
        size_t n = strnlen(name, NAMES_NAME_MAX + 1);
        if (n == 0 || n > NAMES_NAME_MAX)
                return -EINVAL;
        *ret_n = n;
        return 0;
}

int name_registry_new(NameRegistry **ret) {
        NameRegistry *registry = malloc(sizeof(*registry));
        if (!registry)
                return -ENOMEM;
        strmap_init(&registry->names);
        *ret = registry;
        return 0;
}

NameRegistry *name_registry_free(NameRegistry *registry) {
        if (!registry)
                return NULL;

        size_t iter = 0;
        void *value;
        while (strmap_next(&registry->names, &iter, NULL, &value)) {
                Name *name = value;
                IList *l, *tmp;
                ILIST_FOREACH_SAFE(l, tmp, &name->queue)
                        ownership_free(ILIST_ENTRY(l, NameOwnership, name_link));
                name_free(name);
        }
        strmap_deinit(&registry->names);
        free(registry);
        return NULL;
}

/* A name nobody holds yet: the requester owns it, whatever the flags. */
static int names_create(NameRegistry *registry, NamePeerState *peer, const char *str, size_t n,
                        uint32_t flags, NameChange *change) {
        Name *name = name_new(str, n);
        if (!name)
                return -ENOMEM;

        int r = strmap_put_n(&registry->names, name->str, n, name);
        if (r != 0) {
                name_free(name);
                return r < 0 ? r : -EINVAL;
        }

        NameOwnership *own = ownership_new(name, peer, flags);
        if (!own) {
                strmap_remove_n(&registry->names, name->str, n);
                name_free(name);
                return -ENOMEM;
        }
        ilist_append(&name->queue, &own->name_link);
        change_set(change, str, n, NULL, peer);
        return 0;
}

/* bus_service_add_owner(): queue peer, or update its flags and place. */
static int names_enqueue(Name *name, NamePeerState *peer, uint32_t flags) {
        NameOwnership *own = name_find(name, peer);

        if (!own) {
                own = ownership_new(name, peer, flags);
                if (!own)
                        return -ENOMEM;
                ilist_append(&name->queue, &own->name_link);
        }
        own->flags = flags & OWNERSHIP_FLAGS;
        if (flags & NAMES_FLAG_REPLACE_EXISTING)
                queue_put_second(name, own);
        return 0;
}

int names_request(NameRegistry *registry, NamePeerState *peer, const char *str,
                  uint32_t flags, size_t max_names, NameChange *ret_change, uint32_t *ret_reply) {
        NameChange change;
        size_t n;
        int r;

        r = name_length(str, &n);
        if (r < 0)
                return r;
        /* + 1: the unique name counts, as in dbus-daemon. */
        if (peer->n_ownerships + 1 >= max_names)
                return NAMES_E_LIMIT;

        change_set(&change, str, n, NULL, NULL);

        Name *name = strmap_get_n(&registry->names, str, n);
        if (!name) {
                r = names_create(registry, peer, str, n, flags, &change);
                if (r < 0)
                        return r;
                *ret_change = change;
                *ret_reply = NAMES_REPLY_PRIMARY_OWNER;
                return 0;
        }

        NameOwnership *primary = name_primary(name);
        bool replaceable = primary->flags & NAMES_FLAG_ALLOW_REPLACEMENT;
        bool wants_replace = flags & NAMES_FLAG_REPLACE_EXISTING;
        uint32_t reply;

        if (primary->peer == peer) {
                primary->flags = flags & OWNERSHIP_FLAGS;
                reply = NAMES_REPLY_ALREADY_OWNER;
        } else if ((flags & NAMES_FLAG_DO_NOT_QUEUE) && (!replaceable || !wants_replace)) {
                NameOwnership *queued = name_find(name, peer);
                if (queued)
                        ownership_free(queued);
                reply = NAMES_REPLY_EXISTS;
        } else if (!(flags & NAMES_FLAG_DO_NOT_QUEUE) && (!wants_replace || !replaceable)) {
                r = names_enqueue(name, peer, flags);
                if (r < 0)
                        return r;
                reply = NAMES_REPLY_IN_QUEUE;
        } else {
                r = names_enqueue(name, peer, flags);
                if (r < 0)
                        return r;
                /* peer is second now; the old owner leaves or steps behind it. */
                if (primary->flags & NAMES_FLAG_DO_NOT_QUEUE) {
                        change.old_owner = primary->peer;
                        ownership_free(primary);
                } else {
                        change.old_owner = primary->peer;
                        queue_put_second(name, primary);
                }
                change.new_owner = peer;
                reply = NAMES_REPLY_PRIMARY_OWNER;
        }

        *ret_change = change;
        *ret_reply = reply;
        return 0;
}

/* Removes own; fills change if the primary owner changed; frees an empty name. */
static void names_drop(NameRegistry *registry, NameOwnership *own, NameChange *change) {
        Name *name = own->name;
        bool was_primary = name_ownership_is_primary(own);
        NamePeerState *peer = own->peer;
        size_t n = strlen(name->str);

        ownership_free(own);
        change_set(change, name->str, n, NULL, NULL);
        if (was_primary) {
                change->old_owner = peer;
                if (!ilist_is_empty(&name->queue))
                        change->new_owner = name_primary(name)->peer;
        }
        if (ilist_is_empty(&name->queue)) {
                strmap_remove_n(&registry->names, name->str, n);
                name_free(name);
        }
}

int names_release(NameRegistry *registry, NamePeerState *peer, const char *str,
                  NameChange *ret_change, uint32_t *ret_reply) {
        size_t n;
        int r;

        r = name_length(str, &n);
        if (r < 0)
                return r;

        Name *name = strmap_get_n(&registry->names, str, n);
        NameOwnership *own = name ? name_find(name, peer) : NULL;

        if (!own) {
                change_set(ret_change, str, n, NULL, NULL);
                *ret_reply = name ? NAMES_RELEASE_NOT_OWNER : NAMES_RELEASE_NON_EXISTENT;
                return 0;
        }
        names_drop(registry, own, ret_change);
        *ret_reply = NAMES_RELEASE_RELEASED;
        return 0;
}

int names_release_next(NameRegistry *registry, NamePeerState *peer, NameChange *ret_change) {
        while (!ilist_is_empty(&peer->ownerships)) {
                NameOwnership *own = ILIST_ENTRY(peer->ownerships.next, NameOwnership, peer_link);
                NameChange change;

                names_drop(registry, own, &change);
                if (change.old_owner != change.new_owner) {
                        *ret_change = change;
                        return 0;
                }
        }
        return NAMES_E_DONE;
}

int names_release_last(NameRegistry *registry, NamePeerState *peer, NameChange *ret_change) {
        while (!ilist_is_empty(&peer->ownerships)) {
                NameOwnership *own = ILIST_ENTRY(peer->ownerships.prev, NameOwnership, peer_link);
                NameChange change;

                names_drop(registry, own, &change);
                if (change.old_owner != change.new_owner) {
                        *ret_change = change;
                        return 0;
                }
        }
        return NAMES_E_DONE;
}

NamePeerState *names_get_owner_n(const NameRegistry *registry, const char *str, size_t n) {
        Name *name = strmap_get_n(&registry->names, str, n);
        return name ? name_primary(name)->peer : NULL;
}

NamePeerState *names_get_owner(const NameRegistry *registry, const char *str) {
        return names_get_owner_n(registry, str, strlen(str));
}

int names_list_queued_owners(const NameRegistry *registry, const char *str,
                             NamePeerState ***ret_owners, size_t *ret_n) {
        Name *name = strmap_get(&registry->names, str);
        if (!name)
                return NAMES_E_NO_SUCH_NAME;

        size_t n = 0;
        for (IList *l = name->queue.next; l != &name->queue; l = l->next)
                n++;

        NamePeerState **owners = calloc(n, sizeof(*owners));
        if (!owners)
                return -ENOMEM;

        size_t i = 0;
        for (IList *l = name->queue.next; l != &name->queue; l = l->next)
                owners[i++] = ILIST_ENTRY(l, NameOwnership, name_link)->peer;

        *ret_owners = owners;
        *ret_n = n;
        return 0;
}

bool names_next(const NameRegistry *registry, size_t *iter, const char **ret_name,
                NamePeerState **ret_owner) {
        const char *key;
        void *value;

        /* The key is the name's own string: listing names touches no Name. */
        if (!strmap_next(&registry->names, iter, &key, ret_owner ? &value : NULL))
                return false;
        if (ret_name)
                *ret_name = key;
        if (ret_owner)
                *ret_owner = name_primary((Name *) value)->peer;
        return true;
}

bool name_peer_state_next(const NamePeerState *state, const IList **iter,
                          const char **ret_name, bool *ret_primary) {
        const IList *l = *iter ? (*iter)->next : state->ownerships.next;

        if (l == &state->ownerships)
                return false;

        const NameOwnership *own = ILIST_ENTRY(l, NameOwnership, peer_link);
        *iter = l;
        if (ret_name)
                *ret_name = own->name->str;
        if (ret_primary)
                *ret_primary = name_ownership_is_primary(own);
        return true;
}

bool name_peer_state_owns(const NamePeerState *state, const char *str) {
        const IList *iter = NULL;
        const char *name;
        bool primary;

        while (name_peer_state_next(state, &iter, &name, &primary))
                if (primary && strcmp(name, str) == 0)
                        return true;
        return false;
}
