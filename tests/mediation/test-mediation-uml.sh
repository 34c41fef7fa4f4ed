#!/bin/sh
# Mediation with the real kernel, inside user-mode-linux:
#   uml-run test-mediation-uml.sh UML_MEDIATION
# (see uml-mediation.c). Exit 0 pass, 1 fail.
set -u
[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
[ -w /sys/fs/smackfs/load2 ] || { echo "smackfs not mounted"; exit 1; }
exec "$1"
