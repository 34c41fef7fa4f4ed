/*
 * config-parser: the expat state machine that turns one busconfig file into
 * a BusConfig, and follows its <include> and <includedir> elements.
 *
 * Element handling follows dbus-daemon's bus/config-parser.c: the same
 * elements in the same places, the same attribute checks and, where we can,
 * the same error texts, each prefixed with "file:line:" of the offending
 * start tag (dbus-daemon gives no line for semantic errors). Deviations,
 * all deliberate:
 *   - text content is trimmed of XML whitespace before use;
 *   - <limit> values must be an integer with nothing after it;
 *   - six <limit> names of our own, per Smack label (max_*_per_label),
 *     which dbus-daemon refuses ("There is no limit called");
 *   - entity declarations are refused (no entity expansion games);
 *   - <listen> addresses are validated while parsing (address.h), and
 *     transports this bus does not implement (tcp:, ...) are refused there;
 *   - <include if_selinux_enabled="yes"> is skipped: this bus has no SELinux;
 *   - <includedir> reads its *.conf files sorted by name (strcmp);
 *   - every <includedir> is recorded, also missing ones, for reload watches.
 * An element, attribute or text dbus-daemon refuses is refused here too.
 *
 * Invariants: a file's ConfigFile.r holds its first failure and parsing
 * stops there; frames[] mirrors the open elements, at most
 * CONFIG_MAX_ELEMENT_DEPTH deep; an included file is parsed into its own
 * BusConfig and merged only when it parsed completely.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "config-internal.h"

typedef struct ElementInfo {
        const char *name;
        ConfigElement element;
        bool takes_text;
} ElementInfo;

/* The children of <busconfig>. */
static const ElementInfo busconfig_children[] = {
        { "type", CONFIG_ELEMENT_TYPE, true },
        { "user", CONFIG_ELEMENT_USER, true },
        { "pidfile", CONFIG_ELEMENT_PIDFILE, true },
        { "listen", CONFIG_ELEMENT_LISTEN, true },
        { "auth", CONFIG_ELEMENT_AUTH, true },
        { "servicehelper", CONFIG_ELEMENT_SERVICEHELPER, true },
        { "servicedir", CONFIG_ELEMENT_SERVICEDIR, true },
        { "include", CONFIG_ELEMENT_INCLUDE, true },
        { "includedir", CONFIG_ELEMENT_INCLUDEDIR, true },
        { "limit", CONFIG_ELEMENT_LIMIT, true },
        { "fork", CONFIG_ELEMENT_FORK, false },
        { "keep_umask", CONFIG_ELEMENT_KEEP_UMASK, false },
        { "syslog", CONFIG_ELEMENT_SYSLOG, false },
        { "allow_anonymous", CONFIG_ELEMENT_ALLOW_ANONYMOUS, false },
        { "standard_session_servicedirs", CONFIG_ELEMENT_STANDARD_SESSION_SERVICEDIRS, false },
        { "standard_system_servicedirs", CONFIG_ELEMENT_STANDARD_SYSTEM_SERVICEDIRS, false },
        { "policy", CONFIG_ELEMENT_POLICY, false },
        { "selinux", CONFIG_ELEMENT_SELINUX, false },
        { "apparmor", CONFIG_ELEMENT_APPARMOR, false },
};

static const char *const element_names[] = {
        [CONFIG_ELEMENT_BUSCONFIG] = "busconfig",
        [CONFIG_ELEMENT_TYPE] = "type",
        [CONFIG_ELEMENT_USER] = "user",
        [CONFIG_ELEMENT_PIDFILE] = "pidfile",
        [CONFIG_ELEMENT_LISTEN] = "listen",
        [CONFIG_ELEMENT_AUTH] = "auth",
        [CONFIG_ELEMENT_SERVICEHELPER] = "servicehelper",
        [CONFIG_ELEMENT_SERVICEDIR] = "servicedir",
        [CONFIG_ELEMENT_INCLUDE] = "include",
        [CONFIG_ELEMENT_INCLUDEDIR] = "includedir",
        [CONFIG_ELEMENT_LIMIT] = "limit",
        [CONFIG_ELEMENT_FORK] = "fork",
        [CONFIG_ELEMENT_KEEP_UMASK] = "keep_umask",
        [CONFIG_ELEMENT_SYSLOG] = "syslog",
        [CONFIG_ELEMENT_ALLOW_ANONYMOUS] = "allow_anonymous",
        [CONFIG_ELEMENT_STANDARD_SESSION_SERVICEDIRS] = "standard_session_servicedirs",
        [CONFIG_ELEMENT_STANDARD_SYSTEM_SERVICEDIRS] = "standard_system_servicedirs",
        [CONFIG_ELEMENT_POLICY] = "policy",
        [CONFIG_ELEMENT_ALLOW] = "allow",
        [CONFIG_ELEMENT_DENY] = "deny",
        [CONFIG_ELEMENT_SELINUX] = "selinux",
        [CONFIG_ELEMENT_ASSOCIATE] = "associate",
        [CONFIG_ELEMENT_APPARMOR] = "apparmor",
};

