/* MSSF mediation: may this message pass, may this peer own this name (Smack, then tokens). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mediation-needs.h"

typedef struct Message Message;
typedef struct PolicyDb PolicyDb;
typedef struct SmackLabel SmackLabel;
typedef struct SmackOracle SmackOracle;

#define MEDIATION_ERROR_ACCESS_DENIED "org.freedesktop.DBus.Error.AccessDenied"

/* Expected outcomes (positive). */
enum {
        MEDIATION_E_DENIED = 1,         /* the verdict says why */
};

/*
 * A connection as mediation sees it; the bus fills it (and keeps it
 * current as names are acquired, queued and released). All pointers are
 * borrowed.
 */
typedef struct MediationPeer {
        const SmackLabel *label;        /* (nullable) SO_PEERSEC, interned; ignored without Smack */
        const char *unique_name;        /* ":1.42" */
        const char *const *names;       /* well-known names it owns or is queued for, or ever did (declared) */
        size_t n_names;
} MediationPeer;

typedef enum MediationReason {
        MEDIATION_REASON_NONE,          /* allowed */
        MEDIATION_REASON_SMACK,         /* the sender's label lacks "w" on the receiver's */
        MEDIATION_REASON_TOKEN,         /* a required token is not held */
        MEDIATION_REASON_NOT_DECLARED,  /* a method or property under a declared name no manifest covers */
        MEDIATION_REASON_BAD_MESSAGE,   /* Properties.Get/Set/GetAll without exactly its arguments */
        MEDIATION_REASON_OWN,           /* the name's manifest does not let this label own it */
        MEDIATION_REASON_NO_LABEL,      /* Smack is on but a peer has no label */
        MEDIATION_REASON_ERROR,         /* the kernel or the policy could not answer: fail closed */
        _MEDIATION_REASON_MAX,
} MediationReason;

/*
 * The outcome. When allowed only reason (NONE) and needs are set, the
 * rest zero/NULL; needs is known only for an allowed method call.
 * When denied every field is set as far as it applies; the strings point
 * into the message, the peers, the policy snapshot or interned labels, so
 * they are valid while those are (log them right away).
 *
 * Journal fields: MSSF_LABEL=label, MSSF_TOKEN=token,
 * MSSF_DESTINATION=destination, MSSF_MEMBER=member,
 * MSSF_REASON=mediation_reason_to_string(reason).
 */
typedef struct MediationVerdict {
        MediationReason reason;
        int error;                      /* REASON_ERROR: the negative errno behind it */
        const char *error_name;         /* (nullable) D-Bus error for the sender; NULL when allowed */
        const char *label;              /* (nullable) the label that was checked */
        const char *token;              /* (nullable) the token missing */
        const char *object_label;       /* (nullable) REASON_SMACK: the receiver's label */
        const char *destination;        /* (nullable) the name addressed, else the receiver's unique name */
        char member[512];               /* "interface.member", "member", "property interface.Name", or "" */
        char text[1024];                /* the error message, for the sender and the log */
        MediationNeeds needs;           /* an allowed method call: what it needed of its caller */
} MediationVerdict;

/* Allowed and denied (by reason) counts, for the bus to expose. */
typedef struct MediationCounters {
        uint64_t allowed;
        uint64_t denied;
        uint64_t by_reason[_MEDIATION_REASON_MAX];
} MediationCounters;

/*
 * May m go from sender to receiver? Call it after busconfig allowed it,
 * once per recipient (each recipient of a broadcast too). sender NULL or
 * receiver NULL is the bus driver. expected_reply: m is a reply or error
 * the reply tracker expects from sender for receiver. db NULL: no policy
 * loaded (nothing is declared). oracle: the Smack oracle (without Smack it
 * reports so, and label checks are skipped while every token requirement
 * denies).
 *
 * Returns 0 (allowed) or MEDIATION_E_DENIED, with ret filled in either
 * case; -EINVAL for a missing m, oracle or ret (ret then says
 * REASON_ERROR when it can be written: a denial too). Pure: no I/O
 * (except the oracle's kernel questions on a cache miss), no logging.
 */
int mediation_check_message(const MediationPeer *sender, const MediationPeer *receiver, Message *m,
                            bool expected_reply, const PolicyDb *db, SmackOracle *oracle,
                            MediationVerdict *ret);

/*
 * May observer (a monitor or eavesdropper) receive a copy of m, a method
 * return or error from a peer, whose call needed needs of its caller
 * (the record its reply slot kept; NULL or not known: no)? Asked after
 * mediation_check_message() allowed the copy itself (with the observer
 * as receiver): the observer must also hold every token the call needed,
 * so it sees no reply it could not have received as the caller. Messages
 * that are not replies pass. Same returns; pure.
 */
int mediation_check_observer_reply(const MediationPeer *observer, Message *m,
                                   const MediationNeeds *needs, SmackOracle *oracle,
                                   MediationVerdict *ret);

/* May peer own (or queue for) name (RequestName)? Same returns. */
int mediation_check_own(const MediationPeer *peer, const char *name, const PolicyDb *db,
                        SmackOracle *oracle, MediationVerdict *ret);

/* "smack", "token", "not-declared", ... ; NULL for an unknown value. */
const char *mediation_reason_to_string(MediationReason reason);

/* Adds one verdict to the counters. */
void mediation_counters_record(MediationCounters *counters, const MediationVerdict *verdict);
