#!/bin/sh
# Inside UML with real Smack: an app with its own label, and no Smack rule
# at all towards the bus, can connect to mssf-broker and talk to the
# driver; the bus sees its label (GetConnectionCredentials). Without the
# bus socket's "*" / IPIN "*" / IPOUT "@" labels, connect() is refused.
#   test-bus-socket-uml.sh MSSF_BROKER SMACK_HELPER
set -eu
broker=$1
helper=$2
dir=$(mktemp -d /tmp/bus-socket-XXXXXX)
chmod 755 "$dir"
cat > "$dir/bus.conf" <<CONF
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
"$broker" --config-file="$dir/bus.conf" --nofork --nopidfile --print-address --policy "$dir/none.db" \
    > "$dir/address" 2> "$dir/bus.log" &
bus=$!
for _ in $(seq 50); do [ -s "$dir/address" ] && break; sleep 0.1; done
address=$(head -n 1 "$dir/address")
fail=0
label=$(getfattr --only-values -n security.SMACK64 "$dir/socket" 2>/dev/null || true)
[ "$label" = "*" ] || { echo "the socket file is labelled '$label', not '*'"; fail=1; }
# labelled App::Test with CAP_MAC_OVERRIDE dropped, then uid nobody
out=$("$helper" run App::Test setpriv --reuid=65534 --regid=65534 --clear-groups \
      busctl --address="$address" call org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus GetConnectionCredentials s :1.0 2>&1) || { echo "app could not use the bus: $out"; fail=1; }
case "$out" in
*LinuxSecurityLabel*) echo "app reached the bus: $out" ;;
*) echo "no LinuxSecurityLabel in: $out"; fail=1 ;;
esac
kill "$bus"
wait "$bus" || true
[ "$fail" = 0 ] || cat "$dir/bus.log"
exit $fail
