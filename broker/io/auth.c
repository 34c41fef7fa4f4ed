/*
 * SASL for D-Bus, server side (the "Authentication Protocol" chapter of
 * the specification), as a pure function of input bytes: no I/O, no
 * clock, no logging, so it can be tested line by line.
 *
 * Trust: every byte comes from an unauthenticated peer. The only identity
 * we accept is the kernel's (SO_PEERCRED uid read at accept): EXTERNAL
 * with no authorization identity means "the uid the kernel saw", and with
 * one it must name exactly that uid. ANONYMOUS is offered only when the
 * configuration says <allow_anonymous/>. Lines are bounded
 * (AUTH_LINE_MAX) and so are failed attempts (AUTH_FAILURES_MAX); the
 * wall-clock bound (auth_timeout) is the connection's job.
 *
 * States follow the specification: WaitingForAuth, WaitingForData (after
 * "AUTH EXTERNAL" without initial response), WaitingForBegin (after OK).
 * BEGIN anywhere but WaitingForBegin is a protocol violation.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "auth.h"

typedef enum AuthReply {
        AUTH_REPLY_NONE,
        AUTH_REPLY_REJECTED,
        AUTH_REPLY_OK,
        AUTH_REPLY_DATA,
        AUTH_REPLY_AGREE_UNIX_FD,
        AUTH_REPLY_ERROR,
} AuthReply;

void auth_init(Auth *auth, uid_t peer_uid, unsigned mechanisms,
               bool unix_fd_possible, const char *guid) {
        *auth = (Auth) {
                .state = AUTH_STATE_WAIT_NUL,
                .peer_uid = peer_uid,
                .mechanisms = mechanisms,
                .unix_fd_possible = unix_fd_possible,
                .guid = guid,
        };
}

unsigned auth_mechanisms_from_names(const char *const *names, size_t n_names,
                                    bool allow_anonymous) {
        unsigned mechanisms = 0;

        if (n_names == 0)
                mechanisms = AUTH_MECH_EXTERNAL | AUTH_MECH_ANONYMOUS;
        for (size_t i = 0; i < n_names; i++) {
                if (strcmp(names[i], "EXTERNAL") == 0)
                        mechanisms |= AUTH_MECH_EXTERNAL;
                else if (strcmp(names[i], "ANONYMOUS") == 0)
                        mechanisms |= AUTH_MECH_ANONYMOUS;
        }
        if (!allow_anonymous)
                mechanisms &= ~AUTH_MECH_ANONYMOUS;
        return mechanisms;
}

/* Decode hex into out (NUL-terminated); false on odd length or bad digits. */
static bool auth_unhex(const char *hex, size_t len, char *out, size_t out_size) {
        if (len % 2 != 0 || len / 2 >= out_size)
                return false;
        for (size_t i = 0; i < len; i += 2) {
                int hi = hex_digit_value(hex[i]), lo = hex_digit_value(hex[i + 1]);

                if (hi < 0 || lo < 0)
                        return false;
                out[i / 2] = (char) (hi << 4 | lo);
        }
        out[len / 2] = 0;
        return true;
}

/* EXTERNAL: an empty identity means "as the kernel says"; else it must match. */
static AuthReply auth_external(Auth *auth, const char *hex, size_t len) {
        char identity[32];
        char *end;
        unsigned long uid;

        /* Whatever happens next, a failed attempt starts over from AUTH. */
        auth->state = AUTH_STATE_WAIT_AUTH;
        if (!auth_unhex(hex, len, identity, sizeof(identity)))
                return AUTH_REPLY_ERROR;
        if (identity[0] == 0) {
                auth->state = AUTH_STATE_WAIT_BEGIN;
                return AUTH_REPLY_OK;
        }
        if (!isdigit((unsigned char) identity[0]))
                return AUTH_REPLY_REJECTED;
        errno = 0;
        uid = strtoul(identity, &end, 10);
        if (errno != 0 || *end != 0 || uid != (unsigned long) auth->peer_uid)
                return AUTH_REPLY_REJECTED;
        auth->state = AUTH_STATE_WAIT_BEGIN;
        return AUTH_REPLY_OK;
}

/* "AUTH [mechanism [initial-response]]" */
static AuthReply auth_command_auth(Auth *auth, const char *args, size_t len) {
        const char *space = memchr(args, ' ', len);
        size_t mech_len = space ? (size_t) (space - args) : len;
        const char *response = space ? space + 1 : NULL;
        size_t response_len = space ? len - mech_len - 1 : 0;

        if (mech_len == 8 && memcmp(args, "EXTERNAL", 8) == 0 &&
            (auth->mechanisms & AUTH_MECH_EXTERNAL)) {
                if (!response) {
                        auth->state = AUTH_STATE_WAIT_DATA;
                        return AUTH_REPLY_DATA;
                }
                return auth_external(auth, response, response_len);
        }
        if (mech_len == 9 && memcmp(args, "ANONYMOUS", 9) == 0 &&
            (auth->mechanisms & AUTH_MECH_ANONYMOUS)) {
                /* The optional trace string is ignored, as dbus-daemon does. */
                auth->anonymous = true;
                auth->state = AUTH_STATE_WAIT_BEGIN;
                return AUTH_REPLY_OK;
        }
        return AUTH_REPLY_REJECTED;
}

