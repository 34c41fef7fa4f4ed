/* The in-memory MSSF policy model: packages, their manifests, the device policy. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/*
 * Everything here is plain data that the manifest parser fills in and the
 * compiler (policy/db) and the mssf-policy tool read. Every object owns its
 * strings and its children; every *_free() is NULL-safe and returns NULL.
 * Collections are arrays of pointers ("Foo **foos; size_t n_foos"), so a
 * pointer to an element stays valid while more are added.
 *
 * Token labels are always the *resolved, full* Smack label: a global token
 * is bare ("Cellular"), a package token is "package::name"
 * ("mce::DeviceModeControl"), whichever way the manifest spelled it.
 */

/* Where an item was declared; file points into the owning Package. */
typedef struct SourceLoc {
        const char *file;               /* (not owned) Package.file */
        unsigned line;                  /* 1-based */
        unsigned column;                /* 1-based */
} SourceLoc;

/* --------------------------------------------------------------------- */
/* Requests: credentials a package asks for its binaries.                 */

typedef enum CredentialKind {
        CREDENTIAL_TOKEN,               /* a resource token: a Smack label */
        CREDENTIAL_UID,                 /* UID::user */
        CREDENTIAL_GID,                 /* GID::group (primary group) */
        CREDENTIAL_GRP,                 /* GRP::group (supplementary) */
        CREDENTIAL_CAP,                 /* CAP::capability (lower case, no CAP_) */
        CREDENTIAL_MATCH,               /* match="...": a wildcard over full names */
} CredentialKind;

typedef struct Credential {
        CredentialKind kind;
        /*
         * The full resolved name. TOKEN: the token's Smack label
         * ("Cellular", "mce::DeviceModeControl"); UID/GID/GRP/CAP: with its
         * prefix ("CAP::net_admin"); MATCH: the pattern as written.
         */
        char *name;
        char *written;                  /* as written in the manifest */
        /* TOKEN only: the package providing it, NULL for a global token. */
        char *provider;                 /* (nullable) */
        SourceLoc loc;
} Credential;

/* One <for>: the executable that gets a request's credentials. */
typedef struct RequestTarget {
        char *path;                     /* (nullable) absolute path */
        /* "pkg::/usr/bin/y": the package owning that binary; NULL = this one. */
        char *package;                  /* (nullable) */
        char *id;                       /* (nullable) application id; "" = generated */
        SourceLoc loc;
        /* Another package's binary this package may not grant to (set by
         * policy_set_resolve()): it receives nothing. */
        bool refused;
} RequestTarget;

/* <request policy="..."> flags. */
enum {
        REQUEST_POLICY_ADD              = 1u << 0,
        REQUEST_POLICY_SET              = 1u << 1,
        REQUEST_POLICY_NOT_INHERITABLE  = 1u << 2,
        REQUEST_POLICY_TRUST_ZONE       = 1u << 3,
        REQUEST_POLICY_SETXID           = 1u << 4,
};

typedef struct Request {
        Credential **credentials;
        size_t n_credentials;
        RequestTarget **targets;
        size_t n_targets;
        unsigned policy;                /* REQUEST_POLICY_* */
        bool context_install;           /* context="INSTALL": for the install step */
        SourceLoc loc;
} Request;

/* --------------------------------------------------------------------- */
/* Provides: the package's own tokens and D-Bus services.                 */

typedef struct ProvidedToken {
        char *name;                     /* as declared: "DeviceModeControl" */
        char *label;                    /* "mce::DeviceModeControl" */
        bool check_origin;              /* checkorigin="yes" */
        SourceLoc loc;
} ProvidedToken;

/*
 * What a member (or an interface default) requires of a caller, from a
 * com.maemo.Aegis annotation.
 *  - UNSET: no annotation covers it. A *method* that is UNSET is denied
 *    under a declared name; an UNSET signal or property is unrestricted.
 *  - OPEN: value="": no token needed.
 *  - TOKEN: the caller (or recipient, for signals) needs token.
 */
