/*
 * Loading policy.db: read it into memory and validate all of it.
 *
 * The file comes from mssf-policy, but the bus treats it as untrusted
 * bytes: a torn write, a disk error or a hostile file must be refused, not
 * half-read. Validation is therefore complete and happens once, here;
 * after it every lookup (db-lookup.c, decide.c, dump.c) follows offsets
 * without checking them. The checks, in order:
 *  1. header: size, magic, version, file size, CRC32C, flags;
 *  2. layout: the sections follow one another in a fixed order, 4-byte
 *     aligned, with zero padding and nothing before, between or after them
 *     (so no two sections can overlap and no byte goes unchecked);
 *  3. strings: NUL-terminated, non-empty, UTF-8, sorted and unique; a
 *     reference must point at the start of one;
 *  4. names, rules, packages and the refs array: every string valid for
 *     its role, every range inside its table, and the refs array
 *     partitioned exactly by the ranges in the order names, rules,
 *     globals, monitors, provided tokens (none in version 1), packages
 *     (none before version 3), checkany labels (none before version 4);
 *     names and packages sorted, each name's
 *     rules contiguous and sorted, token lists sorted; every declarer a
 *     package or NONE. Older headers are prefixes of this version's, and
 *     the sections they lack are simply absent;
 *  5. the hash indexes: the canonical size, each entry reachable from its
 *     hash by linear probing before an empty bucket, none twice.
 * Any failure returns one POLICY_DB_E_* code and frees everything.
 */
#include "db-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"
#include "db-names.h"
#include "macro.h"

/* The header's size for its version: 0 for a version this reader does not know. */
static uint32_t header_size_of(uint32_t version) {
        if (version == POLICY_DB_FORMAT_VERSION)
                return sizeof(DbHeader);
        if (version == POLICY_DB_FORMAT_VERSION_3)
                return POLICY_DB_HEADER_SIZE_V3;
        if (version == POLICY_DB_FORMAT_VERSION_2)
                return POLICY_DB_HEADER_SIZE_V2;
        if (version == POLICY_DB_FORMAT_VERSION_1)
                return POLICY_DB_HEADER_SIZE_V1;
        return 0;
}

static int check_header(const DbHeader *h, size_t size) {
        uint32_t header_size = header_size_of(db_le(h->version));

        if (header_size == 0)
                return POLICY_DB_E_VERSION;
        if (db_le(h->header_size) != header_size)
                return POLICY_DB_E_LAYOUT;
        if (size < header_size)
                return POLICY_DB_E_TRUNCATED;
        if (db_le(h->file_size) > size)
                return POLICY_DB_E_TRUNCATED;
        if (db_le(h->file_size) < size)
                return POLICY_DB_E_SIZE;
        if (db_le(h->checksum) != policy_db_compute_checksum(h, size))
                return POLICY_DB_E_CHECKSUM;
        if (h->flags != 0 || h->reserved != 0)
                return POLICY_DB_E_LAYOUT;
        return 0;
}

/*
 * A section must start exactly at *cursor and fit in the file; *cursor
 * moves to its 4-aligned end, and the alignment padding must be zero.
 */
static int take_section(const PolicyDb *db, const DbSection *s, size_t element_size,
                        uint64_t *cursor) {
        uint64_t offset = db_le(s->offset), end;

        if (offset != *cursor)
                return POLICY_DB_E_LAYOUT;
        end = offset + (uint64_t) db_le(s->count) * element_size;
        if (end > db->size)
                return POLICY_DB_E_LAYOUT;
        for (uint64_t i = end; i < ALIGN_TO(end, 4); i++)
                if (i >= db->size || db->data[i] != 0)
                        return POLICY_DB_E_LAYOUT;
        *cursor = ALIGN_TO(end, 4);
        return 0;
}

