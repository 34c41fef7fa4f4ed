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
 * Nor is any service trusted to dispatch carefully: some serve a whole
 * subtree (sd-bus fallback vtables, GDBus subtrees, dbus-python's
 * FallbackObject), some look at the member alone, some compare names
 * without case. So nothing under a declared name is open because a
 * service would probably refuse it: only what a manifest line covers,
 * at that exact path, in that exact case, passes.
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
 *     for its name; and so do the declared names it held earlier, which
 *     the bus keeps in MediationPeer.names for the rest of the connection,
 *     so one that released its name, or lost it to a replacement, cannot
 *     be reached unprotected by its unique name). A call without an
 *     interface field is judged by the
 *     union over interfaces, so omitting the interface gains nothing. A
 *     method no line covers is refused ("not declared"). Of
 *     org.freedesktop.DBus.Peer only Ping and GetMachineId are open (the
 *     D-Bus libraries answer them without the service's code); any other
 *     member is an undeclared method. Properties.Get, Set and GetAll are
 *     judged like methods, by what their arguments name: the property (or
 *     for GetAll the interface) must be covered at that path, by its own
 *     line or its interface's default, and its tokens held; uncovered is
 *     "not declared". The arguments are read here only from exactly "ss",
 *     "ssv" or "s"; any other body is refused (a service may read a longer
 *     or shorter one its own way), never judged as "no property". Peer's
 *     two members and Properties' three also need what a call without
 *     interface to the service's own member of that name needs, where the
 *     manifest declares one: a service dispatching by member alone would
 *     run that one. A signal from a declared name reaches a recipient only
 *     if the recipient's label holds the signal's token. A signal
 *     addressed to a connection holding a declared name is judged, in
 *     addition, as a call of its (path, interface, member) into it: the
 *     sender needs the tokens of the method line that covers it, and with
 *     none it is refused. The destination cannot refuse a unicast signal
 *     (no match rule selects it, and libdbus and GDBus hand it to any
 *     filter or subscription without a sender), so a service that reacts
 *     to signals would be driven by anyone with Smack reach; a method line
 *     is what a manifest says about the input a service accepts.
 *     Broadcast signals are not judged so: they reach a service only
 *     through its own match rules, which can name the sender.
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
 *     carriers for it as for any recipient. A reply or error is the
 *     caller's, so an observer must also hold every token the call needed
 *     (mediation_check_observer_reply()): an allowed call's verdict
 *     carries the tokens its decision required (MediationNeeds), the bus
 *     keeps them in the reply slot, and each observer copy of the reply is
 *     judged by them; a Properties.Get reply thereby needs the property's
 *     read tokens. The record is made when the call is judged, so a
 *     monitor joining, the callee releasing or acquiring names, or a
 *     reload before the reply change nothing; without a record (more
 *     tokens than it keeps, a connection calling itself without its own
 *     tokens) no observer gets a copy. Being a monitor label in the
 *     device policy lets a connection ask to observe; it grants no reach:
 *     the device maker gives it that with Smack rules, app by app, and a
 *     monitor is never shown a protected signal, reply or property its
 *     label could not have received. (The alternative, monitors seeing
 *     everything as in dbus-daemon, would make one privileged label a
 *     reader of every token's data without holding any token.)
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
 *  - GetAll is judged by its interface alone; its reply, and
 *    PropertiesChanged, GetManagedObjects, InterfacesAdded and
 *    InterfacesRemoved, are the bus's filtering job per property and
 *    interface (policy_db_check_property, policy_db_check_interface),
 *    with the same rule: under a declared name what no line covers is
 *    hidden.
 *  - A call without interface, Get("", P) and GetAll("") are judged by
 *    the union over the path's interfaces; which interface the service
 *    then picks is its own business.
 *  - A unicast signal between two declared services needs both
 *    manifests: the sender's signal line (the recipient's token) and a
 *    method line of the recipient (the sender's token).
 *  - A connection calling itself is not refused; its record for observers
 *    is made with its own label.
 *  - A connection receiving its own signal (sender == receiver, the same
 *    connection) is not token-checked: nothing flows to anyone else.
 *    Another connection with the same label is checked like any other.
 *  - Messages from the driver (NameOwnerChanged, replies) are not
 *    mediated here; signals the driver emits name no protected member.
 *    Under mediation (Smack, or a compiled policy) the bus copies its
 *    AccessDenied answers to no observer (dispatch-observe.c): a denied
 *    message is copied to no one, nor is its refusal. Without either,
 *    monitors see both, as dbus-daemon's do.
 *  - Descriptors are not judged here (reading their labels is I/O): the
 *    kernel judges them at the recipient's recvmsg(), and a recipient
 *    whose kernel refuses one is disconnected by its library. So the bus
 *    asks ahead, in mediate.c (smack-fd.c). An observer's copy carrying a
 *    descriptor its label could not receive is withheld, failing closed
 *    (a label that cannot be read withholds it too). A unicast (call,
 *    signal, reply) is refused with AccessDenied to its sender, logged,
 *    only when the kernel would certainly refuse it: a descriptor's label
 *    was read, the rules deny it to the recipient's label, and the
 *    recipient did not hold CAP_MAC_OVERRIDE when it connected. Anything
 *    less certain is delivered for the kernel to judge, since refusing
 *    it would refuse what the kernel lets through; a refused reply's
 *    caller is told too (tests/e2e/README.md, "Attacked again").
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
#include "mediation-internal.h"
#include "message.h"
#include "smack-label.h"
#include "smack-oracle.h"

#define DBUS_INTERFACE_PROPERTIES "org.freedesktop.DBus.Properties"

/*
 * The oracle as decide.h's PolicyHasToken sees it: subject already
 * interned. needs (nullable) collects each token found held: on an
 * allowed decision, every token it required.
 */
typedef struct TokenContext {
        SmackOracle *oracle;
        const SmackLabel *subject;      /* (nullable) */
        MediationNeeds *needs;          /* (nullable) */
} TokenContext;

static void needs_add(MediationNeeds *needs, const SmackLabel *token) {
        for (unsigned i = 0; i < needs->n_tokens; i++)
                if (needs->tokens[i] == token)
                        return;
        if (needs->n_tokens == MEDIATION_NEEDS_MAX) {
                needs->known = false;   /* too many to keep: observers get no copy */
                return;
        }
        needs->tokens[needs->n_tokens++] = token;
}

static int token_has(const char *label, const char *token, void *userdata) {
        const TokenContext *context = userdata;
        const SmackLabel *token_label = NULL;
        int r;

        /* decide.h hands back the label it was given: ours, by pointer. */
        if (context->subject && label != context->subject->text)
                return -EINVAL;
        r = smack_has_token_label(context->oracle, context->subject, token, &token_label);
        if (r > 0 && context->needs)
                needs_add(context->needs, token_label);
        return r;
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

static bool is_properties_member(const PolicyMessage *pm) {
        return pm->interface && strcmp(pm->interface, DBUS_INTERFACE_PROPERTIES) == 0 &&
               (strcmp(pm->member, "Get") == 0 || strcmp(pm->member, "Set") == 0 ||
                strcmp(pm->member, "GetAll") == 0);
}

/*
 * Properties.Get ("ss"), Set ("ssv") and GetAll ("s"): the interface and
 * property the arguments name, read only when the body has exactly that
 * signature. Anything else leaves them NULL, which policy_db_decide()
 * refuses under a declared name: a service may read a longer or shorter
 * body its own way, so it is never judged as "no property".
 */
static void read_property_arguments(Message *m, PolicyMessage *pm) {
        const char *signature = message_get_signature(m);
        const char *expected = strcmp(pm->member, "Get") == 0 ? "ss" :
                               strcmp(pm->member, "Set") == 0 ? "ssv" : "s";
        const char *interface = NULL, *property = NULL;
        MessageReader reader;

        if (!signature || strcmp(signature, expected) != 0)
                return;
        message_reader_init(&reader, m);
        if (message_reader_read_basic(&reader, 's', &interface) != 0)
                return;
        if (expected[1] && message_reader_read_basic(&reader, 's', &property) != 0)
                return;
        pm->property_interface = interface;
        pm->property = property;
}

static int decision_to_verdict(int r, const PolicyDecision *decision, const MediationSubject *subject,
                               const char *label, SmackOracle *oracle, MediationVerdict *ret) {
        if (r == 0)
                return 0;
        if (r < 0)
                return mediation_verdict_deny_error(ret, subject, r, "token", label);
        return mediation_verdict_deny_decision(ret, subject, decision, !smack_oracle_has_smack(oracle));
}

/*
 * One token decision: m, as type, judged under holder's names with
 * asker's tokens; needs (nullable) collects what it required. A
 * connection holding no name is not the manifests' business.
 */
static int decide_tokens(const MediationPeer *holder, const MediationPeer *asker, Message *m,
                         PolicyMessageType type, MediationSubject *subject, const PolicyDb *db,
                         SmackOracle *oracle, MediationNeeds *needs, MediationVerdict *ret) {
        TokenContext context;
        PolicyDecision decision;
        PolicyMessage pm;
        int r;

        if (holder->n_names == 0)
                return 0;       /* the common case: first, before anything is set up */
        context = (TokenContext) { .oracle = oracle, .subject = peer_label(asker, oracle), .needs = needs };
        pm = (PolicyMessage) {
                .type = type,
                .path = subject->path,
                .interface = subject->interface,
                .member = subject->member,
        };
        if (!pm.path || !pm.member)
                return mediation_verdict_deny_error(ret, subject, -EBADMSG, "token",
                                                    label_text(context.subject));
        if (type == POLICY_MESSAGE_METHOD_CALL && is_properties_member(&pm)) {
                read_property_arguments(m, &pm);
                subject->property_interface = pm.property_interface;
                subject->property = pm.property;
        }
        r = policy_db_decide(db, holder->names, holder->n_names, label_text(context.subject), &pm,
                             token_has, &context, &decision);
        return decision_to_verdict(r, &decision, subject, label_text(context.subject), oracle, ret);
}

/*
 * A connection calling itself learns nothing and is not refused; but an
 * observer of the reply must still hold what the call needs, so the
 * decision runs for the record alone (a denial leaves it not known).
 */
static void record_own_call(const MediationPeer *peer, Message *m, MediationSubject *subject,
                            const PolicyDb *db, SmackOracle *oracle, MediationVerdict *ret) {
        MediationVerdict scratch;

        mediation_verdict_allow(&scratch);
        scratch.needs.known = true;
        if (decide_tokens(peer, peer, m, POLICY_MESSAGE_METHOD_CALL, subject, db, oracle,
                          &scratch.needs, &scratch) != 0)
                scratch.needs.known = false;
        ret->needs = scratch.needs;
        subject->property_interface = subject->property = NULL;
}

/* Step 3: tokens, for calls to and signals from (or to) connections holding declared names. */
static int check_tokens(const MediationPeer *sender, const MediationPeer *receiver, Message *m,
                        MediationSubject *subject, const PolicyDb *db, SmackOracle *oracle,
                        MediationVerdict *ret) {
        int r;

        if (subject->type == MESSAGE_METHOD_CALL)
                ret->needs.known = true;        /* nothing needed, unless the decision says so */
        if (!db || !sender || !receiver || subject->is_reply)
                return 0;
        if (subject->type == MESSAGE_METHOD_CALL) {
                if (sender == receiver) {
                        record_own_call(sender, m, subject, db, oracle, ret);
                        return 0;
                }
                /* The destination's names, the caller's tokens. */
                return decide_tokens(receiver, sender, m, POLICY_MESSAGE_METHOD_CALL, subject, db,
                                     oracle, &ret->needs, ret);
        }
        if (sender == receiver)
                return 0;       /* a connection hearing itself learns nothing */
        /* A signal: the sender's names, the recipient's tokens... */
        r = decide_tokens(sender, receiver, m, POLICY_MESSAGE_SIGNAL, subject, db, oracle, NULL, ret);
        if (r != 0 || !subject->unicast)
                return r;
        /* ...and one addressed to a declared service is judged as a call of that member. */
        subject->as_call = true;
        return decide_tokens(receiver, sender, m, POLICY_MESSAGE_METHOD_CALL, subject, db, oracle,
                             NULL, ret);
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
        /*
         * Without Smack and without a compiled policy no step below can refuse
         * a message of a known type (check_smack() and check_tokens() return
         * at once): their answer, without describing the message first.
         */
        if (!db && !smack_oracle_has_smack(oracle) && message_type_is_known(message_get_type(m))) {
                if (message_get_type(m) == MESSAGE_METHOD_CALL)
                        ret->needs.known = true;        /* as check_tokens() says */
                return 0;
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

int mediation_check_observer_reply(const MediationPeer *observer, Message *m,
                                   const MediationNeeds *needs, SmackOracle *oracle,
                                   MediationVerdict *ret) {
        MediationSubject subject;
        const SmackLabel *label;
        int r;

        if (!ret)
                return -EINVAL;
        mediation_verdict_allow(ret);
        if (!observer || !m || !oracle) {
                mediation_verdict_deny_error(ret, NULL, -EINVAL, "argument", "");
                return -EINVAL;
        }
        mediation_subject_init(&subject, NULL, observer, m);
        if (!subject.is_reply)
                return 0;
        label = peer_label(observer, oracle);
        if (!needs || !needs->known)
                return mediation_verdict_deny_reply_copy(ret, &subject, label_text(label), NULL);
        for (unsigned i = 0; i < needs->n_tokens && i < MEDIATION_NEEDS_MAX; i++) {
                /* A call that needed a token passed only with Smack, and only a label holds one. */
                r = label ? smack_has_access(oracle, label, needs->tokens[i], "w") : 0;
                if (r < 0)
                        return mediation_verdict_deny_error(ret, &subject, r, "token", label_text(label));
                if (r == 0)
                        return mediation_verdict_deny_reply_copy(ret, &subject, label_text(label),
                                                                 needs->tokens[i]->text);
        }
        return 0;
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
