/*
 * The policy file writer's core: declarations in, a file image out.
 *
 * Input is interned into a string pool and kept as raw records. Building
 * ranks every string by strcmp() order and then works on ranks only, so
 * that every sort is a sort of integers and the output depends on the set
 * of declarations, not their order. Derived data, computed here so the
 * reader never has to: merged duplicate rules (tokens united), and for
 * each (name, kind, path) the rules without interface: per member, the
 * union of that member's tokens over all interfaces plus every interface
 * default there; for signals and properties, the union of the
 * defaults alone; and per package, every token it provides or its names'
 * rules and own tokens need. Everything written
 * is what db-read.c demands, in the order it checks; the builder validates
 * its input with the same predicates, so a built image always loads.
 */
#include "builder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "db-names.h"
#include "builder-internal.h"
#include "format.h"
#include "token-name.h"

int builder_grow(void **array, size_t *cap, size_t n, size_t size) {
        size_t new_cap;
        void *p;

        if (n < *cap)
                return 0;
        new_cap = *cap ? *cap * 2 : 16;
        p = reallocarray(*array, new_cap, size);
        if (!p)
                return -ENOMEM;
        *array = p;
        *cap = new_cap;
        return 0;
}

static int pool_rehash(StrPool *pool, uint32_t n_buckets) {
        uint32_t *buckets = malloc(n_buckets * sizeof(uint32_t));
        uint32_t mask = n_buckets - 1;

        if (!buckets)
                return -ENOMEM;
        memset(buckets, 0xff, n_buckets * sizeof(uint32_t));
        for (size_t i = 0; i < pool->n; i++) {
                uint32_t b = db_hash_name(pool->strings[i]) & mask;

                while (buckets[b] != NONE)
                        b = (b + 1) & mask;
                buckets[b] = (uint32_t) i;
        }
        free(pool->buckets);
        pool->buckets = buckets;
        pool->n_buckets = n_buckets;
        return 0;
}

/* The id of s if the pool holds it, else NONE. */
static uint32_t pool_find(const StrPool *pool, const char *s) {
        uint32_t mask = pool->n_buckets - 1;

        if (pool->n_buckets == 0)
                return NONE;
        for (uint32_t b = db_hash_name(s) & mask; pool->buckets[b] != NONE; b = (b + 1) & mask)
                if (strcmp(pool->strings[pool->buckets[b]], s) == 0)
                        return pool->buckets[b];
        return NONE;
}

static int pool_intern(StrPool *pool, const char *s, uint32_t *ret) {
        uint32_t b, mask;
        size_t cap;
        int r;

        if (pool->n >= POLICY_DB_SIZE_MAX / 2)
                return POLICY_BUILDER_E_TOO_LARGE;
        if (2 * (pool->n + 1) > pool->n_buckets) {
                r = pool_rehash(pool, pool->n_buckets ? 2 * pool->n_buckets : 64);
                if (r < 0)
                        return r;
        }
        mask = pool->n_buckets - 1;
        for (b = db_hash_name(s) & mask; pool->buckets[b] != NONE; b = (b + 1) & mask)
                if (strcmp(pool->strings[pool->buckets[b]], s) == 0) {
                        *ret = pool->buckets[b];
                        return 0;
                }
        cap = pool->cap;
        r = builder_grow((void **) &pool->strings, &cap, pool->n, sizeof(char *));
        if (r == 0) {
                size_t cap_checked = pool->cap;

                r = builder_grow((void **) &pool->checked, &cap_checked, pool->n,
                                 sizeof(uint8_t));
        }
        if (r == 0)
                r = builder_grow((void **) &pool->name_handle, &pool->cap, pool->n,
                                 sizeof(uint32_t));
        if (r < 0)
                return r;
        pool->cap = cap;
        pool->strings[pool->n] = strdup(s);
        if (!pool->strings[pool->n])
                return -ENOMEM;
        pool->name_handle[pool->n] = NONE;
        pool->checked[pool->n] = 0;
        pool->buckets[b] = (uint32_t) pool->n;
        *ret = (uint32_t) pool->n++;
        return 0;
}

