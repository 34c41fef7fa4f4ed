/*
 * The command line, as dbus-daemon(1) defines it, so that units and
 * scripts written for dbus-daemon start mssf-broker unchanged. Options
 * take "--opt=value" or "--opt value"; --print-address and --print-pid
 * take an optional "=FD" (default: stdout). One bus type or a
 * --config-file is required; the last one given wins, like dbus-daemon.
 * --policy names the compiled MSSF policy (loaded by a later stage).
 * Pure apart from printing usage, version and errors.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

#ifndef MSSF_VERSION
#define MSSF_VERSION "unknown"
#endif

enum {
        ARG_VERSION = 0x100,
        ARG_SESSION,
        ARG_SYSTEM,
        ARG_CONFIG_FILE,
        ARG_PRINT_ADDRESS,
        ARG_PRINT_PID,
        ARG_ADDRESS,
        ARG_NOPIDFILE,
        ARG_NOFORK,
        ARG_FORK,
        ARG_SYSTEMD_ACTIVATION,
        ARG_SYSLOG,
        ARG_SYSLOG_ONLY,
        ARG_NOSYSLOG,
        ARG_POLICY,
        ARG_HELP,
};

static const struct option options_long[] = {
        { "version", no_argument, NULL, ARG_VERSION },
        { "session", no_argument, NULL, ARG_SESSION },
        { "system", no_argument, NULL, ARG_SYSTEM },
        { "config-file", required_argument, NULL, ARG_CONFIG_FILE },
        { "print-address", optional_argument, NULL, ARG_PRINT_ADDRESS },
        { "print-pid", optional_argument, NULL, ARG_PRINT_PID },
        { "address", required_argument, NULL, ARG_ADDRESS },
        { "nopidfile", no_argument, NULL, ARG_NOPIDFILE },
        { "nofork", no_argument, NULL, ARG_NOFORK },
        { "fork", no_argument, NULL, ARG_FORK },
        { "systemd-activation", no_argument, NULL, ARG_SYSTEMD_ACTIVATION },
        { "syslog", no_argument, NULL, ARG_SYSLOG },
        { "syslog-only", no_argument, NULL, ARG_SYSLOG_ONLY },
        { "nosyslog", no_argument, NULL, ARG_NOSYSLOG },
        { "policy", required_argument, NULL, ARG_POLICY },
        { "help", no_argument, NULL, ARG_HELP },
        {}
};

static void options_usage(FILE *f) {
        fprintf(f, "mssf-broker [--version] [--session] [--system] [--config-file=FILE] "
                "[--print-address[=DESCRIPTOR]] [--print-pid[=DESCRIPTOR]] [--address=ADDRESS] "
                "[--nopidfile] [--nosyslog] [--syslog] [--syslog-only] [--nofork] [--fork] "
                "[--systemd-activation] [--policy=FILE]\n");
}

static int options_set_string(char **field, const char *value) {
        char *copy = strdup(value);

        if (!copy)
                return -ENOMEM;
        free(*field);
        *field = copy;
        return 0;
}

static int options_parse_fd(const char *value, int *ret) {
        char *end;
        long fd;

        if (!value) {
                *ret = 1;
                return 0;
        }
        errno = 0;
        fd = strtol(value, &end, 10);
        if (errno || end == value || *end || fd < 0 || fd > 1 << 20) {
                fprintf(stderr, "Invalid file descriptor '%s'\n", value);
                return OPTIONS_E_USAGE;
        }
        *ret = (int) fd;
        return 0;
}

static int options_one(Options *o, int c, const char *value) {
        switch (c) {
        case ARG_VERSION:
                printf("mssf-broker %s\nA D-Bus message bus for MSSF devices, compatible with dbus-daemon.\n",
                       MSSF_VERSION);
                return OPTIONS_E_EXIT;
        case ARG_HELP:
                options_usage(stdout);
                return OPTIONS_E_EXIT;
        case ARG_SESSION:
                return options_set_string(&o->config_file, OPTIONS_SESSION_CONF);
        case ARG_SYSTEM:
                return options_set_string(&o->config_file, OPTIONS_SYSTEM_CONF);
        case ARG_CONFIG_FILE:
                return options_set_string(&o->config_file, value);
        case ARG_ADDRESS:
                return options_set_string(&o->address, value);
        case ARG_POLICY:
                return options_set_string(&o->policy, value);
        case ARG_PRINT_ADDRESS:
                return options_parse_fd(value, &o->print_address_fd);
        case ARG_PRINT_PID:
                return options_parse_fd(value, &o->print_pid_fd);
        case ARG_NOPIDFILE:
                o->nopidfile = true;
                return 0;
        case ARG_NOFORK:
                o->fork_mode = OPTIONS_FORK_NO;
                return 0;
        case ARG_FORK:
                o->fork_mode = OPTIONS_FORK_YES;
                return 0;
        case ARG_SYSTEMD_ACTIVATION:
                o->systemd_activation = true;
                return 0;
        case ARG_SYSLOG:
                o->syslog_mode = OPTIONS_SYSLOG_BOTH;
                return 0;
        case ARG_SYSLOG_ONLY:
                o->syslog_mode = OPTIONS_SYSLOG_ONLY;
                return 0;
        case ARG_NOSYSLOG:
                o->syslog_mode = OPTIONS_SYSLOG_NONE;
                return 0;
        default:
                options_usage(stderr);
                return OPTIONS_E_USAGE;
        }
}

int options_parse(int argc, char *argv[], Options *ret) {
        Options o = { .print_address_fd = -1, .print_pid_fd = -1 };
        int c, r = 0;

        optind = 0;     /* full reset, so tests can parse more than once */
        opterr = 1;
        while (r == 0 && (c = getopt_long(argc, argv, "", options_long, NULL)) >= 0)
                r = options_one(&o, c, optarg);
        if (r == 0 && optind < argc) {
                fprintf(stderr, "Unknown command line argument '%s'\n", argv[optind]);
                options_usage(stderr);
                r = OPTIONS_E_USAGE;
        }
        if (r == 0 && !o.config_file) {
                fprintf(stderr, "No configuration file specified.\n");
                options_usage(stderr);
                r = OPTIONS_E_USAGE;
        }
        if (r != 0) {
                options_deinit(&o);
                return r < 0 ? OPTIONS_E_USAGE : r;
        }
        *ret = o;
        return 0;
}

void options_deinit(Options *options) {
        free(options->config_file);
        free(options->address);
        free(options->policy);
        options->config_file = options->address = options->policy = NULL;
}
