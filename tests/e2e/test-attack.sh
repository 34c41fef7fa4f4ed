#!/bin/sh
# The attack that found holes in mediation under real Smack, replayed
# after the fix (one UML boot):
#   uml-run test-attack.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER E2E_HELPER SRCDIR
# Besides e2e-helper's careful service (org.mssf.E2E), two careless ones,
# both labelled e2e-svc and declared in e2e-svc.xml: e2e-tree
# (org.mssf.E2ETree, an sd-bus fallback vtable serving
# /org/mssf/E2ETree/Location and every path below it; attacked below its
# path in test-subtree.sh) and e2e-lenient
# (org.mssf.E2ELenient, libdbus, dispatches by member alone at any path,
# compares names without case, reacts to any signal it is handed).
# e2e-holder holds every token, e2e-other none but has Smack reach to the
# services, e2e-monitor is the device policy's monitor label, which the
# services and apps may write to, holding no token.
#  1. a monitor (BecomeMonitor with no rule, with type='method_return') and
#     an eavesdropper labelled e2e-monitor see no reply of a call that
#     needed a token (Guarded, Properties.Get of Level, GetPosition, Get of
#     Position), see open ones, and see a protected one once given the
#     token;
#  2. Peer: only Ping and GetMachineId pass a declared name;
#  3. Properties: another case, another path, a body that is not exactly
#     ss / s, are refused, even to the holder where no line covers them
#     (the subtrees: test-subtree.sh);
#  4. unicast signals to a declared service are judged as calls of their
#     member; a broadcast one reaches it only through its own match rule.
. "$(dirname "$0")/lib.sh"
e2e_setup
bin=$(dirname "$e2e")

bg e2e-svc "$t/tree.out" "$bin/e2e-tree"
bg e2e-svc "$t/lenient.out" "$bin/e2e-lenient"
wait_for "$t/tree.out" '^(ready|refused|error)' 15 && wait_for "$t/lenient.out" '^(ready|refused|error)' 15 ||
    not_ok "the careless services did not start"
check "e2e-tree (labelled e2e-svc) owns org.mssf.E2ETree" ready "$(awk 'NR == 1 { print $1 }' "$t/tree.out")"
check "e2e-lenient (labelled e2e-svc) owns org.mssf.E2ELenient" ready \
    "$(awk 'NR == 1 { print $1 }' "$t/lenient.out")"
lenient_unique=$(awk '/^ready/ { print $3 }' "$t/lenient.out")
denied='^(Error |error |GDBus\.Error:)?org\.freedesktop\.DBus\.Error\.AccessDenied'
send() { # send LABEL ARGS...: dbus-send --print-reply on the system bus
    label=$1
    shift
    as "$label" dbus-send --system --print-reply --reply-timeout=10000 "$@"
}
lenient() { # lenient LABEL PATH IFACE.MEMBER [ARGS...]
    label=$1 path=$2 method=$3
    shift 3
    send "$label" --dest=org.mssf.E2ELenient "$path" "$method" "$@"
}

# ---- 1. observers and protected replies ----
bg e2e-monitor "$t/mon.out" "$e2e" monitor 55
bg e2e-monitor "$t/mon-returns.out" "$e2e" monitor 55 "type='method_return'" "type='signal',member='Public'"
bg e2e-monitor "$t/eaves.out" "$e2e" eavesdrop 55 "eavesdrop=true,type='method_return'" \
    "type='signal',member='Public'"
for f in mon mon-returns eaves; do
    wait_for "$t/$f.out" '^(monitor ok|ready|error)' 15 || not_ok "$f did not start"
done
check "the holder calls Guarded (e2e-svc::Control)" "('guarded',)" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)"
check "the holder reads Level (e2e-svc::Read)" "reply 7" \
    "$(client e2e-holder call org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Properties Get org.mssf.E2E Level)"
check "the holder calls the lenient GetPosition" "reply position-secret" \
    "$(client e2e-holder call org.mssf.E2ELenient /org/mssf/E2ELenient org.mssf.E2E.Lenient GetPosition)"
check "the holder reads the lenient Position" "reply position-secret" \
    "$(client e2e-holder call org.mssf.E2ELenient /org/mssf/E2ELenient org.freedesktop.DBus.Properties Get \
        org.mssf.E2E.Lenient Position)"
check "the holder reads the subtree's Position (busctl)" 'v s "position-secret"' \
    "$(as e2e-holder busctl --system call org.mssf.E2ETree /org/mssf/E2ETree/Location \
        org.freedesktop.DBus.Properties Get ss org.mssf.E2E.Location Position)"
