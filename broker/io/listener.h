/* Listening sockets: bind every configured address, accept connections. */
#pragma once

#include <stdbool.h>

#include "loop.h"
#include "macro.h"

typedef struct BusAddress BusAddress;
typedef struct Listener Listener;

/* Called with each accepted, non-blocking, close-on-exec fd, which it owns. */
typedef int (*ListenerAcceptFn)(Listener *listener, int fd, void *userdata);

struct Listener {
        Loop *loop;             /* (not owned) */
        int fd;                 /* (owned) */
        LoopSource source;
        LoopTimer retry;        /* out of fds: accepting waits a moment */
        bool paused;            /* listener_set_accepting(false): not accepting */
        char *path;             /* (owned, nullable) bound socket path, unlinked on free */
        bool abstract;
        char *address;          /* (owned) connectable address with guid */
        ListenerAcceptFn fn;
        void *userdata;
        Listener *next;         /* the bus's list (not owned) */
};

/* Binds address (not systemd:) and starts accepting. */
int listener_new(Loop *loop, const BusAddress *address, const char *guid,
                 ListenerAcceptFn fn, void *userdata, Listener **ret);
/* Accepts on an already listening socket fd (systemd: activation); takes fd. */
int listener_new_fd(Loop *loop, int fd, const char *guid,
                    ListenerAcceptFn fn, void *userdata, Listener **ret);
Listener *listener_free(Listener *listener);
/*
 * Stops (false) or resumes (true) accepting: new clients wait in the
 * kernel's backlog meanwhile. A batch of accepts stops at once.
 */
void listener_set_accepting(Listener *listener, bool accepting);

DEFINE_CLEANUP(Listener *, listener_free)
