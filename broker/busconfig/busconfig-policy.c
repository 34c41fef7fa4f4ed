/*
 * busconfig-policy: the <policy> elements of the bus configuration,
 * compiled once per (re)load into lists per context, and turned into one
 * indexed rule set per connection identity (busconfig-client.c).
 *
 * Semantics are dbus-daemon's (bus/policy.c and config-parser.c of dbus
 * 1.14), because every system.d file a distribution ships was written for
 * them:
 * - contexts apply in the order default, each group of the connection,
 *   its user, at_console true/false, mandatory; within the combined list
 *   the last matching rule wins, and no match denies;
 * - user= and group= contexts naming an unknown user or group are skipped
 *   with a warning, as are allow/deny user= and group= rules naming one;
 * - connecting is decided by the user= and group= rules of the default
 *   and mandatory contexts only, starting from "the bus's own user may".
 *
 * Trust: the BusConfig was validated by the config parser; NSS answers
 * are taken as the system's truth at load time (as dbus-daemon does, a
 * user created later needs a reload). The compiled policy is immutable:
 * a reload builds a new one and swaps it in, so each message is judged
 * wholly by one policy.
 */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busconfig-internal.h"
#include "config.h"

/* Bounds, so that an odd configuration cannot make every connect expensive. */
#define BC_MAX_GIDS 65536
#define BC_NAME_BUF 1024

static int rule_set_add(BcRuleSet *set, const BusPolicyRule *rule, const char *context, uint32_t id) {
        if (set->n_refs == set->cap) {
                size_t cap = set->cap ? set->cap * 2 : 16;
                BcRuleRef *refs = reallocarray(set->refs, cap, sizeof(*refs));
                if (!refs)
                        return -ENOMEM;
                set->refs = refs;
                set->cap = cap;
        }
        set->refs[set->n_refs++] = (BcRuleRef){ rule, context, id };
        return 0;
}

static void rule_set_deinit(BcRuleSet *set) {
        free(set->refs);
        *set = (BcRuleSet){ 0 };
}

_printf_(5, 6) static int warn(char ***warnings, size_t *n, const char *file, unsigned line,
                               const char *fmt, ...) {
        va_list ap;
        char *msg = NULL, *text = NULL;
        va_start(ap, fmt);
        int r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        r = asprintf(&text, "%s:%u: %s", file ? file : "?", line, msg);
        free(msg);
        if (r < 0)
                return -ENOMEM;
        char **grown = reallocarray(*warnings, *n + 2, sizeof(char *));
        if (!grown) {
                free(text);
                return -ENOMEM;
        }
        grown[(*n)++] = text;
        grown[*n] = NULL;
        *warnings = grown;
        return 0;
}

char **busconfig_warnings_free(char **warnings) {
        if (warnings)
                for (char **w = warnings; *w; w++)
                        free(*w);
        free(warnings);
        return NULL;
}

/* A decimal id, as dbus-daemon accepts in place of a name. */
static bool parse_id(const char *s, uint32_t *ret) {
        if (!s || !*s)
                return false;
        uint64_t v = 0;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return false;
                v = v * 10 + (uint64_t)(*p - '0');
                if (v >= UINT32_MAX)
                        return false;
        }
        *ret = (uint32_t)v;
        return true;
}

static bool resolve_user(const char *name, uint32_t *ret) {
        if (parse_id(name, ret))
                return true;
        char buf[BC_NAME_BUF * 16];
        struct passwd pw, *result = NULL;
        if (getpwnam_r(name, &pw, buf, sizeof(buf), &result) != 0 || !result)
                return false;
        *ret = result->pw_uid;
        return true;
}

static bool resolve_group(const char *name, uint32_t *ret) {
        if (parse_id(name, ret))
                return true;
        char buf[BC_NAME_BUF * 64];
        struct group gr, *result = NULL;
        if (getgrnam_r(name, &gr, buf, sizeof(buf), &result) != 0 || !result)
                return false;
        *ret = result->gr_gid;
        return true;
}

