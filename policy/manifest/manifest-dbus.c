/*
 * The manifest's D-Bus declarations: <dbus>, <owner>, <node>, <interface>,
 * <method>, <signal>, <property> and their <annotation>s.
 *
 * Each handler builds or merges into the model under the declaring
 * package (manifest-elements.c decides where elements may appear and
 * checks attributes first). Merging is by key: a name by (bus, name), a
 * node by path, an interface by name, a member by (kind, name). A merge
 * that would give one thing two owner rules, two tokens or two access
 * modes is an error naming both lines: the parser never picks one.
 */
#include <stdio.h>
#include <string.h>

#include "manifest-internal.h"
#include "model.h"

static DbusName *find_dbus_name(Package *package, BusKind bus, const char *name) {
        return (DbusName *) package_find_name(package, bus, name);
}

static int parse_own(Parser *p, const char *own, const SourceLoc *loc, DbusName *d) {
        if (!own)
                return 0;
        if (strcmp(own, "SELF") == 0) {
                d->own = OWN_SELF;
                d->own_explicit = true;
                return 0;
        }
        if (own[0] == '\0') {
                parser_error(p, loc, "own=\"\": write own=\"SELF\" (only this package) or "
                             "own=\"Token\" (holders of Token)");
                return MANIFEST_E_INVALID;
        }
        _cleanup_free_ char *provider = NULL;
        int r = parser_resolve_token(p, own, loc, "own", &d->own_token, &provider);
        if (r != 0)
                return r;
        d->own = OWN_TOKEN;
        d->own_explicit = true;
        return 0;
}

static const char *own_string(const DbusName *d) {
        return d->own == OWN_TOKEN ? d->own_token : "SELF";
}

/* A second <dbus> block for a name already declared: merge the own rule. */
static int merge_dbus_name(Parser *p, DbusName *old, DbusName *new, const SourceLoc *loc) {
        if (!new->own_explicit)
                return 0;
        if (old->own_explicit && (old->own != new->own ||
                                  (old->own == OWN_TOKEN && strcmp(old->own_token, new->own_token) != 0))) {
                parser_error(p, loc, "%s is declared again with own=\"%s\" but has own=\"%s\" "
                             "at line %u: one name, one owner rule", old->name, own_string(new),
                             own_string(old), old->loc.line);
                return MANIFEST_E_INVALID;
        }
        old->own = new->own;
        old->own_explicit = true;
        free(old->own_token);
        old->own_token = TAKE_PTR(new->own_token);
        return 0;
}

void parser_on_dbus(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        /* v: name, bus, own */
        if (!parser_require_attr(p, ELEMENT_DBUS, v[0], "name", &frame->loc, "name=\"com.nokia.mce\""))
                return;
        if (!manifest_valid_bus_name(v[0])) {
                parser_error(p, &frame->loc, "'%s' is not a valid well-known bus name: write "
                             "two or more dot-separated elements of [A-Za-z0-9_-], not starting "
                             "with a digit, e.g. com.nokia.mce", v[0]);
                return;
        }
        if (strcmp(v[0], "org.freedesktop.DBus") == 0) {
                parser_error(p, &frame->loc, "org.freedesktop.DBus is the bus itself: no package "
                             "can declare it");
                return;
        }
        BusKind bus = BUS_SYSTEM;
        if (!v[1])
                parser_warning(p, &frame->loc, "<dbus name=\"%s\"> has no bus attribute: read "
                               "as bus=\"system\"", v[0]);
        else if (strcmp(v[1], "session") == 0)
                bus = BUS_SESSION;
        else if (strcmp(v[1], "system") != 0) {
                parser_error(p, &frame->loc, "bus='%s': write bus=\"system\" or bus=\"session\"",
                             v[1]);
                return;
        }
        _cleanup_(dbus_name_freep) DbusName *d = NULL;
        if (dbus_name_new(v[0], bus, frame->loc, &d) < 0 ||
            dbus_name_add_owner_label(d, p->package->name, frame->loc) < 0)
                return (void) parser_fail(p, -ENOMEM);
        if (parse_own(p, v[2], &frame->loc, d) != 0)
                return;
        DbusName *old = find_dbus_name(p->package, bus, v[0]);
        if (old) {
                if (merge_dbus_name(p, old, d, &frame->loc) != 0)
                        return;
                frame->object = old;
        } else {
                if (MODEL_APPEND(p->package->names, p->package->n_names, d) < 0)
                        return (void) parser_fail(p, -ENOMEM);
                frame->object = TAKE_PTR(d);
        }
        frame->kind = ELEMENT_DBUS;
}

