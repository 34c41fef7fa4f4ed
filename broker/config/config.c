/*
 * config: the busconfig document that dbus-daemon reads, and the value the
 * rest of the broker gets from it.
 *
 * This file holds BusConfig's lifecycle, the merge of an included file into
 * the file that includes it, and the public load entry points; the XML
 * state machine is config-parser.c and <policy> rules are config-policy.c.
 *
 * Merging follows dbus-daemon's merge_included(): every file is parsed into
 * its own BusConfig that starts from the including file's limits and
 * AppArmor mode, and only a file that parsed completely is merged, so a
 * broken file in an <includedir> leaves no trace but a warning. Single
 * values take the included file's value when it set one, booleans stay
 * set, lists append (servicedirs without duplicates) and limits are
 * copied back. Deviation: dbus-daemon forgets <syslog/> from included
 * files; we keep it, like the other booleans.
 *
 * Trust: configuration files are written by root, but a bug in a package's
 * system.d file must not crash the bus, so every input is bounded
 * (config-internal.h) and every failure is reported with file:line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-internal.h"
#include "config.h"

const char *const bus_config_standard_system_servicedirs[] = {
        "/usr/local/share/dbus-1/system-services",
        "/usr/share/dbus-1/system-services",
        "/lib/dbus-1/system-services",
        NULL,
};

void config_error_printf(ConfigError *err, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        vsnprintf(err->message, sizeof(err->message), format, ap);
        va_end(ap);
}

int config_error_oom(ConfigError *err) {
        config_error_printf(err, "Out of memory");
        return -ENOMEM;
}

void bus_config_limits_init(BusConfigLimits *limits) {
        *limits = (BusConfigLimits){
                .max_incoming_bytes = 127 * 1024 * 1024,
                .max_incoming_unix_fds = 64,
                .max_outgoing_bytes = 127 * 1024 * 1024,
                .max_outgoing_unix_fds = 64,
                .max_message_size = 32 * 1024 * 1024,
                .max_message_unix_fds = 16,
                .service_start_timeout = 25000,
                .auth_timeout = 30000,
                .pending_fd_timeout = 150000,
                .max_completed_connections = 2048,
                .max_incomplete_connections = 64,
                .max_connections_per_user = 256,
                .max_pending_service_starts = 512,
                .max_names_per_connection = 512,
                .max_match_rules_per_connection = 512,
                .max_replies_per_connection = 128,
                .reply_timeout = -1,
                .max_containers = 512,
                .max_containers_per_user = 16,
                .max_container_metadata_bytes = 4096,
                .max_connections_per_container = 8,
                .max_connections_per_label = BUS_CONFIG_LIMIT_DERIVED,
                .max_names_per_label = BUS_CONFIG_LIMIT_DERIVED,
                .max_match_rules_per_label = BUS_CONFIG_LIMIT_DERIVED,
                .max_replies_per_label = BUS_CONFIG_LIMIT_DERIVED,
                .max_queued_bytes_per_label = BUS_CONFIG_LIMIT_DERIVED,
                .max_queued_unix_fds_per_label = BUS_CONFIG_LIMIT_DERIVED,
        };
}

/* Appends s (taken) to a NULL-terminated array; frees s on failure. */
int config_strv_take(char ***strv, size_t *n, char *s) {
        char **grown;

        if (!s)
                return -ENOMEM;
        grown = realloc(*strv, (*n + 2) * sizeof(char *));
        if (!grown) {
                free(s);
                return -ENOMEM;
        }
        grown[(*n)++] = s;
        grown[*n] = NULL;
        *strv = grown;
        return 0;
}

int config_strv_push(char ***strv, size_t *n, const char *s) {
        return config_strv_take(strv, n, strdup(s));
}

static void strv_free(char **strv, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(strv[i]);
        free(strv);
}

int config_servicedir_add(BusConfig *config, const char *dir) {
        for (size_t i = 0; i < config->n_servicedirs; i++)
                if (strcmp(config->servicedirs[i], dir) == 0)
                        return 0;
        return config_strv_push(&config->servicedirs, &config->n_servicedirs, dir);
}

