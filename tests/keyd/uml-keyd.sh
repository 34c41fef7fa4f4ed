#!/bin/sh
# The key service end to end under real Smack (one UML boot):
#   uml-run uml-keyd.sh MSSF_BROKER MSSF_POLICY SMACK_HELPER MSSF_KEYD MSSF_CRYPTO KEYD_BENCH KEYD_SRC TEST_SRC
# mssf-policy installs mssf-keyd (its manifest as packaged: SMACK64EXEC on
# the daemon, the token crypto) and three apps with manifests, origin
# system, all asking for mssf-keyd::crypto: keyd-app-a (no other token),
# keyd-app-b and keyd-app-e (the global token Team); the device policy
# (device-policy.conf) has "checkany mssf-keyd". keyd-app-c has no
# manifest: only the bus reaches it. mssf-broker is the system bus with
# the compiled policy; swtpm runs in socket mode, labelled like the
# service (on a device, the TPM node carries its label); mssf-keyd starts
# from its labelled binary with --tpm required. The apps are mssf-crypto
# (libmssf), busctl, and keyd-bench (sd-bus), each under its label.
# What an app sees is checked, and every byte the service handed to a
# client, every file it wrote and its own output are kept; at the end
# the root is unsealed here with tpm2-tools from the service's state, its
# id checked against the one the service logged (HKDF by openssl), every
# key the run used derived with openssl from the documented recipe, and
# all of it searched for the root and each key: none may be there.
set -u
broker=$1
tool=$2
helper=$3
keyd=$4
crypto=$5
bench=$6
keyd_src=$7
src=$8
root=/tmp/uml-keyd
state=$root/var/lib/mssf-keyd
tpmdir=$root/tpm
kept=$root/kept         # every reply a client got, and what the service wrote and said
tcti=swtpm:host=127.0.0.1,port=2321
failures=0
pids=""

