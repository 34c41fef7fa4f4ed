#!/bin/sh
# The key service on the host, which has no Smack: mssf-keyd (software
# mode, its state in a scratch directory) on the built mssf-broker with
# the shipped busconfig (keyd/org.mssf.Keys1.conf) allowing it its name,
# clients through libmssf (mssf-crypto) and busctl:
#  - the bus gives no labels, so the service refuses every call, by name
#    (Unmediated: "no label or an unmediated connection: refused"), and
#    its State property says so, its Mode says where its root lives;
#  - libmssf refuses oversized input before sending, with the limit;
#  - with no service on the bus: the transport's error, not a key error;
#  - mssf-keyd --check says where the root lives, and the same root comes
#    back at the next start (its id).
#   test-host.sh MSSF_BROKER MSSF_KEYD MSSF_CRYPTO KEYD_SOURCE_DIR
set -u
broker=$1
keyd=$2
crypto=$3
keyd_src=$(cd "$4" && pwd)
dir=$(mktemp -d /tmp/keyd-host-XXXXXX)
failures=0
pids=""

cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
. "$(dirname "$0")/../lib/checks.sh"

out=$("$keyd" --check --state-dir "$dir/state" --tpm none 2>&1)
has "--check: a software root, said to be the weaker mode" "^mssf-keyd: root key [0-9a-f]{16}: WEAKER MODE" "$out"
id=$(echo "$out" | sed -n 's/^mssf-keyd: root key \([0-9a-f]*\):.*/\1/p')
out=$("$keyd" --check --state-dir "$dir/state" --tpm none 2>&1)
check "the same root at the next start" "$id" "$(echo "$out" | sed -n 's/^mssf-keyd: root key \([0-9a-f]*\):.*/\1/p')"
check "root.state is the service user's alone" "-rw-------" "$(stat -c %A "$dir/state/root.state")"
"$keyd" --check --state-dir "$dir/state" --tpm required > "$dir/required.out" 2>&1
check "--tpm required with a software root: exit status 1" 1 "$?"
has "and the error by name" "org.mssf.Keys1.Error.TpmUnavailable" "$(cat "$dir/required.out")"

cat > "$dir/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_destination="org.freedesktop.DBus"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
  <!-- The service's own busconfig, for the user it runs as here. -->
  <policy user="$(id -un)">
    <allow own="org.mssf.Keys1"/>
  </policy>
  <include>$keyd_src/org.mssf.Keys1.conf</include>
</busconfig>
EOF
"$broker" --config-file="$dir/bus.conf" --nofork --print-address > "$dir/bus.out" 2> "$dir/bus.log" &
pids="$pids $!"
wait_for "$dir/bus.out" unix: || exit 1
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/bus"

printf x > "$dir/x"
"$crypto" encrypt < "$dir/x" > /dev/null 2> "$dir/err"
has "no service on the bus: the transport's error" "^mssf-crypto: EHOSTUNREACH: org.freedesktop.DBus.Error.ServiceUnknown" \
    "$(cat "$dir/err")"

"$keyd" --state-dir "$dir/state" --tpm none > "$dir/keyd.out" 2> "$dir/keyd.err" &
pids="$pids $!"
wait_for "$dir/keyd.out" "ready as" || exit 1
has "the service owns its name through its busconfig, and says it is not mediated" \
    "ready as :1\.[0-9]+ \(org\.mssf\.Keys1\), mode software, state Unmediated" "$(cat "$dir/keyd.out")"
has "and why, in its log" "the bus gives no Smack labels" "$(cat "$dir/keyd.err")"
check "property State" 's "Unmediated"' \
    "$(busctl --system get-property org.mssf.Keys1 /org/mssf/Keys1 org.mssf.Keys1 State 2>&1)"
check "property Mode" 's "software"' \
    "$(busctl --system get-property org.mssf.Keys1 /org/mssf/Keys1 org.mssf.Keys1 Mode 2>&1)"
check "property MaxInput" 'u 65536' \
    "$(busctl --system get-property org.mssf.Keys1 /org/mssf/Keys1 org.mssf.Keys1 MaxInput 2>&1)"
check "mssf-crypto mode" software "$("$crypto" mode 2>&1)"
for call in "encrypt" "decrypt" "sign" "store item" "load item" "remove item"; do
    # shellcheck disable=SC2086 # the call's words
    "$crypto" $call < "$dir/x" > "$dir/reply" 2> "$dir/err"
    has "$call without a label the bus vouches for: Unmediated" \
        "^mssf-crypto: EOPNOTSUPP: org.mssf.Keys1.Error.Unmediated: the bus gives no Smack labels" "$(cat "$dir/err")"
    check "and nothing else" "" "$(cat "$dir/reply")"
done
"$crypto" random 16 > "$dir/reply" 2> "$dir/err"
has "random bytes too: Unmediated" "^mssf-crypto: EOPNOTSUPP: org.mssf.Keys1.Error.Unmediated" "$(cat "$dir/err")"
out=$(busctl --system call org.mssf.Keys1 /org/mssf/Keys1 org.mssf.Keys1 Encrypt say "" 1 1 2>&1)
has "busctl: the same refusal" "Unmediated|the bus gives no Smack labels" "$out"
head -c 65537 /dev/zero > "$dir/big"
"$crypto" encrypt < "$dir/big" > /dev/null 2> "$dir/err"
has "65,537 bytes: refused by libmssf before sending, with the limit" \
    "^mssf-crypto: EMSGSIZE: org.mssf.Keys1.Error.TooLarge: a plaintext of 65537 bytes is over the limit of 65536 bytes" \
    "$(cat "$dir/err")"

[ "$failures" = 0 ] || { echo "# bus log:"; tail -n 20 "$dir/bus.log"; echo "# keyd:"; cat "$dir/keyd.err"; }
echo "# $failures failure(s)"
[ "$failures" = 0 ]
