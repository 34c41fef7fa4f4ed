#!/bin/sh
# mssf-policy install/remove while the bus runs (one UML boot):
#   uml-run test-install.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# The package manager's path, end to end: upgrading e2e-svc with a manifest
# that guards Open compiles policy.db and asks the running bus to reload
# (ReloadConfig): the next call on an already open connection is judged by
# the new policy. Removing e2e-holder revokes its grants in the kernel:
# its connection stays, its next call is refused.
. "$(dirname "$0")/lib.sh"
e2e_setup

# ---- upgrade: Open now needs e2e-svc::Control ----
bg e2e-other "$t/seq1.out" "$e2e" sequence "$t/upgraded" org.mssf.E2E /org/mssf/E2E org.mssf.E2E Open
wait_for "$t/seq1.out" '^waiting' 15 || not_ok "e2e-other's first call did not end"
sed '/<method name="Open">/{n;s/value=""/value="Control"/}' "$src/e2e-svc.xml" > "$t/e2e-svc-v2.xml"
has "the upgraded manifest guards Open" 'value="Control"' "$(grep -A1 'method name="Open"' "$t/e2e-svc-v2.xml")"
"$policy_tool" install --origin system e2e-svc "$t/e2e-svc-v2.xml" > "$t/upgrade.out" 2>&1
check "mssf-policy install (upgrade of e2e-svc) succeeds" 0 $?
lacks "... and found the running bus" 'no system bus' "$(cat "$t/upgrade.out")"
"$policy_tool" dump > "$t/dump.out" 2>&1
has "the compiled policy guards Open" 'Open -> "e2e-svc::Control"' "$(grep ' Open ' "$t/dump.out")"
wait_for "$t/bus.log" 'eload' 5
has "the bus reloaded" 'eload' "$(cat "$t/bus.log")"
touch "$t/upgraded"
n=0; while [ "$(wc -l < "$t/seq1.out")" -lt 3 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
check "before the upgrade, e2e-other's Open was answered" "reply open" "$(sed -n 1p "$t/seq1.out")"
has "after it, on the same connection: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$(sed -n 3p "$t/seq1.out")"
has "... naming e2e-svc::Control and Open" 'e2e-svc::Control.*Open' "$(sed -n 3p "$t/seq1.out")"
check "the holder still calls Open" "('open',)" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Open)"
check "the service stayed up (same unique name)" "s \"$svc_unique\"" "$(driver GetNameOwner s org.mssf.E2E)"

# ---- remove the holder's package while it is connected ----
bg e2e-holder "$t/seq2.out" "$e2e" sequence "$t/removed" org.mssf.E2E /org/mssf/E2E org.mssf.E2E Guarded
wait_for "$t/seq2.out" '^waiting' 15 || not_ok "the holder's first call did not end"
"$policy_tool" remove e2e-holder > "$t/remove.out" 2>&1
check "mssf-policy remove e2e-holder succeeds" 0 $?
check "the kernel no longer grants e2e-holder e2e-svc::Control" 0 \
    "$("$helper" access e2e-holder e2e-svc::Control w)"
touch "$t/removed"
n=0; while [ "$(wc -l < "$t/seq2.out")" -lt 3 ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
check "before the removal, the holder's Guarded was answered" "reply guarded" "$(sed -n 1p "$t/seq2.out")"
has "after it, on the same connection: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$(sed -n 3p "$t/seq2.out")"
out=$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Open)
has "a new connection of e2e-holder: refused too (no Smack rule to e2e-svc any more)" \
    'GDBus.Error:org.freedesktop.DBus.Error.AccessDenied' "$out"

# ---- install it again: granted again ----
"$policy_tool" install --origin system e2e-holder "$src/e2e-holder.xml" > "$t/reinstall.out" 2>&1
check "mssf-policy install e2e-holder again succeeds" 0 $?
check "the holder calls Guarded again" "('guarded',)" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)"

e2e_finish
