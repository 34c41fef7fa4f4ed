/*
 * org.mssf.Broker1.CheckToken(s name, s token) -> b: does the connection
 * name hold token? The question a service asks about its caller for the
 * checks the manifest cannot express (one calendar of several, one
 * account); libmssf wraps it. GetStats, the interface's other method, is
 * in driver-info.c.
 *
 * The answer is the bus's own: the token name is resolved as the asking
 * service's manifest would resolve it (policy_token_resolve(), with the
 * asker's label as the package and the compiled policy's provided tokens:
 * a bare "work" asked by "calendar" is "calendar::work" if the calendar
 * package provides it, else the global "work"; "pkg::Token" as written),
 * and held means what mediation means by it: the kernel's answer to
 * "label token w", through the bus's Smack oracle and label cache. The
 * oracle's cache is refreshed first (inotify on the smackfs rule files),
 * so a grant revoked before the question is never seen as held.
 *
 * Threat model. The asker is any connection the busconfig policy lets
 * call the method (dbus-conf/org.mssf.Broker1.conf: everyone, on the
 * system bus; a device maker may deny it per user or group). Who holds
 * which token is not public: an app must not learn another app's grants.
 * So the asker may ask only about
 *  - itself;
 *  - a connection that waits for a reply from it (it called the asker,
 *    and the asker has not answered yet): a service's current callers;
 *  - with Smack, a connection whose label may send to the asker's ("w"):
 *    one that could call it, as every holder of the service's tokens can
 *    (mssf-policy gives token holders that rule), so a service may also
 *    check a subscriber before it sends a unicast signal.
 * Anything else is AccessDenied, before anything about the connection is
 * looked at, so the answer says nothing but "not yours to ask".
 *
 * Never a false yes. Every other outcome is an error reply, never
 * "false": the name is not a unique connection name, no such connection
 * (NameHasNoOwner), a malformed token name or a POSIX credential
 * (InvalidArgs), Smack is off (SmackDisabled: without Smack nobody holds
 * any token), the connection has no label (NoLabel), the compiled policy
 * predates provided tokens so a bare name cannot be resolved
 * (PolicyOutdated), the kernel could not answer (Failed). "false" means
 * exactly: the kernel says the label does not hold the token.
 */
#include <errno.h>
#include <string.h>

#include "bus-error.h"
#include "bus.h"
#include "db-read.h"
#include "driver.h"
#include "message.h"
#include "smack-oracle.h"
#include "token-name.h"
#include "validate.h"

#define MSSF_INTERFACE "org.mssf.Broker1"

/* Whether asker may ask about target (see the threat model above). */
static bool driver_mssf_may_ask(Bus *bus, Peer *asker, Peer *target) {
        SmackOracle *oracle = security_get_oracle(bus->security);
        const SmackLabel *from = target->security.mssf.label, *to = asker->security.mssf.label;

        if (asker == target || reply_owner_is_waiting_on(&target->replies, &asker->replies))
                return true;
        return smack_oracle_has_smack(oracle) && from && to && smack_has_access(oracle, from, to, "w") == 1;
}

/* The connection name names: a unique name with an owner, and one the asker may ask about. */
static int driver_mssf_target(Bus *bus, Peer *asker, const char *name, Peer **ret, DriverError *error) {
        Peer *target;

        if (name[0] != ':' || !validate_bus_name(name, strlen(name)))
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "CheckToken takes the unique name of a connection (such as a message's sender, \":1.42\"), not \"%s\"",
                                   name);
        target = bus_lookup_peer(bus, name);
        if (!target || !target->registered || target->monitor)
                return driver_fail(error, BUS_ERROR_NAME_HAS_NO_OWNER,
                                   "Could not check a token of name '%s': no such name", name);
        if (!driver_mssf_may_ask(bus, asker, target))
                return driver_fail(error, BUS_ERROR_ACCESS_DENIED,
                                   "Connection \"%s\" may ask CheckToken only about itself, about connections waiting for its reply, and about those whose Smack label may send to its own; \"%s\" is none of these",
                                   asker->unique_name, name);
        *ret = target;
        return 0;
}