static bool auth_is(const char *line, size_t len, const char *command, const char **ret_args,
                    size_t *ret_args_len) {
        size_t n = strlen(command);

        if (len < n || memcmp(line, command, n) != 0)
                return false;
        if (len == n) {
                *ret_args = NULL;
                *ret_args_len = 0;
                return true;
        }
        if (line[n] != ' ')
                return false;
        *ret_args = line + n + 1;
        *ret_args_len = len - n - 1;
        return true;
}

/* One complete line without its "\r\n"; returns the reply, or AUTH_E_FAILED via *ret_fatal. */
static AuthReply auth_line(Auth *auth, const char *line, size_t len, bool *ret_fatal) {
        const char *args;
        size_t args_len;

        *ret_fatal = false;
        if (auth_is(line, len, "BEGIN", &args, &args_len)) {
                if (auth->state != AUTH_STATE_WAIT_BEGIN || args) {
                        *ret_fatal = true;
                        return AUTH_REPLY_NONE;
                }
                auth->state = AUTH_STATE_DONE;
                return AUTH_REPLY_NONE;
        }
        if (auth_is(line, len, "CANCEL", &args, &args_len) ||
            auth_is(line, len, "ERROR", &args, &args_len)) {
                auth->state = AUTH_STATE_WAIT_AUTH;
                auth->anonymous = false;
                return AUTH_REPLY_REJECTED;
        }
        switch (auth->state) {
        case AUTH_STATE_WAIT_AUTH:
                if (auth_is(line, len, "AUTH", &args, &args_len))
                        return args ? auth_command_auth(auth, args, args_len) : AUTH_REPLY_REJECTED;
                return AUTH_REPLY_ERROR;
        case AUTH_STATE_WAIT_DATA:
                if (auth_is(line, len, "DATA", &args, &args_len))
                        return auth_external(auth, args ? args : "", args_len);
                return AUTH_REPLY_ERROR;
        case AUTH_STATE_WAIT_BEGIN:
                if (auth_is(line, len, "NEGOTIATE_UNIX_FD", &args, &args_len) && !args) {
                        if (!auth->unix_fd_possible)
                                return AUTH_REPLY_ERROR;
                        auth->unix_fd = true;
                        return AUTH_REPLY_AGREE_UNIX_FD;
                }
                return AUTH_REPLY_ERROR;
        default:
                *ret_fatal = true;
                return AUTH_REPLY_NONE;
        }
}

static size_t auth_write_reply(const Auth *auth, AuthReply reply, char *out, size_t size) {
        int r = 0;

        switch (reply) {
        case AUTH_REPLY_NONE:
                return 0;
        case AUTH_REPLY_REJECTED:
                r = snprintf(out, size, "REJECTED%s%s\r\n",
                             (auth->mechanisms & AUTH_MECH_EXTERNAL) ? " EXTERNAL" : "",
                             (auth->mechanisms & AUTH_MECH_ANONYMOUS) ? " ANONYMOUS" : "");
                break;
        case AUTH_REPLY_OK:
                r = snprintf(out, size, "OK %s\r\n", auth->guid);
                break;
        case AUTH_REPLY_DATA:
                r = snprintf(out, size, "DATA\r\n");
                break;
        case AUTH_REPLY_AGREE_UNIX_FD:
                r = snprintf(out, size, "AGREE_UNIX_FD\r\n");
                break;
        case AUTH_REPLY_ERROR:
                r = snprintf(out, size, "ERROR \"Unknown or unexpected command\"\r\n");
                break;
        }
        return r > 0 && (size_t) r < size ? (size_t) r : 0;
}

int auth_feed(Auth *auth, const uint8_t *data, size_t n, size_t *ret_consumed,
              char *out, size_t out_size, size_t *ret_out_len) {
        size_t consumed = 0, out_len = 0;
        int r = AUTH_E_MORE;

        if (auth->state == AUTH_STATE_WAIT_NUL && n > 0) {
                if (data[0] != 0) {
                        r = AUTH_E_FAILED;
                        goto out;
                }
                consumed = 1;
                auth->state = AUTH_STATE_WAIT_AUTH;
        }
        while (auth->state != AUTH_STATE_DONE && out_size - out_len >= AUTH_OUT_MIN / 2) {
                const uint8_t *nl = memchr(data + consumed, '\n', n - consumed);
                size_t len;
                AuthReply reply;
                bool fatal;

                if (!nl) {
                        if (n - consumed >= AUTH_LINE_MAX)
                                r = AUTH_E_FAILED;
                        break;
                }
                len = (size_t) (nl - (data + consumed));
                if (len == 0 || data[consumed + len - 1] != '\r' || len > AUTH_LINE_MAX ||
                    memchr(data + consumed, 0, len)) {
                        r = AUTH_E_FAILED;
                        break;
                }
                reply = auth_line(auth, (const char *) data + consumed, len - 1, &fatal);
                consumed += len + 1;
                if (fatal) {
                        r = AUTH_E_FAILED;
                        break;
                }
                if ((reply == AUTH_REPLY_REJECTED || reply == AUTH_REPLY_ERROR) &&
                    ++auth->n_failures > AUTH_FAILURES_MAX) {
                        r = AUTH_E_FAILED;
                        break;
                }
                out_len += auth_write_reply(auth, reply, out + out_len, out_size - out_len);
        }
        if (auth->state == AUTH_STATE_DONE && r != AUTH_E_FAILED)
                r = AUTH_E_DONE;
out:
        *ret_consumed = consumed;
        *ret_out_len = out_len;
        return r;
}