typedef enum RequirementKind {
        REQUIREMENT_UNSET,
        REQUIREMENT_OPEN,
        REQUIREMENT_TOKEN,
} RequirementKind;

typedef struct Requirement {
        RequirementKind kind;
        char *token;                    /* (nullable) resolved label, TOKEN only */
        SourceLoc loc;                  /* the annotation; zero when UNSET */
} Requirement;

typedef enum MemberKind {
        MEMBER_METHOD,
        MEMBER_SIGNAL,                  /* our extension */
        MEMBER_PROPERTY,                /* our extension */
} MemberKind;

typedef enum PropertyAccess {
        PROPERTY_ACCESS_READWRITE,      /* the default */
        PROPERTY_ACCESS_READ,
        PROPERTY_ACCESS_WRITE,
} PropertyAccess;

typedef struct Member {
        MemberKind kind;
        char *name;
        /*
         * Effective requirement (own annotation, else the interface
         * default). Method: to call it. Signal: to receive it. Property:
         * to read it (Get, GetAll, PropertiesChanged, ...).
         */
        Requirement require;
        /* Property only: to Set it (com.maemo.Aegis.Write, else require). */
        Requirement write;
        PropertyAccess access;          /* property only */
        SourceLoc loc;
} Member;

typedef struct Interface {
        char *name;
        Requirement default_require;    /* interface-level com.maemo.Aegis */
        Requirement default_write;      /* interface-level com.maemo.Aegis.Write */
        Member **members;
        size_t n_members;
        SourceLoc loc;                  /* first declaration */
} Interface;

typedef struct Node {
        char *path;                     /* object path */
        Interface **interfaces;
        size_t n_interfaces;
        SourceLoc loc;                  /* first declaration */
} Node;

typedef enum BusKind {
        BUS_SYSTEM,
        BUS_SESSION,
} BusKind;

typedef enum OwnKind {
        OWN_SELF,                       /* own="SELF", and own absent (safe reading) */
        OWN_TOKEN,                      /* own="Token": holders of own_token may own it */
} OwnKind;

typedef struct DbusName {
        char *name;                     /* well-known bus name */
        BusKind bus;
        OwnKind own;
        bool own_explicit;              /* false: own was absent, read as SELF */
        char *own_token;                /* (nullable) resolved label, OWN_TOKEN only */
        /*
         * Labels that may own the name, whatever own says: always the
         * package's own label first, then every <owner label="..."/>.
         */
        char **owner_labels;
        size_t n_owner_labels;
        SourceLoc *owner_locs;          /* where each was named (the <dbus> for the own label) */
        Node **nodes;
        size_t n_nodes;
        SourceLoc loc;                  /* first declaration */
} DbusName;

/* <account><user name="..." group="..."/></account> */
typedef struct Account {
        char *user;
        char *group;                    /* (nullable) */
        SourceLoc loc;
} Account;

/* --------------------------------------------------------------------- */
/* A package: one manifest.                                               */

typedef struct Package {
        char *name;                     /* the package name = its Smack label */
        char *origin;                   /* (nullable) origin passed at install */
        char *file;                     /* manifest path, for diagnostics */
        SourceLoc loc;                  /* the <aegis> element; zero for an empty file */
        Request **requests;
        size_t n_requests;
        ProvidedToken **tokens;
        size_t n_tokens;
        DbusName **names;
        size_t n_names;
        Account **accounts;
        size_t n_accounts;
        /* Filled in by policy_set_resolve(): one entry per requested credential. */
        struct Grant **grants;
        size_t n_grants;
} Package;

/* --------------------------------------------------------------------- */
/* Device policy: what the device maker allows.                           */

typedef struct OriginGrant {
        char *origin;                   /* "system", "operator", ...; "*" = any other */
        /*
         * Patterns over full credential names: exact ("Cellular",
         * "GRP::video", "mce::Foo") or a prefix ending in '*' ("CAP::*",
         * "*"). A pattern covers a checkorigin token only if it names the
         * token exactly or is "*".
         */
        char **patterns;
        size_t n_patterns;
        SourceLoc loc;
} OriginGrant;

