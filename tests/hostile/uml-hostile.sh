#!/bin/sh
# The kernel's half of the hostile corpus, inside user-mode-linux (run by
# uml-run) with the real smackfs: the cases of ./cases that would relabel
# a program or write rules naming a foreign label are installed by hand
# (mssf-policy install --root R --smackfs /sys/fs/smackfs --origin
# thirdparty) in a root on the guest's tmpfs, next to the victim
# (registered with origin system; also a dpkg package listing its program).
# After each install and after its removal the kernel is asked: the
# victim's program still runs with the label victim (exec it, read
# /proc/self/attr/current), load2 lists no rule between the attacker and a
# foreign label, and access2 answers for the attacker against System, the
# victim, the floor and the victim's token as before.
#   uml-hostile.sh MSSF_POLICY SMACK_HELPER
# Exit 0 pass, 1 fail.
set -u
hostile=$(cd "$(dirname "$0")" && pwd)
tool=$1
helper=$2
[ "${UML_GUEST:-}" = 1 ] || { echo "not inside uml-run"; exit 1; }
[ -w /sys/fs/smackfs/load2 ] || { echo "smackfs not mounted"; exit 1; }
. "$hostile/../package/lib.sh"
. "$hostile/lib.sh"

# The root on tmpfs (hostfs has no xattrs).
root=/tmp/hostile-root
mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib" "$root/dev" "$root/var/lib/dpkg/info"
cp /bin/cat "$root/usr/sbin/victimd"
cp /bin/cat "$root/usr/bin/passwd"
chmod 4755 "$root/usr/bin/passwd"
printf 'Package: victim\nStatus: install ok installed\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: t\n\nPackage: passwd\nStatus: install ok installed\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: t\n\n' \
    >"$root/var/lib/dpkg/status"
printf '/.\n/usr\n/usr/sbin\n/usr/sbin/victimd\n' >"$root/var/lib/dpkg/info/victim.list"
printf '/.\n/usr\n/usr/bin\n/usr/bin/passwd\n' >"$root/var/lib/dpkg/info/passwd.list"
mp() { "$tool" "$@" --root "$root" --smackfs /sys/fs/smackfs --no-reload </dev/null; }

mp install --origin system victim "$hostile/mssf-hostile/debian/victim.aegis" >/tmp/victim.log 2>&1
check "the victim is registered (origin system)" 0 $?
in_kernel() {
    awk -v s="$1" -v o="$2" '$1 == s && $2 == o && $3 != "-" { print $3 }' /sys/fs/smackfs/load2
}
check "the kernel holds the victim's grant" w "$(in_kernel victim Telephony)"

runs_as() {
    # The label the program runs with, exec'd without the MAC capabilities.
    "$helper" exec "$1" /proc/self/attr/current 2>&1
}
exec_label() {
    "$helper" getxattr "$1" security.SMACK64EXEC 2>/dev/null || echo none
}
# What the kernel says about the attacker A: one word per question.
kernel_view() {
    for pair in "$1 System" "System $1" "$1 victim" "victim $1" "$1 _" "$1 victim::Secret" \
        "$1 Telephony" "$1 Location"; do
        set -- $pair
        printf '%s->%s=%s ' "$1" "$2" "$("$helper" access "$1" "$2" w)"
    done
}
# load2's rules between A and a label that is neither A's own nor a
# global token, the grants of the installed packages aside.
foreign_rules() {
    awk -v a="$1" -v globals="$(grantable thirdparty)" '
        function mine(l) { return l == a || index(l, a ":") == 1 }
        function fine(l) { return mine(l) || index(globals, " " l " ") > 0 }
        $3 != "-" && (mine($1) || mine($2)) && !(fine($1) && fine($2)) { print }
    ' /sys/fs/smackfs/load2
}
victim_view() {
    echo "$(exec_label "$root/usr/sbin/victimd") $(runs_as "$root/usr/sbin/victimd")" \
        "$(exec_label "$root/usr/bin/passwd")"
}
check "the victim's program runs as victim" "victim victim none" "$(victim_view)"
victim_before=$(victim_view)

# The cases that would relabel a program or write foreign rules.
for name in hostile-for-victim hostile-for-passwd hostile-symlink hostile-dirlink hostile-dotdot \
    hostile-hardlink hostile-race hostile-owner-system hostile-owner-victim hostile-owner-floor \
    hostile-owner-web hostile-owner-hat hostile-owner-token hostile-owner-victim-sub \
    hostile-owner-token-label hostile-guard-telephony hostile-plugin-system drm; do
    expect=$(cases | awk -v c="$name" '$1 == c { print $2 }')
    expect=$(expect_for "$expect" thirdparty)
    kernel_before=$(kernel_view "$name")
    hand_setup "$name" >/dev/null
    manifest=$hostile/mssf-hostile/aegis/$name.aegis
    mp install --origin thirdparty "$name" "$manifest" >/tmp/$name.log 2>&1
    status=$?
    race_stop
    case $expect in
    refused)
        check "$name: refused" 1 "$([ "$status" != 0 ] && echo 1)"
        check_grep "$name: at the manifest's line and column" "\\.aegis$(marked_position "$manifest"): error: " \
            /tmp/$name.log
        ;;
    *)
        [ "$status" = 0 ] || check_grep "$name: if refused, with one error line" ': error: ' /tmp/$name.log
        ;;
    esac
    check "$name: the victim's program still runs as victim" "$victim_before" "$(victim_view)"
    check "$name: load2 has no rule between it and a foreign label" "" "$(foreign_rules "$name")"
    check "$name: access2 answers as before" "$kernel_before" "$(kernel_view "$name")"
    if [ "$status" != 0 ] || [ "${UML_VERBOSE:-0}" = 1 ]; then sed 's/^/# /' /tmp/$name.log; fi
    if [ -f "$root/var/lib/mssf/manifests/$name.xml" ]; then
        mp remove "$name" >/tmp/$name.remove 2>&1
        check "$name: removed" 0 $?
    fi
    hand_teardown "$name"
    check "$name: after the removal the victim's program runs as victim" "$victim_before" "$(victim_view)"
    check "$name: after the removal access2 answers as before" "$kernel_before" "$(kernel_view "$name")"
    # A hole must not spoil the next case: put the labels back.
    if [ "$(victim_view)" != "$victim_before" ]; then
        "$helper" setxattr "$root/usr/sbin/victimd" security.SMACK64EXEC victim
        setfattr -h -x security.SMACK64EXEC "$root/usr/bin/passwd" 2>/dev/null
    fi
done

echo "$failures failure(s)"
[ "$failures" = 0 ]