int policy_builder_new(PolicyBuilder **ret) {
        PolicyBuilder *builder;

        if (!ret)
                return -EINVAL;
        builder = calloc(1, sizeof(*builder));
        if (!builder)
                return -ENOMEM;
        *ret = builder;
        return 0;
}

PolicyBuilder *policy_builder_free(PolicyBuilder *builder) {
        if (!builder)
                return NULL;
        for (size_t i = 0; i < builder->pool.n; i++)
                free(builder->pool.strings[i]);
        free(builder->pool.strings);
        free(builder->pool.name_handle);
        free(builder->pool.checked);
        free(builder->pool.buckets);
        free(builder->names);
        free(builder->owners);
        free(builder->rules);
        free(builder->globals);
        free(builder->monitors);
        free(builder->checkanys);
        free(builder->provided);
        free(builder);
        return NULL;
}

/* What a pooled string was checked as: one bit per validity check. */
enum {
        BUILDER_CHECKED_BUS_NAME = 1 << 0,
        BUILDER_CHECKED_LABEL = 1 << 1,
        BUILDER_CHECKED_OBJECT_PATH = 1 << 2,
        BUILDER_CHECKED_INTERFACE = 1 << 3,
        BUILDER_CHECKED_MEMBER = 1 << 4,
        BUILDER_CHECKED_PACKAGE = 1 << 5,
};

/*
 * Interns s if valid(s) (NULL stays NONE when nullable). A device's
 * manifests name the same paths, interfaces and tokens in rule after
 * rule: a string already pooled and checked as this kind is not checked
 * again (the checks were 3.4% of compiling 1,000 manifests). An invalid
 * string is never pooled, so it never reaches the string table.
 */
static int intern_valid(PolicyBuilder *builder, const char *s, bool nullable,
                        bool (*valid)(const char *), unsigned checked, uint32_t *ret) {
        StrPool *pool = &builder->pool;
        uint32_t id;
        int r;

        if (!s) {
                if (!nullable)
                        return -EINVAL;
                *ret = NONE;
                return 0;
        }
        id = pool_find(pool, s);
        if (id != NONE && (pool->checked[id] & checked)) {
                *ret = id;
                return 0;
        }
        if (!valid(s))
                return POLICY_BUILDER_E_INVALID;
        if (id == NONE) {
                r = pool_intern(pool, s, &id);
                if (r != 0)
                        return r;
        }
        pool->checked[id] |= (uint8_t) checked;
        *ret = id;
        return 0;
}

int policy_builder_add_name(PolicyBuilder *builder, const char *name, uint32_t *ret_handle) {
        uint32_t id, handle;
        int r;

        if (!builder || !ret_handle)
                return -EINVAL;
        r = intern_valid(builder, name, false, db_name_is_bus_name, BUILDER_CHECKED_BUS_NAME,
                         &id);
        if (r != 0)
                return r;
        handle = builder->pool.name_handle[id];
        if (handle == NONE) {
                handle = (uint32_t) builder->n_names;
                r = VEC_PUSH(builder->names, builder->n_names, builder->cap_names,
                             ((BuildName) { .name = id, .own_token = NONE, .package = NONE }));
                if (r < 0)
                        return r;
                builder->pool.name_handle[id] = handle;
        }
        *ret_handle = handle;
        return 0;
}

int policy_builder_add_owner(PolicyBuilder *builder, uint32_t name, const char *label) {
        uint32_t id;
        int r;

        if (!builder || name >= builder->n_names)
                return -EINVAL;
        r = intern_valid(builder, label, false, db_name_is_label, BUILDER_CHECKED_LABEL, &id);
        if (r != 0)
                return r;
        return VEC_PUSH(builder->owners, builder->n_owners, builder->cap_owners,
                        ((BuildOwner) { .name = name, .label = id }));
}

int policy_builder_set_own_token(PolicyBuilder *builder, uint32_t name, const char *token) {
        uint32_t id;
        int r;

        if (!builder || name >= builder->n_names)
                return -EINVAL;
        r = intern_valid(builder, token, false, db_name_is_label, BUILDER_CHECKED_LABEL, &id);
        if (r != 0)
                return r;
        if (builder->names[name].own_token != NONE && builder->names[name].own_token != id)
                return POLICY_BUILDER_E_CONFLICT;
        builder->names[name].own_token = id;
        return 0;
}

