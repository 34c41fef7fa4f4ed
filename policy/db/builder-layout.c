/*
 * policy_builder_build(): from declarations to the file image.
 *
 * Strings are ranked in strcmp() order; from then on everything is an
 * integer: a rule key is (name index, kind, path, interface, member) with
 * interface and member encoded as rank + 1 and 0 for "none", which makes
 * numeric order exactly the order db-read.c checks (none first). Stages:
 * rank strings, order names, sort and merge raw rules, derive the
 * interface-less unions, sort again, gather each package's tokens, lay
 * out, index, checksum.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "builder-internal.h"
#include "crc32c.h"
#include "macro.h"
#include "radix-sort.h"

typedef struct OutRule {
        uint32_t name, kind, path, interface, member;   /* ranks (+1 for the last two) */
        uint32_t token;                                 /* raw rules: rank + 1, 0 = open */
        uint32_t tokens_first, tokens_count;            /* into Build.tokens */
} OutRule;

typedef struct Build {
        const PolicyBuilder *builder;
        uint32_t *rank;                 /* string id -> rank */
        uint32_t *by_rank;              /* rank -> string id */
        uint32_t *offset;               /* rank -> offset in the string table */
        uint64_t strings_size;
        uint32_t *name_index;           /* handle -> index in the file */
        uint32_t *name_by_index;        /* index in the file -> handle */
        OutRule *rules;
        size_t n_rules, cap_rules;
        uint32_t *tokens;               /* token ranks of the merged rules */
        size_t n_tokens, cap_tokens;
        uint32_t *scratch;
        size_t n_scratch, cap_scratch;
} Build;

static void build_done(Build *b) {
        free(b->rank);
        free(b->by_rank);
        free(b->offset);
        free(b->name_index);
        free(b->name_by_index);
        free(b->rules);
        free(b->tokens);
        free(b->scratch);
}

static int compare_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

        return (x > y) - (x < y);
}

static int compare_string_ids(const void *a, const void *b, void *userdata) {
        const PolicyBuilder *builder = userdata;

        return strcmp(builder->pool.strings[*(const uint32_t *) a],
                      builder->pool.strings[*(const uint32_t *) b]);
}

static int rank_strings(Build *b) {
        const StrPool *pool = &b->builder->pool;
        uint64_t at = 0;

        b->rank = calloc(pool->n + 1, sizeof(uint32_t));
        b->by_rank = calloc(pool->n + 1, sizeof(uint32_t));
        b->offset = calloc(pool->n + 1, sizeof(uint32_t));
        if (!b->rank || !b->by_rank || !b->offset)
                return -ENOMEM;
        for (size_t i = 0; i < pool->n; i++)
                b->by_rank[i] = (uint32_t) i;
        qsort_r(b->by_rank, pool->n, sizeof(uint32_t), compare_string_ids, (void *) b->builder);
        for (size_t i = 0; i < pool->n; i++) {
                b->rank[b->by_rank[i]] = (uint32_t) i;
                b->offset[i] = (uint32_t) at;
                at += strlen(pool->strings[b->by_rank[i]]) + 1;
                if (at > POLICY_DB_SIZE_MAX)
                        return POLICY_BUILDER_E_TOO_LARGE;
        }
        b->strings_size = at;
        return 0;
}

static int compare_names(const void *a, const void *b, void *userdata) {
        const Build *build = userdata;
        const BuildName *names = build->builder->names;

        return compare_u32(&build->rank[names[*(const uint32_t *) a].name],
                           &build->rank[names[*(const uint32_t *) b].name]);
}

static int order_names(Build *b) {
        size_t n = b->builder->n_names;

        b->name_index = calloc(n + 1, sizeof(uint32_t));
        b->name_by_index = calloc(n + 1, sizeof(uint32_t));
        if (!b->name_index || !b->name_by_index)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                b->name_by_index[i] = (uint32_t) i;
        qsort_r(b->name_by_index, n, sizeof(uint32_t), compare_names, b);
        for (size_t i = 0; i < n; i++)
                b->name_index[b->name_by_index[i]] = (uint32_t) i;
        return 0;
}