static BcRuleSet *id_rules_get(BcIdRules **arr, size_t *n, uint32_t id) {
        for (size_t i = 0; i < *n; i++)
                if ((*arr)[i].id == id)
                        return &(*arr)[i].set;
        BcIdRules *grown = reallocarray(*arr, *n + 1, sizeof(**arr));
        if (!grown)
                return NULL;
        *arr = grown;
        grown[*n] = (BcIdRules){ .id = id };
        return &grown[(*n)++].set;
}

static int cmp_id_rules(const void *a, const void *b) {
        const BcIdRules *x = a, *y = b;
        return x->id < y->id ? -1 : x->id > y->id;
}

static const BcRuleSet *id_rules_find(const BcIdRules *arr, size_t n, uint32_t id) {
        BcIdRules key = { .id = id };
        if (n == 0)
                return NULL;
        const BcIdRules *hit = bsearch(&key, arr, n, sizeof(*arr), cmp_id_rules);
        return hit ? &hit->set : NULL;
}

static int context_label(const BusPolicy *p, char **ret) {
        int r;
        switch (p->context) {
        case BUS_POLICY_DEFAULT:
                r = asprintf(ret, "context=\"default\" (%s:%u)", p->file, p->line);
                break;
        case BUS_POLICY_MANDATORY:
                r = asprintf(ret, "context=\"mandatory\" (%s:%u)", p->file, p->line);
                break;
        case BUS_POLICY_USER:
                r = asprintf(ret, "user=\"%s\" (%s:%u)", p->principal ? p->principal : "*", p->file, p->line);
                break;
        case BUS_POLICY_GROUP:
                r = asprintf(ret, "group=\"%s\" (%s:%u)", p->principal ? p->principal : "*", p->file, p->line);
                break;
        default:
                r = asprintf(ret, "at_console=\"%s\" (%s:%u)", p->at_console ? "true" : "false", p->file,
                             p->line);
                break;
        }
        return r < 0 ? -ENOMEM : 0;
}

/*
 * An allow/deny user= or group= rule naming nobody we know: dbus-daemon
 * warns and drops the rule. *ret_keep says whether to keep it, *ret_id is
 * the uid or gid it names (unused for "*" and other kinds).
 */
static int check_principal_rule(const BusPolicyRule *rule, char ***warnings, size_t *n_warnings,
                                bool *ret_keep, uint32_t *ret_id) {
        uint32_t id = 0;
        *ret_keep = true;
        *ret_id = 0;
        if (rule->kind == BUS_RULE_USER && rule->principal && !resolve_user(rule->principal, &id)) {
                *ret_keep = false;
                return warn(warnings, n_warnings, rule->file, rule->line,
                            "Unknown username \"%s\" on element <allow>/<deny>: rule skipped",
                            rule->principal);
        }
        if (rule->kind == BUS_RULE_GROUP && rule->principal && !resolve_group(rule->principal, &id)) {
                *ret_keep = false;
                return warn(warnings, n_warnings, rule->file, rule->line,
                            "Unknown group \"%s\" on element <allow>/<deny>: rule skipped",
                            rule->principal);
        }
        *ret_id = id;
        return 0;
}

/* Which list a <policy> element's rules go to; NULL: skipped (warned). */
static int policy_target(BusconfigPolicy *policy, const BusPolicy *p, char ***warnings,
                         size_t *n_warnings, BcRuleSet **ret) {
        uint32_t id;
        *ret = NULL;
        switch (p->context) {
        case BUS_POLICY_DEFAULT:
                *ret = &policy->default_rules;
                return 0;
        case BUS_POLICY_MANDATORY:
                *ret = &policy->mandatory_rules;
                return 0;
        case BUS_POLICY_AT_CONSOLE:
                *ret = p->at_console ? &policy->console_true : &policy->console_false;
                return 0;
        case BUS_POLICY_USER:
                if (!p->principal || !resolve_user(p->principal, &id))
                        return warn(warnings, n_warnings, p->file, p->line,
                                    "Unknown username \"%s\" in message bus configuration file: policy skipped",
                                    p->principal ? p->principal : "*");
                *ret = id_rules_get(&policy->by_uid, &policy->n_by_uid, id);
                return *ret ? 0 : -ENOMEM;
        case BUS_POLICY_GROUP:
                if (!p->principal || !resolve_group(p->principal, &id))
                        return warn(warnings, n_warnings, p->file, p->line,
                                    "Unknown group \"%s\" in message bus configuration file: policy skipped",
                                    p->principal ? p->principal : "*");
                *ret = id_rules_get(&policy->by_gid, &policy->n_by_gid, id);
                return *ret ? 0 : -ENOMEM;
        }
        return -EINVAL;
}

