#!/bin/sh
# libmssf as a service author gets it: installed (meson install into a
# DESTDIR), found with pkg-config, a program including both headers built
# with "cc $(pkg-config --cflags --libs libmssf)" against the installed
# files only, and run (an argument refused before any bus is asked).
#   test-pkgconfig.sh BUILD_DIR [CFLAGS]   (CFLAGS: the build's sanitizers, if any)
set -eu
build=$1
extra=${2:-}
dest=$(mktemp -d /tmp/libmssf-pc-XXXXXX)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
pc=$(dirname "$(find "$dest" -name libmssf.pc | head -n 1)")
[ -d "$pc" ] || { echo "not ok - libmssf.pc is not installed"; exit 1; }
cat > "$dest/service.c" <<'EOC'
#include <errno.h>
#include <stdio.h>
#include <mssf/mssf-gio.h>
#include <mssf/mssf-sd-bus.h>

int main(void) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = mssf_sd_bus_check_token(NULL, ":1.1", "work", &error);

        printf("%d %s %d\n", r, error.name, MSSF_ERROR_NOT_SUPPORTED);
        sd_bus_error_free(&error);
        return r == -EINVAL ? 0 : 1;
}
EOC
# The .pc as installed, its prefix moved into the DESTDIR (gio-2.0 and libsystemd are the system's).
mkdir "$dest/pc"
prefix=$(sed -n 's/^prefix=//p' "$pc/libmssf.pc")
sed "s#^prefix=.*#prefix=$dest$prefix#" "$pc/libmssf.pc" > "$dest/pc/libmssf.pc"
flags=$(PKG_CONFIG_PATH=$dest/pc pkg-config --cflags --libs libmssf)
case $flags in
*"$dest"*) ;;
*) echo "not ok - pkg-config does not point into the installed tree: $flags"; exit 1 ;;
esac
# shellcheck disable=SC2086 # flags are words
cc -Wall -Wextra -Werror $extra -o "$dest/service" "$dest/service.c" $flags
libdir=$(PKG_CONFIG_PATH=$dest/pc pkg-config --variable=libdir libmssf)
out=$(LD_LIBRARY_PATH=$libdir "$dest/service")
[ "$out" = "-22 org.freedesktop.DBus.Error.InvalidArgs 7" ] || { echo "not ok - the program said: $out"; exit 1; }
echo "ok - built with pkg-config against the installed libmssf, and ran: $out"
