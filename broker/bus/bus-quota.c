/*
 * The bus's side of the per-label quotas (quota.c counts): with Smack, a
 * peer is accounted to its (uid, label) from Hello on; the driver asks
 * before a name or a match rule is added, dispatch before a reply is
 * awaited, and a queue refuses by itself once its label's share is full.
 * Without Smack nothing here applies and the bus is dbus-daemon's.
 *
 * The bus's trusted uids (0 and its own: peer_is_privileged()) are
 * accounted and shown but never refused by label: they are the system,
 * and its daemons often share one label. A connection without a label
 * under Smack is accounted under "" (fail closed: limited, not exempt).
 *
 * A refusal says which label and which limit; the log gets one line per
 * label and limit at most once a minute (quota_account_log_due()), and
 * all of them together at most a burst per interval, so neither a
 * flooding app nor a flood of labels floods the journal.
 */
#include <stdio.h>

#include "bus-error.h"
#include "bus-quota.h"
#include "bus.h"
#include "config.h"
#include "log.h"
#include "message.h"
#include "ratelimit.h"

/* At most 20 lines per 10 s about labels at their limits, then one saying how many were held back. */
static RateLimit bus_quota_log = RATELIMIT_INIT(10ull * 1000 * 1000, 20);

bool bus_quota_by_label(const Bus *bus) {
        return bus->security && security_has_smack(bus->security);
}

/* One line per label and limit at most once a minute, and a burst per interval for all. */
static void bus_quota_log_refusal(Peer *peer, QuotaAccount *account, QuotaResource resource) {
        const char *limit = quota_resource_limit_name(resource);
        char label_field[300], uid_field[32], limit_field[64];
        const char *fields[] = { label_field, uid_field, limit_field, NULL };
        uint64_t now = loop_now(), refused, held = 0;

        if (!quota_account_log_due(account, resource, now, &refused))
                return;
        if (!ratelimit_below(&bus_quota_log, now, &held)) {
                quota_account_log_held(account, resource, refused);
                return;
        }
        if (held > 0)
                log_warning("%llu more lines about labels at their limits were held back (rate limit)",
                            (unsigned long long) held);
        snprintf(label_field, sizeof(label_field), "MSSF_LABEL=%s", account->label);
        snprintf(uid_field, sizeof(uid_field), "MSSF_UID=%u", (unsigned) account->uid);
        snprintf(limit_field, sizeof(limit_field), "MSSF_LIMIT=%s", limit);
        log_fields(LOG_WARNING, 0, fields,
                   "Label \"%s\" (uid %u) is at its limit %s=%zu: %llu refused, the latest for its "
                   "connection %s (pid %d); said at most once a minute per label and limit",
                   account->label, (unsigned) account->uid, limit, quota_registry_max(account->registry, resource),
                   (unsigned long long) refused, peer->unique_name[0] ? peer->unique_name : "(no Hello)",
                   (int) peer->creds.pid);
}

/* So many distinct labels hold connections that one more cannot be accounted. */
static int bus_quota_table_full(Peer *peer, const char *label, char *text, size_t size) {
        uint64_t held = 0;

        snprintf(text, size, "The maximum number of Smack labels with connections (%d) has been reached: "
                 "label \"%s\" (uid %u) cannot be accounted", QUOTA_ACCOUNTS_MAX, label,
                 (unsigned) peer->creds.uid);
        if (ratelimit_below(&bus_quota_log, loop_now(), &held))
                log_warning("Refusing a connection: %s", text);
        return BUS_ERROR_LIMITS_EXCEEDED;
}

