/*
 * service-file: parses D-Bus activation .service files, the desktop-entry
 * style format dbus-daemon reads from its servicedirs:
 *
 *     [D-BUS Service]
 *     Name=org.example.Foo
 *     Exec=/usr/libexec/foo --bus
 *     User=foo
 *     SystemdService=foo.service
 *
 * Only the [D-BUS Service] group matters; other groups and unknown keys
 * are ignored, as dbus-daemon ignores them. Name and Exec are required.
 * Everything else that is wrong is refused with file:line: a line that is
 * neither a comment, a group header nor key=value, a bad escape, a key
 * given twice in the group, text that is not UTF-8, an invalid bus name.
 *
 * Trust: service files are root-owned configuration, but a bus must not
 * fall over on a broken one: input is bounded (SERVICE_FILE_MAX_*), and a
 * bad file costs only that file (the table skips it with a warning).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service-file.h"
#include "validate.h"

#define SERVICE_GROUP "D-BUS Service"

_printf_(4, 5) static int fail(ServiceFileError *err, const char *path, unsigned line, const char *fmt, ...) {
        if (err) {
                char msg[768];
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(msg, sizeof(msg), fmt, ap);
                va_end(ap);
                if (line)
                        snprintf(err->message, sizeof(err->message), "%s:%u: %s", path, line, msg);
                else
                        snprintf(err->message, sizeof(err->message), "%s: %s", path, msg);
        }
        return SERVICE_FILE_E_INVALID;
}

char **service_strv_free(char **strv) {
        if (strv)
                for (char **s = strv; *s; s++)
                        free(*s);
        free(strv);
        return NULL;
}

ServiceFile *service_file_free(ServiceFile *file) {
        if (!file)
                return NULL;
        free(file->path);
        free(file->name);
        free(file->exec);
        service_strv_free(file->argv);
        free(file->user);
        free(file->systemd_service);
        free(file->assumed_apparmor_label);
        free(file);
        return NULL;
}

/* Undoes \s \n \t \r \\ in place; false on any other escape. */
static bool unescape(char *value) {
        char *out = value;
        for (const char *in = value; *in; in++) {
                if (*in != '\\') {
                        *out++ = *in;
                        continue;
                }
                switch (*++in) {
                case 's': *out++ = ' '; break;
                case 'n': *out++ = '\n'; break;
                case 't': *out++ = '\t'; break;
                case 'r': *out++ = '\r'; break;
                case '\\': *out++ = '\\'; break;
                default: return false;
                }
        }
        *out = '\0';
        return true;
}