typedef struct LimitInfo {
        const char *name;
        size_t offset;
        bool must_be_int;       /* dbus-daemon keeps it in an int */
} LimitInfo;

#define LIMIT(n, i) { #n, offsetof(BusConfigLimits, n), i }
static const LimitInfo limit_table[] = {
        LIMIT(max_incoming_bytes, false),
        LIMIT(max_incoming_unix_fds, false),
        LIMIT(max_outgoing_bytes, false),
        LIMIT(max_outgoing_unix_fds, false),
        LIMIT(max_message_size, false),
        LIMIT(max_message_unix_fds, false),
        LIMIT(service_start_timeout, true),
        LIMIT(auth_timeout, true),
        LIMIT(pending_fd_timeout, true),
        LIMIT(reply_timeout, true),
        LIMIT(max_completed_connections, true),
        LIMIT(max_incomplete_connections, true),
        LIMIT(max_connections_per_user, true),
        LIMIT(max_pending_service_starts, true),
        LIMIT(max_names_per_connection, true),
        LIMIT(max_match_rules_per_connection, true),
        LIMIT(max_replies_per_connection, true),
        LIMIT(max_containers, true),
        LIMIT(max_containers_per_user, true),
        LIMIT(max_container_metadata_bytes, true),
        LIMIT(max_connections_per_container, true),
        /* mssf-broker's own: per Smack label (config.h); dbus-daemon has no such limit. */
        LIMIT(max_connections_per_label, true),
        LIMIT(max_names_per_label, true),
        LIMIT(max_match_rules_per_label, true),
        LIMIT(max_replies_per_label, true),
        LIMIT(max_queued_bytes_per_label, false),
        LIMIT(max_queued_unix_fds_per_label, false),
};
#undef LIMIT

int config_file_fail(ConfigFile *file, unsigned line, const char *format, ...) {
        char message[768];
        va_list ap;

        va_start(ap, format);
        vsnprintf(message, sizeof(message), format, ap);
        va_end(ap);
        config_error_printf(file->loader->err, "%s:%u: %s", file->name, line, message);
        return CONFIG_E_INVALID;
}

/*
 * Finds the allowed attributes names[] in atts and stores their values
 * (NULL when absent) in values[]; any other attribute is an error.
 */
int config_file_locate(ConfigFile *file, unsigned line, const char *element, const char **atts,
                       const char *const *names, const char **values, size_t n_names) {
        for (size_t j = 0; j < n_names; j++)
                values[j] = NULL;
        for (size_t i = 0; atts[i]; i += 2) {
                size_t j;

                for (j = 0; j < n_names; j++)
                        if (strcmp(atts[i], names[j]) == 0)
                                break;
                if (j == n_names)
                        return config_file_fail(file, line,
                                                "Attribute \"%s\" is invalid on <%s> element in this context",
                                                atts[i], element);
                if (values[j])
                        return config_file_fail(file, line,
                                                "Attribute \"%s\" repeated twice on the same <%s> element",
                                                atts[i], element);
                values[j] = atts[i + 1];
        }
        return 0;
}

static int check_no_attributes(ConfigFile *file, unsigned line, const char *element,
                               const char **atts) {
        return config_file_locate(file, line, element, atts, NULL, NULL, 0);
}

