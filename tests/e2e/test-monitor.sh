#!/bin/sh
# BecomeMonitor and eavesdrop match rules through mssf-broker (one UML boot):
#   uml-run test-monitor.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# The busconfig allows eavesdropping and every client is uid 0, so what
# refuses e2e-other is MSSF: only the device policy's monitor label
# (e2e-monitor, device-policy.conf) may see others' traffic. (What a
# monitor label's eavesdrop rule receives: test-eavesdrop.sh.)
. "$(dirname "$0")/lib.sh"
e2e_setup

bg e2e-other "$t/other-eaves.out" "$e2e" eavesdrop 8
bg e2e-other "$t/other-mon.out" "$e2e" monitor 8
bg e2e-monitor "$t/monitor-mon.out" "$e2e" monitor 8
for f in other-eaves other-mon monitor-mon; do
    wait_for "$t/$f.out" '^(ready|monitor ok|error)' 15 || not_ok "$f did not start"
done
check "the holder calls Guarded meanwhile" "('guarded',)" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)"
check "e2e-other calls Open meanwhile" "('open',)" "$(gcall e2e-other org.mssf.E2E org.mssf.E2E.Open)"
for f in other-eaves other-mon monitor-mon; do
    wait_for "$t/$f.out" '^(end|error)' 15
done

out=$(cat "$t/other-eaves.out")
has "AddMatch(eavesdrop=true) by e2e-other: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
has "... the text names the label" 'e2e-other' "$out"
lacks "e2e-other sees no call to the service" 'saw ' "$out"

out=$(cat "$t/other-mon.out")
has "BecomeMonitor by e2e-other: AccessDenied" '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
lacks "... and it sees nothing" '^saw' "$out"
out=$(cat "$t/monitor-mon.out")
check "BecomeMonitor by e2e-monitor succeeds" "monitor ok" "$(head -n 1 "$t/monitor-mon.out")"
has "the monitor sees the holder's Guarded call" '^saw call Guarded$' "$out"
has "... e2e-other's Open" '^saw call Open$' "$out"
has "... and the replies" '^saw return -$' "$out"

e2e_finish
