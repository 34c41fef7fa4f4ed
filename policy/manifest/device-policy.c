/*
 * The device policy: which global tokens exist, which credentials a
 * package from each origin may be granted, which labels beyond its own a
 * package from each origin may name as owners of its bus names, which
 * global tokens it may serve, which bus names are reserved to which
 * origins, which labels may monitor, which labels may ask the bus about
 * any token of their callers (checkany: the key service's).
 *
 * The device maker writes /etc/mssf/device-policy.conf in a line format
 * (docs/manifest.md); without it the built-in default below applies, and
 * it is parsed by the same code, so the default is exactly a file one could
 * write. The file is trusted (root-owned configuration) but still parsed
 * strictly: a line we do not understand is an error with file:line, never
 * a silent widening. Grants are an allow list: an origin with no line of
 * its own and no "origin *" line gets no device-controlled credential.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "device-policy.h"
#include "manifest.h"
#include "model.h"

#define DEVICE_POLICY_MAX_SIZE (256 * 1024)
#define DEVICE_POLICY_BUILTIN "<built-in device policy>"

static const char builtin_policy[] =
        "# Global tokens of the MSSF model.\n"
        "token Cellular Location UserData Telephony NetService\n"
        "token TrackerReadAccess TrackerWriteAccess ReadUserData ReadWriteUserData\n"
        "token drm tcb\n"
        "# The platform's own packages may be granted everything.\n"
        "origin system *\n"
        "origin com.nokia.maemo *\n"
        "# An operator's packages: network, location, telephony, user data.\n"
        "origin operator Cellular Location NetService Telephony ReadUserData\n"
        "origin operator TrackerReadAccess TrackerWriteAccess\n"
        "origin operator GRP::video GRP::pulse-access GRP::metadata-users GRP::calendar\n"
        "# Third-party applications: what Harmattan allowed them.\n"
        "origin thirdparty Cellular Location NetService TrackerReadAccess TrackerWriteAccess\n"
        "origin thirdparty GRP::video GRP::pulse-access GRP::metadata-users GRP::calendar\n"
        "# Labels beyond their own that the platform's packages may name as owners.\n"
        "label system *\n"
        "label com.nokia.maemo *\n"
        "# Global tokens the platform's packages may serve (guard, reaching every holder).\n"
        "serve system *\n"
        "serve com.nokia.maemo *\n"
        "# The platform's bus names: no package of another origin may declare them first.\n"
        "name system org.freedesktop.* com.nokia.*\n"
        "name com.nokia.maemo org.freedesktop.* com.nokia.*\n"
        "# Any other or unknown origin: nothing the device controls.\n"
        "origin *\n";

/* --------------------------------------------------------------------- */
/* Matching. */

static bool pattern_matches(const char *pattern, const char *name, bool exact_only) {
        if (strcmp(pattern, "*") == 0 || strcmp(pattern, name) == 0)
                return true;
        size_t n = strlen(pattern);
        if (exact_only || n == 0 || pattern[n - 1] != '*')
                return false;
        return strncmp(pattern, name, n - 1) == 0;
}

bool device_policy_allows(const DevicePolicy *policy, const char *origin, const char *name,
                          bool check_origin_token) {
        const OriginGrant *rule = device_policy_find_origin(policy, origin);
        if (!rule)
                return false;
        for (size_t i = 0; i < rule->n_patterns; i++)
                if (pattern_matches(rule->patterns[i], name, check_origin_token))
                        return true;
        return false;
}

const char *device_policy_similar_token(const DevicePolicy *policy, const char *name) {
        for (size_t i = 0; i < policy->n_global_tokens; i++)
                if (strcasecmp(policy->global_tokens[i], name) == 0)
                        return policy->global_tokens[i];
        return NULL;
}

bool device_policy_grants_label(const DevicePolicy *policy, const char *origin,
                                const char *label) {
        const OriginGrant *rule = device_policy_find_label_origin(policy, origin);
        if (!rule)
                return false;
        for (size_t i = 0; i < rule->n_patterns; i++)
                if (pattern_matches(rule->patterns[i], label, false))
                        return true;
        return false;
}

bool device_policy_allows_serving(const DevicePolicy *policy, const char *origin,
                                  const char *token) {
        const OriginGrant *rule = device_policy_find_serve_origin(policy, origin);
        if (!rule || !device_policy_has_global_token(policy, token))
                return false;
        for (size_t i = 0; i < rule->n_patterns; i++)
                if (pattern_matches(rule->patterns[i], token, false))
                        return true;
        return false;
}

static bool origin_line_matches(const OriginGrant *rule, const char *name) {
        for (size_t i = 0; rule && i < rule->n_patterns; i++)
                if (pattern_matches(rule->patterns[i], name, false))
                        return true;
        return false;
}

