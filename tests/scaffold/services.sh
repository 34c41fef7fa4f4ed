# services.sh: start real Debian system services on a private bus (sourced).
#   start_bus BROKER DIR      mssf-broker as a system bus in DIR (0755, so that
#                             services that drop privileges can connect)
#   start_service NAME        hostname1 (systemd-hostnamed), UPower (upowerd) or
#                             PolicyKit1 (polkitd); returns 1 if not installed
#   capture DEST OUTDIR       each object's introspection XML, as busctl gives it,
#                             into OUTDIR/N.xml with the root <node> named
# Exported: DBUS_SYSTEM_BUS_ADDRESS. Every process started is in $pids.
pids=""

services_cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
}

wait_file() {
    tries=100
    while [ "$tries" -gt 0 ]; do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
        tries=$((tries - 1))
    done
    return 1
}

start_bus() {
    chmod 755 "$2"
    cat > "$2/bus.conf" <<EOC
<busconfig>
  <type>system</type>
  <listen>unix:path=$2/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOC
    "$1" --config-file="$2/bus.conf" --nofork --print-address ${3:+--policy="$3"} > "$2/bus.address" 2> "$2/bus.log" &
    pids="$pids $!"
    wait_file "$2/bus.address" unix: || { cat "$2/bus.log"; return 1; }
    export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$2/system_bus_socket"
}

# The service's binary for a bus name.
service_binary() {
    case $1 in
    org.freedesktop.hostname1) echo /lib/systemd/systemd-hostnamed ;;
    org.freedesktop.UPower) echo /usr/libexec/upowerd ;;
    org.freedesktop.PolicyKit1) echo /usr/lib/polkit-1/polkitd ;;
    esac
}

start_service() {
    binary=$(service_binary "$1")
    [ -x "$binary" ] || return 1
    "$binary" > "$dir/$1.log" 2>&1 &
    pids="$pids $!"
    tries=100
    while [ "$tries" -gt 0 ]; do
        busctl --system status "$1" > /dev/null 2>&1 && return 0
        sleep 0.1
        tries=$((tries - 1))
    done
    echo "$1 did not appear on the bus:"; cat "$dir/$1.log"
    return 2
}

capture() {
    mkdir -p "$2"
    i=0
    busctl --system tree --list "$1" | while read -r path; do
        i=$((i + 1))
        busctl --system introspect --xml-interface "$1" "$path" |
            sed "0,/^<node>/s##<node name=\"$path\">#" > "$2/$(printf '%02d' "$i").xml"
    done
}
