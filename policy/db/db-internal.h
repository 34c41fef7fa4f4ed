/* The loaded policy's in-memory view, shared by db-read.c, decide.c and dump.c. */
#pragma once

#include <string.h>

#include "db-read.h"
#include "format.h"

/*
 * Everything here points into data, which db-read.c validated completely:
 * every reference resolves, every range fits, every index finds what it
 * must. Code using these helpers relies on that and does no checks.
 */
struct PolicyDb {
        uint8_t *data;                  /* (owned) the whole file, aligned */
        size_t size;
        const DbHeader *header;
        const char *strings;
        uint32_t strings_size;
        const DbName *names;
        uint32_t n_names;
        const uint32_t *name_index;
        uint32_t n_name_buckets;
        const DbRule *rules;
        uint32_t n_rules;
        const uint32_t *rule_index;
        uint32_t n_rule_buckets;
        const uint32_t *refs;
        uint32_t n_refs;
        DbRange provided_tokens;        /* (little-endian) empty in version 1 */
        bool knows_provided;            /* version 2 or later: the range above is the file's */
        const DbPackage *packages;      /* none before version 3 */
        uint32_t n_packages;
        const uint32_t *declarers;      /* per name: its package's index or NONE; NULL before version 3 */
        DbRange checkany_labels;        /* (little-endian) empty before version 4 */
        bool knows_checkany;            /* version 4 or later: the range above is the file's */
};

/* The string a validated reference names, NULL for POLICY_DB_NONE. */
static inline const char *db_string(const PolicyDb *db, uint32_t ref) {
        ref = db_le(ref);
        return ref == POLICY_DB_NONE ? NULL : db->strings + ref;
}

static inline const char *db_ref_string(const PolicyDb *db, DbRange range, uint32_t i) {
        return db_string(db, db->refs[db_le(range.first) + i]);
}

/* The index of the declared bus name, or POLICY_DB_NONE. */
uint32_t db_find_name(const PolicyDb *db, const char *name);
/* The rule with exactly this key (NULL interface/member: NONE), or NULL. */
const DbRule *db_find_rule(const PolicyDb *db, uint32_t name_index, PolicyKind kind,
                           const char *path, const char *interface, const char *member);
/* The ladder of policy_db_lookup(): member rule, else default; or NULL. */
const DbRule *db_find_covering_rule(const PolicyDb *db, uint32_t name_index, PolicyKind kind,
                                    const char *path, const char *interface,
                                    const char *member);
/*
 * Whether the name has any rule of kind at (path, interface): a member's,
 * the interface default, or (interface NULL) a union. Binary search.
 */
bool db_has_interface_rules(const PolicyDb *db, uint32_t name_index, PolicyKind kind,
                            const char *path, const char *interface);
/* The index of the package with this label, or POLICY_DB_NONE (binary search). */
uint32_t db_find_package(const PolicyDb *db, const char *package);
/* Whether a sorted range of labels holds s (binary search). */
bool db_range_contains(const PolicyDb *db, DbRange range, const char *s);
/* A requirement describing rule. */
void db_requirement_from_rule(const PolicyDb *db, const DbRule *rule, PolicyRequirement *ret);
