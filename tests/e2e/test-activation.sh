#!/bin/sh
# Activation of a protected name through mssf-broker (one UML boot):
#   uml-run test-activation.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# org.mssf.E2EAct (package e2e-act, every method needs e2e-act::Use) is
# activatable: a caller without the token is refused and the service is
# not started; a caller that leaves while its call waits for the
# activation has nothing delivered on its behalf; the holder's call starts
# the service and is answered.
. "$(dirname "$0")/lib.sh"
e2e_setup

has "the bus lists org.mssf.E2EAct as activatable (from $t/services)" 'org\.mssf\.E2EAct' \
    "$(driver ListActivatableNames)"

out=$(gcall e2e-other org.mssf.E2EAct org.mssf.E2E.Open)
has "e2e-other (no e2e-act::Use) calling the activatable name: AccessDenied" \
    'GDBus.Error:org.freedesktop.DBus.Error.AccessDenied' "$out"
has "... naming the token" 'e2e-act::Use' "$out"
out=$(as e2e-other dbus-send --system --print-reply --reply-timeout=10000 --dest=org.mssf.E2EAct \
    /org/mssf/E2E org.mssf.E2E.Open)
has "dbus-send, the same: AccessDenied" '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(as e2e-stranger dbus-send --system --print-reply --reply-timeout=10000 --dest=org.mssf.E2EAct \
    /org/mssf/E2E org.mssf.E2E.Open)
has "e2e-stranger (no Smack rule to e2e-act): AccessDenied" \
    '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
sleep 1
check "the service was not started" "" "$(cat "$t/act.out" 2>/dev/null)"
has "org.mssf.E2EAct has no owner" '^Error org\.freedesktop\.DBus\.Error\.NameHasNoOwner' \
    "$(timeout 10 dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetNameOwner string:org.mssf.E2EAct 2>&1)"

# The holder sends a call and leaves while the service is still starting.
echo 1500 > "$t/act-delay-ms"
out=$(client e2e-holder fire-and-leave org.mssf.E2EAct /org/mssf/E2E org.mssf.E2E Open)
has "the holder sent Open and disconnected" '^sent as :' "$out"
wait_for "$t/act.out" '^ready' 15
has "its call started the service (labelled e2e-act, owning the name)" '^ready org\.mssf\.E2EAct' \
    "$(cat "$t/act.out" 2>/dev/null)"
sleep 1
check "the service got no call on behalf of the departed caller" "" \
    "$(grep '^CALL' "$t/act.out" 2>/dev/null)"

out=$(gcall e2e-holder org.mssf.E2EAct org.mssf.E2E.Open)
check "the holder's call to the activated service is answered" "('open',)" "$out"
check "... and it is the only call the service got" 1 "$(grep -c '^CALL org.mssf.E2E.Open' "$t/act.out")"
check "GetConnectionCredentials: the activated service is labelled e2e-act" e2e-act \
    "$(driver GetConnectionCredentials s org.mssf.E2EAct | creds_label)"

e2e_finish
