# tests/hostile/lib.sh: the case table, the state of a root as lines, the
# verdicts every hostile test gives (README.md), and the files of each
# case for the tests that run mssf-policy by hand. Sourced after
# tests/package/lib.sh (check, check_grep, failures). The caller sets
# hostile (this folder) and, for hand_setup, root.

# The built-in device policy's global tokens (docs/manifest.md), and those
# it grants an origin (system gets everything; thirdparty these; the
# unknown origin and "store", which it does not name, nothing).
GLOBAL_TOKENS=" Cellular Location UserData Telephony NetService TrackerReadAccess TrackerWriteAccess ReadUserData ReadWriteUserData drm tcb "
grantable() {
    case $1 in
    system) echo "$GLOBAL_TOKENS" ;;
    thirdparty) echo " Cellular Location NetService TrackerReadAccess TrackerWriteAccess " ;;
    *) echo " " ;;
    esac
}
TAB=$(printf '\t')

# cases: "CASE EXPECT KEY", one line per case of the table (but the
# device's configuration's, which only hostile-apt installs).
cases() {
    awk '!/^#/ && NF && $2 != "guarded" && $2 != "trusted" && $2 != "hook" { print $1, $2, $3 }' "$hostile/cases"
}

# etc_cases: "CASE EXPECT FILE" for the cases that ship the device's configuration.
etc_cases() {
    awk '!/^#/ && NF && ($2 == "guarded" || $2 == "trusted" || $2 == "hook") { print $1, $2, $3 }' "$hostile/cases"
}

# The cases whose manifests stand alone, $hostile/extra/NAME.aegis: "NAME EXPECT KEY".
extra_cases() {
    awk '!/^#/ && NF { print $1, $2, $3 }' "$hostile/extra/cases"
}

# expect_for EXPECT ORIGIN: what EXPECT ("A" or "A/B") asks for ORIGIN.
expect_for() {
    case $2 in
    thirdparty) echo "${1#*/}" ;;
    *) echo "${1%/*}" ;;
    esac
}

# marked_position MANIFEST: ":LINE:COLUMN" of the element on the line
# marked <!-- hostile --> (its "<"); with none, a pattern for any position
# or none (what is refused is not in the file: the package's name).
marked_position() {
    awk '/<!-- hostile -->/ { print ":" NR ":" index($0, "<"); found = 1; exit }
         END { if (!found) print "(:[0-9]+:[0-9]+)?" }' "$1"
}

# state ROOT LOAD2: what the install path may change, one sorted,
# tab-separated line per fact:
#   xattr PATH NAME VALUE     security.SMACK64EXEC and security.ima of every
#                             file but under /proc, /sys, /dev, /tmp; and /dev/null
#   rule FILE SUBJECT OBJECT ACCESS   each rule of etc/smack/accesses.d
#   kernel SUBJECT OBJECT ACCESS      LOAD2's last word on each pair, but "-"
#   registered NAME SHA256 SHA256     var/lib/mssf: manifest, origin file
#   policydb SHA256
state() {
    (
        cd "$1" || exit 1
        find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \) -prune \
            -o -print0 | xargs -0 getfattr -h -d -m '^security\.(SMACK64EXEC|ima)$' -e hex 2>/dev/null
        getfattr -h -d -m '^security\.(SMACK64EXEC|ima)$' -e hex ./dev/null 2>/dev/null
    ) | awk -v OFS="$TAB" '
        /^# file: / { file = substr($0, 9); sub(/^\.?\/?/, "/", file); next }
        /=/ { eq = index($0, "="); print "xattr", file, substr($0, 1, eq - 1), substr($0, eq + 1) }'
    for file in "$1"/etc/smack/accesses.d/*; do
        [ -f "$file" ] || continue
        awk -v OFS="$TAB" -v f="${file##*/}" '!/^#/ && NF { print "rule", f, $1, $2, $3 }' "$file"
    done
    [ -f "$2" ] && awk -v OFS="$TAB" '{ last[$1 OFS $2] = $3 }
        END { for (pair in last) if (last[pair] != "-") print "kernel", pair, last[pair] }' "$2"
    for file in "$1"/var/lib/mssf/manifests/*.xml; do
        [ -f "$file" ] || continue
        name=${file##*/}
        name=${name%.xml}
        printf 'registered\t%s\t%s\t%s\n' "$name" "$(sha256sum <"$file" | cut -c1-16)" \
            "$(sha256sum <"$1/var/lib/mssf/origins/$name" 2>/dev/null | cut -c1-16)"
    done
    [ -f "$1/var/lib/mssf/policy.db" ] &&
        printf 'policydb\t%s\n' "$(sha256sum <"$1/var/lib/mssf/policy.db" | cut -c1-16)"
} 2>/dev/null

