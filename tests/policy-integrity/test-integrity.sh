#!/bin/bash
# Host integration test of the reference hashes mssf-policy sets for IMA
# (policy/integrity/integrity.c), in a temporary --root with a dpkg admin
# directory of its own:
#   test-integrity.sh MSSF_POLICY
# install sets security.ima (the bytes "evmctl ima_hash -a sha256" writes)
# on the manifest's binary and, when dpkg runs it (dpkg configure), on
# every regular file of dpkg's .list;
# a file whose MD5 differs from dpkg's md5sums refuses the install with
# md5sums:LINE and changes nothing; an upgrade re-hashes; remove clears;
# `verify` reports content changes, lost xattrs and changed labels;
# the crash journal puts each recorded security.ima back exactly, dpkg's
# listed files included, and a broken one is refused naming its line;
# dpkg configure names why a shipped .aegis cannot be read (missing,
# symlink, not a regular file, over 1 MiB).
# Root sets security.* xattrs on the host whether or not IMA is loaded
# (checked); otherwise SKIP. Exit 0 pass, 1 fail, 77 skip.
set -u
tool=$(readlink -f "$1")
failures=0
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; failures=$((failures + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi; }

[ "$(id -u)" = 0 ] || { echo "SKIP: setting security.ima needs root"; exit 77; }
command -v evmctl > /dev/null || { echo "SKIP: evmctl not installed (ima-evm-utils)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/mssf-integrity.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/usr/bin" "$root/usr/share/doc/maps" "$root/var/lib/dpkg/info"
if ! setfattr -n security.ima -v 0x0404 "$work" 2>/dev/null; then
    echo "SKIP: this file system ($work) does not take security.ima"
    exit 77
fi
ok "root sets security.ima on the host file system (IMA need not be loaded)"

ima() { getfattr --absolute-names --only-values -n security.ima -e hex "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n'; }
evm_hash() { evmctl ima_hash -a sha256 -n "$1" 2>&1 | sed -n 's/^hash(sha256): //p'; }
manifest=$work/maps.xml
cat > "$manifest" <<'XML'
<aegis>
  <request>
    <credential name="Location"/>
    <for path="/usr/bin/maps"/>
  </request>
</aegis>
XML
printf '#!/bin/sh\necho maps 1\n' > "$root/usr/bin/maps"; chmod 755 "$root/usr/bin/maps"
echo "read me" > "$root/usr/share/doc/maps/README"
ln -s maps "$root/usr/bin/maps-link"
printf '/.\n/usr\n/usr/bin\n/usr/bin/maps\n/usr/bin/maps-link\n/usr/share/doc/maps/README\n/usr/share/doc/maps/gone\n' \
    > "$root/var/lib/dpkg/info/maps.list"
(cd "$root" && md5sum usr/bin/maps usr/share/doc/maps/README) > "$root/var/lib/dpkg/info/maps.md5sums"
run() { "$tool" "$@" --root "$root" --no-reload --no-kernel; }
# As dpkg runs it (dh_mssf's postinst): dpkg knows the package, its .aegis
# is installed, and only then is dpkg's file list the package's.
mkdir -p "$root/usr/share/mssf/aegis"
printf 'Package: maps\nStatus: install ok unpacked\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: t\n' \
    > "$root/var/lib/dpkg/status"
configure() { cp "$manifest" "$root/usr/share/mssf/aegis/maps.aegis" && run dpkg configure maps; }

# Run by hand, a dpkg package of the same name may be another one: only the manifest's binary.
out=$(run install maps "$manifest" 2>&1); status=$?
check "install by hand succeeds" 0 "$status"
check "... and leaves dpkg's listed files alone" "" "$(ima "$root/usr/share/doc/maps/README")"
out=$(run remove maps 2>&1)

out=$(configure 2>&1); status=$?
check "dpkg configure succeeds" 0 "$status"
check "the binary's security.ima is what evmctl ima_hash writes" "$(evm_hash "$root/usr/bin/maps")" "$(ima "$root/usr/bin/maps")"
check "a listed regular file gets one too" "$(evm_hash "$root/usr/share/doc/maps/README")" "$(ima "$root/usr/share/doc/maps/README")"
check "the value is type 4 (digest_ng), algorithm 4 (sha256)" 0404 "$(ima "$root/usr/bin/maps" | cut -c1-4)"
check "a symlink itself gets none" "" "$(getfattr -h -n security.ima "$root/usr/bin/maps-link" 2>/dev/null)"

out=$(run verify maps 2>&1); status=$?
check "verify: all as installed" 0 "$status"

# Changed after unpack: refused, and nothing changes.
before=$(ima "$root/usr/bin/maps")
printf '#!/bin/sh\necho maps 2\n' > "$root/usr/bin/maps"
out=$(configure 2>&1); status=$?
check "an install over a file that differs from md5sums is refused" 3 "$status"
case "$out" in
*"$root/var/lib/dpkg/info/maps.md5sums:1:35: error: /usr/bin/maps was changed after dpkg unpacked it"*)
    ok "the error names the md5sums line and the file" ;;
*) not_ok "md5sums error: $out" ;;
esac
check "the refused install left the reference hash alone" "$before" "$(ima "$root/usr/bin/maps")"

out=$(run verify maps 2>&1); status=$?
check "verify: a changed file exits 6" 6 "$status"
case "$out" in *"maps: /usr/bin/maps: content changed"*) ok "verify names the changed file" ;; *) not_ok "verify output: $out" ;; esac