static int compare_keys(const OutRule *x, const OutRule *y) {
        const uint32_t kx[] = { x->name, x->kind, x->path, x->interface, x->member };
        const uint32_t ky[] = { y->name, y->kind, y->path, y->interface, y->member };

        for (size_t i = 0; i < ELEMENTSOF(kx); i++)
                if (kx[i] != ky[i])
                        return kx[i] < ky[i] ? -1 : 1;
        return 0;
}

/* The sort keys, most significant first: a raw rule's, then its token. */
static const size_t rule_key_offsets[] = {
        offsetof(OutRule, name), offsetof(OutRule, kind), offsetof(OutRule, path),
        offsetof(OutRule, interface), offsetof(OutRule, member), offsetof(OutRule, token),
};
#define RULE_KEY_FIELDS 5

static uint32_t rank_or_zero(const Build *b, uint32_t id) {
        return id == POLICY_DB_NONE ? 0 : b->rank[id] + 1;
}

/* The raw rules, keyed by rank, sorted; duplicates still there. */
static int rank_rules(Build *b, OutRule **ret, size_t *ret_n) {
        const PolicyBuilder *builder = b->builder;
        OutRule *raw = calloc(builder->n_rules + 1, sizeof(OutRule));

        if (!raw)
                return -ENOMEM;
        for (size_t i = 0; i < builder->n_rules; i++) {
                const BuildRule *r = &builder->rules[i];

                raw[i] = (OutRule) {
                        .name = b->name_index[r->name],
                        .kind = r->kind,
                        .path = b->rank[r->path],
                        .interface = rank_or_zero(b, r->interface),
                        .member = rank_or_zero(b, r->member),
                        .token = rank_or_zero(b, r->token),
                };
        }
        int r = radix_sort_records(raw, builder->n_rules, sizeof(OutRule), rule_key_offsets,
                                   RULE_KEY_FIELDS + 1);
        if (r < 0) {
                free(raw);
                return r;
        }
        *ret = raw;
        *ret_n = builder->n_rules;
        return 0;
}

/* Sort and deduplicate tokens[first..n_tokens) in place. */
static void unique_tail(Build *b, size_t first) {
        size_t out = first;

        /* (qsort() wants a non-NULL array even for nothing to sort.) */
        if (b->n_tokens - first > 1)
                qsort(b->tokens + first, b->n_tokens - first, sizeof(uint32_t), compare_u32);
        for (size_t i = first; i < b->n_tokens; i++)
                if (out == first || b->tokens[out - 1] != b->tokens[i])
                        b->tokens[out++] = b->tokens[i];
        b->n_tokens = out;
}

