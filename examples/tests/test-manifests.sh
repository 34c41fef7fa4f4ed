#!/bin/sh
# The demo manifests, through the real mssf-policy: they validate, they
# install into a scratch root the way the demo installs them (services and
# trusted-app with origin system, untrusted-app without one), the grants
# and the Smack rules come out as the README says, and `explain` gives the
# decisions the demo shows.
#
# usage: test-manifests.sh MSSF_POLICY MANIFEST_DIR
set -eu

policy_tool=$1
manifests=$2
root=$(mktemp -d "${TMPDIR:-/tmp}/mssf-examples-manifests.XXXXXX")
trap 'rm -rf "$root"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

tool() {
    "$policy_tool" "$@" --root "$root" --no-kernel --no-reload
}

# 1. Each manifest on its own: no error (warnings about calendar::data,
# which only the installed set resolves, are expected).
if ! "$policy_tool" check "$manifests"/*.xml >"$root/check.log" 2>&1; then
    cat "$root/check.log"
    fail "mssf-policy check refused a manifest"
fi
if grep -q ': error:' "$root/check.log"; then
    cat "$root/check.log"
    fail "mssf-policy check reported errors"
fi

# 2. Install as the demo does.
for package in cellular location calendar trusted-app; do
    if ! tool install --origin system "$package" "$manifests/$package.xml" \
            >"$root/install-$package.log" 2>&1; then
        cat "$root/install-$package.log"
        fail "install $package"
    fi
done
if ! tool install untrusted-app "$manifests/untrusted-app.xml" \
        >"$root/install-untrusted-app.log" 2>&1; then
    cat "$root/install-untrusted-app.log"
    fail "install untrusted-app"
fi

# 3. untrusted-app asked for three tokens and got none, each for its reason.
expect_log() {
    if ! grep -q -- "$2" "$root/$1"; then
        cat "$root/$1"
        fail "$1 lacks: $2"
    fi
}
expect_log install-untrusted-app.log "Cellular is not granted to untrusted-app (origin unknown)"
expect_log install-untrusted-app.log "Location is not granted to untrusted-app (origin unknown)"
expect_log install-untrusted-app.log "calendar::data is not granted to untrusted-app.*checkorigin"
expect_log install-untrusted-app.log "calendar::read is not granted to untrusted-app.*checkorigin"
expect_log install-untrusted-app.log "calendar::work is not granted to untrusted-app.*checkorigin"
for package in cellular location calendar trusted-app; do
    if grep -q "not granted" "$root/install-$package.log"; then
        cat "$root/install-$package.log"
        fail "$package was refused a grant"
    fi
done

# 4. The rules: trusted-app holds its tokens and can reach each service
# (and they it); untrusted-app has no rule at all.
rules=$(cat "$root"/etc/smack/accesses.d/* 2>/dev/null | grep -v '^#' || true)
for rule in "trusted-app Cellular w" "trusted-app Location w" \
        "trusted-app calendar::data w" "trusted-app cellular w" \
        "cellular trusted-app w" "trusted-app location w" "trusted-app calendar w" \
        "calendar calendar::data w" "trusted-app calendar::read w" "trusted-app calendar::work w"; do
    printf '%s\n' "$rules" | grep -qx "$rule" || fail "no Smack rule '$rule'"
done
if printf '%s\n' "$rules" | grep -q "untrusted-app"; then
    printf '%s\n' "$rules"
    fail "untrusted-app got Smack rules"
fi

# 5. Decisions: explain LABEL DEST PATH INTERFACE MEMBER [--signal] -> allowed/denied.
expect() {
    want=$1
    shift
    label=$1 dest=$2 path=$3 interface=$4 member=$5
    shift 5
    status=0
    tool explain --label "$label" --dest "$dest" --path "$path" --interface "$interface" \
        --member "$member" "$@" >"$root/explain.log" 2>&1 || status=$?
    case "$want:$status" in
    allowed:0 | denied:5) ;;
    *)
        cat "$root/explain.log"
        fail "$label -> $dest $path $interface.$member $*: expected $want, exit status $status"
        ;;
    esac
}
cell="org.mssf.Cellular /org/mssf/Cellular org.mssf.Cellular"
loc="org.mssf.Location /org/mssf/Location org.mssf.Location"
cal="org.mssf.Calendar /org/mssf/Calendar org.mssf.Calendar"
introspectable=org.freedesktop.DBus.Introspectable
for member in Dial Hangup GetCalls; do
    expect allowed trusted-app $cell $member
    expect denied untrusted-app $cell $member
done
expect allowed trusted-app $cell CallStateChanged --signal
expect denied untrusted-app $cell CallStateChanged --signal
# The interface default covers members the manifest does not list...
expect allowed trusted-app $cell Reset
expect denied untrusted-app $cell Reset
# ...but an interface it does not declare is closed, even to token holders.
expect denied trusted-app org.mssf.Cellular /org/mssf/Cellular org.mssf.Cellular.Debug Reset
expect allowed untrusted-app org.mssf.Cellular /org/mssf/Cellular $introspectable Introspect
expect allowed trusted-app $loc GetPosition
expect denied untrusted-app $loc GetPosition
expect allowed trusted-app $loc PositionChanged --signal
expect denied untrusted-app $loc PositionChanged --signal
expect allowed untrusted-app org.mssf.Location / org.freedesktop.DBus.ObjectManager \
    GetManagedObjects
expect allowed untrusted-app org.mssf.Location / org.freedesktop.DBus.ObjectManager \
    InterfacesAdded --signal
expect allowed untrusted-app org.mssf.Location /org/mssf/Location/Satellite/G07 \
    $introspectable Introspect
for member in ListEvents AddEvent; do
    expect allowed trusted-app $cal $member
    expect denied untrusted-app $cal $member
done
expect allowed trusted-app $cal EventAdded --signal
expect denied untrusted-app $cal EventAdded --signal
expect allowed untrusted-app org.mssf.Calendar /org/mssf/Calendar $introspectable Introspect

# 6. Only each service's own label may own its name.
expect_dump() {
    tool dump >"$root/dump.log" 2>&1 || fail "mssf-policy dump"
    grep -q -- "$1" "$root/dump.log" || fail "the compiled policy lacks: $1"
}
expect_dump 'owner "cellular"'
expect_dump 'owner "location"'
expect_dump 'owner "calendar"'
expect_dump 'property-read /org/mssf/Cellular org.mssf.Cellular SignalStrength -> "Cellular"'
expect_dump 'property-read /org/mssf/Cellular org.mssf.Cellular Operator -> open'
expect_dump 'property-read /org/mssf/Location org.mssf.Location Accuracy -> open'
expect_dump 'property-read /org/mssf/Calendar org.mssf.Calendar Name -> open'
expect_dump 'property-write /org/mssf/Calendar org.mssf.Calendar Name -> "calendar::data"'

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "all manifest checks passed"