# An upgrade (new content, new md5sums) replaces the hash.
(cd "$root" && md5sum usr/bin/maps usr/share/doc/maps/README) > "$root/var/lib/dpkg/info/maps.md5sums"
out=$(configure 2>&1); status=$?
check "the upgrade succeeds" 0 "$status"
check "the upgrade replaced the reference hash" "$(evm_hash "$root/usr/bin/maps")" "$(ima "$root/usr/bin/maps")"

setfattr -x security.ima "$root/usr/share/doc/maps/README"
setfattr -n security.SMACK64EXEC -v other "$root/usr/bin/maps"
out=$(run verify maps 2>&1); status=$?
check "verify: lost xattr and changed label exit 6" 6 "$status"
case "$out" in *"/usr/share/doc/maps/README: no security.ima"*) ok "verify names the lost xattr" ;; *) not_ok "verify output: $out" ;; esac
case "$out" in *"/usr/bin/maps: security.SMACK64EXEC is 'other', not 'maps'"*) ok "verify names the changed label" ;; *) not_ok "verify output: $out" ;; esac
out=$(run verify nosuch 2>&1); status=$?
check "verify of a package that is not installed exits 4" 4 "$status"

out=$(configure 2>&1)
out=$(run dpkg remove maps 2>&1); status=$?
check "remove succeeds" 0 "$status"
check "remove cleared the binary's security.ima" "" "$(ima "$root/usr/bin/maps")"
check "remove cleared the listed file's security.ima" "" "$(ima "$root/usr/share/doc/maps/README")"

# A dpkg configure that died half-way: its journal recorded the state
# before (not installed; README with a value that is not its hash). The
# next run puts exactly that back, for the dpkg-listed file too.
out=$(configure 2>&1)
readme=$(readlink -f "$root/usr/share/doc/maps/README")
journal=$root/var/lib/mssf/lock.journal
printf 'mssf-policy journal 3\npackage maps\nima-files 1\nfile %s\n%s\nima 0302aa\norigin-file absent\nmanifest absent\n' \
    "${#readme}" "$readme" > "$journal"
out=$(run compile 2>&1); status=$?
check "recovery from the crash journal succeeds" 0 "$status"
case "$out" in *"undid an interrupted change to package maps"*) ok "recovery says so" ;; *) not_ok "recovery: $out" ;; esac
check "recovery put the listed file's security.ima back as it was" 0302aa "$(ima "$readme")"
check "... and the journal is gone" "" "$(ls "$journal" 2>/dev/null)"
out=$(run verify maps 2>&1); status=$?
check "... and the package is not installed, as before" 4 "$status"
printf 'mssf-policy journal 3\npackage maps\nima-files 1\nfile 3\nabc\nima absent\norigin-file absent\nmanifest absent\n' > "$journal"
out=$(run compile 2>&1); status=$?
check "a journal with a relative path refuses every change" 3 "$status"
case "$out" in *"$journal:4: error: unreadable journal"*) ok "the error names the journal's line" ;; *) not_ok "bad journal: $out" ;; esac
rm -f "$journal"

# What dpkg configure says when the shipped manifest is not one to read.
aegis=$root/usr/share/mssf/aegis/maps.aegis
shipped() { out=$(run dpkg configure maps 2>&1); status=$?; }
rm -f "$aegis"; shipped
check "no shipped manifest: configure fails" 1 "$([ "$status" != 0 ] && echo 1)"
case "$out" in *"maps.aegis"*"ships no manifest here (No such file or directory)"*) ok "it says the file is missing" ;; *) not_ok "missing: $out" ;; esac
ln -s "$manifest" "$aegis"; shipped
case "$out" in *"ships no manifest here (Too many levels of symbolic links)"*) ok "a symlink is refused, and said so" ;; *) not_ok "symlink: $out" ;; esac
rm -f "$aegis"; mkdir "$aegis"; shipped
case "$out" in *"ships no manifest here (not a regular file)"*) ok "a directory is not a regular file" ;; *) not_ok "directory: $out" ;; esac
rmdir "$aegis"; head -c 1048577 /dev/zero | tr '\0' ' ' > "$aegis"; shipped
case "$out" in *"ships no manifest here (larger than 1 MiB)"*) ok "a file over 1 MiB is refused, and said so" ;; *) not_ok "too large: $out" ;; esac
rm -f "$aegis"

echo "$failures failed"
[ "$failures" = 0 ]