/* Version 3's (and 4's) two last sections: one package per entry, one declarer per name. */
static int map_package_sections(PolicyDb *db, uint64_t *cursor) {
        const DbHeader *h = db->header;
        int r;

        if ((r = take_section(db, &h->packages, sizeof(DbPackage), cursor)) ||
            (r = take_section(db, &h->declarers, sizeof(uint32_t), cursor)))
                return r;
        if (db_le(h->declarers.count) != db_le(h->names.count))
                return POLICY_DB_E_LAYOUT;
        db->packages = (const DbPackage *) (db->data + db_le(h->packages.offset));
        db->n_packages = db_le(h->packages.count);
        db->declarers = (const uint32_t *) (db->data + db_le(h->declarers.offset));
        return 0;
}

static int map_sections(PolicyDb *db) {
        const DbHeader *h = db->header;
        uint32_t version = db_le(h->version);
        uint64_t cursor = db_le(h->header_size);
        int r;

        /*
         * An older header is a prefix of this version's: never read a field
         * past it (version 1 has no provided_tokens, version 2 no packages,
         * version 3 no checkany_labels).
         */
        if (version != POLICY_DB_FORMAT_VERSION_1) {
                db->provided_tokens = h->provided_tokens;
                db->knows_provided = true;
        }
        if (version == POLICY_DB_FORMAT_VERSION) {
                db->checkany_labels = h->checkany_labels;
                db->knows_checkany = true;
        }
        if ((r = take_section(db, &h->strings, 1, &cursor)) ||
            (r = take_section(db, &h->names, sizeof(DbName), &cursor)) ||
            (r = take_section(db, &h->name_index, sizeof(uint32_t), &cursor)) ||
            (r = take_section(db, &h->rules, sizeof(DbRule), &cursor)) ||
            (r = take_section(db, &h->rule_index, sizeof(uint32_t), &cursor)) ||
            (r = take_section(db, &h->refs, sizeof(uint32_t), &cursor)))
                return r;
        if ((version == POLICY_DB_FORMAT_VERSION || version == POLICY_DB_FORMAT_VERSION_3) &&
            (r = map_package_sections(db, &cursor)))
                return r;
        if (cursor != db->size)
                return POLICY_DB_E_LAYOUT;

        db->strings = (const char *) db->data + db_le(h->strings.offset);
        db->strings_size = db_le(h->strings.count);
        db->names = (const DbName *) (db->data + db_le(h->names.offset));
        db->n_names = db_le(h->names.count);
        db->name_index = (const uint32_t *) (db->data + db_le(h->name_index.offset));
        db->n_name_buckets = db_le(h->name_index.count);
        db->rules = (const DbRule *) (db->data + db_le(h->rules.offset));
        db->n_rules = db_le(h->rules.count);
        db->rule_index = (const uint32_t *) (db->data + db_le(h->rule_index.offset));
        db->n_rule_buckets = db_le(h->rule_index.count);
        db->refs = (const uint32_t *) (db->data + db_le(h->refs.offset));
        db->n_refs = db_le(h->refs.count);
        return 0;
}

static int check_strings(const PolicyDb *db) {
        const char *previous = NULL;
        uint32_t at = 0;

        if (db->strings_size == 0)
                return 0;
        if (db->strings[db->strings_size - 1] != '\0')
                return POLICY_DB_E_STRING;
        while (at < db->strings_size) {
                const char *s = db->strings + at;
                size_t len = strlen(s);

                if (len == 0 || !db_name_is_utf8(s))
                        return POLICY_DB_E_STRING;
                if (previous && strcmp(previous, s) >= 0)
                        return POLICY_DB_E_ORDER;
                previous = s;
                at += len + 1;
        }
        return 0;
}

/* A reference to a string (none_ok: or POLICY_DB_NONE); the string is *ret. */
static int check_ref(const PolicyDb *db, uint32_t ref, bool none_ok, const char **ret) {
        ref = db_le(ref);
        if (ref == POLICY_DB_NONE && none_ok) {
                *ret = NULL;
                return 0;
        }
        if (ref >= db->strings_size || (ref > 0 && db->strings[ref - 1] != '\0'))
                return POLICY_DB_E_STRING;
        *ret = db->strings + ref;
        return 0;
}

typedef bool (*StringCheck)(const char *s);

static int check_typed_ref(const PolicyDb *db, uint32_t ref, bool none_ok, StringCheck valid) {
        const char *s;
        int r = check_ref(db, ref, none_ok, &s);

        if (r)
                return r;
        return !s || valid(s) ? 0 : POLICY_DB_E_VALUE;
}