static bool is_xml_space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Trims the collected text in place; returns its length. */
static size_t text_trim(ConfigFile *file) {
        size_t start = 0, end = file->n_text;

        if (!file->text)
                return 0;
        while (start < end && is_xml_space(file->text[start]))
                start++;
        while (end > start && is_xml_space(file->text[end - 1]))
                end--;
        memmove(file->text, file->text + start, end - start);
        file->n_text = end - start;
        file->text[file->n_text] = '\0';
        return file->n_text;
}

static int full_path(ConfigFile *file, const char *path, char **ret) {
        if (path[0] == '/' || strcmp(file->basedir, ".") == 0)
                *ret = strdup(path);
        else if (asprintf(ret, "%s/%s", file->basedir, path) < 0)
                *ret = NULL;
        return *ret ? 0 : config_error_oom(file->loader->err);
}

static int replace_string(ConfigFile *file, char **field, const char *value) {
        char *copy = strdup(value);

        if (!copy)
                return config_error_oom(file->loader->err);
        free(*field);
        *field = copy;
        return 0;
}

static int end_include(ConfigFile *file, const ConfigFrame *frame) {
        _cleanup_free_ char *path = NULL;
        int r;

        /* No SELinux here: what only an SELinux system reads is skipped. */
        if (frame->if_selinux)
                return 0;
        r = full_path(file, file->text, &path);
        if (r < 0)
                return r;
        if (file->loader->flags & BUS_CONFIG_NO_INCLUDES)
                return 0;
        return config_include_file(file, frame->line, path, frame->ignore_missing);
}

static int end_limit(ConfigFile *file, const ConfigFrame *frame) {
        const LimitInfo *info = &limit_table[frame->limit];
        char *end = NULL;
        long long value;

        errno = 0;
        value = strtoll(file->text, &end, 10);
        if (errno != 0 || end == file->text || *end != '\0')
                return config_file_fail(file, frame->line,
                                        "<limit name=\"%s\"> element has invalid value (could not parse as integer)",
                                        info->name);
        if (value < 0)
                return config_file_fail(file, frame->line, "<limit name=\"%s\"> must be a positive number",
                                        info->name);
        if (info->must_be_int && value > INT_MAX)
                return config_file_fail(file, frame->line, "<limit name=\"%s\"> value is too large",
                                        info->name);
        *(int64_t *)((char *)&file->config->limits + info->offset) = value;
        return 0;
}

static int end_listen(ConfigFile *file, const ConfigFrame *frame) {
        _cleanup_(bus_address_list_freep) BusAddressList *list = NULL;
        AddressError address_err = {};
        int r;

        r = bus_address_parse(file->text, &list, &address_err);
        if (r == -ENOMEM)
                return config_error_oom(file->loader->err);
        if (r != 0)
                return config_file_fail(file, frame->line, "Invalid <listen> address \"%s\": %s",
                                        file->text, address_err.message);
        r = config_strv_push(&file->config->listen, &file->config->n_listen, file->text);
        return r < 0 ? config_error_oom(file->loader->err) : 0;
}

static int end_path_element(ConfigFile *file, const ConfigFrame *frame) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = full_path(file, file->text, &path);
        if (r < 0)
                return r;
        switch (frame->element) {
        case CONFIG_ELEMENT_SERVICEHELPER:
                return replace_string(file, &file->config->servicehelper, path);
        case CONFIG_ELEMENT_SERVICEDIR:
                r = config_servicedir_add(file->config, path);
                return r < 0 ? config_error_oom(file->loader->err) : 0;
        case CONFIG_ELEMENT_INCLUDEDIR:
                return config_include_dir(file, frame->line, path);
        default:
                return -EINVAL;
        }
}

/* The text of an element that takes text, complete and trimmed. */
static int end_text_element(ConfigFile *file, const ConfigFrame *frame) {
        BusConfig *config = file->config;
        int r;

        switch (frame->element) {
        case CONFIG_ELEMENT_TYPE:
                return replace_string(file, &config->type, file->text);
        case CONFIG_ELEMENT_USER:
                return replace_string(file, &config->user, file->text);
        case CONFIG_ELEMENT_PIDFILE:
                return replace_string(file, &config->pidfile, file->text);
        case CONFIG_ELEMENT_LISTEN:
                return end_listen(file, frame);
        case CONFIG_ELEMENT_AUTH:
                r = config_strv_push(&config->auth, &config->n_auth, file->text);
                return r < 0 ? config_error_oom(file->loader->err) : 0;
        case CONFIG_ELEMENT_INCLUDE:
                return end_include(file, frame);
        case CONFIG_ELEMENT_LIMIT:
                return end_limit(file, frame);
        default:
                return end_path_element(file, frame);
        }
}

