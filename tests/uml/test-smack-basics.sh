#!/bin/sh
# The harness's own test, run inside user-mode-linux by uml-run:
#   test-smack-basics.sh SMACK_HELPER
# Checks that what every Smack test relies on really works in the guest:
# rules through load2, answers from access2, process labels, enforcement
# for a process without CAP_MAC_OVERRIDE, SO_PEERSEC on a unix socket, and
# SMACK64EXEC on a tmpfs binary. Exit 0 pass, 1 fail.
set -u
helper=$1
failures=0

check() {
    # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then
        echo "ok - $1"
    else
        echo "not ok - $1: expected '$2', got '$3'"
        failures=$((failures + 1))
    fi
}

[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
[ -w /sys/fs/smackfs/load2 ] || { echo "smackfs not mounted"; exit 1; }

# Rules and access2.
printf 'Apple Orange rw' > /sys/fs/smackfs/load2
check "access2 grants a loaded rule" 1 "$("$helper" access Apple Orange rw)"
check "access2 refuses more than the rule" 0 "$("$helper" access Apple Orange rwx)"
check "access2 refuses an absent rule" 0 "$("$helper" access Apple Pear r)"
check "load2 lists the rule" "Apple Orange rw" "$(grep '^Apple Orange ' /sys/fs/smackfs/load2)"
printf 'Apple Orange -' > /sys/fs/smackfs/load2
check "a '-' rule revokes" 0 "$("$helper" access Apple Orange r)"

# Process labels.
check "init runs with the floor label" _ "$(cat /proc/self/attr/current)"
check "run sets the label" Apple "$("$helper" run Apple cat /proc/self/attr/current)"
# CAP_MAC_OVERRIDE and CAP_MAC_ADMIN are bits 32 and 33 of CapEff.
mac_caps() {
    # mac_caps CAPEFF_HEX
    high=${1%????????}
    echo $(( 0x${high:-0} & 3 ))
}
capeff() {
    awk '/^CapEff:/ { print $2 }' /proc/self/status
}
check "run drops CAP_MAC_OVERRIDE and CAP_MAC_ADMIN" 0 \
    "$(mac_caps "$("$helper" run Apple awk '/^CapEff:/ { print $2 }' /proc/self/status)")"
check "root has both" 3 "$(mac_caps "$(capeff)")"

# Enforcement: a file labelled Secret on tmpfs.
echo secret > /tmp/secret
"$helper" setxattr /tmp/secret security.SMACK64 Secret
check "the file carries its label" Secret "$("$helper" getxattr /tmp/secret security.SMACK64)"
check "Apple cannot read Secret without a rule" denied \
    "$("$helper" run Apple cat /tmp/secret 2>/dev/null || echo denied)"
printf 'Apple Secret r' > /sys/fs/smackfs/load2
check "Apple reads Secret with 'Apple Secret r'" secret \
    "$("$helper" run Apple cat /tmp/secret 2>/dev/null || echo denied)"
check "root reads Secret anyway (CAP_MAC_OVERRIDE)" secret "$(cat /tmp/secret)"

# SO_PEERSEC.
check "SO_PEERSEC returns the client's label" Banana "$("$helper" peersec Banana)"

# SMACK64EXEC on a tmpfs binary.
cp /bin/cat /tmp/labelled-cat
"$helper" setxattr /tmp/labelled-cat security.SMACK64EXEC Cherry
check "SMACK64EXEC is stored" Cherry "$("$helper" getxattr /tmp/labelled-cat security.SMACK64EXEC)"
check "a SMACK64EXEC binary runs with its label" Cherry "$(/tmp/labelled-cat /proc/self/attr/current)"
check "an unlabelled binary keeps the caller's label" Apple \
    "$("$helper" run Apple /bin/cat /proc/self/attr/current)"

echo "$failures failure(s)"
[ "$failures" = 0 ]
