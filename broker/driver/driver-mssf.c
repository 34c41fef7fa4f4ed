/*
 * org.mssf.Broker1.CheckToken(s name, s token) -> b: does the connection
 * name hold token? The question a service asks about its caller for the
 * checks the manifest cannot express (one calendar of several, one
 * account); libmssf wraps it. GetStats, the interface's other method, is
 * in driver-info.c.
 *
 * Whom the asker speaks for. A connection that serves a declared name
 * (owns it, is queued for it, or ever did: the names the security layer
 * keeps for mediation) speaks for the package that declared it, whatever
 * its own label (a helper serving the name through <owner label>); any
 * other connection for the package its label names, if there is one:
 * the label itself, or for a label under a package's ("pkg:helper", the
 * labels a package may give its helpers) that package.
 * A package's binaries run with its label, so for a service that owns no
 * declared name the two agree.
 *
 * The answer is the bus's own: the token name is resolved as that
 * package's manifest resolves it (policy_token_resolve() over the
 * compiled policy's provided tokens: a bare "work" is "calendar::work" if
 * calendar provides it, else the global "work"; "pkg::Token" as written).
 * A connection serving names of two packages that would resolve a bare
 * name differently gets InvalidArgs (name it in full), never a guess.
 * Held means what mediation means by it: the kernel's answer to "label
 * token w", through the bus's Smack oracle and label cache, refreshed
 * first (inotify on the smackfs rule files), so a grant revoked before
 * the question is never seen as held.
 *
 * Threat model. The asker is any connection the busconfig policy lets
 * call the method (dbus-conf/org.mssf.Broker1.conf: everyone, on the
 * system bus; a device maker may deny it per user or group). The bus
 * must not be an oracle for who holds which token: a service learns what
 * it needs to serve its callers and nothing more. So about another
 * connection the asker may ask only
 *  - for a token its package provides or guards (a rule of a name it
 *    declared, or its own token for one): its own manifest, nothing
 *    else. This is decided first, from what the asker already knows,
 *    before the connection named is looked at (whether it exists, its
 *    label, its calls). Without it, a package guarding one method with
 *    the global Location, which every holder of Location may reach
 *    (mssf-policy writes "holder package w" for it), could ask each of
 *    them about Cellular or anything else;
 *  - and only about a connection that waits for a reply from it (its
 *    caller), or, with Smack, one whose label may send to the asker's
 *    ("w": one that could call it, as the holders of its tokens can; so a
 *    service may also check a subscriber before a unicast signal).
 * The one exception to the first rule is the device policy's to make:
 * a label on its "checkany" lines (docs/manifest.md; the key service's,
 * and never by default) may ask about its callers for any token, since
 * it keys a caller's data by whatever token the caller names and must
 * ask whether the caller holds it. The connection's own Smack label
 * decides, not the names it serves, so a helper serving the key
 * service's name through <owner label> does not inherit the right; the
 * second rule (only about its callers and those that may send to it)
 * still holds for it.
 * About itself it may ask for any token: the answer is its own. A
 * question outside these gets AccessDenied, the same error and the same
 * words whichever rule refused ("not its to ask"); not "false": "false"
 * would tell a service that its caller lacks a token it may well hold,
 * and would make "false" mean two things where it now means one (see
 * below). Neither reply would leak, as both are decided from the asker's
 * manifest alone; the error says what happened. Without Smack nobody
 * holds any token and every answer would be SmackDisabled: the rule on
 * tokens is not applied there, the rule on connections still is.
 *
 * What this does not protect. On a device as this bus finds it, who
 * holds which token is not a secret the bus can keep: measured under
 * Smack (tests/uml/test-smackfs-exposure.sh), a process of any label and
 * uid, without capabilities, reads every rule from smackfs's load2 and
 * load (0644), asks access2 and access (0666, labelled "*", so no Smack
 * rule can close them) "subject object access" about any two labels and
 * gets the kernel's answer, and GetConnectionCredentials gives anyone any
 * connection's label, as dbus-daemon does. The bus needs access2 itself
 * (as root or as messagebus), so it cannot be closed to others short of
 * the kernel. What the restriction does protect: a process that can
 * reach the bus but not smackfs (a sandbox without /sys/fs/smackfs, or
 * with it read-only, which refuses access2: also measured) learns through
 * CheckToken nothing but what its own manifest makes its business; and
 * should a kernel ever close access2 to others, the bus does not reopen
 * it.
 *
 * Never a false yes. Every other outcome is an error reply, never
 * "false": the name is not a unique connection name, no such connection
 * (NameHasNoOwner), a malformed token name or a POSIX credential
 * (InvalidArgs), a bare name the asker's packages resolve differently
 * (InvalidArgs), Smack is off (SmackDisabled: without Smack nobody holds
 * any token), the connection has no label (NoLabel), the compiled policy
 * predates what the question needs (PolicyOutdated: provided tokens for a
 * bare name, the packages for a question about another connection, who
 * declared the names the asker serves for a bare name), the kernel could
 * not answer (Failed). "false" means exactly: the kernel says the label
 * does not hold the token.
 */
