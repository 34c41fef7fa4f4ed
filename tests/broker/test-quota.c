/*
 * Unit tests for quota.c: per-label accounts, their limits, what stays
 * of an account once its connections are gone, and the bounds on how
 * many there are.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "quota.h"

static QuotaLimits limits_of(size_t connections, size_t names, size_t bytes) {
        QuotaLimits limits = { .max = {
                [QUOTA_CONNECTIONS] = connections,
                [QUOTA_NAMES] = names,
                [QUOTA_MATCH_RULES] = 3,
                [QUOTA_REPLIES] = 3,
                [QUOTA_QUEUED_BYTES] = bytes,
                [QUOTA_QUEUED_FDS] = 2,
        } };

        return limits;
}

static QuotaAccount *admit_ok(QuotaRegistry *registry, uid_t uid, const char *label) {
        QuotaAccount *account = NULL;

        assert_int_equal(quota_account_admit(registry, uid, label, false, &account), 0);
        assert_non_null(account);
        return account;
}

static void drop(QuotaAccount *account) {
        quota_account_leave(account);
        quota_account_unref(account);
}

/* One label at its maximum of connections never stops another label of the same uid. */
static void test_connections_per_label(void **state) {
        QuotaLimits limits = limits_of(2, 10, 1000);
        _cleanup_(quota_registry_freep) QuotaRegistry *registry = NULL;
        QuotaAccount *a1, *a2, *b, *refused = NULL, *other_uid;

        assert_int_equal(quota_registry_new(&limits, &registry), 0);
        a1 = admit_ok(registry, 1000, "appA");
        a2 = admit_ok(registry, 1000, "appA");
        assert_ptr_equal(a1, a2);
        assert_int_equal(quota_account_used(a1, QUOTA_CONNECTIONS), 2);
        assert_int_equal(quota_account_admit(registry, 1000, "appA", false, &refused), QUOTA_E_LIMIT);
        assert_ptr_equal(refused, a1);
        assert_int_equal(a1->refused[QUOTA_CONNECTIONS], 1);
        assert_int_equal(quota_account_used(a1, QUOTA_CONNECTIONS), 2);
        b = admit_ok(registry, 1000, "appB");
        assert_ptr_not_equal(a1, b);
        assert_string_equal(b->label, "appB");
        assert_int_equal(b->uid, 1000);
        /* The same label under another uid is another account. */
        other_uid = admit_ok(registry, 1001, "appA");
        assert_ptr_not_equal(other_uid, a1);
        /* One leaves: room again. */
        drop(a2);
        a2 = admit_ok(registry, 1000, "appA");
        drop(a1);
        drop(a2);
        drop(b);
        drop(other_uid);
        assert_int_equal(registry->n_live, 0);
}

/* An exempt account counts but never refuses; its queues have no maximum. */
static void test_exempt(void **state) {
        QuotaLimits limits = limits_of(1, 0, 10);
        _cleanup_(quota_registry_freep) QuotaRegistry *registry = NULL;
        QuotaAccount *root[3];

        assert_int_equal(quota_registry_new(&limits, &registry), 0);
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(quota_account_admit(registry, 0, "_", true, &root[i]), 0);
        assert_int_equal(quota_account_used(root[0], QUOTA_CONNECTIONS), 3);
        assert_int_equal(quota_account_check(root[0], QUOTA_NAMES), 0);
        assert_int_equal(root[0]->queued.max_bytes, SIZE_MAX);
        assert_int_equal(quota_account_refusals(root[0]), 0);
        for (size_t i = 0; i < 3; i++)
                drop(root[i]);
}

