/*
 * Per-label accounts (quota.h): what the connections of one Smack label of
 * one uid hold together, and whether one more fits.
 *
 * Counting is done where the counts already move: each accounted peer's
 * name state, match owner and reply owner carry a pointer to their
 * account's tally (registry/), and its connection a pointer to the
 * account's share of queues (connection.h), so a name lost to a
 * replacement, a rule dropped with its sender, a reply timing out or a
 * message written out is subtracted where it happens, and a check is one
 * comparison. Only connections are counted here (admit and leave).
 *
 * Invariants: an account is in the map iff some peer holds it (n_ref > 0,
 * counted in n_live) or it refused something and is on the idle list
 * (n_idle of them, at most QUOTA_IDLE_MAX); an idle account counts
 * nothing but its refusals. A limit is a fixed number per label (the bus
 * derives the defaults from the uid's and connection's limits): what one
 * label may hold never depends on what other labels hold or how many
 * there are, so a well-behaved app's requests do not start failing
 * because other apps connected.
 *
 * Trust: labels come from the kernel (SO_PEERSEC) but are chosen by
 * whoever may set labels, so their number is bounded here, not assumed.
 * No I/O, no logging.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "quota.h"

static const char *const quota_limit_names[_QUOTA_RESOURCE_MAX] = {
        [QUOTA_CONNECTIONS] = "max_connections_per_label",
        [QUOTA_NAMES] = "max_names_per_label",
        [QUOTA_MATCH_RULES] = "max_match_rules_per_label",
        [QUOTA_REPLIES] = "max_replies_per_label",
        [QUOTA_QUEUED_BYTES] = "max_queued_bytes_per_label",
        [QUOTA_QUEUED_FDS] = "max_queued_unix_fds_per_label",
};

static const char *const quota_names[_QUOTA_RESOURCE_MAX] = {
        [QUOTA_CONNECTIONS] = "Connections",
        [QUOTA_NAMES] = "Names",
        [QUOTA_MATCH_RULES] = "MatchRules",
        [QUOTA_REPLIES] = "PendingReplies",
        [QUOTA_QUEUED_BYTES] = "QueuedBytes",
        [QUOTA_QUEUED_FDS] = "QueuedFds",
};

static size_t quota_limit(int64_t value, int64_t derived) {
        if (value == BUS_CONFIG_LIMIT_DERIVED)
                value = derived;
        return value < 0 ? SIZE_MAX : (size_t) value;
}

/* n times a per-connection limit; unlimited stays unlimited. */
static int64_t quota_times(int64_t value, int64_t n) {
        return value < 0 ? -1 : value * n;
}

/*
 * The defaults, each derived from the limit it refines: a quarter of
 * max_connections_per_user (four labels at their maximum are needed to
 * fill a uid's connections; of 256, 64 each: more than any app needs, and
 * enough for a label several system daemons share; rounded up, so a uid
 * that may connect at all gives each label a connection), one
 * connection's names (a label serves a few), four connections' match
 * rules and pending replies (an app may be a few processes), and one
 * connection's queue of bytes and descriptors (the bus's memory and
 * descriptor table are what every label needs, so one label's
 * connections together may hold what one connection may).
 */
void quota_limits_from_config(const BusConfigLimits *l, QuotaLimits *ret) {
        int64_t per_user = l->max_connections_per_user;

        *ret = (QuotaLimits) { .max = {
                [QUOTA_CONNECTIONS] = quota_limit(l->max_connections_per_label,
                                                  per_user < 0 ? -1 : (per_user + 3) / 4),
                [QUOTA_NAMES] = quota_limit(l->max_names_per_label, l->max_names_per_connection),
                [QUOTA_MATCH_RULES] = quota_limit(l->max_match_rules_per_label,
                                                  quota_times(l->max_match_rules_per_connection, 4)),
                [QUOTA_REPLIES] = quota_limit(l->max_replies_per_label,
                                              quota_times(l->max_replies_per_connection, 4)),
                [QUOTA_QUEUED_BYTES] = quota_limit(l->max_queued_bytes_per_label, l->max_outgoing_bytes),
                [QUOTA_QUEUED_FDS] = quota_limit(l->max_queued_unix_fds_per_label, l->max_outgoing_unix_fds),
        } };
}

const char *quota_resource_limit_name(QuotaResource resource) {
        return resource < _QUOTA_RESOURCE_MAX ? quota_limit_names[resource] : NULL;
}

const char *quota_resource_name(QuotaResource resource) {
        return resource < _QUOTA_RESOURCE_MAX ? quota_names[resource] : NULL;
}

