/*
 * The token decision (DESIGN.md, "Mediation", step 3 and 4).
 *
 * Threat model: the sender of a message is an untrusted app; the policy
 * snapshot and the oracle are trusted; header strings were validated by
 * the wire code but are only hashed and compared here. Every path that
 * cannot establish "allowed" denies: an unknown method under a declared
 * name, a Properties call whose arguments the bus could not extract, a
 * property no manifest line covers, an oracle error. Services are not
 * trusted to dispatch by the interface: some serve a whole subtree, some
 * look at the member alone, so nothing is open merely because a service
 * would probably refuse it. The ladder for a method call, first match
 * decides:
 *  1. org.freedesktop.DBus.Peer.Ping and GetMachineId are open (the
 *     D-Bus libraries answer them themselves), except that they need what
 *     a call without interface to a member of that name needs, where the
 *     manifest declares one (a service dispatching by member alone would
 *     run its own); any other member of Peer is an ordinary method, so
 *     undeclared;
 *  2. Properties.Get/Set/GetAll need any rule on the Properties method
 *     itself and that member-alone union too, and then the property (Get,
 *     Set) or the interface (GetAll) their arguments name must be covered
 *     at that exact path, by the property's own rule or its interface's
 *     default, under one of the declared names, with every covering rule's
 *     tokens held: an uncovered one is "not declared", like a method;
 *  3. otherwise every declared name the destination owns is consulted:
 *     each rule that covers the call must be satisfied (every token held),
 *     and at least one declared name must cover it, else the call is
 *     "not declared"; a call without interface to Ping or GetMachineId is
 *     taken as Peer's when nothing covers it.
 * A destination owning no declared name is allowed (busconfig and Smack
 * still apply). Signals are restricted only where covered; a property is
 * readable under a declared name only where covered
 * (policy_db_check_property()).
 */
#include "decide.h"

#include <errno.h>
#include <string.h>

#include "db-internal.h"

#define DBUS_INTERFACE_PEER "org.freedesktop.DBus.Peer"
#define DBUS_INTERFACE_PROPERTIES "org.freedesktop.DBus.Properties"

typedef struct Judge {
        const PolicyDb *db;
        const char *label;
        PolicyHasToken has_token;
        void *userdata;
        PolicyDecision *decision;
        const char *declared;           /* (nullable) first declared name seen */
        bool covered;                   /* some rule covered the query */
} Judge;