BusConfig *bus_config_free(BusConfig *config) {
        if (!config)
                return NULL;
        free(config->type);
        free(config->user);
        free(config->pidfile);
        free(config->servicehelper);
        strv_free(config->listen, config->n_listen);
        strv_free(config->auth, config->n_auth);
        strv_free(config->servicedirs, config->n_servicedirs);
        strv_free(config->includedirs, config->n_includedirs);
        for (size_t i = 0; i < config->n_policies; i++)
                config_policy_clear(&config->policies[i]);
        free(config->policies);
        for (size_t i = 0; i < config->n_associations; i++) {
                free(config->associations[i].own);
                free(config->associations[i].context);
        }
        free(config->associations);
        strv_free(config->files, config->n_files);
        strv_free(config->warnings, config->n_warnings);
        free(config);
        return NULL;
}

/* A config for one file: inherits what dbus-daemon hands to an included parser. */
int config_new_child(const BusConfig *parent, BusConfig **ret) {
        BusConfig *config = calloc(1, sizeof(*config));

        if (!config)
                return -ENOMEM;
        if (parent) {
                config->limits = parent->limits;
                config->apparmor_mode = parent->apparmor_mode;
        } else {
                bus_config_limits_init(&config->limits);
                config->apparmor_mode = BUS_APPARMOR_ENABLED;
        }
        *ret = config;
        return 0;
}

static void take_string(char **into, char **from) {
        if (!*from)
                return;
        free(*into);
        *into = TAKE_PTR(*from);
}

/* Moves every string of from[] to the end of into[]; from is left empty. */
static int strv_move(char ***into, size_t *n_into, char ***from, size_t *n_from) {
        for (size_t i = 0; i < *n_from; i++) {
                int r = config_strv_take(into, n_into, TAKE_PTR((*from)[i]));
                if (r < 0)
                        return r;
        }
        *n_from = 0;
        return 0;
}

static int merge_policies(BusConfig *into, BusConfig *from) {
        BusPolicy *grown;

        if (from->n_policies == 0)
                return 0;
        grown = realloc(into->policies, (into->n_policies + from->n_policies) * sizeof(BusPolicy));
        if (!grown)
                return -ENOMEM;
        memcpy(grown + into->n_policies, from->policies, from->n_policies * sizeof(BusPolicy));
        into->policies = grown;
        into->n_policies += from->n_policies;
        free(from->policies);
        from->policies = NULL;
        from->n_policies = 0;
        return 0;
}

/* dbus-daemon keeps associations in a table: a later one for a name replaces it. */
static int merge_associations(BusConfig *into, BusConfig *from) {
        for (size_t i = 0; i < from->n_associations; i++) {
                BusSelinuxAssociation *a = &from->associations[i];
                size_t j;

                for (j = 0; j < into->n_associations; j++)
                        if (strcmp(into->associations[j].own, a->own) == 0)
                                break;
                if (j == into->n_associations) {
                        BusSelinuxAssociation *grown = realloc(into->associations,
                                                               (j + 1) * sizeof(*grown));
                        if (!grown)
                                return -ENOMEM;
                        into->associations = grown;
                        into->associations[j] = (BusSelinuxAssociation){};
                        into->n_associations++;
                }
                free(into->associations[j].own);
                free(into->associations[j].context);
                into->associations[j].own = TAKE_PTR(a->own);
                into->associations[j].context = TAKE_PTR(a->context);
        }
        return 0;
}

