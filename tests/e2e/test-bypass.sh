#!/bin/sh
# Properties methods without an interface field (one UML boot):
#   uml-run test-bypass.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# python3-dbus and sd-bus dispatch a call without an interface by its
# member name, so a "Get" without interface is Properties.Get to them (the
# test service does the same). DESIGN.md: a call without an interface
# field needs every token that a member of that name at that path needs;
# Properties.Get of Level needs e2e-svc::Read, Set of Mode e2e-svc::Write.
. "$(dirname "$0")/lib.sh"
e2e_setup

out=$(client e2e-holder call org.mssf.E2E /org/mssf/E2E - Get org.mssf.E2E Level)
check "the holder: Get(org.mssf.E2E, Level) without interface is answered" "reply 7" "$out"
out=$(client e2e-other call org.mssf.E2E /org/mssf/E2E - Get org.mssf.E2E Level)
has "e2e-other: Get(org.mssf.E2E, Level) without interface: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(client e2e-other call "$svc_unique" /org/mssf/E2E - Get org.mssf.E2E Level)
has "... by unique name: AccessDenied" '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(client e2e-other call org.mssf.E2E /org/mssf/E2E - Set org.mssf.E2E Mode)
has "e2e-other: Set without interface (Mode needs e2e-svc::Write): AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
check "the service never read Level for e2e-other" 1 "$(grep -c '^GET org.mssf.E2E Level' "$t/svc.out")"

e2e_finish
