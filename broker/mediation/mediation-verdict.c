/*
 * mediation-verdict: turns a denial into what the sender reads (the
 * AccessDenied text) and what the journal records (the MSSF_* fields),
 * and counts verdicts.
 *
 * Texts name the rule that denied: the sender's (or recipient's) label,
 * the missing token or Smack rule, the destination and the member. They
 * are built only on denial; an allowed message costs a few stores. Every
 * string a verdict points to is borrowed from the message, the peers,
 * interned labels or the policy snapshot; the text and member are copied
 * into the verdict (truncated, always terminated). No I/O, no logging.
 */
#include "mediation-internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "message.h"

#define NO_SMACK_NOTE " (this system has no Smack: no label holds a token)"

static const char *const reason_names[_MEDIATION_REASON_MAX] = {
        [MEDIATION_REASON_NONE] = "allowed",
        [MEDIATION_REASON_SMACK] = "smack",
        [MEDIATION_REASON_TOKEN] = "token",
        [MEDIATION_REASON_NOT_DECLARED] = "not-declared",
        [MEDIATION_REASON_BAD_MESSAGE] = "bad-message",
        [MEDIATION_REASON_OWN] = "own",
        [MEDIATION_REASON_NO_LABEL] = "no-label",
        [MEDIATION_REASON_ERROR] = "error",
};

const char *mediation_reason_to_string(MediationReason reason) {
        if ((unsigned) reason >= _MEDIATION_REASON_MAX)
                return NULL;
        return reason_names[reason];
}

void mediation_counters_record(MediationCounters *counters, const MediationVerdict *verdict) {
        if ((unsigned) verdict->reason >= _MEDIATION_REASON_MAX)
                return;
        if (verdict->reason == MEDIATION_REASON_NONE)
                counters->allowed++;
        else
                counters->denied++;
        counters->by_reason[verdict->reason]++;
}

void mediation_subject_init(MediationSubject *subject, const MediationPeer *sender,
                            const MediationPeer *receiver, Message *m) {
        uint8_t type = message_get_type(m);
        const char *addressed = message_get_destination(m), *destination = addressed;

        if (type < MESSAGE_METHOD_CALL || type > MESSAGE_SIGNAL)
                type = MESSAGE_INVALID;
        if (!destination)
                destination = receiver ? receiver->unique_name : "org.freedesktop.DBus";
        *subject = (MediationSubject) {
                .type = type,
                .is_reply = type == MESSAGE_METHOD_RETURN || type == MESSAGE_ERROR,
                .path = message_get_path(m),
                .interface = message_get_interface(m),
                .member = message_get_member(m),
                .error_name = message_get_error_name(m),
                .destination = destination,
                .unicast = type == MESSAGE_SIGNAL && addressed && receiver,
        };
        /* A broadcast signal goes to each recipient: name the recipient. */
        if (type == MESSAGE_SIGNAL && !addressed && receiver)
                subject->destination = receiver->unique_name;
}

void mediation_verdict_allow(MediationVerdict *ret) {
        ret->reason = MEDIATION_REASON_NONE;
        ret->error = 0;
        ret->error_name = NULL;
        ret->label = NULL;
        ret->token = NULL;
        ret->object_label = NULL;
        ret->destination = NULL;
        ret->member[0] = '\0';
        ret->text[0] = '\0';
        ret->needs.known = false;
        ret->needs.n_tokens = 0;
}

/* "interface.member", "member", or the property "interface.Name". */
static void subject_member(const MediationSubject *subject, char *buf, size_t size) {
        const char *interface = subject->interface, *member = subject->member;

        if (subject->property) {
                interface = subject->property_interface && subject->property_interface[0]
                                    ? subject->property_interface : NULL;
                member = subject->property;
        }
        if (subject->type == MESSAGE_ERROR && subject->error_name)
                snprintf(buf, size, "%s", subject->error_name);
        else if (!member)
                buf[0] = '\0';
        else if (interface)
                snprintf(buf, size, "%s.%s", interface, member);
        else
                snprintf(buf, size, "%s", member);
}

