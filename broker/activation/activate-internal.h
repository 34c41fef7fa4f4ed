/* activate-internal: what activate.c and activate-systemd.c share. */
#pragma once

#include "macro.h"

typedef struct Bus Bus;
typedef struct Peer Peer;

#define ACTIVATE_ERROR_FAILED "org.freedesktop.DBus.Error.Failed"

/* Ends name's start: every waiter gets error_name with the text (name is copied first). */
_printf_(4, 5) void activate_fail(Bus *bus, const char *name, const char *error_name, const char *format, ...);

/* Asks systemd to start unit for name, or holds the request until systemd joins. */
int activate_via_systemd(Bus *bus, const char *name, const char *unit);
/* systemd got its name: what was held back goes out, in order (requests only for starts still pending). */
void activate_flush_backlog(Bus *bus, Peer *systemd);
