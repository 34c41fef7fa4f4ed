/*
 * Lookups in a loaded policy: hash probes and binary searches over data
 * that db-read.c validated, so nothing here checks an offset, allocates or
 * fails. Query strings come from messages the bus already validated, but
 * they are only hashed and compared, so any NUL-terminated string is safe.
 */
#include "db-internal.h"

#include <errno.h>

static bool nullable_equal(const char *stored, const char *query) {
        if (!stored || !query)
                return stored == query;
        return strcmp(stored, query) == 0;
}

uint32_t db_find_name(const PolicyDb *db, const char *name) {
        uint32_t mask = db->n_name_buckets - 1;

        for (uint32_t b = db_hash_name(name) & mask;; b = (b + 1) & mask) {
                uint32_t v = db_le(db->name_index[b]);

                if (v == POLICY_DB_EMPTY)
                        return POLICY_DB_NONE;
                if (strcmp(db_string(db, db->names[v].name), name) == 0)
                        return v;
        }
}

const DbRule *db_find_rule(const PolicyDb *db, uint32_t name_index, PolicyKind kind,
                           const char *path, const char *interface, const char *member) {
        uint32_t mask = db->n_rule_buckets - 1;
        uint32_t h = db_hash_rule(name_index, (uint32_t) kind, path, interface, member);

        for (uint32_t b = h & mask;; b = (b + 1) & mask) {
                uint32_t v = db_le(db->rule_index[b]);
                const DbRule *rule;

                if (v == POLICY_DB_EMPTY)
                        return NULL;
                rule = &db->rules[v];
                if (db_le(rule->name) == name_index && db_le(rule->kind) == (uint32_t) kind &&
                    strcmp(db_string(db, rule->path), path) == 0 &&
                    nullable_equal(db_string(db, rule->interface), interface) &&
                    nullable_equal(db_string(db, rule->member), member))
                        return rule;
        }
}

const DbRule *db_find_covering_rule(const PolicyDb *db, uint32_t name_index, PolicyKind kind,
                                    const char *path, const char *interface,
                                    const char *member) {
        const DbRule *rule = NULL;

        /* The member's own rule (or the union for it), else the default(s). */
        if (member)
                rule = db_find_rule(db, name_index, kind, path, interface, member);
        if (!rule)
                rule = db_find_rule(db, name_index, kind, path, interface, NULL);
        return rule;
}

/* (kind, path, interface) of rule against the key: <0, 0, >0, NULL interface first. */
static int compare_interface_key(const PolicyDb *db, const DbRule *rule, PolicyKind kind,
                                 const char *path, const char *interface) {
        const char *stored = db_string(db, rule->interface);
        int c;

        if (db_le(rule->kind) != (uint32_t) kind)
                return db_le(rule->kind) < (uint32_t) kind ? -1 : 1;
        if ((c = strcmp(db_string(db, rule->path), path)))
                return c;
        if (!stored || !interface)
                return (stored != NULL) - (interface != NULL);
        return strcmp(stored, interface);
}

bool db_has_interface_rules(const PolicyDb *db, uint32_t name_index, PolicyKind kind,
                            const char *path, const char *interface) {
        const DbName *name = &db->names[name_index];
        const DbRule *rules = db->rules + db_le(name->rules_first);
        uint32_t low = 0, high = db_le(name->rules_count);

        /* A name's rules are sorted by (kind, path, interface, member), as db-read.c checked. */
        while (low < high) {
                uint32_t mid = low + (high - low) / 2;

                if (compare_interface_key(db, &rules[mid], kind, path, interface) < 0)
                        low = mid + 1;
                else
                        high = mid;
        }
        return low < db_le(name->rules_count) &&
               compare_interface_key(db, &rules[low], kind, path, interface) == 0;
}

bool db_range_contains(const PolicyDb *db, DbRange range, const char *s) {
        uint32_t low = 0, high = db_le(range.count);

        while (low < high) {
                uint32_t mid = low + (high - low) / 2;
                int c = strcmp(db_ref_string(db, range, mid), s);

                if (c == 0)
                        return true;
                if (c < 0)
                        low = mid + 1;
                else
                        high = mid;
        }
        return false;
}

uint32_t db_find_package(const PolicyDb *db, const char *package) {
        uint32_t low = 0, high = db->n_packages;

        while (low < high) {
                uint32_t mid = low + (high - low) / 2;
                int c = strcmp(db_string(db, db->packages[mid].name), package);

                if (c == 0)
                        return mid;
                if (c < 0)
                        low = mid + 1;
                else
                        high = mid;
        }
        return POLICY_DB_NONE;
}

