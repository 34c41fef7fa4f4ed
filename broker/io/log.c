/*
 * The daemon's only way to report events to an administrator.
 *
 * One target is chosen at start-up from the command line and the bus
 * configuration (dbus-daemon's --syslog, --syslog-only, --nosyslog and
 * <syslog/>): stderr, the system log, or both. When the journal is there,
 * "system log" means a journal entry with structured fields, so an event
 * such as a denial can be found by field; else syslog(3). The entry is
 * sent in the journal's native protocol (systemd.io's "Native Journal
 * Protocol": one datagram of KEY=value lines, a value with a newline
 * length-prefixed) rather than with libsystemd's sd_journal_sendv(), for
 * the memory service-env.c measures; an entry the socket will not take is
 * written to syslog(3) instead, never dropped silently.
 *
 * Callers log once per event, never per D-Bus call in normal operation.
 * Library-like modules (wire, registry, mediate, auth) never call this;
 * they return codes and the glue decides what is worth a line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>


#include "log.h"

#define LOG_FIELDS_MAX 16

static LogTarget log_target = LOG_TARGET_STDERR;
static int log_max_priority = LOG_INFO;
static int log_journal = -1;    /* -1: not probed yet */
static bool log_syslog_open;

void log_set_target(LogTarget target) {
        log_target = target;
}

LogTarget log_get_target(void) {
        return log_target;
}

void log_set_max_priority(int priority) {
        log_max_priority = priority;
}

static bool log_have_journal(void) {
        if (log_journal < 0)
                log_journal = access("/run/systemd/journal/socket", F_OK) == 0;
        return log_journal;
}

/*
 * One "KEY=value" field in the native protocol: as it is, or, when the
 * value holds a newline, "KEY\n" + its length (64-bit little endian) +
 * value + "\n". Fields come from the caller as "KEY=value" (log.h).
 */
static void log_journal_field(FILE *out, const char *field) {
        const char *eq = strchr(field, '=');
        uint64_t size;

        if (!eq || eq == field)
                return;
        if (!strchr(eq + 1, '\n')) {
                fprintf(out, "%s\n", field);
                return;
        }
        size = strlen(eq + 1);
        fwrite(field, 1, (size_t) (eq - field), out);
        fputc('\n', out);
        for (int i = 0; i < 8; i++)
                fputc((int) ((size >> (8 * i)) & 0xff), out);
        fwrite(eq + 1, 1, (size_t) size, out);
        fputc('\n', out);
}

static int log_journal_fd = -1;

/* 0 when the journal took the entry, else -errno (the caller falls back). */
static int log_to_journal(int priority, const char *const *fields, const char *text) {
        static const struct sockaddr_un address = { .sun_family = AF_UNIX,
                                                    .sun_path = "/run/systemd/journal/socket" };
        char message[sizeof("MESSAGE=") + 2048], prio[sizeof("PRIORITY=") + 4];
        char *entry = NULL;
        size_t size = 0;
        ssize_t sent;
        FILE *out;

        if (log_journal_fd < 0)
                log_journal_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (log_journal_fd < 0)
                return -errno;
        out = open_memstream(&entry, &size);
        if (!out)
                return -ENOMEM;
        snprintf(message, sizeof(message), "MESSAGE=%s", text);
        snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
        log_journal_field(out, message);
        log_journal_field(out, prio);
        log_journal_field(out, "SYSLOG_IDENTIFIER=mssf-broker");
        for (size_t i = 0; fields && fields[i] && i < LOG_FIELDS_MAX; i++)
                log_journal_field(out, fields[i]);
        if (fclose(out) != 0) {
                free(entry);
                return -ENOMEM;
        }
        sent = sendto(log_journal_fd, entry, size, MSG_NOSIGNAL, (const struct sockaddr *) &address,
                      sizeof(address));
        free(entry);
        return sent < 0 ? -errno : 0;
}

static void log_to_syslog(int priority, const char *text) {
        if (!log_syslog_open) {
                openlog("mssf-broker", LOG_PID, LOG_DAEMON);
                log_syslog_open = true;
        }
        syslog(priority, "%s", text);
}

int log_fields(int priority, int error, const char *const *fields, const char *format, ...) {
        char text[2048];
        int saved_errno = errno;
        va_list ap;
        int r;

        error = error < 0 ? -error : error;
        if (priority > log_max_priority)
                goto out;

        va_start(ap, format);
        r = vsnprintf(text, sizeof(text), format, ap);
        va_end(ap);
        if (error && r >= 0 && (size_t) r < sizeof(text))
                snprintf(text + r, sizeof(text) - r, ": %s", strerror(error));

        if (log_target != LOG_TARGET_SYSTEM)
                fprintf(stderr, "mssf-broker: %s\n", text);
        if (log_target != LOG_TARGET_STDERR) {
                if (!log_have_journal() || log_to_journal(priority, fields, text) < 0)
                        log_to_syslog(priority, text);
        }
out:
        errno = saved_errno;
        return -error;
}
