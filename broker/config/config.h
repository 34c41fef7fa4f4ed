/* config: the busconfig XML that dbus-daemon reads, parsed into BusConfig. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/*
 * Return values: 0 on success; CONFIG_E_INVALID when a file is not valid
 * busconfig (an expected outcome: ConfigError says "file:line: message");
 * negative errno on failures (-ENOMEM, or an I/O error on the top-level
 * file, also described in ConfigError).
 */
enum {
        CONFIG_E_INVALID = 1,
};

typedef struct ConfigError {
        char message[1024];     /* "file:line: message", empty when none */
} ConfigError;

/* Flags for bus_config_load_file() and bus_config_load_string(). */
enum {
        /* <include>/<includedir> are checked but not followed (fuzzing, tests). */
        BUS_CONFIG_NO_INCLUDES = 1u << 0,
        /*
         * dbus-daemon only logs a file of an <includedir> that fails to
         * parse, and skips it (see BusConfig.warnings). With this flag such
         * a file fails the whole load instead.
         */
        BUS_CONFIG_STRICT = 1u << 1,
};

/*
 * <limit name="..."> values, with dbus-daemon's built-in defaults when a
 * file does not set them. Times are milliseconds, sizes bytes.
 */
typedef struct BusConfigLimits {
        int64_t max_incoming_bytes;             /* 127 MiB */
        int64_t max_incoming_unix_fds;          /* 64 */
        int64_t max_outgoing_bytes;             /* 127 MiB */
        int64_t max_outgoing_unix_fds;          /* 64 */
        int64_t max_message_size;               /* 32 MiB */
        int64_t max_message_unix_fds;           /* 16 */
        int64_t service_start_timeout;          /* 25000 */
        int64_t auth_timeout;                   /* 30000 */
        int64_t pending_fd_timeout;             /* 150000 */
        int64_t max_completed_connections;      /* 2048 */
        int64_t max_incomplete_connections;     /* 64 */
        int64_t max_connections_per_user;       /* 256 */
        int64_t max_pending_service_starts;     /* 512 */
        int64_t max_names_per_connection;       /* 512 */
        int64_t max_match_rules_per_connection; /* 512 */
        int64_t max_replies_per_connection;     /* 128 */
        int64_t reply_timeout;                  /* -1: none */
        /* dbus-daemon's experimental containers limits, parsed and kept. */
        int64_t max_containers;                 /* 512 */
        int64_t max_containers_per_user;        /* 16 */
        int64_t max_container_metadata_bytes;   /* 4096 */
        int64_t max_connections_per_container;  /* 8 */
        /*
         * mssf-broker's own limits (dbus-daemon refuses these names): what
         * the connections of one Smack label of one uid may hold together,
         * with Smack only. BUS_CONFIG_LIMIT_DERIVED until a file sets one:
         * the bus then derives it from the limit it refines (bus-quota.c,
         * mssf-broker(8)).
         */
        int64_t max_connections_per_label;      /* max_connections_per_user / 4 */
        int64_t max_names_per_label;            /* max_names_per_connection */
        int64_t max_match_rules_per_label;      /* 4 * max_match_rules_per_connection */
        int64_t max_replies_per_label;          /* 4 * max_replies_per_connection */
        int64_t max_queued_bytes_per_label;     /* max_outgoing_bytes */
        int64_t max_queued_unix_fds_per_label;  /* max_outgoing_unix_fds */
} BusConfigLimits;

/* A per-label limit no file set: derived from the one it refines. */
#define BUS_CONFIG_LIMIT_DERIVED (-2)

typedef enum BusPolicyContext {
        BUS_POLICY_DEFAULT,             /* context="default" */
        BUS_POLICY_MANDATORY,           /* context="mandatory" */
        BUS_POLICY_USER,                /* user="name|uid|*" */
        BUS_POLICY_GROUP,               /* group="name|gid|*" */
        BUS_POLICY_AT_CONSOLE,          /* at_console="true|false" */
} BusPolicyContext;

typedef enum BusRuleKind {
        BUS_RULE_SEND,          /* any send_* attribute */
        BUS_RULE_RECEIVE,       /* any receive_* attribute, or eavesdrop without send_* */
        BUS_RULE_OWN,           /* own= or own_prefix= */
        BUS_RULE_USER,          /* user=: who may connect */
        BUS_RULE_GROUP,         /* group=: who may connect */
} BusRuleKind;

/* Values match the wire protocol's message type byte. */
typedef enum BusMessageType {
        BUS_MESSAGE_TYPE_ANY = 0,       /* attribute absent or "*" */
        BUS_MESSAGE_TYPE_METHOD_CALL = 1,
        BUS_MESSAGE_TYPE_METHOD_RETURN = 2,
        BUS_MESSAGE_TYPE_ERROR = 3,
        BUS_MESSAGE_TYPE_SIGNAL = 4,
} BusMessageType;

/* A boolean attribute that may be absent; the policy compiler picks defaults. */
typedef enum BusTristate {
        BUS_TRISTATE_UNSET = -1,
        BUS_TRISTATE_FALSE = 0,
        BUS_TRISTATE_TRUE = 1,
} BusTristate;

/*
 * One <allow> or <deny>. Every string is (owned, nullable): NULL means the
 * attribute was absent or "*" (dbus-daemon treats both as "any").
 */