check "e2e-other calls the open Open" "('open',)" "$(gcall e2e-other org.mssf.E2E org.mssf.E2E.Open)"
check "e2e-other reads the open Accuracy" "reply accuracy-open" \
    "$(client e2e-other call org.mssf.E2ELenient /org/mssf/E2ELenient org.freedesktop.DBus.Properties Get \
        org.mssf.E2E.Lenient Accuracy)"
load_rule e2e-monitor e2e-svc::Control w
check "given e2e-svc::Control, e2e-monitor ... the holder calls Guarded again" "('guarded',)" \
    "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Guarded)"
load_rule e2e-monitor e2e-svc::Control -
check "Emit done (the observers' end marker)" "()" "$(gcall e2e-holder org.mssf.E2E org.mssf.E2E.Emit "'done'" "''")"
for f in mon mon-returns eaves; do
    wait_for "$t/$f.out" '^end' 30 || not_ok "$f did not see the end marker"
done
for f in mon mon-returns; do
    echo "# $f: $(wc -l < "$t/$f.out") lines; the replies it saw:"
    grep '^saw return' "$t/$f.out" | sed 's/^/#   /'
    out=$(cat "$t/$f.out")
    check "$f: BecomeMonitor by e2e-monitor succeeds" "monitor ok" "$(head -n 1 "$t/$f.out")"
    check "$f: Guarded's reply is seen once: after e2e-monitor was given e2e-svc::Control" 1 \
        "$(grep -c '^saw return - from [^ ]*: guarded$' "$t/$f.out")"
    lacks "$f: no reply carries Level's value (e2e-svc::Read)" '^saw return - from [^ ]*: 7$' "$out"
    lacks "$f: no reply carries a position" 'position-secret' "$out"
    has "$f: the open Open's reply is seen" '^saw return - from [^ ]*: open$' "$out"
    has "$f: the open Accuracy's reply is seen" '^saw return - from [^ ]*: accuracy-open$' "$out"
done
out=$(cat "$t/mon.out")
has "mon: the holder's calls themselves are seen (the holder may write to e2e-monitor)" \
    '^saw call GetPosition from ' "$out"
out=$(cat "$t/eaves.out")
has "eavesdropper: match ok" '^match ok' "$out"
check "eavesdropper: Guarded's reply once, after the grant" 1 "$(grep -c '^saw return - from .*: guarded$' "$t/eaves.out")"
lacks "eavesdropper: no reply with Level's value or a position" 'position-secret|^saw return - from .*: 7$' "$out"
has "eavesdropper: the open replies" '^saw return - from .*: open$' "$out"

# ---- 2. Peer ----
out=$(lenient e2e-other /org/mssf/E2ELenient org.freedesktop.DBus.Peer.GetPosition)
has "Peer.GetPosition to the lenient service: AccessDenied (not libdbus's UnknownMethod)" "$denied" "$out"
has "... not declared" 'does not declare method org\.freedesktop\.DBus\.Peer\.GetPosition' "$out"
out=$(lenient e2e-holder /org/mssf/E2ELenient org.freedesktop.DBus.Peer.Get string:org.mssf.E2E.Lenient \
    string:Position)
has "Peer.Get(ss) by the holder: AccessDenied" "$denied" "$out"
out=$(send e2e-holder --dest=org.mssf.E2E /org/mssf/E2E org.freedesktop.DBus.Peer.Guarded)
has "Peer.Guarded to e2e-helper's service: AccessDenied" "$denied" "$out"
has "Peer.Ping by e2e-other passes (libdbus answers)" '^method return' \
    "$(lenient e2e-other /org/mssf/E2ELenient org.freedesktop.DBus.Peer.Ping)"
has "Peer.GetMachineId by e2e-other passes (busctl)" '^s "' \
    "$(as e2e-other busctl --system call org.mssf.E2ELenient /org/mssf/E2ELenient \
        org.freedesktop.DBus.Peer GetMachineId)"
lacks "no Peer call reached the lenient service's code" '^CALL org\.freedesktop\.DBus\.Peer' \
    "$(cat "$t/lenient.out")"

# ---- 3. Properties ----
get_lenient() { # get_lenient LABEL PATH ARGS...: Properties.Get on the lenient service
    label=$1 path=$2
    shift 2
    lenient "$label" "$path" org.freedesktop.DBus.Properties.Get "$@"
}
has "Get naming the interface in another case: AccessDenied" "$denied" \
    "$(get_lenient e2e-other /org/mssf/E2ELenient string:org.mssf.e2e.lenient string:Position)"
