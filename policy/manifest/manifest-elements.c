/*
 * The manifest's elements: where each may appear, which attributes it
 * takes, and how it builds or merges into the model.
 *
 * Three tables say what is allowed: the attributes of each element, the
 * children each element may have, and the misplacements real files make
 * that are tolerated with a warning (ignoring them never opens anything).
 * Everything else is an error with the position and what to write
 * instead; an error skips the element's subtree so one mistake is reported
 * once. Repeated declarations merge (an interface three times in a node,
 * a name in two <dbus> blocks); a member that would then need two
 * different tokens is an error, never a silent choice.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "manifest-internal.h"
#include "token-name.h"
#include "model.h"

/* --------------------------------------------------------------------- */
/* Tables. */

typedef struct ElementSpec {
        const char *name;
        const char *const *attrs;       /* allowed attributes, NULL-terminated */
} ElementSpec;

static const char *const attrs_none[] = { NULL };
static const char *const attrs_aegis[] = { "name", NULL };
static const char *const attrs_request[] = { "policy", "context", NULL };
static const char *const attrs_request_credential[] = { "name", "match", NULL };
static const char *const attrs_for[] = { "path", "id", NULL };
static const char *const attrs_provide_credential[] = { "name", "checkorigin", NULL };
static const char *const attrs_dbus[] = { "name", "bus", "own", NULL };
static const char *const attrs_owner[] = { "label", NULL };
static const char *const attrs_name[] = { "name", NULL };
static const char *const attrs_property[] = { "name", "access", "type", NULL };
static const char *const attrs_arg[] = { "name", "type", "direction", NULL };
static const char *const attrs_annotation[] = { "name", "value", NULL };
static const char *const attrs_user[] = { "name", "group", NULL };

static const ElementSpec specs[_ELEMENT_MAX] = {
        [ELEMENT_AEGIS] = { "aegis", attrs_aegis },
        [ELEMENT_REQUEST] = { "request", attrs_request },
        [ELEMENT_REQUEST_CREDENTIAL] = { "credential", attrs_request_credential },
        [ELEMENT_FOR] = { "for", attrs_for },
        [ELEMENT_PROVIDE] = { "provide", attrs_none },
        [ELEMENT_PROVIDE_CREDENTIAL] = { "credential", attrs_provide_credential },
        [ELEMENT_DBUS] = { "dbus", attrs_dbus },
        [ELEMENT_OWNER] = { "owner", attrs_owner },
        [ELEMENT_NODE] = { "node", attrs_name },
        [ELEMENT_INTERFACE] = { "interface", attrs_name },
        [ELEMENT_METHOD] = { "method", attrs_name },
        [ELEMENT_SIGNAL] = { "signal", attrs_name },
        [ELEMENT_PROPERTY] = { "property", attrs_property },
        [ELEMENT_ARG] = { "arg", attrs_arg },
        [ELEMENT_ANNOTATION] = { "annotation", attrs_annotation },
        [ELEMENT_ACCOUNT] = { "account", attrs_none },
        [ELEMENT_USER] = { "user", attrs_user },
        [ELEMENT_DOCSTRING] = { "docstring", NULL },
        [ELEMENT_SKIPPED] = { "(skipped)", NULL },
};

typedef struct ChildRule {
        ElementKind parent;
        const char *name;
        ElementKind child;
} ChildRule;