#include <errno.h>
#include <string.h>

#include "bus-error.h"
#include "bus.h"
#include "db-read.h"
#include "driver-internal.h"
#include "message.h"
#include "smack-oracle.h"
#include "token-name.h"
#include "validate.h"

#define MSSF_INTERFACE "org.mssf.Broker1"

/*
 * The asker as CheckToken sees it: its names and label. What each
 * package serves the compiler worked out (policy.db's packages); what a
 * connection speaks for follows from its names with a hash probe each,
 * and the security layer rebuilds those only when they change, so there
 * is nothing worth caching per connection. A connection holds few names
 * (max_names_per_connection bounds them), so a question stays bounded.
 */
typedef struct DriverMssfAsker {
        Peer *peer;
        const PolicyDb *db;             /* (nullable) none: nothing declared, provided or guarded */
        const char *const *names;       /* (borrowed) owned, queued for, or declared and ever held */
        size_t n_names;
        /* (nullable) the package its Smack label names: the label up to its first
         * ':', since "pkg:helper" is a label under package pkg's (no package
         * name has a colon) */
        const char *package;
        char package_buffer[256];
        bool serves_declared;           /* it speaks for its names' declarers, not for its label */
} DriverMssfAsker;

static int driver_mssf_asker(Bus *bus, Peer *peer, DriverMssfAsker *ret) {
        const SmackLabel *label = peer->security.mssf.label;
        int r;

        *ret = (DriverMssfAsker) {
                .peer = peer,
                .db = security_get_policy_db(bus->security),
        };
        if (label) {
                size_t n = strcspn(label->text, ":");

                if (n > 0 && n < sizeof(ret->package_buffer)) {
                        memcpy(ret->package_buffer, label->text, n);
                        ret->package_buffer[n] = '\0';
                        ret->package = ret->package_buffer;
                }
        }
        r = security_peer_get_names(&peer->security, &ret->names, &ret->n_names);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ret->n_names && !ret->serves_declared; i++)
                ret->serves_declared = policy_db_declares_name(ret->db, ret->names[i]);
        return 0;
}

/* token as package's manifest names it (package NULL: nobody's own), into label. */
static int driver_mssf_resolve_for(const PolicyDb *db, const char *package, const char *token, char *label,
                                   DriverError *error) {
        /* No policy at all: no package provides anything, and every bare name is global. */
        int r = policy_token_resolve(token, db ? package : NULL, policy_db_token_provided, (void *) db, label,
                                     POLICY_TOKEN_LABEL_SIZE);

        if (r < 0)
                return r;
        if (r > 0)
                return driver_fail(error, BUS_ERROR_INVALID_ARGS, "'%s' is %s", token,
                                   policy_token_error_to_string(r) ?: "not a token name");
        return 0;
}