static int compile_policy_element(BusconfigPolicy *policy, const BusPolicy *p, char ***warnings,
                                  size_t *n_warnings) {
        BcRuleSet *target;
        int r = policy_target(policy, p, warnings, n_warnings, &target);
        if (r < 0 || !target)
                return r;
        char *label;
        r = context_label(p, &label);
        if (r < 0)
                return r;
        policy->contexts[policy->n_contexts++] = label;
        for (size_t i = 0; i < p->n_rules; i++) {
                bool keep;
                uint32_t id;
                r = check_principal_rule(&p->rules[i], warnings, n_warnings, &keep, &id);
                if (r < 0)
                        return r;
                if (keep && (r = rule_set_add(target, &p->rules[i], label, id)) < 0)
                        return r;
        }
        return 0;
}

static bool set_names_a_group(const BcRuleSet *set) {
        for (size_t i = 0; i < set->n_refs; i++)
                if (set->refs[i].rule->kind == BUS_RULE_GROUP && set->refs[i].rule->principal)
                        return true;
        return false;
}

int busconfig_policy_new(const BusConfig *config, uid_t bus_uid, BusconfigPolicy **ret,
                         char ***ret_warnings) {
        _cleanup_(busconfig_policy_unrefp) BusconfigPolicy *policy = calloc(1, sizeof(*policy));
        char **warnings = NULL;
        size_t n_warnings = 0;
        if (!policy)
                return -ENOMEM;
        policy->refcount = 1;
        policy->bus_uid = bus_uid;
        strmap_init(&policy->clients);
        policy->contexts = calloc(config->n_policies + 1, sizeof(char *));
        if (!policy->contexts)
                return -ENOMEM;
        int r = 0;
        for (size_t i = 0; i < config->n_policies && r >= 0; i++)
                r = compile_policy_element(policy, &config->policies[i], &warnings, &n_warnings);
        if (r < 0) {
                busconfig_warnings_free(warnings);
                return r;
        }
        if (policy->n_by_uid > 0)
                qsort(policy->by_uid, policy->n_by_uid, sizeof(BcIdRules), cmp_id_rules);
        if (policy->n_by_gid > 0)
                qsort(policy->by_gid, policy->n_by_gid, sizeof(BcIdRules), cmp_id_rules);
        /* Asked at every connect: whether NSS's groups are needed at all. */
        policy->connect_uses_groups = set_names_a_group(&policy->default_rules) ||
                                      set_names_a_group(&policy->mandatory_rules);
        if (ret_warnings)
                *ret_warnings = warnings;
        else
                busconfig_warnings_free(warnings);
        *ret = TAKE_PTR(policy);
        return 0;
}

BusconfigPolicy *busconfig_policy_ref(BusconfigPolicy *policy) {
        if (policy)
                policy->refcount++;
        return policy;
}

BusconfigPolicy *busconfig_policy_unref(BusconfigPolicy *policy) {
        if (!policy || --policy->refcount > 0)
                return NULL;
        rule_set_deinit(&policy->default_rules);
        rule_set_deinit(&policy->mandatory_rules);
        rule_set_deinit(&policy->console_true);
        rule_set_deinit(&policy->console_false);
        for (size_t i = 0; i < policy->n_by_uid; i++)
                rule_set_deinit(&policy->by_uid[i].set);
        for (size_t i = 0; i < policy->n_by_gid; i++)
                rule_set_deinit(&policy->by_gid[i].set);
        free(policy->by_uid);
        free(policy->by_gid);
        for (size_t i = 0; i < policy->n_contexts; i++)
                free(policy->contexts[i]);
        free(policy->contexts);
        /* Clients hold a reference, so none can be left here. */
        strmap_deinit(&policy->clients);
        free(policy);
        return NULL;
}