# snapshot ROOT LOAD2 FILE
snapshot() {
    state "$1" "$2" | LC_ALL=C sort >"$3"
}

# foreign_changes PKG ORIGIN OWN_FILES MODE BEFORE AFTER: each difference
# between two states that is not PKG's own, one line each (nothing: all
# its own). Its own: its files (OWN_FILES, one path a line), rules between
# its labels (PKG, PKG:x, PKG::x) and the global tokens ORIGIN may be
# granted, its registration. MODE "reach" also lets another package's
# rule file and the kernel gain rules between that package and PKG.
foreign_changes() {
    LC_ALL=C comm -3 "$5" "$6" | sed "s/^$TAB//" |
        awk -F "$TAB" -v pkg="$1" -v mode="$4" -v globals="$(grantable "$2")" '
        FILENAME != "-" { own[$0] = 1; next }
        function mine(l) { return l == pkg || index(l, pkg ":") == 1 }
        function fine(l) { return mine(l) || index(globals, " " l " ") > 0 }
        $1 == "xattr" {
            if (!($2 in own))
                print "a file the package does not own changed: " $2 " " $3
            next
        }
        $1 == "rule" && $2 == "mssf-" pkg {
            if (!fine($3) || !fine($4))
                print "its rule file names a foreign label: " $3 " " $4 " " $5
            next
        }
        $1 == "rule" {
            if (mode != "reach" || !(($3 == pkg && $2 == "mssf-" $4) || ($4 == pkg && $2 == "mssf-" $3)))
                print "another rule file changed: " $2 ": " $3 " " $4 " " $5
            next
        }
        $1 == "kernel" {
            if (!(fine($2) && fine($3)) && !(mode == "reach" && (mine($2) || mine($3))))
                print "a kernel rule that is not the package'"'"'s own: " $2 " " $3 " " $4
            next
        }
        $1 == "registered" { if ($2 != pkg) print "another registration changed: " $2; next }
        $1 == "policydb" { next }
        { print "changed: " $0 }
    ' "$3" -
}

# unowned_labels STATE: each rule that names a label no registered package
# owns (its name, NAME:x, NAME::x) and that is no global token.
unowned_labels() {
    awk -F "$TAB" -v globals="$GLOBAL_TOKENS" '
        $1 == "registered" { pkg[$2] = 1 }
        $1 == "rule" { rules[++n] = $0 }
        function owned(l,    p) {
            if (index(globals, " " l " ") > 0 || l in pkg)
                return 1
            p = l
            sub(/:.*/, "", p)
            return p in pkg
        }
        END {
            for (i = 1; i <= n; i++) {
                split(rules[i], f, FS)
                if (!owned(f[3]) || !owned(f[4]))
                    print f[2] ": " f[3] " " f[4] " " f[5]
            }
        }' "$1"
}

# key_regexp KEY: KEY as an extended regular expression, where an
# alternative "=WORD" is WORD as a word of its own (not inside a path, a
# longer name, or a label such as WORD:sub or WORD::token), so that
# "=victim" is the package, not victimd nor hostile-for-victim.
key_regexp() {
    awk -v key="$1" '
        function word(alt) {
            if (substr(alt, 1, 1) != "=")
                return alt
            return "(^|[^-[:alnum:]_/.:])" substr(alt, 2) "([^-[:alnum:]_/.:]|$)"
        }
        BEGIN {
            for (i = 1; i <= length(key); i++) {
                c = substr(key, i, 1)
                depth += (c == "(") - (c == ")")
                if (c == "|" && depth == 0) {
                    out = out word(alt) "|"
                    alt = ""
                } else
                    alt = alt c
            }
            print out word(alt)
        }'
}