void parser_on_owner(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        DbusName *d = parent->object;
        if (!parser_require_attr(p, ELEMENT_OWNER, v[0], "label", &frame->loc, "label=\"mce\""))
                return;
        if (!manifest_valid_label(v[0]) || strcmp(v[0], "*") == 0) {
                parser_error(p, &frame->loc, "owner label '%s' is not a valid Smack label: at "
                             "most %d printable characters, no whitespace, '/', quotes or "
                             "backslash, not '-' first, not *", v[0], MANIFEST_MAX_LABEL);
                return;
        }
        if (dbus_name_add_owner_label(d, v[0], frame->loc) < 0)
                return (void) parser_fail(p, -ENOMEM);
        frame->kind = ELEMENT_OWNER;
}

void parser_on_node(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        DbusName *d = parent->object;
        if (!parser_require_attr(p, ELEMENT_NODE, v[0], "name", &frame->loc, "name=\"/com/nokia/mce\""))
                return;
        if (!manifest_valid_object_path(v[0])) {
                parser_error(p, &frame->loc, "'%s' is not a valid object path: write / or "
                             "/elem/elem with elements of [A-Za-z0-9_], no trailing /", v[0]);
                return;
        }
        Node *node = (Node *) dbus_name_find_node(d, v[0]);
        if (!node) {
                if (node_new(v[0], frame->loc, &node) < 0)
                        return (void) parser_fail(p, -ENOMEM);
                if (MODEL_APPEND(d->nodes, d->n_nodes, node) < 0) {
                        node_free(node);
                        return (void) parser_fail(p, -ENOMEM);
                }
        }
        frame->object = node;
        frame->kind = ELEMENT_NODE;
}

void parser_on_interface(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        Node *node = parent->object;
        if (!parser_require_attr(p, ELEMENT_INTERFACE, v[0], "name", &frame->loc,
                          "name=\"com.nokia.mce.request\""))
                return;
        if (!manifest_valid_interface_name(v[0])) {
                parser_error(p, &frame->loc, "'%s' is not a valid interface name: write two or "
                             "more dot-separated elements of [A-Za-z0-9_], not starting with a "
                             "digit", v[0]);
                return;
        }
        Interface *iface = (Interface *) node_find_interface(node, v[0]);
        if (!iface) {
                if (interface_new(v[0], frame->loc, &iface) < 0)
                        return (void) parser_fail(p, -ENOMEM);
                if (MODEL_APPEND(node->interfaces, node->n_interfaces, iface) < 0) {
                        interface_free(iface);
                        return (void) parser_fail(p, -ENOMEM);
                }
        }
        frame->object = iface;
        frame->kind = ELEMENT_INTERFACE;
}

static bool parse_access(const char *value, PropertyAccess *ret) {
        if (!value || strcmp(value, "readwrite") == 0)
                *ret = PROPERTY_ACCESS_READWRITE;
        else if (strcmp(value, "read") == 0)
                *ret = PROPERTY_ACCESS_READ;
        else if (strcmp(value, "write") == 0)
                *ret = PROPERTY_ACCESS_WRITE;
        else
                return false;
        return true;
}

static void on_member(Parser *p, Frame *frame, const Frame *parent, const char **v, MemberKind kind,
                      ElementKind element) {
        /* v: name [, access, type] */
        Interface *iface = parent->object;
        if (!parser_require_attr(p, element, v[0], "name", &frame->loc, "name=\"get_version\""))
                return;
        if (!manifest_valid_member_name(v[0])) {
                parser_error(p, &frame->loc, "'%s' is not a valid %s name: one element of "
                             "[A-Za-z0-9_], not starting with a digit", v[0],
                             member_kind_to_string(kind));
                return;
        }
        PropertyAccess access = PROPERTY_ACCESS_READWRITE;
        if (kind == MEMBER_PROPERTY && !parse_access(v[1], &access)) {
                parser_error(p, &frame->loc, "access='%s': write access=\"read\", \"write\" or "
                             "\"readwrite\"", v[1]);
                return;
        }
        Member *m = (Member *) interface_find_member(iface, kind, v[0]);
        if (m && kind == MEMBER_PROPERTY && v[1] && m->access != access) {
                parser_error(p, &frame->loc, "property %s is declared again with access=\"%s\" "
                             "but differently at line %u: one property, one access", v[0], v[1],
                             m->loc.line);
                return;
        }
        if (!m) {
                if (member_new(kind, v[0], frame->loc, &m) < 0)
                        return (void) parser_fail(p, -ENOMEM);
                m->access = access;
                if (MODEL_APPEND(iface->members, iface->n_members, m) < 0) {
                        member_free(m);
                        return (void) parser_fail(p, -ENOMEM);
                }
        }
        frame->object = m;
        frame->parent_object = iface;
        frame->kind = element;
}