/* token as the asker's manifest would resolve it, into label (POLICY_TOKEN_LABEL_SIZE bytes). */
static int driver_mssf_resolve(Bus *bus, Peer *asker, const char *token, char *label, DriverError *error) {
        const PolicyDb *db = security_get_policy_db(bus->security);
        const SmackLabel *own = asker->security.mssf.label;
        int r;

        /* A version 1 policy.db cannot tell a package's own token from a global one. */
        if (db && !policy_db_knows_provided_tokens(db) && !strstr(token, "::"))
                return driver_fail(error, BUS_ERROR_MSSF_POLICY_OUTDATED,
                                   "The compiled policy predates provided tokens, so '%s' cannot be resolved: run 'mssf-policy compile', or name the token in full (package::Token)",
                                   token);
        /* No policy at all: no package provides anything, and every bare name is global. */
        r = policy_token_resolve(token, db && own ? own->text : NULL, policy_db_token_provided,
                                 (void *) db, label, POLICY_TOKEN_LABEL_SIZE);
        if (r < 0)
                return r;
        if (r > 0)
                return driver_fail(error, BUS_ERROR_INVALID_ARGS, "'%s' is %s", token,
                                   policy_token_error_to_string(r) ?: "not a token name");
        return 0;
}

/*
 * Whether label holds token, through the oracle's cache when the label
 * table already knows the token or the policy names it (both bounded);
 * any other name a client makes up is asked of the kernel uncached, so
 * that questions cannot grow the bus's memory.
 */
static int driver_mssf_has_token(Bus *bus, const SmackLabel *label, const char *token) {
        const PolicyDb *db = security_get_policy_db(bus->security);
        SmackOracle *oracle = security_get_oracle(bus->security);

        if (smack_label_find(token) || policy_db_is_provided_token(db, token) ||
            policy_db_is_global_token(db, token))
                return smack_has_token(oracle, label, token);
        return smack_has_token_uncached(oracle, label, token);
}

static int driver_mssf_check_token(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        SmackOracle *oracle = security_get_oracle(bus->security);
        char label[POLICY_TOKEN_LABEL_SIZE];
        const char *name, *token;
        Peer *target = NULL;
        int held, r;

        r = message_read(m, "ss", &name, &token);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        /* A rule changed before this question (a revoked grant) must not meet a cached answer. */
        (void) security_refresh(bus->security);
        r = driver_mssf_target(bus, peer, name, &target, error);
        if (r != 0)
                return r;
        r = driver_mssf_resolve(bus, peer, token, label, error);
        if (r != 0)
                return r;
        if (!smack_oracle_has_smack(oracle))
                return driver_fail(error, BUS_ERROR_MSSF_SMACK_DISABLED,
                                   "Smack is not enabled on this system: no connection holds any token");
        if (!target->security.mssf.label)
                return driver_fail(error, BUS_ERROR_MSSF_NO_LABEL,
                                   "Connection \"%s\" has no Smack label: it holds no token", name);
        held = driver_mssf_has_token(bus, target->security.mssf.label, label);
        if (held < 0)
                return driver_fail(error, BUS_ERROR_FAILED,
                                   "The kernel could not say whether \"%s\" holds %s: %s", name, label,
                                   strerror(-held));
        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_append_basic(b, 'b', &held);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

const DriverMethod driver_mssf_methods[] = {
        { MSSF_INTERFACE, "CheckToken", "ss", driver_mssf_check_token, true },
};

const unsigned driver_n_mssf_methods = ELEMENTSOF(driver_mssf_methods);

/* The documentation travels with the method (gdbus-codegen's doc-comment form), for busctl and d-feet readers. */
const char driver_mssf_xml_check_token[] =
        "    <!--\n"
        "      CheckToken: does the connection @name (a unique name) hold @token?\n"
        "      @token is named as the asker's manifest names it: a bare Token is\n"
        "      the asker's package::Token if its package provides one, else the\n"
        "      global Token; pkg::Token as written. Held means the kernel says\n"
        "      \"label token w\" now (a revoked grant is never seen as held).\n"
        "      Who may ask about whom: the asker about itself, about a connection\n"
        "      waiting for its reply (its caller), and with Smack about one whose\n"
        "      label may send to the asker's; anything else is AccessDenied.\n"
        "      Busconfig may restrict who calls it (send_member=\"CheckToken\").\n"
        "      Never a false yes: InvalidArgs, NameHasNoOwner, AccessDenied,\n"
        "      org.mssf.Broker1.Error.SmackDisabled, .NoLabel, .PolicyOutdated\n"
        "      and Failed are errors. See mssf-broker(8) and libmssf(3).\n"
        "    -->\n"
        "    <method name=\"CheckToken\">\n"
        "      <arg name=\"name\" direction=\"in\" type=\"s\"/>\n"
        "      <arg name=\"token\" direction=\"in\" type=\"s\"/>\n"
        "      <arg name=\"held\" direction=\"out\" type=\"b\"/>\n"
        "    </method>\n";
