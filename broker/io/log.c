/*
 * The daemon's only way to report events to an administrator.
 *
 * One target is chosen at start-up from the command line and the bus
 * configuration (dbus-daemon's --syslog, --syslog-only, --nosyslog and
 * <syslog/>): stderr, the system log, or both. When the journal is there,
 * "system log" means sd_journal_send() with structured fields, so an
 * event such as a denial can be found by field; else syslog(3).
 *
 * Callers log once per event, never per D-Bus call in normal operation.
 * Library-like modules (wire, registry, mediate, auth) never call this;
 * they return codes and the glue decides what is worth a line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

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

static void log_to_journal(int priority, const char *const *fields, const char *text) {
        struct iovec iov[LOG_FIELDS_MAX + 3];
        char message[sizeof("MESSAGE=") + 2048];
        char prio[sizeof("PRIORITY=") + 4];
        size_t n = 0;

        snprintf(message, sizeof(message), "MESSAGE=%s", text);
        snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
        iov[n++] = (struct iovec) { message, strlen(message) };
        iov[n++] = (struct iovec) { prio, strlen(prio) };
        iov[n++] = (struct iovec) { (char *) "SYSLOG_IDENTIFIER=mssf-broker",
                                    strlen("SYSLOG_IDENTIFIER=mssf-broker") };
        for (size_t i = 0; fields && fields[i] && i < LOG_FIELDS_MAX; i++)
                iov[n++] = (struct iovec) { (char *) fields[i], strlen(fields[i]) };
        sd_journal_sendv(iov, n);
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
                if (log_have_journal())
                        log_to_journal(priority, fields, text);
                else
                        log_to_syslog(priority, text);
        }
out:
        errno = saved_errno;
        return -error;
}