int quota_registry_new(const QuotaLimits *limits, QuotaRegistry **ret) {
        QuotaRegistry *registry = calloc(1, sizeof(*registry));

        if (!registry)
                return -ENOMEM;
        strmap_init(&registry->accounts);
        ilist_init(&registry->idle);
        registry->limits = *limits;
        *ret = registry;
        return 0;
}

static void quota_account_free(QuotaAccount *account) {
        QuotaRegistry *registry = account->registry;

        strmap_remove(&registry->accounts, account->key);
        if (ilist_is_linked(&account->idle_link)) {
                ilist_remove(&account->idle_link);
                registry->n_idle--;
        }
        free(account->key);
        free(account);
}

QuotaRegistry *quota_registry_free(QuotaRegistry *registry) {
        if (!registry)
                return NULL;
        assert(registry->n_live == 0);
        while (!ilist_is_empty(&registry->idle))
                quota_account_free(ILIST_ENTRY(ilist_first(&registry->idle), QuotaAccount, idle_link));
        strmap_deinit(&registry->accounts);
        free(registry);
        return NULL;
}

static void quota_account_apply_limits(QuotaAccount *account) {
        const QuotaLimits *limits = &account->registry->limits;

        account->queued.max_bytes = account->exempt ? SIZE_MAX : limits->max[QUOTA_QUEUED_BYTES];
        account->queued.max_fds = account->exempt ? SIZE_MAX : limits->max[QUOTA_QUEUED_FDS];
}

void quota_registry_set_limits(QuotaRegistry *registry, const QuotaLimits *limits) {
        const char *key;
        void *value;
        size_t iter = 0;

        registry->limits = *limits;
        while (strmap_next(&registry->accounts, &iter, &key, &value))
                quota_account_apply_limits(value);
}

size_t quota_registry_max(const QuotaRegistry *registry, QuotaResource resource) {
        return registry->limits.max[resource];
}

/* The oldest idle account goes when there are too many; its refusals are summed. */
static void quota_registry_trim_idle(QuotaRegistry *registry) {
        while (registry->n_idle > QUOTA_IDLE_MAX) {
                QuotaAccount *oldest = ILIST_ENTRY(ilist_first(&registry->idle), QuotaAccount, idle_link);

                registry->forgotten += quota_account_refusals(oldest);
                quota_account_free(oldest);
        }
}

/* No peer holds it: kept, as the newest idle one, only to show what it refused. */
static void quota_account_retire(QuotaAccount *account) {
        QuotaRegistry *registry = account->registry;

        if (quota_account_refusals(account) == 0) {
                quota_account_free(account);
                return;
        }
        ilist_append(&registry->idle, &account->idle_link);
        registry->n_idle++;
        quota_registry_trim_idle(registry);
}

static int quota_account_new(QuotaRegistry *registry, uid_t uid, const char *label, bool exempt,
                             QuotaAccount **ret) {
        _cleanup_free_ QuotaAccount *account = calloc(1, sizeof(*account));
        int r;

        if (!account || asprintf(&account->key, "%u/%s", (unsigned) uid, label) < 0)
                return -ENOMEM;
        account->registry = registry;
        account->label = strchr(account->key, '/') + 1;
        account->uid = uid;
        account->exempt = exempt;
        ilist_init(&account->idle_link);
        quota_account_apply_limits(account);
        r = strmap_put(&registry->accounts, account->key, account);
        if (r != 0) {
                free(account->key);
                return r < 0 ? r : -EEXIST;
        }
        *ret = TAKE_PTR(account);
        return 0;
}

/* The account for key, made live (held by one more peer) unless the table is full. */
static int quota_account_hold(QuotaRegistry *registry, uid_t uid, const char *label, bool exempt,
                              QuotaAccount **ret) {
        _cleanup_free_ char *key = NULL;
        QuotaAccount *account;
        int r;

        if (asprintf(&key, "%u/%s", (unsigned) uid, label) < 0)
                return -ENOMEM;
        account = strmap_get(&registry->accounts, key);
        if (!account || account->n_ref == 0) {
                if (registry->n_live >= QUOTA_ACCOUNTS_MAX) {
                        registry->table_full++;
                        return QUOTA_E_TABLE_FULL;
                }
                if (!account) {
                        r = quota_account_new(registry, uid, label, exempt, &account);
                        if (r < 0)
                                return r;
                } else {
                        ilist_remove(&account->idle_link);
                        registry->n_idle--;
                }
                registry->n_live++;
        }
        assert(account->exempt == exempt);
        account->n_ref++;
        *ret = account;
        return 0;
}

