#!/bin/sh
# mssf-policy scaffold over the introspection data of real Debian services,
# round trip: data/ holds what systemd-hostnamed, upowerd and polkitd
# answered to Introspect, object by object (busctl, see services.sh), and
# Debian's interface files in /usr/share/dbus-1/interfaces are used too
# when they name their object. Data that lists neither Introspectable nor
# Peer (upower's captured replies without them, a hand-written file)
# goes the same way. For each:
#  - scaffold --xml writes a manifest listing every object, interface and
#    member of the input (counted against it), the token every
#    interface's default, and on every object Introspectable
#    (Introspect) and Peer (Ping, GetMachineId) once each, open, whether
#    the input lists them or not;
#  - mssf-policy check accepts it; check --xml finds it complete;
#  - with an interface taken out, check lists its members as uncovered
#    (exit 6); with a member taken out, a note (exit 0); with
#    Introspectable taken out, Introspect uncovered at every object
#    (exit 6); with Peer taken out, still complete (the bus answers Ping
#    and GetMachineId whatever a manifest says);
#  - it installs and compiles into a scratch root, and explain answers as
#    the bus would: the token needed, Introspect and Ping open.
# Plus the refusals of the command line.
#   test-scaffold.sh MSSF_POLICY SOURCE_DIR
set -u
tool=$1
src=$2
dir=$(mktemp -d /tmp/scaffold-XXXXXX)
trap 'rm -rf "$dir"' EXIT
failures=0

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failures=$((failures + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi; }
has() { if printf '%s\n' "$3" | grep -Eq -- "$2"; then ok "$1"; else not_ok "$1: no /$2/ in: $3"; fi; }
lacks() { if printf '%s\n' "$3" | grep -Eq -- "$2"; then not_ok "$1: /$2/ in: $3"; else ok "$1"; fi; }

# count ERE FILES...: occurrences in the files.
count() {
    ere=$1
    shift
    cat "$@" | grep -oE "$ere" | wc -l
}

# drop_interface NAME FILE: FILE without the interface NAME (every element of it).
drop_interface() {
    awk -v g="$1" '$0 ~ "<interface name=\"" g "\"/>" { next }
                   $0 ~ "<interface name=\"" g "\">" { skip = 1 } !skip { print }
                   skip && /<\/interface>/ { skip = 0 }' "$2"
}

# without_standard FILES...: the files without Introspectable and Peer.
without_standard() {
    for f in "$@"; do
        drop_interface org.freedesktop.DBus.Introspectable "$f" | drop_interface org.freedesktop.DBus.Peer -
    done
}

# standard_missing MANIFEST: one line for each object that does not declare
# Introspectable (Introspect) and Peer (Ping, GetMachineId) exactly once,
# open; nothing when every object does.
standard_missing() {
    awk '/<node name=/ { match($0, /name="[^"]*"/); path = substr($0, RSTART + 6, RLENGTH - 7)
                         n_i = n_p = open_i = open_p = introspect = ping = machine = 0; iface = "" }
         /<interface name="org\.freedesktop\.DBus\.Introspectable">/ { iface = "i"; n_i++ }
         /<interface name="org\.freedesktop\.DBus\.Peer">/ { iface = "p"; n_p++ }
         /<\/interface>/ { iface = "" }
         iface == "i" && /<annotation name="com\.maemo\.Aegis" value=""\/>/ { open_i++ }
         iface == "p" && /<annotation name="com\.maemo\.Aegis" value=""\/>/ { open_p++ }
         iface == "i" && /<method name="Introspect"\/>/ { introspect++ }
         iface == "p" && /<method name="Ping"\/>/ { ping++ }
         iface == "p" && /<method name="GetMachineId"\/>/ { machine++ }
         /<\/node>/ { s = n_i " " open_i " " introspect " " n_p " " open_p " " ping " " machine
                      if (s != "1 1 1 1 1 1 1") print path ": " s }' "$1"
}