void db_requirement_from_rule(const PolicyDb *db, const DbRule *rule, PolicyRequirement *ret) {
        *ret = (PolicyRequirement) {
                .name = db_string(db, db->names[db_le(rule->name)].name),
                .path = db_string(db, rule->path),
                .interface = db_string(db, rule->interface),
                .member = db_string(db, rule->member),
                .n_tokens = db_le(rule->tokens.count),
                .token_refs = db->refs + db_le(rule->tokens.first),
                .strings = db->strings,
        };
}

const char *policy_requirement_token(const PolicyRequirement *req, size_t i) {
        if (!req || i >= req->n_tokens)
                return NULL;
        return req->strings + db_le(req->token_refs[i]);
}

bool policy_db_declares_name(const PolicyDb *db, const char *name) {
        return db && name && db_find_name(db, name) != POLICY_DB_NONE;
}

bool policy_db_is_global_token(const PolicyDb *db, const char *token) {
        return db && token && db_range_contains(db, db->header->global_tokens, token);
}

bool policy_db_is_provided_token(const PolicyDb *db, const char *token) {
        return db && token && db->knows_provided && db_range_contains(db, db->provided_tokens, token);
}

bool policy_db_knows_provided_tokens(const PolicyDb *db) {
        return db && db->knows_provided;
}

bool policy_db_knows_declarers(const PolicyDb *db) {
        return db && db->declarers;
}

int policy_db_name_declarer(const PolicyDb *db, const char *name, const char **ret_package) {
        uint32_t index, package;

        if (!db || !name || !ret_package)
                return -EINVAL;
        index = db_find_name(db, name);
        if (index == POLICY_DB_NONE)
                return POLICY_DB_UNDECLARED;
        package = db->declarers ? db_le(db->declarers[index]) : POLICY_DB_NONE;
        *ret_package = package == POLICY_DB_NONE ? NULL : db_string(db, db->packages[package].name);
        return 0;
}

bool policy_db_package_serves_token(const PolicyDb *db, const char *package, const char *token) {
        uint32_t index;

        if (!db || !package || !token)
                return false;
        index = db_find_package(db, package);
        return index != POLICY_DB_NONE && db_range_contains(db, db->packages[index].tokens, token);
}

bool policy_db_is_monitor_label(const PolicyDb *db, const char *label) {
        return db && label && db_range_contains(db, db->header->monitor_labels, label);
}

bool policy_db_is_checkany_label(const PolicyDb *db, const char *label) {
        return db && label && db->knows_checkany && db_range_contains(db, db->checkany_labels, label);
}

int policy_db_lookup(const PolicyDb *db, const char *name, PolicyKind kind, const char *path,
                     const char *interface, const char *member, PolicyRequirement *ret) {
        const DbRule *rule;
        uint32_t index;

        if (!db || !name || !path || !ret || (unsigned) kind >= _POLICY_KIND_MAX)
                return -EINVAL;
        index = db_find_name(db, name);
        if (index == POLICY_DB_NONE)
                return POLICY_DB_UNDECLARED;
        rule = db_find_covering_rule(db, index, kind, path, interface, member);
        if (!rule)
                return POLICY_DB_UNCOVERED;
        db_requirement_from_rule(db, rule, ret);
        return 0;
}

int policy_db_lookup_interface(const PolicyDb *db, const char *name, PolicyKind kind,
                               const char *path, const char *interface) {
        uint32_t index;

        if (!db || !name || !path || (unsigned) kind >= _POLICY_KIND_MAX)
                return -EINVAL;
        index = db_find_name(db, name);
        if (index == POLICY_DB_NONE)
                return POLICY_DB_UNDECLARED;
        return db_has_interface_rules(db, index, kind, path, interface) ? 0 : POLICY_DB_UNCOVERED;
}

const char *policy_kind_to_string(PolicyKind kind) {
        static const char *const table[_POLICY_KIND_MAX] = {
                [POLICY_KIND_METHOD] = "method",
                [POLICY_KIND_SIGNAL] = "signal",
                [POLICY_KIND_PROPERTY_READ] = "property-read",
                [POLICY_KIND_PROPERTY_WRITE] = "property-write",
        };

        return (unsigned) kind < _POLICY_KIND_MAX ? table[kind] : NULL;
}
