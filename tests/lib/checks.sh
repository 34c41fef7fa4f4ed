# checks.sh: the TAP lines and the wait that the shell tests share, on the
# host and inside user-mode-linux guests (tests/uml/uml-run runs them
# there with the host's tree at the same paths). A test sources it after
# its own variables:
#
#   . "$(dirname "$0")/../lib/checks.sh"       # from tests/GROUP/ or examples/tests/
#
# and counts its failures in $failures (set to 0 here if unset). It
# defines ok, not_ok, check, has, lacks, wait_for and load_rule, and no
# variable a test could be using: wait_for's counter is _checks_n.
: "${failures:=0}"

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failures=$((failures + 1)); }
# check DESCRIPTION EXPECTED ACTUAL: exact comparison.
check() {
    if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi
}
# has DESCRIPTION ERE TEXT: TEXT has a line matching ERE.
has() {
    if printf '%s\n' "$3" | grep -Eq -- "$2"; then ok "$1"; else not_ok "$1: no /$2/ in: $3"; fi
}
# lacks DESCRIPTION ERE TEXT: no line of TEXT matches ERE.
lacks() {
    if printf '%s\n' "$3" | grep -Eq -- "$2"; then not_ok "$1: /$2/ in: $3"; else ok "$1"; fi
}
# wait_for FILE ERE [SECONDS]: until FILE has a line matching ERE, 10
# seconds at most by default. On a timeout it says so and shows FILE, as
# TAP comments (a line of FILE is never read as a test's result), and
# returns 1; what that means is the caller's to say.
wait_for() {
    _checks_n=$(( ${3:-10} * 10 ))
    while [ "$_checks_n" -gt 0 ]; do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
        _checks_n=$((_checks_n - 1))
    done
    echo "# timed out after ${3:-10} s waiting for /$2/ in $1:"
    sed 's/^/#   /' "$1" 2>/dev/null
    return 1
}
# load_rule SUBJECT OBJECT ACCESS: one Smack rule into the kernel (guests).
load_rule() { printf '%s %s %s' "$1" "$2" "$3" > /sys/fs/smackfs/load2; }
