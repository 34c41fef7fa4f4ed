/* activation: pending bus activations and the messages queued behind them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"

typedef struct Message Message;
typedef struct ServiceFile ServiceFile;
typedef struct ServiceTable ServiceTable;
typedef struct Activation Activation;

enum {
        ACTIVATION_E_UNKNOWN = 1,       /* no .service file provides the name */
        ACTIVATION_E_LIMIT,             /* max_pending_service_starts reached */
        ACTIVATION_E_QUEUE_FULL,        /* too many messages queued for one start */
        ACTIVATION_E_INVALID,           /* a bad UpdateActivationEnvironment entry */
};

/*
 * One waiter of a pending start: a message to deliver once the name has
 * an owner, or (message NULL) a StartServiceByName call to answer.
 * peer is the requester, opaque here.
 */
typedef struct ActivationQueued {
        void *peer;
        Message *message;               /* (owned reference, nullable) */
        uint32_t start_serial;          /* StartServiceByName: the call's serial */
} ActivationQueued;

/* Bounds on what clients can make the bus hold. */
#define ACTIVATION_MAX_QUEUED 1024u     /* waiters per pending start */
#define ACTIVATION_MAX_ENV 1024u        /* UpdateActivationEnvironment entries */
#define ACTIVATION_MAX_ENV_SIZE 65536u  /* bytes per entry */

int activation_new(size_t max_pending_starts, uint64_t start_timeout_usec, Activation **ret);
Activation *activation_free(Activation *activation);

/* Takes ownership of table (may be NULL); pending starts keep going. */
void activation_set_services(Activation *activation, ServiceTable *table);
const ServiceTable *activation_get_services(const Activation *activation);

/*
 * Queues a waiter for name. Returns 0 and *ret_new_start = true when no
 * start was pending (the caller launches *ret_file now), false when one
 * is (the waiter joins it). The message reference is taken on success.
 */
int activation_enqueue(Activation *activation, const char *name, const ActivationQueued *waiter,
                       uint64_t now_usec, bool *ret_new_start, const ServiceFile **ret_file);

bool activation_is_pending(const Activation *activation, const char *name);
void activation_set_pid(Activation *activation, const char *name, pid_t pid);

/*
 * Ends the pending start of name (its owner appeared, or it failed) and
 * hands over its waiters in the order they came; free them with
 * activation_queued_free(). Returns how many, 0 if none was pending.
 */
size_t activation_take(Activation *activation, const char *name, ActivationQueued **ret_waiters);
void activation_queued_free(ActivationQueued *waiters, size_t n);

/* The pending start launched as pid, or by systemd as unit; NULL if none. */
const char *activation_name_for_pid(const Activation *activation, pid_t pid);
const char *activation_name_for_unit(const Activation *activation, const char *unit);

/* A disconnected peer: its waiters are dropped, nothing is sent for it. */
void activation_forget_peer(Activation *activation, void *peer);

/* UINT64_MAX when nothing is pending. */
uint64_t activation_next_deadline(const Activation *activation);
/* A pending start whose deadline passed, or NULL. */
const char *activation_first_expired(const Activation *activation, uint64_t now_usec);

/*
 * The activation environment (UpdateActivationEnvironment): entries set
 * here override the bus's own environment in started services.
 */
int activation_set_env(Activation *activation, const char *key, const char *value);
/* "KEY=VALUE" strings, NULL-terminated, valid until the next change. */
char *const *activation_get_env(Activation *activation);

DEFINE_CLEANUP(Activation *, activation_free);
