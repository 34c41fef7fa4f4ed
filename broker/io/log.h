/* Logging for the daemon glue: stderr, syslog or the journal. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>

#include "macro.h"

typedef enum LogTarget {
        LOG_TARGET_STDERR,      /* stderr only */
        LOG_TARGET_BOTH,        /* system log and stderr */
        LOG_TARGET_SYSTEM,      /* system log only */
} LogTarget;

void log_set_target(LogTarget target);
LogTarget log_get_target(void);
void log_set_max_priority(int priority);

/*
 * Log one event. fields (nullable) is a NULL-terminated list of
 * "KEY=value" journal fields added to MESSAGE and PRIORITY. Returns
 * -|error| when error is non-zero, else 0, so callers can
 * "return log_errno(...)".
 */
int log_fields(int priority, int error, const char *const *fields,
               const char *format, ...) _printf_(4, 5);

#define log_full(priority, error, ...) log_fields((priority), (error), NULL, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, 0, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, 0, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, 0, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, 0, __VA_ARGS__)
#define log_debug(...) log_full(LOG_DEBUG, 0, __VA_ARGS__)
#define log_error_errno(error, ...) log_full(LOG_ERR, (error), __VA_ARGS__)
#define log_warning_errno(error, ...) log_full(LOG_WARNING, (error), __VA_ARGS__)