static bool element_takes_text(ConfigElement element) {
        for (size_t i = 0; i < ELEMENTSOF(busconfig_children); i++)
                if (busconfig_children[i].element == element)
                        return busconfig_children[i].takes_text;
        return false;
}

static int start_include(ConfigFile *file, ConfigFrame *frame, const char **atts) {
        static const char *const names[] = { "ignore_missing", "if_selinux_enabled",
                                             "selinux_root_relative" };
        const char *values[ELEMENTSOF(names)];
        bool flags[ELEMENTSOF(names)] = {};
        int r;

        r = config_file_locate(file, frame->line, "include", atts, names, values, ELEMENTSOF(names));
        if (r != 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                if (!values[i])
                        continue;
                if (strcmp(values[i], "yes") == 0)
                        flags[i] = true;
                else if (strcmp(values[i], "no") != 0)
                        return config_file_fail(file, frame->line,
                                                "%s attribute must have value \"yes\" or \"no\"", names[i]);
        }
        frame->ignore_missing = flags[0];
        frame->if_selinux = flags[1];
        if (flags[2] && !flags[1])
                return config_file_fail(file, frame->line,
                                        "Could not determine SELinux policy root for relative inclusion");
        return 0;
}

static int start_limit(ConfigFile *file, ConfigFrame *frame, const char **atts) {
        static const char *const names[] = { "name" };
        const char *name;
        int r;

        r = config_file_locate(file, frame->line, "limit", atts, names, &name, 1);
        if (r != 0)
                return r;
        if (!name)
                return config_file_fail(file, frame->line, "<limit> element must have a \"name\" attribute");
        frame->limit = -1;
        for (size_t i = 0; i < ELEMENTSOF(limit_table); i++)
                if (strcmp(limit_table[i].name, name) == 0)
                        frame->limit = (int)i;
        if (frame->limit < 0)
                return config_file_fail(file, frame->line, "There is no limit called \"%s\"", name);
        return 0;
}

static int start_apparmor(ConfigFile *file, ConfigFrame *frame, const char **atts) {
        static const char *const names[] = { "mode" };
        static const char *const modes[] = {
                [BUS_APPARMOR_ENABLED] = "enabled",
                [BUS_APPARMOR_DISABLED] = "disabled",
                [BUS_APPARMOR_REQUIRED] = "required",
        };
        const char *mode;
        int r;

        r = config_file_locate(file, frame->line, "apparmor", atts, names, &mode, 1);
        if (r != 0 || !mode)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(modes); i++)
                if (strcmp(mode, modes[i]) == 0) {
                        file->config->apparmor_mode = (BusApparmorMode)i;
                        return 0;
                }
        return config_file_fail(file, frame->line,
                                "Mode attribute on <apparmor> must have value \"required\", \"enabled\" or \"disabled\", not \"%s\"",
                                mode);
}

static int add_standard_servicedirs(ConfigFile *file, unsigned line, bool session) {
        char **dirs = NULL, why[600], warning[900];
        int r = 0;

        if (!session) {
                for (size_t i = 0; r >= 0 && bus_config_standard_system_servicedirs[i]; i++)
                        r = config_servicedir_add(file->config, bus_config_standard_system_servicedirs[i]);
                return r < 0 ? config_error_oom(file->loader->err) : 0;
        }
        r = bus_config_standard_session_servicedirs(&dirs, why, sizeof(why));
        if (r < 0)
                return config_error_oom(file->loader->err);
        if (why[0]) {
                snprintf(warning, sizeof(warning), "%s:%u: Unable to set up transient service directory: %s",
                         file->name, line, why);
                r = config_strv_push(&file->config->warnings, &file->config->n_warnings, warning);
        }
        for (size_t i = 0; dirs[i]; i++) {
                if (r >= 0)
                        r = config_servicedir_add(file->config, dirs[i]);
                free(dirs[i]);
        }
        free(dirs);
        return r < 0 ? config_error_oom(file->loader->err) : 0;
}