static bool has_gid(const BusconfigIdentity *identity, uint32_t gid) {
        for (size_t i = 0; i < identity->n_gids; i++)
                if (identity->gids[i] == gid)
                        return true;
        return false;
}

/* The user= and group= rules of one list, last match wins. */
static void connect_rules(const BcRuleSet *set, const BusconfigIdentity *identity,
                          BusconfigVerdict *verdict) {
        for (size_t i = 0; i < set->n_refs; i++) {
                const BusPolicyRule *rule = set->refs[i].rule;
                uint32_t id = set->refs[i].id;
                if (rule->kind == BUS_RULE_USER) {
                        if (rule->principal && id != identity->uid)
                                continue;
                } else if (rule->kind == BUS_RULE_GROUP) {
                        if (rule->principal && !has_gid(identity, id))
                                continue;
                } else
                        continue;
                verdict->allow = rule->allow;
                verdict->rule = rule;
                verdict->context = set->refs[i].context;
        }
}

bool busconfig_policy_connect_uses_groups(const BusconfigPolicy *policy) {
        return policy && policy->connect_uses_groups;
}

void busconfig_policy_check_connect(const BusconfigPolicy *policy, const BusconfigIdentity *identity,
                                    BusconfigVerdict *ret) {
        *ret = (BusconfigVerdict){
                .allow = identity->uid == policy->bus_uid,
                .check = BUSCONFIG_CHECK_CONNECT,
        };
        connect_rules(&policy->default_rules, identity, ret);
        connect_rules(&policy->mandatory_rules, identity, ret);
}

static int cmp_gid(const void *a, const void *b) {
        gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;
        return x < y ? -1 : x > y;
}

/*
 * "uid/console/gid,gid,..." with the gids that have rules, sorted: two
 * identities with the same key get the same rules.
 */
static int identity_key(const BusconfigPolicy *policy, const BusconfigIdentity *identity,
                        gid_t *ruled, size_t *n_ruled, char **ret) {
        *n_ruled = 0;
        for (size_t i = 0; i < identity->n_gids; i++)
                if (id_rules_find(policy->by_gid, policy->n_by_gid, identity->gids[i]))
                        ruled[(*n_ruled)++] = identity->gids[i];
        qsort(ruled, *n_ruled, sizeof(gid_t), cmp_gid);
        size_t size = 48 + *n_ruled * 11;
        char *key = malloc(size);
        if (!key)
                return -ENOMEM;
        size_t off = (size_t)snprintf(key, size, "%" PRIu32 "/%d/", (uint32_t)identity->uid,
                                      identity->at_console);
        for (size_t i = 0; i < *n_ruled; i++)
                off += (size_t)snprintf(key + off, size - off, "%" PRIu32 ",", (uint32_t)ruled[i]);
        *ret = key;
        return 0;
}

/*
 * dbus-daemon adds each group's rules in the order of the connection's
 * group list; we add them in ascending gid order so that identities
 * differing only in that order share a client. The two agree unless two
 * group contexts a user belongs to contradict each other, which dbus-daemon
 * leaves to the order the kernel reports groups in anyway.
 */
static int collect_sets(const BusconfigPolicy *policy, const BusconfigIdentity *identity,
                        const gid_t *ruled, size_t n_ruled, const BcRuleSet **sets, size_t *n_sets) {
        *n_sets = 0;
        sets[(*n_sets)++] = &policy->default_rules;
        for (size_t i = 0; i < n_ruled; i++) {
                if (i > 0 && ruled[i] == ruled[i - 1])
                        continue;
                sets[(*n_sets)++] = id_rules_find(policy->by_gid, policy->n_by_gid, ruled[i]);
        }
        const BcRuleSet *user = id_rules_find(policy->by_uid, policy->n_by_uid, identity->uid);
        if (user)
                sets[(*n_sets)++] = user;
        sets[(*n_sets)++] = identity->at_console ? &policy->console_true : &policy->console_false;
        sets[(*n_sets)++] = &policy->mandatory_rules;
        return 0;
}