static const ChildRule child_rules[] = {
        { ELEMENT_AEGIS, "request", ELEMENT_REQUEST },
        { ELEMENT_AEGIS, "provide", ELEMENT_PROVIDE },
        { ELEMENT_AEGIS, "account", ELEMENT_ACCOUNT },
        { ELEMENT_REQUEST, "credential", ELEMENT_REQUEST_CREDENTIAL },
        { ELEMENT_REQUEST, "for", ELEMENT_FOR },
        { ELEMENT_PROVIDE, "credential", ELEMENT_PROVIDE_CREDENTIAL },
        { ELEMENT_PROVIDE, "dbus", ELEMENT_DBUS },
        { ELEMENT_DBUS, "node", ELEMENT_NODE },
        { ELEMENT_DBUS, "owner", ELEMENT_OWNER },
        { ELEMENT_NODE, "interface", ELEMENT_INTERFACE },
        { ELEMENT_INTERFACE, "method", ELEMENT_METHOD },
        { ELEMENT_INTERFACE, "signal", ELEMENT_SIGNAL },
        { ELEMENT_INTERFACE, "property", ELEMENT_PROPERTY },
        { ELEMENT_INTERFACE, "annotation", ELEMENT_ANNOTATION },
        { ELEMENT_METHOD, "annotation", ELEMENT_ANNOTATION },
        { ELEMENT_METHOD, "arg", ELEMENT_ARG },
        { ELEMENT_SIGNAL, "annotation", ELEMENT_ANNOTATION },
        { ELEMENT_SIGNAL, "arg", ELEMENT_ARG },
        { ELEMENT_PROPERTY, "annotation", ELEMENT_ANNOTATION },
        { ELEMENT_ACCOUNT, "user", ELEMENT_USER },
};

const char *parser_element_name(ElementKind kind) {
        return (size_t) kind < ELEMENTSOF(specs) ? specs[kind].name : "?";
}

/* --------------------------------------------------------------------- */
/* Attributes. */

static int attr_index(const char *const *allowed, const char *name) {
        for (int i = 0; allowed[i]; i++)
                if (strcmp(allowed[i], name) == 0)
                        return i;
        return -1;
}

static void list_allowed(const char *const *allowed, char *buf, size_t size) {
        buf[0] = '\0';
        for (size_t i = 0; allowed[i]; i++) {
                size_t len = strlen(buf);
                snprintf(buf + len, size - len, "%s%s", i ? ", " : "", allowed[i]);
        }
}

/* Fill values[] (indexed like the spec's attrs); false after an error. */
static bool collect_attrs(Parser *p, ElementKind kind, const char **attrs, const SourceLoc *loc,
                          const char **values) {
        const char *const *allowed = specs[kind].attrs;
        bool ok = true;
        for (size_t i = 0; attrs[i]; i += 2) {
                int index = attr_index(allowed, attrs[i]);
                if (index >= 0) {
                        values[index] = attrs[i + 1];
                        continue;
                }
                char list[128];
                list_allowed(allowed, list, sizeof(list));
                if (list[0])
                        parser_error(p, loc, "unknown attribute '%s' on <%s>: it takes %s",
                                     attrs[i], specs[kind].name, list);
                else
                        parser_error(p, loc, "unknown attribute '%s' on <%s>: it takes none",
                                     attrs[i], specs[kind].name);
                ok = false;
        }
        return ok;
}

bool parser_require_attr(Parser *p, ElementKind kind, const char *value, const char *attr,
                         const SourceLoc *loc, const char *example) {
        if (value)
                return true;
        parser_error(p, loc, "<%s> needs a %s attribute, e.g. %s", specs[kind].name, attr, example);
        return false;
}

/* --------------------------------------------------------------------- */
/* Token names. */

/* The package's own tokens: all it provides once known (parse_again), else those so far. */
static bool package_provides(const char *package, const char *name, void *userdata) {
        const Parser *p = userdata;

        if (p->provided_known)
                return model_strv_contains(p->provided, p->n_provided, name);
        return package_find_token(p->package, name) != NULL;
}

/* A bare name taken as global before the file said whether it provides it. */
static int remember_global(Parser *p, const char *name) {
        if (p->provided_known || model_strv_contains(p->globals, p->n_globals, name))
                return 0;
        return model_strv_append(&p->globals, &p->n_globals, name);
}