/* Elements without attributes; some take effect at their start tag. */
static int start_plain(ConfigFile *file, ConfigFrame *frame, const char *name, const char **atts) {
        BusConfig *config = file->config;
        int r;

        r = check_no_attributes(file, frame->line, name, atts);
        if (r != 0)
                return r;
        switch (frame->element) {
        case CONFIG_ELEMENT_FORK:
                config->fork = true;
                return 0;
        case CONFIG_ELEMENT_KEEP_UMASK:
                config->keep_umask = true;
                return 0;
        case CONFIG_ELEMENT_SYSLOG:
                config->syslog = true;
                return 0;
        case CONFIG_ELEMENT_ALLOW_ANONYMOUS:
                config->allow_anonymous = true;
                return 0;
        case CONFIG_ELEMENT_STANDARD_SESSION_SERVICEDIRS:
                return add_standard_servicedirs(file, frame->line, true);
        case CONFIG_ELEMENT_STANDARD_SYSTEM_SERVICEDIRS:
                return add_standard_servicedirs(file, frame->line, false);
        default:
                return 0;
        }
}

static int start_busconfig_child(ConfigFile *file, ConfigFrame *frame, const char *name,
                                 const char **atts) {
        size_t i;

        for (i = 0; i < ELEMENTSOF(busconfig_children); i++)
                if (strcmp(busconfig_children[i].name, name) == 0)
                        break;
        if (i == ELEMENTSOF(busconfig_children))
                return config_file_fail(file, frame->line,
                                        "Element <%s> not allowed inside <%s> in configuration file",
                                        name, "busconfig");
        frame->element = busconfig_children[i].element;
        switch (frame->element) {
        case CONFIG_ELEMENT_INCLUDE:
                return start_include(file, frame, atts);
        case CONFIG_ELEMENT_LIMIT:
                return start_limit(file, frame, atts);
        case CONFIG_ELEMENT_APPARMOR:
                return start_apparmor(file, frame, atts);
        case CONFIG_ELEMENT_POLICY:
                return config_policy_start(file, frame->line, atts);
        default:
                return start_plain(file, frame, name, atts);
        }
}

static int start_associate(ConfigFile *file, unsigned line, const char **atts) {
        static const char *const names[] = { "own", "context" };
        const char *values[2];
        BusConfig *config = file->config;
        BusSelinuxAssociation *grown;
        int r;

        r = config_file_locate(file, line, "associate", atts, names, values, 2);
        if (r != 0)
                return r;
        if (!values[0] || !values[1])
                return config_file_fail(file, line,
                                        "Element <associate> must have attributes own=\"<servicename>\" and context=\"<selinux context>\"");
        grown = realloc(config->associations, (config->n_associations + 1) * sizeof(*grown));
        if (!grown)
                return config_error_oom(file->loader->err);
        config->associations = grown;
        grown[config->n_associations] = (BusSelinuxAssociation){
                .own = strdup(values[0]),
                .context = strdup(values[1]),
        };
        config->n_associations++;
        if (!grown[config->n_associations - 1].own || !grown[config->n_associations - 1].context)
                return config_error_oom(file->loader->err);
        return 0;
}

static int start_child(ConfigFile *file, ConfigFrame *frame, const char *name, const char **atts) {
        ConfigElement parent = file->depth > 0 ? file->frames[file->depth - 1].element
                                               : CONFIG_ELEMENT_NONE;

        switch (parent) {
        case CONFIG_ELEMENT_NONE:
                if (strcmp(name, "busconfig") != 0)
                        return config_file_fail(file, frame->line,
                                                "Unknown element <%s> at root of configuration file", name);
                frame->element = CONFIG_ELEMENT_BUSCONFIG;
                return check_no_attributes(file, frame->line, name, atts);
        case CONFIG_ELEMENT_BUSCONFIG:
                return start_busconfig_child(file, frame, name, atts);
        case CONFIG_ELEMENT_POLICY:
                if (strcmp(name, "allow") != 0 && strcmp(name, "deny") != 0)
                        return config_file_fail(file, frame->line,
                                                "Element <%s> not allowed inside <%s> in configuration file",
                                                name, "policy");
                frame->element = name[0] == 'a' ? CONFIG_ELEMENT_ALLOW : CONFIG_ELEMENT_DENY;
                return config_rule_add(file, frame->line, name, name[0] == 'a', atts);
        case CONFIG_ELEMENT_SELINUX:
                if (strcmp(name, "associate") != 0)
                        return config_file_fail(file, frame->line,
                                                "Element <%s> not allowed inside <%s> in configuration file",
                                                name, "selinux");
                frame->element = CONFIG_ELEMENT_ASSOCIATE;
                return start_associate(file, frame->line, atts);
        default:
                return config_file_fail(file, frame->line, "Element <%s> is not allowed in this context",
                                        name);
        }
}