int policy_builder_set_declarer(PolicyBuilder *builder, uint32_t name, const char *package) {
        uint32_t id;
        int r;

        if (!builder || name >= builder->n_names)
                return -EINVAL;
        /* A package label never holds "::", so it cannot pass for a token: checked apart from labels. */
        r = intern_valid(builder, package, false, db_name_is_package_label, BUILDER_CHECKED_PACKAGE,
                         &id);
        if (r != 0)
                return r;
        if (builder->names[name].package != NONE && builder->names[name].package != id)
                return POLICY_BUILDER_E_CONFLICT;
        builder->names[name].package = id;
        return 0;
}

int policy_builder_add_rule(PolicyBuilder *builder, uint32_t name, PolicyKind kind,
                            const char *path, const char *interface, const char *member,
                            const char *token) {
        BuildRule rule = { .name = name, .kind = (uint32_t) kind };
        int r;

        if (!builder || name >= builder->n_names || (unsigned) kind >= _POLICY_KIND_MAX)
                return -EINVAL;
        if ((r = intern_valid(builder, path, false, db_name_is_object_path,
                              BUILDER_CHECKED_OBJECT_PATH, &rule.path)) ||
            (r = intern_valid(builder, interface, false, db_name_is_interface,
                              BUILDER_CHECKED_INTERFACE, &rule.interface)) ||
            (r = intern_valid(builder, member, true, db_name_is_member, BUILDER_CHECKED_MEMBER,
                              &rule.member)) ||
            (r = intern_valid(builder, token, true, db_name_is_label, BUILDER_CHECKED_LABEL,
                              &rule.token)))
                return r;
        return VEC_PUSH(builder->rules, builder->n_rules, builder->cap_rules, rule);
}

int policy_builder_add_global_token(PolicyBuilder *builder, const char *token) {
        uint32_t id;
        int r;

        if (!builder)
                return -EINVAL;
        r = intern_valid(builder, token, false, db_name_is_label, BUILDER_CHECKED_LABEL, &id);
        if (r != 0)
                return r;
        return VEC_PUSH(builder->globals, builder->n_globals, builder->cap_globals, id);
}

int policy_builder_add_provided_token(PolicyBuilder *builder, const char *token) {
        char package[POLICY_TOKEN_LABEL_SIZE];
        BuildProvided provided;
        const char *sep;
        int r;

        if (!builder || !token)
                return -EINVAL;
        /* Checked whole before anything is pooled: a refused token leaves no string behind. */
        sep = strstr(token, "::");
        if (!db_name_is_label(token) || !sep || sep[2] == '\0' || strstr(sep + 2, "::"))
                return POLICY_BUILDER_E_INVALID;
        /* A valid label is at most 255 bytes, so its package part fits. */
        memcpy(package, token, (size_t) (sep - token));
        package[sep - token] = '\0';
        if (!db_name_is_package_label(package))
                return POLICY_BUILDER_E_INVALID;
        if ((r = intern_valid(builder, token, false, db_name_is_label, BUILDER_CHECKED_LABEL,
                              &provided.token)) ||
            (r = intern_valid(builder, package, false, db_name_is_package_label,
                              BUILDER_CHECKED_PACKAGE, &provided.package)))
                return r;
        return VEC_PUSH(builder->provided, builder->n_provided, builder->cap_provided, provided);
}

int policy_builder_add_monitor_label(PolicyBuilder *builder, const char *label) {
        uint32_t id;
        int r;

        if (!builder)
                return -EINVAL;
        r = intern_valid(builder, label, false, db_name_is_label, BUILDER_CHECKED_LABEL, &id);
        if (r != 0)
                return r;
        return VEC_PUSH(builder->monitors, builder->n_monitors, builder->cap_monitors, id);
}

int policy_builder_add_checkany_label(PolicyBuilder *builder, const char *label) {
        uint32_t id;
        int r;

        if (!builder)
                return -EINVAL;
        r = intern_valid(builder, label, false, db_name_is_label, BUILDER_CHECKED_LABEL, &id);
        if (r != 0)
                return r;
        return VEC_PUSH(builder->checkanys, builder->n_checkanys, builder->cap_checkanys, id);
}
