/*
 * org.mssf.Broker1.GetStats' per-label part (the rest is driver-info.c):
 * what each Smack label's connections hold against its limits
 * (bus/quota.h) and what was refused to it.
 *
 *   LabelQuotasEnabled  b       accounting by label is on (with Smack)
 *   LabelQuotaLimits    a{st}   each max_*_per_label in force
 *   LabelQuotas         aa{sv}  one entry per label, at most
 *                               DRIVER_QUOTA_SHOWN_MAX, those that refused
 *                               most first, then those with most
 *                               connections: Label (s), UID (u), then each
 *                               count (Connections, Names, MatchRules,
 *                               PendingReplies, QueuedBytes, QueuedFds; t)
 *                               and Refused:<count> (t)
 *   LabelQuotasKnown    u       labels accounted now (shown or not)
 *   LabelQuotaRefusalsForgotten t  refusals of labels gone and dropped for room
 *   LabelQuotaTableFull t       connections refused: too many labels at once
 *
 * Bounded: labels are chosen by whoever may set them, so the answer shows
 * a fixed number of them whatever the bus holds.
 */
#include <stdio.h>

#include "bus-quota.h"
#include "bus.h"
#include "driver-internal.h"
#include "message.h"
#include "quota.h"

#define DRIVER_QUOTA_SHOWN_MAX 64

static int driver_quota_u64(MessageBuilder *b, const char *key, uint64_t value) {
        return driver_append_entry(b, key, 't', &value);
}

static int driver_quota_limits(MessageBuilder *b, const QuotaRegistry *registry) {
        int r = message_builder_open(b, '{', "sv");

        if (r == 0)
                r = message_builder_append_basic(b, 's', "LabelQuotaLimits");
        if (r == 0)
                r = message_builder_open(b, 'v', "a{st}");
        if (r == 0)
                r = message_builder_open(b, 'a', "{st}");
        for (unsigned i = 0; r == 0 && i < _QUOTA_RESOURCE_MAX; i++) {
                uint64_t max = quota_registry_max(registry, (QuotaResource) i);

                r = message_builder_open(b, '{', "st");
                if (r == 0)
                        r = message_builder_append_basic(b, 's', quota_resource_limit_name((QuotaResource) i));
                if (r == 0)
                        r = message_builder_append_basic(b, 't', &max);
                if (r == 0)
                        r = message_builder_close(b);
        }
        for (int depth = 0; r == 0 && depth < 3; depth++)
                r = message_builder_close(b);
        return r;
}

static int driver_quota_account(MessageBuilder *b, const QuotaAccount *account) {
        uint32_t uid = (uint32_t) account->uid;
        char key[64];
        int r = message_builder_open(b, 'a', "{sv}");

        if (r == 0)
                r = driver_append_entry(b, "Label", 's', account->label);
        if (r == 0)
                r = driver_append_entry(b, "UID", 'u', &uid);
        for (unsigned i = 0; r == 0 && i < _QUOTA_RESOURCE_MAX; i++)
                r = driver_quota_u64(b, quota_resource_name((QuotaResource) i),
                                     quota_account_used(account, (QuotaResource) i));
        for (unsigned i = 0; r == 0 && i < _QUOTA_RESOURCE_MAX; i++) {
                snprintf(key, sizeof(key), "Refused:%s", quota_resource_name((QuotaResource) i));
                r = driver_quota_u64(b, key, account->refused[i]);
        }
        return r == 0 ? message_builder_close(b) : r;
}

static int driver_quota_accounts(MessageBuilder *b, const QuotaRegistry *registry) {
        QuotaAccount *shown[DRIVER_QUOTA_SHOWN_MAX];
        size_t n;
        int r = quota_registry_top(registry, shown, DRIVER_QUOTA_SHOWN_MAX, &n);

        if (r == 0)
                r = message_builder_open(b, '{', "sv");
        if (r == 0)
                r = message_builder_append_basic(b, 's', "LabelQuotas");
        if (r == 0)
                r = message_builder_open(b, 'v', "aa{sv}");
        if (r == 0)
                r = message_builder_open(b, 'a', "a{sv}");
        for (size_t i = 0; r == 0 && i < n; i++)
                r = driver_quota_account(b, shown[i]);
        for (int depth = 0; r == 0 && depth < 3; depth++)
                r = message_builder_close(b);
        return r;
}

int driver_stats_label_quotas(MessageBuilder *b, Bus *bus) {
        const QuotaRegistry *registry = bus->quota;
        int enabled = bus_quota_by_label(bus);
        uint32_t known;
        int r = driver_append_entry(b, "LabelQuotasEnabled", 'b', &enabled);

        /* Nothing is accounted before the first Hello with Smack. */
        if (r != 0 || !registry)
                return r;
        known = (uint32_t) strmap_size(&registry->accounts);
        r = driver_quota_limits(b, registry);
        if (r == 0)
                r = driver_quota_accounts(b, registry);
        if (r == 0)
                r = driver_append_entry(b, "LabelQuotasKnown", 'u', &known);
        if (r == 0)
                r = driver_quota_u64(b, "LabelQuotaRefusalsForgotten", registry->forgotten);
        if (r == 0)
                r = driver_quota_u64(b, "LabelQuotaTableFull", registry->table_full);
        return r;
}