/*
 * A range of label references must start at *cursor (the refs array is
 * partitioned in file order), fit, and hold valid labels in strictly
 * increasing order.
 */
static int check_label_range(const PolicyDb *db, DbRange range, uint32_t *cursor) {
        uint32_t first = db_le(range.first), count = db_le(range.count);
        const char *previous = NULL;

        if (first != *cursor || count > db->n_refs - first)
                return POLICY_DB_E_RANGE;
        for (uint32_t i = first; i < first + count; i++) {
                const char *s;
                int r = check_ref(db, db->refs[i], false, &s);

                if (r)
                        return r;
                if (!db_name_is_label(s))
                        return POLICY_DB_E_VALUE;
                if (previous && strcmp(previous, s) >= 0)
                        return POLICY_DB_E_ORDER;
                previous = s;
        }
        *cursor = first + count;
        return 0;
}

static int check_names(const PolicyDb *db, uint32_t *ref_cursor) {
        uint32_t rule_cursor = 0;

        for (uint32_t i = 0; i < db->n_names; i++) {
                const DbName *n = &db->names[i];
                int r;

                if ((r = check_typed_ref(db, n->name, false, db_name_is_bus_name)) ||
                    (r = check_typed_ref(db, n->own_token, true, db_name_is_label)) ||
                    (r = check_label_range(db, n->owners, ref_cursor)))
                        return r;
                if (i > 0 && strcmp(db_string(db, n[-1].name), db_string(db, n->name)) >= 0)
                        return POLICY_DB_E_ORDER;
                if (db_le(n->rules_first) != rule_cursor ||
                    db_le(n->rules_count) > db->n_rules - rule_cursor)
                        return POLICY_DB_E_RANGE;
                rule_cursor += db_le(n->rules_count);
        }
        return rule_cursor == db->n_rules ? 0 : POLICY_DB_E_RANGE;
}

/* NULL (NONE) sorts before every string. */
static int compare_nullable(const char *a, const char *b) {
        if (!a || !b)
                return (a != NULL) - (b != NULL);
        return strcmp(a, b);
}

static int compare_rules(const PolicyDb *db, const DbRule *a, const DbRule *b) {
        int c;

        if (db_le(a->kind) != db_le(b->kind))
                return db_le(a->kind) < db_le(b->kind) ? -1 : 1;
        if ((c = strcmp(db_string(db, a->path), db_string(db, b->path))))
                return c;
        if ((c = compare_nullable(db_string(db, a->interface), db_string(db, b->interface))))
                return c;
        return compare_nullable(db_string(db, a->member), db_string(db, b->member));
}

static int check_rule(const PolicyDb *db, uint32_t name_index, const DbRule *rule,
                      uint32_t *ref_cursor) {
        int r;

        if (db_le(rule->name) != name_index)
                return POLICY_DB_E_RANGE;
        if (db_le(rule->kind) >= _POLICY_KIND_MAX)
                return POLICY_DB_E_VALUE;
        if ((r = check_typed_ref(db, rule->path, false, db_name_is_object_path)) ||
            (r = check_typed_ref(db, rule->interface, true, db_name_is_interface)) ||
            (r = check_typed_ref(db, rule->member, true, db_name_is_member)))
                return r;
        return check_label_range(db, rule->tokens, ref_cursor);
}

static int check_rules(const PolicyDb *db, uint32_t *ref_cursor) {
        for (uint32_t i = 0; i < db->n_names; i++) {
                uint32_t first = db_le(db->names[i].rules_first);
                uint32_t count = db_le(db->names[i].rules_count);

                for (uint32_t j = first; j < first + count; j++) {
                        int r = check_rule(db, i, &db->rules[j], ref_cursor);

                        if (r)
                                return r;
                        if (j > first && compare_rules(db, &db->rules[j - 1], &db->rules[j]) >= 0)
                                return POLICY_DB_E_ORDER;
                }
        }
        return 0;
}