# roundtrip LABEL BUSNAME TOKEN GUARDED-INTERFACE GUARDED-METHOD FILES...
roundtrip() {
    label=$1 name=$2 token=$3 guarded=$4 method=$5
    shift 5
    m=$dir/$label.xml
    out=$("$tool" scaffold --name "$name" --token "$token" $(for f in "$@"; do printf -- '--xml %s ' "$f"; done) \
          2>&1 > "$m")
    check "$label: scaffold exits 0" "0:" "$?:$(printf '%s' "$out" | grep -c error: | sed 's/^0$//')"
    # What the input offers besides Introspectable and Peer is listed as it is.
    for what in '<method[ >]' '<signal[ >]' '<property[ >]' '<interface name='; do
        check "$label: every $what of the input listed" \
            "$(without_standard "$@" | grep -oE "$what" | wc -l)" \
            "$(without_standard "$m" | grep -oE "$what" | wc -l)"
    done
    check "$label: every object listed" "$(count '^<node name=' "$@")" "$(count '<node name=' "$m")"
    # Every object answers Introspect and Ping (the D-Bus libraries do): declared, open, once.
    check "$label: Introspectable and Peer open on every object, once each" "" "$(standard_missing "$m")"
    has "$label: $guarded needs $token" "value=\"$token\"" \
        "$(grep -A1 "interface name=\"$guarded\"" "$m")"
    out=$("$tool" check "$m" 2>&1)
    check "$label: mssf-policy check accepts it" "0" "$?"
    lacks "$label: ... without an error" "error:" "$out"
    out=$("$tool" check "$m" $(for f in "$@"; do printf -- '--xml %s ' "$f"; done) 2>&1)
    check "$label: check --xml: complete" "0" "$?"
    has "$label: ... says so" "covers everything $name offers" "$out"

    # A later version adds an interface the manifest does not know.
    drop_interface "$guarded" "$m" > "$dir/$label-old.xml"
    out=$("$tool" check "$dir/$label-old.xml" $(for f in "$@"; do printf -- '--xml %s ' "$f"; done) 2>&1)
    check "$label: an interface missing: exit 6" "6" "$?"
    has "$label: ... its method uncovered" "^uncovered: method [^ ]+ $guarded\\.$method: no annotation covers it, so the bus refuses it to every caller$" "$out"
    has "$label: ... counted" "^[0-9]+ uncovered in " "$out"
    # A member the manifest does not list, its interface's default covers.
    grep -v "<method name=\"$method\"/>" "$m" > "$dir/$label-less.xml"
    out=$("$tool" check "$dir/$label-less.xml" $(for f in "$@"; do printf -- '--xml %s ' "$f"; done) 2>&1)
    check "$label: a member missing: still covered" "0" "$?"
    # The token as the bus reads it: a bare name of the package's own is package::Token.
    has "$label: ... noted" "^note: method [^ ]+ $guarded\\.$method is not listed; the default of its interface covers it \\(([^)]*::)?$token\\)$" "$out"
    # A manifest without Introspectable: the bus refuses Introspect on every object.
    drop_interface org.freedesktop.DBus.Introspectable "$m" > "$dir/$label-closed.xml"
    out=$("$tool" check "$dir/$label-closed.xml" $(for f in "$@"; do printf -- '--xml %s ' "$f"; done) 2>&1)
    check "$label: Introspectable missing: exit 6" "6" "$?"
    check "$label: ... Introspect uncovered on every object" "$(count '<node name=' "$m")" \
        "$(printf '%s\n' "$out" | grep -cE '^uncovered: method [^ ]+ org\.freedesktop\.DBus\.Introspectable\.Introspect: no annotation covers it, so the bus refuses it to every caller$')"
    # Without Peer: the bus answers Ping and GetMachineId whatever the manifest says.
    drop_interface org.freedesktop.DBus.Peer "$m" > "$dir/$label-nopeer.xml"
    out=$("$tool" check "$dir/$label-nopeer.xml" $(for f in "$@"; do printf -- '--xml %s ' "$f"; done) 2>&1)
    check "$label: Peer missing: still complete" "0" "$?"
    lacks "$label: ... and nothing said of Peer" "Peer" "$out"

    # Installed and compiled, the bus's decision code reads it.
    root=$dir/root-$label
    out=$("$tool" install --root "$root" --no-kernel --no-reload --origin system "$label" "$m" 2>&1)
    check "$label: installs and compiles" "0" "$?"
    path=$(awk -v g="$guarded" '/<node name=/ { match($0, /name="[^"]*"/); p = substr($0, RSTART + 6, RLENGTH - 7) }
                                $0 ~ "<interface name=\"" g "\">" { print p; exit }' "$m")
    out=$("$tool" explain --root "$root" --no-kernel --label someapp --dest "$name" --path "$path" \
          --interface "$guarded" --member "$method" 2>&1)
    check "$label: explain: $method denied to an app without $token" "5" "$?"
    has "$label: ... for want of $token" "$token" "$out"
    for object in $(grep -o '<node name="[^"]*"' "$m" | cut -d'"' -f2); do
        out=$("$tool" explain --root "$root" --no-kernel --label someapp --dest "$name" --path "$object" \
              --interface org.freedesktop.DBus.Introspectable --member Introspect 2>&1)
        check "$label: explain: Introspect allowed at $object" "0" "$?"
    done
    out=$("$tool" explain --root "$root" --no-kernel --label someapp --dest "$name" --path "$path" \
          --interface org.freedesktop.DBus.Peer --member Ping 2>&1)
    check "$label: explain: Ping allowed" "0" "$?"
}