/* "method org.x.Y.Z", "signal org.x.Y.Z", "a reply", "error org.x.Error.E". */
static void subject_describe(const MediationSubject *subject, const char *member, char *buf,
                             size_t size) {
        switch (subject->type) {
        case MESSAGE_METHOD_CALL:
                snprintf(buf, size, "method %s", member);
                break;
        case MESSAGE_SIGNAL:
                snprintf(buf, size, "signal %s", member);
                break;
        case MESSAGE_METHOD_RETURN:
                snprintf(buf, size, "a reply");
                break;
        case MESSAGE_ERROR:
                snprintf(buf, size, "error %s", member);
                break;
        default:
                snprintf(buf, size, "a message of unknown type");
                break;
        }
}

static int deny(MediationVerdict *ret, MediationReason reason, const MediationSubject *subject,
                const char *label) {
        ret->reason = reason;
        ret->needs.known = false;
        ret->error_name = MEDIATION_ERROR_ACCESS_DENIED;
        ret->label = label;
        ret->destination = subject ? subject->destination : NULL;
        if (subject)
                subject_member(subject, ret->member, sizeof(ret->member));
        return MEDIATION_E_DENIED;
}

int mediation_verdict_deny_smack(MediationVerdict *ret, const MediationSubject *subject,
                                 const char *label, const char *object_label) {
        char what[600];

        deny(ret, MEDIATION_REASON_SMACK, subject, label);
        ret->object_label = object_label;
        subject_describe(subject, ret->member, what, sizeof(what));
        snprintf(ret->text, sizeof(ret->text),
                 "Rejected: label \"%s\" lacks Smack access \"%s %s w\" to send %s to %s",
                 label, label, object_label, what, subject->destination);
        return MEDIATION_E_DENIED;
}

int mediation_verdict_deny_no_label(MediationVerdict *ret, const MediationSubject *subject,
                                    const char *which) {
        char what[600];

        deny(ret, MEDIATION_REASON_NO_LABEL, subject, NULL);
        subject_describe(subject, ret->member, what, sizeof(what));
        snprintf(ret->text, sizeof(ret->text),
                 "Rejected: the %s has no Smack label (%s to %s)", which, what, subject->destination);
        return MEDIATION_E_DENIED;
}

static const char *error_description(int error) {
        const char *text = strerrordesc_np(error < 0 ? -error : error);

        return text ? text : "unknown error";
}

int mediation_verdict_deny_error(MediationVerdict *ret, const MediationSubject *subject, int error,
                                 const char *check, const char *label) {
        char what[600];

        deny(ret, MEDIATION_REASON_ERROR, subject, label);
        ret->error = error;
        if (!subject) {
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: mediation was called wrongly (%s): denied", error_description(error));
                return MEDIATION_E_DENIED;
        }
        subject_describe(subject, ret->member, what, sizeof(what));
        snprintf(ret->text, sizeof(ret->text),
                 "Rejected: the %s check could not be answered (%s), so it denies: label \"%s\", %s to %s",
                 check, error_description(error), label, what, subject->destination);
        return MEDIATION_E_DENIED;
}

/* 'label "x"', or what stands for a label on a system without Smack. */
static void label_phrase(const char *label, char *buf, size_t size) {
        if (label && label[0])
                snprintf(buf, size, "label \"%s\"", label);
        else
                snprintf(buf, size, "a peer without a Smack label");
}

static int deny_token(MediationVerdict *ret, const MediationSubject *subject,
                      const PolicyDecision *decision, bool no_smack) {
        const char *note = no_smack ? NO_SMACK_NOTE : "";
        char who[300];

        deny(ret, MEDIATION_REASON_TOKEN, subject, decision->label);
        ret->token = decision->token;
        label_phrase(decision->label, who, sizeof(who));
        if (subject->as_call)
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: %s lacks token \"%s\" required by %s for method %s, and a "
                         "signal sent to it is judged as that call%s",
                         who, decision->token, decision->name, ret->member, note);
        else if (subject->type == MESSAGE_SIGNAL)
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: %s lacks token \"%s\" required by %s to receive signal %s%s",
                         who, decision->token, decision->name, ret->member, note);
        else if (subject->property)
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: %s lacks token \"%s\" required by %s for property %s (Properties.%s)%s",
                         who, decision->token, decision->name, ret->member, subject->member, note);
        else
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: %s lacks token \"%s\" required by %s for method %s%s",
                         who, decision->token, decision->name, ret->member, note);
        return MEDIATION_E_DENIED;
}