has "Get naming the property in another case: AccessDenied" "$denied" \
    "$(get_lenient e2e-other /org/mssf/E2ELenient string:org.mssf.E2E.Lenient string:position)"
has "Get at /: AccessDenied" "$denied" \
    "$(get_lenient e2e-other / string:org.mssf.E2E.Lenient string:Position)"
has "Get at a child path: AccessDenied" "$denied" \
    "$(get_lenient e2e-other /org/mssf/E2ELenient/x string:org.mssf.E2E.Lenient string:Position)"
has "Get at / by the holder: AccessDenied too (no line covers it)" "$denied" \
    "$(get_lenient e2e-holder / string:org.mssf.E2E.Lenient string:Position)"
has "Get(s): AccessDenied" "$denied" "$(get_lenient e2e-other /org/mssf/E2ELenient string:Position)"
has "Get(sss): AccessDenied" "$denied" \
    "$(get_lenient e2e-other /org/mssf/E2ELenient string:org.mssf.E2E.Lenient string:Accuracy string:Position)"
has "GetAll(): AccessDenied" "$denied" \
    "$(lenient e2e-other /org/mssf/E2ELenient org.freedesktop.DBus.Properties.GetAll)"
has "GetAll(ss): AccessDenied" "$denied" \
    "$(lenient e2e-other /org/mssf/E2ELenient org.freedesktop.DBus.Properties.GetAll string:org.mssf.E2E.Lenient \
        string:x)"
has "GetAll at /: AccessDenied" "$denied" \
    "$(lenient e2e-other / org.freedesktop.DBus.Properties.GetAll string:org.mssf.E2E.Lenient)"
out=$(lenient e2e-other /org/mssf/E2ELenient org.freedesktop.DBus.Properties.GetAll string:org.mssf.E2E.Lenient)
has "GetAll(org.mssf.E2E.Lenient) by e2e-other: answered" '^method return' "$out"
lacks "... without Position" 'position-secret' "$out"
check "the lenient service read two properties: the holder's Position and e2e-other's Accuracy" \
    "GET Position GET Accuracy" "$(grep '^GET ' "$t/lenient.out" | tr '\n' ' ' | sed 's/ $//')"

# ---- 4. unicast signals ----
signal() { # signal LABEL DEST IFACE.MEMBER: a signal (DEST "" for a broadcast)
    if [ -n "$2" ]; then
        as "$1" dbus-send --system --type=signal --dest="$2" /org/mssf/E2ELenient "$3"
    else
        as "$1" dbus-send --system --type=signal /org/mssf/E2ELenient "$3"
    fi
}
signal e2e-other org.mssf.E2ELenient org.mssf.E2E.Lenient.Reset
signal e2e-other "$lenient_unique" org.mssf.E2E.Lenient.Reset
signal e2e-other org.mssf.E2ELenient org.mssf.E2E.Lenient.GetPosition
signal e2e-holder org.mssf.E2ELenient org.mssf.E2E.Lenient.Poke
signal e2e-other org.mssf.E2ELenient org.mssf.E2E.Lenient.Hello
signal e2e-holder org.mssf.E2ELenient org.mssf.E2E.Lenient.Reset
signal e2e-other "" org.mssf.E2E.Lenient.Reset
wait_for "$t/lenient.out" '^SIGNAL org\.mssf\.E2E\.Lenient\.Reset .* to \*$' 10
out=$(grep '^SIGNAL' "$t/lenient.out")
check "unicast signals that reached the lenient service: e2e-other's Hello (open), the holder's Reset (Control)" \
    "Hello Reset" "$(echo "$out" | awk '$NF != "*" { sub(/.*\./, "", $2); print $2 }' | sort | tr '\n' ' ' |
        sed 's/ $//')"
check "e2e-other's broadcast Reset reached it through its own match rule (no sender in it)" 1 \
    "$(echo "$out" | grep -c 'Reset .* to \*$')"
has "the bus logged the refused unicast Reset" 'lacks token "e2e-svc::Control" .*Reset, and a signal sent to it' \
    "$(cat "$t/bus.log")"
has "... and the undeclared Poke" 'does not declare method org\.mssf\.E2E\.Lenient\.Poke .*so it may not be sent' \
    "$(cat "$t/bus.log")"

e2e_finish