/* One rule per key, its tokens the union of all its raw rules' tokens. */
static int merge_rules(Build *b, const OutRule *raw, size_t n_raw) {
        for (size_t i = 0; i < n_raw;) {
                OutRule rule = raw[i];
                size_t first = b->n_tokens;
                int r;

                for (; i < n_raw && compare_keys(&raw[i], &rule) == 0; i++)
                        if (raw[i].token != 0) {
                                r = VEC_PUSH(b->tokens, b->n_tokens, b->cap_tokens,
                                             raw[i].token - 1);
                                if (r < 0)
                                        return r;
                        }
                unique_tail(b, first);
                rule.tokens_first = (uint32_t) first;
                rule.tokens_count = (uint32_t) (b->n_tokens - first);
                r = VEC_PUSH(b->rules, b->n_rules, b->cap_rules, rule);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Appends the tokens of rules[i] to the token list being built. */
static int append_tokens_of(Build *b, size_t i) {
        for (uint32_t t = 0; t < b->rules[i].tokens_count; t++) {
                int r = VEC_PUSH(b->tokens, b->n_tokens, b->cap_tokens,
                                 b->tokens[b->rules[i].tokens_first + t]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A rule without interface for (group's name, kind, path, member). */
static int add_union(Build *b, size_t group, uint32_t member, size_t first) {
        OutRule rule = b->rules[group];

        unique_tail(b, first);
        rule.interface = 0;
        rule.member = member;
        rule.token = 0;
        rule.tokens_first = (uint32_t) first;
        rule.tokens_count = (uint32_t) (b->n_tokens - first);
        return VEC_PUSH(b->rules, b->n_rules, b->cap_rules, rule);
}

static int compare_member_of(const void *a, const void *b, void *userdata) {
        const OutRule *rules = userdata;

        return compare_u32(&rules[*(const uint32_t *) a].member,
                           &rules[*(const uint32_t *) b].member);
}

static bool same_group(const OutRule *x, const OutRule *y) {
        return x->name == y->name && x->kind == y->kind && x->path == y->path;
}

/* Appends every default's tokens in rules[start..end) to the token list. */
static int append_defaults(Build *b, size_t start, size_t end, bool *ret_any) {
        *ret_any = false;
        for (size_t i = start; i < end; i++)
                if (b->rules[i].member == 0) {
                        int r = append_tokens_of(b, i);

                        if (r < 0)
                                return r;
                        *ret_any = true;
                }
        return 0;
}

/* The unions for the rules[start..end) of one (name, kind, path). */
static int derive_group(Build *b, size_t start, size_t end) {
        bool any_default;
        size_t first;
        int r;

        b->n_scratch = 0;
        for (size_t i = start; i < end; i++)
                if (b->rules[i].member != 0 &&
                    (r = VEC_PUSH(b->scratch, b->n_scratch, b->cap_scratch, (uint32_t) i)) < 0)
                        return r;
        if (b->n_scratch > 1)
                qsort_r(b->scratch, b->n_scratch, sizeof(uint32_t), compare_member_of, b->rules);
        for (size_t i = 0; i < b->n_scratch;) {
                uint32_t member = b->rules[b->scratch[i]].member;

                first = b->n_tokens;
                if ((r = append_defaults(b, start, end, &any_default)) < 0)
                        return r;
                for (; i < b->n_scratch && b->rules[b->scratch[i]].member == member; i++)
                        if ((r = append_tokens_of(b, b->scratch[i])) < 0)
                                return r;
                if ((r = add_union(b, start, member, first)) < 0)
                        return r;
        }
        /*
         * A method call without interface to a member no interface here
         * declares stays "not declared": an interface default (typically
         * Introspectable's value="") must not open every member to calls
         * that leave the interface out, or Properties.Get sent without its
         * interface would read a protected property. Signals and
         * properties keep the defaults-only union (GetAll(""), Get("", P)).
         */
        if (b->rules[start].kind == POLICY_KIND_METHOD)
                return 0;
        first = b->n_tokens;
        if ((r = append_defaults(b, start, end, &any_default)) < 0)
                return r;
        if (any_default)
                return add_union(b, start, 0, first);
        b->n_tokens = first;
        return 0;
}

static int derive_unions(Build *b) {
        size_t n_merged = b->n_rules;

        for (size_t start = 0; start < n_merged;) {
                size_t end = start + 1;
                int r;

                while (end < n_merged && same_group(&b->rules[end], &b->rules[start]))
                        end++;
                r = derive_group(b, start, end);
                if (r < 0)
                        return r;
                start = end;
        }
        return radix_sort_records(b->rules, b->n_rules, sizeof(OutRule), rule_key_offsets,
                                  RULE_KEY_FIELDS);
}

/* Where each section goes, and the refs it needs. */
typedef struct Layout {
        uint64_t strings, names, name_index, rules, rule_index, refs, packages, declarers, end;
        uint32_t name_buckets, rule_buckets;
        uint64_t *owners;               /* (name index << 32 | label rank), sorted */
        size_t n_owners;
        uint32_t *globals, *monitors, *provided, *checkanys;    /* label ranks, sorted */
        size_t n_globals, n_monitors, n_provided, n_checkanys;
        uint32_t *package_ranks;        /* the packages' label ranks, sorted */
        size_t n_packages;
        uint32_t *package_of_rank;      /* string rank -> package index (for package ranks) */
        uint64_t *package_tokens;       /* (package index << 32 | token rank), sorted */
        size_t n_package_tokens;
        uint64_t n_refs;
} Layout;

static void layout_done(Layout *l) {
        free(l->owners);
        free(l->globals);
        free(l->monitors);
        free(l->provided);
        free(l->checkanys);
        free(l->package_ranks);
        free(l->package_of_rank);
        free(l->package_tokens);
}

static int compare_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return (x > y) - (x < y);
}

/* Sort and deduplicate n elements of the given size; the new count. */
static size_t sort_unique(void *array, size_t n, size_t size,
                          int (*compare)(const void *, const void *)) {
        uint8_t *p = array;
        size_t out = 0;

        qsort(array, n, size, compare);
        for (size_t i = 0; i < n; i++)
                if (out == 0 || compare(p + (out - 1) * size, p + i * size) != 0)
                        memmove(p + out++ * size, p + i * size, size);
        return out;
}

static int rank_labels(const Build *b, const uint32_t *ids, size_t n, uint32_t **ret,
                       size_t *ret_n) {
        uint32_t *ranks = calloc(n + 1, sizeof(uint32_t));

        if (!ranks)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                ranks[i] = b->rank[ids[i]];
        *ret_n = sort_unique(ranks, n, sizeof(uint32_t), compare_u32);
        *ret = ranks;
        return 0;
}

/* Every package a name's declarer or a provided token names, in label order. */
static int plan_packages(const Build *b, Layout *l) {
        const PolicyBuilder *builder = b->builder;
        size_t n = 0;

        l->package_ranks = calloc(builder->n_names + builder->n_provided + 1, sizeof(uint32_t));
        l->package_of_rank = calloc(builder->pool.n + 1, sizeof(uint32_t));
        if (!l->package_ranks || !l->package_of_rank)
                return -ENOMEM;
        for (size_t i = 0; i < builder->n_names; i++)
                if (builder->names[i].package != POLICY_DB_NONE)
                        l->package_ranks[n++] = b->rank[builder->names[i].package];
        for (size_t i = 0; i < builder->n_provided; i++)
                l->package_ranks[n++] = b->rank[builder->provided[i].package];
        l->n_packages = sort_unique(l->package_ranks, n, sizeof(uint32_t), compare_u32);
        for (size_t i = 0; i < l->n_packages; i++)
                l->package_of_rank[l->package_ranks[i]] = (uint32_t) i;
        return 0;
}

static uint64_t package_token(const Build *b, const Layout *l, uint32_t package, uint32_t token) {
        return (uint64_t) l->package_of_rank[b->rank[package]] << 32 | b->rank[token];
}

/*
 * What each package serves: the tokens it provides, and every token its
 * names need (own tokens, and the raw rules' tokens, which are exactly
 * the tokens of its merged and derived rules).
 */
static int plan_package_tokens(const Build *b, Layout *l) {
        const PolicyBuilder *builder = b->builder;
        size_t n = 0;

        l->package_tokens = calloc(builder->n_provided + builder->n_names + builder->n_rules + 1,
                                   sizeof(uint64_t));
        if (!l->package_tokens)
                return -ENOMEM;
        for (size_t i = 0; i < builder->n_provided; i++)
                l->package_tokens[n++] = package_token(b, l, builder->provided[i].package,
                                                       builder->provided[i].token);
        for (size_t i = 0; i < builder->n_names; i++)
                if (builder->names[i].package != POLICY_DB_NONE &&
                    builder->names[i].own_token != POLICY_DB_NONE)
                        l->package_tokens[n++] = package_token(b, l, builder->names[i].package,
                                                               builder->names[i].own_token);
        for (size_t i = 0; i < builder->n_rules; i++) {
                const BuildRule *rule = &builder->rules[i];
                uint32_t package = builder->names[rule->name].package;

                if (package != POLICY_DB_NONE && rule->token != POLICY_DB_NONE)
                        l->package_tokens[n++] = package_token(b, l, package, rule->token);
        }
        l->n_package_tokens = sort_unique(l->package_tokens, n, sizeof(uint64_t), compare_u64);
        return 0;
}

static int plan_layout(const Build *b, Layout *l) {
        const PolicyBuilder *builder = b->builder;
        uint32_t *provided_ids;
        int r;

        l->owners = calloc(builder->n_owners + 1, sizeof(uint64_t));
        if (!l->owners)
                return -ENOMEM;
        for (size_t i = 0; i < builder->n_owners; i++)
                l->owners[i] = (uint64_t) b->name_index[builder->owners[i].name] << 32 |
                               b->rank[builder->owners[i].label];
        l->n_owners = sort_unique(l->owners, builder->n_owners, sizeof(uint64_t), compare_u64);
        provided_ids = calloc(builder->n_provided + 1, sizeof(uint32_t));
        if (!provided_ids)
                return -ENOMEM;
        for (size_t i = 0; i < builder->n_provided; i++)
                provided_ids[i] = builder->provided[i].token;
        r = rank_labels(b, provided_ids, builder->n_provided, &l->provided, &l->n_provided);
        free(provided_ids);
        if (r < 0 ||
            (r = rank_labels(b, builder->globals, builder->n_globals, &l->globals,
                             &l->n_globals)) < 0 ||
            (r = rank_labels(b, builder->monitors, builder->n_monitors, &l->monitors,
                             &l->n_monitors)) < 0 ||
            (r = rank_labels(b, builder->checkanys, builder->n_checkanys, &l->checkanys,
                             &l->n_checkanys)) < 0 ||
            (r = plan_packages(b, l)) < 0 ||
            (r = plan_package_tokens(b, l)) < 0)
                return r;
        l->n_refs = l->n_owners + b->n_tokens + l->n_globals + l->n_monitors + l->n_provided +
                    l->n_package_tokens + l->n_checkanys;
        l->name_buckets = db_index_buckets((uint32_t) builder->n_names);
        l->rule_buckets = db_index_buckets((uint32_t) b->n_rules);
        l->strings = sizeof(DbHeader);
        l->names = ALIGN_TO(l->strings + b->strings_size, 4);
        l->name_index = l->names + (uint64_t) builder->n_names * sizeof(DbName);
        l->rules = l->name_index + (uint64_t) l->name_buckets * sizeof(uint32_t);
        l->rule_index = l->rules + (uint64_t) b->n_rules * sizeof(DbRule);
        l->refs = l->rule_index + (uint64_t) l->rule_buckets * sizeof(uint32_t);
        l->packages = l->refs + l->n_refs * sizeof(uint32_t);
        l->declarers = l->packages + (uint64_t) l->n_packages * sizeof(DbPackage);
        l->end = l->declarers + (uint64_t) builder->n_names * sizeof(uint32_t);
        return l->end <= POLICY_DB_SIZE_MAX ? 0 : POLICY_BUILDER_E_TOO_LARGE;
}

/* The image being filled in. */
typedef struct Image {
        uint8_t *data;
        const Build *build;
        const Layout *layout;
        uint32_t *refs;
        uint32_t n_refs;                /* written so far */
} Image;

static uint32_t string_ref(const Image *im, uint32_t rank) {
        return htole32(im->build->offset[rank]);
}

/* 0 encodes none; else rank + 1. */
static uint32_t nullable_ref(const Image *im, uint32_t rank_plus_one) {
        return rank_plus_one == 0 ? htole32(POLICY_DB_NONE) : string_ref(im, rank_plus_one - 1);
}

static DbRange push_ref(Image *im, uint32_t rank, DbRange range) {
        if (range.count == 0)
                range.first = im->n_refs;
        im->refs[im->n_refs++] = string_ref(im, rank);
        range.count++;
        return range;
}

static DbRange le_range(DbRange range) {
        return (DbRange) { .first = htole32(range.first), .count = htole32(range.count) };
}

static DbRange push_ranks(Image *im, const uint32_t *ranks, size_t n) {
        DbRange range = { .first = im->n_refs };

        for (size_t i = 0; i < n; i++)
                range = push_ref(im, ranks[i], range);
        return le_range(range);
}

static void write_strings(Image *im) {
        const Build *b = im->build;
        uint8_t *p = im->data + im->layout->strings;

        for (size_t i = 0; i < b->builder->pool.n; i++) {
                const char *s = b->builder->pool.strings[b->by_rank[i]];

                memcpy(p + b->offset[i], s, strlen(s) + 1);
        }
}

static void write_names(Image *im) {
        const Build *b = im->build;
        const Layout *l = im->layout;
        DbName *names = (DbName *) (im->data + l->names);
        size_t owner = 0, rule = 0;

        for (uint32_t i = 0; i < b->builder->n_names; i++) {
                const BuildName *n = &b->builder->names[b->name_by_index[i]];
                DbRange owners = { .first = im->n_refs };
                uint32_t rules_first = (uint32_t) rule;

                for (; owner < l->n_owners && (l->owners[owner] >> 32) == i; owner++)
                        owners = push_ref(im, (uint32_t) l->owners[owner], owners);
                while (rule < b->n_rules && b->rules[rule].name == i)
                        rule++;
                names[i] = (DbName) {
                        .name = string_ref(im, b->rank[n->name]),
                        .own_token = n->own_token == POLICY_DB_NONE
                                ? htole32(POLICY_DB_NONE) : string_ref(im, b->rank[n->own_token]),
                        .owners = le_range(owners),
                        .rules_first = htole32(rules_first),
                        .rules_count = htole32((uint32_t) rule - rules_first),
                };
        }
}

static void write_rules(Image *im) {
        const Build *b = im->build;
        DbRule *rules = (DbRule *) (im->data + im->layout->rules);

        for (size_t i = 0; i < b->n_rules; i++) {
                const OutRule *r = &b->rules[i];

                rules[i] = (DbRule) {
                        .name = htole32(r->name),
                        .kind = htole32(r->kind),
                        .path = string_ref(im, r->path),
                        .interface = nullable_ref(im, r->interface),
                        .member = nullable_ref(im, r->member),
                        .tokens = push_ranks(im, b->tokens + r->tokens_first, r->tokens_count),
                };
        }
}

/* Each package's tokens go into refs after the provided tokens, packages in label order. */
static void write_packages(Image *im) {
        const Layout *l = im->layout;
        DbPackage *packages = (DbPackage *) (im->data + l->packages);
        size_t pair = 0;

        for (uint32_t i = 0; i < l->n_packages; i++) {
                DbRange tokens = { .first = im->n_refs };

                for (; pair < l->n_package_tokens && (l->package_tokens[pair] >> 32) == i; pair++)
                        tokens = push_ref(im, (uint32_t) l->package_tokens[pair], tokens);
                packages[i] = (DbPackage) {
                        .name = string_ref(im, l->package_ranks[i]),
                        .tokens = le_range(tokens),
                };
        }
}

static void write_declarers(Image *im) {
        const Build *b = im->build;
        uint32_t *declarers = (uint32_t *) (im->data + im->layout->declarers);

        for (uint32_t i = 0; i < b->builder->n_names; i++) {
                uint32_t package = b->builder->names[b->name_by_index[i]].package;

                declarers[i] = htole32(package == POLICY_DB_NONE ? POLICY_DB_NONE
                                       : im->layout->package_of_rank[b->rank[package]]);
        }
}

static void index_insert(uint32_t *buckets, uint32_t n_buckets, uint32_t hash, uint32_t entry) {
        uint32_t b = hash & (n_buckets - 1);

        while (buckets[b] != htole32(POLICY_DB_EMPTY))
                b = (b + 1) & (n_buckets - 1);
        buckets[b] = htole32(entry);
}

static const char *image_string(const Image *im, uint32_t ref) {
        ref = le32toh(ref);
        return ref == POLICY_DB_NONE ? NULL
                : (const char *) im->data + im->layout->strings + ref;
}

static void write_indexes(Image *im) {
        const Layout *l = im->layout;
        const DbName *names = (const DbName *) (im->data + l->names);
        const DbRule *rules = (const DbRule *) (im->data + l->rules);
        uint32_t *name_index = (uint32_t *) (im->data + l->name_index);
        uint32_t *rule_index = (uint32_t *) (im->data + l->rule_index);

        memset(name_index, 0xff, l->name_buckets * sizeof(uint32_t));
        memset(rule_index, 0xff, l->rule_buckets * sizeof(uint32_t));
        for (uint32_t i = 0; i < im->build->builder->n_names; i++)
                index_insert(name_index, l->name_buckets,
                             db_hash_name(image_string(im, names[i].name)), i);
        for (uint32_t i = 0; i < im->build->n_rules; i++)
                index_insert(rule_index, l->rule_buckets,
                             db_hash_rule(le32toh(rules[i].name), le32toh(rules[i].kind),
                                          image_string(im, rules[i].path),
                                          image_string(im, rules[i].interface),
                                          image_string(im, rules[i].member)),
                             i);
}

static DbSection section(uint64_t offset, uint64_t count) {
        return (DbSection) { .offset = htole32((uint32_t) offset),
                             .count = htole32((uint32_t) count) };
}

static void write_header(Image *im, DbRange globals, DbRange monitors, DbRange provided,
                         DbRange checkanys) {
        const Layout *l = im->layout;
        const Build *b = im->build;
        DbHeader *h = (DbHeader *) im->data;

        memcpy(h->magic, POLICY_DB_MAGIC, POLICY_DB_MAGIC_SIZE);
        h->version = htole32(POLICY_DB_FORMAT_VERSION);
        h->header_size = htole32(sizeof(DbHeader));
        h->file_size = htole32((uint32_t) l->end);
        h->strings = section(l->strings, b->strings_size);
        h->names = section(l->names, b->builder->n_names);
        h->name_index = section(l->name_index, l->name_buckets);
        h->rules = section(l->rules, b->n_rules);
        h->rule_index = section(l->rule_index, l->rule_buckets);
        h->refs = section(l->refs, l->n_refs);
        h->packages = section(l->packages, l->n_packages);
        h->declarers = section(l->declarers, b->builder->n_names);
        h->global_tokens = globals;
        h->monitor_labels = monitors;
        h->provided_tokens = provided;
        h->checkany_labels = checkanys;
        h->checksum = htole32(policy_db_compute_checksum(im->data, l->end));
}

static int write_image(const Build *b, uint8_t **ret_data, size_t *ret_size) {
        Layout l = { 0 };
        Image im = { .build = b, .layout = &l };
        DbRange globals, monitors, provided, checkanys;
        int r;

        r = plan_layout(b, &l);
        if (r == 0) {
                im.data = calloc(1, l.end);
                if (!im.data)
                        r = -ENOMEM;
        }
        if (r != 0) {
                layout_done(&l);
                return r;
        }
        im.refs = (uint32_t *) (im.data + l.refs);
        write_strings(&im);
        write_names(&im);
        write_rules(&im);
        globals = push_ranks(&im, l.globals, l.n_globals);
        monitors = push_ranks(&im, l.monitors, l.n_monitors);
        provided = push_ranks(&im, l.provided, l.n_provided);
        write_packages(&im);
        /* After the packages' tokens: a version 3 file is this one's refs cut there. */
        checkanys = push_ranks(&im, l.checkanys, l.n_checkanys);
        write_declarers(&im);
        write_indexes(&im);
        write_header(&im, globals, monitors, provided, checkanys);
        *ret_data = im.data;
        *ret_size = l.end;
        layout_done(&l);
        return 0;
}

int policy_builder_build(const PolicyBuilder *builder, uint8_t **ret_data, size_t *ret_size) {
        Build b = { .builder = builder };
        OutRule *raw = NULL;
        size_t n_raw = 0;
        int r;

        if (!builder || !ret_data || !ret_size)
                return -EINVAL;
        if ((r = rank_strings(&b)) == 0 &&
            (r = order_names(&b)) == 0 &&
            (r = rank_rules(&b, &raw, &n_raw)) == 0 &&
            (r = merge_rules(&b, raw, n_raw)) == 0 &&
            (r = derive_unions(&b)) == 0)
                r = write_image(&b, ret_data, ret_size);
        free(raw);
        build_done(&b);
        return r;
}