/* Tallies are what the registries move; a check compares them with the limit. */
static void test_tallies_and_limits(void **state) {
        QuotaLimits limits = limits_of(4, 2, 100);
        _cleanup_(quota_registry_freep) QuotaRegistry *registry = NULL;
        QuotaAccount *a;
        size_t *names;

        assert_int_equal(quota_registry_new(&limits, &registry), 0);
        a = admit_ok(registry, 1000, "appA");
        names = quota_account_tally(a, QUOTA_NAMES);
        assert_int_equal(quota_account_check(a, QUOTA_NAMES), 0);
        *names = 2;
        assert_int_equal(quota_account_check(a, QUOTA_NAMES), QUOTA_E_LIMIT);
        assert_int_equal(a->refused[QUOTA_NAMES], 1);
        *names = 1;
        assert_int_equal(quota_account_check(a, QUOTA_NAMES), 0);
        *names = 0;
        /* The queues' share takes its maximum from the limits, and follows a new configuration. */
        assert_int_equal(a->queued.max_bytes, 100);
        assert_int_equal(a->queued.max_fds, 2);
        a->queued.bytes = 60;
        assert_int_equal(quota_account_used(a, QUOTA_QUEUED_BYTES), 60);
        limits.max[QUOTA_QUEUED_BYTES] = 50;
        limits.max[QUOTA_NAMES] = 0;
        quota_registry_set_limits(registry, &limits);
        assert_int_equal(a->queued.max_bytes, 50);
        assert_int_equal(quota_registry_max(registry, QUOTA_NAMES), 0);
        assert_int_equal(quota_account_check(a, QUOTA_NAMES), QUOTA_E_LIMIT);
        a->queued.bytes = 0;
        quota_account_refuse(a, QUOTA_QUEUED_BYTES);
        assert_int_equal(quota_account_refusals(a), 3);
        drop(a);
}

/*
 * An account without connections stays only if it refused something, and
 * only among the QUOTA_IDLE_MAX latest: the older ones' refusals are summed.
 */
static void test_idle_accounts_bounded(void **state) {
        QuotaLimits limits = limits_of(0, 0, 0);
        _cleanup_(quota_registry_freep) QuotaRegistry *registry = NULL;
        QuotaAccount *account;
        char label[32];

        assert_int_equal(quota_registry_new(&limits, &registry), 0);
        limits.max[QUOTA_CONNECTIONS] = 1;
        quota_registry_set_limits(registry, &limits);
        drop(admit_ok(registry, 1000, "quiet"));
        assert_int_equal(strmap_size(&registry->accounts), 0);

        limits.max[QUOTA_CONNECTIONS] = 0;
        quota_registry_set_limits(registry, &limits);
        for (unsigned i = 0; i < QUOTA_IDLE_MAX + 10; i++) {
                snprintf(label, sizeof(label), "app%u", i);
                assert_int_equal(quota_account_admit(registry, 1000, label, false, &account), QUOTA_E_LIMIT);
                assert_non_null(account);
                assert_int_equal(quota_account_refusals(account), 1);
        }
        assert_int_equal(registry->n_idle, QUOTA_IDLE_MAX);
        assert_int_equal(strmap_size(&registry->accounts), QUOTA_IDLE_MAX);
        assert_int_equal(registry->forgotten, 10);
        /* The latest stays, and a refused label comes back to its account. */
        assert_int_equal(quota_account_admit(registry, 1000, "app73", false, &account), QUOTA_E_LIMIT);
        assert_int_equal(quota_account_refusals(account), 2);
        limits.max[QUOTA_CONNECTIONS] = 1;
        quota_registry_set_limits(registry, &limits);
        account = admit_ok(registry, 1000, "app73");
        assert_int_equal(registry->n_idle, QUOTA_IDLE_MAX - 1);
        assert_int_equal(quota_account_refusals(account), 2);
        drop(account);
        assert_int_equal(registry->n_idle, QUOTA_IDLE_MAX);
}