[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
# The guest runs the host's programs: without swtpm there is no TPM to
# seal with, without tpm2-tools no way to read the root back for the scan.
command -v swtpm > /dev/null || { echo "SKIP: swtpm not installed (Debian package swtpm)"; exit 77; }
command -v tpm2_unseal > /dev/null || { echo "SKIP: tpm2-tools not installed (Debian package tpm2-tools)"; exit 77; }
. "$(dirname "$0")/../lib/checks.sh"
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup EXIT
n=0
# crypto LABEL ARGS... < INPUT: mssf-crypto under LABEL, in this shell (not $(...): n counts the
# replies, each kept); $out is "rc=N" and its stderr, reply prints what it wrote.
crypto() {
    label=$1
    shift
    n=$((n + 1))
    timeout 30 "$helper" run "$label" "$crypto" "$@" > "$kept/reply.$n" 2> "$kept/stderr.$n"
    out="rc=$? $(cat "$kept/stderr.$n")"
}
reply() { cat "$kept/reply.$n"; }
# as LABEL CMD...: CMD under LABEL, in this shell; $out is its output (kept).
as() {
    label=$1
    shift
    n=$((n + 1))
    timeout 60 "$helper" run "$label" "$@" > "$kept/reply.$n" 2>&1
    out=$(cat "$kept/reply.$n")
}
section() { echo "# $(date +%s) $*"; }

mkdir -p "$root/usr/libexec" "$state" "$tpmdir" "$kept"
cp "$keyd" "$root/usr/libexec/mssf-keyd"
policy() {
    "$tool" "$@" --root "$root" --smackfs /sys/fs/smackfs --no-reload --device-policy "$src/device-policy.conf"
}
policy install --origin system mssf-keyd "$keyd_src/mssf-keyd.aegis" > "$root/install.log" 2>&1 &&
    policy install --origin system keyd-app-a "$src/app-a.xml" >> "$root/install.log" 2>&1 &&
    policy install --origin system keyd-app-b "$src/app-b.xml" >> "$root/install.log" 2>&1 &&
    policy install --origin system keyd-app-e "$src/app-e.xml" >> "$root/install.log" 2>&1 ||
    { cat "$root/install.log"; echo "mssf-policy install failed"; exit 1; }
check "the daemon's binary carries the package's label" mssf-keyd \
    "$("$helper" getxattr "$root/usr/libexec/mssf-keyd" security.SMACK64EXEC)"
check "kernel: app A may reach the service (it holds mssf-keyd::crypto)" 1 "$("$helper" access keyd-app-a mssf-keyd w)"
check "kernel: app C (no manifest) may not" 0 "$("$helper" access keyd-app-c mssf-keyd w)"
check "kernel: app B holds Team" 1 "$("$helper" access keyd-app-b Team w)"
check "kernel: app A does not" 0 "$("$helper" access keyd-app-a Team w)"
has "policy.db lets the service's label ask about any token" '^checkany-label "mssf-keyd"$' \
    "$(policy dump 2>&1)"

for label in mssf-keyd keyd-app-a keyd-app-b keyd-app-c keyd-app-e; do
    load_rule "$label" System w
    load_rule System "$label" w
done
cat > "$root/bus.conf" <<EOF
<busconfig>
  <type>system</type>
  <listen>unix:path=$root/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
(echo System > /proc/self/attr/current &&
    exec "$broker" --config-file="$root/bus.conf" --policy="$root/var/lib/mssf/policy.db" --nofork --print-address) \
    > "$root/bus.out" 2> "$root/bus.log" &
pids="$pids $!"
wait_for "$root/bus.out" unix: 20 || exit 1
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$root/system_bus_socket

# The TPM, and the service's state directory: labelled as the service,
# which alone writes there (as a device labels its TPM node and the
# service's directory).
"$helper" setxattr "$tpmdir" security.SMACK64 mssf-keyd
"$helper" setxattr "$state" security.SMACK64 mssf-keyd
"$helper" run mssf-keyd swtpm socket --tpm2 --tpmstate dir="$tpmdir" \
    --server type=tcp,port=2321,bindaddr=127.0.0.1 --ctrl type=tcp,port=2322,bindaddr=127.0.0.1 \
    --flags not-need-init,startup-clear --log file="$tpmdir/log",level=20 > "$root/swtpm.out" 2>&1 &
pids="$pids $!"
tries=100
until [ -s "$tpmdir/log" ] || [ "$tries" = 0 ]; do sleep 0.1; tries=$((tries - 1)); done
swtpm_commands() { grep -c 'SWTPM_IO_Read:' "$tpmdir/log"; }

# The daemon from its labelled binary, its label from SMACK64EXEC: a
# secure exec, in which sd-bus ignores $DBUS_SYSTEM_BUS_ADDRESS (a device's
# bus is at the standard path), hence --address.
start_keyd() {
    : > "$root/keyd.out"
    timeout 300 "$helper" exec "$root/usr/libexec/mssf-keyd" --state-dir "$state" --tcti "$tcti" \
        --tpm required --address "$DBUS_SYSTEM_BUS_ADDRESS" > "$root/keyd.out" 2> "$root/keyd.err" &
    keyd_pid=$!
    pids="$pids $keyd_pid"
    wait_for "$root/keyd.out" "ready as" 20 || { cat "$root/keyd.err"; exit 1; }
}
start_keyd
has "the service starts in TPM mode, ready" "mode tpm, state ready" "$(cat "$root/keyd.out")"
has "the first start made the root and sealed it" "sealed by the TPM, made, sealed and checked" \
    "$(cat "$root/keyd.err")"
root_id=$(sed -n 's/^mssf-keyd: root key \([0-9a-f]*\):.*/\1/p' "$root/keyd.err" | head -n 1)
has "it owns org.mssf.Keys1 labelled mssf-keyd" '"LinuxSecurityLabel" ay 10 109 115 115 102 45 107 101 121 100 0' \
    "$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
        GetConnectionCredentials s org.mssf.Keys1 2>&1)"

# --- An app's own key.
section own key
printf "A's diary: private" > "$root/a.plain"
crypto keyd-app-a encrypt < "$root/a.plain"; cp "$kept/reply.$n" "$root/a.blob"
check "A encrypts with its own key" "rc=0 " "$out"
lacks "the blob does not hold the plaintext" "diary" "$(cat "$root/a.blob")"
crypto keyd-app-a decrypt < "$root/a.blob"
check "A decrypts it" "rc=0 " "$out"
check "and gets its plaintext back" "A's diary: private" "$(reply)"
crypto keyd-app-b decrypt < "$root/a.blob"
has "B (another label, same uid) sending A's exact blob: refused" \
    "^rc=1 mssf-crypto: EACCES: org.mssf.Keys1.Error.KeyNotAvailable: this is the own key of label keyd-app-a" "$out"
