#!/bin/sh
# The Smack oracle against the real kernel, inside user-mode-linux:
#   uml-run test-smack-uml.sh UML_SMACK_ORACLE
# (see uml-smack-oracle.c for what it checks). Exit 0 pass, 1 fail.
set -u
[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
[ -w /sys/fs/smackfs/load2 ] || { echo "smackfs not mounted"; exit 1; }
exec "$1"