int busconfig_policy_get_client(BusconfigPolicy *policy, const BusconfigIdentity *identity,
                                BusconfigClient **ret) {
        if (identity->n_gids > BC_MAX_GIDS)
                return -E2BIG;
        _cleanup_free_ gid_t *ruled = calloc(identity->n_gids + 1, sizeof(gid_t));
        _cleanup_free_ const BcRuleSet **sets = calloc(identity->n_gids + 4, sizeof(*sets));
        _cleanup_free_ char *key = NULL;
        size_t n_ruled, n_sets;
        if (!ruled || !sets)
                return -ENOMEM;
        int r = identity_key(policy, identity, ruled, &n_ruled, &key);
        if (r < 0)
                return r;
        BusconfigClient *shared = strmap_get(&policy->clients, key);
        if (shared) {
                *ret = busconfig_client_ref(shared);
                return 0;
        }
        collect_sets(policy, identity, ruled, n_ruled, sets, &n_sets);
        _cleanup_(busconfig_client_unrefp) BusconfigClient *client = calloc(1, sizeof(*client));
        if (!client)
                return -ENOMEM;
        client->refcount = 1;
        client->policy = busconfig_policy_ref(policy);
        r = bc_client_build(client, sets, n_sets);
        if (r < 0)
                return r;
        r = strmap_put(&policy->clients, key, client);
        if (r < 0)
                return r;
        client->key = TAKE_PTR(key);
        *ret = TAKE_PTR(client);
        return 0;
}

BusconfigClient *busconfig_client_ref(BusconfigClient *client) {
        if (client)
                client->refcount++;
        return client;
}

BusconfigClient *busconfig_client_unref(BusconfigClient *client) {
        if (!client || --client->refcount > 0)
                return NULL;
        if (client->key)
                strmap_remove(&client->policy->clients, client->key);
        bc_client_deinit(client);
        free(client->key);
        busconfig_policy_unref(client->policy);
        free(client);
        return NULL;
}

bool busconfig_policy_uses_console(const BusconfigPolicy *policy) {
        return policy && (policy->console_true.n_refs > 0 || policy->console_false.n_refs > 0);
}

/*
 * With logind, the question is libsystemd's sd_uid_get_seats() (logind's
 * state files are its own business), loaded only here: a bus whose
 * policy has no at_console rule never asks, and never maps libsystemd
 * (broker/io/service-env.c says what that saves). Without it a user is
 * not at the console: at_console="true" rules grant, so unknown grants
 * nothing.
 */
static int (*busconfig_sd_uid_get_seats(void))(uid_t, int, char ***) {
        static int (*fn)(uid_t, int, char ***);
        static bool tried;
        void *library;

        if (tried)
                return fn;
        tried = true;
        library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
        if (library)
                fn = (int (*)(uid_t, int, char ***)) dlsym(library, "sd_uid_get_seats");
        return fn;
}

bool busconfig_user_at_console(uid_t uid) {
        if (access("/run/systemd/seats/", F_OK) >= 0) {
                int (*get_seats)(uid_t, int, char ***) = busconfig_sd_uid_get_seats();

                return get_seats && get_seats(uid, 0, NULL) > 0;
        }
        char buf[BC_NAME_BUF * 16];
        struct passwd pw, *result = NULL;
        if (getpwuid_r(uid, &pw, buf, sizeof(buf), &result) != 0 || !result)
                return false;
        char path[BC_NAME_BUF];
        int n = snprintf(path, sizeof(path), "/var/run/console/%s", result->pw_name);
        if (n < 0 || (size_t)n >= sizeof(path))
                return false;
        return access(path, F_OK) >= 0;
}
