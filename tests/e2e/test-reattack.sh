#!/bin/sh
# Attacking the bus again, widely, once the holes test-attack.sh found
# were fixed (one UML boot):
#   uml-run test-reattack.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# A monitor labelled e2e-monitor (no token) watches throughout; what it
# must never see is a reply to a call that needed a token. Tried:
#  - a monitor that joins while a protected call is pending;
#  - replies forged with a guessed serial (by another app, by another
#    connection of the service's label), watched by the monitor;
#  - a reply racing its caller's disconnect;
#  - descriptors passed in a call: one every label may read, one private to
#    the caller (sent to a throwaway service: the bus refuses the call with
#    AccessDenied, the service stays connected and keeps its name; sent to
#    one that kept CAP_MAC_OVERRIDE: delivered; the monitor gets no copy of
#    either, so it stays connected);
#  - unicast signals to a declared, activatable name that is not running;
#  - a service that releases its declared name while a protected call is
#    pending, and is called by its unique name meanwhile, and after;
#  - refusals watched: the bus's AccessDenied answers reach no observer.
. "$(dirname "$0")/lib.sh"
e2e_setup
bin=$(dirname "$e2e")
denied='^(Error |error |GDBus\.Error:)?org\.freedesktop\.DBus\.Error\.AccessDenied'
# count PATTERN FILE: lines of FILE matching the ERE (0 when none or no file).
count() { grep -cE -- "$1" "$2" 2>/dev/null || true; }

bg e2e-svc "$t/lenient.out" "$bin/e2e-lenient"
wait_for "$t/lenient.out" '^(ready|refused|error)' 15 || not_ok "e2e-lenient did not start"
lenient_unique=$(awk '/^ready/ { print $3 }' "$t/lenient.out")

# ---- a monitor joining while a protected call is pending ----
bg e2e-holder "$t/slow1.out" "$e2e" slow "$t/release1"
wait_for "$t/slow1.out" '^calling as' 15 || not_ok "slow1 did not start"
wait_for "$t/svc.out" '^CALL org\.mssf\.E2E\.Slow' 15 || not_ok "Slow did not reach the service"
bg e2e-monitor "$t/mon.out" "$e2e" monitor 150
wait_for "$t/mon.out" '^(monitor ok|error)' 15 || not_ok "the monitor did not start"
touch "$t/release1"
wait_for "$t/slow1.out" '^(reply|error)' 15
check "the holder's Slow (e2e-svc::Control), pending when the monitor joined, is answered" "reply slow" \
    "$(grep -E '^(reply|error)' "$t/slow1.out")"

