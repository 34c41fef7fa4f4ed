/* What a method call needed of its caller: kept with the pending reply to judge observers' copies. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct SmackLabel;

/* More tokens than this and the record is not kept (known false): observers then get no copy. */
#define MEDIATION_NEEDS_MAX 4

/*
 * Filled by mediation_check_message() when it allows a method call: the
 * tokens the decision required of the caller (all held by it, since the
 * call passed), each once. The bus keeps it in the call's reply slot, and
 * an observer (monitor, eavesdropper) receives a copy of the reply only if
 * it holds every one (mediation_check_observer_reply()): it sees no
 * reply it could not have received as the caller. Tokens are interned
 * labels, valid for the life of the process, so the record owns nothing
 * and survives a policy reload. Zeroed, it is "not known": fail closed.
 */
typedef struct MediationNeeds {
        bool known;
        uint8_t n_tokens;
        const struct SmackLabel *tokens[MEDIATION_NEEDS_MAX];
} MediationNeeds;