static bool is_key_char(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

typedef struct Parser {
        const char *path;
        ServiceFile *file;
        bool in_group;
        bool seen_group;
        unsigned line;
        ServiceFileError *err;
} Parser;

static char **key_slot(ServiceFile *file, const char *key) {
        if (!strcmp(key, "Name"))
                return &file->name;
        if (!strcmp(key, "Exec"))
                return &file->exec;
        if (!strcmp(key, "User"))
                return &file->user;
        if (!strcmp(key, "SystemdService"))
                return &file->systemd_service;
        if (!strcmp(key, "AssumedAppArmorLabel"))
                return &file->assumed_apparmor_label;
        return NULL;
}

static int parse_group(Parser *p, char *line) {
        char *end = strchr(line, ']');
        if (!end || end[1] != '\0' || end == line + 1)
                return fail(p->err, p->path, p->line, "malformed group header: %s", line);
        *end = '\0';
        p->in_group = !strcmp(line + 1, SERVICE_GROUP);
        p->seen_group = p->seen_group || p->in_group;
        return 0;
}

static int parse_key(Parser *p, char *line) {
        char *k = line;
        while (is_key_char(*k))
                k++;
        if (k == line)
                return fail(p->err, p->path, p->line, "expected \"Key=value\", a [Group] or a # comment");
        char *key_end = k;
        if (*k == '[') { /* a localised key, Name[de]=...: skip it as dbus-daemon does */
                k = strchr(k, ']');
                if (!k)
                        return fail(p->err, p->path, p->line, "unterminated locale in key");
                k++;
        }
        while (*k == ' ' || *k == '\t')
                k++;
        if (*k != '=')
                return fail(p->err, p->path, p->line, "expected '=' after the key");
        bool localised = *key_end == '[';
        *key_end = '\0';
        char *value = k + 1;
        while (*value == ' ' || *value == '\t')
                value++;
        if (!unescape(value))
                return fail(p->err, p->path, p->line, "invalid escape in the value of %s", line);
        char **slot = p->in_group && !localised ? key_slot(p->file, line) : NULL;
        if (!slot)
                return 0;
        if (*slot)
                return fail(p->err, p->path, p->line, "%s is given twice in [" SERVICE_GROUP "]", line);
        *slot = strdup(value);
        return *slot ? 0 : -ENOMEM;
}

static int parse_line(Parser *p, char *line, size_t len) {
        while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
                line[--len] = '\0';
        while (*line == ' ' || *line == '\t')
                line++;
        if (*line == '\0' || *line == '#')
                return 0;
        if (*line == '[')
                return parse_group(p, line);
        return parse_key(p, line);
}

static int check_fields(Parser *p) {
        ServiceFile *f = p->file;
        if (!p->seen_group)
                return fail(p->err, p->path, 0, "no [" SERVICE_GROUP "] group");
        if (!f->name)
                return fail(p->err, p->path, 0, "no Name= in [" SERVICE_GROUP "]");
        if (!validate_well_known_name(f->name, strlen(f->name)))
                return fail(p->err, p->path, 0, "Name=%s is not a valid well-known bus name", f->name);
        if (!f->exec)
                return fail(p->err, p->path, 0, "no Exec= in [" SERVICE_GROUP "]");
        const char *problem = NULL;
        int r = service_exec_split(f->exec, &f->argv, &problem);
        if (r > 0)
                return fail(p->err, p->path, 0, "Exec=%s: %s", f->exec, problem);
        return r;
}

int service_file_parse(const char *path, const char *text, size_t size, ServiceFile **ret,
                       ServiceFileError *err) {
        if (size > SERVICE_FILE_MAX_SIZE)
                return fail(err, path, 0, "larger than %u bytes", SERVICE_FILE_MAX_SIZE);
        if (!validate_utf8(text, size))
                return fail(err, path, 0, "not UTF-8 text (or contains a NUL byte)");
        _cleanup_(service_file_freep) ServiceFile *file = calloc(1, sizeof(*file));
        if (!file || !(file->path = strdup(path)))
                return -ENOMEM;
        Parser p = { .path = path, .file = file, .err = err };
        char buf[SERVICE_FILE_MAX_LINE + 1];
        for (size_t off = 0; off < size;) {
                const char *nl = memchr(text + off, '\n', size - off);
                size_t len = nl ? (size_t)(nl - (text + off)) : size - off;
                p.line++;
                if (len > SERVICE_FILE_MAX_LINE)
                        return fail(err, path, p.line, "line longer than %u bytes", SERVICE_FILE_MAX_LINE);
                memcpy(buf, text + off, len);
                buf[len] = '\0';
                int r = parse_line(&p, buf, len);
                if (r != 0)
                        return r;
                off += len + 1;
        }
        int r = check_fields(&p);
        if (r != 0)
                return r;
        *ret = TAKE_PTR(file);
        return 0;
}

int service_file_load(const char *path, ServiceFile **ret, ServiceFileError *err) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
                int e = errno;
                fail(err, path, 0, "%s", strerror(e));
                return -e;
        }
        if (!S_ISREG(st.st_mode))
                return fail(err, path, 0, "not a regular file");
        if (st.st_size > SERVICE_FILE_MAX_SIZE)
                return fail(err, path, 0, "larger than %u bytes", SERVICE_FILE_MAX_SIZE);
        _cleanup_free_ char *text = malloc((size_t)st.st_size + 1);
        if (!text)
                return -ENOMEM;
        size_t got = 0;
        while (got < (size_t)st.st_size) {
                ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int e = errno;
                        fail(err, path, 0, "%s", strerror(e));
                        return -e;
                }
                if (n == 0)
                        break;
                got += (size_t)n;
        }
        return service_file_parse(path, text, got, ret, err);
}