int config_merge(BusConfig *into, BusConfig *from) {
        int r;

        take_string(&into->type, &from->type);
        take_string(&into->user, &from->user);
        take_string(&into->pidfile, &from->pidfile);
        take_string(&into->servicehelper, &from->servicehelper);
        into->fork |= from->fork;
        into->keep_umask |= from->keep_umask;
        into->syslog |= from->syslog;
        into->allow_anonymous |= from->allow_anonymous;
        into->limits = from->limits;
        into->apparmor_mode = from->apparmor_mode;

        r = strv_move(&into->listen, &into->n_listen, &from->listen, &from->n_listen);
        if (r < 0)
                return r;
        r = strv_move(&into->auth, &into->n_auth, &from->auth, &from->n_auth);
        if (r < 0)
                return r;
        for (size_t i = 0; i < from->n_servicedirs; i++) {
                r = config_servicedir_add(into, from->servicedirs[i]);
                if (r < 0)
                        return r;
        }
        r = strv_move(&into->includedirs, &into->n_includedirs, &from->includedirs,
                      &from->n_includedirs);
        if (r < 0)
                return r;
        /* Files move before policies: rules borrow their file names. */
        r = strv_move(&into->files, &into->n_files, &from->files, &from->n_files);
        if (r < 0)
                return r;
        r = strv_move(&into->warnings, &into->n_warnings, &from->warnings, &from->n_warnings);
        if (r < 0)
                return r;
        r = merge_policies(into, from);
        if (r < 0)
                return r;
        return merge_associations(into, from);
}

static int load_finish(ConfigLoader *loader, int r, BusConfig *config, BusConfig **ret) {
        for (unsigned i = 0; i < loader->depth; i++)
                free(loader->stack[i]);
        if (r != 0) {
                bus_config_free(config);
                return r;
        }
        *ret = config;
        return 0;
}

int bus_config_load_file(const char *path, unsigned flags, BusConfig **ret, ConfigError *err) {
        ConfigError local_err;
        ConfigLoader loader = { .flags = flags, .err = err ? err : &local_err };
        BusConfig *config = NULL;
        int r;

        loader.err->message[0] = '\0';
        r = config_parse_file(&loader, path, NULL, &config);
        return load_finish(&loader, r, config, ret);
}

int bus_config_load(const char *path, BusConfig **ret, ConfigError *err) {
        return bus_config_load_file(path, 0, ret, err);
}

int bus_config_load_string(const char *name, const char *text, size_t size, unsigned flags,
                           BusConfig **ret, ConfigError *err) {
        ConfigError local_err;
        ConfigLoader loader = { .flags = flags, .err = err ? err : &local_err };
        BusConfig *config = NULL;
        int r;

        loader.err->message[0] = '\0';
        r = config_parse_buffer(&loader, name, text, size, NULL, &config);
        return load_finish(&loader, r, config, ret);
}

