/* Plain-words rendering of D-Bus values and errors for mssf-demo-app. */
#pragma once

#include <gio/gio.h>

/*
 * value as a person reads it: strings and object paths bare at the top
 * level and quoted inside containers, numbers in decimal, bytes as
 * numbers, variants unwrapped, tuples (a, b), arrays [a, b], dicts
 * {key: value}.
 */
char *format_value(GVariant *value);

/* The members of a tuple, each with format_value(), joined with ", ". */
char *format_tuple_members(GVariant *tuple);

/*
 * The reply of a call in one line: "no values", the values, or for a
 * single array of containers its size ("3 items"); ret_lines is then set to
 * one formatted element per entry (NULL-terminated), else to NULL.
 */
char *format_reply(GVariant *reply, char ***ret_lines);

/*
 * Whether error is the bus (or a service) refusing access, and its D-Bus
 * error name and message: "refused: NAME: TEXT" or "failed: NAME: TEXT"
 * ("failed: TEXT" for local errors).
 */
char *format_error(const GError *error);
