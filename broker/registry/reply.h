/* Pending replies: which method calls may still be answered, and until when. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ilist.h"
#include "macro.h"
/* By path: the struct is embedded in each slot; this library links none of propfilter's code. */
#include "../propfilter/propfilter.h"

struct Peer;

/*
 * When the bus forwards a method call that expects a reply, it registers
 * (caller, callee, serial) with a deadline. A reply or error from callee to
 * caller carrying that reply_serial is then expected exactly once:
 * reply_registry_take() finds and removes the slot in O(1); anything else
 * is an unexpected reply the bus drops. Deadlines are microseconds on
 * whatever monotonic clock the caller uses.
 *
 * A slot may carry what the bus must remember of the call to filter its
 * reply (a PropfilterCall, propfilter.h): reply_registry_expect_call()
 * moves it in, reply_registry_take_call() hands it back, and every other
 * end of the slot (the other take, timeout, the callee's disconnect,
 * reply_owner_deinit()) drops it with the deinit function given with it.
 * The registry only stores it; it calls none of propfilter's code itself.
 *
 * Return codes: 0; REPLY_E_QUOTA (the caller already waits for
 * max_replies_per_connection replies: LimitsExceeded), REPLY_E_EXISTS
 * (the same caller, callee and serial are already pending), REPLY_E_NONE
 * (nothing found / nothing left); -ENOMEM.
 */

enum {
        REPLY_E_QUOTA = 1,
        REPLY_E_EXISTS,
        REPLY_E_NONE,
};

typedef struct ReplyRegistry ReplyRegistry;
typedef struct ReplySlot ReplySlot;

/* Per-peer state, embedded in the peer; peer is opaque. */
typedef struct ReplyOwner {
        ReplyRegistry *registry;
        struct Peer *peer;
        IList waiting;          /* slots where this peer is the caller */
        IList owed;             /* slots where this peer is the callee */
        size_t n_waiting;
        size_t *tally;          /* (nullable, not owned) moves with n_waiting: a total over several owners */
} ReplyOwner;

/* What the bus needs to send NoReply (or to account a reply). */
typedef struct ReplyEvent {
        ReplyOwner *caller;
        ReplyOwner *callee;
        uint32_t serial;
} ReplyEvent;

int reply_registry_new(ReplyRegistry **ret);
/* Every owner must have been deinitialised first (asserted). */
ReplyRegistry *reply_registry_free(ReplyRegistry *registry);
size_t reply_registry_size(const ReplyRegistry *registry);

void reply_owner_init(ReplyOwner *owner, ReplyRegistry *registry, struct Peer *peer);
/* From now on tally (nullable) counts the replies owner waits for too; what it has moves over. */
void reply_owner_set_tally(ReplyOwner *owner, size_t *tally);
/*
 * Drops every slot the owner takes part in, as caller or callee, without
 * events. On a disconnect call reply_registry_pop_owed() first so the
 * callers waiting on this peer get their NoReply error.
 */
void reply_owner_deinit(ReplyOwner *owner);

/* A method call from caller to callee with serial was forwarded. */
int reply_registry_expect(ReplyRegistry *registry, ReplyOwner *caller, ReplyOwner *callee,
                          uint32_t serial, uint64_t deadline_usec, size_t max_replies);

/* How a slot drops the call it carries (propfilter_call_deinit). */
typedef void (*ReplyCallDeinit)(PropfilterCall *call);

/*
 * The same, and the slot keeps *call: on 0 it is moved in (*call is then
 * zeroed, "nothing to filter") and call_deinit (nullable when *call needs
 * none) drops it wherever the slot ends but in reply_registry_take_call();
 * on any other return *call is still the caller's.
 */
int reply_registry_expect_call(ReplyRegistry *registry, ReplyOwner *caller, ReplyOwner *callee,
                               uint32_t serial, uint64_t deadline_usec, size_t max_replies,
                               PropfilterCall *call, ReplyCallDeinit call_deinit);

/*
 * A reply or error from callee to caller with reply_serial serial: 0 if it
 * was expected (the slot is gone now), REPLY_E_NONE if not.
 */
int reply_registry_take(ReplyRegistry *registry, ReplyOwner *caller, ReplyOwner *callee,
                        uint32_t serial);

/*
 * The same, and on 0 the slot's call is moved to *ret_call (zeroed when
 * the slot carried none): the caller deinits it. On REPLY_E_NONE
 * *ret_call is not written.
 */
int reply_registry_take_call(ReplyRegistry *registry, ReplyOwner *caller, ReplyOwner *callee,
                             uint32_t serial, PropfilterCall *ret_call);

/*
 * The callee disconnects: pops one caller waiting on it per call (0), then
 * REPLY_E_NONE. Never fails.
 */
int reply_registry_pop_owed(ReplyOwner *callee, ReplyEvent *ret_event);

/*
 * Whether caller waits for a reply from callee (a call it made is still
 * pending there). Walks the caller's waiting list: at most
 * max_replies_per_connection slots. Never fails.
 */
bool reply_owner_is_waiting_on(const ReplyOwner *caller, const ReplyOwner *callee);

/* Earliest pending deadline; false if nothing is pending. */
bool reply_registry_next_deadline(const ReplyRegistry *registry, uint64_t *ret_deadline_usec);

/*
 * Pops one slot whose deadline is <= now (0), then REPLY_E_NONE, in
 * deadline order. Never fails.
 */
int reply_registry_pop_expired(ReplyRegistry *registry, uint64_t now_usec, ReplyEvent *ret_event);

DEFINE_CLEANUP(ReplyRegistry *, reply_registry_free);
