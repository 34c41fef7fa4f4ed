/* A bus in the test process, with raw-socket clients (for the broker's unit tests). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "daemon.h"
#include "loop.h"
#include "message.h"

typedef struct Harness {
        Loop *loop;
        Daemon *daemon;         /* the bus with its activation and its driver, as mssf-broker builds it */
        Bus *bus;               /* daemon->bus */
} Harness;

typedef struct Client {
        int fd;
        char unique_name[32];
        uint32_t serial;
} Client;

/* A bus from config text (a <busconfig> document); limits may be set in it. */
void harness_start(Harness *h, const char *config_text);
void harness_stop(Harness *h);
/* Runs the bus's loop until nothing is ready. */
void harness_pump(Harness *h);

/* Connects, authenticates, and (if hello) says Hello, eating NameAcquired. */
void client_connect(Harness *h, Client *c, bool unix_fds, bool hello);
void client_close(Client *c);

/* Builds and sends a method call; returns its serial. */
uint32_t client_call(Harness *h, Client *c, const char *destination, const char *path,
                     const char *interface, const char *member, const char *signature, ...);
/* Builds and sends a broadcast signal (basic arguments, descriptors too); returns its serial. */
uint32_t client_signal(Harness *h, Client *c, const char *path, const char *interface, const char *member,
                       const char *signature, ...);
/* Sends a finished message. */
void client_send(Harness *h, Client *c, Message *m, const int *fds, size_t n_fds);
/* The next message for c, or NULL if nothing arrived after pumping. */
Message *client_recv(Harness *h, Client *c);
/* Skips signals until a reply/error to serial arrives (NULL: none). */
Message *client_wait_reply(Harness *h, Client *c, uint32_t serial);
/* Whether the bus hung up on c. */
bool client_is_disconnected(Harness *h, Client *c);
/* AddMatch and wait for its reply. */
void client_add_match(Harness *h, Client *c, const char *rule);

