/* The key service on the bus: org.mssf.Keys1 at /org/mssf/Keys1 (sd-bus). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "keyd-error.h"
#include "service.h"

#define KEYD_BUS_NAME "org.mssf.Keys1"
#define KEYD_BUS_PATH "/org/mssf/Keys1"
#define KEYD_BUS_INTERFACE "org.mssf.Keys1"

/* Labels learnt from the bus, by unique name (never reused on one bus, so never stale). */
#define KEYD_LABEL_CACHE_SIZE 128

typedef struct KeydLabelEntry {
        char unique_name[256];
        char label[256];        /* "" for a connection without a label */
} KeydLabelEntry;

typedef struct KeydBus {
        sd_bus *bus;                    /* (borrowed) */
        Service *service;               /* (borrowed) */
        uint64_t tpm_commands;          /* what the start sent; nothing is sent after it */
        bool mediated;                  /* the bus gives labels and answers CheckToken */
        KeydError mediation;            /* why not, when not */
        KeydLabelEntry labels[KEYD_LABEL_CACHE_SIZE];
        unsigned next_label;            /* round-robin replacement */
        sd_bus_slot *slot;              /* (owned) the object */
} KeydBus;

/*
 * Asks the bus whether it mediates (it gives this connection's Smack
 * label and answers org.mssf.Broker1.CheckToken about it), then
 * publishes the object. Without mediation every call is refused with
 * Unmediated: a key keyed by a label the bus does not vouch for, or
 * guarded by tokens nobody checks, protects nothing. 0 or -errno.
 */
int keyd_bus_start(KeydBus *k, sd_bus *bus, Service *service, uint64_t tpm_commands);
void keyd_bus_stop(KeydBus *k);
