#!/bin/sh
# Method calls through mssf-broker with real Smack (one UML boot):
#   uml-run test-calls.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# A call with and without its token, by well-known and by unique name;
# an undeclared method; Peer.Ping; a call without an interface field; the
# Smack label check; name squatting; GetConnectionCredentials; what the
# AccessDenied text names. Clients: gdbus, dbus-send, busctl, libdbus (e2e-helper).
. "$(dirname "$0")/lib.sh"
e2e_setup

# ---- a guarded method, by well-known name (gdbus) ----
out=$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)
check "gdbus: the token holder calls Guarded" "('guarded',)" "$out"
out=$(gcall e2e-other org.mssf.E2E org.mssf.E2E.Guarded)
has "gdbus: without e2e-svc::Control, Guarded is AccessDenied" \
    'GDBus.Error:org.freedesktop.DBus.Error.AccessDenied' "$out"
denied_text=$out
has "the text names the caller's label" 'e2e-other' "$denied_text"
has "the text names the missing token" 'e2e-svc::Control' "$denied_text"
has "the text names the destination" 'org\.mssf\.E2E' "$denied_text"
has "the text names the member" 'Guarded' "$denied_text"
other_calls=$(grep -c '^CALL org.mssf.E2E.Guarded' "$t/svc.out")
check "the service saw Guarded once (the holder's call only)" 1 "$other_calls"

# ---- each denial is logged once (stderr here: no journal in the guest) ----
out=$(as e2e-other dbus-send --system --print-reply --reply-timeout=10000 --dest=org.mssf.E2E \
    /org/mssf/E2E org.mssf.E2E.Slow string:/nonexistent)
has "e2e-other's Slow: AccessDenied" '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
check "the bus logged that denial once" 1 "$(grep -c 'e2e-other.*Slow' "$t/bus.log")"

# ---- the same by the service's unique name (dbus-send) ----
has "the service has a unique name" '^:[0-9]+\.[0-9]+$' "$svc_unique"
out=$(as e2e-holder dbus-send --system --print-reply --reply-timeout=10000 --dest="$svc_unique" \
    /org/mssf/E2E org.mssf.E2E.Guarded)
has "dbus-send to $svc_unique: the holder is answered" 'string "guarded"' "$out"
out=$(as e2e-other dbus-send --system --print-reply --reply-timeout=10000 --dest="$svc_unique" \
    /org/mssf/E2E org.mssf.E2E.Guarded)
has "dbus-send to $svc_unique without the token: AccessDenied" \
    '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
has "the unique-name denial names the token" 'e2e-svc::Control' "$out"
check "the service saw Guarded twice in all (holder's two calls)" 2 \
    "$(grep -c '^CALL org.mssf.E2E.Guarded' "$t/svc.out")"

# ---- an open method (busctl) ----
out=$(as e2e-other busctl --system call org.mssf.E2E /org/mssf/E2E org.mssf.E2E Open)
check "busctl: e2e-other calls the open method" 's "open"' "$out"

# ---- a method no annotation covers ----
out=$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Undeclared)
has "Undeclared is AccessDenied even with every token" \
    'GDBus.Error:org.freedesktop.DBus.Error.AccessDenied' "$out"
has "the error says the manifest does not declare it" 'not declare' "$out"
has "... and names the member" 'Undeclared' "$out"
out=$(as e2e-holder dbus-send --system --print-reply --reply-timeout=10000 --dest="$svc_unique" \
    /org/mssf/E2E org.mssf.E2E.Undeclared)
has "Undeclared by unique name: AccessDenied" '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
check "the service never saw Undeclared" 0 "$(grep -c '^CALL org.mssf.E2E.Undeclared' "$t/svc.out")"

# ---- org.freedesktop.DBus.Peer stays open ----
out=$(as e2e-other busctl --system call org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Peer Ping)
check "busctl: Peer.Ping by e2e-other (no token) answers" "" "$out"
out=$(as e2e-other dbus-send --system --print-reply --reply-timeout=10000 --dest=org.mssf.E2E \
    /org/mssf/E2E org.freedesktop.DBus.Peer.Ping)
has "dbus-send: Peer.Ping answers (method return)" '^method return' "$out"
out=$(as e2e-stranger dbus-send --system --print-reply --reply-timeout=10000 --dest=org.mssf.E2E \
    /org/mssf/E2E org.freedesktop.DBus.Peer.Ping)
has "Peer.Ping from a label with no Smack rule to the service: AccessDenied" \
    '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"

# ---- the Smack label check ----
out=$(gcall e2e-stranger org.mssf.E2E org.mssf.E2E.Open)
has "e2e-stranger (no Smack rule to e2e-svc) is refused even the open method" \
    'GDBus.Error:org.freedesktop.DBus.Error.AccessDenied' "$out"
has "the Smack denial names both labels" 'e2e-stranger.*e2e-svc' "$out"
check "the service saw Open once (e2e-other's)" 1 "$(grep -c '^CALL org.mssf.E2E.Open' "$t/svc.out")"