/* A bare token name as every package whose names the asker serves names it, the same for all. */
static int driver_mssf_resolve_served(const DriverMssfAsker *asker, const char *token, char *label,
                                      DriverError *error) {
        char other[POLICY_TOKEN_LABEL_SIZE];
        const char *first = NULL, *package;
        int r;

        for (size_t i = 0; i < asker->n_names; i++) {
                r = policy_db_name_declarer(asker->db, asker->names[i], &package);
                if (r == POLICY_DB_UNDECLARED)
                        continue;
                if (r < 0)
                        return r;
                if (!package)
                        return driver_fail(error, BUS_ERROR_MSSF_POLICY_OUTDATED,
                                           "The compiled policy does not record which package declared %s, which connection \"%s\" serves, so '%s' cannot be resolved: run 'mssf-policy compile', or name the token in full (package::Token)",
                                           asker->names[i], asker->peer->unique_name, token);
                r = driver_mssf_resolve_for(asker->db, package, token, first ? other : label, error);
                if (r != 0)
                        return r;
                if (first && strcmp(other, label) != 0)
                        return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                           "Connection \"%s\" serves names of the packages %s and %s, for which '%s' is %s and %s: name the token in full (package::Token)",
                                           asker->peer->unique_name, first, package, token, label, other);
                first = first ?: package;
        }
        return 0;
}

/* token as the asker's package names it, into label (POLICY_TOKEN_LABEL_SIZE bytes). */
static int driver_mssf_resolve(const DriverMssfAsker *asker, const char *token, char *label,
                               DriverError *error) {
        /* Written in full ("pkg::Token", or a POSIX name to refuse): whoever asks. */
        if (strstr(token, "::"))
                return driver_mssf_resolve_for(asker->db, NULL, token, label, error);
        /* A version 1 policy.db cannot tell a package's own token from a global one. */
        if (asker->db && !policy_db_knows_provided_tokens(asker->db))
                return driver_fail(error, BUS_ERROR_MSSF_POLICY_OUTDATED,
                                   "The compiled policy predates provided tokens, so '%s' cannot be resolved: run 'mssf-policy compile', or name the token in full (package::Token)",
                                   token);
        if (asker->serves_declared)
                return driver_mssf_resolve_served(asker, token, label, error);
        return driver_mssf_resolve_for(asker->db, asker->package, token, label, error);
}

/*
 * Whether the asker's package provides or guards label (a token): from
 * its own manifest alone. *ret false without a policy: then no package
 * provides or guards anything.
 */
static int driver_mssf_serves(const DriverMssfAsker *asker, const char *label, bool *ret, DriverError *error) {
        const char *package;

        *ret = false;
        if (!asker->db)
                return 0;
        if (asker->peer->security.mssf.label &&
            policy_db_is_checkany_label(asker->db, asker->peer->security.mssf.label->text)) {
                *ret = true;
                return 0;
        }
        if (!policy_db_knows_declarers(asker->db))
                return driver_fail(error, BUS_ERROR_MSSF_POLICY_OUTDATED,
                                   "The compiled policy predates the record of what each package provides and guards, so the bus cannot tell whether %s is connection \"%s\"'s to ask about another connection: run 'mssf-policy compile'",
                                   label, asker->peer->unique_name);
        if (!asker->serves_declared) {
                *ret = asker->package && policy_db_package_serves_token(asker->db, asker->package, label);
                return 0;
        }
        for (size_t i = 0; i < asker->n_names && !*ret; i++)
                if (policy_db_name_declarer(asker->db, asker->names[i], &package) == 0 && package)
                        *ret = policy_db_package_serves_token(asker->db, package, label);
        return 0;
}

