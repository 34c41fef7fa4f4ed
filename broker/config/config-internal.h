/* config-internal: what the busconfig loader's files share; not public API. */
#pragma once

#include <expat.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "macro.h"

/* Bounds on untrusted-looking input; generous next to any real file. */
#define CONFIG_MAX_FILE_SIZE            (1024 * 1024)
#define CONFIG_MAX_INCLUDE_DEPTH        16
#define CONFIG_MAX_FILES                1024
#define CONFIG_MAX_ELEMENTS             (256 * 1024)
#define CONFIG_MAX_ELEMENT_DEPTH        8
#define CONFIG_MAX_TEXT                 4096

/* dbus-protocol.h: DBUS_MAXIMUM_MESSAGE_UNIX_FDS */
#define CONFIG_MAX_MESSAGE_UNIX_FDS     (((1u << 26) * 2u) / 4u)

typedef enum ConfigElement {
        CONFIG_ELEMENT_NONE,
        CONFIG_ELEMENT_BUSCONFIG,
        CONFIG_ELEMENT_TYPE,
        CONFIG_ELEMENT_USER,
        CONFIG_ELEMENT_PIDFILE,
        CONFIG_ELEMENT_LISTEN,
        CONFIG_ELEMENT_AUTH,
        CONFIG_ELEMENT_SERVICEHELPER,
        CONFIG_ELEMENT_SERVICEDIR,
        CONFIG_ELEMENT_INCLUDE,
        CONFIG_ELEMENT_INCLUDEDIR,
        CONFIG_ELEMENT_LIMIT,
        CONFIG_ELEMENT_FORK,
        CONFIG_ELEMENT_KEEP_UMASK,
        CONFIG_ELEMENT_SYSLOG,
        CONFIG_ELEMENT_ALLOW_ANONYMOUS,
        CONFIG_ELEMENT_STANDARD_SESSION_SERVICEDIRS,
        CONFIG_ELEMENT_STANDARD_SYSTEM_SERVICEDIRS,
        CONFIG_ELEMENT_POLICY,
        CONFIG_ELEMENT_ALLOW,
        CONFIG_ELEMENT_DENY,
        CONFIG_ELEMENT_SELINUX,
        CONFIG_ELEMENT_ASSOCIATE,
        CONFIG_ELEMENT_APPARMOR,
} ConfigElement;

/* One open element of the file being parsed. */
typedef struct ConfigFrame {
        ConfigElement element;
        unsigned line;          /* of the start tag */
        bool ignore_missing;    /* <include> */
        bool if_selinux;        /* <include if_selinux_enabled="yes"> */
        int limit;              /* <limit>: index into the limit table */
} ConfigFrame;

/* State of one whole load: every file it reads shares it. */
typedef struct ConfigLoader {
        unsigned flags;
        ConfigError *err;               /* (nonnull) */
        char *stack[CONFIG_MAX_INCLUDE_DEPTH]; /* files being parsed, outermost first */
        unsigned depth;
        size_t n_files;
        size_t n_elements;
} ConfigLoader;

/* State of one file being parsed into its own BusConfig. */
typedef struct ConfigFile {
        ConfigLoader *loader;
        BusConfig *config;              /* (borrowed) receives what this file says */
        XML_Parser expat;
        const char *name;               /* (borrowed from config->files) */
        char *basedir;                  /* (owned) */
        ConfigFrame frames[CONFIG_MAX_ELEMENT_DEPTH];
        unsigned depth;
        char *text;                     /* (owned) character data of the open element */
        size_t n_text;
        unsigned text_line;             /* of the first non-space byte of text, 0 if none yet */
        int r;                          /* first failure, 0 while none */
} ConfigFile;

/* config.c */
int config_new_child(const BusConfig *parent, BusConfig **ret);
int config_merge(BusConfig *into, BusConfig *from);
int config_strv_push(char ***strv, size_t *n, const char *s);
int config_strv_take(char ***strv, size_t *n, char *s);
int config_servicedir_add(BusConfig *config, const char *dir);
int config_error_oom(ConfigError *err);
void config_error_printf(ConfigError *err, const char *format, ...) _printf_(2, 3);

/* config-parser.c */
int config_parse_file(ConfigLoader *loader, const char *path, const BusConfig *parent,
                      BusConfig **ret);
int config_parse_buffer(ConfigLoader *loader, const char *name, const char *data, size_t size,
                        const BusConfig *parent, BusConfig **ret);
int config_file_fail(ConfigFile *file, unsigned line, const char *format, ...) _printf_(3, 4);
int config_file_locate(ConfigFile *file, unsigned line, const char *element, const char **atts,
                       const char *const *names, const char **values, size_t n_names);

/* config-include.c */
int config_read_file(const char *path, char **ret_data, size_t *ret_size);
char *config_canonical_name(const char *name);
int config_include_file(ConfigFile *file, unsigned line, const char *path, bool ignore_missing);
int config_include_dir(ConfigFile *file, unsigned line, const char *dir);

/* config-policy.c */
int config_policy_start(ConfigFile *file, unsigned line, const char **atts);
int config_rule_add(ConfigFile *file, unsigned line, const char *element, bool allow,
                    const char **atts);
void config_policy_clear(BusPolicy *policy);
