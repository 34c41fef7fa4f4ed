#!/bin/sh
# Properties methods without an interface field (one UML boot):
#   uml-run test-bypass.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# python3-dbus and sd-bus dispatch a call without an interface by its
# member name, so a "Get" without interface is Properties.Get to them (the
# test service does the same). DESIGN.md: a call without an interface
# field needs every token that a member of that name at that path needs;
# Properties.Get of Level needs e2e-svc::Read, Set of Mode e2e-svc::Write,
# and org.mssf.E2E.Undeclared is not declared. e2e-svc.xml opens
# org.freedesktop.DBus.Introspectable at /org/mssf/E2E with an
# interface-level value="" (as timed and usb-moded do): that default must
# not open every interface-less call at the path. Since 5ca51a0 a call
# without interface is covered only by explicit method declarations: the
# manifest declares Level as a property, not a method "Get", so an
# interface-less Get is not declared for anyone, the holder included
# (every client library names org.freedesktop.DBus.Properties anyway).
. "$(dirname "$0")/lib.sh"
e2e_setup

out=$(client e2e-holder call org.mssf.E2E /org/mssf/E2E - Get org.mssf.E2E Level)
has "the holder: Get(org.mssf.E2E, Level) without interface: AccessDenied (not declared)" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied.*not declare' "$out"
out=$(client e2e-holder call org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Properties Get org.mssf.E2E Level)
check "... with its interface it is answered" "reply 7" "$out"
out=$(client e2e-other call org.mssf.E2E /org/mssf/E2E - Get org.mssf.E2E Level)
has "e2e-other: Get(org.mssf.E2E, Level) without interface: AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(client e2e-other call "$svc_unique" /org/mssf/E2E - Get org.mssf.E2E Level)
has "... by unique name: AccessDenied" '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(client e2e-other call org.mssf.E2E /org/mssf/E2E - Set org.mssf.E2E Mode)
has "e2e-other: Set without interface (Mode needs e2e-svc::Write): AccessDenied" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied' "$out"
out=$(client e2e-other call org.mssf.E2E /org/mssf/E2E - Undeclared)
has "e2e-other: Undeclared without interface: AccessDenied (not declared)" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied.*not declare' "$out"
out=$(client e2e-other call org.mssf.E2E /org/mssf/E2E - GetAll org.mssf.E2E)
lacks "e2e-other: GetAll(org.mssf.E2E) without interface never shows Level" 'Level' "$out"
out=$(client e2e-other call org.mssf.E2E / - GetManagedObjects)
has "e2e-other: GetManagedObjects without interface (open) is answered" '^reply \{' "$out"
lacks "... without Level or Hidden" 'Level|Hidden' "$out"
echo "# mssf-policy explain, no interface, member Get:" \
    "$("$policy_tool" explain --label e2e-other --dest org.mssf.E2E --path /org/mssf/E2E --member Get | tr '\n' ' ')"
check "the service read Level once, for the holder's Properties.Get" 1 \
    "$(grep -c '^GET org.mssf.E2E Level' "$t/svc.out")"
check "no Set reached the service" 0 "$(grep -c '^SETTING' "$t/svc.out")"
lacks "no interface-less Get, Set or Undeclared reached the service" '^CALL -\.(Get|Set|Undeclared) ' \
    "$(cat "$t/svc.out")"

e2e_finish
