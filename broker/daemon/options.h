/* dbus-daemon's command line, parsed. */
#pragma once

#include <stdbool.h>

enum {
        OPTIONS_E_EXIT = 1,     /* --help or --version was handled: exit 0 */
        OPTIONS_E_USAGE,        /* bad command line, reported on stderr: exit 1 */
};

typedef enum OptionsFork {
        OPTIONS_FORK_DEFAULT,   /* as <fork/> says */
        OPTIONS_FORK_YES,
        OPTIONS_FORK_NO,
} OptionsFork;

typedef enum OptionsSyslog {
        OPTIONS_SYSLOG_DEFAULT, /* as <syslog/> says */
        OPTIONS_SYSLOG_NONE,    /* --nosyslog */
        OPTIONS_SYSLOG_BOTH,    /* --syslog */
        OPTIONS_SYSLOG_ONLY,    /* --syslog-only */
} OptionsSyslog;

typedef struct Options {
        char *config_file;      /* (owned) */
        char *address;          /* (owned, nullable) --address */
        char *policy;           /* (owned, nullable) --policy */
        int print_address_fd;   /* -1: do not print */
        int print_pid_fd;
        bool nopidfile;
        bool systemd_activation;
        OptionsFork fork_mode;
        OptionsSyslog syslog_mode;
} Options;

#define OPTIONS_SYSTEM_CONF "/usr/share/dbus-1/system.conf"
#define OPTIONS_SESSION_CONF "/usr/share/dbus-1/session.conf"

/* 0 with *ret filled; OPTIONS_E_EXIT; OPTIONS_E_USAGE (reported). */
int options_parse(int argc, char *argv[], Options *ret);
void options_deinit(Options *options);