/* The one refusal, whichever rule refused: it says no more than "not yours to ask". */
static int driver_mssf_not_its_to_ask(const DriverMssfAsker *asker, const char *name, const char *label,
                                      DriverError *error) {
        return driver_fail(error, BUS_ERROR_ACCESS_DENIED,
                           "Connection \"%s\" may ask CheckToken only about itself, about connections waiting for its reply and those whose Smack label may send to its own, and about those only for a token its package provides or guards; whether \"%s\" holds %s is not its to ask",
                           asker->peer->unique_name, name, label);
}

/* Whether asker may ask about target (see the threat model above). */
static bool driver_mssf_may_ask(Bus *bus, Peer *asker, Peer *target) {
        SmackOracle *oracle = security_get_oracle(bus->security);
        const SmackLabel *from = target->security.mssf.label, *to = asker->security.mssf.label;

        if (asker == target || reply_owner_is_waiting_on(&target->replies, &asker->replies))
                return true;
        return smack_oracle_has_smack(oracle) && from && to && smack_has_access(oracle, from, to, "w") == 1;
}

/* The connection name names, with an owner, once the asker may ask it about label. */
static int driver_mssf_target(Bus *bus, const DriverMssfAsker *asker, const char *name, const char *label,
                              Peer **ret, DriverError *error) {
        Peer *target;

        target = bus_lookup_peer(bus, name);
        if (!target || !target->registered || target->monitor)
                return driver_fail(error, BUS_ERROR_NAME_HAS_NO_OWNER,
                                   "Could not check a token of name '%s': no such name", name);
        if (!driver_mssf_may_ask(bus, asker->peer, target))
                return driver_mssf_not_its_to_ask(asker, name, label, error);
        *ret = target;
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

/*
 * Everything that does not depend on the connection asked about: the
 * name's form, the token's label, and, about another connection with
 * Smack on, whether that token is the asker's to ask about.
 */
static int driver_mssf_question(Bus *bus, Peer *peer, const char *name, const char *token, char *label,
                                DriverMssfAsker *asker, DriverError *error) {
        bool serves;
        int r;

        if (name[0] != ':' || !validate_bus_name(name, strlen(name)))
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "CheckToken takes the unique name of a connection (such as a message's sender, \":1.42\"), not \"%s\"",
                                   name);
        r = driver_mssf_asker(bus, peer, asker);
        if (r == 0)
                r = driver_mssf_resolve(asker, token, label, error);
        if (r != 0 || strcmp(name, peer->unique_name) == 0 || !security_has_smack(bus->security))
                return r;
        r = driver_mssf_serves(asker, label, &serves, error);
        if (r == 0 && !serves)
                r = driver_mssf_not_its_to_ask(asker, name, label, error);
        return r;
}

static int driver_mssf_check_token(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        SmackOracle *oracle = security_get_oracle(bus->security);
        char label[POLICY_TOKEN_LABEL_SIZE];
        DriverMssfAsker asker;
        const char *name, *token;
        Peer *target = NULL;
        int held, r;

        r = message_read(m, "ss", &name, &token);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        /* A rule changed before this question (a revoked grant) must not meet a cached answer. */
        (void) security_refresh(bus->security);
        r = driver_mssf_question(bus, peer, name, token, label, &asker, error);
        if (r != 0)
                return r;
        r = driver_mssf_target(bus, &asker, name, label, &target, error);
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
        "      The asker speaks for the package that declared the names it serves\n"
        "      (owns, queues for, or did), else for the package its label names.\n"
        "      @token is named as that package's manifest names it: a bare Token\n"
        "      is package::Token if the package provides one, else the global\n"
        "      Token; pkg::Token as written. Held means the kernel says\n"
        "      \"label token w\" now (a revoked grant is never seen as held).\n"
        "      Who may ask about whom: the asker about itself, for any token;\n"
        "      about a connection waiting for its reply (its caller), and with\n"
        "      Smack about one whose label may send to the asker's, only for a\n"
        "      token its package provides or guards (decided first, from its own\n"
        "      manifest; a label the device policy names on a checkany line, the\n"
        "      key service's, for any token). Anything else is AccessDenied, in\n"
        "      the same words.\n"
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
