#!/bin/sh
# python3-dbus (Debian's /usr/bin/python3) as a client of mssf-broker with
# real Smack (one UML boot):
#   uml-run test-python.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# What the other groups check with gdbus, busctl, dbus-send and libdbus,
# from the client most Python services and apps use: a guarded method
# answered for the token holder and refused with the rule's text for
# e2e-other; Properties.Get and GetAll with the protected Level shown or
# refused and hidden; the Listen-guarded signal Secret received by the
# holder and withheld from e2e-other, the open Public by both.
. "$(dirname "$0")/lib.sh"
e2e_setup
py="/usr/bin/python3 $src/e2e-py.py"
path=/org/mssf/E2E

check "python3 starts in this guest" ok "$(/usr/bin/python3 -c 'import dbus, gi; print("ok")' 2>&1)"

# ---- calls ----
check "python3-dbus: the holder calls Guarded" "reply guarded" \
    "$(as e2e-holder $py call org.mssf.E2E $path org.mssf.E2E Guarded)"
out=$(as e2e-other $py call org.mssf.E2E $path org.mssf.E2E Guarded)
has "python3-dbus: e2e-other calling Guarded: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied: ' "$out"
has "... the text names the label and the token" 'e2e-other.*e2e-svc::Control' "$out"
check "python3-dbus: e2e-other calls the open Open" "reply open" \
    "$(as e2e-other $py call org.mssf.E2E $path org.mssf.E2E Open)"

# ---- properties ----
check "python3-dbus: the holder reads Level" "reply 7" \
    "$(as e2e-holder $py get org.mssf.E2E $path org.mssf.E2E Level)"
has "python3-dbus: e2e-other reading Level: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied: .*e2e-svc::Read' \
    "$(as e2e-other $py get org.mssf.E2E $path org.mssf.E2E Level)"
has "python3-dbus: GetAll shows the holder Level" '^props .*\bLevel\b' \
    "$(as e2e-holder $py getall org.mssf.E2E $path org.mssf.E2E)"
out=$(as e2e-other $py getall org.mssf.E2E $path org.mssf.E2E)
has "python3-dbus: GetAll answers e2e-other" '^props .*\bName\b' "$out"
lacks "... without Level" '\bLevel\b' "$out"

# ---- signals ----
bg e2e-holder "$t/holder.out" $py listen 20
bg e2e-other "$t/other.out" $py listen 20
wait_for "$t/holder.out" '^ready' 15 && wait_for "$t/other.out" '^ready' 15 ||
    not_ok "the python3-dbus listeners did not start: $(cat "$t/holder.out" "$t/other.out")"
emit() { gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'$1'" "'$2'" > /dev/null; }
emit broadcast ''
emit done ''
wait_for "$t/holder.out" '^end' 15
wait_for "$t/other.out" '^end' 15
holder=$(cat "$t/holder.out")
other=$(cat "$t/other.out")
has "python3-dbus: the holder receives Secret (needs e2e-svc::Listen)" '^signal Secret broadcast$' "$holder"
lacks "python3-dbus: e2e-other never receives Secret" '^signal Secret' "$other"
has "python3-dbus: e2e-other receives the open Public" '^signal Public broadcast$' "$other"
has "python3-dbus: e2e-other's listener saw the end marker (nothing later lost)" '^end$' "$other"

e2e_finish