# ---- a call without an interface field (libdbus: no CLI client can omit it) ----
out=$(client e2e-holder call org.mssf.E2E /org/mssf/E2E - Twin)
has "no interface, Twin, by the holder of Control: answered" '^reply twin' "$out"
out=$(client e2e-other call org.mssf.E2E /org/mssf/E2E - Twin)
has "no interface, Twin (guarded in org.mssf.E2E.Admin): AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
has "... naming e2e-svc::Control" 'e2e-svc::Control' "$out"
out=$(client e2e-other call org.mssf.E2E /org/mssf/E2E org.mssf.E2E Twin)
check "with the interface, the open Twin answers e2e-other" "reply twin" "$out"
out=$(client e2e-other call org.mssf.E2E /org/mssf/E2E - Open)
check "no interface, Open (open in every interface): answered" "reply open" "$out"
out=$(client e2e-other call "$svc_unique" /org/mssf/E2E - Guarded)
has "no interface, by unique name, Guarded without the token: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
check "the service saw one interface-less Twin (the holder's)" 1 "$(grep -c '^CALL -\.Twin' "$t/svc.out")"
check "the service saw no interface-less Guarded" 0 "$(grep -c '^CALL -\.Guarded' "$t/svc.out")"

# ---- ownership: the declared name belongs to e2e-svc ----
out=$(client e2e-other own org.mssf.E2E)
has "e2e-other requesting org.mssf.E2E: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
has "... the text names the name" 'org\.mssf\.E2E' "$out"
out=$(client e2e-holder own org.mssf.E2E)
has "even the token holder may not own it" '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(client e2e-other own org.mssf.E2EAct)
has "nor the activatable org.mssf.E2EAct" '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(as e2e-other dbus-send --system --print-reply --reply-timeout=10000 --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.RequestName string:org.mssf.E2E uint32:0)
has "dbus-send: e2e-other queueing for org.mssf.E2E (flags 0): AccessDenied, not even in the queue" \
    '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(client e2e-other own org.mssf.Undeclared.Name)
check "an undeclared name is free for e2e-other (primary owner)" "reply 1" "$out"
out=$(driver GetNameOwner s org.mssf.E2E)
check "org.mssf.E2E is still e2e-svc's" "s \"$svc_unique\"" "$out"

# ---- a connection waiting in the declared name's queue is protected too ----
bg e2e-svc "$t/svc2.out" "$e2e" serve org.mssf.E2E 0 queue
wait_for "$t/svc2.out" '^(queued|ready|refused)' 15
has "a second e2e-svc connection waits in org.mssf.E2E's queue" '^queued org\.mssf\.E2E :' "$(cat "$t/svc2.out")"
queued=$(awk '/^queued/ { print $3 }' "$t/svc2.out")
out=$(as e2e-other dbus-send --system --print-reply --reply-timeout=10000 --dest="$queued" \
    /org/mssf/E2E org.mssf.E2E.Guarded)
has "Guarded at the queued connection without the token: AccessDenied" \
    '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(as e2e-holder dbus-send --system --print-reply --reply-timeout=10000 --dest="$queued" \
    /org/mssf/E2E org.mssf.E2E.Guarded)
has "... with the token: answered" 'string "guarded"' "$out"
check "the queued connection saw only the holder's call" 1 "$(grep -c '^CALL org.mssf.E2E.Guarded' "$t/svc2.out")"

# ---- GetConnectionCredentials: each peer's LinuxSecurityLabel ----
out=$(driver GetConnectionCredentials s org.mssf.E2E | creds_label)
check "busctl: org.mssf.E2E's LinuxSecurityLabel" e2e-svc "$out"
bg e2e-holder "$t/holder-listen.out" "$e2e" listen 20
bg e2e-other "$t/other-listen.out" "$e2e" listen 20
wait_for "$t/holder-listen.out" '^ready' 15
wait_for "$t/other-listen.out" '^ready' 15
holder_unique=$(awk '/^ready/ { print $2 }' "$t/holder-listen.out")
other_unique=$(awk '/^ready/ { print $2 }' "$t/other-listen.out")
check "busctl: the holder's connection is labelled e2e-holder" e2e-holder \
    "$(driver GetConnectionCredentials s "$holder_unique" | creds_label)"
check "busctl: e2e-other's connection is labelled e2e-other" e2e-other \
    "$(driver GetConnectionCredentials s "$other_unique" | creds_label)"
out=$(as e2e-other busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
    GetConnectionCredentials s org.mssf.E2E | creds_label)
check "busctl as e2e-other (the driver is not label-checked): the service's label" e2e-svc "$out"
as e2e-holder gdbus call --system --timeout 10 --dest org.mssf.E2E --object-path /org/mssf/E2E \
    --method org.mssf.E2E.Emit "'done'" "''" >/dev/null

e2e_finish