bool device_policy_allows_name(const DevicePolicy *policy, const char *origin,
                               const char *name) {
        bool reserved = false;
        for (size_t i = 0; i < policy->n_name_origins && !reserved; i++)
                reserved = origin_line_matches(policy->name_origins[i], name);
        return !reserved || origin_line_matches(device_policy_find_name_origin(policy, origin),
                                                name);
}

bool device_policy_is_monitor(const DevicePolicy *policy, const char *label) {
        return model_strv_contains(policy->monitor_labels, policy->n_monitor_labels, label);
}

bool device_policy_is_checkany(const DevicePolicy *policy, const char *label) {
        return model_strv_contains(policy->checkany_labels, policy->n_checkany_labels, label);
}

/* --------------------------------------------------------------------- */
/* The line format. */

typedef struct LineParser {
        DevicePolicy *policy;
        Diagnostics *diag;
        const char *file;
        unsigned line;
        size_t n_errors;
} LineParser;

static int line_error(LineParser *lp, unsigned column, const char *format, ...) _printf_(3, 4);
static int line_error(LineParser *lp, unsigned column, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        int r = diagnostics_addv(lp->diag, DIAGNOSTIC_ERROR, lp->file, lp->line, column, format, ap);
        va_end(ap);
        lp->n_errors++;
        return r;
}

/* A pattern: a credential name, optionally ending in one '*'. */
static bool valid_pattern(const char *s) {
        const char *star = strchr(s, '*');
        if (star && star[1] != '\0')
                return false;
        return manifest_valid_label(s);
}

static int add_token(LineParser *lp, const char *word, unsigned column) {
        if (!manifest_valid_label(word) || strstr(word, "::") || strchr(word, '*'))
                return line_error(lp, column, "'%s' is not a global token name: a Smack label "
                                  "without '::' or '*' (package tokens are declared in their "
                                  "manifests)", word);
        if (device_policy_has_global_token(lp->policy, word))
                return 0;
        return model_strv_append(&lp->policy->global_tokens, &lp->policy->n_global_tokens, word);
}

static int add_monitor(LineParser *lp, const char *word, unsigned column) {
        if (!manifest_valid_label(word) || strcmp(word, "*") == 0)
                return line_error(lp, column, "'%s' is not a valid Smack label for monitor", word);
        if (device_policy_is_monitor(lp->policy, word))
                return 0;
        return model_strv_append(&lp->policy->monitor_labels, &lp->policy->n_monitor_labels, word);
}

/*
 * A checkany label: one package's label, exactly. Never a pattern, a
 * token or one of Smack's special labels: the right is a device maker's
 * decision about one service, and "*" or "_" would hand it to everyone.
 */
static int add_checkany(LineParser *lp, const char *word, unsigned column) {
        static const char *const special[] = { "_", "*", "^", "@" };
        bool is_special = false;

        for (size_t i = 0; i < ELEMENTSOF(special); i++)
                is_special = is_special || strcmp(word, special[i]) == 0;
        if (!manifest_valid_label(word) || is_special || strchr(word, '*') || strstr(word, "::"))
                return line_error(lp, column, "'%s' is not a label for checkany: one "
                                  "package's Smack label (not _, *, ^, @, a pattern or a "
                                  "token)", word);
        if (device_policy_is_checkany(lp->policy, word))
                return 0;
        return model_strv_append(&lp->policy->checkany_labels, &lp->policy->n_checkany_labels, word);
}

/* origin's line among *rules (origin or label lines), made if it is the first. */
static OriginGrant *origin_rule(LineParser *lp, OriginGrant ***rules, size_t *n_rules,
                                const char *origin, unsigned column, int *r) {
        for (size_t i = 0; i < *n_rules; i++)
                if (strcmp((*rules)[i]->origin, origin) == 0)
                        return (*rules)[i];
        SourceLoc loc = { .file = lp->policy->file, .line = lp->line, .column = column };
        OriginGrant *o = NULL;
        *r = origin_grant_new(origin, loc, &o);
        if (*r < 0)
                return NULL;
        *r = MODEL_APPEND(*rules, *n_rules, o);
        if (*r < 0)
                return origin_grant_free(o);
        return o;
}

/* A label pattern: a label or a prefix ending in '*', never one of Smack's special labels. */
static bool valid_label_pattern(const char *s) {
        static const char *const special[] = { "_", "^", "@" };
        for (size_t i = 0; i < ELEMENTSOF(special); i++)
                if (strcmp(s, special[i]) == 0)
                        return false;
        return valid_pattern(s) && !strstr(s, "::");
}

typedef enum OriginLine {
        ORIGIN_LINE_GRANTS,             /* origin: credentials */
        ORIGIN_LINE_LABELS,             /* label: labels beyond its own */
        ORIGIN_LINE_SERVES,             /* serve: global tokens */
        ORIGIN_LINE_NAMES,              /* name: bus names reserved to it */
} OriginLine;