check "and gets nothing" "" "$(reply)"
# B edits A's blob to name itself (the key's and the creator's name, same length): the header is bound.
/usr/bin/python3 - "$root/a.blob" "$root/a-as-b.blob" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b = b.replace(b'keyd-app-a', b'keyd-app-b')
open(sys.argv[2], 'wb').write(b)
EOF
crypto keyd-app-b decrypt < "$root/a-as-b.blob"
has "A's blob re-labelled to B, opened by B: Altered" "^rc=1 mssf-crypto: EKEYREJECTED: org.mssf.Keys1.Error.Altered" "$out"
check "and gets nothing" "" "$(reply)"

# --- A token's key: every holder of Team, no one else.
section token key
printf "the team's plan" > "$root/t.plain"
crypto keyd-app-b encrypt --token Team < "$root/t.plain"; cp "$kept/reply.$n" "$root/t.blob"
check "B encrypts under token:Team" "rc=0 " "$out"
crypto keyd-app-e decrypt < "$root/t.blob"
check "E, another holder of Team, decrypts it" "rc=0 " "$out"
check "to the plaintext" "the team's plan" "$(reply)"
crypto keyd-app-b decrypt < "$root/t.blob"
check "B too" "the team's plan" "$(reply)"
crypto keyd-app-a decrypt < "$root/t.blob"
has "A, without Team, is refused" "^rc=1 mssf-crypto: EACCES: org.mssf.Keys1.Error.KeyNotAvailable: the key of token Team" "$out"
crypto keyd-app-a encrypt --token Team < "$root/t.plain"
not_held=$out
crypto keyd-app-a encrypt --token NoSuchToken < "$root/t.plain"
missing=$out
check "a token not held and one that does not exist: the same error, in the same words" \
    "$(echo "$not_held" | sed 's/Team/T/')" "$(echo "$missing" | sed 's/NoSuchToken/T/')"
# Revoked in the kernel, as mssf-policy does: the next call is refused; granted again, answered.
load_rule keyd-app-e Team -
crypto keyd-app-e decrypt < "$root/t.blob"
has "Team revoked from E: its next call is refused" "^rc=1 mssf-crypto: EACCES" "$out"
load_rule keyd-app-e Team w
crypto keyd-app-e decrypt < "$root/t.blob"
check "granted again: answered" "rc=0 " "$out"

# --- Signatures say which key made them.
section signatures
printf "settings v2" > "$root/s.data"
crypto keyd-app-a sign < "$root/s.data"; cp "$kept/reply.$n" "$root/a.sig"
check "A signs" "rc=0 " "$out"
crypto keyd-app-b verify "$root/a.sig" < "$root/s.data"
check "B verifies A's signature: which key, whose call, which mode" "rc=0 " "$out"
check "the answer" "valid: label keyd-app-a, signed by keyd-app-a, mode tpm" "$(reply)"
printf "settings v3" > "$root/s3.data"
crypto keyd-app-b verify "$root/a.sig" < "$root/s3.data"
has "other data: BadSignature" "^rc=1 mssf-crypto: EKEYREJECTED: org.mssf.Keys1.Error.BadSignature" "$out"
crypto keyd-app-b sign --token Team < "$root/s.data"; cp "$kept/reply.$n" "$root/t.sig"
crypto keyd-app-e verify "$root/t.sig" < "$root/s.data"
check "a Team signature, checked by another holder, names the signer" \
    "valid: token Team, signed by keyd-app-b, mode tpm" "$(reply)"
crypto keyd-app-a verify "$root/t.sig" < "$root/s.data"
has "and is not A's to check" "^rc=1 mssf-crypto: EACCES" "$out"

