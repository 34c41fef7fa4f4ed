/* A private reference dbus-daemon for the differential tests. */
#pragma once

#include <dbus/dbus.h>
#include <stdbool.h>
#include <sys/types.h>

#define REFERENCE_DAEMON "/usr/bin/dbus-daemon"

typedef struct ReferenceDaemon {
        pid_t pid;
        char dir[64];
        char config[128];
        char address[512];
} ReferenceDaemon;

/* Whether the reference daemon is installed (tests exit 77 otherwise). */
bool reference_daemon_available(void);
/*
 * Starts dbus-daemon with a permissive session configuration (every name
 * ownable, max_names_per_connection and max_match_rules as given).
 */
int reference_daemon_start(ReferenceDaemon *daemon, int max_names, int max_match_rules);
void reference_daemon_stop(ReferenceDaemon *daemon);
/* A private, registered (Hello) connection; NULL on failure. */
DBusConnection *reference_daemon_connect(const ReferenceDaemon *daemon);
void reference_daemon_disconnect(DBusConnection *conn);
