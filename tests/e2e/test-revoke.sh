#!/bin/sh
# Tokens revoked in the kernel while the caller stays connected (one UML boot):
#   uml-run test-revoke.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# No ReloadConfig, no SIGHUP: only a write to smackfs/load2, as any rule
# change. The next call on the same connection is refused; granting again
# lets the next one through; a reply to a call made before the revocation
# still reaches its caller, even with the service's Smack rule to the
# caller revoked too (the caller asked for it). Replies forged by other
# connections (another app, another connection of the service's label)
# do not complete a pending call.
. "$(dirname "$0")/lib.sh"
e2e_setup

# ---- revoked between two calls on one connection ----
bg e2e-holder "$t/seq.out" "$e2e" sequence "$t/revoked" org.mssf.E2E /org/mssf/E2E org.mssf.E2E Guarded
wait_for "$t/seq.out" '^waiting' 15 || not_ok "the first call did not end"
load_rule e2e-holder e2e-svc::Control -
check "load2: e2e-holder no longer holds e2e-svc::Control" 0 "$("$helper" access e2e-holder e2e-svc::Control w)"
touch "$t/revoked"
n=0; while [ "$(wc -l < "$t/seq.out")" -lt 3 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
check "before the revocation: answered" "reply guarded" "$(sed -n 1p "$t/seq.out")"
has "after it, on the same connection: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$(sed -n 3p "$t/seq.out")"
has "... naming e2e-svc::Control" 'e2e-svc::Control' "$(sed -n 3p "$t/seq.out")"
check "the service saw Guarded once" 1 "$(grep -c '^CALL org.mssf.E2E.Guarded' "$t/svc.out")"
lacks "the bus was not reloaded" 'eload' "$(cat "$t/bus.log")"

load_rule e2e-holder e2e-svc::Control w
check "granted again: the next call is answered" "('guarded',)" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)"

# ---- a reply after the revocation ----
bg e2e-holder "$t/slow1.out" "$e2e" slow "$t/release1"
wait_for "$t/svc.out" '^CALL org.mssf.E2E.Slow' 15 || not_ok "Slow did not reach the service"
load_rule e2e-holder e2e-svc::Control -
touch "$t/release1"
wait_for "$t/slow1.out" '^(reply|error)' 15
check "token revoked while Slow ran: its reply still reaches the caller" "reply slow" \
    "$(grep -E '^(reply|error)' "$t/slow1.out")"
out=$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Slow "'$t/release1'")
has "... while a new Slow is refused" 'GDBus.Error:org.freedesktop.DBus.Error.AccessDenied' "$out"

load_rule e2e-holder e2e-svc::Control w
bg e2e-holder "$t/slow2.out" "$e2e" slow "$t/release2"
wait_for "$t/slow2.out" calling 15
n=0; while [ "$(grep -c '^CALL org.mssf.E2E.Slow' "$t/svc.out")" -lt 2 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
load_rule e2e-holder e2e-svc::Control -
load_rule e2e-svc e2e-holder -
check "load2: e2e-svc may no longer write to e2e-holder" 0 "$("$helper" access e2e-svc e2e-holder w)"
touch "$t/release2"
wait_for "$t/slow2.out" '^(reply|error)' 15
check "token and the service's Smack rule revoked: the expected reply still arrives" "reply slow" \
    "$(grep -E '^(reply|error)' "$t/slow2.out")"
load_rule e2e-svc e2e-holder w
load_rule e2e-holder e2e-svc::Control w

# ---- a signal token revoked while the recipient listens ----
bg e2e-holder "$t/listen.out" "$e2e" listen 20
wait_for "$t/listen.out" '^ready' 15 || not_ok "the listener did not start"
listener=$(awk '/^ready/ { print $2 }' "$t/listen.out")
check "Emit broadcast" "()" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'broadcast'" "''")"
wait_for "$t/listen.out" '^signal Secret broadcast' 15 || not_ok "Secret did not arrive while e2e-svc::Listen was held"
load_rule e2e-holder e2e-svc::Listen -
check "Emit broadcast after revoking e2e-svc::Listen" "()" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'broadcast'" "''")"
check "Emit unicast to the listener" "()" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'unicast'" "'$listener'")"
check "Emit done" "()" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'done'" "''")"
wait_for "$t/listen.out" '^end' 15
check "Secret reached the listener once: before the revocation only" 1 \
    "$(grep -c '^signal Secret' "$t/listen.out")"
check "Public reached it both times" 2 "$(grep -c '^signal Public broadcast' "$t/listen.out")"
has "and the unicast Public after the revocation" '^signal Public unicast' "$(cat "$t/listen.out")"
load_rule e2e-holder e2e-svc::Listen w

# ---- the caller leaves while its call is in flight ----
out=$(client e2e-holder fire-and-leave org.mssf.E2E /org/mssf/E2E org.mssf.E2E Slow "$t/release3")
has "the holder sent Slow and left" '^sent as :' "$out"
gone=$(echo "$out" | awk '{ print $3 }')
n=0; while [ "$(grep -c '^CALL org.mssf.E2E.Slow' "$t/svc.out")" -lt 3 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
touch "$t/release3"
wait_for "$t/svc.out" '^REPLIED Slow' 15
n=0; while [ "$(grep -c '^REPLIED Slow' "$t/svc.out")" -lt 3 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
check "the service answered the departed caller" 3 "$(grep -c '^REPLIED Slow' "$t/svc.out")"
check "the bus still answers the holder afterwards" "('guarded',)" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)"
has "the departed caller's name has no owner" '^Error org\.freedesktop\.DBus\.Error\.NameHasNoOwner' \
    "$(timeout 10 dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetNameOwner string:"$gone" 2>&1)"

# ---- forged replies to a pending call ----
bg e2e-holder "$t/slow4.out" "$e2e" slow "$t/release4"
wait_for "$t/slow4.out" '^calling as' 15 || not_ok "slow4 did not start"
caller=$(awk '/^calling as/ { print $3 }' "$t/slow4.out")
n=0; while [ "$(grep -c '^CALL org.mssf.E2E.Slow' "$t/svc.out")" -lt 4 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
check "e2e-other forges a reply to the holder's pending Slow (serial 2)" forged \
    "$(client e2e-other forge-reply "$caller" 2 forged-by-other)"
check "another connection labelled e2e-svc forges one too" forged \
    "$(client e2e-svc forge-reply "$caller" 2 forged-by-svc)"
touch "$t/release4"
wait_for "$t/slow4.out" '^(reply|error)' 15
check "the holder gets the service's reply, not a forged one" "reply slow" \
    "$(grep -E '^(reply|error)' "$t/slow4.out")"

e2e_finish
