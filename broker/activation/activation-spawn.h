/* activation-spawn: starts a service's Exec= directly (no systemd). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct ServiceFile ServiceFile;

enum {
        ACTIVATION_SPAWN_E_EXEC = 1,    /* the program could not be started: see the text */
        ACTIVATION_SPAWN_E_USER,        /* User= names nobody, or switching to it failed */
};

typedef struct ActivationSpawn {
        const char *bus_address;        /* for DBUS_STARTER_ADDRESS */
        const char *bus_type;           /* "system" or "session": DBUS_STARTER_BUS_TYPE */
        char *const *env;               /* (nullable) overrides, "KEY=VALUE" */
        bool switch_user;               /* run as User= (the system bus, started as root) */
} ActivationSpawn;

/*
 * Forks and execs file->argv. The child gets the bus's environment with
 * spawn->env on top and DBUS_STARTER_ADDRESS / DBUS_STARTER_BUS_TYPE (and
 * DBUS_SYSTEM_BUS_ADDRESS or DBUS_SESSION_BUS_ADDRESS) set, a new session,
 * default signal handling, no inherited descriptors but 0-2 (stdin is
 * /dev/null). Returns 0 with *ret_pid once exec succeeded, a positive
 * ACTIVATION_SPAWN_E_* with a message in err when it did not, or a
 * negative errno.
 */
int activation_spawn(const ServiceFile *file, const ActivationSpawn *spawn, pid_t *ret_pid,
                     char *err, size_t err_size);