/* policy_token_resolve() is the one rule, shared with the bus (CheckToken). */
int parser_resolve_token(Parser *p, const char *written, const SourceLoc *loc,
                         const char *what, char **ret_label, char **ret_provider) {
        char resolved[POLICY_TOKEN_LABEL_SIZE];
        const char *sep = strstr(written, "::");
        _cleanup_free_ char *provider = NULL;
        _cleanup_free_ char *label = NULL;
        int r = policy_token_resolve(written, p->package->name, package_provides, p, resolved,
                                     sizeof(resolved));

        if (r == POLICY_TOKEN_E_POSIX) {
                parser_error(p, loc, "%s '%s' is a POSIX credential: only a resource token "
                             "can be named here", what, written);
                return MANIFEST_E_INVALID;
        }
        if (r == POLICY_TOKEN_E_INVALID) {
                parser_error(p, loc, "%s '%s' is not a valid token name: write Token or "
                             "package::Token (at most %d characters, no whitespace, '/', "
                             "quotes or backslash)", what, written, MANIFEST_MAX_LABEL);
                return MANIFEST_E_INVALID;
        }
        if (r == POLICY_TOKEN_E_PACKAGE) {
                parser_error(p, loc, "%s '%s': '%.*s' is not a valid package name", what, written,
                             (int) (sep - written), written);
                return MANIFEST_E_INVALID;
        }
        if (r == POLICY_TOKEN_E_TOO_LONG) {
                parser_error(p, loc, "%s '%s': its label '%s::%s' is longer than %d characters",
                             what, written, p->package->name, written, MANIFEST_MAX_LABEL);
                return MANIFEST_E_INVALID;
        }
        if (r != 0)
                return parser_fail(p, r < 0 ? r : -EINVAL);
        label = strdup(resolved);
        if (!label)
                return parser_fail(p, -ENOMEM);
        /* The provider: the package part of the label, none for a global token. */
        sep = strstr(resolved, "::");
        if (sep) {
                provider = strndup(resolved, (size_t) (sep - resolved));
                if (!provider)
                        return parser_fail(p, -ENOMEM);
        } else if (remember_global(p, written) < 0) {
                return parser_fail(p, -ENOMEM);
        }
        *ret_label = TAKE_PTR(label);
        *ret_provider = TAKE_PTR(provider);
        return 0;
}

/* --------------------------------------------------------------------- */
/* <request> and what it holds. */

static const struct {
        const char *name;
        unsigned flag;
} policy_flags[] = {
        { "add", REQUEST_POLICY_ADD },
        { "set", REQUEST_POLICY_SET },
        { "not-inheritable", REQUEST_POLICY_NOT_INHERITABLE },
        { "trust-zone", REQUEST_POLICY_TRUST_ZONE },
        { "setxid", REQUEST_POLICY_SETXID },
};

static int parse_policy_flags(Parser *p, const char *value, const SourceLoc *loc, unsigned *ret) {
        unsigned flags = 0;
        const char *s = value;
        while (*s) {
                s += strspn(s, " \t\r\n");
                size_t n = strcspn(s, " \t\r\n");
                if (n == 0)
                        break;
                size_t i;
                for (i = 0; i < ELEMENTSOF(policy_flags); i++)
                        if (strlen(policy_flags[i].name) == n && memcmp(s, policy_flags[i].name, n) == 0)
                                break;
                if (i == ELEMENTSOF(policy_flags)) {
                        parser_error(p, loc, "unknown request policy flag '%.*s': use add, set, "
                                     "not-inheritable, trust-zone or setxid", (int) n, s);
                        return MANIFEST_E_INVALID;
                }
                flags |= policy_flags[i].flag;
                s += n;
        }
        *ret = flags;
        return 0;
}

static void on_request(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        /* v: policy, context */
        _cleanup_(request_freep) Request *request = NULL;
        unsigned flags = 0;
        if (v[0] && parse_policy_flags(p, v[0], &frame->loc, &flags) != 0)
                return;
        if (v[1] && strcmp(v[1], "INSTALL") != 0) {
                parser_error(p, &frame->loc, "unknown request context '%s': the only context "
                             "is INSTALL", v[1]);
                return;
        }
        if (request_new(frame->loc, &request) < 0)
                return (void) parser_fail(p, -ENOMEM);
        request->policy = flags;
        request->context_install = v[1] != NULL;
        if (MODEL_APPEND(p->package->requests, p->package->n_requests, request) < 0)
                return (void) parser_fail(p, -ENOMEM);
        frame->object = TAKE_PTR(request);
        frame->kind = ELEMENT_REQUEST;
}