# --- Bad input: named errors, never a plaintext.
section bad input
head -c 20 "$root/a.blob" > "$root/cut.blob"
crypto keyd-app-a decrypt < "$root/cut.blob"
has "a blob cut inside its header: Malformed" "^rc=1 mssf-crypto: EBADMSG: org.mssf.Keys1.Error.Malformed" "$out"
head -c -1 "$root/a.blob" > "$root/short.blob"
crypto keyd-app-a decrypt < "$root/short.blob"
has "a blob one byte short: Altered" "^rc=1 mssf-crypto: EKEYREJECTED: org.mssf.Keys1.Error.Altered" "$out"
/usr/bin/python3 - "$root/a.blob" "$root" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
flipped = bytearray(b); flipped[-20] ^= 1
open(sys.argv[2] + '/flipped.blob', 'wb').write(flipped)
future = bytearray(b); future[2] = 2
open(sys.argv[2] + '/future.blob', 'wb').write(future)
EOF
crypto keyd-app-a decrypt < "$root/flipped.blob"
has "one bit of ciphertext changed: Altered" "^rc=1 mssf-crypto: EKEYREJECTED: org.mssf.Keys1.Error.Altered" "$out"
check "and no partial plaintext" "" "$(reply)"
crypto keyd-app-a decrypt < "$root/future.blob"
has "another format version: UnsupportedVersion" "^rc=1 mssf-crypto: EPROTO: org.mssf.Keys1.Error.UnsupportedVersion" "$out"
head -c 65537 /dev/zero > "$root/big"
crypto keyd-app-a encrypt < "$root/big"
has "65,537 bytes through libmssf: refused before sending, with the limit" \
    "^rc=1 mssf-crypto: EMSGSIZE: org.mssf.Keys1.Error.TooLarge: a plaintext of 65537 bytes is over the limit of 65536 bytes" "$out"
# shellcheck disable=SC2046 # one argument per byte
as keyd-app-a busctl --system call org.mssf.Keys1 /org/mssf/Keys1 org.mssf.Keys1 Encrypt say "" 65537 \
    $(head -c 65537 /dev/zero | od -An -v -tu1)
has "65,537 bytes sent straight to the service: refused with the limit" \
    "org.mssf.Keys1.Error.TooLarge|over the limit of 65536 bytes" "$out"
as keyd-app-a busctl --system call org.mssf.Keys1 /org/mssf/Keys1 org.mssf.Keys1 Encrypt say "token:UID::root" 1 1
has "a POSIX credential is no token: InvalidArgs" "not a POSIX credential" "$out"
crypto keyd-app-c encrypt < "$root/a.plain"
has "app C, without a manifest: the bus refuses it (no Smack rule to the service)" \
    "^rc=1 mssf-crypto: EACCES: org.freedesktop.DBus.Error.AccessDenied" "$out"
crypto _ encrypt < "$root/a.plain"
has "a process labelled _ (no label of its own): refused (it cannot even reach the bus)" "^rc=1 mssf-crypto: EACCES" "$out"

# --- Protected storage.
section storage
printf "1234" > "$root/pin"
crypto keyd-app-a store pin < "$root/pin"
check "A stores an item" "rc=0 " "$out"
crypto keyd-app-a load pin
check "A loads it" "1234" "$(reply)"
crypto keyd-app-b load pin
has "B's own namespace has no such item (it cannot name A's)" "^rc=1 mssf-crypto: ENOENT: org.mssf.Keys1.Error.NoSuchItem" "$out"
printf "team pin" > "$root/team-pin"
crypto keyd-app-b store --token Team shared < "$root/team-pin"
crypto keyd-app-e load --token Team shared
check "an item under Team, stored by B, loaded by E" "team pin" "$(reply)"
crypto keyd-app-a load --token Team shared
has "not by A" "^rc=1 mssf-crypto: EACCES: org.mssf.Keys1.Error.KeyNotAvailable" "$out"
crypto keyd-app-a load --token NoSuchToken shared
has "nor under a token that does not exist (the same error)" "^rc=1 mssf-crypto: EACCES: org.mssf.Keys1.Error.KeyNotAvailable" "$out"
lacks "the store names no label, token or item on disk" "keyd-app|Team|pin|shared" \
    "$(cd "$state" && find . -print)"

# --- The device policy decides: without checkany the service may not ask about tokens.
section checkany
grep -v '^checkany' "$src/device-policy.conf" > "$root/no-checkany.conf"
"$tool" compile --root "$root" --device-policy "$root/no-checkany.conf" > /dev/null 2>&1
busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig > /dev/null 2>&1
crypto keyd-app-b decrypt < "$root/t.blob"
has "no checkany line: a token's key is NotConfigured, never used" \
    "^rc=1 mssf-crypto: EPERM: org.mssf.Keys1.Error.NotConfigured" "$out"
crypto keyd-app-a decrypt < "$root/a.blob"
check "an own key needs no token question: still answered" "rc=0 " "$out"
"$tool" compile --root "$root" --device-policy "$src/device-policy.conf" > /dev/null 2>&1
busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig > /dev/null 2>&1
crypto keyd-app-b decrypt < "$root/t.blob"
check "checkany back: answered" "rc=0 " "$out"

