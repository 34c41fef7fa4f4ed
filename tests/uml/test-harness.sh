#!/bin/sh
# Tests of uml-run itself, on the host: the guest's exit code comes back
# (0, 1, 77 and others), output and arguments pass through intact, the
# output says which kernel ran and what the self-check saw, a guest whose
# self-check fails runs nothing and fails, a hung guest is killed after
# --timeout with nothing left running, and a missing kernel is a SKIP;
# uml-kernel says why a kernel that does not boot was not chosen.
# Run by meson with: test-harness.sh UML_RUN
set -u
uml_run=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/uml-harness.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
failures=0

check() {
    if [ "$2" = "$3" ]; then
        echo "ok - $1"
    else
        echo "not ok - $1: expected '$2', got '$3'"
        failures=$((failures + 1))
    fi
}

if [ ! -x "${LINUX_UML:-}" ]; then
    echo "SKIP: no linux.uml"
    exit 77
fi

script() {
    # script NAME BODY: an executable guest script in $work
    printf '#!/bin/sh\n%s\n' "$2" > "$work/$1"
    chmod +x "$work/$1"
}

script exit3 'echo "args:$#:$1:$2"; echo to-stderr >&2; exit 3'
out=$("$uml_run" "$work/exit3" "a b" "it's" 2>&1)
check "the script's exit code comes back" 3 $?
check "arguments arrive intact" "args:2:a b:it's" "$(echo "$out" | grep '^args:')"
check "stderr is captured" to-stderr "$(echo "$out" | grep '^to-stderr')"
check "the output names the kernel and the host" 1 \
    "$(echo "$out" | grep -c -E '^uml-(kernel|run): .*(XSAVE area [0-9]+ bytes|kernel .*UML_KERNEL)')"
check "the output names the kernel's version and SHA256" 1 \
    "$(echo "$out" | grep -c -E '^uml-(kernel: running|run: kernel) .*Linux [^ ]+ .*sha256 [0-9a-f]{64}$')"
check "the output has the self-check's verdict" 1 \
    "$(echo "$out" | grep -c '^uml-run: uml-selfcheck: ok: .* registers kept across')"

# A guest that does not keep registers runs nothing: the self-check is
# replaced by one that fails, as on a host where the kernel loses state.
script marker "touch $work/marker-ran"
out=$(UML_SELFCHECK=/bin/false "$uml_run" "$work/marker" 2>&1)
check "a failed self-check fails the run" 1 $?
check "it says why" 1 "$(echo "$out" | grep -c "^uml-run: FAIL: this guest does not keep its processes' registers")"
check "and runs nothing" no "$([ -e "$work/marker-ran" ] && echo yes || echo no)"

script skip 'exit 77'
"$uml_run" "$work/skip" > /dev/null 2>&1
check "77 (skip) comes back" 77 $?

# The file's name is the guest shell's pid: uml-init binds the host
# directories the run needs under the guest's /tmp (a clone in /tmp/x
# has its build tree there), and a fixed name could be one of them.
script pass 'cd /tmp && f=harness-tmpfs.$$ && echo hi > "$f" && [ "$(cat "$f")" = hi ] && [ "$UML_GUEST" = 1 ] && [ "$HARNESS_VAR" = "x y" ]'
out=$(HARNESS_VAR="x y" "$uml_run" "$work/pass" 2>&1)
status=$?
check "a passing script passes (env, tmpfs)" 0 $status
[ "$status" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'

script hang 'echo started; sleep 600'
start=$(date +%s)
# TMPDIR: this run's directory (and so its UML command lines) is ours alone.
# The self-check is not what this tests: left out, the guest reaches the
# script in a few seconds even on a loaded machine.
out=$(TMPDIR=$work UML_SELFCHECK=/bin/true "$uml_run" --timeout 20 "$work/hang" 2>&1)
status=$?
elapsed=$(( $(date +%s) - start ))
check "a hung guest fails" 1 "$status"
# Any line: the shell of uml-run may report the killed kernel ("Killed") first.
check "its output is still shown" started "$(echo "$out" | grep -x started)"
echo "$out" | grep -q "guest killed after 20s"
check "the timeout is reported" 0 $?
check "it is killed in time" yes "$([ "$elapsed" -lt 50 ] && echo yes || echo no)"
sleep 1
check "no UML process is left" 0 "$(pgrep -c -f "uml_dir=$work/" 2>/dev/null)"

LINUX_UML=/nonexistent/linux.uml "$uml_run" "$work/pass" > /dev/null 2>&1
check "no kernel is a skip" 77 $?
"$uml_run" > /dev/null 2>&1
check "no script is a usage error" 2 $?

# uml-kernel says why a candidate was not chosen: a kernel that does not
# boot, or one slower than the probe's timeout, has not lost registers.
# Stand-ins for the kernels, a cache of this run's own, and a mirror that
# cannot be reached, so no newer kernel is fetched either.
uml_kernel=$(dirname "$uml_run")/uml-kernel
script no-boot 'echo "no such kernel here"; exit 1'
script slow-boot '[ "$1" = --version ] && { echo "slow-boot 0.1"; exit 0; }; exec sleep 60'
out=$(UML_CACHE=$work/cache-a LINUX_UML=$work/no-boot UML_DEBIAN_MIRROR=http://127.0.0.1:9/debian \
      "$uml_kernel" 2>&1)
check "a kernel that does not boot is not chosen" 1 $?
check "it did not boot, it says" 1 "$(echo "$out" | grep -c "^uml-kernel: .*no-boot) did not boot to its self-check")"
check "not that it lost registers" 0 "$(echo "$out" | grep -c 'loses registers')"
out=$(TMPDIR=$work UML_CACHE=$work/cache-b LINUX_UML=$work/slow-boot UML_PROBE_TIMEOUT=2 \
      UML_DEBIAN_MIRROR=http://127.0.0.1:9/debian "$uml_kernel" 2>&1)
check "a kernel slower than UML_PROBE_TIMEOUT is not chosen" 1 $?
check "it says so" 1 "$(echo "$out" | grep -c "slow-boot 0.1 (.*/slow-boot) did not finish its self-check within 2 s (UML_PROBE_TIMEOUT)")"
check "nothing is cached" no "$([ -e "$work/cache-b/choice" ] && echo yes || echo no)"
UML_PROBE_TIMEOUT=soon "$uml_kernel" > /dev/null 2>&1
check "a bad UML_PROBE_TIMEOUT is a usage error" 2 $?

echo "$failures failure(s)"
[ "$failures" = 0 ]
