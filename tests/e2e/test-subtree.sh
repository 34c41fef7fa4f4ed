#!/bin/sh
# Attacking services that serve a subtree: every child path they answer
# at is undeclared, so the bus must refuse it (one UML boot):
#   uml-run test-subtree.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# Two careless services, both labelled e2e-svc and declared in e2e-svc.xml
# at one exact path each: e2e-tree (org.mssf.E2ETree, an sd-bus fallback
# vtable serving /org/mssf/E2ETree/Location and every path below it) and
# e2e-pytree.py (org.mssf.E2EPyTree, a dbus-python FallbackObject at
# /org/mssf/E2EPyTree/Location). e2e-holder holds every token, e2e-other
# none. The children are refused even to the holder (nothing declares
# them); GetManagedObjects and InterfacesAdded show only the declared
# object, its protected property only to the holder; a child's
# InterfacesAdded/Removed reach nobody. Split from test-attack.sh so that
# each boot stays short on a loaded host.
. "$(dirname "$0")/lib.sh"
e2e_setup
bin=$(dirname "$e2e")

bg e2e-svc "$t/tree.out" "$bin/e2e-tree"
bg e2e-svc "$t/pytree.out" /usr/bin/python3 "$src/e2e-pytree.py" 55
wait_for "$t/tree.out" '^(ready|refused|error)' 15 && wait_for "$t/pytree.out" '^(ready|refused|Traceback)' 30 ||
    not_ok "the subtree services did not start"
check "e2e-tree (labelled e2e-svc) owns org.mssf.E2ETree" ready "$(awk 'NR == 1 { print $1 }' "$t/tree.out")"
check "e2e-pytree.py (labelled e2e-svc) owns org.mssf.E2EPyTree" ready "$(awk 'NR == 1 { print $1 }' "$t/pytree.out")"
denied='^(Error |error |GDBus\.Error:)?org\.freedesktop\.DBus\.Error\.AccessDenied'

tree() { # tree LABEL PATH IFACE MEMBER [ARGS...]: e2e-helper call to the subtree service
    label=$1
    shift
    client "$label" call org.mssf.E2ETree "$@"
}
has "the subtree's child /Location/1: Get by the holder: AccessDenied" "$denied" \
    "$(tree e2e-holder /org/mssf/E2ETree/Location/1 org.freedesktop.DBus.Properties Get org.mssf.E2E.Location Position)"
has "... GetAll by the holder: AccessDenied" "$denied" \
    "$(tree e2e-holder /org/mssf/E2ETree/Location/1 org.freedesktop.DBus.Properties GetAll org.mssf.E2E.Location)"
has "... GetPosition by the holder: AccessDenied" "$denied" \
    "$(tree e2e-holder /org/mssf/E2ETree/Location/2 org.mssf.E2E.Location GetPosition)"
has "... Get of the open Accuracy by e2e-other: AccessDenied" "$denied" \
    "$(tree e2e-other /org/mssf/E2ETree/Location/1 org.freedesktop.DBus.Properties Get org.mssf.E2E.Location Accuracy)"
lacks "the subtree service got no call below /org/mssf/E2ETree/Location" '^CALL .* /org/mssf/E2ETree/Location/' \
    "$(cat "$t/tree.out")"
check "GetManagedObjects by e2e-other: only the declared object, only Accuracy" \
    "reply {/org/mssf/E2ETree/Location:{org.mssf.E2E.Location:{Accuracy:accuracy-open}}}" \
    "$(tree e2e-other /org/mssf/E2ETree org.freedesktop.DBus.ObjectManager GetManagedObjects)"
check "GetManagedObjects by the holder: the declared object with Position" \
    "reply {/org/mssf/E2ETree/Location:{org.mssf.E2E.Location:{Position:position-secret,Accuracy:accuracy-open}}}" \
    "$(tree e2e-holder /org/mssf/E2ETree org.freedesktop.DBus.ObjectManager GetManagedObjects)"
