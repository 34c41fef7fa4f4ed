/* The token decision: may this message pass, may this label own this name. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "db-read.h"

/*
 * Pure functions of (policy snapshot, names, label, message, oracle): no
 * I/O, no logging, no allocation. The bus and `mssf-policy explain` both
 * call them. Return 0 (allow), a POLICY_DECIDE_E_* denial, or a negative
 * errno: -EINVAL for bad arguments, or the oracle's own error. A negative
 * return is a denial too (fail closed); ret is then left untouched.
 */

/* Denials: the expected outcomes of a decision. */
enum {
        POLICY_DECIDE_E_MISSING_TOKEN = 100,    /* a required token is not held */
        POLICY_DECIDE_E_NOT_DECLARED,           /* no manifest rule covers the method or property */
        POLICY_DECIDE_E_OWN_REFUSED,            /* the name's own rule refuses this label */
        POLICY_DECIDE_E_BAD_MESSAGE,            /* Properties.Get/Set/GetAll without its arguments */
};

/*
 * Whether label holds token: 1 yes, 0 no, negative errno when it cannot
 * tell (which denies). The bus answers from the kernel (smackfs access2,
 * "label token w"); tests mock it.
 */
typedef int (*PolicyHasToken)(const char *label, const char *token, void *userdata);

typedef enum PolicyMessageType {
        POLICY_MESSAGE_METHOD_CALL,
        POLICY_MESSAGE_SIGNAL,
} PolicyMessageType;

/*
 * The header fields the decision reads. For org.freedesktop.DBus.Properties
 * Get, Set and GetAll the caller extracts the string arguments first (the
 * interface, and for Get and Set the property; property_interface may be
 * "": any interface); left NULL, the call is refused under a declared
 * name (BAD_MESSAGE). GetAll is judged by its interface being declared at
 * that path: the bus filters its reply property by property.
 */
typedef struct PolicyMessage {
        PolicyMessageType type;
        const char *path;
        const char *interface;                  /* (nullable) */
        const char *member;
        const char *property_interface;         /* (nullable) Get/Set/GetAll only */
        const char *property;                   /* (nullable) Get/Set only */
} PolicyMessage;

/*
 * Why. Strings point into the snapshot or into the arguments; valid while
 * both are. On allow only outcome and label are meaningful.
 */
typedef struct PolicyDecision {
        int outcome;                            /* 0 or POLICY_DECIDE_E_* */
        const char *label;                      /* whose tokens were checked */
        const char *name;                       /* (nullable) the declared bus name */
        const char *token;                      /* (nullable) the token missing */
        PolicyKind kind;                        /* of the rule that decided */
        const char *path;                       /* (nullable) */
        const char *interface;                  /* (nullable) for properties: the property's */
        const char *member;                     /* (nullable) for properties: the property */
} PolicyDecision;

/*
 * A method call or signal to/from a connection owning (or queued for) the
 * well-known names names[0..n_names). For a method call label is the
 * caller's and names the destination's; for a signal label is the
 * recipient's and names the sender's. Only declared names count; with none
 * the message is not the manifests' business and is allowed.
 */
int policy_db_decide(const PolicyDb *db, const char *const *names, size_t n_names,
                     const char *label, const PolicyMessage *message,
                     PolicyHasToken has_token, void *userdata, PolicyDecision *ret);

/*
 * Whether label may own (or queue for) name: undeclared names are not the
 * manifests' business (allowed); a declared one needs label among its
 * owner labels, or the name's own token.
 */
int policy_db_may_own(const PolicyDb *db, const char *name, const char *label,
                      PolicyHasToken has_token, void *userdata, PolicyDecision *ret);

/*
 * The per-property check for filtering GetAll replies, PropertiesChanged,
 * GetManagedObjects and InterfacesAdded: may label see (kind READ) or set
 * (kind WRITE) property on interface at path of a connection owning names?
 * Under a declared name a property no rule covers (its own, or its
 * interface's default, at that exact path) is NOT_DECLARED, as a method
 * would be; with no declared name it is allowed.
 */
int policy_db_check_property(const PolicyDb *db, const char *const *names, size_t n_names,
                             const char *label, PolicyKind kind, const char *path,
                             const char *interface, const char *property,
                             PolicyHasToken has_token, void *userdata, PolicyDecision *ret);

/*
 * The same for an interface as a whole (an interface named in
 * GetManagedObjects, InterfacesAdded or InterfacesRemoved): NOT_DECLARED
 * when names include a declared one but none has any rule of kind for
 * interface at path (interface NULL or "": any rule there without
 * interface); MISSING_TOKEN when the interface's default rule of kind
 * under one of them needs a token label lacks; else 0.
 */
int policy_db_check_interface(const PolicyDb *db, const char *const *names, size_t n_names,
                              const char *label, PolicyKind kind, const char *path,
                              const char *interface, PolicyHasToken has_token, void *userdata,
                              PolicyDecision *ret);

/*
 * The raw requirement for one property under one declared name (what
 * policy_db_check_property() evaluates): 0, POLICY_DB_UNDECLARED or
 * POLICY_DB_UNCOVERED, as policy_db_lookup().
 */
int policy_db_property_requirement(const PolicyDb *db, const char *name, PolicyKind kind,
                                   const char *path, const char *interface,
                                   const char *property, PolicyRequirement *ret);

/* A short English description of a POLICY_DECIDE_E_* code, or NULL. */
const char *policy_decide_outcome_to_string(int outcome);
