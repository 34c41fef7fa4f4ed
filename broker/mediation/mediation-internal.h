/* mediation-internal: the verdict builders that mediation.c and mediation-verdict.c share. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "mediation.h"

typedef struct PolicyDecision PolicyDecision;

/* The parts of a message and its ends that a verdict names. */
typedef struct MediationSubject {
        uint8_t type;                   /* MESSAGE_*; MESSAGE_INVALID for an unknown type */
        bool is_reply;                  /* METHOD_RETURN or ERROR */
        const char *path;               /* (nullable) */
        const char *interface;          /* (nullable) */
        const char *member;             /* (nullable) */
        const char *error_name;         /* (nullable) */
        const char *destination;        /* as addressed, else the receiver's unique name */
        const char *property_interface; /* (nullable) Properties.Get/Set/GetAll only */
        const char *property;           /* (nullable) Properties.Get/Set only */
        bool unicast;                   /* a signal addressed to the receiver (DESTINATION set) */
        bool as_call;                   /* that signal, judged as a call into the receiver */
} MediationSubject;

void mediation_subject_init(MediationSubject *subject, const MediationPeer *sender,
                            const MediationPeer *receiver, Message *m);

void mediation_verdict_allow(MediationVerdict *ret);

/* Each fills ret for a denial and returns MEDIATION_E_DENIED. */
int mediation_verdict_deny_smack(MediationVerdict *ret, const MediationSubject *subject,
                                 const char *label, const char *object_label);
int mediation_verdict_deny_no_label(MediationVerdict *ret, const MediationSubject *subject,
                                    const char *which);
int mediation_verdict_deny_decision(MediationVerdict *ret, const MediationSubject *subject,
                                    const PolicyDecision *decision, bool no_smack);
int mediation_verdict_deny_error(MediationVerdict *ret, const MediationSubject *subject, int error,
                                 const char *check, const char *label);
/* An observer's copy of a reply: token (NULL: the call's needs were not recorded) not held. */
int mediation_verdict_deny_reply_copy(MediationVerdict *ret, const MediationSubject *subject,
                                      const char *label, const char *token);
int mediation_verdict_deny_own(MediationVerdict *ret, const char *name,
                               const PolicyDecision *decision, bool no_smack);
int mediation_verdict_deny_own_error(MediationVerdict *ret, const char *name, int error,
                                     const char *label);
