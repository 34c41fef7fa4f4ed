/*
 * The mediation seam. Every message the bus routes passes through
 * mediate_message() exactly once per recipient: unicast method calls and
 * signals, each recipient of a broadcast (match rules, eavesdroppers),
 * and every expected reply or error on its way back, each with its route
 * (MediateRoute: dbus-daemon's rules treat requested replies and
 * eavesdropping apart). Messages to the bus driver pass with receiver ==
 * NULL, messages from it with sender == NULL. Monitors' copies do not
 * pass: a monitor is privileged and sees what the bus routes.
 * mediate_own() (RequestName) and mediate_connect() (Hello) are the same
 * seam for the two decisions that are not about a message.
 *
 * Today the seam implements no rule: the busconfig send/receive policy
 * and the Smack/token mediation of DESIGN.md ("Mediation, message by
 * message") are later issues that fill in this one function, so that
 * routing never needs to change for them. It must stay a pure function
 * of (sender, receiver, message header, policy snapshot, Smack oracle):
 * no I/O, no logging; the router logs denials.
 */
#include <string.h>

#include "mediate.h"

int mediate_message(const Peer *sender, const Peer *receiver, Message *m, MediateRoute route,
                    MediateVerdict *ret_verdict) {
        memset(ret_verdict, 0, sizeof(*ret_verdict));
        return 0;
}

int mediate_own(const Peer *peer, const char *name, MediateVerdict *ret_verdict) {
        memset(ret_verdict, 0, sizeof(*ret_verdict));
        return 0;
}

int mediate_connect(const Peer *peer, MediateVerdict *ret_verdict) {
        memset(ret_verdict, 0, sizeof(*ret_verdict));
        return 0;
}