# ---- forged replies ----
bg e2e-holder "$t/slow2.out" "$e2e" slow "$t/release2"
wait_for "$t/slow2.out" '^calling as' 15 || not_ok "slow2 did not start"
caller=$(awk '/^calling as/ { print $3 }' "$t/slow2.out")
n=0; while [ "$(count '^CALL org\.mssf\.E2E\.Slow' "$t/svc.out")" -lt 2 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
check "e2e-other forges a reply to the holder's pending Slow (serial 2)" forged \
    "$(client e2e-other forge-reply "$caller" 2 forged-by-other)"
check "a second connection labelled e2e-svc forges one" forged \
    "$(client e2e-svc forge-reply "$caller" 2 forged-by-svc)"
touch "$t/release2"
wait_for "$t/slow2.out" '^(reply|error)' 15
check "the holder gets the service's reply, not a forged one" "reply slow" "$(grep -E '^(reply|error)' "$t/slow2.out")"

# ---- a reply racing its caller's disconnect ----
out=$(client e2e-holder fire-and-leave org.mssf.E2E /org/mssf/E2E org.mssf.E2E Slow "$t/release3")
has "the holder sent Slow and left" '^sent as :' "$out"
n=0; while [ "$(count '^CALL org\.mssf\.E2E\.Slow' "$t/svc.out")" -lt 3 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
touch "$t/release3"
n=0; while [ "$(count '^REPLIED Slow' "$t/svc.out")" -lt 3 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
check "the service answered the departed caller" 3 "$(count '^REPLIED Slow' "$t/svc.out")"
check "the bus still answers" "('open',)" "$(gcall e2e-other org.mssf.E2E org.mssf.E2E.Open)"

# ---- descriptors ----
echo floor-content > "$t/floor-file"
echo holder-private > "$t/holder-file"
chmod 644 "$t/floor-file" "$t/holder-file"
"$helper" setxattr "$t/floor-file" security.SMACK64 _
"$helper" setxattr "$t/holder-file" security.SMACK64 e2e-holder
out=$(client e2e-holder call-fd org.mssf.E2E /org/mssf/E2E org.mssf.E2E Open "$t/floor-file")
echo "# call-fd with a file labelled _: $out"
check "a call carrying a descriptor the bus may read is answered" "reply open" "$out"
# The holder's own file, labelled e2e-holder, which no service label may
# read: sent to a throwaway service (an undeclared name, labelled e2e-svc,
# started like every app without CAP_MAC_OVERRIDE). Its kernel would
# refuse the descriptor at recvmsg() (smack_file_receive) and libdbus
# would hang up, so the bus refuses the call: AccessDenied naming the
# service's label, the descriptor and its label. The service stays
# connected and keeps its name. The monitor gets no copy either.
bg e2e-svc "$t/victim.out" "$e2e" serve org.mssf.E2EVictim
wait_for "$t/victim.out" '^(ready|refused)' 15 || not_ok "the throwaway service did not start"
out=$(client e2e-holder call-fd org.mssf.E2EVictim /org/mssf/E2E org.mssf.E2E Open "$t/holder-file")
echo "# call-fd with a file labelled e2e-holder, to a service labelled e2e-svc: $out"
has "that call is refused with AccessDenied naming both labels and the descriptor" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied: .*\(Smack label "e2e-svc"\): its descriptor 0 is labelled "e2e-holder", to which that label has no "r" access' \
    "$out"
check "the throwaway service never saw that call" 0 "$(count '^CALL ' "$t/victim.out")"
has "the bus logged the refusal" 'descriptor 0 is labelled "e2e-holder"' "$(cat "$t/bus.log")"
owner=$(timeout 10 dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.GetNameOwner string:org.mssf.E2EVictim 2>&1 | tr '\n' ' ')
echo "# GetNameOwner(org.mssf.E2EVictim) afterwards: $owner"
has "the throwaway service still owns its name" 'string ":1\.[0-9]+"' "$owner"
check "a later call from the holder is answered by it" "reply open" \
    "$(client e2e-holder call org.mssf.E2EVictim /org/mssf/E2E org.mssf.E2E Open)"
check "the bus still answers the holder" "('guarded',)" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)"
# The same descriptor to a service labelled e2e-svc that kept
# CAP_MAC_OVERRIDE (root, its label set without dropping it): the kernel
# lets it through, so the bus, which read that from the service's CapEff
# when it connected, delivers it.
timeout 60 sh -c 'printf e2e-svc > /proc/self/attr/current && exec "$0" serve org.mssf.E2EOverride' "$e2e" \
    > "$t/override.out" 2>&1 &
pids="$pids $!"
wait_for "$t/override.out" '^(ready|refused)' 15 || not_ok "the service with CAP_MAC_OVERRIDE did not start"
out=$(client e2e-holder call-fd org.mssf.E2EOverride /org/mssf/E2E org.mssf.E2E Open "$t/holder-file")
echo "# call-fd with a file labelled e2e-holder, to e2e-svc with CAP_MAC_OVERRIDE: $out"
check "to a recipient with CAP_MAC_OVERRIDE it is delivered and answered" "reply open" "$out"

# ---- unicast signals to an activatable declared name ----
as e2e-other dbus-send --system --type=signal --dest=org.mssf.E2EAct /org/mssf/E2E org.mssf.E2E.Open
as e2e-other dbus-send --system --type=signal --dest=org.mssf.E2EAct /org/mssf/E2E org.example.Undeclared.Poke
as e2e-stranger dbus-send --system --type=signal --dest=org.mssf.E2EAct /org/mssf/E2E org.mssf.E2E.Open
check "the bus answers e2e-other after its signals" "('open',)" "$(gcall e2e-other org.mssf.E2E org.mssf.E2E.Open)"
check "no signal started org.mssf.E2EAct" "" "$(cat "$t/act.out" 2>/dev/null)"
echo "# what the bus logged of them:"
grep 'E2EAct' "$t/bus.log" | sed 's/^/#   /'
has "the bus refused e2e-other's Open signal for want of e2e-act::Use" \
    'lacks token "e2e-act::Use".*signal sent to it is judged' "$(cat "$t/bus.log")"

# ---- StartServiceByName of the declared name by a label with no token and no Smack reach ----
# Starting a service gives its starter nothing: ListActivatableNames shows
# the name to everyone, and every message to the service is judged as ever.
out=$(as e2e-stranger gdbus call --system --timeout 20 --dest org.freedesktop.DBus \
    --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.StartServiceByName org.mssf.E2EAct 0)
echo "# StartServiceByName(org.mssf.E2EAct, 0) by e2e-stranger: $out"
check "StartServiceByName by e2e-stranger starts the declared service, as dbus-daemon does" "(uint32 1,)" "$out"
wait_for "$t/act.out" '^ready' 15 || not_ok "org.mssf.E2EAct did not come up"
has "... and its starter still cannot call it" 'AccessDenied' \
    "$(gcall e2e-stranger org.mssf.E2EAct org.mssf.E2E.Open)"
has "... nor e2e-other, without e2e-act::Use" 'AccessDenied.*e2e-act::Use' \
    "$(gcall e2e-other org.mssf.E2EAct org.mssf.E2E.Open)"

# ---- a declared name released while a protected call is pending ----
bg e2e-holder "$t/hold.out" "$e2e" call org.mssf.E2ELenient /org/mssf/E2ELenient org.mssf.E2E.Lenient Hold \
    "$t/release-hold"
wait_for "$t/lenient.out" '^released ' 15 || not_ok "Hold did not reach the lenient service"
has "the name has no owner while it is released" '^Error org\.freedesktop\.DBus\.Error\.NameHasNoOwner' \
    "$(timeout 10 dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetNameOwner string:org.mssf.E2ELenient 2>&1)"
out=$(client e2e-other call "$lenient_unique" /org/mssf/E2ELenient org.mssf.E2E.Lenient GetPosition)
has "meanwhile GetPosition by its unique name: AccessDenied (still under its manifest)" "$denied" "$out"
touch "$t/release-hold"
wait_for "$t/hold.out" '^(reply|error)' 15
check "the holder's Hold is answered after the release" "reply held-secret" "$(cat "$t/hold.out")"
wait_for "$t/lenient.out" '^reacquired ' 15 || not_ok "the lenient service did not take its name again"
has "e2e-other by the unique name after it came back: AccessDenied" "$denied" \
    "$(client e2e-other call "$lenient_unique" /org/mssf/E2ELenient org.mssf.E2E.Lenient GetPosition)"
check "the lenient service ran GetPosition for nobody" 0 "$(count '^CALL .*GetPosition' "$t/lenient.out")"

# ---- the bus's refusals, watched ----
has "e2e-other's Guarded (no e2e-svc::Control): AccessDenied" 'GDBus\.Error:org\.freedesktop\.DBus\.Error\.AccessDenied' \
    "$(gcall e2e-other org.mssf.E2E org.mssf.E2E.Guarded)"
has "e2e-other's call to a name nobody owns: ServiceUnknown" 'ServiceUnknown' \
    "$(gcall e2e-other org.mssf.E2ENobody org.mssf.E2E.Open)"

check "Emit done (the monitor's end marker)" "()" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'done'" "''")"
wait_for "$t/mon.out" '^end' 30 || not_ok "the monitor did not see the end marker"
out=$(cat "$t/mon.out")
check "BecomeMonitor by e2e-monitor succeeds" "monitor ok" "$(head -n 1 "$t/mon.out")"
lacks "the monitor saw no Slow reply (e2e-svc::Control), not even the one pending when it joined" \
    '^saw return - from [^ ]*: slow$' "$out"
lacks "... no forged reply (they were dropped, so copied to no one)" 'forged-by' "$out"
lacks "... not Hold's (e2e-svc::Read), answered after the name was released" 'held-secret' "$out"
has "... but the open replies" '^saw return - from [^ ]*: open$' "$out"
has "... and the calls that carried a descriptor, with what it reads" '^saw call Open from [^ ]*: fd:' "$out"
lacks "... never the holder's private file" 'holder-private' "$out"
has "... and is still connected after that call (it sees the holder's Guarded call made after it)" \
    '^saw call Guarded from ' "$out"
lacks "... none of the bus's AccessDenied answers (they name the refused caller, destination, member)" \
    '^saw error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
has "... but the bus's other errors (ServiceUnknown)" '^saw error org\.freedesktop\.DBus\.Error\.ServiceUnknown' "$out"
lacks "no service read the holder's private file" 'holder-private' "$(cat "$t/svc.out" "$t/victim.out")"

e2e_finish