/* A flood of distinct labels: at QUOTA_ACCOUNTS_MAX live accounts a new one is refused, a known one not. */
static void test_accounts_bounded(void **state) {
        QuotaLimits limits = limits_of(2, 0, 0);
        _cleanup_(quota_registry_freep) QuotaRegistry *registry = NULL;
        static QuotaAccount *accounts[QUOTA_ACCOUNTS_MAX];
        QuotaAccount *account = (QuotaAccount *) 1;
        char label[32];

        assert_int_equal(quota_registry_new(&limits, &registry), 0);
        for (unsigned i = 0; i < QUOTA_ACCOUNTS_MAX; i++) {
                snprintf(label, sizeof(label), "flood%u", i);
                accounts[i] = admit_ok(registry, 1000, label);
        }
        assert_int_equal(quota_account_admit(registry, 1000, "one-more", false, &account), QUOTA_E_TABLE_FULL);
        assert_null(account);
        assert_int_equal(registry->table_full, 1);
        account = admit_ok(registry, 1000, "flood7");
        assert_ptr_equal(account, accounts[7]);
        drop(account);
        drop(accounts[0]);
        account = admit_ok(registry, 1000, "one-more");
        drop(account);
        for (unsigned i = 1; i < QUOTA_ACCOUNTS_MAX; i++)
                drop(accounts[i]);
        assert_int_equal(registry->n_live, 0);
}

/* One log line per label and limit at first, then at most once per interval, with the count. */
static void test_log_due(void **state) {
        QuotaLimits limits = limits_of(1, 0, 0);
        _cleanup_(quota_registry_freep) QuotaRegistry *registry = NULL;
        QuotaAccount *a;
        uint64_t refused = 0, t = 5000000;

        assert_int_equal(quota_registry_new(&limits, &registry), 0);
        a = admit_ok(registry, 1000, "appA");
        assert_false(quota_account_log_due(a, QUOTA_NAMES, t, &refused));
        assert_int_equal(quota_account_check(a, QUOTA_NAMES), QUOTA_E_LIMIT);
        assert_true(quota_account_log_due(a, QUOTA_NAMES, t, &refused));
        assert_int_equal(refused, 1);
        for (int i = 0; i < 100; i++)
                assert_int_equal(quota_account_check(a, QUOTA_NAMES), QUOTA_E_LIMIT);
        assert_false(quota_account_log_due(a, QUOTA_NAMES, t + 1000, &refused));
        /* Another limit of the same label has its own line. */
        assert_int_equal(quota_account_check(a, QUOTA_MATCH_RULES), 0);
        *quota_account_tally(a, QUOTA_MATCH_RULES) = 3;
        assert_int_equal(quota_account_check(a, QUOTA_MATCH_RULES), QUOTA_E_LIMIT);
        assert_true(quota_account_log_due(a, QUOTA_MATCH_RULES, t + 1000, &refused));
        *quota_account_tally(a, QUOTA_MATCH_RULES) = 0;
        assert_true(quota_account_log_due(a, QUOTA_NAMES, t + QUOTA_LOG_INTERVAL_USEC, &refused));
        assert_int_equal(refused, 100);
        assert_false(quota_account_log_due(a, QUOTA_NAMES, t + 2 * QUOTA_LOG_INTERVAL_USEC, &refused));
        /* A line the bus's rate limit held back: its refusals go into the next, which is due at once. */
        assert_int_equal(quota_account_check(a, QUOTA_NAMES), QUOTA_E_LIMIT);
        assert_true(quota_account_log_due(a, QUOTA_NAMES, t + 3 * QUOTA_LOG_INTERVAL_USEC, &refused));
        assert_int_equal(refused, 1);
        quota_account_log_held(a, QUOTA_NAMES, refused);
        assert_int_equal(quota_account_check(a, QUOTA_NAMES), QUOTA_E_LIMIT);
        assert_true(quota_account_log_due(a, QUOTA_NAMES, t + 3 * QUOTA_LOG_INTERVAL_USEC + 1, &refused));
        assert_int_equal(refused, 2);
        drop(a);
}

