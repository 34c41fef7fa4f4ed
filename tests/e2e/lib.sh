# lib.sh: the set-up every tests/e2e group shares, sourced inside the
# user-mode-linux guest by test-*.sh, which are run as
#   uml-run test-GROUP.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
#
# e2e_setup installs the test packages with the real mssf-policy (rules
# into the kernel's load2, policy.db on the guest's tmpfs), starts
# mssf-broker as the system bus labelled "System" with a permissive
# busconfig (so that every denial seen is MSSF's) and --policy, and
# starts the test service (e2e-helper serve) labelled e2e-svc. Clients run through
# `as LABEL CMD...`: smack-helper sets the label and drops the MAC
# capabilities, so the kernel and the bus judge them like any app.
#
# Labels: e2e-svc (org.mssf.E2E), e2e-act (org.mssf.E2EAct, activatable),
# e2e-holder (every token, origin system), e2e-other (no token, but Smack
# rules to reach both services, so the token check is what refuses it),
# e2e-stranger (no token and no rule to the services), e2e-monitor (a
# monitor label in the device policy, which every app and service but
# e2e-stranger may write to). Every one may talk to the bus.
set -u
broker=$1
policy_tool=$2
helper=$3
e2e=$4
src=$5
t=/tmp/e2e
failures=0
pids=""

[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
[ -w /sys/fs/smackfs/load2 ] || { echo "smackfs not mounted"; exit 1; }

. "$(dirname "$0")/../lib/checks.sh"
# as LABEL CMD...: run CMD labelled LABEL without CAP_MAC_OVERRIDE/ADMIN.
as() {
    label=$1
    shift
    timeout 20 "$helper" run "$label" "$@" 2>&1
}
# bg LABEL OUT CMD...: the same in the background, output to OUT.
bg() {
    label=$1
    out=$2
    shift 2
    timeout 60 "$helper" run "$label" "$@" > "$out" 2>&1 &
    pids="$pids $!"
}
client() { label=$1; shift; as "$label" "$e2e" "$@"; }
gcall() { # gcall LABEL DEST METHOD [ARGS...] at /org/mssf/E2E
    label=$1 dest=$2 method=$3
    shift 3
    as "$label" gdbus call --system --timeout 10 --dest "$dest" --object-path /org/mssf/E2E \
        --method "$method" "$@"
}
driver() { # as root: the bus driver is not label-checked
    timeout 10 busctl --system call org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus "$@" 2>&1
}
# The LinuxSecurityLabel out of a busctl GetConnectionCredentials reply.
creds_label() {
    awk '{ for (i = 1; i <= NF; i++) if ($i == "\"LinuxSecurityLabel\"" && $(i + 1) == "ay") {
               n = $(i + 2); s = ""
               for (j = 1; j <= n; j++) if ($(i + 2 + j) != 0) s = s sprintf("%c", $(i + 2 + j))
               print s; exit } }'
}
service_calls() { grep '^CALL' "$t/svc.out"; }
in_kernel() {
    awk -v s="$1" -v o="$2" '$1 == s && $2 == o && $3 != "-" { print $3 }' /sys/fs/smackfs/load2
}

e2e_cleanup() {
    for pid in $pids; do
        kill "$pid" 2>/dev/null
    done
    wait 2>/dev/null
}
trap e2e_cleanup EXIT

e2e_finish() {
    if [ "$failures" != 0 ]; then
        echo "# bus log:"
        sed 's/^/#   /' "$t/bus.log" | tail -n 40
        echo "# service output:"
        sed 's/^/#   /' "$t/svc.out" | tail -n 40
    fi
    echo "# $failures failure(s)"
    [ "$failures" = 0 ]
}

