# tests/rpm/packages.sh: building test packages (sourced after lib.sh).
#
# pkg NAME VERSION MANIFEST BINARY...: NAME-VERSION ships each BINARY (a
# small script that prints the label it runs with) and MANIFEST as its
# manifest through %mssf_manifest (checked at build time), or, with
# RAW=1, copied in as it is (what a stranger's rpmbuild does), or none
# ("-"). x_install, x_files and x_scripts (spec text) are added to the
# %install section, the %files list and after it, and reset.
x_install= x_files= x_scripts= RAW=0

pkg() {
    name=$1 version=$2 manifest=$3
    shift 3
    spec=$work/top/SPECS/$name-$version.spec
    [ -f "$work/src/prog" ] || printf '#!/bin/sh\ncat /proc/self/attr/current 2>/dev/null || echo unlabelled\necho\n' \
        >"$work/src/prog"
    {
        spec_head "$name" "$version"
        echo '%install'
        for binary in "$@"; do
            echo "install -D -m 755 $work/src/prog %{buildroot}$binary"
        done
        if [ "$manifest" != - ] && [ "$RAW" = 1 ]; then
            echo "install -D -m 644 $manifest %{buildroot}/usr/share/mssf/aegis/$name.aegis"
        elif [ "$manifest" != - ]; then
            echo "%mssf_manifest $manifest"
        fi
        printf '%s\n' "$x_install"
        echo '%files'
        for binary in "$@"; do
            echo "$binary"
        done
        [ "$manifest" = - ] || echo "/usr/share/mssf/aegis/$name.aegis"
        printf '%s\n' "$x_files" "$x_scripts"
    } >"$spec"
    build "$spec"
    x_install= x_files= x_scripts= RAW=0
}

rpmfile() {
    echo "$work/rpms/$1-$2-1.noarch.rpm"
}

# aegis NAME: $work/src/NAME.aegis from stdin; prints its path.
aegis() {
    cat >"$work/src/$1.aegis"
    echo "$work/src/$1.aegis"
}
