#!/bin/sh
# BecomeMonitor and eavesdrop match rules through mssf-broker (one UML boot):
#   uml-run test-monitor.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# The busconfig allows eavesdropping and every client is uid 0, so what
# refuses e2e-other is MSSF: only the device policy's monitor label
# (e2e-monitor, device-policy.conf) may see others' traffic. And a monitor
# sees only what its label could have received as the recipient: the apps
# and the service may write to e2e-monitor (the device file of lib.sh),
# e2e-stranger may not; e2e-monitor holds no token, so Secret (Listen) never
# reaches it and Level/Hidden (Read) are removed from what it sees. (The
# same for an eavesdrop rule: test-eavesdrop.sh.)
. "$(dirname "$0")/lib.sh"
e2e_setup

bg e2e-other "$t/other-eaves.out" "$e2e" eavesdrop 12
bg e2e-other "$t/other-mon.out" "$e2e" monitor 12
bg e2e-monitor "$t/monitor-mon.out" "$e2e" monitor 12
for f in other-eaves other-mon monitor-mon; do
    wait_for "$t/$f.out" '^(ready|monitor ok|error)' 15 || not_ok "$f did not start"
done
check "the holder calls Guarded meanwhile" "('guarded',)" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)"
check "e2e-other calls Open meanwhile" "('open',)" "$(gcall e2e-other org.mssf.E2E org.mssf.E2E.Open)"
check "e2e-other asks the bus about org.mssf.OtherProbe" "(false,)" \
    "$(as e2e-other gdbus call --system --timeout 10 --dest org.freedesktop.DBus \
        --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.NameHasOwner org.mssf.OtherProbe)"
check "e2e-stranger asks the bus about org.mssf.StrangerProbe" "(false,)" \
    "$(as e2e-stranger gdbus call --system --timeout 10 --dest org.freedesktop.DBus \
        --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.NameHasOwner org.mssf.StrangerProbe)"
as e2e-stranger dbus-send --system --type=signal /org/mssf/Stranger org.mssf.Stranger.Wave string:hello
all=$(client e2e-holder call org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Properties GetAll org.mssf.E2E)
check "the holder's GetAll carries Level" "reply {Level:7,Mode:normal,Name:e2e}" "$all"
objects=$(client e2e-holder call org.mssf.E2E / org.freedesktop.DBus.ObjectManager GetManagedObjects)
has "the holder's GetManagedObjects carries Hidden" 'Hidden:42' "$objects"
for kind in broadcast props added removed; do
    check "Emit $kind" "()" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'$kind'" "''")"
done
for f in other-eaves other-mon monitor-mon; do
    wait_for "$t/$f.out" '^(end|error)' 20
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
has "the monitor sees the holder's Guarded call" '^saw call Guarded from ' "$out"
has "... e2e-other's Open" '^saw call Open from ' "$out"
has "... and the service's replies" '^saw return - from [^ ]+: open$' "$out"
has "... e2e-other's call to the bus" '^saw call NameHasOwner from [^ ]+: org\.mssf\.OtherProbe$' "$out"
has "... the open broadcast Public" '^saw signal Public from [^ ]+: broadcast$' "$out"
lacks "... never Secret (needs e2e-svc::Listen)" '^saw signal Secret ' "$out"
has "... the GetAll reply without Level" '^saw return - from [^ ]+: \{Mode:normal,Name:e2e\}$' "$out"
has "... PropertiesChanged without Level" \
    '^saw signal PropertiesChanged from [^ ]+: org\.mssf\.E2E \{Mode:normal,Name:e2e\} \[\]$' "$out"
has "... InterfacesAdded without Hidden" \
    '^saw signal InterfacesAdded from [^ ]+: /org/mssf/E2E/Child \{org\.mssf\.E2E\.Child:\{Plain:plain\}\}$' "$out"
has "... InterfacesRemoved without the protected Vault" \
    '^saw signal InterfacesRemoved from [^ ]+: /org/mssf/E2E/Child \[org\.mssf\.E2E\.Child\]$' "$out"
lacks "... nothing of Level, Hidden or Vault anywhere" 'Level:|Hidden:|Vault' "$out"
lacks "... nothing from e2e-stranger, which may not write to it" 'StrangerProbe|Wave' "$out"

e2e_finish
