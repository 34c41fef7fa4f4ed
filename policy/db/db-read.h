/* The compiled MSSF policy: load and validate policy.db, look requirements up. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A PolicyDb is an immutable snapshot of /var/lib/mssf/policy.db. Loading
 * validates every byte that a lookup will ever read (offsets, counts,
 * strings, sort orders, the hash indexes), so that lookups can trust the
 * data, never allocate and never fail. Swapping policies is: load the new
 * file, then replace the pointer; a file that does not load leaves the old
 * snapshot in force. A PolicyDb may be read from several threads at once.
 */
typedef struct PolicyDb PolicyDb;

/* Expected outcomes of loading: the file is not a valid policy. */
enum {
        POLICY_DB_E_TRUNCATED = 1,      /* shorter than a header, or than it says */
        POLICY_DB_E_MAGIC,              /* not a policy file */
        POLICY_DB_E_VERSION,            /* a format version this reader does not know */
        POLICY_DB_E_SIZE,               /* longer than it says, or larger than the limit */
        POLICY_DB_E_CHECKSUM,           /* CRC32C mismatch */
        POLICY_DB_E_LAYOUT,             /* header fields, section placement, padding */
        POLICY_DB_E_STRING,             /* string table malformed, or a reference into it */
        POLICY_DB_E_VALUE,              /* a string invalid for its role, or a bad kind */
        POLICY_DB_E_RANGE,              /* an index or range outside its table */
        POLICY_DB_E_ORDER,              /* entries not sorted or not unique */
        POLICY_DB_E_INDEX,              /* a hash index inconsistent with its table */
};

/* What a requirement is about. The values are part of the file format. */
typedef enum PolicyKind {
        POLICY_KIND_METHOD = 0,         /* calling a method */
        POLICY_KIND_SIGNAL = 1,         /* receiving a signal */
        POLICY_KIND_PROPERTY_READ = 2,  /* Get, GetAll, PropertiesChanged, ... */
        POLICY_KIND_PROPERTY_WRITE = 3, /* Set */
        _POLICY_KIND_MAX,
} PolicyKind;

/*
 * The tokens one rule requires, all of them ("open" when n_tokens is 0).
 * Valid as long as the PolicyDb it came from.
 */
typedef struct PolicyRequirement {
        const char *name;               /* the declared bus name */
        const char *path;
        const char *interface;          /* (nullable) NULL: a union over interfaces */
        const char *member;             /* (nullable) NULL: an interface default */
        size_t n_tokens;
        const uint32_t *token_refs;     /* (internal) use policy_requirement_token() */
        const char *strings;            /* (internal) */
} PolicyRequirement;

/* Outcomes of the lookups below. */
enum {
        POLICY_DB_UNDECLARED = 20,      /* no manifest declares this bus name */
        POLICY_DB_UNCOVERED,            /* declared, but no rule covers this */
};

/*
 * Loading. Both return 0, a POLICY_DB_E_* code for an invalid file, or a
 * negative errno (-ENOENT, -ENOMEM, ...). The file is read into memory,
 * not mapped: a later change to it cannot reach a loaded snapshot.
 * open_buffer copies data, which need not be aligned.
 */
int policy_db_open(const char *path, PolicyDb **ret);
int policy_db_open_buffer(const void *data, size_t size, PolicyDb **ret);
PolicyDb *policy_db_free(PolicyDb *db);
/* A short English description of a POLICY_DB_E_* code, or NULL. */
const char *policy_db_error_to_string(int code);

uint32_t policy_db_checksum(const PolicyDb *db);
size_t policy_db_size(const PolicyDb *db);
/* The file image (size policy_db_size()), e.g. to compare two policies. */
const void *policy_db_data(const PolicyDb *db);

bool policy_db_declares_name(const PolicyDb *db, const char *name);
/* Whether token is one of the device policy's global tokens. */
bool policy_db_is_global_token(const PolicyDb *db, const char *token);
/*
 * Whether token (a full label, "pkg::Token") is one an installed package
 * provides. A format 1 file lists none: policy_db_knows_provided_tokens()
 * is then false, and a package's bare token names cannot be resolved.
 */
bool policy_db_is_provided_token(const PolicyDb *db, const char *token);
bool policy_db_knows_provided_tokens(const PolicyDb *db);
/*
 * Whether the file records which package declared each name and what
 * each package provides or guards (format 3 and later). Older files do
 * not: then nobody can be said to speak for a package.
 */
bool policy_db_knows_declarers(const PolicyDb *db);
/*
 * The package that declared the bus name: 0 with *ret_package (NULL when
 * the file does not record it), or POLICY_DB_UNDECLARED; -EINVAL for a
 * missing argument. The string lives as long as db.
 */
int policy_db_name_declarer(const PolicyDb *db, const char *name, const char **ret_package);
/*
 * Whether package provides token (a full label) or guards something
 * with it: a rule or the own token of a system bus name it declared.
 * These are the tokens a connection speaking for the package may ask the
 * bus about (org.mssf.Broker1.CheckToken). False before format 3.
 */
bool policy_db_package_serves_token(const PolicyDb *db, const char *package, const char *token);
/* Whether the device policy lets label monitor (eavesdrop on) the bus. */
bool policy_db_is_monitor_label(const PolicyDb *db, const char *label);
/*
 * Whether the device policy lets label ask CheckToken about its callers
 * for any token, not only those its package provides or guards (its
 * "checkany" lines: the key service's label). False before format 4.
 */
bool policy_db_is_checkany_label(const PolicyDb *db, const char *label);

/*
 * The rule that covers (kind, path, interface, member) under the declared
 * bus name, with the fall-backs of docs/policy-db.md: with an interface,
 * the member's own rule, else the interface's default; without one
 * (interface NULL), the union over every interface at that path for that
 * member, else the union of that path's interface defaults. For properties
 * member is the property name. Returns 0 (ret filled),
 * POLICY_DB_UNDECLARED or POLICY_DB_UNCOVERED. Does not allocate.
 */
int policy_db_lookup(const PolicyDb *db, const char *name, PolicyKind kind, const char *path,
                     const char *interface, const char *member, PolicyRequirement *ret);
const char *policy_requirement_token(const PolicyRequirement *req, size_t i);
/*
 * Whether the declared bus name has any rule of kind for interface at
 * path (a member's own rule or the interface's default; interface NULL:
 * any rule there without interface, i.e. a union): 0,
 * POLICY_DB_UNDECLARED or POLICY_DB_UNCOVERED. What a manifest declares
 * of an interface as a whole (GetAll, an interface in GetManagedObjects);
 * the requirements are still per member. Does not allocate.
 */
int policy_db_lookup_interface(const PolicyDb *db, const char *name, PolicyKind kind,
                               const char *path, const char *interface);

const char *policy_kind_to_string(PolicyKind kind);

/*
 * What DEFINE_CLEANUP(PolicyDb *, policy_db_free) would define; spelled out
 * because this header is installed and must not need common/macro.h.
 */
static inline void policy_db_freep(PolicyDb **db) {
        if (*db)
                policy_db_free(*db);
}