void parser_on_method(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        on_member(p, frame, parent, v, MEMBER_METHOD, ELEMENT_METHOD);
}

void parser_on_signal(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        on_member(p, frame, parent, v, MEMBER_SIGNAL, ELEMENT_SIGNAL);
}

void parser_on_property(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        on_member(p, frame, parent, v, MEMBER_PROPERTY, ELEMENT_PROPERTY);
}

/* --------------------------------------------------------------------- */
/* <annotation name="com.maemo.Aegis" value="Token"/> */

#define AEGIS_ANNOTATION "com.maemo.Aegis"
#define AEGIS_WRITE_ANNOTATION "com.maemo.Aegis.Write"

static const char *requirement_string(const Requirement *req) {
        return req->kind == REQUIREMENT_TOKEN ? req->token : "";
}

/* Set *slot from an annotation (taking what *new holds), or report the conflict. */
static void apply_requirement(Parser *p, Requirement *slot, Requirement *new,
                              const char *what, const char *name, const SourceLoc *loc) {
        if (slot->kind != REQUIREMENT_UNSET) {
                if (!requirement_equal(slot, new))
                        parser_error(p, loc, "%s %s is declared with token \"%s\" here but "
                                     "\"%s\" at line %u: one %s, one token (declare it once)",
                                     what, name, requirement_string(new),
                                     requirement_string(slot), slot->loc.line, what);
                return;
        }
        requirement_clear(slot);
        *slot = *new;
        *new = (Requirement) { .kind = REQUIREMENT_UNSET };
}

static int annotation_requirement(Parser *p, const char *value, const SourceLoc *loc,
                                  Requirement *ret) {
        if (value[0] == '\0')
                return requirement_set(ret, REQUIREMENT_OPEN, NULL, *loc) < 0 ?
                        parser_fail(p, -ENOMEM) : 0;
        if (strpbrk(value, " \t\r\n,;")) {
                parser_error(p, loc, "annotation value '%s' names more than one token: a member "
                             "requires one token (value=\"Token\"), or none (value=\"\")", value);
                return MANIFEST_E_INVALID;
        }
        _cleanup_free_ char *label = NULL, *provider = NULL;
        int r = parser_resolve_token(p, value, loc, "annotation value", &label, &provider);
        if (r != 0)
                return r;
        requirement_clear(ret);
        *ret = (Requirement) { .kind = REQUIREMENT_TOKEN, .token = TAKE_PTR(label), .loc = *loc };
        return 0;
}

static void annotate(Parser *p, const Frame *parent, bool write, Requirement *req,
                     const SourceLoc *loc) {
        if (parent->kind == ELEMENT_INTERFACE) {
                Interface *iface = parent->object;
                apply_requirement(p, write ? &iface->default_write : &iface->default_require, req,
                                  write ? "the write default of interface" : "the default of interface",
                                  iface->name, loc);
                return;
        }
        Member *m = parent->object;
        if (write && m->kind != MEMBER_PROPERTY) {
                parser_warning(p, loc, AEGIS_WRITE_ANNOTATION " on %s %s is ignored: only "
                               "properties are written (use " AEGIS_ANNOTATION ")",
                               member_kind_to_string(m->kind), m->name);
                return;
        }
        apply_requirement(p, write ? &m->write : &m->require, req, member_kind_to_string(m->kind),
                          m->name, loc);
}

void parser_on_annotation(Parser *p, Frame *frame, const Frame *parent, const char **v) {
        /* v: name, value */
        if (!parser_require_attr(p, ELEMENT_ANNOTATION, v[0], "name", &frame->loc,
                          "name=\"" AEGIS_ANNOTATION "\""))
                return;
        frame->kind = ELEMENT_ANNOTATION;
        bool write = strcmp(v[0], AEGIS_WRITE_ANNOTATION) == 0;
        if (!write && strcmp(v[0], AEGIS_ANNOTATION) != 0) {
                parser_warning(p, &frame->loc, "annotation '%s' is ignored: only "
                               AEGIS_ANNOTATION " and " AEGIS_WRITE_ANNOTATION " mean "
                               "anything to the policy", v[0]);
                return;
        }
        if (!v[1]) {
                parser_error(p, &frame->loc, "<annotation name=\"%s\"> needs a value: a token "
                             "(value=\"Token\") or none (value=\"\")", v[0]);
                return;
        }
        Requirement req = { .kind = REQUIREMENT_UNSET };
        if (annotation_requirement(p, v[1], &frame->loc, &req) == 0)
                annotate(p, parent, write, &req, &frame->loc);
        requirement_clear(&req);
}

