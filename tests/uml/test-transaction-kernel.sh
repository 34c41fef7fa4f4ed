#!/bin/sh
# tests/policy-tool's test-transaction against the real kernel, inside
# user-mode-linux (run by uml-run): install, upgrade and remove fail (and
# crash) at every step, and the rules in /sys/fs/smackfs/load2 must come
# back exactly each time.
#   test-transaction-kernel.sh TEST_TRANSACTION
set -u
[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
MSSF_TEST_SMACKFS=/sys/fs/smackfs exec "$1"