typedef struct DevicePolicy {
        char *file;                     /* (nullable) NULL for the built-in default */
        char **global_tokens;           /* the global tokens that exist */
        size_t n_global_tokens;
        OriginGrant **origins;
        size_t n_origins;
        /*
         * Labels beyond its own (and those under it) that a package of an
         * origin may name in <owner label>: "label ORIGIN PATTERN...", the
         * same patterns over labels; origin "*" for every other one.
         */
        OriginGrant **label_origins;
        size_t n_label_origins;
        /*
         * Global tokens a package of an origin may serve: guard its D-Bus
         * members with them and so reach, and be reached by, every holder
         * ("serve ORIGIN PATTERN...").
         */
        OriginGrant **serve_origins;
        size_t n_serve_origins;
        /*
         * Bus names reserved to an origin's packages: a name some "name
         * ORIGIN PATTERN..." line covers may be declared only by packages
         * of an origin whose line covers it (first come for the others).
         */
        OriginGrant **name_origins;
        size_t n_name_origins;
        /* Labels allowed to monitor / eavesdrop on the bus. */
        char **monitor_labels;
        size_t n_monitor_labels;
        /*
         * Labels that may ask the bus (CheckToken) about their callers for
         * any token, not only those their package provides or guards: the
         * key service's, which keys blobs by whatever token an app names.
         */
        char **checkany_labels;
        size_t n_checkany_labels;
} DevicePolicy;

/* --------------------------------------------------------------------- */
/* Grants: what each requested credential finally gets.                   */

typedef enum GrantResult {
        GRANT_GRANTED,
        GRANT_UNKNOWN_TOKEN,            /* no installed package or global token */
        GRANT_ORIGIN_DENIED,            /* the device policy refuses this origin */
        GRANT_CHECKORIGIN_DENIED,       /* checkorigin token, other origin */
} GrantResult;

typedef struct Grant {
        char *name;                     /* full credential name (token label, "CAP::x") */
        CredentialKind kind;            /* never MATCH: matches are expanded */
        GrantResult result;
        const Request *request;         /* (not owned) whose targets receive it */
        const Credential *credential;   /* (not owned) what asked for it */
} Grant;

/* The collection of every installed package plus the device policy. */
typedef struct PolicySet {
        Package **packages;
        size_t n_packages;
        DevicePolicy *device;           /* (owned) never NULL after policy_set_new */
        struct SetIndex *index;         /* (owned) the lookups by name (setindex.h) */
} PolicySet;

/* --------------------------------------------------------------------- */
/* Constructors, destructors, lookups.                                    */

int package_new(const char *name, const char *origin, const char *file, Package **ret);
Package *package_free(Package *package);

/* Lookups inside one package; all return NULL when absent. */
const ProvidedToken *package_find_token(const Package *package, const char *name);
const DbusName *package_find_name(const Package *package, BusKind bus, const char *name);
const Node *dbus_name_find_node(const DbusName *name, const char *path);
const Interface *node_find_interface(const Node *node, const char *name);
const Member *interface_find_member(const Interface *iface, MemberKind kind, const char *name);

int device_policy_new(DevicePolicy **ret);     /* empty: no tokens, no grants */
DevicePolicy *device_policy_free(DevicePolicy *policy);
bool device_policy_has_global_token(const DevicePolicy *policy, const char *token);
/* The rule for an origin: its own line, else the "*" line, else NULL. */
const OriginGrant *device_policy_find_origin(const DevicePolicy *policy, const char *origin);
/* The same for "label" lines, and for "serve" lines. */
const OriginGrant *device_policy_find_label_origin(const DevicePolicy *policy,
                                                   const char *origin);
const OriginGrant *device_policy_find_serve_origin(const DevicePolicy *policy,
                                                   const char *origin);
const OriginGrant *device_policy_find_name_origin(const DevicePolicy *policy,
                                                  const char *origin);

const char *credential_kind_to_string(CredentialKind kind);
const char *member_kind_to_string(MemberKind kind);
const char *bus_kind_to_string(BusKind bus);
const char *grant_result_to_string(GrantResult result);

