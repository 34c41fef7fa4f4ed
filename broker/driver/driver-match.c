/*
 * The bus driver's match rules: AddMatch and RemoveMatch of
 * org.freedesktop.DBus (driver.c finds the method in this table, checks
 * its signature and turns a handler's error into the reply; see there).
 *
 * Trust: a rule text comes from any peer; the registry parses and bounds
 * it (match-rule.c), the quota is max_match_rules_per_connection, and a
 * rule that eavesdrops is refused as dbus-daemon 1.11.14 and later refuse
 * it unless the caller is uid 0 or the bus's own uid and, with Smack, its
 * label is a monitor label of the device policy.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bus-error.h"
#include "bus-quota.h"
#include "bus.h"
#include "config.h"
#include "driver-internal.h"
#include "driver-stats.h"
#include "log.h"
#include "loop.h"
#include "mediate.h"
#include "message.h"
#include "ratelimit.h"

/*
 * Whether a rule text eavesdrops: the registry has no accessor, but its
 * equality compares the eavesdrop flag, so compare it with itself minus
 * that flag. Only AddMatch/RemoveMatch pay for this, never routing.
 */
static bool driver_rule_eavesdrops(const char *rule) {
        _cleanup_(match_rule_freep) MatchRule *as_given = NULL, *without = NULL;

        if (match_rule_parse(rule, strlen(rule), &as_given) != 0 ||
            match_rule_parse(rule, strlen(rule), &without) != 0)
                return true;    /* an over-count only costs time */
        match_rule_set_eavesdrop(without, false);
        return !match_rule_equal(as_given, without);
}

static void driver_count_eavesdrop(Bus *bus, Peer *peer, const char *rule, bool added) {
        if (!driver_rule_eavesdrops(rule))
                return;
        if (added) {
                peer->n_eavesdrop_rules++;
                bus->n_eavesdrop_rules++;
        } else if (peer->n_eavesdrop_rules > 0) {
                peer->n_eavesdrop_rules--;
                bus->n_eavesdrop_rules--;
        }
}

/* Refused privileged calls, logged as dbus-daemon logs them, at most 20 per 10 s. */
static void driver_log_refusal(const char *text) {
        static RateLimit limit = RATELIMIT_INIT(10ull * 1000 * 1000, 20);
        uint64_t held = 0;

        if (!ratelimit_below(&limit, loop_now(), &held))
                return;
        if (held > 0)
                log_notice("%llu more refused calls were not logged (rate limit)", (unsigned long long) held);
        log_notice("%s", text);
}

/*
 * An eavesdropping rule sees messages addressed to others: as dbus-daemon
 * since 1.11.14, only uid 0 and the bus's own uid may add one (whatever
 * the busconfig eavesdrop rules say: they judge each copy afterwards),
 * and with Smack the label must be a monitor label of the device policy
 * (mediate_monitor()). Checked after the quota and the rule's syntax, as
 * dbus-daemon orders them; logged, as dbus-daemon logs the attempt.
 */
static int driver_check_eavesdrop(Bus *bus, Peer *peer, const char *rule, int64_t max, DriverError *error) {
        _cleanup_(match_rule_freep) MatchRule *parsed = NULL;
        MediateVerdict verdict;

        if (max >= 0 && peer->matches.n_rules >= (size_t) max)
                return 0;       /* match_owner_add() refuses it: LimitsExceeded */
        if (match_rule_parse(rule, strlen(rule), &parsed) != 0 || !driver_rule_eavesdrops(rule))
                return 0;       /* MatchRuleInvalid, or no eavesdropping */
        if (!peer_is_privileged(peer)) {
                driver_fail(error, BUS_ERROR_ACCESS_DENIED,
                            "Rejected attempt to call AddMatch by connection %s (uid=%u pid=%d) with uid %u: "
                            "only uid 0 and the bus's own uid may add a match rule with eavesdrop='true'",
                            peer->unique_name, (unsigned) peer->creds.uid, (int) peer->creds.pid,
                            (unsigned) peer->creds.uid);
                driver_log_refusal(error->text);
                return BUS_ERROR_ACCESS_DENIED;
        }
        if (mediate_monitor(peer, &verdict) != 0)
                return driver_fail(error, verdict.error, "%s", verdict.text);
        return 0;
}

static int driver_method_add_match(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        int64_t max = bus->config->limits.max_match_rules_per_connection;
        const char *rule;
        int r;

        r = message_read(m, "s", &rule);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = driver_check_eavesdrop(bus, peer, rule, max, error);
        if (r != 0)
                return r;
        r = peer_quota_check(peer, QUOTA_MATCH_RULES, error->text, sizeof(error->text));
        if (r != 0)
                return r;
        r = match_owner_add(&peer->matches, rule, strlen(rule), max < 0 ? SIZE_MAX : (size_t) max);
        if (r == MATCH_E_INVALID)
                return driver_fail(error, BUS_ERROR_MATCH_RULE_INVALID, "Invalid match rule \"%s\"", rule);
        if (r == MATCH_E_TOO_LONG)
                return driver_fail(error, BUS_ERROR_LIMITS_EXCEEDED, "Match rule is too long");
        if (r == MATCH_E_QUOTA)
                return driver_fail(error, BUS_ERROR_LIMITS_EXCEEDED,
                                   "Connection \"%s\" is not allowed to add more match rules (increase limits in configuration file if required; max_match_rules_per_connection=%lld)",
                                   peer->unique_name, (long long) max);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_FAILED;
        driver_count_eavesdrop(bus, peer, rule, true);
        driver_stats_update_peaks(bus);
        return driver_return_ack(bus, peer, m);
}

static int driver_method_remove_match(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *rule;
        int r;

        r = message_read(m, "s", &rule);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = match_owner_remove(&peer->matches, rule, strlen(rule));
        if (r == MATCH_E_INVALID || r == MATCH_E_TOO_LONG)
                return driver_fail(error, BUS_ERROR_MATCH_RULE_INVALID, "Invalid match rule \"%s\"", rule);
        if (r == MATCH_E_NOT_FOUND)
                return driver_fail(error, BUS_ERROR_MATCH_RULE_NOT_FOUND,
                                   "The given match rule wasn't found and can't be removed");
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_FAILED;
        driver_count_eavesdrop(bus, peer, rule, false);
        return driver_return_ack(bus, peer, m);
}

/* The bus itself. */

const DriverMethod driver_match_methods[] = {
        { DRIVER_INTERFACE, "AddMatch", "s", driver_method_add_match },
        { DRIVER_INTERFACE, "RemoveMatch", "s", driver_method_remove_match },
};

const unsigned driver_n_match_methods = ELEMENTSOF(driver_match_methods);
