#!/bin/sh
# Eavesdropping by the device policy's monitor label (one UML boot):
#   uml-run test-eavesdrop.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# e2e-monitor may add eavesdrop=true match rules (a monitor label of
# device-policy.conf: "Labels allowed to monitor / eavesdrop on the bus",
# docs/manifest.md), and then sees what it could have received as the
# recipient: the apps and the service may write to it (the device file of
# lib.sh), it holds no token. So it sees calls between others and their
# replies, the open Public signal, GetAll replies and PropertiesChanged
# without Level; never Secret (e2e-svc::Listen); nothing of e2e-stranger.
# e2e-other, not a monitor label, may not eavesdrop at all.
. "$(dirname "$0")/lib.sh"
e2e_setup

bg e2e-monitor "$t/monitor-eaves.out" "$e2e" eavesdrop 12 \
    "eavesdrop=true,type='method_call'" "eavesdrop=true,type='method_return'" \
    "eavesdrop=true,type='signal'"
bg e2e-other "$t/other-eaves.out" "$e2e" eavesdrop 12
wait_for "$t/monitor-eaves.out" '^(ready|error)' 15 || not_ok "the eavesdropper did not start"
wait_for "$t/other-eaves.out" '^(ready|error)' 15 || not_ok "the other eavesdropper did not start"
check "the holder calls Guarded meanwhile" "('guarded',)" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)"
check "e2e-other calls Open meanwhile" "('open',)" "$(gcall e2e-other org.mssf.E2E org.mssf.E2E.Open)"
as e2e-stranger dbus-send --system --type=signal /org/mssf/Stranger org.mssf.Stranger.Wave string:hello
all=$(client e2e-holder call org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Properties GetAll org.mssf.E2E)
check "the holder's GetAll carries Level" "reply {Level:7,Mode:normal,Name:e2e}" "$all"
for kind in broadcast props; do
    check "Emit $kind" "()" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'$kind'" "''")"
done
check "Emit unicast Secret and Public (to the service's own unique name)" "()" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'unicast'" "'$svc_unique'")"
wait_for "$t/monitor-eaves.out" '^(end|error)' 20
wait_for "$t/other-eaves.out" '^(end|error)' 20
out=$(cat "$t/monitor-eaves.out")
check "AddMatch(eavesdrop=true) by e2e-monitor is accepted" "match ok" "$(head -n 1 "$t/monitor-eaves.out")"
has "eavesdropping e2e-monitor sees the holder's Guarded" '^saw Guarded to org\.mssf\.E2E$' "$out"
has "... and e2e-other's Open" '^saw Open to org\.mssf\.E2E$' "$out"
has "... and the service's reply to it" '^saw return - from [^ ]+ to [^ ]+: open$' "$out"
has "... the open broadcast Public" '^saw signal Public from [^ ]+ to \*: broadcast$' "$out"
has "... the unicast Public" '^saw signal Public from [^ ]+ to :[0-9.]+: unicast$' "$out"
lacks "... never Secret (needs e2e-svc::Listen)" '^saw signal Secret ' "$out"
has "... the GetAll reply without Level" '^saw return - from [^ ]+ to [^ ]+: \{Mode:normal,Name:e2e\}$' "$out"
has "... PropertiesChanged without Level" \
    '^saw signal PropertiesChanged from [^ ]+ to \*: org\.mssf\.E2E \{Mode:normal,Name:e2e\} \[\]$' "$out"
lacks "... nothing of Level anywhere" 'Level:' "$out"
lacks "... nothing from e2e-stranger, which may not write to it" 'Wave' "$out"
out=$(cat "$t/other-eaves.out")
has "AddMatch(eavesdrop=true) by e2e-other: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"

e2e_finish