static const struct {
        const char *prefix;
        CredentialKind kind;
} posix_kinds[] = {
        { "UID::", CREDENTIAL_UID },
        { "GID::", CREDENTIAL_GID },
        { "GRP::", CREDENTIAL_GRP },
        { "CAP::", CREDENTIAL_CAP },
};

/* "CAP::CAP_NET_ADMIN" -> "CAP::net_admin", with a warning. */
static char *normalize_capability(Parser *p, const char *written, const SourceLoc *loc) {
        const char *cap = written + 5;
        if (strncasecmp(cap, "cap_", 4) == 0)
                cap += 4;
        char *name;
        if (asprintf(&name, "CAP::%s", cap) < 0)
                return NULL;
        for (char *c = name + 5; *c; c++)
                if (*c >= 'A' && *c <= 'Z')
                        *c = (char) (*c - 'A' + 'a');
        if (strcmp(name, written) != 0)
                parser_warning(p, loc, "capability '%s' is written '%s' (lower case, no CAP_ "
                               "prefix)", written, name);
        return name;
}

static int posix_credential(Parser *p, const char *written, size_t k, const SourceLoc *loc,
                            Credential **ret) {
        const char *value = written + strlen(posix_kinds[k].prefix);
        if (!manifest_valid_label(value) || strstr(value, "::")) {
                parser_error(p, loc, "'%s' names no %.3s: write %s followed by a name, e.g. "
                             "GRP::video or CAP::net_admin", written, written,
                             posix_kinds[k].prefix);
                return MANIFEST_E_INVALID;
        }
        _cleanup_free_ char *name = posix_kinds[k].kind == CREDENTIAL_CAP ?
                normalize_capability(p, written, loc) : strdup(written);
        if (!name)
                return parser_fail(p, -ENOMEM);
        if (credential_new(posix_kinds[k].kind, name, written, NULL, *loc, ret) < 0)
                return parser_fail(p, -ENOMEM);
        return 0;
}

static int request_credential(Parser *p, const char *name, const char *match,
                              const SourceLoc *loc, Credential **ret) {
        if (!!name == !!match) {
                parser_error(p, loc, "<credential> in <request> needs exactly one of name "
                             "(e.g. name=\"Cellular\") or match (e.g. match=\"CAP::*\")");
                return MANIFEST_E_INVALID;
        }
        if (match) {
                if (!manifest_valid_label(match)) {
                        parser_error(p, loc, "match '%s' is not a valid pattern: a credential "
                                     "name with '*' wildcards, no whitespace", match);
                        return MANIFEST_E_INVALID;
                }
                return credential_new(CREDENTIAL_MATCH, match, match, NULL, *loc, ret) < 0 ?
                        parser_fail(p, -ENOMEM) : 0;
        }
        for (size_t k = 0; k < ELEMENTSOF(posix_kinds); k++)
                if (strncmp(name, posix_kinds[k].prefix, 5) == 0)
                        return posix_credential(p, name, k, loc, ret);
        _cleanup_free_ char *label = NULL, *provider = NULL;
        int r = parser_resolve_token(p, name, loc, "credential", &label, &provider);
        if (r != 0)
                return r;
        return credential_new(CREDENTIAL_TOKEN, label, name, provider, *loc, ret) < 0 ?
                parser_fail(p, -ENOMEM) : 0;
}

static void on_request_credential(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        Request *request = parent->object;
        _cleanup_(credential_freep) Credential *c = NULL;
        if (request_credential(p, v[0], v[1], &frame->loc, &c) != 0)
                return;
        if (MODEL_APPEND(request->credentials, request->n_credentials, c) < 0)
                return (void) parser_fail(p, -ENOMEM);
        TAKE_PTR(c);
        frame->kind = ELEMENT_REQUEST_CREDENTIAL;
}