out=$(as e2e-other busctl --system call org.mssf.E2ETree /org/mssf/E2ETree org.freedesktop.DBus.ObjectManager \
    GetManagedObjects)
lacks "busctl GetManagedObjects by e2e-other: no position, no child" 'position-secret|Location/[0-9]' "$out"

# dbus-python's FallbackObject serves every path below its own.
py="/usr/bin/python3 $src/e2e-py.py"
pyloc=/org/mssf/E2EPyTree/Location
check "FallbackObject: the holder's GetPosition at the declared path" "reply py-position-secret" \
    "$(as e2e-holder $py call org.mssf.E2EPyTree $pyloc org.mssf.E2E.Location GetPosition)"
has "... e2e-other's: AccessDenied (e2e-svc::Read)" '^error org\.freedesktop\.DBus\.Error\.AccessDenied: .*e2e-svc::Read' \
    "$(as e2e-other $py call org.mssf.E2EPyTree $pyloc org.mssf.E2E.Location GetPosition)"
has "... the holder's GetPosition at the child $pyloc/7: AccessDenied (not declared)" \
    '^error org\.freedesktop\.DBus\.Error\.AccessDenied: .*does not declare' \
    "$(as e2e-holder $py call org.mssf.E2EPyTree $pyloc/7 org.mssf.E2E.Location GetPosition)"
has "... the holder's Get(Position) at the child: AccessDenied" '^error org\.freedesktop\.DBus\.Error\.AccessDenied' \
    "$(as e2e-holder $py get org.mssf.E2EPyTree $pyloc/7 org.mssf.E2E.Location Position)"
has "... e2e-other's Get(Accuracy) at the child: AccessDenied" '^error org\.freedesktop\.DBus\.Error\.AccessDenied' \
    "$(as e2e-other $py get org.mssf.E2EPyTree $pyloc/7 org.mssf.E2E.Location Accuracy)"
check "... e2e-other's Get(Accuracy) at the declared path (open)" "reply py-accuracy-open" \
    "$(as e2e-other $py get org.mssf.E2EPyTree $pyloc org.mssf.E2E.Location Accuracy)"
check "the FallbackObject served only the declared path" "CALL GetPosition / GET Accuracy /" \
    "$(grep -E '^(CALL|GET) ' "$t/pytree.out" | tr '\n' ' ' | sed 's/ $//')"

bg e2e-holder "$t/holder-om.out" "$e2e" listen 20
bg e2e-other "$t/other-om.out" "$e2e" listen 20
wait_for "$t/holder-om.out" '^ready' 15 && wait_for "$t/other-om.out" '^ready' 15 ||
    not_ok "the listeners did not start"
for kind in child self removed-child; do
    check "the subtree emits $kind" "reply " \
        "$(tree e2e-holder /org/mssf/E2ETree/Location org.mssf.E2E.Location Emit "$kind")"
done
check "Emit done" "()" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'done'" "''")"
wait_for "$t/holder-om.out" '^end' 15
wait_for "$t/other-om.out" '^end' 15
holder=$(cat "$t/holder-om.out")
other=$(cat "$t/other-om.out")
lacks "InterfacesAdded/Removed of the child /Location/3 reach nobody (nothing declared there)" \
    'Location/3' "$holder
$other"
has "InterfacesAdded of /Location to the holder: Position and Accuracy" \
    '^signal InterfacesAdded /org/mssf/E2ETree/Location \{org\.mssf\.E2E\.Location:\{Position:position-secret,Accuracy:accuracy-open\}\} to \*$' \
    "$holder"
has "... to e2e-other: Accuracy only" \
    '^signal InterfacesAdded /org/mssf/E2ETree/Location \{org\.mssf\.E2E\.Location:\{Accuracy:accuracy-open\}\} to \*$' \
    "$other"

e2e_finish
