/*
 * mediation: the MSSF checks every routed message and every name request
 * passes, after busconfig (DESIGN.md, "Mediation, message by message").
 *
 * Threat model.
 *
 * What is trusted: the kernel and the compiled policy. The kernel gave
 * each connection its Smack label at connect time (SO_PEERSEC; a
 * connection's label never changes), and it answers every access
 * question (smackfs access2, through the oracle, which caches but never
 * decides). A token is a Smack label and a grant is the kernel rule
 * "App Token w", so "does App hold Token" is a kernel question too. The
 * compiled policy snapshot (policy.db, validated when loaded) says which
 * names, members, signals and properties need which tokens, and which
 * labels may own which names. The bus itself is trusted to fill
 * MediationPeer truthfully: the label from the kernel, the names from its
 * registry, expected_reply from its reply tracker.
 *
 * What is not trusted: every client. A client chooses every header field
 * and every argument of what it sends: the destination (a well-known or
 * a unique name), the path, the interface (or none), the member, the
 * Properties arguments, the message type and the reply serial. Nothing a
 * client says about itself is believed: the sender is who the socket is.
 *
 * What each check stops.
 *  1. Smack (sender's label needs "w" on the receiver's label, for every
 *     method call and signal, unicast and per broadcast recipient): an app
 *     talking to a service, or signalling an app, that the device's Smack
 *     policy keeps it away from, exactly as the kernel would stop a write
 *     between them on any other IPC. Expected replies and errors are
 *     exempt: the receiver asked for them, and the reply tracker lets each
 *     through once. An unexpected reply or error is not exempt: it is a
 *     write like any other, checked like a call (busconfig and the reply
 *     tracker drop it anyway). The driver is not label-checked: it is the
 *     bus, not a process with a label.
 *  2. Tokens (policy_db_decide): a call to a connection that owns or is
 *     queued for a declared name needs the tokens its manifest requires,
 *     whichever name the caller used to address it (the check looks at
 *     every name the destination holds, not at the DESTINATION field, so
 *     calling ":1.7" instead of "org.ofono" gains nothing; queued names
 *     count, so a service cannot be reached unprotected while it waits
 *     for its name). A call without an interface field is judged by the
 *     union over interfaces, so omitting the interface gains nothing. An
 *     undeclared method under a declared name is refused. Properties.Get
 *     and Set are judged by the property their arguments name: the
 *     arguments are read here from the body ("ss" / "ssv", exactly); a
 *     Get or Set whose arguments cannot be read is refused under a
 *     declared name, never judged as "no property". A signal from a
 *     declared name reaches a recipient only if the recipient's label
 *     holds the signal's token.
 *  3. Ownership (mediation_check_own): a declared name may be owned or
 *     queued for only by the labels its manifest lists, or a holder of its
 *     own token: no app can squat org.ofono, not even in the queue.
 *  4. Observers (monitors and eavesdroppers): the bus asks this same
 *     question with the observer as receiver and expected_reply false, for
 *     every copy, once the message was allowed for its real recipient. So
 *     an observer sees only what its label could have received as the
 *     recipient: the sender's label needs "w" to the observer's (a reply
 *     or error too: it is not the observer's expected reply), a signal's
 *     tokens must be held by the observer, and the bus filters property
 *     carriers for it as for any recipient. Being a monitor label in the
 *     device policy lets a connection ask to observe; it grants no reach:
 *     the device maker gives it that with Smack rules, app by app, and a
 *     monitor is never shown a protected signal or property its label
 *     could not read. (The alternative, monitors seeing everything as in
 *     dbus-daemon, would make one privileged label a reader of every
 *     token's data without holding any token.)
 *
 * Fail closed: any error from the oracle or the policy denies, with reason
 * ERROR and the errno kept for the log. Without Smack (the oracle says so)
 * there are no labels: the Smack check is skipped, the peers' labels are
 * ignored (SO_PEERSEC then names another LSM's context) and every token
 * requirement denies. Ownership of declared names is then busconfig's
 * alone (DESIGN decision 7: "mediation by busconfig only"): a rule that
 * names labels cannot be judged without labels, and refusing every
 * declared name would leave such a host with no MSSF service at all,
 * while any process there could claim to be the package anyway.
 *
 * Deliberate deviations and limits.
 *  - No policy (db NULL) means nothing is declared: the token and
 *    ownership checks have nothing to enforce, and only busconfig and
 *    Smack apply. Keeping the last good snapshot when a reload fails is the
 *    bus's job.
 *  - The Properties arguments are read only for Get and Set; GetAll, and
 *    PropertiesChanged, GetManagedObjects and InterfacesAdded are the
 *    bus's filtering job (policy_db_check_property), per property.
 *  - A connection receiving its own signal (sender == receiver, the same
 *    connection) is not token-checked: nothing flows to anyone else.
 *    Another connection with the same label is checked like any other.
 *  - Messages from the driver (NameOwnerChanged, replies) are not
 *    mediated here; signals the driver emits name no protected member.
 *  - An observer that itself owns a declared name is judged as that
 *    recipient would be: a call addressed to someone else, seen with the
 *    observer as the holder of the names, is "not declared" there and not
 *    copied. Literal, and it can only hide more.
 *  - Counting is the caller's (mediation_counters_record()); this code
 *    keeps no state of its own, does no I/O other than the oracle's
 *    kernel questions on a cache miss, and never logs.
 */