/* "/usr/bin/x" or "pkg::/usr/bin/x" */
static int split_for_path(Parser *p, const char *value, const SourceLoc *loc,
                          char **ret_package, const char **ret_path) {
        const char *sep = strstr(value, "::");
        const char *path = sep ? sep + 2 : value;
        _cleanup_free_ char *package = sep ? strndup(value, (size_t) (sep - value)) : NULL;
        if (sep && !package)
                return parser_fail(p, -ENOMEM);
        if (path[0] != '/' || (package && !manifest_valid_package_label(package))) {
                parser_error(p, loc, "for path '%s' is not an absolute path: write "
                             "/usr/bin/program, or package::/usr/bin/program for another "
                             "package's binary", value);
                return MANIFEST_E_INVALID;
        }
        /* A name of the file itself: what "..", "." or "//" would spell is another name. */
        if (!manifest_valid_file_path(path)) {
                parser_error(p, loc, "for path '%s' is not a normal path: no \".\", \"..\" or "
                             "empty component and no trailing '/'; name the file itself, e.g. "
                             "/usr/bin/program", value);
                return MANIFEST_E_INVALID;
        }
        *ret_package = TAKE_PTR(package);
        *ret_path = path;
        return 0;
}

static void on_for(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        /* v: path, id */
        Request *request = parent->object;
        if (!v[0] && !v[1]) {
                parser_error(p, &frame->loc, "<for> needs a path attribute, e.g. "
                             "path=\"/usr/bin/program\" (or an id)");
                return;
        }
        _cleanup_free_ char *package = NULL;
        const char *path = NULL;
        if (v[0] && split_for_path(p, v[0], &frame->loc, &package, &path) != 0)
                return;
        _cleanup_(request_target_freep) RequestTarget *t = NULL;
        if (request_target_new(path, package, v[1], frame->loc, &t) < 0 ||
            MODEL_APPEND(request->targets, request->n_targets, t) < 0)
                return (void) parser_fail(p, -ENOMEM);
        TAKE_PTR(t);
        frame->kind = ELEMENT_FOR;
}

/* --------------------------------------------------------------------- */
/* <provide>: tokens and D-Bus names. */

static bool parse_yes_no(const char *value, bool *ret) {
        if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0) {
                *ret = true;
                return true;
        }
        if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0) {
                *ret = false;
                return true;
        }
        return false;
}

static void on_provide_credential(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        /* v: name, checkorigin */
        if (!parser_require_attr(p, ELEMENT_PROVIDE_CREDENTIAL, v[0], "name", &frame->loc,
                          "name=\"DeviceModeControl\""))
                return;
        bool check_origin = false;
        if (v[1] && !parse_yes_no(v[1], &check_origin)) {
                parser_error(p, &frame->loc, "checkorigin='%s': write checkorigin=\"yes\" "
                             "(or leave it out)", v[1]);
                return;
        }
        const char *name = v[0];
        size_t n = strlen(p->package->name);
        if (strncmp(name, p->package->name, n) == 0 && strncmp(name + n, "::", 2) == 0)
                name += n + 2;
        if (strstr(name, "::")) {
                parser_error(p, &frame->loc, "a package provides only its own tokens: write "
                             "name=\"%s\" without a package, others then name it %s::%s",
                             strstr(name, "::") + 2, p->package->name, strstr(name, "::") + 2);
                return;
        }
        _cleanup_(provided_token_freep) ProvidedToken *t = NULL;
        if (provided_token_new(p->package->name, name, check_origin, frame->loc, &t) < 0)
                return (void) parser_fail(p, -ENOMEM);
        if (!manifest_valid_label(name) || !manifest_valid_label(t->label)) {
                parser_error(p, &frame->loc, "'%s' is not a valid token name: at most %d "
                             "characters with the package name, no whitespace, '/', quotes "
                             "or backslash", v[0], MANIFEST_MAX_LABEL);
                return;
        }
        frame->kind = ELEMENT_PROVIDE_CREDENTIAL;
        for (size_t i = 0; i < p->package->n_tokens; i++) {
                ProvidedToken *old = p->package->tokens[i];
                if (strcmp(old->name, name) == 0) {
                        /* Declared twice: merge; checkorigin anywhere makes it strict. */
                        old->check_origin = old->check_origin || check_origin;
                        return;
                }
        }
        if (MODEL_APPEND(p->package->tokens, p->package->n_tokens, t) < 0)
                return (void) parser_fail(p, -ENOMEM);
        TAKE_PTR(t);
        /* An earlier bare use of this name was resolved as a global token. */
        if (!p->provided_known && model_strv_contains(p->globals, p->n_globals, name))
                p->rerun = true;
}