# --- Cost: the bus round trip beside Encrypt and Decrypt of 4 KiB; no TPM command per call.
section cost
before=$(swtpm_commands)
as keyd-app-a "$bench" 1000 4096
after=$(swtpm_commands)
echo "$out" | sed 's/^/# keyd-bench: /'
has "1,000 Encrypts: the service's TPM command count does not move" "^tpm-commands ([0-9]+) \\1 1000$" "$out"
check "and swtpm logged no command during the run" "$before" "$after"
has "the count is the start's: a handful of commands" "^tpm-commands ([1-9]|1[0-2]) " "$out"
# docs/keyd.md's claim, checked in the same run: a 4 KiB Encrypt or Decrypt costs under two bus round trips.
within() {  # NAME: its median under twice Ping's
    echo "$out" | awk -v what="$1" '$1 == "ping-us" { ping = $2 } $1 == what { t = $2 }
        END { exit !(ping > 0 && t < 2 * ping) }'
}
within encrypt-us && ok "a 4 KiB Encrypt costs under two bus round trips (docs/keyd.md)" ||
    not_ok "a 4 KiB Encrypt costs two bus round trips or more: $out"
within decrypt-us && ok "a 4 KiB Decrypt too" || not_ok "a 4 KiB Decrypt costs two bus round trips or more: $out"
as keyd-app-a busctl --system get-property org.mssf.Keys1 /org/mssf/Keys1 org.mssf.Keys1 Mode
mode=$out
check "property Mode" 's "tpm"' "$mode"

# --- What survives: a restart, an app's reinstall.
section restart
kill "$keyd_pid"
wait "$keyd_pid" 2>/dev/null
start_keyd
has "restarted: the root unsealed once" "unsealed once at this start" "$(cat "$root/keyd.err")"
check "the same root" "$root_id" "$(sed -n 's/^mssf-keyd: root key \([0-9a-f]*\):.*/\1/p' "$root/keyd.err" | head -n 1)"
crypto keyd-app-a decrypt < "$root/a.blob"
check "after a restart A's blob opens" "A's diary: private" "$(reply)"
policy remove keyd-app-a > /dev/null 2>&1 && policy install --origin system keyd-app-a "$src/app-a.xml" > /dev/null 2>&1
busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig > /dev/null 2>&1
crypto keyd-app-a decrypt < "$root/a.blob"
check "after A is removed and installed again, its blob opens" "A's diary: private" "$(reply)"
crypto keyd-app-a load pin
check "and its stored item loads" "1234" "$(reply)"

# --- A bus that does not mediate (dbus-daemon: labels, but no token questions): every call refused.
section unmediated
cat > "$root/plain-bus.conf" <<EOF
<busconfig>
  <type>system</type>
  <listen>unix:path=$root/plain_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
(echo System > /proc/self/attr/current && exec dbus-daemon --config-file="$root/plain-bus.conf" --nofork --print-address) \
    > "$root/plain-bus.out" 2>&1 &
pids="$pids $!"
wait_for "$root/plain-bus.out" unix: 20 || exit 1
mkdir -p "$root/plain-state"
"$helper" setxattr "$root/plain-state" security.SMACK64 mssf-keyd
timeout 60 "$helper" exec "$root/usr/libexec/mssf-keyd" --state-dir "$root/plain-state" --tpm none \
    --address "unix:path=$root/plain_bus_socket" > "$root/plain-keyd.out" 2> "$root/plain-keyd.err" &
pids="$pids $!"
wait_for "$root/plain-keyd.out" "ready as" 20 || exit 1
has "on dbus-daemon the service says it is not mediated" "state Unmediated" "$(cat "$root/plain-keyd.out")"
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$root/plain_bus_socket
crypto keyd-app-a encrypt < "$root/a.plain"
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$root/system_bus_socket
has "and refuses A's call by name" "^rc=1 mssf-crypto: EOPNOTSUPP: org.mssf.Keys1.Error.Unmediated" "$out"
has "the software mode is said as weaker" "WEAKER MODE" "$(cat "$root/plain-keyd.err")"