/* Packages: valid package labels, sorted and unique, each with its token range. */
static int check_packages(const PolicyDb *db, uint32_t *ref_cursor) {
        for (uint32_t i = 0; i < db->n_packages; i++) {
                const DbPackage *p = &db->packages[i];
                int r;

                if ((r = check_typed_ref(db, p->name, false, db_name_is_package_label)) ||
                    (r = check_label_range(db, p->tokens, ref_cursor)))
                        return r;
                if (i > 0 && strcmp(db_string(db, p[-1].name), db_string(db, p->name)) >= 0)
                        return POLICY_DB_E_ORDER;
        }
        return 0;
}

/* Each name's declarer is one of the packages, or NONE (not recorded). */
static int check_declarers(const PolicyDb *db) {
        for (uint32_t i = 0; db->declarers && i < db->n_names; i++) {
                uint32_t v = db_le(db->declarers[i]);

                if (v != POLICY_DB_NONE && v >= db->n_packages)
                        return POLICY_DB_E_RANGE;
        }
        return 0;
}

static int check_refs(const PolicyDb *db) {
        uint32_t cursor = 0;
        int r;

        if ((r = check_names(db, &cursor)) ||
            (r = check_rules(db, &cursor)) ||
            (r = check_label_range(db, db->header->global_tokens, &cursor)) ||
            (r = check_label_range(db, db->header->monitor_labels, &cursor)) ||
            (db->knows_provided && (r = check_label_range(db, db->provided_tokens, &cursor))) ||
            (r = check_packages(db, &cursor)) ||
            (db->knows_checkany && (r = check_label_range(db, db->checkany_labels, &cursor))))
                return r;
        if (cursor != db->n_refs)
                return POLICY_DB_E_RANGE;
        return check_declarers(db);
}

static uint32_t hash_name_entry(const PolicyDb *db, uint32_t i) {
        return db_hash_name(db_string(db, db->names[i].name));
}

static uint32_t hash_rule_entry(const PolicyDb *db, uint32_t i) {
        const DbRule *rule = &db->rules[i];

        return db_hash_rule(db_le(rule->name), db_le(rule->kind), db_string(db, rule->path),
                            db_string(db, rule->interface), db_string(db, rule->member));
}

/*
 * The canonical size, entries in range, exactly n buckets used, and each
 * entry found by probing from its hash: then a lookup finds every entry
 * and, with an empty bucket guaranteed, always terminates.
 */
static int check_index(const PolicyDb *db, const uint32_t *buckets, uint32_t n_buckets,
                       uint32_t n_entries, uint32_t (*hash)(const PolicyDb *, uint32_t)) {
        uint32_t used = 0, mask = n_buckets - 1;

        if (n_buckets != db_index_buckets(n_entries))
                return POLICY_DB_E_INDEX;
        for (uint32_t b = 0; b < n_buckets; b++) {
                uint32_t v = db_le(buckets[b]);

                if (v == POLICY_DB_EMPTY)
                        continue;
                if (v >= n_entries)
                        return POLICY_DB_E_RANGE;
                used++;
        }
        if (used != n_entries)
                return POLICY_DB_E_INDEX;
        for (uint32_t i = 0; i < n_entries; i++)
                for (uint32_t b = hash(db, i) & mask;; b = (b + 1) & mask) {
                        uint32_t v = db_le(buckets[b]);

                        if (v == i)
                                break;
                        if (v == POLICY_DB_EMPTY)
                                return POLICY_DB_E_INDEX;
                }
        return 0;
}

static int validate(PolicyDb *db) {
        int r;

        if (db->size >= POLICY_DB_MAGIC_SIZE &&
            memcmp(db->data, POLICY_DB_MAGIC, POLICY_DB_MAGIC_SIZE) != 0)
                return POLICY_DB_E_MAGIC;
        /* The fields every version has; check_header() then wants its version's size. */
        if (db->size < POLICY_DB_HEADER_SIZE_V1)
                return POLICY_DB_E_TRUNCATED;
        db->header = (const DbHeader *) db->data;
        if ((r = check_header(db->header, db->size)) ||
            (r = map_sections(db)) ||
            (r = check_strings(db)) ||
            (r = check_refs(db)) ||
            (r = check_index(db, db->name_index, db->n_name_buckets, db->n_names,
                             hash_name_entry)) ||
            (r = check_index(db, db->rule_index, db->n_rule_buckets, db->n_rules,
                             hash_rule_entry)))
                return r;
        return 0;
}