/* Appends "<base>/dbus-1/services" for each entry of a ':'-separated list. */
static int session_dirs_add(char ***dirs, size_t *n, const char *list) {
        _cleanup_free_ char *copy = strdup(list);
        char *saveptr = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *base = strtok_r(copy, ":", &saveptr); base; base = strtok_r(NULL, ":", &saveptr)) {
                size_t len = strlen(base);
                char *dir;
                bool seen = false;

                while (len > 1 && base[len - 1] == '/')
                        base[--len] = '\0';
                if (asprintf(&dir, "%s/dbus-1/services", base) < 0)
                        return -ENOMEM;
                for (size_t i = 0; i < *n && !seen; i++)
                        seen = strcmp((*dirs)[i], dir) == 0;
                if (seen) {
                        free(dir);
                        continue;
                }
                if (config_strv_take(dirs, n, dir) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int session_data_home(char **ret) {
        const char *data_home = getenv("XDG_DATA_HOME");
        const char *home = getenv("HOME");

        if (data_home && *data_home)
                *ret = strdup(data_home);
        else if (home && *home) {
                if (asprintf(ret, "%s/.local/share", home) < 0)
                        *ret = NULL;
        } else
                *ret = strdup("");
        return *ret ? 0 : -ENOMEM;
}

/*
 * dbus-daemon's ensure_owned_directory(): made (0700) when create is set,
 * then it must be a directory of ours that nobody else may write, so that
 * an XDG_RUNTIME_DIR left over from another user never serves services.
 * 0 or -errno (EEXIST: not a directory, EPERM: someone else's or writable
 * by others) with why filled.
 */
static int session_owned_dir(const char *dir, bool create, char *why, size_t why_size) {
        struct stat st;

        if (create && mkdir(dir, 0700) < 0 && errno != EEXIST) {
                snprintf(why, why_size, "\"%s\" cannot be made: %s", dir, strerror(errno));
                return -errno;
        }
        if (stat(dir, &st) < 0) {
                snprintf(why, why_size, "\"%s\" not available: %s", dir, strerror(errno));
                return -errno;
        }
        if (!S_ISDIR(st.st_mode)) {
                snprintf(why, why_size, "\"%s\" is not a directory", dir);
                return -EEXIST;
        }
        if (st.st_uid != geteuid()) {
                snprintf(why, why_size, "\"%s\" is owned by uid %ld, not our uid %ld", dir,
                         (long) st.st_uid, (long) geteuid());
                return -EPERM;
        }
        if (st.st_mode & (S_IWOTH | S_IWGRP)) {
                snprintf(why, why_size, "\"%s\" can be written by others (mode 0%o)", dir,
                         (unsigned) (st.st_mode & 07777));
                return -EPERM;
        }
        return 0;
}

/* $XDG_RUNTIME_DIR/dbus-1/services, made if missing, as dbus-daemon does at start-up. */
static int session_transient_dir(const char *runtime, char *why, size_t why_size) {
        _cleanup_free_ char *dbus1 = NULL, *services = NULL;
        int r;

        if (asprintf(&dbus1, "%s/dbus-1", runtime) < 0 || asprintf(&services, "%s/dbus-1/services", runtime) < 0)
                return -ENOMEM;
        r = session_owned_dir(runtime, false, why, why_size);
        if (r >= 0)
                r = session_owned_dir(dbus1, true, why, why_size);
        if (r >= 0)
                r = session_owned_dir(services, true, why, why_size);
        return r;
}

int bus_config_standard_session_servicedirs(char ***ret, char *why, size_t why_size) {
        const char *runtime = getenv("XDG_RUNTIME_DIR");
        const char *data_dirs = getenv("XDG_DATA_DIRS");
        _cleanup_free_ char *data_home = NULL;
        char **dirs = NULL;
        size_t n = 0;
        int r;

        if (why_size)
                why[0] = '\0';
        r = session_data_home(&data_home);
        /* Failing to set the transient directory up is not fatal (dbus-daemon warns). */
        if (r >= 0 && runtime && *runtime) {
                r = session_transient_dir(runtime, why, why_size);
                if (r == -ENOMEM)
                        return r;
                r = r < 0 ? 0 : session_dirs_add(&dirs, &n, runtime);
        }
        if (r >= 0 && *data_home)
                r = session_dirs_add(&dirs, &n, data_home);
        if (r >= 0)
                r = session_dirs_add(&dirs, &n,
                                     data_dirs && *data_dirs ? data_dirs : "/usr/local/share:/usr/share");
        if (r >= 0)
                r = session_dirs_add(&dirs, &n, "/usr/share");
        if (r < 0) {
                strv_free(dirs, n);
                return r;
        }
        *ret = dirs;
        return 0;
}

const char *bus_policy_context_to_string(BusPolicyContext context) {
        static const char *const names[] = {
                [BUS_POLICY_DEFAULT] = "default",
                [BUS_POLICY_MANDATORY] = "mandatory",
                [BUS_POLICY_USER] = "user",
                [BUS_POLICY_GROUP] = "group",
                [BUS_POLICY_AT_CONSOLE] = "at_console",
        };

        if ((size_t)context >= ELEMENTSOF(names))
                return NULL;
        return names[context];
}

const char *bus_rule_kind_to_string(BusRuleKind kind) {
        static const char *const names[] = {
                [BUS_RULE_SEND] = "send",
                [BUS_RULE_RECEIVE] = "receive",
                [BUS_RULE_OWN] = "own",
                [BUS_RULE_USER] = "user",
                [BUS_RULE_GROUP] = "group",
        };

        if ((size_t)kind >= ELEMENTSOF(names))
                return NULL;
        return names[kind];
}
