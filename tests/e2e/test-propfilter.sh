#!/bin/sh
# Protected properties removed per recipient by mssf-broker (one UML boot):
#   uml-run test-propfilter.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# Level (/org/mssf/E2E) and Hidden (/org/mssf/E2E/Child) need e2e-svc::Read
# to be read: the holder sees them in GetAll, GetAll(""), GetManagedObjects,
# PropertiesChanged and InterfacesAdded; e2e-other gets the same replies
# and signals with them removed and the open properties kept. The
# interface org.mssf.E2E.Vault is protected as a whole (its default needs
# Read): InterfacesRemoved names it only to the holder.
. "$(dirname "$0")/lib.sh"
e2e_setup

props() { # props LABEL ARGS...: e2e-helper call to org.mssf.E2E
    client "$@"
}
all=$(props e2e-holder call org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Properties GetAll org.mssf.E2E)
check "GetAll(org.mssf.E2E) by the holder: every property" "reply {Level:7,Mode:normal,Name:e2e}" "$all"
all=$(props e2e-other call org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Properties GetAll org.mssf.E2E)
check "GetAll(org.mssf.E2E) by e2e-other: Level removed" "reply {Mode:normal,Name:e2e}" "$all"
all=$(props e2e-other call org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Properties GetAll "")
check "GetAll(\"\") by e2e-other: Level removed" "reply {Mode:normal,Name:e2e}" "$all"
all=$(props e2e-holder call org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Properties GetAll "")
check "GetAll(\"\") by the holder: every property" "reply {Level:7,Mode:normal,Name:e2e}" "$all"
out=$(as e2e-other gdbus call --system --timeout 10 --dest org.mssf.E2E --object-path /org/mssf/E2E \
    --method org.freedesktop.DBus.Properties.GetAll org.mssf.E2E)
check "gdbus GetAll by e2e-other" "({'Mode': <'normal'>, 'Name': <'e2e'>},)" "$out"
out=$(as e2e-other busctl --system call org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Properties \
    GetAll s org.mssf.E2E)
check "busctl GetAll by e2e-other" 'a{sv} 2 "Mode" s "normal" "Name" s "e2e"' "$out"

objects=$(props e2e-holder call org.mssf.E2E / org.freedesktop.DBus.ObjectManager GetManagedObjects)
check "GetManagedObjects by the holder: Level and Hidden" \
    "reply {/org/mssf/E2E:{org.mssf.E2E:{Level:7,Mode:normal,Name:e2e}},/org/mssf/E2E/Child:{org.mssf.E2E.Child:{Hidden:42,Plain:plain}}}" \
    "$objects"
objects=$(props e2e-other call org.mssf.E2E / org.freedesktop.DBus.ObjectManager GetManagedObjects)
check "GetManagedObjects by e2e-other: Level and Hidden removed" \
    "reply {/org/mssf/E2E:{org.mssf.E2E:{Mode:normal,Name:e2e}},/org/mssf/E2E/Child:{org.mssf.E2E.Child:{Plain:plain}}}" \
    "$objects"

bg e2e-holder "$t/holder.out" "$e2e" listen 20
bg e2e-other "$t/other.out" "$e2e" listen 20
wait_for "$t/holder.out" '^ready' 15 && wait_for "$t/other.out" '^ready' 15 ||
    not_ok "the listeners did not start"
for kind in props added removed removed-vault done; do
    check "Emit $kind" "()" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'$kind'" "''")"
done
wait_for "$t/holder.out" '^end' 15
wait_for "$t/other.out" '^end' 15
holder=$(cat "$t/holder.out")
other=$(cat "$t/other.out")
has "PropertiesChanged to the holder carries Level" \
    '^signal PropertiesChanged org.mssf.E2E \{Level:7,Mode:normal,Name:e2e\} \[\] to \*$' "$holder"
has "PropertiesChanged to e2e-other without Level" \
    '^signal PropertiesChanged org.mssf.E2E \{Mode:normal,Name:e2e\} \[\] to \*$' "$other"
has "InterfacesAdded to the holder carries Hidden" \
    '^signal InterfacesAdded /org/mssf/E2E/Child \{org.mssf.E2E.Child:\{Hidden:42,Plain:plain\}\} to \*$' "$holder"
has "InterfacesAdded to e2e-other without Hidden" \
    '^signal InterfacesAdded /org/mssf/E2E/Child \{org.mssf.E2E.Child:\{Plain:plain\}\} to \*$' "$other"
has "InterfacesRemoved to the holder names Child and the protected Vault" \
    '^signal InterfacesRemoved /org/mssf/E2E/Child \[org.mssf.E2E.Child,org.mssf.E2E.Vault\] to \*$' "$holder"
has "InterfacesRemoved to e2e-other without Vault" \
    '^signal InterfacesRemoved /org/mssf/E2E/Child \[org.mssf.E2E.Child\] to \*$' "$other"
has "InterfacesRemoved of Vault alone reaches the holder" \
    '^signal InterfacesRemoved /org/mssf/E2E/Child \[org.mssf.E2E.Vault\] to \*$' "$holder"
lacks "... and not e2e-other (nothing left)" 'InterfacesRemoved /org/mssf/E2E/Child \[org.mssf.E2E.Vault\]' "$other"
lacks "e2e-other never received Level, Hidden or Vault" 'Level|Hidden|Vault' "$other"

e2e_finish
