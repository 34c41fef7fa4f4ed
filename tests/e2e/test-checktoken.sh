#!/bin/sh
# org.mssf.Broker1.CheckToken under real Smack (one UML boot):
#   uml-run test-checktoken.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# Besides the common set-up, mssf-policy installs e2e-loc (guards one
# method with the global Location), e2e-cal (provides work; a helper
# labelled e2e-cal-helper may own its name: the system origin may name
# any label) and e2e-asked (origin system:
# granted Location, Cellular and e2e-cal::work), so the kernel holds
# "e2e-asked e2e-loc w" (a Location holder reaches the Location service)
# and "e2e-asked e2e-cal-helper w". A connection of e2e-asked stays; the
# services ask the bus about it (e2e-helper ask, libdbus):
#  - e2e-loc, owning org.mssf.E2ELoc or not, learns whether it holds
#    Location and nothing else: Cellular, e2e-cal::work and a made-up
#    token are AccessDenied ("not its to ask"), in the same words as a
#    connection it may not ask about, and so is Cellular about a name
#    nobody has: decided before the connection is looked at;
#  - the helper labelled e2e-cal-helper, serving org.mssf.E2ECal through
#    <owner label>, asks for "work" and gets e2e-cal::work (held); before
#    it owns the name its label is no package's (AccessDenied); the
#    package's own label gets the same answer, and so does a label under
#    it, e2e-cal:sync, without any name;
#  - about itself a connection may ask for any token.
. "$(dirname "$0")/lib.sh"
e2e_setup

for label in e2e-loc e2e-cal e2e-cal-helper e2e-cal:sync e2e-asked; do
    load_rule "$label" System w
    load_rule System "$label" w
done
for package in e2e-loc e2e-cal e2e-asked; do
    "$policy_tool" install --origin system "$package" "$src/$package.xml" > "$t/install.out" 2>&1 ||
        { cat "$t/install.out"; echo "install $package failed"; exit 1; }
done
wait_for "$t/bus.log" 'eload' 5
check "e2e-asked holds Location" 1 "$("$helper" access e2e-asked Location w)"
check "e2e-asked holds Cellular" 1 "$("$helper" access e2e-asked Cellular w)"
check "e2e-asked holds e2e-cal::work" 1 "$("$helper" access e2e-asked e2e-cal::work w)"
check "nobody holds a global work" 0 "$("$helper" access e2e-asked work w)"
check "a Location holder may reach e2e-loc" w "$(in_kernel e2e-asked e2e-loc)"
check "an e2e-cal::work holder may reach the helper" w "$(in_kernel e2e-asked e2e-cal-helper)"

bg e2e-asked "$t/asked.out" "$e2e" listen 120
wait_for "$t/asked.out" '^ready' 15 || not_ok "e2e-asked did not connect"
asked=$(awk '/^ready/ { print $2 }' "$t/asked.out")
bg e2e-stranger "$t/stranger.out" "$e2e" listen 120
wait_for "$t/stranger.out" '^ready' 15 || not_ok "e2e-stranger did not connect"
stranger=$(awk '/^ready/ { print $2 }' "$t/stranger.out")
not_its='^error [^ ]+ org\.freedesktop\.DBus\.Error\.AccessDenied: Connection ":1\.[0-9]+" may ask CheckToken only about itself'

# ---- the Location service learns Location, and nothing else ----
out=$(client e2e-loc ask org.mssf.E2ELoc "$asked" Location Cellular e2e-cal::work made-up)
has "e2e-loc owns org.mssf.E2ELoc" '^owner org\.mssf\.E2ELoc 1$' "$out"
has "e2e-loc learns that the Location holder holds Location" '^held Location true$' "$out"
has "e2e-loc may not ask whether it holds Cellular" "^error Cellular org\.freedesktop\.DBus\.Error\.AccessDenied:" "$out"
lacks "... and gets no answer about Cellular" '^held Cellular' "$out"
has "nor about e2e-cal::work" "^error e2e-cal::work org\.freedesktop\.DBus\.Error\.AccessDenied:" "$out"
has "nor about a made-up token" "^error made-up org\.freedesktop\.DBus\.Error\.AccessDenied:" "$out"
has "the refusal says it is not e2e-loc's to ask" "$not_its.*whether \"$asked\" holds Cellular is not its to ask" "$out"
# The same words for a connection it may not ask about (no Smack rule from it) as for a token.
denied_token=$(printf '%s\n' "$out" | sed -n "s/^error Cellular [^ ]* //p" | sed "s/\"$asked\" holds Cellular//")
out=$(client e2e-loc ask - "$stranger" Location)
denied_target=$(printf '%s\n' "$out" | sed -n "s/^error Location [^ ]* //p" | sed "s/\"$stranger\" holds Location//")
has "about the stranger (no reach): AccessDenied" "^error Location org\.freedesktop\.DBus\.Error\.AccessDenied:" "$out"
has "the refusal has words" 'may ask CheckToken only about itself' "$denied_token"
check "in the same words, but for the names" "$(printf '%s' "$denied_token" | sed 's/":1\.[0-9]*"/N/')" \
    "$(printf '%s' "$denied_target" | sed 's/":1\.[0-9]*"/N/')"
out=$(client e2e-loc ask - :1.9999 Cellular Location)
has "Cellular about a name nobody has: AccessDenied, decided first" \
    "^error Cellular org\.freedesktop\.DBus\.Error\.AccessDenied:" "$out"
has "Location about it: NameHasNoOwner" "^error Location org\.freedesktop\.DBus\.Error\.NameHasNoOwner:" "$out"
out=$(client e2e-loc ask - "$asked" Location Cellular)
has "e2e-loc's label without the name: Location answered" '^held Location true$' "$out"
has "... Cellular refused" "^error Cellular org\.freedesktop\.DBus\.Error\.AccessDenied:" "$out"
out=$(client e2e-loc ask - self Cellular Location)
has "about itself it may ask for any token" '^held Cellular false$' "$out"

# ---- the helper serving e2e-cal's name resolves as e2e-cal's manifest ----
out=$(client e2e-cal-helper ask - "$asked" work)
has "the helper's label speaks for no package: AccessDenied" "^error work org\.freedesktop\.DBus\.Error\.AccessDenied:" "$out"
out=$(client e2e-cal-helper ask org.mssf.E2ECal "$asked" work e2e-cal::work Location)
has "the helper owns org.mssf.E2ECal (an <owner label>)" '^owner org\.mssf\.E2ECal 1$' "$out"
has "its bare 'work' is e2e-cal::work: held" '^held work true$' "$out"
has "e2e-cal::work in full: held" '^held e2e-cal::work true$' "$out"
has "Location is not e2e-cal's to ask" "^error Location org\.freedesktop\.DBus\.Error\.AccessDenied:" "$out"
out=$(client e2e-cal-helper ask org.mssf.E2ECal self work)
has "about itself, 'work' is e2e-cal::work, not held" '^held work false$' "$out"
out=$(client e2e-cal ask - "$asked" work)
has "the package's own label: the same answer" '^held work true$' "$out"
load_rule e2e-asked e2e-cal:sync w
out=$(client e2e-cal:sync ask - "$asked" work)
has "a label under the package's, serving no name: the same answer" '^held work true$' "$out"

e2e_finish