/* Text between tags of an element that takes none must be whitespace. */
static int check_stray_text(ConfigFile *file) {
        unsigned line = file->text_line;
        const char *element;

        for (size_t i = 0; i < file->n_text; i++) {
                if (is_xml_space(file->text[i]))
                        continue;
                if (file->depth == 0)
                        return config_file_fail(file, line,
                                                "Text content outside of any XML element in configuration file");
                element = element_names[file->frames[file->depth - 1].element];
                return config_file_fail(file, line,
                                        "No text content expected inside XML element %s in configuration file",
                                        element);
        }
        file->n_text = 0;
        file->text_line = 0;
        return 0;
}

static void stop(ConfigFile *file, int r) {
        if (r == 0)
                return;
        file->r = r;
        XML_StopParser(file->expat, XML_FALSE);
}

static void on_start(void *userdata, const XML_Char *name, const XML_Char **atts) {
        ConfigFile *file = userdata;
        unsigned line = (unsigned)XML_GetCurrentLineNumber(file->expat);
        ConfigFrame *frame;
        int r;

        if (file->r != 0)
                return;
        if (file->depth > 0 && element_takes_text(file->frames[file->depth - 1].element)) {
                stop(file, config_file_fail(file, line, "Element <%s> is not allowed in this context", name));
                return;
        }
        r = check_stray_text(file);
        if (r == 0 && ++file->loader->n_elements > CONFIG_MAX_ELEMENTS)
                r = config_file_fail(file, line, "More than %d elements", CONFIG_MAX_ELEMENTS);
        if (r == 0 && file->depth >= CONFIG_MAX_ELEMENT_DEPTH)
                r = config_file_fail(file, line, "Elements nested too deeply");
        if (r != 0) {
                stop(file, r);
                return;
        }
        frame = &file->frames[file->depth];
        *frame = (ConfigFrame){ .line = line };
        r = start_child(file, frame, name, atts);
        /* Pushed even on failure: nothing reads it, and depth stays balanced. */
        file->depth++;
        stop(file, r);
}

static void on_end(void *userdata, const XML_Char *name) {
        ConfigFile *file = userdata;
        ConfigFrame *frame;
        int r = 0;

        if (file->r != 0 || file->depth == 0)
                return;
        frame = &file->frames[file->depth - 1];
        if (element_takes_text(frame->element)) {
                if (text_trim(file) == 0)
                        r = config_file_fail(file, frame->line,
                                             "XML element <%s> was expected to have content inside it",
                                             element_names[frame->element]);
                else
                        r = end_text_element(file, frame);
                file->n_text = 0;
                file->text_line = 0;
        } else
                r = check_stray_text(file);
        file->depth--;
        stop(file, r);
}

/* The line of the first non-space byte of a chunk, 0 when it is all space. */
static unsigned first_text_line(ConfigFile *file, const char *s, int len) {
        unsigned line = (unsigned)XML_GetCurrentLineNumber(file->expat);

        for (int i = 0; i < len; i++) {
                if (!is_xml_space(s[i]))
                        return line;
                if (s[i] == '\n')
                        line++;
        }
        return 0;
}

static void on_text(void *userdata, const XML_Char *s, int len) {
        ConfigFile *file = userdata;
        char *grown;

        if (file->r != 0 || len <= 0)
                return;
        if (file->n_text + (size_t)len > CONFIG_MAX_TEXT) {
                stop(file, config_file_fail(file, (unsigned)XML_GetCurrentLineNumber(file->expat),
                                            "Text content longer than %d bytes", CONFIG_MAX_TEXT));
                return;
        }
        grown = realloc(file->text, file->n_text + (size_t)len + 1);
        if (!grown) {
                stop(file, config_error_oom(file->loader->err));
                return;
        }
        if (file->text_line == 0)
                file->text_line = first_text_line(file, s, len);
        memcpy(grown + file->n_text, s, (size_t)len);
        file->text = grown;
        file->n_text += (size_t)len;
        file->text[file->n_text] = '\0';
}