/* --------------------------------------------------------------------- */
/* The rest. */

static void on_plain(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        /* provide, account, arg: nothing to build. */
}

static void on_aegis(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        /* Where to point at what concerns the whole package (its name). */
        p->package->loc = frame->loc;
        frame->kind = ELEMENT_AEGIS;
}

static void on_user(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        /* v: name, group */
        if (!parser_require_attr(p, ELEMENT_USER, v[0], "name", &frame->loc, "name=\"myservice\""))
                return;
        if (!manifest_valid_label(v[0]) || (v[1] && !manifest_valid_label(v[1]))) {
                parser_error(p, &frame->loc, "<user> name and group must be non-empty, "
                             "without whitespace, '/', quotes or backslash");
                return;
        }
        _cleanup_(account_freep) Account *a = NULL;
        if (account_new(v[0], v[1], frame->loc, &a) < 0 ||
            MODEL_APPEND(p->package->accounts, p->package->n_accounts, a) < 0)
                return (void) parser_fail(p, -ENOMEM);
        TAKE_PTR(a);
        frame->kind = ELEMENT_USER;
}

typedef void (*ElementHandler)(Parser *p, Frame *frame, const Frame *parent, const char **values);

static const ElementHandler handlers[_ELEMENT_MAX] = {
        [ELEMENT_AEGIS] = on_aegis,
        [ELEMENT_REQUEST] = on_request,
        [ELEMENT_REQUEST_CREDENTIAL] = on_request_credential,
        [ELEMENT_FOR] = on_for,
        [ELEMENT_PROVIDE] = on_plain,
        [ELEMENT_PROVIDE_CREDENTIAL] = on_provide_credential,
        [ELEMENT_DBUS] = parser_on_dbus,
        [ELEMENT_OWNER] = parser_on_owner,
        [ELEMENT_NODE] = parser_on_node,
        [ELEMENT_INTERFACE] = parser_on_interface,
        [ELEMENT_METHOD] = parser_on_method,
        [ELEMENT_SIGNAL] = parser_on_signal,
        [ELEMENT_PROPERTY] = parser_on_property,
        [ELEMENT_ARG] = on_plain,
        [ELEMENT_ANNOTATION] = parser_on_annotation,
        [ELEMENT_ACCOUNT] = on_plain,
        [ELEMENT_USER] = on_user,
};

/* --------------------------------------------------------------------- */
/* Placement. */

static void list_children(ElementKind parent, char *buf, size_t size) {
        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(child_rules); i++) {
                if (child_rules[i].parent != parent)
                        continue;
                size_t len = strlen(buf);
                snprintf(buf + len, size - len, "%s<%s>", len ? ", " : "", child_rules[i].name);
        }
}

/* An open ancestor that name could be a child of: its end tag is probably missing. */
static const Frame *unclosed_ancestor(const Parser *p, const char *name) {
        for (unsigned i = p->depth; i > 1; i--) {
                const Frame *ancestor = &p->stack[i - 2];
                for (size_t j = 0; j < ELEMENTSOF(child_rules); j++)
                        if (child_rules[j].parent == ancestor->kind &&
                            strcmp(child_rules[j].name, name) == 0)
                                return &p->stack[i - 1];
        }
        return NULL;
}

