#!/bin/sh
# The harness on a CPU this machine does not have: user-mode-linux inside
# Debian 12's kernel under QEMU's software emulation of another CPU
# (default Haswell: x87, SSE and AVX, an XSAVE area of 832 bytes, as on
# the hosts without AVX-512 the harness must work on too). It checks what
# uml-kernel decides there by its own measurement (Debian 12's linux.uml
# keeps every register on such a CPU, so it must be chosen, with no
# download: the guest has no network) and that a guest then runs a real
# Smack test.
#   test-emulated-cpu.sh QEMU_RUN UML_RUN SMACK_TEST SMACK_HELPER [CPU XSAVE_BYTES KERNEL]
# CPU is a QEMU -cpu model, XSAVE_BYTES the area uml-hostinfo must see
# there, KERNEL the file uml-kernel must choose. Slow: every guest
# instruction is emulated and UML runs under ptrace (3-5 minutes here).
# With --guest as first argument it is the part that runs in QEMU.
set -u

if [ "${1:-}" = --guest ]; then
    shift
    uml_run=$1 smack_test=$2 smack_helper=$3 bytes=$4 kernel=$5
    failures=0
    check() {
        if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1: expected '$2', got '$3'"; failures=$((failures + 1)); fi
    }
    # A cache of the guest's own: the choice is measured here, not read from the host's.
    export UML_CACHE=/tmp/uml-cache HOME=/tmp UML_PROBE_TIMEOUT=1500
    info=$("$UML_HOSTINFO")
    echo "# the emulated CPU as uml-hostinfo sees it: $info"
    check "uml-hostinfo sees an XSAVE area of $bytes bytes" "$bytes" \
        "$(echo "$info" | sed -n 's/.*XSAVE area \([0-9]*\) bytes.*/\1/p')"
    chosen=$("$(dirname "$uml_run")/uml-kernel" 2>/tmp/uml-kernel.err)
    status=$?
    sed 's/^/# /' /tmp/uml-kernel.err
    check "uml-kernel chooses a kernel" 0 "$status"
    check "it is $kernel" "$kernel" "$chosen"
    check "chosen by its self-check" 1 "$(grep -c 'keeps every register (uml-selfcheck: ok' /tmp/uml-kernel.err)"
    out=$("$uml_run" --timeout 1500 "$smack_test" "$smack_helper" 2>&1)
    status=$?
    echo "$out" | sed 's/^/# /'
    check "a guest runs the Smack test on that kernel" 0 "$status"
    check "its output names the kernel" 1 "$(echo "$out" | grep -c "^uml-kernel: .*(chosen earlier on this host, /tmp/uml-cache/choice)")"
    echo "$failures failure(s)"
    [ "$failures" = 0 ]
    exit $?
fi

[ $# -ge 4 ] || { echo "usage: test-emulated-cpu.sh QEMU_RUN UML_RUN SMACK_TEST SMACK_HELPER [CPU XSAVE_BYTES KERNEL]" >&2; exit 2; }
qemu_run=$1 uml_run=$2 smack_test=$3 smack_helper=$4
cpu=${5:-Haswell} bytes=${6:-832} kernel=${7:-${LINUX_UML:-/usr/bin/linux.uml}}
[ -x "${LINUX_UML:-}" ] || { echo "SKIP: no linux.uml"; exit 77; }
self=$(readlink -f "$0")
# UML's memory (512M) and the guest's own: 2 GiB.
QEMU_CPU=$cpu QEMU_MEM=2G exec "$qemu_run" --timeout 2400 "$self" --guest \
    "$(readlink -f "$uml_run")" "$(readlink -f "$smack_test")" "$(readlink -f "$smack_helper")" "$bytes" "$kernel"
