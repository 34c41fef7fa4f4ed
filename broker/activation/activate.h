/*
 * activate: bus activation in the daemon (spawned Exec= or systemd), over
 * the bookkeeping of this room (activation.h, service-file.h): who starts
 * what, and the calls waiting for it (broker/activation/, README.md).
 *
 * Direction: activation calls the bus (bus.h, and dispatch.h to hand it
 * messages) and the rooms below it; it knows nothing of the driver, which
 * calls it (StartServiceByName, UpdateActivationEnvironment, a new owner),
 * nor of the daemon, which sets it up and gives the bus its hooks.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "loop.h"

typedef struct Activation Activation;
typedef struct Bus Bus;
typedef struct Message Message;
typedef struct Peer Peer;

#define BUS_SYSTEMD_NAME "org.freedesktop.systemd1"

/* A service the bus spawned, until it is reaped. */
typedef struct BusActivationChild {
        pid_t pid;
        char *name;                     /* (owned) the name it was started for */
} BusActivationChild;

/* A message of the bus's waiting for systemd to join: an ActivationRequest or SetEnvironment. */
typedef struct BusActivationRequest {
        char *name;                     /* (owned, nullable) the pending start it is for */
        Message *message;               /* (owned ref) shown to monitors already */
} BusActivationRequest;

/* What the bus keeps for activation (bus->activation, opaque to the bus). */
typedef struct BusActivation {
        Activation *state;              /* (owned) table, pending starts, environment */
        LoopTimer timer;                /* the earliest start deadline */
        bool systemd;                   /* --systemd-activation */
        BusActivationChild *children;   /* (owned) */
        size_t n_children;
        BusActivationRequest *backlog;  /* (owned) */
        size_t n_backlog;
        char **warnings;                /* (owned) the last load's skipped files, logged once */
} BusActivation;

/*
 * Sets up bus->activation from bus->config (limits, servicedirs); logs
 * skipped files. On failure bus_activation_deinit() frees what was set up.
 */
int bus_activation_init(Bus *bus);
/* Frees bus->activation (none: nothing to do); its children keep running. */
void bus_activation_deinit(Bus *bus);
/* After a reload: the servicedirs again (pending starts go on). */
int bus_activation_reload(Bus *bus);

/*
 * A message for a name nobody owns (routing): judged, then queued behind
 * the name's start (started now if none is pending); or answered
 * ServiceUnknown / NameHasNoOwner / AccessDenied / LimitsExceeded.
 */
int bus_activate(Bus *bus, Peer *sender, Message *m, const char *destination);
/* Whether a .service file provides name, or its start is pending. */
bool bus_activation_knows(Bus *bus, const char *name);
/*
 * StartServiceByName: answers ALREADY_RUNNING, or queues call's answer
 * behind the start. 0 once answered or queued, a positive BusError with
 * the text in error (error_size bytes), or a negative errno.
 */
int bus_activation_start(Bus *bus, Peer *peer, Message *call, const char *name, char *error,
                         size_t error_size);
/* name got an owner: its waiters are delivered, in order. */
void bus_activation_name_acquired(Bus *bus, const char *name);
/* A peer left: its waiters are dropped. */
void bus_activation_forget_peer(Bus *bus, Peer *peer);
/* SIGCHLD: reaps children; one that fails (status not 0, a signal) before its name appears fails the start. */
void bus_activation_reap(Bus *bus);
/*
 * UpdateActivationEnvironment (call, its a{ss} checked already), with
 * --systemd-activation: the same variables go to systemd's
 * SetEnvironment, as dbus-daemon forwards them (held until systemd joins).
 * 0, a positive BusError with the text in error, or a negative errno.
 */
int bus_activation_systemd_set_environment(Bus *bus, Message *call, char *error, size_t error_size);
/* org.freedesktop.systemd1.Activator.ActivationFailure, sent to the driver. */
int bus_activation_systemd_failure(Bus *bus, Peer *sender, Message *m);