# --- No key material anywhere: the root from the TPM (tpm2-tools), every key from the recipe.
section scan
# The tools run labelled as the service: Smack judges a TCP packet by its
# sender's label at the receiving socket (swtpm's), whatever the sender's
# capabilities, as it would a process reaching the device's TPM node.
tools=$root/tools
mkdir -p "$tools"
"$helper" setxattr "$tools" security.SMACK64 mssf-keyd
f=$state/root.state
sed -n 's/^public //p' "$f" | xxd -r -p > "$tools/sealed.pub"
sed -n 's/^private //p' "$f" | xxd -r -p > "$tools/sealed.priv"
sed -n 's/^auth //p' "$f" > "$tools/auth"
cat > "$tools/unseal.sh" <<'EOF'
#!/bin/sh
# Without a resource manager each tool leaves its objects loaded: flushed between them.
cd "$1" && export TPM2TOOLS_TCTI="$2" &&
tpm2_flushcontext -t && head -c 64 /dev/zero | tpm2_createprimary -Q -C o -g sha256 -G ecc256:aes128cfb \
    -a "restricted|decrypt|fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda" -u - -c prim.ctx &&
tpm2_flushcontext -t && tpm2_load -Q -C prim.ctx -u sealed.pub -r sealed.priv -c obj.ctx &&
tpm2_flushcontext -t && tpm2_unseal -c obj.ctx -p "hex:$(cat auth)" | xxd -p -c 64 > root.hex
EOF
timeout 60 "$helper" run mssf-keyd sh "$tools/unseal.sh" "$tools" "$tcti" > "$root/unseal.log" 2>&1 ||
    cat "$root/unseal.log"
cp "$tools/root.hex" "$root/root.hex"
secret=$(cat "$root/root.hex")
check "tpm2-tools unseal a 256-bit root from the service's state" 64 "${#secret}"
hkdf() {  # HKDF-SHA256(root, salt mssf-keyd, info) as hex, LENGTH bytes
    openssl kdf -keylen "$1" -kdfopt digest:SHA256 -kdfopt hexkey:"$secret" -kdfopt salt:mssf-keyd \
        -kdfopt info:"$2" HKDF | tr -d ':\n' | tr 'A-F' 'a-f'
}
check "its id by the documented recipe is the one the service logged" "$root_id" "$(hkdf 8 "mssf-keyd/1 root-id")"
# Every reply, every file the service wrote (its state, its store), its own output and the bus's log.
cp -r "$state" "$kept/state"
cat "$root"/keyd.out "$root"/keyd.err "$root"/bus.log > "$kept/logs"
all=$root/all.hex
find "$kept" -type f -exec cat {} + | xxd -p | tr -d '\n' > "$all"
scan() {  # NAME HEX: neither the bytes nor their hex (either case) nor either half appear
    half1=$(echo "$2" | cut -c1-32); half2=$(echo "$2" | cut -c33-64)
    hex_of_hex=$(printf '%s' "$half1" | xxd -p | tr -d '\n')
    if grep -q -e "$half1" -e "$half2" -e "$hex_of_hex" "$all" ||
        grep -r -q -i -a -e "$half1" -e "$half2" "$kept"; then
        not_ok "$1 appears in what the service handed out or wrote"
        return
    fi
    keys=$((keys + 1))
}
keys=0
scan "the root" "$secret"
scan "the EVM master key" "$(hkdf 32 "mssf-keyd/1 evm-master")"
for purpose in encrypt sign store store-name; do
    for key in label:keyd-app-a label:keyd-app-b label:keyd-app-c label:keyd-app-e label:_ \
            token:Team token:NoSuchToken token:UID::root; do
        scan "the $purpose key of $key" "$(hkdf 32 "mssf-keyd/1 $purpose $key")"
    done
done
check "none of the root and the 34 keys is in $(wc -c < "$all" | awk '{print $1 / 2}') bytes of replies, files and logs" 34 "$keys"
# The scan finds a key where there is one: the software mode's root is in its state, on purpose.
secret=$(sed -n 's/^secret //p' "$root/plain-state/root.state")
find "$root/plain-state" -type f -exec cat {} + | xxd -p | tr -d '\n' > "$all"
if grep -r -q -i -e "$(echo "$secret" | cut -c1-32)" "$root/plain-state"; then
    ok "the scan finds the software root in its state file (it can find what it looks for)"
else
    not_ok "the scan does not find the software root where it is"
fi

if [ "$failures" -ne 0 ]; then
    echo "# bus log:"; tail -n 20 "$root/bus.log" | sed 's/^/#   /'
    echo "# keyd:"; tail -n 20 "$root/keyd.err" | sed 's/^/#   /'
    echo "# $failures failure(s)"
    exit 1
fi
echo "# all passed"
