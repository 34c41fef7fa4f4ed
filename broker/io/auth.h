/* The server side of the D-Bus SASL handshake, as a pure state machine. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define AUTH_LINE_MAX 16384
#define AUTH_FAILURES_MAX 8
#define AUTH_OUT_MIN 256        /* auth_feed() needs this much output space */

enum {
        AUTH_MECH_EXTERNAL = 1u << 0,
        AUTH_MECH_ANONYMOUS = 1u << 1,
};

/* Expected outcomes of auth_feed(). */
enum {
        AUTH_E_MORE = 0,        /* need more input (or output space) */
        AUTH_E_DONE = 1,        /* BEGIN received: the bytes after it are D-Bus messages */
        AUTH_E_FAILED = 2,      /* protocol violation or too many failures: disconnect */
};

typedef enum AuthState {
        AUTH_STATE_WAIT_NUL,
        AUTH_STATE_WAIT_AUTH,
        AUTH_STATE_WAIT_DATA,
        AUTH_STATE_WAIT_BEGIN,
        AUTH_STATE_DONE,
} AuthState;

typedef struct Auth {
        AuthState state;
        uid_t peer_uid;
        unsigned mechanisms;    /* AUTH_MECH_* the server offers */
        bool unix_fd_possible;  /* the transport can pass fds */
        const char *guid;       /* (not owned) 32 hex digits */
        unsigned n_failures;
        bool unix_fd;           /* NEGOTIATE_UNIX_FD agreed */
        bool anonymous;         /* authenticated by ANONYMOUS */
} Auth;

void auth_init(Auth *auth, uid_t peer_uid, unsigned mechanisms,
               bool unix_fd_possible, const char *guid);

/*
 * Consume input: the NUL byte, then complete "\r\n"-terminated lines.
 * *ret_consumed is how many bytes of data were used, reply text for the
 * client is appended to out (out_size must be >= AUTH_OUT_MIN) and its
 * length stored in *ret_out_len. Returns AUTH_E_MORE, AUTH_E_DONE or
 * AUTH_E_FAILED.
 */
int auth_feed(Auth *auth, const uint8_t *data, size_t n, size_t *ret_consumed,
              char *out, size_t out_size, size_t *ret_out_len);

/* Parse the <auth> names of the configuration into AUTH_MECH_* bits. */
unsigned auth_mechanisms_from_names(const char *const *names, size_t n_names,
                                    bool allow_anonymous);