typedef struct BusPolicyRule {
        bool allow;
        BusRuleKind kind;
        const char *file;       /* (borrowed from BusConfig.files) where written */
        unsigned line;

        /* BUS_RULE_SEND / BUS_RULE_RECEIVE */
        char *peer;             /* send_destination / receive_sender */
        bool peer_is_prefix;    /* send_destination_prefix= gave peer */
        char *interface;
        char *member;
        char *error;
        char *path;
        BusMessageType type;
        BusTristate requested_reply;    /* send_/receive_requested_reply */
        BusTristate broadcast;          /* send_broadcast */
        BusTristate eavesdrop;
        unsigned min_fds;       /* 0 when absent */
        unsigned max_fds;       /* 33554432 (DBUS_MAXIMUM_MESSAGE_UNIX_FDS) when absent */
        bool log;

        /* BUS_RULE_OWN: name, or the prefix with own_prefix=; NULL for own="*" */
        char *own;
        bool own_is_prefix;

        /* BUS_RULE_USER / BUS_RULE_GROUP: name or number, NULL for "*" */
        char *principal;
} BusPolicyRule;

/* One <policy> element, in file order, with its rules in file order. */
typedef struct BusPolicy {
        BusPolicyContext context;
        char *principal;        /* (owned, nullable) user/group name or number as written */
        bool at_console;        /* BUS_POLICY_AT_CONSOLE: the attribute's value */
        const char *file;       /* (borrowed from BusConfig.files) */
        unsigned line;
        BusPolicyRule *rules;   /* (owned) */
        size_t n_rules;
} BusPolicy;

/* <selinux><associate own="name" context="..."/></selinux> */
typedef struct BusSelinuxAssociation {
        char *own;              /* (owned) */
        char *context;          /* (owned) */
} BusSelinuxAssociation;

typedef enum BusApparmorMode {
        BUS_APPARMOR_ENABLED,   /* the default */
        BUS_APPARMOR_DISABLED,
        BUS_APPARMOR_REQUIRED,
} BusApparmorMode;

/*
 * The merged configuration. An <include> behaves as if the included file's
 * children were written in place of the element (dbus-daemon's merge gives
 * the same result): single values (type, user, pidfile, servicehelper,
 * limits, apparmor mode) take the last one seen in that order; fork,
 * keep_umask, syslog and allow_anonymous stay set once any file sets them;
 * listen, auth and policies append; servicedirs append without
 * duplicates; an association for a name replaces an earlier one. String
 * arrays are NULL-terminated.
 *
 * Left to the caller: dbus-daemon refuses a top-level file without
 * <listen> ("Configuration file needs one or more <listen> elements giving
 * addresses"); the daemon checks n_listen, since --address may stand in.
 * User and group names are not resolved here: like dbus-daemon, the policy
 * compiler should ignore (and log) a <policy> or rule naming an unknown
 * one. warnings[] should be logged, as dbus-daemon logs skipped files.
 */
typedef struct BusConfig {
        char *type;                     /* (nullable) <type> */
        char *user;                     /* (nullable) <user> */
        char *pidfile;                  /* (nullable) <pidfile> */
        char *servicehelper;            /* (nullable) <servicehelper> */
        bool fork;
        bool keep_umask;
        bool syslog;
        bool allow_anonymous;

        char **listen;                  /* (owned) raw <listen> texts, validated by bus_address_parse() */
        size_t n_listen;
        char **auth;                    /* (owned) <auth> mechanism names */
        size_t n_auth;
        char **servicedirs;             /* (owned) absolute, deduplicated, in order */
        size_t n_servicedirs;
        char **includedirs;             /* (owned) every <includedir> looked at, for reload watches */
        size_t n_includedirs;

        BusConfigLimits limits;

        BusPolicy *policies;            /* (owned) */
        size_t n_policies;

        BusSelinuxAssociation *associations;    /* (owned) */
        size_t n_associations;
        BusApparmorMode apparmor_mode;

        char **files;                   /* (owned) every file read, top-level first */
        size_t n_files;
        char **warnings;                /* (owned) "file:line: message" of skipped includedir files */
        size_t n_warnings;
} BusConfig;

/* bus_config_load_file(path, 0, ret, err). */
int bus_config_load(const char *path, BusConfig **ret, ConfigError *err);

/* Loads path and everything it includes. err may be NULL. */
int bus_config_load_file(const char *path, unsigned flags, BusConfig **ret, ConfigError *err);

/*
 * Parses text (size bytes, need not be NUL-terminated) as if it were the
 * file name: name is used in messages and its directory resolves relative
 * includes and servicedirs.
 */
int bus_config_load_string(const char *name, const char *text, size_t size, unsigned flags,
                           BusConfig **ret, ConfigError *err);

BusConfig *bus_config_free(BusConfig *config);

/* The built-in defaults, as a config with no elements would give them. */
void bus_config_limits_init(BusConfigLimits *limits);

/* The directories <standard_system_servicedirs/> stands for, in order. */
extern const char *const bus_config_standard_system_servicedirs[];

/*
 * The directories <standard_session_servicedirs/> stands for, computed from
 * the environment as dbus-daemon 1.14 does: $XDG_RUNTIME_DIR/dbus-1/services
 * (when set), $XDG_DATA_HOME (default ~/.local/share), each of $XDG_DATA_DIRS
 * (default /usr/local/share:/usr/share), then /usr/share, each with
 * "/dbus-1/services" appended, duplicates dropped. NULL-terminated.
 * Like dbus-daemon, it makes the first one (the transient directory) if
 * missing, and leaves it out when it cannot be made or is not the bus
 * user's alone: then why (why_size bytes) says so, else it is "".
 */
int bus_config_standard_session_servicedirs(char ***ret, char *why, size_t why_size);

const char *bus_policy_context_to_string(BusPolicyContext context);
const char *bus_rule_kind_to_string(BusRuleKind kind);

DEFINE_CLEANUP(BusConfig *, bus_config_free);
