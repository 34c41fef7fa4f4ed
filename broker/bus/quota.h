/* Per-label quotas: what the connections of one Smack label of one uid hold together. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "connection.h"
#include "ilist.h"
#include "macro.h"
#include "strmap.h"

/*
 * On a device that runs every store app under one uid, the uid's limits
 * (dbus-daemon's max_connections_per_user) are shared by apps that are
 * told apart only by their Smack labels, so one app could use up what all
 * of them need. An account is one (uid, label): the bus counts in it what
 * that label's connections hold, and refuses a connection, a name, a
 * match rule, a pending reply or a queued message that would take the
 * label past its own limit, so that one label at its limit never stops
 * another. The uid's and the bus's limits apply as before, on top.
 *
 * This module only counts and compares; the bus decides which peers are
 * accounted, words the refusals and logs them (bus-quota.c).
 *
 * Bounded: an account exists while a connection of its label is on the
 * bus (at most QUOTA_ACCOUNTS_MAX at once, so a flood of distinct labels
 * is refused rather than grown into), and afterwards only if it refused
 * something, among the QUOTA_IDLE_MAX most recent such (the oldest is
 * dropped for room, its refusals added to QuotaRegistry.forgotten).
 */

typedef enum QuotaResource {
        QUOTA_CONNECTIONS,              /* connections that said Hello */
        QUOTA_NAMES,                    /* well-known names owned or queued for */
        QUOTA_MATCH_RULES,
        QUOTA_REPLIES,                  /* replies its connections wait for */
        QUOTA_QUEUED_BYTES,             /* bytes waiting in its connections' queues */
        QUOTA_QUEUED_FDS,               /* descriptors waiting there */
        _QUOTA_RESOURCE_MAX,
} QuotaResource;

/* The resources counted by a tally (the rest are in QuotaAccount.queued). */
#define QUOTA_N_TALLIES (QUOTA_REPLIES + 1)

/* Expected outcomes. */
enum {
        QUOTA_E_LIMIT = 1,              /* the label is at its limit */
        QUOTA_E_TABLE_FULL,             /* QUOTA_ACCOUNTS_MAX labels hold connections already */
};

#define QUOTA_ACCOUNTS_MAX 4096
#define QUOTA_IDLE_MAX 64
/* A label's refusals of one limit are logged at most this often (bus-quota.c). */
#define QUOTA_LOG_INTERVAL_USEC (60ull * 1000 * 1000)

/* The maximum of each resource for one label; SIZE_MAX: none. */
typedef struct QuotaLimits {
        size_t max[_QUOTA_RESOURCE_MAX];
} QuotaLimits;

typedef struct BusConfigLimits BusConfigLimits;
typedef struct QuotaRegistry QuotaRegistry;

/* The per-label limits a configuration sets, or derives where it sets none (mssf-broker(8)). */
void quota_limits_from_config(const BusConfigLimits *limits, QuotaLimits *ret);

typedef struct QuotaAccount {
        QuotaRegistry *registry;
        char *key;                      /* (owned) "UID/LABEL": a Smack label has no '/' */
        const char *label;              /* in key; "" for a connection without one */
        uid_t uid;
        bool exempt;                    /* counted and shown, never refused */
        unsigned n_ref;                 /* peers holding it */
        size_t tally[QUOTA_N_TALLIES];  /* moved by its peers' registries (names.h, match.h, reply.h) */
        ConnectionShare queued;         /* its connections' queues, and their maximum */
        uint64_t refused[_QUOTA_RESOURCE_MAX];
        uint64_t unlogged[_QUOTA_RESOURCE_MAX];         /* refusals not yet in a log line */
        uint64_t logged_at[_QUOTA_RESOURCE_MAX];        /* 0: never */
        IList idle_link;                /* QuotaRegistry.idle while no peer holds it */
} QuotaAccount;

struct QuotaRegistry {
        StrMap accounts;                /* key -> QuotaAccount */
        QuotaLimits limits;
        size_t n_live;                  /* accounts some peer holds */
        size_t n_idle;
        IList idle;                     /* QuotaAccount.idle_link, oldest first */
        uint64_t forgotten;             /* refusals of idle accounts dropped for room */
        uint64_t table_full;            /* connections refused: QUOTA_ACCOUNTS_MAX labels on the bus */
};

int quota_registry_new(const QuotaLimits *limits, QuotaRegistry **ret);
/* No peer may hold an account any more (asserted). */
QuotaRegistry *quota_registry_free(QuotaRegistry *registry);
/* New limits for every account, from now on; what is held already stays. */
void quota_registry_set_limits(QuotaRegistry *registry, const QuotaLimits *limits);
size_t quota_registry_max(const QuotaRegistry *registry, QuotaResource resource);

/*
 * The account of (uid, label) for one more connection: 0, the connection
 * counted and *ret a reference for its peer; QUOTA_E_LIMIT, the label
 * has its maximum of connections already (a refusal counted; *ret is the
 * account, unreferenced, valid until the registry changes);
 * QUOTA_E_TABLE_FULL (*ret NULL; counted in QuotaRegistry.table_full);
 * -ENOMEM. An exempt account admits whatever its count; exemption is a
 * property of the uid, the same for each of its labels (asserted).
 */
int quota_account_admit(QuotaRegistry *registry, uid_t uid, const char *label, bool exempt,
                        QuotaAccount **ret);
/* A connection admitted by quota_account_admit() is gone (its peer may hold the reference on). */
void quota_account_leave(QuotaAccount *account);
QuotaAccount *quota_account_unref(QuotaAccount *account);

size_t quota_account_used(const QuotaAccount *account, QuotaResource resource);
/* What a peer's registry moves for the account (resource < QUOTA_N_TALLIES). */
size_t *quota_account_tally(QuotaAccount *account, QuotaResource resource);
/* 0 if one more of resource fits; QUOTA_E_LIMIT (counted as a refusal) if not. */
int quota_account_check(QuotaAccount *account, QuotaResource resource);
/* Counts a refusal that was decided elsewhere (a full share of queues: connection.h). */
void quota_account_refuse(QuotaAccount *account, QuotaResource resource);
uint64_t quota_account_refusals(const QuotaAccount *account);
/*
 * Whether a line about the account's refusals of resource is due at now:
 * at the first, then at most once per QUOTA_LOG_INTERVAL_USEC; on true,
 * *ret_refused is how many refusals the line covers.
 */
bool quota_account_log_due(QuotaAccount *account, QuotaResource resource, uint64_t now_usec,
                           uint64_t *ret_refused);
/* The line log_due allowed was not written (the bus's own rate limit): its refusals wait for the next. */
void quota_account_log_held(QuotaAccount *account, QuotaResource resource, uint64_t refused);

/* The <limit> name of each resource ("max_names_per_label"). */
const char *quota_resource_limit_name(QuotaResource resource);
/* The key the report gives each count ("Names"). */
const char *quota_resource_name(QuotaResource resource);

/*
 * For a report: at most max accounts, those with the most refusals first,
 * then those with the most connections, in *ret (the registry's; valid
 * until it changes); *ret_n says how many.
 */
int quota_registry_top(const QuotaRegistry *registry, QuotaAccount **ret, size_t max, size_t *ret_n);

DEFINE_CLEANUP(QuotaRegistry *, quota_registry_free)