static void on_entity_decl(void *userdata, const XML_Char *name, int is_parameter_entity,
                           const XML_Char *value, int value_length, const XML_Char *base,
                           const XML_Char *system_id, const XML_Char *public_id,
                           const XML_Char *notation_name) {
        ConfigFile *file = userdata;

        if (file->r != 0)
                return;
        stop(file, config_file_fail(file, (unsigned)XML_GetCurrentLineNumber(file->expat),
                                    "Entity declarations are not allowed in configuration files"));
}

static int run_expat(ConfigFile *file, const char *data, size_t size) {
        enum XML_Error code;

        file->expat = XML_ParserCreate("UTF-8");
        if (!file->expat)
                return config_error_oom(file->loader->err);
        XML_SetUserData(file->expat, file);
        XML_SetElementHandler(file->expat, on_start, on_end);
        XML_SetCharacterDataHandler(file->expat, on_text);
        XML_SetEntityDeclHandler(file->expat, on_entity_decl);
        if (XML_Parse(file->expat, data, (int)size, XML_TRUE) == XML_STATUS_OK || file->r != 0)
                return file->r;
        code = XML_GetErrorCode(file->expat);
        if (code == XML_ERROR_NO_MEMORY)
                return config_error_oom(file->loader->err);
        return config_file_fail(file, (unsigned)XML_GetCurrentLineNumber(file->expat),
                                "%s (column %lu)", XML_ErrorString(code),
                                (unsigned long)XML_GetCurrentColumnNumber(file->expat));
}

static int dir_of(const char *name, char **ret) {
        const char *slash = strrchr(name, '/');

        if (!slash)
                *ret = strdup(".");
        else if (slash == name)
                *ret = strdup("/");
        else
                *ret = strndup(name, (size_t)(slash - name));
        return *ret ? 0 : -ENOMEM;
}

static int parse_buffer(ConfigLoader *loader, const char *name, const char *data, size_t size,
                        const BusConfig *parent, BusConfig **ret) {
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        ConfigFile file = { .loader = loader };
        int r = 0;

        if (config_new_child(parent, &config) < 0 ||
            config_strv_push(&config->files, &config->n_files, name) < 0 ||
            dir_of(name, &file.basedir) < 0)
                r = config_error_oom(loader->err);
        else if (size > CONFIG_MAX_FILE_SIZE) {
                config_error_printf(loader->err, "%s: File is larger than 1 MiB", name);
                r = CONFIG_E_INVALID;
        } else if (!(loader->stack[loader->depth] = config_canonical_name(name)))
                r = config_error_oom(loader->err);
        if (r != 0) {
                free(file.basedir);
                return r;
        }
        loader->depth++;
        loader->n_files++;
        file.config = config;
        file.name = config->files[0];
        r = run_expat(&file, data, size);
        free(loader->stack[--loader->depth]);
        if (file.expat)
                XML_ParserFree(file.expat);
        free(file.text);
        free(file.basedir);
        if (r != 0)
                return r;
        *ret = TAKE_PTR(config);
        return 0;
}

int config_parse_buffer(ConfigLoader *loader, const char *name, const char *data, size_t size,
                        const BusConfig *parent, BusConfig **ret) {
        return parse_buffer(loader, name, data, size, parent, ret);
}

int config_parse_file(ConfigLoader *loader, const char *path, const BusConfig *parent,
                      BusConfig **ret) {
        _cleanup_free_ char *data = NULL;
        size_t size = 0;
        int r;

        r = config_read_file(path, &data, &size);
        if (r == -ENOMEM)
                return config_error_oom(loader->err);
        if (r == -EFBIG) {
                config_error_printf(loader->err, "%s: File is larger than 1 MiB", path);
                return CONFIG_E_INVALID;
        }
        if (r < 0) {
                config_error_printf(loader->err, "%s: Failed to open: %s", path, strerror(-r));
                return r;
        }
        return parse_buffer(loader, path, data, size, parent, ret);
}