/* A report: most refusals first, then most connections; bounded by its caller. */
static void test_top(void **state) {
        QuotaLimits limits = limits_of(3, 0, 0);
        _cleanup_(quota_registry_freep) QuotaRegistry *registry = NULL;
        QuotaAccount *quiet1, *quiet2a, *quiet2b, *noisy, *top[4];
        size_t n;

        assert_int_equal(quota_registry_new(&limits, &registry), 0);
        assert_int_equal(quota_registry_top(registry, top, 4, &n), 0);
        assert_int_equal(n, 0);
        quiet1 = admit_ok(registry, 1000, "quiet1");
        quiet2a = admit_ok(registry, 1000, "quiet2");
        quiet2b = admit_ok(registry, 1000, "quiet2");
        noisy = admit_ok(registry, 1000, "noisy");
        assert_int_equal(quota_account_check(noisy, QUOTA_NAMES), QUOTA_E_LIMIT);
        assert_int_equal(quota_registry_top(registry, top, 4, &n), 0);
        assert_int_equal(n, 3);
        assert_ptr_equal(top[0], noisy);
        assert_ptr_equal(top[1], quiet2a);
        assert_ptr_equal(top[2], quiet1);
        assert_int_equal(quota_registry_top(registry, top, 1, &n), 0);
        assert_int_equal(n, 1);
        assert_ptr_equal(top[0], noisy);
        drop(quiet1);
        drop(quiet2a);
        drop(quiet2b);
        drop(noisy);
        /* noisy stays for its refusal. */
        assert_int_equal(quota_registry_top(registry, top, 4, &n), 0);
        assert_int_equal(n, 1);
        assert_string_equal(top[0]->label, "noisy");
        assert_string_equal(quota_resource_limit_name(QUOTA_QUEUED_FDS), "max_queued_unix_fds_per_label");
        assert_string_equal(quota_resource_name(QUOTA_REPLIES), "PendingReplies");
}

/* The defaults derive from the limits they refine; a file's own value wins; unlimited stays so. */
static void test_limits_from_config(void **state) {
        BusConfigLimits config;
        QuotaLimits limits;

        bus_config_limits_init(&config);
        quota_limits_from_config(&config, &limits);
        assert_int_equal(limits.max[QUOTA_CONNECTIONS], 64);
        assert_int_equal(limits.max[QUOTA_NAMES], 512);
        assert_int_equal(limits.max[QUOTA_MATCH_RULES], 2048);
        assert_int_equal(limits.max[QUOTA_REPLIES], 512);
        assert_int_equal(limits.max[QUOTA_QUEUED_BYTES], 127 * 1024 * 1024);
        assert_int_equal(limits.max[QUOTA_QUEUED_FDS], 64);

        config.max_connections_per_user = 3;            /* rounded up: one each */
        config.max_outgoing_bytes = 4096;
        config.max_names_per_label = 7;
        config.max_replies_per_connection = -1;
        quota_limits_from_config(&config, &limits);
        assert_int_equal(limits.max[QUOTA_CONNECTIONS], 1);
        assert_int_equal(limits.max[QUOTA_QUEUED_BYTES], 4096);
        assert_int_equal(limits.max[QUOTA_NAMES], 7);
        assert_int_equal(limits.max[QUOTA_REPLIES], SIZE_MAX);
        config.max_connections_per_user = 0;
        quota_limits_from_config(&config, &limits);
        assert_int_equal(limits.max[QUOTA_CONNECTIONS], 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_connections_per_label),
                cmocka_unit_test(test_exempt),
                cmocka_unit_test(test_tallies_and_limits),
                cmocka_unit_test(test_idle_accounts_bounded),
                cmocka_unit_test(test_accounts_bounded),
                cmocka_unit_test(test_log_due),
                cmocka_unit_test(test_top),
                cmocka_unit_test(test_limits_from_config),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