/* What no manifest line covers: a method, a property, an interface's properties, a signal sent in. */
static int deny_not_declared(MediationVerdict *ret, const MediationSubject *subject,
                             const PolicyDecision *decision) {
        char who[300];

        deny(ret, MEDIATION_REASON_NOT_DECLARED, subject, decision->label);
        label_phrase(decision->label, who, sizeof(who));
        if (subject->as_call)
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: the manifest of %s does not declare method %s at %s, so it may "
                         "not be sent that signal (%s)",
                         decision->name, ret->member, subject->path, who);
        else if (subject->property)
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: the manifest of %s does not declare property %s at %s "
                         "(Properties.%s) (%s)",
                         decision->name, ret->member, subject->path, subject->member, who);
        else if (subject->property_interface)
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: the manifest of %s declares no property of interface \"%s\" "
                         "at %s (Properties.%s) (%s)",
                         decision->name, subject->property_interface, subject->path,
                         subject->member, who);
        else
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: the manifest of %s does not declare method %s at %s (%s)",
                         decision->name, ret->member, subject->path, who);
        return MEDIATION_E_DENIED;
}

int mediation_verdict_deny_reply_copy(MediationVerdict *ret, const MediationSubject *subject,
                                      const char *label, const char *token) {
        deny(ret, MEDIATION_REASON_TOKEN, subject, label);
        ret->token = token;
        if (token)
                snprintf(ret->text, sizeof(ret->text),
                         "Withheld from an observer: label \"%s\" lacks token \"%s\", which the "
                         "call this reply answers needed",
                         label, token);
        else
                snprintf(ret->text, sizeof(ret->text),
                         "Withheld from an observer: what the call this reply answers needed is not "
                         "known (label \"%s\")",
                         label);
        return MEDIATION_E_DENIED;
}

int mediation_verdict_deny_decision(MediationVerdict *ret, const MediationSubject *subject,
                                    const PolicyDecision *decision, bool no_smack) {
        char who[300];

        switch (decision->outcome) {
        case POLICY_DECIDE_E_MISSING_TOKEN:
                return deny_token(ret, subject, decision, no_smack);
        case POLICY_DECIDE_E_NOT_DECLARED:
                return deny_not_declared(ret, subject, decision);
        case POLICY_DECIDE_E_BAD_MESSAGE:
                deny(ret, MEDIATION_REASON_BAD_MESSAGE, subject, decision->label);
                label_phrase(decision->label, who, sizeof(who));
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: Properties.%s to %s (declared by a manifest) without exactly its "
                         "arguments (%s, signature \"%s\") (%s)",
                         subject->member, subject->destination,
                         strcmp(subject->member, "Get") == 0 ? "interface and property" :
                         strcmp(subject->member, "Set") == 0 ? "interface, property and value" :
                                                               "interface",
                         strcmp(subject->member, "Get") == 0 ? "ss" :
                         strcmp(subject->member, "Set") == 0 ? "ssv" : "s", who);
                return MEDIATION_E_DENIED;
        default:
                return mediation_verdict_deny_error(ret, subject, -EINVAL, "token", decision->label);
        }
}

int mediation_verdict_deny_own(MediationVerdict *ret, const char *name,
                               const PolicyDecision *decision, bool no_smack) {
        char who[300];

        deny(ret, MEDIATION_REASON_OWN, NULL, decision->label);
        ret->token = decision->token;
        ret->destination = name;
        snprintf(ret->member, sizeof(ret->member), "RequestName");
        label_phrase(decision->label, who, sizeof(who));
        if (decision->token)
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: %s may not own %s: its manifest reserves it for other labels "
                         "and holders of token \"%s\"%s",
                         who, name, decision->token, no_smack ? NO_SMACK_NOTE : "");
        else
                snprintf(ret->text, sizeof(ret->text),
                         "Rejected: %s may not own %s: its manifest reserves it for other labels",
                         who, name);
        return MEDIATION_E_DENIED;
}

int mediation_verdict_deny_own_error(MediationVerdict *ret, const char *name, int error,
                                     const char *label) {
        deny(ret, MEDIATION_REASON_ERROR, NULL, label);
        ret->error = error;
        ret->destination = name;
        snprintf(ret->member, sizeof(ret->member), "RequestName");
        snprintf(ret->text, sizeof(ret->text),
                 "Rejected: the ownership check for %s could not be answered (%s), so it denies (label \"%s\")",
                 name, error_description(error), label);
        return MEDIATION_E_DENIED;
}
