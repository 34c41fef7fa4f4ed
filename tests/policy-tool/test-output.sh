#!/bin/sh
# What mssf-policy install and remove print, by hand, into a --root that
# already holds packages whose manifests have warnings (Harmattan's, the
# demo's): the warnings of the package being changed, once, under the
# file the user gave; one line for each other package the change grants
# or revokes something; nothing replayed from the other manifests.
# compile still reports everything.
#   test-output.sh MSSF_POLICY MANIFEST_FIXTURES EXAMPLES_DIR DEVICE_POLICY
# Exit 0 pass, 1 fail.
set -u
tool=$(readlink -f "$1")
fixtures=$2
examples=$3
device=$4
failures=0

check() {
    if [ "$2" = "$3" ]; then
        echo "ok - $1"
    else
        printf 'not ok - %s: expected\n%s\n--- got\n%s\n' "$1" "$2" "$3"
        failures=$((failures + 1))
    fi
}

work=$(mktemp -d "${TMPDIR:-/tmp}/mssf-policy-output.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/etc/mssf"
cp "$device" "$root/etc/mssf/device-policy.conf"
unset MSSF_ROOT MSSF_MANIFEST_DIR MSSF_ORIGIN_DIR MSSF_POLICY_DB MSSF_RULES_DIR \
    MSSF_DEVICE_POLICY MSSF_LOCK_FILE MSSF_SMACKFS
# Relative paths, as a user types them: the warnings name them so.
cd "$work"
cp "$fixtures"/*.xml "$examples"/*.xml "$work/"

policy() {
    "$tool" "$@" --root "$root" --no-kernel --no-reload 2>&1
}

for pkg in mce sensorfw signon timed usb-moded dsme applauncherd trusted-app; do
    policy install --origin system "$pkg" "$pkg.xml" >"$work/out" ||
        { cat "$work/out"; echo "not ok - installing $pkg"; exit 1; }
done
find "$root" -name .mssf-policy.cache -delete
warnings=$(policy compile --output "$work/all.db" | grep -c ': warning: ')
[ "$warnings" -ge 8 ]
check "the installed packages have warnings (compile reports them all: $warnings)" 0 $?

cat >"$work/small.xml" <<'XML'
<aegis>
  <request>
    <credential name="Cellular"/>
  </request>
</aegis>
XML
check "a small app without warnings: nothing printed" "" \
    "$(policy install --origin system small small.xml)"

cat >"$work/typo.xml" <<'XML'
<aegis>
  <request>
    <credential name="cellular"/>
  </request>
</aegis>
XML
check "an app with one warning: that line alone, under the file given" \
    "typo.xml:3:5: warning: cellular is not granted to typo (origin system): no installed package provides it and it is not a global token of the device policy (did you mean Cellular? the case is significant)" \
    "$(policy install --origin system typo typo.xml)"

check "the provider of trusted-app's tokens: its own warning, and one line for trusted-app" \
    "mssf-policy: trusted-app: granted calendar, calendar::data, calendar::read, calendar::work, calendar -> trusted-app
calendar.xml:29:5: warning: binary /usr/lib/mssf-demo/mssf-demo-calendar does not exist: not labelled, it will run without this package's credentials" \
    "$(policy install --origin system calendar calendar.xml)"

check "an upgrade of a package with a warning: its warning once, under the file given" \
    "mce.xml:8:5: warning: tcb is not granted to mce (origin system): no installed package provides it and it is not a global token of the device policy
mce.xml:9:5: warning: binary /usr/sbin/mce does not exist: not labelled, it will run without this package's credentials" \
    "$(policy install --origin system mce mce.xml)"

check "removing the provider: one line for trusted-app" \
    "mssf-policy: trusted-app: revoked calendar, calendar::data, calendar::read, calendar::work, calendar -> trusted-app" \
    "$(policy remove calendar)"

check "removing an app nobody depends on: nothing printed" "" "$(policy remove small)"

check "compile still reports every package's warnings (typo's too now)" $((warnings + 1)) \
    "$(policy compile --output "$work/all.db" | grep -c ': warning: ')"
# A manifest first parsed by an install that does not print its warning
# (the second of two packages with the same text) keeps the warning for
# compile: the cache of parsed manifests does not take the printed part
# for the whole.
cat >"$work/texty.xml" <<'XML'
<aegis>
  <request>
    some text
    <credential name="Cellular"/>
  </request>
</aegis>
XML
policy install --origin system texty texty.xml >/dev/null
policy install --origin system texty2 texty.xml >/dev/null
check "compile reports the warning of both" 2 \
    "$(policy compile --output "$work/all.db" | grep -c '/texty2\?\.xml:3:1: warning: text inside')"
policy remove texty >/dev/null
policy remove texty2 >/dev/null
# What install did not print it still knows: the cache of parsed manifests
# (written by the runs above) keeps every warning.
policy compile --output "$work/all.db" | sort >"$work/cached"
find "$root" -name .mssf-policy.cache -delete
policy compile --output "$work/all.db" | sort >"$work/parsed"
check "compile reports the same with and without the cache" "$(cat "$work/parsed")" "$(cat "$work/cached")"

[ "$failures" = 0 ] && echo "all output checks passed"
exit $((failures > 0))