static bool streq_nullable(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

static void decision_set(Judge *j, int outcome, const char *name, const char *token,
                         PolicyKind kind, const char *path, const char *interface,
                         const char *member) {
        *j->decision = (PolicyDecision) {
                .outcome = outcome,
                .label = j->label,
                .name = name,
                .token = token,
                .kind = kind,
                .path = path,
                .interface = interface,
                .member = member,
        };
}

static int judge_tokens(Judge *j, const DbRule *rule, PolicyKind kind, const char *path,
                        const char *interface, const char *member);

/*
 * Look (kind, path, interface, member) up under name and check its tokens:
 * 0 when satisfied or not covered, MISSING_TOKEN (decision filled), or the
 * oracle's error.
 */
static int judge_rule(Judge *j, const char *name, PolicyKind kind, const char *path,
                      const char *interface, const char *member) {
        const DbRule *rule;
        uint32_t index;

        index = db_find_name(j->db, name);
        if (index == POLICY_DB_NONE)
                return 0;
        if (!j->declared)
                j->declared = db_string(j->db, j->db->names[index].name);
        rule = db_find_covering_rule(j->db, index, kind, path, interface, member);
        if (!rule)
                return 0;
        j->covered = true;
        return judge_tokens(j, rule, kind, path, interface, member);
}

/* rule's tokens, all held: 0, MISSING_TOKEN (decision filled), or the oracle's error. */
static int judge_tokens(Judge *j, const DbRule *rule, PolicyKind kind, const char *path,
                        const char *interface, const char *member) {
        PolicyRequirement req;

        db_requirement_from_rule(j->db, rule, &req);
        for (size_t i = 0; i < req.n_tokens; i++) {
                const char *token = policy_requirement_token(&req, i);
                int r = j->has_token(j->label, token, j->userdata);

                if (r < 0)
                        return r;
                if (r == 0) {
                        decision_set(j, POLICY_DECIDE_E_MISSING_TOKEN, req.name, token, kind,
                                     path, interface, member);
                        return POLICY_DECIDE_E_MISSING_TOKEN;
                }
        }
        return 0;
}

/* judge_rule() under every name; stops at the first denial. */
static int judge_names(Judge *j, const char *const *names, size_t n_names, PolicyKind kind,
                       const char *path, const char *interface, const char *member) {
        for (size_t i = 0; i < n_names; i++) {
                int r;

                if (!names[i])
                        return -EINVAL;
                r = judge_rule(j, names[i], kind, path, interface, member);
                if (r != 0)
                        return r;
        }
        return 0;
}

static int allow(Judge *j) {
        decision_set(j, 0, NULL, NULL, POLICY_KIND_METHOD, NULL, NULL, NULL);
        return 0;
}

static bool is_properties_call(const PolicyMessage *m) {
        return streq_nullable(m->interface, DBUS_INTERFACE_PROPERTIES) &&
               (strcmp(m->member, "Get") == 0 || strcmp(m->member, "Set") == 0 ||
                strcmp(m->member, "GetAll") == 0);
}

static bool is_peer_member(const char *member) {
        return strcmp(member, "Ping") == 0 || strcmp(member, "GetMachineId") == 0;
}

static int not_declared(Judge *j, PolicyKind kind, const char *path, const char *interface,
                        const char *member) {
        decision_set(j, POLICY_DECIDE_E_NOT_DECLARED, j->declared, NULL, kind, path, interface,
                     member);
        return POLICY_DECIDE_E_NOT_DECLARED;
}

/* Marks the judge covered when a declared name has any rule for (kind, path, interface). */
static int cover_interface(Judge *j, const char *const *names, size_t n_names, PolicyKind kind,
                           const char *path, const char *interface) {
        for (size_t i = 0; i < n_names && !j->covered; i++) {
                uint32_t index;

                if (!names[i])
                        return -EINVAL;
                index = db_find_name(j->db, names[i]);
                if (index == POLICY_DB_NONE)
                        continue;
                if (!j->declared)
                        j->declared = db_string(j->db, j->db->names[index].name);
                j->covered = db_has_interface_rules(j->db, index, kind, path, interface);
        }
        return 0;
}

/*
 * The rules a manifest states for member by name at path under another
 * interface than Peer or Properties (not a default, not the derived
 * unions, which include every interface's default): each one's tokens.
 * A name's rules are few; this runs for Peer's and Properties' calls only.
 */
static int judge_member_named(Judge *j, uint32_t index, const char *path, const char *member) {
        const DbName *name = &j->db->names[index];
        const DbRule *rules = j->db->rules + db_le(name->rules_first);

        for (uint32_t i = 0; i < db_le(name->rules_count); i++) {
                const char *interface = db_string(j->db, rules[i].interface);
                const char *named = db_string(j->db, rules[i].member);
                int r;

                if (db_le(rules[i].kind) != POLICY_KIND_METHOD || !interface || !named ||
                    strcmp(named, member) != 0 || strcmp(db_string(j->db, rules[i].path), path) != 0 ||
                    strcmp(interface, DBUS_INTERFACE_PEER) == 0 ||
                    strcmp(interface, DBUS_INTERFACE_PROPERTIES) == 0)
                        continue;
                r = judge_tokens(j, &rules[i], POLICY_KIND_METHOD, path, interface, member);
                if (r != 0)
                        return r;
        }
        return 0;
}

/*
 * What a standard member (Peer's, Properties') needs besides its own
 * rules: whatever a call without interface to a member of that name
 * needs, where a manifest declares one at that path, since a service
 * that dispatches by member alone would run that one. Only members a
 * manifest names count, not an interface's default: a default covers its
 * own interface's members, and counting it would put every defaulted
 * interface's token on Peer.Ping and on reading an open property
 * (DESIGN.md: Peer stays open). Coverage by it does not count.
 */
static int judge_member_alone(Judge *j, const char *const *names, size_t n_names,
                              const PolicyMessage *m) {
        for (size_t i = 0; i < n_names; i++) {
                uint32_t index;
                int r;

                if (!names[i])
                        return -EINVAL;
                index = db_find_name(j->db, names[i]);
                if (index == POLICY_DB_NONE)
                        continue;
                if (!j->declared)
                        j->declared = db_string(j->db, j->db->names[index].name);
                r = judge_member_named(j, index, m->path, m->member);
                if (r != 0)
                        return r;
        }
        return 0;
}

static int decide_properties_call(Judge *j, const char *const *names, size_t n_names,
                                  const PolicyMessage *m) {
        bool get_all = strcmp(m->member, "GetAll") == 0;
        PolicyKind kind = strcmp(m->member, "Set") == 0 ? POLICY_KIND_PROPERTY_WRITE
                                                        : POLICY_KIND_PROPERTY_READ;
        const char *interface;
        int r;

        /* A manifest may also guard the Properties method itself. */
        r = judge_names(j, names, n_names, POLICY_KIND_METHOD, m->path, m->interface, m->member);
        if (r == 0)
                r = judge_member_alone(j, names, n_names, m);
        if (r != 0)
                return r;
        if (!j->declared)
                return allow(j);
        if (!m->property_interface || (!get_all && !m->property)) {
                decision_set(j, POLICY_DECIDE_E_BAD_MESSAGE, j->declared, NULL, kind, m->path,
                             m->property_interface, m->property);
                return POLICY_DECIDE_E_BAD_MESSAGE;
        }
        interface = m->property_interface[0] ? m->property_interface : NULL;
        /* Covering the Properties method does not cover a property. */
        j->covered = false;
        if (get_all)
                /* Each property of the reply is judged when the bus filters it. */
                r = cover_interface(j, names, n_names, kind, m->path, interface);
        else
                r = judge_names(j, names, n_names, kind, m->path, interface, m->property);
        if (r != 0)
                return r;
        if (!j->covered)
                return not_declared(j, kind, m->path, interface, get_all ? NULL : m->property);
        return allow(j);
}

static int decide_method_call(Judge *j, const char *const *names, size_t n_names,
                              const PolicyMessage *m) {
        int r;

        if (streq_nullable(m->interface, DBUS_INTERFACE_PEER) && is_peer_member(m->member)) {
                r = judge_member_alone(j, names, n_names, m);
                return r != 0 ? r : allow(j);
        }
        if (is_properties_call(m))
                return decide_properties_call(j, names, n_names, m);
        r = judge_names(j, names, n_names, POLICY_KIND_METHOD, m->path, m->interface, m->member);
        if (r != 0)
                return r;
        if (j->declared && !j->covered && !(!m->interface && is_peer_member(m->member)))
                return not_declared(j, POLICY_KIND_METHOD, m->path, m->interface, m->member);
        return allow(j);
}

int policy_db_decide(const PolicyDb *db, const char *const *names, size_t n_names,
                     const char *label, const PolicyMessage *message,
                     PolicyHasToken has_token, void *userdata, PolicyDecision *ret) {
        PolicyDecision decision;
        Judge j = {
                .db = db, .label = label, .has_token = has_token,
                .userdata = userdata, .decision = &decision,
        };
        int r;

        if (!db || (!names && n_names > 0) || !label || !message || !message->path ||
            !message->member || !has_token || !ret)
                return -EINVAL;
        if (message->type == POLICY_MESSAGE_METHOD_CALL)
                r = decide_method_call(&j, names, n_names, message);
        else if (message->type == POLICY_MESSAGE_SIGNAL) {
                r = judge_names(&j, names, n_names, POLICY_KIND_SIGNAL, message->path,
                                message->interface, message->member);
                if (r == 0)
                        r = allow(&j);
        } else
                return -EINVAL;
        if (r < 0)
                return r;
        *ret = decision;
        return r;
}

int policy_db_may_own(const PolicyDb *db, const char *name, const char *label,
                      PolicyHasToken has_token, void *userdata, PolicyDecision *ret) {
        const DbName *entry;
        const char *token;
        uint32_t index;

        if (!db || !name || !label || !has_token || !ret)
                return -EINVAL;
        *ret = (PolicyDecision) { .label = label };
        index = db_find_name(db, name);
        if (index == POLICY_DB_NONE)
                return 0;
        entry = &db->names[index];
        if (db_range_contains(db, entry->owners, label))
                return 0;
        token = db_string(db, entry->own_token);
        if (token) {
                int r = has_token(label, token, userdata);

                if (r < 0)
                        return r;
                if (r > 0)
                        return 0;
        }
        *ret = (PolicyDecision) {
                .outcome = POLICY_DECIDE_E_OWN_REFUSED,
                .label = label,
                .name = db_string(db, entry->name),
                .token = token,
        };
        return POLICY_DECIDE_E_OWN_REFUSED;
}

int policy_db_property_requirement(const PolicyDb *db, const char *name, PolicyKind kind,
                                   const char *path, const char *interface,
                                   const char *property, PolicyRequirement *ret) {
        if (kind != POLICY_KIND_PROPERTY_READ && kind != POLICY_KIND_PROPERTY_WRITE)
                return -EINVAL;
        if (!property)
                return -EINVAL;
        if (interface && !interface[0])
                interface = NULL;
        return policy_db_lookup(db, name, kind, path, interface, property, ret);
}

int policy_db_check_property(const PolicyDb *db, const char *const *names, size_t n_names,
                             const char *label, PolicyKind kind, const char *path,
                             const char *interface, const char *property,
                             PolicyHasToken has_token, void *userdata, PolicyDecision *ret) {
        PolicyDecision decision;
        Judge j = {
                .db = db, .label = label, .has_token = has_token,
                .userdata = userdata, .decision = &decision,
        };
        int r;

        if (!db || (!names && n_names > 0) || !label || !path || !property || !has_token ||
            !ret || (kind != POLICY_KIND_PROPERTY_READ && kind != POLICY_KIND_PROPERTY_WRITE))
                return -EINVAL;
        if (interface && !interface[0])
                interface = NULL;
        r = judge_names(&j, names, n_names, kind, path, interface, property);
        if (r == 0 && j.declared && !j.covered)
                r = not_declared(&j, kind, path, interface, property);
        if (r == 0)
                r = allow(&j);
        if (r < 0)
                return r;
        *ret = decision;
        return r;
}

/* The default rule of (kind, path, interface) under one declared name: satisfied? */
static int judge_interface_default(Judge *j, uint32_t index, PolicyKind kind, const char *path,
                                   const char *interface) {
        const DbRule *rule = db_find_rule(j->db, index, kind, path, interface, NULL);

        return rule ? judge_tokens(j, rule, kind, path, interface, NULL) : 0;
}

int policy_db_check_interface(const PolicyDb *db, const char *const *names, size_t n_names,
                              const char *label, PolicyKind kind, const char *path,
                              const char *interface, PolicyHasToken has_token, void *userdata,
                              PolicyDecision *ret) {
        PolicyDecision decision;
        Judge j = {
                .db = db, .label = label, .has_token = has_token,
                .userdata = userdata, .decision = &decision,
        };
        int r = 0;

        if (!db || (!names && n_names > 0) || !label || !path || !has_token || !ret ||
            (kind != POLICY_KIND_PROPERTY_READ && kind != POLICY_KIND_PROPERTY_WRITE))
                return -EINVAL;
        if (interface && !interface[0])
                interface = NULL;
        for (size_t i = 0; r == 0 && i < n_names; i++) {
                uint32_t index;

                if (!names[i])
                        return -EINVAL;
                index = db_find_name(db, names[i]);
                if (index == POLICY_DB_NONE)
                        continue;
                if (!j.declared)
                        j.declared = db_string(db, db->names[index].name);
                if (db_has_interface_rules(db, index, kind, path, interface))
                        j.covered = true;
                r = judge_interface_default(&j, index, kind, path, interface);
        }
        if (r == 0 && j.declared && !j.covered)
                r = not_declared(&j, kind, path, interface, NULL);
        if (r == 0)
                r = allow(&j);
        if (r < 0)
                return r;
        *ret = decision;
        return r;
}

const char *policy_decide_outcome_to_string(int outcome) {
        switch (outcome) {
        case 0:
                return "allowed";
        case POLICY_DECIDE_E_MISSING_TOKEN:
                return "a required token is not held";
        case POLICY_DECIDE_E_NOT_DECLARED:
                return "the manifest does not declare this method";
        case POLICY_DECIDE_E_OWN_REFUSED:
                return "the manifest does not let this label own the name";
        case POLICY_DECIDE_E_BAD_MESSAGE:
                return "the property arguments could not be read";
        default:
                return NULL;
        }
}