roundtrip hostname org.freedesktop.hostname1 HostnameControl org.freedesktop.hostname1 SetHostname \
    "$src"/data/org.freedesktop.hostname1/*.xml
roundtrip upower org.freedesktop.UPower Power org.freedesktop.UPower EnumerateDevices \
    "$src"/data/org.freedesktop.UPower/*.xml
roundtrip polkit org.freedesktop.PolicyKit1 polkit::Authority org.freedesktop.PolicyKit1.Authority \
    CheckAuthorization "$src"/data/org.freedesktop.PolicyKit1/*.xml

# Data without Introspectable and Peer (an interface file, a hand-written
# document): scaffold opens both on every object all the same.
mkdir "$dir/upower-bare"
for f in "$src"/data/org.freedesktop.UPower/*.xml; do
    without_standard "$f" > "$dir/upower-bare/$(basename "$f")"
done
check "upower-bare: the input lists neither Introspectable nor Peer" 0 \
    "$(cat "$dir"/upower-bare/*.xml | grep -cE 'org\.freedesktop\.DBus\.(Introspectable|Peer)')"
roundtrip upower-bare org.freedesktop.UPower Power org.freedesktop.UPower EnumerateDevices "$dir"/upower-bare/*.xml
cat > "$dir/svc.xml" <<'END'
<node name="/org/example/Svc">
  <interface name="org.example.Svc">
    <method name="Reset">
      <arg type="b" direction="in"/>
    </method>
    <signal name="Changed"/>
    <property name="Level" type="u" access="read"/>
  </interface>
</node>
END
cat > "$dir/svc-item.xml" <<'END'
<node name="/org/example/Svc/Item">
  <interface name="org.example.Svc.Item">
    <method name="Open"/>
  </interface>
</node>
END
printf '<node name="/org/example">\n  <node name="Svc"/>\n</node>\n' > "$dir/svc-prefix.xml"
roundtrip handmade org.example.Svc Svc org.example.Svc Reset "$dir/svc.xml" "$dir/svc-item.xml" "$dir/svc-prefix.xml"

# A global token of the device policy: not declared as the package's own.
lacks "a global token is not provided" '<credential name="Cellular"/>' \
    "$("$tool" scaffold --name org.example.X --token Cellular \
       --xml "$(grep -l '<interface name="org.freedesktop.UPower">' "$src"/data/org.freedesktop.UPower/*.xml)")"
has "the package's own token is provided" '<credential name="Power"/>' "$(cat "$dir/upower.xml")"
lacks "another package's token is not" '<credential name=' "$(cat "$dir/polkit.xml")"

# Debian's interface files, where they name their object (upower's).
for f in /usr/share/dbus-1/interfaces/org.freedesktop.UPower.xml \
         /usr/share/dbus-1/interfaces/org.freedesktop.UPower.Device.xml; do
    if [ -r "$f" ]; then
        roundtrip "debian-$(basename "$f" .xml | tr . -)" org.freedesktop.UPower Power \
            "$(basename "$f" .xml)" "$(grep -m1 -o '<method name="[^"]*"' "$f" | cut -d'"' -f2)" "$f"
    else
        echo "ok - # SKIP $f is not installed (package upower)"
    fi
done

# The command line refuses what cannot make a manifest.
x=$(grep -l '<interface name="org.freedesktop.UPower">' "$src"/data/org.freedesktop.UPower/*.xml)
out=$("$tool" scaffold --token T --xml "$x" 2>&1); check "no --name: exit 3" 3 "$?"
has "... says so" "scaffold needs --name BUSNAME" "$out"
out=$("$tool" scaffold --name org.example.X --xml "$x" 2>&1); check "no --token: exit 3" 3 "$?"
out=$("$tool" scaffold --name org.example.X --token UID::root --xml "$x" 2>&1); check "a POSIX credential: exit 3" 3 "$?"
has "... says so" "--token 'UID::root' is a POSIX credential" "$out"
out=$("$tool" scaffold --name :1.5 --token T --xml "$x" 2>&1); check "a unique name: exit 3" 3 "$?"
out=$("$tool" scaffold --name org.example.X --token T 2>&1); check "no data: exit 3" 3 "$?"
has "... says so" "--xml FILE \\(repeatable\\) or --dest NAME" "$out"
out=$("$tool" scaffold --name org.example.X --token T --xml "$x" --dest org.example.X 2>&1)
check "both --xml and --dest: exit 3" 3 "$?"
out=$("$tool" scaffold --name org.example.X --token T --xml /nonexistent.xml 2>&1); check "a missing file: exit 3" 3 "$?"
has "... names it" "^/nonexistent.xml: error: cannot read" "$out"
printf '<node name="/">\n  <interface name="a.B">\n    <method name="M"/>\n    <method name="M"/>\n' > "$dir/bad.xml"
out=$("$tool" scaffold --name org.example.X --token T --xml "$dir/bad.xml" 2>&1); check "a bad file: exit 3" 3 "$?"
has "... file:line:column" "^$dir/bad.xml:4:5: error: method a.B.M is described twice$" "$out"
out=$("$tool" scaffold --name org.example.X --token T --xml "$x" --label x 2>&1); check "an option of explain: exit 2" 2 "$?"
out=$("$tool" check "$dir/upower.xml" --xml "$x" --name org.example.Other 2>&1); check "check of an undeclared name: exit 3" 3 "$?"
has "... says so" "the manifest does not declare org.example.Other" "$out"

if [ "$failures" -ne 0 ]; then
    echo "$failures failed"
    exit 1
fi
echo "all passed"
