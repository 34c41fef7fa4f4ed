/* The well-known name registry: RequestName/ReleaseName with dbus-daemon's semantics. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ilist.h"
#include "macro.h"
#include "strmap.h"

struct Peer;

/*
 * Ownership of well-known names and their queues of would-be owners,
 * exactly as dbus-daemon's bus/services.c behaves (see names.c).
 *
 * What the CALLER checks before calling in (this module trusts it):
 *   - the name is a valid bus name (broker/wire/validate.h), at most
 *     NAMES_NAME_MAX bytes;
 *   - it is not a unique name (':...') and not org.freedesktop.DBus
 *     (dbus-daemon answers InvalidArgs for both);
 *   - the busconfig/manifest "own" policy allows the request.
 * The max_names_per_connection limit is checked HERE, from the limit the
 * caller passes, exactly where and how dbus-daemon checks it: before
 * anything else, against the number of names the peer owns or is queued
 * for PLUS ONE for its unique name (dbus-daemon registers unique names as
 * names like any other), so with a limit of 3 a peer gets two well-known
 * names, and a peer at its limit gets NAMES_E_LIMIT even for a name it
 * already holds.
 *
 * Every operation reports the primary-ownership change it caused in a
 * NameChange (name copied in, so it outlives the registry's entry):
 * RequestName and ReleaseName change at most one owner, so one NameChange
 * is the whole list; a disconnect yields one per call of
 * names_release_next(). A NameChange's old and new owners are exactly what
 * dbus-daemon shows (tests/registry/test-names-dbus-daemon.c). The
 * caller turns a change into signals in dbus-daemon's order:
 *   1. NameLost(name) to old_owner, if old_owner is not NULL;
 *   2. NameOwnerChanged(name, old unique name or "", new or "");
 *   3. NameAcquired(name) to new_owner, if new_owner is not NULL.
 * (dbus-daemon sends NameOwnerChanged before NameAcquired for a name that
 * had no owner and NameLost first on replacement; the order above yields
 * both.) A change with old_owner == new_owner means nothing changed.
 */

#define NAMES_NAME_MAX 255

/* RequestName flags (D-Bus specification). */
enum {
        NAMES_FLAG_ALLOW_REPLACEMENT = 0x1,
        NAMES_FLAG_REPLACE_EXISTING = 0x2,
        NAMES_FLAG_DO_NOT_QUEUE = 0x4,
};

/* RequestName replies, equal to the D-Bus values. */
enum {
        NAMES_REPLY_PRIMARY_OWNER = 1,
        NAMES_REPLY_IN_QUEUE = 2,
        NAMES_REPLY_EXISTS = 3,
        NAMES_REPLY_ALREADY_OWNER = 4,
};

/* ReleaseName replies, equal to the D-Bus values. */
enum {
        NAMES_RELEASE_RELEASED = 1,
        NAMES_RELEASE_NON_EXISTENT = 2,
        NAMES_RELEASE_NOT_OWNER = 3,
};

/* Expected outcomes (positive). */
enum {
        NAMES_E_LIMIT = 100,    /* max names per connection reached: LimitsExceeded */
        NAMES_E_NO_SUCH_NAME,   /* the name has no owner: NameHasNoOwner */
        NAMES_E_DONE,           /* names_release_next(): nothing left */
};

typedef struct NameRegistry NameRegistry;
typedef struct Name Name;

/*
 * Per-peer state, embedded in the peer. The peer pointer is an opaque
 * handle this module never dereferences; unique_name is borrowed and
 * must outlive the state.
 */
typedef struct NamePeerState {
        struct Peer *peer;
        const char *unique_name;
        IList ownerships;       /* NameOwnership.peer_link, in request order */
        size_t n_ownerships;    /* owned + queued well-known names */
        size_t *tally;          /* (nullable, not owned) moves with n_ownerships: a total over several peers */
} NamePeerState;

/* One peer's place in one name's queue (the first one is the owner). */
typedef struct NameOwnership {
        Name *name;
        NamePeerState *peer;
        IList name_link;        /* in Name.queue */
        IList peer_link;        /* in NamePeerState.ownerships */
        uint32_t flags;         /* NAMES_FLAG_ALLOW_REPLACEMENT | NAMES_FLAG_DO_NOT_QUEUE */
} NameOwnership;