# other_names OWN_FILES BEFORE AFTER: the xattr lines AFTER adds for a
# file of the package's (in $root) that is a hard link to a file whose
# xattrs BEFORE and AFTER both list unchanged: a new name, not a change.
other_names() {
    LC_ALL=C comm -13 "$2" "$3" | awk -F "$TAB" '$1 == "xattr"' | while IFS="$TAB" read -r kind path name value; do
        grep -qxF "$path" "$1" || continue
        awk -F "$TAB" -v n="$name" -v v="$value" -v p="$path" '$1 == "xattr" && $3 == n && $4 == v && $2 != p { print $2 }' "$2" |
            while read -r other; do
                if [ "$root$path" -ef "$root$other" ] &&
                    grep -qxF "xattr$TAB$other$TAB$name$TAB$value" "$3"; then
                    printf '\t%s\t%s\t%s\t%s\n' "$kind" "$path" "$name" "$value"
                    break
                fi
            done
    done
}

# error_lines LOG: the lines that say "error: " but are not dpkg's or apt's own.
error_lines() {
    grep -E 'error: ' "$1" | grep -vE '^(dpkg: |E: )'
}

# verdict NAME EXPECT KEY STATUS LOG MANIFEST SHOWN PKG ORIGIN OWN_FILES BEFORE AFTER WRITES
#   NAME: the test's name for the case; EXPECT: the table's; KEY: the
#   table's; STATUS: the install's exit status; LOG: its output;
#   MANIFEST: the manifest's source (for the marked position); SHOWN: the
#   manifest's path as mssf-policy names it; ORIGIN, OWN_FILES, BEFORE,
#   AFTER: as for foreign_changes; WRITES: how many rules were written to load2.
verdict() {
    v_name=$1 v_key=$3 v_status=$4 v_log=$5 v_manifest=$6 v_shown=$7 v_pkg=$8 v_origin=$9
    v_expect=$(expect_for "$2" "$v_origin")
    shift 9
    v_own=$1 v_before=$2 v_after=$3 v_writes=$4
    v_shown_re=$(printf '%s' "$v_shown" | sed 's/[].[^$*+?(){}|\\]/\\&/g')
    v_key_re=$(key_regexp "$v_key")
    # A race has two outcomes: refused, where it was caught (at the <for>,
    # or at a file while it was hashed), or installed, where it was not.
    v_racy=
    if [ "$v_expect" = unharmed ]; then
        if [ "$v_status" = 0 ]; then v_expect=installed; else v_expect=refused v_key=- v_racy=1; fi
    fi
    case $v_expect in
    refused)
        if [ "$v_status" = 0 ]; then
            echo "not ok - $v_name: refused (exit status 0, expected non-zero)"
            failures=$((failures + 1))
        else
            echo "ok - $v_name: refused (exit status $v_status)"
        fi
        error_lines "$v_log" >"$v_log.errors"
        other_names "$v_own" "$v_before" "$v_after" >"$v_log.links"
        v_at=$(marked_position "$v_manifest")
        check "$v_name: one error line" 1 "$(grep -c . "$v_log.errors")"
        if [ -n "$v_racy" ] && ! grep -qE "^$v_shown_re:" "$v_log.errors"; then
            check_grep "$v_name: it names the file it caught changing" "^/[^:]*: error: " "$v_log.errors"
            echo "# note: $v_name: refused at a file, not at the manifest's <for>"
        else
            check_grep "$v_name: it names the manifest at $v_at" "^$v_shown_re$v_at: error: " "$v_log.errors"
        fi
        [ "$v_key" = - ] ||
            check_grep "$v_name: and says why ($v_key)" "^$v_shown_re$v_at: error:.*($v_key_re)" "$v_log.errors"
        check "$v_name: nothing changed" "" \
            "$(LC_ALL=C comm -3 "$v_before" "$v_after" | grep -vxF -f "$v_log.links" | head -20)"
        check "$v_name: no rule written to load2" 0 "$v_writes"
        ;;
    confined | installed | reach)
        check "$v_name: installed (exit status)" 0 "$v_status"
        [ "$v_expect" != confined ] ||
            check_grep "$v_name: a warning says what was dropped ($v_key)" \
                "^$v_shown_re:[0-9]+:[0-9]+: warning:.*($v_key_re)" "$v_log"
        check "$v_name: nothing changed but its own artefacts" "" \
            "$(foreign_changes "$v_pkg" "$v_origin" "$v_own" "$v_expect" "$v_before" "$v_after" | head -20)"
        ;;
    *)
        echo "not ok - $v_name: unknown expectation '$v_expect' in the case table"
        failures=$((failures + 1))
        ;;
    esac
    check "$v_name: every rule names a label an installed package owns" "" \
        "$(unowned_labels "$v_after" | head -10)"
}