/* A bus-name pattern: [A-Za-z0-9_.-] and at most a final '*' (org.freedesktop.*). */
static bool valid_name_pattern(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n > 255 || strcmp(s, "*") == 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
                          (c == '*' && i == n - 1);
                if (!ok)
                        return false;
        }
        return true;
}

/* A serve pattern: a global token name, or a prefix of them ending in '*'. */
static bool valid_serve_pattern(const char *s) {
        return valid_pattern(s) && !strstr(s, "::");
}

/* "origin|label|serve NAME PATTERN...". */
static int parse_origin_line(LineParser *lp, char **words, unsigned *columns, size_t n,
                             OriginLine kind) {
        bool labels = kind == ORIGIN_LINE_LABELS;
        int r = 0;
        if (n < 2)
                return line_error(lp, columns[0], labels ?
                                  "label needs an origin: write label ORIGIN [PATTERN...], "
                                  "e.g. label operator com.operator.*" :
                                  kind == ORIGIN_LINE_SERVES ?
                                  "serve needs an origin: write serve ORIGIN [PATTERN...], "
                                  "e.g. serve operator Cellular" :
                                  kind == ORIGIN_LINE_NAMES ?
                                  "name needs an origin: write name ORIGIN [PATTERN...], "
                                  "e.g. name operator com.operator.*" :
                                  "origin needs a name: write origin NAME [PATTERN...], "
                                  "e.g. origin operator Cellular");
        if (!manifest_valid_label(words[1]) || (strchr(words[1], '*') && strcmp(words[1], "*") != 0))
                return line_error(lp, columns[1], "'%s' is not a valid origin name "
                                  "(or * for any other origin)", words[1]);
        if (kind == ORIGIN_LINE_NAMES && strcmp(words[1], "*") == 0)
                return line_error(lp, columns[1], "name lines reserve bus names to an origin: "
                                  "a name reserved to every origin is reserved to none");
        OriginGrant *o = labels ?
                origin_rule(lp, &lp->policy->label_origins, &lp->policy->n_label_origins,
                            words[1], columns[0], &r) :
                kind == ORIGIN_LINE_SERVES ?
                origin_rule(lp, &lp->policy->serve_origins, &lp->policy->n_serve_origins,
                            words[1], columns[0], &r) :
                kind == ORIGIN_LINE_NAMES ?
                origin_rule(lp, &lp->policy->name_origins, &lp->policy->n_name_origins,
                            words[1], columns[0], &r) :
                origin_rule(lp, &lp->policy->origins, &lp->policy->n_origins, words[1],
                            columns[0], &r);
        for (size_t i = 2; i < n && r >= 0; i++) {
                if (kind == ORIGIN_LINE_NAMES && !valid_name_pattern(words[i]))
                        r = line_error(lp, columns[i], "'%s' is not a bus name pattern: a "
                                       "well-known name or a prefix ending in * "
                                       "(org.freedesktop.*)", words[i]);
                else if (kind == ORIGIN_LINE_SERVES && !valid_serve_pattern(words[i]))
                        r = line_error(lp, columns[i], "'%s' is not a pattern of global tokens: "
                                       "a global token's name or a prefix ending in * "
                                       "(Cellular, Tracker*, *); a package serves its own "
                                       "tokens without a line", words[i]);
                else if (labels && !valid_label_pattern(words[i]))
                        r = line_error(lp, columns[i], "'%s' is not a label pattern: a Smack "
                                       "label (not _, ^, @ or a token's pkg::name) or a prefix "
                                       "ending in * (com.example.*, *)", words[i]);
                else if (kind == ORIGIN_LINE_GRANTS && !valid_pattern(words[i]))
                        r = line_error(lp, columns[i], "'%s' is not a credential pattern: "
                                       "a name (Cellular, GRP::video, pkg::Token) or a "
                                       "prefix ending in * (CAP::*, *)", words[i]);
                else if (!model_strv_contains(o->patterns, o->n_patterns, words[i]))
                        r = model_strv_append(&o->patterns, &o->n_patterns, words[i]);
        }
        return r;
}

/* Split a line in place into words; returns how many (at most max). */
static size_t split_words(char *line, char **words, unsigned *columns, size_t max, bool *overflow) {
        size_t n = 0;
        char *s = line;
        *overflow = false;
        for (;;) {
                s += strspn(s, " \t\r");
                if (*s == '\0' || *s == '#')
                        return n;
                if (n == max) {
                        *overflow = true;
                        return n;
                }
                words[n] = s;
                columns[n] = (unsigned) (s - line) + 1;
                n++;
                s += strcspn(s, " \t\r");
                if (*s)
                        *s++ = '\0';
        }
}