int peer_quota_admit(Peer *peer, char *text, size_t size) {
        Bus *bus = peer->bus;
        const char *label = peer->creds.label ? peer->creds.label : "";
        QuotaAccount *account;
        int r;

        if (!bus_quota_by_label(bus))
                return 0;
        if (!bus->quota) {
                QuotaLimits limits;

                quota_limits_from_config(&bus->config->limits, &limits);
                r = quota_registry_new(&limits, &bus->quota);
                if (r < 0)
                        return r;
        }
        r = quota_account_admit(bus->quota, peer->creds.uid, label, peer_is_privileged(peer), &account);
        if (r == QUOTA_E_TABLE_FULL)
                return bus_quota_table_full(peer, label, text, size);
        if (r == QUOTA_E_LIMIT) {
                bus_quota_log_refusal(peer, account, QUOTA_CONNECTIONS);
                snprintf(text, size, "The maximum number of active connections for label \"%s\" of UID %u "
                         "has been reached (max_connections_per_label=%zu)", label, (unsigned) peer->creds.uid,
                         quota_registry_max(bus->quota, QUOTA_CONNECTIONS));
                return BUS_ERROR_LIMITS_EXCEEDED;
        }
        if (r < 0)
                return r;
        peer->quota = account;
        name_peer_state_set_tally(&peer->names, quota_account_tally(account, QUOTA_NAMES));
        match_owner_set_tally(&peer->matches, quota_account_tally(account, QUOTA_MATCH_RULES));
        reply_owner_set_tally(&peer->replies, quota_account_tally(account, QUOTA_REPLIES));
        connection_set_share(&peer->connection, &account->queued);
        return 0;
}

void peer_quota_leave(Peer *peer) {
        if (peer->quota)
                quota_account_leave(peer->quota);
}

void peer_quota_release(Peer *peer) {
        if (!peer->quota)
                return;
        if (!peer->dead)
                quota_account_leave(peer->quota);
        /* What it still counted there (a bus freed with it) leaves with it. */
        name_peer_state_set_tally(&peer->names, NULL);
        match_owner_set_tally(&peer->matches, NULL);
        reply_owner_set_tally(&peer->replies, NULL);
        connection_set_share(&peer->connection, NULL);
        peer->quota = quota_account_unref(peer->quota);
}

int peer_quota_check(Peer *peer, QuotaResource resource, char *text, size_t size) {
        QuotaAccount *account = peer->quota;
        const char *label;
        unsigned uid;
        size_t used, max;

        if (!account || quota_account_check(account, resource) == 0)
                return 0;
        bus_quota_log_refusal(peer, account, resource);
        label = account->label;
        uid = (unsigned) account->uid;
        used = quota_account_used(account, resource);
        max = quota_registry_max(account->registry, resource);
        switch (resource) {
        case QUOTA_NAMES:
                snprintf(text, size, "Connection \"%s\" is not allowed to own more services: label \"%s\" of "
                         "UID %u owns or waits for %zu names (max_names_per_label=%zu)",
                         peer->unique_name, label, uid, used, max);
                break;
        case QUOTA_MATCH_RULES:
                snprintf(text, size, "Connection \"%s\" is not allowed to add more match rules: label \"%s\" "
                         "of UID %u has %zu (max_match_rules_per_label=%zu)",
                         peer->unique_name, label, uid, used, max);
                break;
        default:
                snprintf(text, size, "The maximum number of pending replies for label \"%s\" of UID %u has "
                         "been reached (%s=%zu)", label, uid, quota_resource_limit_name(resource), max);
                break;
        }
        return BUS_ERROR_LIMITS_EXCEEDED;
}

bool peer_quota_queue_refused(Peer *recipient, Message *m, char *text, size_t size) {
        QuotaAccount *account = recipient->quota;
        const ConnectionShare *share;
        QuotaResource resource;
        size_t bytes, n_fds;

        if (!account || !connection_share_refused(&recipient->connection, m))
                return false;
        share = &account->queued;
        message_get_data(m, &bytes);
        message_get_unix_fds(m, &n_fds);
        resource = share->bytes + bytes > share->max_bytes ? QUOTA_QUEUED_BYTES : QUOTA_QUEUED_FDS;
        quota_account_refuse(account, resource);
        bus_quota_log_refusal(recipient, account, resource);
        if (text)
                snprintf(text, size, "Rejected: destination has a full message queue: the connections of "
                         "label \"%s\" of UID %u hold %zu bytes and %zu fds "
                         "(max_queued_bytes_per_label=%zu, max_queued_unix_fds_per_label=%zu)",
                         account->label, (unsigned) account->uid, share->bytes, share->fds, share->max_bytes,
                         share->max_fds);
        return true;
}