# hand_setup CASE: in $root, the files CASE's package would have installed
# and its maintainer scripts made (hostile-race: its loop runs until
# race_stop); prints its own files, one a line.
hand_setup() {
    case $1 in
    hostile-symlink)
        ln -s ../sbin/victimd "$root/usr/bin/hostile-symlink"
        echo /usr/bin/hostile-symlink
        return
        ;;
    hostile-dirlink)
        ln -s ../sbin "$root/usr/lib/hostile-dirlink"
        echo /usr/lib/hostile-dirlink
        ;;
    hostile-hardlink)
        ln "$root/usr/sbin/victimd" "$root/usr/bin/hostile-hardlink"
        echo /usr/bin/hostile-hardlink
        return
        ;;
    hostile-dir)
        mkdir "$root/usr/lib/hostile-dir"
        echo readme >"$root/usr/lib/hostile-dir/README"
        echo /usr/lib/hostile-dir/README
        ;;
    hostile-fifo)
        mkfifo -m 755 "$root/usr/bin/hostile-fifo"
        echo /usr/bin/hostile-fifo
        return
        ;;
    hostile-ima-symlink)
        mkdir "$root/usr/lib/hostile-ima-symlink"
        ln -s ../../bin/passwd "$root/usr/lib/hostile-ima-symlink/passwd"
        echo /usr/lib/hostile-ima-symlink/passwd
        ;;
    hostile-race)
        mkdir "$root/usr/lib/hostile-race"
        cp "$root/usr/sbin/victimd" "$root/usr/lib/hostile-race/hostile-race"
        cp "$root/usr/sbin/victimd" "$root/usr/bin/hostile-race"
        echo /usr/lib/hostile-race/hostile-race
        echo /usr/bin/hostile-race
        race_start
        return
        ;;
    esac
    printf '#!/bin/sh\necho %s\n' "$1" >"$root/usr/bin/$1"
    chmod 755 "$root/usr/bin/$1"
    case $1 in
    hostile-setuid | hostile-setxid) chmod 4755 "$root/usr/bin/$1" ;;
    hostile-setgid) chmod 2755 "$root/usr/bin/$1" ;;
    esac
    echo "/usr/bin/$1"
}

# The package's own program swapped with a symlink to the victim's and
# back while mssf-policy runs (hostile-race's postinst, here).
race_pid=
race_start() {
    perl -e '
        my ($t, $real) = @ARGV;
        open(my $f, "<", $real) or die;
        my $bytes = do { local $/; <$f> };
        close($f);
        for (;;) {
            unlink("$t.l");
            symlink("../sbin/victimd", "$t.l");
            rename("$t.l", $t);
            open(my $w, ">", "$t.r") or next;
            print $w $bytes;
            close($w);
            chmod(0755, "$t.r");
            rename("$t.r", $t);
        }' "$root/usr/bin/hostile-race" "$root/usr/lib/hostile-race/hostile-race" \
        </dev/null >/dev/null 2>&1 &
    race_pid=$!
    sleep 0.2
}
race_stop() {
    [ -n "$race_pid" ] || return 0
    kill "$race_pid"
    wait "$race_pid" 2>/dev/null
    race_pid=
    rm -f "$root/usr/bin/hostile-race.l" "$root/usr/bin/hostile-race.r"
    # Left a symlink for the removal, as hostile-race's postinst does.
    ln -sfn ../sbin/victimd "$root/usr/bin/hostile-race"
}

hand_teardown() {
    rm -rf "$root/usr/bin/$1" "$root/usr/lib/$1"
}