#include "mediation.h"

#include <errno.h>
#include <string.h>

#include "decide.h"
#include "mediation-verdict.h"
#include "message.h"
#include "smack-oracle.h"

#define DBUS_INTERFACE_PROPERTIES "org.freedesktop.DBus.Properties"

/* The oracle as decide.h's PolicyHasToken sees it: subject already interned. */
typedef struct TokenContext {
        SmackOracle *oracle;
        const SmackLabel *subject;      /* (nullable) */
} TokenContext;

static int token_has(const char *label, const char *token, void *userdata) {
        const TokenContext *context = userdata;

        /* decide.h hands back the label it was given: ours, by pointer. */
        if (context->subject && label != context->subject->text)
                return -EINVAL;
        return smack_has_token(context->oracle, context->subject, token);
}

/* The peer's Smack label; labels mean nothing without Smack. */
static const SmackLabel *peer_label(const MediationPeer *peer, SmackOracle *oracle) {
        return peer && smack_oracle_has_smack(oracle) ? peer->label : NULL;
}

static const char *label_text(const SmackLabel *label) {
        return label ? label->text : "";
}

/* Step 2 of DESIGN.md: sender's label needs "w" on the receiver's. */
static int check_smack(const MediationPeer *sender, const MediationPeer *receiver,
                       const MediationSubject *subject, bool expected_reply, SmackOracle *oracle,
                       MediationVerdict *ret) {
        const SmackLabel *from, *to;
        int r;

        if (!sender || !receiver)
                return 0;       /* the driver */
        if (!smack_oracle_has_smack(oracle))
                return 0;       /* no Smack: busconfig only */
        if (subject->is_reply && expected_reply)
                return 0;       /* asked for, let through once by the reply tracker */
        from = sender->label;
        to = receiver->label;
        if (!from || !to)
                return mediation_verdict_deny_no_label(ret, subject, !from ? "sender" : "receiver");
        r = smack_has_access(oracle, from, to, "w");
        if (r > 0)
                return 0;
        if (r == 0)
                return mediation_verdict_deny_smack(ret, subject, from->text, to->text);
        return mediation_verdict_deny_error(ret, subject, r, "Smack", from->text);
}

/*
 * Properties.Get ("ss") and Set ("ssv"): the interface and property the
 * arguments name. Anything else leaves them NULL, which policy_db_decide()
 * refuses under a declared name.
 */
static void read_property_arguments(Message *m, PolicyMessage *pm) {
        const char *signature = message_get_signature(m);
        const char *expected = strcmp(pm->member, "Get") == 0 ? "ss" : "ssv";
        const char *interface = NULL, *property = NULL;
        MessageReader reader;

        if (!signature || strcmp(signature, expected) != 0)
                return;
        message_reader_init(&reader, m);
        if (message_reader_read_basic(&reader, 's', &interface) != 0 ||
            message_reader_read_basic(&reader, 's', &property) != 0)
                return;
        pm->property_interface = interface;
        pm->property = property;
}

static bool is_properties_get_or_set(const PolicyMessage *pm) {
        return pm->interface && strcmp(pm->interface, DBUS_INTERFACE_PROPERTIES) == 0 &&
               (strcmp(pm->member, "Get") == 0 || strcmp(pm->member, "Set") == 0);
}