e2e_setup() {
    mkdir -p "$t/services"
    export MSSF_MANIFEST_DIR=$t/manifests MSSF_ORIGIN_DIR=$t/origins
    export MSSF_POLICY_DB=$t/policy.db MSSF_RULES_DIR=$t/accesses.d
    export MSSF_DEVICE_POLICY=$src/device-policy.conf MSSF_LOCK_FILE=$t/lock
    export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$t/system_bus_socket
    unset DBUS_SESSION_BUS_ADDRESS DBUS_STARTER_ADDRESS DBUS_STARTER_BUS_TYPE

    # Everyone talks to the bus, and the bus to everyone (a Unix stream
    # connect needs "w" both ways).
    for label in e2e-svc e2e-act e2e-holder e2e-other e2e-stranger e2e-monitor; do
        load_rule "$label" System w
        load_rule System "$label" w
    done
    # The device maker's file: e2e-other may reach both services (and be
    # answered), so what refuses it is the token check; the apps and the
    # services may write to e2e-monitor, the device's monitor label (a
    # monitor sees only what it could receive, so its maker grants it reach
    # deliberately; e2e-stranger gets none). mssf-policy reads this file and
    # never writes it.
    mkdir -p "$t/accesses.d"
    printf '%s\n' "e2e-other e2e-svc w" "e2e-svc e2e-other w" \
        "e2e-other e2e-act w" "e2e-act e2e-other w" \
        "e2e-svc e2e-monitor w" "e2e-act e2e-monitor w" \
        "e2e-holder e2e-monitor w" "e2e-other e2e-monitor w" > "$t/accesses.d/device-e2e"
    while read -r s o a; do load_rule "$s" "$o" "$a"; done < "$t/accesses.d/device-e2e"

    for package in e2e-svc e2e-act e2e-holder; do
        "$policy_tool" install --no-reload --origin system "$package" "$src/$package.xml" \
            > "$t/install.out" 2>&1 || { cat "$t/install.out"; echo "install $package failed"; exit 1; }
    done
    "$policy_tool" install --no-reload e2e-other "$src/e2e-other.xml" \
        > "$t/install.out" 2>&1 || { cat "$t/install.out"; echo "install e2e-other failed"; exit 1; }
    check "mssf-policy granted e2e-holder e2e-svc::Control" 1 \
        "$("$helper" access e2e-holder e2e-svc::Control w)"
    check "e2e-other holds no e2e-svc::Control" 0 "$("$helper" access e2e-other e2e-svc::Control w)"

    # The activatable service: the bus starts it as root labelled System;
    # the wrapper gives it its package's label.
    cat > "$t/act-start.sh" <<EOF
#!/bin/sh
echo "started" >> "$t/act.out"
exec "$helper" run e2e-act "$e2e" serve org.mssf.E2EAct "\$(cat "$t/act-delay-ms" 2>/dev/null || echo 0)" \
    >> "$t/act.out" 2>&1
EOF
    chmod +x "$t/act-start.sh"
    printf '[D-BUS Service]\nName=org.mssf.E2EAct\nExec=%s\nUser=root\n' "$t/act-start.sh" \
        > "$t/services/org.mssf.E2EAct.service"

    # Permissive busconfig: only MSSF refuses anything here.
    cat > "$t/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$t/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$t/services</servicedir>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
EOF
    (echo System > /proc/self/attr/current &&
        exec "$broker" --config-file="$t/bus.conf" --policy="$t/policy.db" --nofork \
            --print-address) > "$t/bus.out" 2> "$t/bus.log" &
    pids="$pids $!"
    wait_for "$t/bus.out" unix: 10 || { cat "$t/bus.log"; echo "the bus did not start"; exit 1; }
    # Whatever the kernel, the bus's socket is open to every label (its
    # file "*", or on kernels that label socket files themselves, IPIN
    # "*"), and the bus does not cry wolf about it.
    lacks "the bus labelled its socket for Smack without a warning" \
        'Cannot (label the bus socket|set the Smack IPIN)' "$(cat "$t/bus.log")"

    bg e2e-svc "$t/svc.out" "$e2e" serve org.mssf.E2E
    wait_for "$t/svc.out" '^(ready|refused)' 15 || { cat "$t/svc.out"; echo "the service did not start"; exit 1; }
    check "the service labelled e2e-svc owns org.mssf.E2E" ready "$(awk 'NR == 1 { print $1 }' "$t/svc.out")"
    svc_unique=$(awk '/^ready/ { print $3 }' "$t/svc.out")
}