/* --------------------------------------------------------------------- */
/* Building the model: constructors for its parts and array appends (for
 * the parsers, the codec and the installed set). */

/*
 * Each *_new() returns 0 or -ENOMEM; each *_free() is NULL-safe and returns
 * NULL. model_append() adds item to a pointer array "Foo **foos; size_t
 * n_foos" and returns 0 or -ENOMEM; on failure the caller still owns item.
 */
int model_append(void *array, size_t *n, void *item);
#define MODEL_APPEND(arr, n, item) model_append(&(arr), &(n), (item))

/* strdup that accepts NULL (returns 0 and *ret = NULL). */
int model_strdup(const char *s, char **ret);

int credential_new(CredentialKind kind, const char *name, const char *written,
                   const char *provider, SourceLoc loc, Credential **ret);
Credential *credential_free(Credential *c);

int request_target_new(const char *path, const char *package, const char *id,
                       SourceLoc loc, RequestTarget **ret);
RequestTarget *request_target_free(RequestTarget *t);

int request_new(SourceLoc loc, Request **ret);
Request *request_free(Request *r);

int provided_token_new(const char *package, const char *name, bool check_origin,
                       SourceLoc loc, ProvidedToken **ret);
ProvidedToken *provided_token_free(ProvidedToken *t);

/* label may be NULL unless kind == REQUIREMENT_TOKEN. */
int requirement_set(Requirement *req, RequirementKind kind, const char *token, SourceLoc loc);
void requirement_clear(Requirement *req);
int requirement_copy(Requirement *dst, const Requirement *src);
bool requirement_equal(const Requirement *a, const Requirement *b);

int member_new(MemberKind kind, const char *name, SourceLoc loc, Member **ret);
Member *member_free(Member *m);

int interface_new(const char *name, SourceLoc loc, Interface **ret);
Interface *interface_free(Interface *i);

int node_new(const char *path, SourceLoc loc, Node **ret);
Node *node_free(Node *n);

int dbus_name_new(const char *name, BusKind bus, SourceLoc loc, DbusName **ret);
DbusName *dbus_name_free(DbusName *d);
int dbus_name_add_owner_label(DbusName *d, const char *label, SourceLoc loc);
/* Forget owner label i (one a package may not name). */
void dbus_name_drop_owner_label(DbusName *d, size_t i);

int account_new(const char *user, const char *group, SourceLoc loc, Account **ret);
Account *account_free(Account *a);

int origin_grant_new(const char *origin, SourceLoc loc, OriginGrant **ret);
OriginGrant *origin_grant_free(OriginGrant *o);

int grant_new(const char *name, CredentialKind kind, GrantResult result,
              const Request *request, const Credential *credential, Grant **ret);
Grant *grant_free(Grant *g);

/* a + b + c in a new string (no printf: it is on the parser's hot path), or NULL. */
char *model_join3(const char *a, const char *b, const char *c);

/* Free every string of a string array and the array itself. */
void model_strv_free(char **strv, size_t n);
/* Append a copy of s; 0 or -ENOMEM. */
int model_strv_append(char ***strv, size_t *n, const char *s);
bool model_strv_contains(char *const *strv, size_t n, const char *s);

DEFINE_CLEANUP(Credential *, credential_free);
DEFINE_CLEANUP(RequestTarget *, request_target_free);
DEFINE_CLEANUP(Request *, request_free);
DEFINE_CLEANUP(ProvidedToken *, provided_token_free);
DEFINE_CLEANUP(Member *, member_free);
DEFINE_CLEANUP(Interface *, interface_free);
DEFINE_CLEANUP(Node *, node_free);
DEFINE_CLEANUP(DbusName *, dbus_name_free);
DEFINE_CLEANUP(Account *, account_free);
DEFINE_CLEANUP(OriginGrant *, origin_grant_free);
DEFINE_CLEANUP(Grant *, grant_free);

DEFINE_CLEANUP(Package *, package_free);
DEFINE_CLEANUP(DevicePolicy *, device_policy_free);
