/* Validity of the strings a compiled policy holds: D-Bus names, paths, Smack labels. */
#pragma once

#include <stdbool.h>

/*
 * Each takes a NUL-terminated string and answers whether it is valid for
 * its role; none allocates. The reader checks every string it will hand
 * out with these, and the builder refuses input that fails them, so a
 * file the builder wrote always loads. (Own copies rather than
 * broker/wire's, so that the installed reader library stands alone.)
 */

/* "org.example.Foo": 2+ elements of [A-Za-z0-9_-], none starting with a digit, <= 255. */
bool db_name_is_bus_name(const char *s);
/* 2+ elements of [A-Za-z0-9_], none starting with a digit, <= 255. */
bool db_name_is_interface(const char *s);
/* One element of [A-Za-z0-9_], not starting with a digit, <= 255. */
bool db_name_is_member(const char *s);
/* "/" or "/a/b" with elements of [A-Za-z0-9_], no empty element. */
bool db_name_is_object_path(const char *s);
/*
 * A Smack label as the kernel accepts it: 1-255 bytes of printable ASCII
 * other than '/', '"', '\\' and '\'', not starting with '-'.
 */
bool db_name_is_label(const char *s);
/* A label a package may have: not a special label (_ * ^ @), and no "::" (it separates package and token). */
bool db_name_is_package_label(const char *s);
/* Well-formed UTF-8 (shortest form, no surrogates, <= U+10FFFF). */
bool db_name_is_utf8(const char *s);
