/* The on-disk layout of the compiled policy (policy.db), version 4 (reads 1 to 3 too). */
#pragma once

#include <assert.h>
#include <endian.h>
#include <stdint.h>

/*
 * docs/policy-db.md describes this layout byte by byte; keep the two in
 * step. Every integer is a little-endian uint32_t and every section starts
 * on a 4-byte boundary. Only db-read.c (which validates) and builder.c
 * (which writes) use these structures directly.
 */

#define POLICY_DB_MAGIC "MSSFPDB\n"
#define POLICY_DB_MAGIC_SIZE 8
#define POLICY_DB_FORMAT_VERSION 4u
/*
 * Older versions are prefixes of this one. Version 3 is version 4 without
 * checkany labels: its header ends at declarers, and its refs array ends
 * with the packages' tokens. Version 2 is version 3 without
 * packages and declarers: its header ends at provided_tokens, its last
 * section is refs. Version 1 is version 2 without provided_tokens: its
 * header ends at monitor_labels. The reader still loads both (a device
 * upgraded before mssf-policy recompiled keeps its policy); they then
 * know no declaring packages (policy_db_knows_declarers()), and version 1
 * no provided tokens either (policy_db_knows_provided_tokens()); before
 * version 4 no label may ask about any token (policy_db_is_checkany_label()).
 */
#define POLICY_DB_FORMAT_VERSION_3 3u
#define POLICY_DB_HEADER_SIZE_V3 120u
#define POLICY_DB_FORMAT_VERSION_2 2u
#define POLICY_DB_HEADER_SIZE_V2 104u
#define POLICY_DB_FORMAT_VERSION_1 1u
#define POLICY_DB_HEADER_SIZE_V1 96u
/* A string reference, interface or member that is absent. */
#define POLICY_DB_NONE 0xffffffffu
/* A bucket of a hash index that holds no entry. */
#define POLICY_DB_EMPTY 0xffffffffu
/* Larger files are refused before they are read. */
#define POLICY_DB_SIZE_MAX (64u * 1024u * 1024u)
/* The byte offset of DbHeader.checksum (zero while it is computed). */
#define POLICY_DB_CHECKSUM_OFFSET 20u

typedef struct DbSection {
        uint32_t offset;        /* bytes from the start of the file */
        uint32_t count;         /* entries (bytes for the string table) */
} DbSection;

typedef struct DbRange {
        uint32_t first;         /* index into the refs array */
        uint32_t count;
} DbRange;

typedef struct DbHeader {
        uint8_t magic[POLICY_DB_MAGIC_SIZE];
        uint32_t version;
        uint32_t header_size;   /* sizeof(DbHeader) */
        uint32_t file_size;
        uint32_t checksum;      /* CRC32C of the file, this field as zero */
        uint32_t flags;         /* none defined: 0 */
        uint32_t reserved;      /* 0 */
        DbSection strings;      /* NUL-terminated strings, count = bytes */
        DbSection names;        /* DbName, sorted by name */
        DbSection name_index;   /* uint32_t buckets -> names */
        DbSection rules;        /* DbRule, grouped by name, sorted */
        DbSection rule_index;   /* uint32_t buckets -> rules */
        DbSection refs;         /* uint32_t string references */
        DbRange global_tokens;  /* sorted labels of the global tokens */
        DbRange monitor_labels; /* sorted labels allowed to monitor */
        DbRange provided_tokens; /* version 2: sorted labels of every package's own tokens */
        DbSection packages;     /* version 3: DbPackage, sorted by name */
        DbSection declarers;    /* version 3: uint32_t per name, in name order: its DbPackage, or NONE */
        DbRange checkany_labels; /* version 4: sorted labels that may ask CheckToken about any token */
} DbHeader;

typedef struct DbName {
        uint32_t name;          /* string: the well-known bus name */
        uint32_t own_token;     /* string or NONE: holders may own the name */
        DbRange owners;         /* sorted labels that may own the name */
        uint32_t rules_first;   /* this name's rules, contiguous */
        uint32_t rules_count;
} DbName;

/*
 * A package that declares a name or provides a token, and the tokens it
 * provides or guards (its names' rules and own tokens): the ones a
 * connection speaking for it may ask the bus about (CheckToken).
 */
typedef struct DbPackage {
        uint32_t name;          /* string: the package's label */
        DbRange tokens;         /* sorted token labels */
} DbPackage;

typedef struct DbRule {
        uint32_t name;          /* index of its DbName */
        uint32_t kind;          /* PolicyKind */
        uint32_t path;          /* string: object path */
        uint32_t interface;     /* string, or NONE: any interface (a union) */
        uint32_t member;        /* string, or NONE: interface default */
        DbRange tokens;         /* sorted token labels, all needed; 0 = open */
} DbRule;

static_assert(sizeof(DbHeader) == 128, "DbHeader layout");
static_assert(__builtin_offsetof(DbHeader, provided_tokens) == POLICY_DB_HEADER_SIZE_V1,
              "a version 1 header is a version 2 header without provided_tokens");
static_assert(__builtin_offsetof(DbHeader, packages) == POLICY_DB_HEADER_SIZE_V2,
              "a version 2 header is a version 3 header without packages and declarers");
static_assert(__builtin_offsetof(DbHeader, checkany_labels) == POLICY_DB_HEADER_SIZE_V3,
              "a version 3 header is a version 4 header without checkany_labels");
static_assert(sizeof(DbName) == 24, "DbName layout");
static_assert(sizeof(DbPackage) == 12, "DbPackage layout");
static_assert(sizeof(DbRule) == 28, "DbRule layout");
static_assert(__builtin_offsetof(DbHeader, checksum) == POLICY_DB_CHECKSUM_OFFSET,
              "checksum offset");

/*
 * The hash of the indexes: 32-bit FNV-1a over a key's bytes. A present
 * string is hashed with its terminating NUL, an absent one as the single
 * byte 0xff, which no valid (UTF-8) string contains.
 */
#define POLICY_DB_HASH_INIT 2166136261u

static inline uint32_t db_hash_byte(uint32_t h, uint8_t byte) {
        return (h ^ byte) * 16777619u;
}

static inline uint32_t db_hash_string(uint32_t h, const char *s) {
        if (!s)
                return db_hash_byte(h, 0xff);
        for (; *s; s++)
                h = db_hash_byte(h, (uint8_t) *s);
        return db_hash_byte(h, 0);
}

static inline uint32_t db_hash_u32(uint32_t h, uint32_t v) {
        for (unsigned i = 0; i < 4; i++)
                h = db_hash_byte(h, (uint8_t) (v >> (8 * i)));
        return h;
}

static inline uint32_t db_hash_name(const char *name) {
        return db_hash_string(POLICY_DB_HASH_INIT, name);
}

static inline uint32_t db_hash_rule(uint32_t name_index, uint32_t kind, const char *path,
                                    const char *interface, const char *member) {
        uint32_t h = db_hash_u32(POLICY_DB_HASH_INIT, name_index);
        h = db_hash_byte(h, (uint8_t) kind);
        h = db_hash_string(h, path);
        h = db_hash_string(h, interface);
        return db_hash_string(h, member);
}

/* Buckets of an index over n entries: a power of two, at least 2n. */
static inline uint32_t db_index_buckets(uint32_t n) {
        uint32_t buckets = 2;
        while (buckets < 2 * n)
                buckets *= 2;
        return buckets;
}

static inline uint32_t db_le(uint32_t v) {
        return le32toh(v);
}
