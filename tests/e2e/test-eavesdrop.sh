#!/bin/sh
# Eavesdropping by the device policy's monitor label (one UML boot):
#   uml-run test-eavesdrop.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# e2e-monitor may add eavesdrop=true match rules (a monitor label of
# device-policy.conf: "Labels allowed to monitor / eavesdrop on the bus",
# docs/manifest.md), and then sees calls between other labels, as
# BecomeMonitor does; it has no Smack rule from the apps to itself, which
# a privileged observer does not need.
. "$(dirname "$0")/lib.sh"
e2e_setup

bg e2e-monitor "$t/monitor-eaves.out" "$e2e" eavesdrop 8
wait_for "$t/monitor-eaves.out" '^(ready|error)' 15 || not_ok "the eavesdropper did not start"
check "the holder calls Guarded meanwhile" "('guarded',)" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)"
check "e2e-other calls Open meanwhile" "('open',)" "$(gcall e2e-other org.mssf.E2E org.mssf.E2E.Open)"
wait_for "$t/monitor-eaves.out" '^(end|error)' 15
out=$(cat "$t/monitor-eaves.out")
check "AddMatch(eavesdrop=true) by e2e-monitor is accepted" "match ok" "$(head -n 1 "$t/monitor-eaves.out")"
has "eavesdropping e2e-monitor sees the holder's Guarded" '^saw Guarded to org\.mssf\.E2E$' "$out"
has "... and e2e-other's Open" '^saw Open to org\.mssf\.E2E$' "$out"

e2e_finish
