/* Validation of D-Bus names, paths, signatures and strings (pure functions). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Every function takes a pointer and a length (the string need not be
 * NUL-terminated, and an embedded NUL makes it invalid) and answers
 * whether it is valid per the D-Bus specification. None allocates, none
 * has side effects; all accept any input, including s == NULL when n == 0.
 */

/* Maximum lengths from the specification. */
#define VALIDATE_NAME_MAX 255           /* bus, interface, member, error names */
#define VALIDATE_SIGNATURE_MAX 255
#define VALIDATE_DEPTH_MAX 32           /* arrays, and separately structs */

/* A unique (":1.42") or well-known ("org.example.Foo") bus name. */
bool validate_bus_name(const char *s, size_t n);
/* ":" followed by two or more dot-separated elements of [A-Za-z0-9_-]. */
bool validate_unique_name(const char *s, size_t n);
/* Two or more elements of [A-Za-z0-9_-], not starting with a digit. */
bool validate_well_known_name(const char *s, size_t n);
/* Two or more elements of [A-Za-z0-9_], not starting with a digit. */
bool validate_interface_name(const char *s, size_t n);
/* One element of [A-Za-z0-9_], not starting with a digit. */
bool validate_member_name(const char *s, size_t n);
/* Same rules as an interface name. */
bool validate_error_name(const char *s, size_t n);
/* "/" or "/elem/elem" with elements of [A-Za-z0-9_], no trailing "/". */
bool validate_object_path(const char *s, size_t n);
/*
 * Zero or more complete types, at most 255 bytes, at most 32 nested
 * arrays and 32 nested structs (dict entries count as structs), dict
 * entries only as array elements with a basic key, no empty structs.
 */
bool validate_signature(const char *s, size_t n);
/* Exactly one complete type (the rules of validate_signature apply). */
bool validate_single_complete_type(const char *s, size_t n);
/*
 * Well-formed UTF-8 (shortest form, no surrogates, at most U+10FFFF) with
 * no NUL byte. Noncharacters are accepted: the specification and libdbus
 * (since 1.5.x) allow them.
 */
bool validate_utf8(const char *s, size_t n);

/*
 * Helpers for the signature walkers of the message code: the length of
 * the single complete type starting at s, or of the dict entry "{..}"
 * starting there (0 if there is none, or it is malformed). Stops at a
 * NUL, so n may overstate the length of a NUL-terminated string.
 */
size_t validate_complete_type_length(const char *s, size_t n);
/* Whether c is the type code of a basic (non-container) type. */
bool validate_is_basic_type(char c);