static int decision_to_verdict(int r, const PolicyDecision *decision, const MediationSubject *subject,
                               const char *label, SmackOracle *oracle, MediationVerdict *ret) {
        if (r == 0)
                return 0;
        if (r < 0)
                return mediation_verdict_deny_error(ret, subject, r, "token", label);
        return mediation_verdict_deny_decision(ret, subject, decision, !smack_oracle_has_smack(oracle));
}

/* Step 3: tokens, for calls to and signals from connections holding declared names. */
static int check_tokens(const MediationPeer *sender, const MediationPeer *receiver, Message *m,
                        MediationSubject *subject, const PolicyDb *db, SmackOracle *oracle,
                        MediationVerdict *ret) {
        const MediationPeer *holder, *asker;
        PolicyDecision decision;
        PolicyMessage pm;
        TokenContext context = { .oracle = oracle };
        int r;

        if (!db || !sender || !receiver || subject->is_reply)
                return 0;
        if (sender == receiver)
                return 0;       /* a connection hearing itself learns nothing */
        if (subject->type == MESSAGE_METHOD_CALL) {
                holder = receiver;      /* the destination's names, the caller's tokens */
                asker = sender;
        } else {
                holder = sender;        /* the sender's names, the recipient's tokens */
                asker = receiver;
        }
        if (holder->n_names == 0)
                return 0;
        pm = (PolicyMessage) {
                .type = subject->type == MESSAGE_METHOD_CALL ? POLICY_MESSAGE_METHOD_CALL
                                                             : POLICY_MESSAGE_SIGNAL,
                .path = subject->path,
                .interface = subject->interface,
                .member = subject->member,
        };
        if (!pm.path || !pm.member)
                return mediation_verdict_deny_error(ret, subject, -EBADMSG, "token",
                                                    label_text(peer_label(asker, oracle)));
        if (pm.type == POLICY_MESSAGE_METHOD_CALL && is_properties_get_or_set(&pm)) {
                read_property_arguments(m, &pm);
                subject->property_interface = pm.property_interface;
                subject->property = pm.property;
        }
        context.subject = peer_label(asker, oracle);
        r = policy_db_decide(db, holder->names, holder->n_names, label_text(context.subject), &pm,
                             token_has, &context, &decision);
        return decision_to_verdict(r, &decision, subject, label_text(context.subject), oracle, ret);
}

int mediation_check_message(const MediationPeer *sender, const MediationPeer *receiver, Message *m,
                            bool expected_reply, const PolicyDb *db, SmackOracle *oracle,
                            MediationVerdict *ret) {
        MediationSubject subject;
        int r;

        if (!ret)
                return -EINVAL;
        mediation_verdict_allow(ret);
        if (!m || !oracle) {
                mediation_verdict_deny_error(ret, NULL, -EINVAL, "argument", "");
                return -EINVAL;
        }
        mediation_subject_init(&subject, sender, receiver, m);

        /* The ladder, in DESIGN.md's order (busconfig ran before); the first denial ends it. */
        if (subject.type == MESSAGE_INVALID)
                /* 0. A type this code does not know cannot be judged. */
                r = mediation_verdict_deny_error(ret, &subject, -EBADMSG, "message type",
                                                 label_text(peer_label(sender, oracle)));
        else if ((r = check_smack(sender, receiver, &subject, expected_reply, oracle, ret)) == 0)
                /* 1. Smack allowed (or did not apply): 2. tokens. */
                r = check_tokens(sender, receiver, m, &subject, db, oracle, ret);
        return r;
}

int mediation_check_own(const MediationPeer *peer, const char *name, const PolicyDb *db,
                        SmackOracle *oracle, MediationVerdict *ret) {
        const SmackLabel *label;
        PolicyDecision decision;
        TokenContext context = { .oracle = oracle };
        int r;

        if (!ret)
                return -EINVAL;
        mediation_verdict_allow(ret);
        if (!peer || !name || !oracle) {
                mediation_verdict_deny_error(ret, NULL, -EINVAL, "argument", "");
                return -EINVAL;
        }
        if (!db || !smack_oracle_has_smack(oracle))
                return 0;
        label = peer_label(peer, oracle);
        context.subject = label;
        r = policy_db_may_own(db, name, label_text(label), token_has, &context, &decision);
        if (r == 0)
                return 0;
        if (r < 0)
                return mediation_verdict_deny_own_error(ret, name, r, label_text(label));
        return mediation_verdict_deny_own(ret, name, &decision, !smack_oracle_has_smack(oracle));
}