#define MAX_WORDS 64

static int parse_line(LineParser *lp, char *line) {
        char *words[MAX_WORDS];
        unsigned columns[MAX_WORDS];
        bool overflow;
        size_t n = split_words(line, words, columns, MAX_WORDS, &overflow);
        if (overflow)
                return line_error(lp, columns[MAX_WORDS - 1], "more than %d words on one line: "
                                  "split it (lines of one keyword add up)", MAX_WORDS - 1);
        if (n == 0)
                return 0;
        int r = 0;
        if (strcmp(words[0], "token") == 0) {
                for (size_t i = 1; i < n && r >= 0; i++)
                        r = add_token(lp, words[i], columns[i]);
        } else if (strcmp(words[0], "monitor") == 0) {
                for (size_t i = 1; i < n && r >= 0; i++)
                        r = add_monitor(lp, words[i], columns[i]);
        } else if (strcmp(words[0], "checkany") == 0) {
                for (size_t i = 1; i < n && r >= 0; i++)
                        r = add_checkany(lp, words[i], columns[i]);
        } else if (strcmp(words[0], "origin") == 0) {
                r = parse_origin_line(lp, words, columns, n, ORIGIN_LINE_GRANTS);
        } else if (strcmp(words[0], "label") == 0) {
                r = parse_origin_line(lp, words, columns, n, ORIGIN_LINE_LABELS);
        } else if (strcmp(words[0], "serve") == 0) {
                r = parse_origin_line(lp, words, columns, n, ORIGIN_LINE_SERVES);
        } else if (strcmp(words[0], "name") == 0) {
                r = parse_origin_line(lp, words, columns, n, ORIGIN_LINE_NAMES);
        } else
                return line_error(lp, columns[0], "unknown keyword '%s': lines start with "
                                  "token, origin, label, serve, name, monitor or checkany",
                                  words[0]);
        return r;
}

int device_policy_parse_buffer(const char *data, size_t size, const char *file,
                               Diagnostics *diag, DevicePolicy **ret) {
        _cleanup_(device_policy_freep) DevicePolicy *policy = NULL;
        int r = device_policy_new(&policy);
        if (r < 0)
                return r;
        if (model_strdup(file, &policy->file) < 0)
                return -ENOMEM;
        LineParser lp = { .policy = policy, .diag = diag, .file = file ? file : DEVICE_POLICY_BUILTIN };
        if (memchr(data, '\0', size)) {
                line_error(&lp, 0, "the file contains a NUL byte: it must be text");
                return DEVICE_POLICY_E_INVALID;
        }
        _cleanup_free_ char *copy = strndup(data, size);
        if (!copy)
                return -ENOMEM;
        char *save = NULL;
        char *s = copy;
        /* strtok_r would merge empty lines and shift the numbering. */
        for (char *line = s; line; line = save) {
                char *nl = strchr(line, '\n');
                save = nl ? nl + 1 : NULL;
                if (nl)
                        *nl = '\0';
                lp.line++;
                r = parse_line(&lp, line);
                if (r < 0)
                        return r;
        }
        if (lp.n_errors > 0)
                return DEVICE_POLICY_E_INVALID;
        *ret = TAKE_PTR(policy);
        return 0;
}

int device_policy_new_default(DevicePolicy **ret) {
        int r = device_policy_parse_buffer(builtin_policy, sizeof(builtin_policy) - 1, NULL, NULL, ret);
        /* The built-in text is fixed; it cannot be invalid. */
        return r > 0 ? -EINVAL : r;
}

int device_policy_parse_file(const char *path, Diagnostics *diag, DevicePolicy **ret) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode) || st.st_size > DEVICE_POLICY_MAX_SIZE)
                return diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0, "not a regular file "
                                       "of at most %d bytes", DEVICE_POLICY_MAX_SIZE)
                       ?: DEVICE_POLICY_E_INVALID;
        _cleanup_free_ char *buf = malloc(DEVICE_POLICY_MAX_SIZE + 1);
        if (!buf)
                return -ENOMEM;
        size_t size = 0;
        for (;;) {
                ssize_t n = read(fd, buf + size, DEVICE_POLICY_MAX_SIZE + 1 - size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                size += (size_t) n;
                if (size > DEVICE_POLICY_MAX_SIZE)
                        return diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0, "larger than "
                                               "%d bytes", DEVICE_POLICY_MAX_SIZE)
                               ?: DEVICE_POLICY_E_INVALID;
        }
        return device_policy_parse_buffer(buf, size, path, diag, ret);
}

int device_policy_load(const char *path, Diagnostics *diag, DevicePolicy **ret) {
        int r = device_policy_parse_file(path ? path : DEVICE_POLICY_PATH, diag, ret);
        if (r == -ENOENT)
                return device_policy_new_default(ret);
        return r;
}