static void unknown_element(Parser *p, const Frame *parent, const char *name, const SourceLoc *loc) {
        const Frame *unclosed = unclosed_ancestor(p, name);
        if (unclosed) {
                const char *uname = parser_element_name(unclosed->kind);
                parser_error(p, loc, "<%s> cannot be inside <%s>: is </%s> missing (<%s> opened "
                             "at line %u column %u)?", name, parser_element_name(parent->kind),
                             uname, uname, unclosed->loc.line, unclosed->loc.column);
                return;
        }
        char list[256];
        list_children(parent->kind, list, sizeof(list));
        const char *pname = parser_element_name(parent->kind);
        if (!list[0])
                parser_error(p, loc, "unknown element <%s> inside <%s>: <%s> has no children",
                             name, pname, pname);
        else if (parent->kind == ELEMENT_PROVIDE || parent->kind == ELEMENT_DBUS ||
                 parent->kind == ELEMENT_NODE || parent->kind == ELEMENT_INTERFACE)
                parser_error(p, loc, "unknown element <%s> inside <%s>: expected %s (what the "
                             "policy does not understand could leave a service open)",
                             name, pname, list);
        else
                parser_error(p, loc, "unknown element <%s> inside <%s>: expected %s",
                             name, pname, list);
}

/* Misplacements of real files, ignored with a warning; true if name was one. */
static bool tolerated(Parser *p, const Frame *parent, const char *name, const char **attrs,
                      const SourceLoc *loc, Frame *frame) {
        if (strcmp(name, "docstring") == 0) {
                frame->kind = ELEMENT_DOCSTRING;
                return true;
        }
        if (strcmp(name, "constraint") == 0 || strcmp(name, "domain") == 0) {
                parser_warning(p, loc, "<%s> is not enforced by this policy: ignored", name);
                return true;
        }
        if (strcmp(name, "for") == 0 &&
            (parent->kind == ELEMENT_AEGIS || parent->kind == ELEMENT_PROVIDE)) {
                const char *path = NULL;
                for (size_t i = 0; attrs[i]; i += 2)
                        if (strcmp(attrs[i], "path") == 0)
                                path = attrs[i + 1];
                parser_warning(p, loc, "<for> directly inside <%s> is ignored: nothing is granted "
                               "to %s; put it inside the <request> it belongs to",
                               parser_element_name(parent->kind), path ? path : "it");
                return true;
        }
        if (strcmp(name, "annotation") == 0 &&
            (parent->kind == ELEMENT_DBUS || parent->kind == ELEMENT_NODE)) {
                parser_warning(p, loc, "an annotation directly on <%s> is ignored: put it on an "
                               "<interface> (the default for its members) or on a member",
                               parser_element_name(parent->kind));
                return true;
        }
        return false;
}

static ElementKind child_kind(const Frame *parent, const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(child_rules); i++)
                if (child_rules[i].parent == parent->kind && strcmp(child_rules[i].name, name) == 0)
                        return child_rules[i].child;
        return _ELEMENT_MAX;
}

void parser_start_element(Parser *p, const Frame *parent, const char *name,
                          const char **attrs, SourceLoc loc, Frame *frame) {
        frame->kind = ELEMENT_SKIPPED;
        frame->loc = loc;
        ElementKind kind;
        if (!parent) {
                if (strcmp(name, "aegis") != 0) {
                        parser_error(p, &loc, "the root element must be <aegis>, not <%s>", name);
                        return;
                }
                kind = ELEMENT_AEGIS;
        } else {
                /*
                 * Every tolerated misplacement is a name its parent does not
                 * take, so the table is asked first: tolerated() costs five
                 * strcmp() and almost every element is a regular child.
                 */
                kind = child_kind(parent, name);
                if (kind == _ELEMENT_MAX) {
                        if (!tolerated(p, parent, name, attrs, &loc, frame))
                                unknown_element(p, parent, name, &loc);
                        return;
                }
        }
        const char *values[8] = { NULL };
        if (!collect_attrs(p, kind, attrs, &loc, values))
                return;
        /* Handlers set frame->kind = kind once they succeed. */
        if (handlers[kind] == on_plain)
                frame->kind = kind;
        handlers[kind](p, frame, parent, values);
}