struct Name {
        char *str;              /* (owned) the key in NameRegistry.names */
        IList queue;            /* NameOwnership.name_link; never empty */
};

struct NameRegistry {
        StrMap names;           /* str -> Name */
};

typedef struct NameChange {
        char name[NAMES_NAME_MAX + 1];
        NamePeerState *old_owner;       /* (nullable) */
        NamePeerState *new_owner;       /* (nullable) */
} NameChange;

void name_peer_state_init(NamePeerState *state, struct Peer *peer, const char *unique_name);
/*
 * From now on tally (nullable) counts this peer's names too, as a total
 * over several peers (the bus's per-label quotas): what the peer holds
 * moves from the old tally to the new one.
 */
void name_peer_state_set_tally(NamePeerState *state, size_t *tally);
/*
 * The peer must hold no names any more: call names_release_next() until it
 * returns NAMES_E_DONE first (asserted).
 */
void name_peer_state_deinit(NamePeerState *state);

int name_registry_new(NameRegistry **ret);
/* Frees every name and ownership; peers' states are left empty. */
NameRegistry *name_registry_free(NameRegistry *registry);

/*
 * RequestName. Returns 0 with *ret_reply one of NAMES_REPLY_*, and the
 * change in *ret_change; NAMES_E_LIMIT; -EINVAL for a name longer than
 * NAMES_NAME_MAX; -ENOMEM (nothing changed).
 */
int names_request(NameRegistry *registry, NamePeerState *peer, const char *name,
                  uint32_t flags, size_t max_names, NameChange *ret_change, uint32_t *ret_reply);

/* ReleaseName. Returns 0 with *ret_reply one of NAMES_RELEASE_*; -EINVAL. */
int names_release(NameRegistry *registry, NamePeerState *peer, const char *name,
                  NameChange *ret_change, uint32_t *ret_reply);

/*
 * Disconnect: drops one of the peer's entries per call, in request order,
 * skipping entries whose removal changes no owner. Returns 0 with a real
 * change, NAMES_E_DONE when the peer holds nothing any more. Never fails.
 *     while (names_release_next(reg, &peer->names, &change) == 0)
 *             emit(&change);
 */
int names_release_next(NameRegistry *registry, NamePeerState *peer, NameChange *ret_change);
/* The same, latest request first (dbus-daemon's order when a connection goes). */
int names_release_last(NameRegistry *registry, NamePeerState *peer, NameChange *ret_change);

/* GetNameOwner/NameHasOwner: the primary owner, NULL if none. */
NamePeerState *names_get_owner(const NameRegistry *registry, const char *name);
NamePeerState *names_get_owner_n(const NameRegistry *registry, const char *name, size_t n);

/*
 * ListQueuedOwners: a newly allocated array of the owner and the queued
 * peers, in queue order (free() it). NAMES_E_NO_SUCH_NAME if nobody owns
 * the name.
 */
int names_list_queued_owners(const NameRegistry *registry, const char *name,
                             NamePeerState ***ret_owners, size_t *ret_n);

/*
 * ListNames: iterate the names that have an owner. Start with *iter = 0;
 * false at the end. No modification while iterating.
 */
bool names_next(const NameRegistry *registry, size_t *iter, const char **ret_name,
                NamePeerState **ret_owner);

/*
 * The names a peer owns or is queued for, in request order: start with
 * *iter = NULL; false at the end. *ret_primary tells whether the peer is
 * the owner (not merely queued).
 */
bool name_peer_state_next(const NamePeerState *state, const IList **iter,
                          const char **ret_name, bool *ret_primary);

/* Whether state is the primary owner of name. */
bool name_peer_state_owns(const NamePeerState *state, const char *name);

static inline bool name_ownership_is_primary(const NameOwnership *ownership) {
        return ownership->name->queue.next == &ownership->name_link;
}

DEFINE_CLEANUP(NameRegistry *, name_registry_free);