int quota_account_admit(QuotaRegistry *registry, uid_t uid, const char *label, bool exempt,
                        QuotaAccount **ret) {
        QuotaAccount *account = NULL;
        int r;

        *ret = NULL;
        r = quota_account_hold(registry, uid, label, exempt, &account);
        if (r != 0)
                return r;
        if (quota_account_check(account, QUOTA_CONNECTIONS) != 0) {
                *ret = account;
                quota_account_unref(account);   /* kept: it holds a refusal now, or other peers */
                return QUOTA_E_LIMIT;
        }
        account->tally[QUOTA_CONNECTIONS]++;
        *ret = account;
        return 0;
}

void quota_account_leave(QuotaAccount *account) {
        assert(account->tally[QUOTA_CONNECTIONS] > 0);
        account->tally[QUOTA_CONNECTIONS]--;
}

QuotaAccount *quota_account_unref(QuotaAccount *account) {
        if (!account)
                return NULL;
        assert(account->n_ref > 0);
        if (--account->n_ref > 0)
                return NULL;
        account->registry->n_live--;
        quota_account_retire(account);
        return NULL;
}

size_t quota_account_used(const QuotaAccount *account, QuotaResource resource) {
        if (resource < QUOTA_N_TALLIES)
                return account->tally[resource];
        return resource == QUOTA_QUEUED_BYTES ? account->queued.bytes : account->queued.fds;
}

size_t *quota_account_tally(QuotaAccount *account, QuotaResource resource) {
        assert(resource < QUOTA_N_TALLIES);
        return &account->tally[resource];
}

void quota_account_refuse(QuotaAccount *account, QuotaResource resource) {
        account->refused[resource]++;
        account->unlogged[resource]++;
}

int quota_account_check(QuotaAccount *account, QuotaResource resource) {
        if (account->exempt || quota_account_used(account, resource) < account->registry->limits.max[resource])
                return 0;
        quota_account_refuse(account, resource);
        return QUOTA_E_LIMIT;
}

uint64_t quota_account_refusals(const QuotaAccount *account) {
        uint64_t sum = 0;

        for (size_t i = 0; i < _QUOTA_RESOURCE_MAX; i++)
                sum += account->refused[i];
        return sum;
}

bool quota_account_log_due(QuotaAccount *account, QuotaResource resource, uint64_t now_usec,
                           uint64_t *ret_refused) {
        uint64_t last = account->logged_at[resource];

        if (account->unlogged[resource] == 0 || (last != 0 && now_usec - last < QUOTA_LOG_INTERVAL_USEC))
                return false;
        account->logged_at[resource] = now_usec ? now_usec : 1;
        *ret_refused = account->unlogged[resource];
        account->unlogged[resource] = 0;
        return true;
}

void quota_account_log_held(QuotaAccount *account, QuotaResource resource, uint64_t refused) {
        account->unlogged[resource] += refused;
        account->logged_at[resource] = 0;
}

/* Most refusals first, then most connections, then by key: a stable order for a report. */
static int quota_account_compare(const void *a, const void *b) {
        const QuotaAccount *x = *(QuotaAccount *const *) a, *y = *(QuotaAccount *const *) b;
        uint64_t rx = quota_account_refusals(x), ry = quota_account_refusals(y);

        if (rx != ry)
                return rx > ry ? -1 : 1;
        if (x->tally[QUOTA_CONNECTIONS] != y->tally[QUOTA_CONNECTIONS])
                return x->tally[QUOTA_CONNECTIONS] > y->tally[QUOTA_CONNECTIONS] ? -1 : 1;
        return strcmp(x->key, y->key);
}

int quota_registry_top(const QuotaRegistry *registry, QuotaAccount **ret, size_t max, size_t *ret_n) {
        size_t n = strmap_size(&registry->accounts), i = 0, iter = 0;
        _cleanup_free_ QuotaAccount **all = NULL;
        const char *key;
        void *value;

        *ret_n = 0;
        if (n == 0 || max == 0)
                return 0;
        all = malloc(n * sizeof(*all));
        if (!all)
                return -ENOMEM;
        while (strmap_next(&registry->accounts, &iter, &key, &value))
                all[i++] = value;
        qsort(all, n, sizeof(*all), quota_account_compare);
        *ret_n = n < max ? n : max;
        memcpy(ret, all, *ret_n * sizeof(*all));
        return 0;
}
