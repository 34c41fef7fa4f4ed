#!/bin/sh
# Signals and Properties.Get/Set through mssf-broker with real Smack (one
# UML boot):
#   uml-run test-signals.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# A broadcast and a unicast signal marked with token e2e-svc::Listen reach
# the holder and are withheld from e2e-other (an open signal reaches both);
# Properties.Get of a protected property and Set of a write-protected one
# by token (gdbus, busctl, dbus-send).
. "$(dirname "$0")/lib.sh"
e2e_setup

# ---- signals ----
bg e2e-holder "$t/holder.out" "$e2e" listen 20
bg e2e-other "$t/other.out" "$e2e" listen 20
bg e2e-stranger "$t/stranger.out" "$e2e" listen 8
wait_for "$t/holder.out" '^ready' 15 && wait_for "$t/other.out" '^ready' 15 &&
    wait_for "$t/stranger.out" '^ready' 15 || not_ok "the listeners did not start"
holder_unique=$(awk '/^ready/ { print $2 }' "$t/holder.out")
other_unique=$(awk '/^ready/ { print $2 }' "$t/other.out")
emit() { gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'$1'" "'$2'"; }
check "Emit broadcast" "()" "$(emit broadcast '')"
check "Emit unicast to the holder" "()" "$(emit unicast "$holder_unique")"
check "Emit unicast to e2e-other" "()" "$(emit unicast "$other_unique")"
check "Emit done" "()" "$(emit done '')"
wait_for "$t/holder.out" '^end' 15
wait_for "$t/other.out" '^end' 15
holder=$(cat "$t/holder.out")
other=$(cat "$t/other.out")
has "broadcast Secret (needs e2e-svc::Listen) reaches the holder" '^signal Secret broadcast to \*$' "$holder"
lacks "broadcast Secret is withheld from e2e-other" '^signal Secret broadcast' "$other"
has "broadcast Public (open) reaches the holder" '^signal Public broadcast to \*$' "$holder"
has "broadcast Public (open) reaches e2e-other" '^signal Public broadcast to \*$' "$other"
has "unicast Secret to the holder arrives" "^signal Secret unicast to $holder_unique\$" "$holder"
lacks "unicast Secret to e2e-other is withheld" '^signal Secret unicast' "$other"
has "unicast Public to e2e-other arrives" "^signal Public unicast to $other_unique\$" "$other"
has "e2e-other's listener saw the end marker (nothing later was lost)" '^signal Public done' "$other"
wait_for "$t/stranger.out" '^end' 15
lacks "e2e-stranger (no Smack rule from e2e-svc) receives no signal of the service, not even Public" \
    '^signal (Secret|Public)' "$(cat "$t/stranger.out")"

# ---- Properties.Get ----
getp() { # getp LABEL NAME: gdbus Properties.Get of org.mssf.E2E.NAME
    as "$1" gdbus call --system --timeout 10 --dest org.mssf.E2E --object-path /org/mssf/E2E \
        --method org.freedesktop.DBus.Properties.Get org.mssf.E2E "$2"
}
check "gdbus: the holder reads Level (needs e2e-svc::Read)" "(<uint32 7>,)" "$(getp e2e-holder Level)"
out=$(getp e2e-other Level)
has "gdbus: e2e-other reading Level: AccessDenied" 'GDBus.Error:org.freedesktop.DBus.Error.AccessDenied' "$out"
has "... the text names the token and the property" 'e2e-svc::Read.*Level|Level.*e2e-svc::Read' "$out"
check "gdbus: e2e-other reads the open Name" "(<'e2e'>,)" "$(getp e2e-other Name)"
out=$(as e2e-other busctl --system get-property org.mssf.E2E /org/mssf/E2E org.mssf.E2E Level)
lacks "busctl get-property Level by e2e-other gets no value" '^u 7' "$out"
check "busctl get-property Level by the holder" "u 7" \
    "$(as e2e-holder busctl --system get-property org.mssf.E2E /org/mssf/E2E org.mssf.E2E Level)"
out=$(as e2e-other dbus-send --system --print-reply --reply-timeout=10000 --dest="$svc_unique" \
    /org/mssf/E2E org.freedesktop.DBus.Properties.Get string:org.mssf.E2E string:Level)
has "Get of Level by the service's unique name without the token: AccessDenied" \
    '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(as e2e-other dbus-send --system --print-reply --reply-timeout=10000 --dest=org.mssf.E2E \
    /org/mssf/E2E org.freedesktop.DBus.Properties.Get string: string:Level)
has "Get(\"\", Level) (empty interface argument) without the token: AccessDenied" \
    '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
check "the service saw Get of Level twice (the holder's)" 2 "$(grep -c '^GET org.mssf.E2E Level$' "$t/svc.out")"

# ---- Properties.Set ----
out=$(as e2e-other dbus-send --system --print-reply --reply-timeout=10000 --dest=org.mssf.E2E \
    /org/mssf/E2E org.freedesktop.DBus.Properties.Set string:org.mssf.E2E string:Mode variant:string:hacked)
has "dbus-send: e2e-other setting Mode (needs e2e-svc::Write): AccessDenied" \
    '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
has "... naming e2e-svc::Write" 'e2e-svc::Write' "$out"
lacks "the service never set Mode to hacked" 'SET Mode hacked$' "$(cat "$t/svc.out")"
out=$(as e2e-holder dbus-send --system --print-reply --reply-timeout=10000 --dest=org.mssf.E2E \
    /org/mssf/E2E org.freedesktop.DBus.Properties.Set string:org.mssf.E2E string:Mode variant:string:quiet)
has "dbus-send: the holder sets Mode" '^method return' "$out"
out=$(as e2e-other dbus-send --system --print-reply --reply-timeout=10000 --dest=org.mssf.E2E \
    /org/mssf/E2E org.freedesktop.DBus.Properties.Set string: string:Mode variant:string:hacked2)
has "Set(\"\", Mode) (empty interface argument) by e2e-other: AccessDenied" \
    '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
has "the service set Mode to quiet" '^SET Mode quiet$' "$(cat "$t/svc.out")"
check "e2e-other may read the Mode (read is open)" "(<'quiet'>,)" "$(getp e2e-other Mode)"
lacks "... nor to hacked2" 'SET Mode hacked2' "$(cat "$t/svc.out")"
out=$(as e2e-other busctl --system set-property org.mssf.E2E /org/mssf/E2E org.mssf.E2E Mode s again)
lacks "busctl set-property by e2e-other did not set it" '^SET Mode again' "$(cat "$t/svc.out")"
out=$(as e2e-holder dbus-send --system --print-reply --reply-timeout=10000 --dest=org.mssf.E2E \
    /org/mssf/E2E org.freedesktop.DBus.Properties.Get string:org.mssf.E2E)
has "Properties.Get with unreadable arguments (s, not ss) is AccessDenied, even for the holder" \
    '^Error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"

e2e_finish