PolicyDb *policy_db_free(PolicyDb *db) {
        if (!db)
                return NULL;
        free(db->data);
        free(db);
        return NULL;
}

/* Takes ownership of data (malloc'd, so suitably aligned). */
static int open_owned(uint8_t *data, size_t size, PolicyDb **ret) {
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        int r;

        db = calloc(1, sizeof(*db));
        if (!db) {
                free(data);
                return -ENOMEM;
        }
        db->data = data;
        db->size = size;
        r = validate(db);
        if (r)
                return r;
        *ret = TAKE_PTR(db);
        return 0;
}

int policy_db_open_buffer(const void *data, size_t size, PolicyDb **ret) {
        uint8_t *copy;

        if ((!data && size > 0) || !ret)
                return -EINVAL;
        if (size > POLICY_DB_SIZE_MAX)
                return POLICY_DB_E_SIZE;
        copy = malloc(size > 0 ? size : 1);
        if (!copy)
                return -ENOMEM;
        if (size > 0)
                memcpy(copy, data, size);
        return open_owned(copy, size, ret);
}

/* Reads at most POLICY_DB_SIZE_MAX + 1 bytes, so an oversized file is seen as such. */
static int read_all(int fd, size_t hint, uint8_t **ret, size_t *ret_size) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t cap = hint < POLICY_DB_SIZE_MAX ? hint + 1 : (size_t) POLICY_DB_SIZE_MAX + 1;
        size_t len = 0;

        buf = malloc(cap);
        if (!buf)
                return -ENOMEM;
        while (len < cap) {
                ssize_t n = read(fd, buf + len, cap - len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                len += (size_t) n;
        }
        *ret = TAKE_PTR(buf);
        *ret_size = len;
        return 0;
}

int policy_db_open(const char *path, PolicyDb **ret) {
        _cleanup_close_ int fd = -1;
        uint8_t *data = NULL;
        struct stat st;
        size_t size = 0;
        int r;

        if (!path || !ret)
                return -EINVAL;
        /* O_NONBLOCK: a FIFO in the way is refused below instead of blocking. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if ((uint64_t) st.st_size > POLICY_DB_SIZE_MAX)
                return POLICY_DB_E_SIZE;
        r = read_all(fd, (size_t) st.st_size, &data, &size);
        if (r < 0)
                return r;
        if (size > POLICY_DB_SIZE_MAX) {
                free(data);
                return POLICY_DB_E_SIZE;
        }
        return open_owned(data, size, ret);
}

const char *policy_db_error_to_string(int code) {
        static const char *const table[] = {
                [POLICY_DB_E_TRUNCATED] = "file is truncated",
                [POLICY_DB_E_MAGIC] = "not a compiled MSSF policy",
                [POLICY_DB_E_VERSION] = "unsupported format version",
                [POLICY_DB_E_SIZE] = "file size does not match its header or exceeds the limit",
                [POLICY_DB_E_CHECKSUM] = "checksum mismatch",
                [POLICY_DB_E_LAYOUT] = "malformed header or section layout",
                [POLICY_DB_E_STRING] = "malformed string table or string reference",
                [POLICY_DB_E_VALUE] = "invalid name, path, label or kind",
                [POLICY_DB_E_RANGE] = "index or range out of bounds",
                [POLICY_DB_E_ORDER] = "entries not sorted or not unique",
                [POLICY_DB_E_INDEX] = "hash index inconsistent with its table",
        };

        if (code <= 0 || (size_t) code >= ELEMENTSOF(table))
                return NULL;
        return table[code];
}

uint32_t policy_db_checksum(const PolicyDb *db) {
        return db_le(db->header->checksum);
}

size_t policy_db_size(const PolicyDb *db) {
        return db->size;
}

const void *policy_db_data(const PolicyDb *db) {
        return db->data;
}
