/*
 * Introspection XML (org.freedesktop.DBus.Introspectable) into a
 * ScaffoldTree, for mssf-policy scaffold and check.
 *
 * The document comes from another process: a file a service ships, or
 * its Introspect reply over the bus. It is untrusted, so it is parsed
 * strictly and within bounds (scaffold.h): the root is a <node>; only the
 * elements and attributes of the introspection DTD are accepted, where
 * the DTD puts them (node, interface, method, signal, property, arg,
 * annotation); every name, path, type and direction is validated; text
 * outside documentation, an interface or member described twice, and
 * any entity but a few short internal ones with plain text (on_entity())
 * are errors; expat never fetches an external DTD.
 * Elements and attributes in another XML namespace (gdbus-codegen's and
 * upower's <doc:doc>) are documentation: skipped with their content.
 * Every error carries file:line:column, and one error refuses the whole
 * document: the caller stops.
 */
#include <errno.h>
#include <expat.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "scaffold.h"

/* expat joins a namespaced name as "URI\x01local": any such name is foreign. */
#define NS_SEPARATOR '\x01'

typedef enum XmlKind {
        XML_NODE,
        XML_INTERFACE,
        XML_METHOD,
        XML_SIGNAL,
        XML_PROPERTY,
        XML_ARG,
        XML_ANNOTATION,
        _XML_KIND_MAX,
} XmlKind;

static const char *const xml_names[_XML_KIND_MAX] = {
        "node", "interface", "method", "signal", "property", "arg", "annotation",
};

/* The attributes each element takes (others are errors), in a fixed order. */
static const char *const xml_attrs[_XML_KIND_MAX][4] = {
        [XML_NODE] = { "name" },
        [XML_INTERFACE] = { "name" },
        [XML_METHOD] = { "name" },
        [XML_SIGNAL] = { "name" },
        [XML_PROPERTY] = { "name", "type", "access" },
        [XML_ARG] = { "name", "type", "direction" },
        [XML_ANNOTATION] = { "name", "value" },
};

/* Which elements may appear in which (bit per XmlKind). */
static const unsigned xml_children[_XML_KIND_MAX] = {
        [XML_NODE] = 1u << XML_NODE | 1u << XML_INTERFACE,
        [XML_INTERFACE] = 1u << XML_METHOD | 1u << XML_SIGNAL | 1u << XML_PROPERTY | 1u << XML_ANNOTATION,
        [XML_METHOD] = 1u << XML_ARG | 1u << XML_ANNOTATION,
        [XML_SIGNAL] = 1u << XML_ARG | 1u << XML_ANNOTATION,
        [XML_PROPERTY] = 1u << XML_ANNOTATION,
        [XML_ARG] = 1u << XML_ANNOTATION,
        [XML_ANNOTATION] = 0,
};

typedef struct XmlFrame {
        XmlKind kind;
        ScaffoldNode *node;             /* the object this element describes (or is inside) */
        ScaffoldInterface *interface;   /* XML_INTERFACE and below */
        char *path;                     /* XML_NODE: (owned) its object path */
} XmlFrame;

typedef struct XmlParser {
        XML_Parser xml;
        ScaffoldTree *tree;
        Diagnostics *diag;
        const char *file;
        const char *walk_path;          /* an Introspect reply of this object; NULL: a file */
        XmlFrame stack[SCAFFOLD_XML_MAX_DEPTH];
        unsigned depth;
        unsigned skip_depth;            /* > 0 inside a skipped subtree */
        size_t n_elements;
        size_t n_errors;
        unsigned n_entities;
        int failure;                    /* a negative errno: stop */
        char **children;                /* walking: the root's children, full paths */
        size_t n_children;
} XmlParser;

static void xml_error(XmlParser *p, const char *format, ...) _printf_(2, 3);
static void xml_error(XmlParser *p, const char *format, ...) {
        va_list ap;
        int r;

        va_start(ap, format);
        r = diagnostics_addv(p->diag, DIAGNOSTIC_ERROR, p->file,
                             (unsigned) XML_GetCurrentLineNumber(p->xml),
                             (unsigned) XML_GetCurrentColumnNumber(p->xml) + 1, format, ap);
        va_end(ap);
        p->n_errors++;
        if (r < 0 && !p->failure)
                p->failure = r;
        XML_StopParser(p->xml, XML_FALSE);
}

static void xml_fail(XmlParser *p, int r) {
        if (!p->failure)
                p->failure = r;
        XML_StopParser(p->xml, XML_FALSE);
}

/* values[i] for xml_attrs[kind][i]; false (error reported) for an attribute it does not take. */
static bool xml_collect(XmlParser *p, XmlKind kind, const XML_Char **attrs, const char **values) {
        for (size_t i = 0; attrs[i]; i += 2) {
                size_t j;

                if (strchr(attrs[i], NS_SEPARATOR))
                        continue;       /* another namespace's: documentation */
                for (j = 0; j < 4 && xml_attrs[kind][j]; j++)
                        if (strcmp(attrs[i], xml_attrs[kind][j]) == 0)
                                break;
                if (j == 4 || !xml_attrs[kind][j]) {
                        xml_error(p, "<%s> has no attribute '%s' in introspection data", xml_names[kind],
                                  attrs[i]);
                        return false;
                }
                values[j] = attrs[i + 1];
        }
        return true;
}

static bool xml_require(XmlParser *p, XmlKind kind, const char *value, const char *attr) {
        if (value)
                return true;
        xml_error(p, "<%s> needs a %s attribute", xml_names[kind], attr);
        return false;
}

/* One element of a relative child path: [A-Za-z0-9_]+, joined by '/'. */
static bool valid_relative_path(const char *s) {
        char absolute[1024];

        return s[0] && s[0] != '/' && strlen(s) < sizeof(absolute) - 1 &&
               snprintf(absolute, sizeof(absolute), "/%s", s) > 0 && manifest_valid_object_path(absolute);
}


/* The node for path, made if new; NULL after an error (reported). */
static ScaffoldNode *xml_node(XmlParser *p, const char *path) {
        ScaffoldNode *node = (ScaffoldNode *) scaffold_tree_find(p->tree, path);

        if (node)
                return node;
        if (p->tree->n_nodes >= SCAFFOLD_MAX_NODES) {
                xml_error(p, "more than %u objects: introspection data this large is refused", SCAFFOLD_MAX_NODES);
                return NULL;
        }
        node = calloc(1, sizeof(*node));
        if (!node || !(node->path = strdup(path)) ||
            scaffold_push(&p->tree->nodes, &p->tree->n_nodes, node) < 0) {
                if (node)
                        free(node->path);
                free(node);
                xml_fail(p, -ENOMEM);
                return NULL;
        }
        return node;
}

/* --------------------------------------------------------------------- */
/* Elements. */

/* The root: the object the document describes. */
static bool xml_root(XmlParser *p, const char *name, XmlFrame *frame) {
        const char *path = p->walk_path ? p->walk_path : name;

        if (!p->walk_path && !name) {
                xml_error(p, "the root <node> needs a name: the object path it describes "
                             "(<node name=\"/org/example/Object\">)");
                return false;
        }
        if (!manifest_valid_object_path(path)) {
                xml_error(p, "'%s' is not a valid object path", path);
                return false;
        }
        if (p->walk_path && name && strcmp(name, p->walk_path) != 0) {
                xml_error(p, "the root <node> is named '%s', but this is the introspection of '%s'", name,
                          p->walk_path);
                return false;
        }
        frame->path = strdup(path);
        if (!frame->path) {
                xml_fail(p, -ENOMEM);
                return false;
        }
        frame->node = xml_node(p, path);
        return frame->node != NULL;
}

/* A child node of parent: its full path in *ret (owned), or false after an error. */
static bool xml_child_path(XmlParser *p, const char *parent, const char *name, char **ret) {
        size_t n = strlen(parent);

        if (!name) {
                xml_error(p, "a child <node> needs a name (relative to '%s')", parent);
                return false;
        }
        /* Absolute names are tolerated below the parent, as old bindings write them. */
        if (name[0] == '/' && manifest_valid_object_path(name) && strncmp(name, parent, n) == 0 &&
            (n == 1 || name[n] == '/') && name[n == 1 ? 1 : n + 1]) {
                *ret = strdup(name);
        } else if (valid_relative_path(name)) {
                if (asprintf(ret, "%s%s%s", parent, n == 1 ? "" : "/", name) < 0)
                        *ret = NULL;
        } else {
                xml_error(p, "'%s' is not a child node name of '%s': write one or more path elements "
                             "of [A-Za-z0-9_] separated by '/', e.g. name=\"child\"", name, parent);
                return false;
        }
        if (!*ret) {
                xml_fail(p, -ENOMEM);
                return false;
        }
        return true;
}

static bool xml_child(XmlParser *p, const XmlFrame *parent, const char *name, XmlFrame *frame) {
        _cleanup_free_ char *path = NULL;

        if (!xml_child_path(p, parent->path, name, &path))
                return false;
        if (p->walk_path) {
                /* Walking: the child's own Introspect reply describes it; note its path. */
                for (size_t i = 0; i < p->n_children; i++)
                        if (strcmp(p->children[i], path) == 0) {
                                xml_error(p, "child node '%s' is listed twice", name);
                                return false;
                        }
                if (scaffold_push(&p->children, &p->n_children, path) < 0) {
                        xml_fail(p, -ENOMEM);
                        return false;
                }
                path = NULL;
                p->skip_depth = 1;
                return true;
        }
        frame->node = xml_node(p, path);
        frame->path = TAKE_PTR(path);
        return frame->node != NULL;
}

static bool xml_interface(XmlParser *p, const XmlFrame *parent, const char *name, XmlFrame *frame) {
        ScaffoldNode *node = parent->node;
        ScaffoldInterface *iface;

        if (!manifest_valid_interface_name(name)) {
                xml_error(p, "'%s' is not a valid interface name", name);
                return false;
        }
        for (size_t i = 0; i < node->n_interfaces; i++)
                if (strcmp(node->interfaces[i]->name, name) == 0) {
                        xml_error(p, "interface %s at %s is described twice (first at %s:%u)", name,
                                  node->path, node->interfaces[i]->file, node->interfaces[i]->line);
                        return false;
                }
        iface = calloc(1, sizeof(*iface));
        if (!iface || !(iface->name = strdup(name)) || !(iface->file = strdup(p->file)) ||
            scaffold_push(&node->interfaces, &node->n_interfaces, iface) < 0) {
                if (iface)
                        scaffold_interface_free(iface);
                xml_fail(p, -ENOMEM);
                return false;
        }
        iface->line = (unsigned) XML_GetCurrentLineNumber(p->xml);
        frame->node = node;
        frame->interface = iface;
        return true;
}

static const char *member_word(ScaffoldMemberKind kind) {
        return kind == SCAFFOLD_METHOD ? "method" : kind == SCAFFOLD_SIGNAL ? "signal" : "property";
}

static bool xml_member(XmlParser *p, const XmlFrame *parent, ScaffoldMemberKind kind, const char **v) {
        ScaffoldInterface *iface = parent->interface;
        ScaffoldMember *m;

        if (!manifest_valid_member_name(v[0])) {
                xml_error(p, "'%s' is not a valid %s name", v[0], member_word(kind));
                return false;
        }
        for (size_t i = 0; i < iface->n_members; i++)
                if (iface->members[i]->kind == kind && strcmp(iface->members[i]->name, v[0]) == 0) {
                        xml_error(p, "%s %s.%s is described twice", member_word(kind), iface->name, v[0]);
                        return false;
                }
        if (iface->n_members >= SCAFFOLD_MAX_MEMBERS) {
                xml_error(p, "interface %s has more than %u members", iface->name, SCAFFOLD_MAX_MEMBERS);
                return false;
        }
        m = calloc(1, sizeof(*m));
        if (!m || !(m->name = strdup(v[0])) ||
            (kind == SCAFFOLD_PROPERTY && (!(m->type = strdup(v[1])) || !(m->access = strdup(v[2])))) ||
            scaffold_push(&iface->members, &iface->n_members, m) < 0) {
                if (m)
                        scaffold_member_free(m);
                xml_fail(p, -ENOMEM);
                return false;
        }
        m->kind = kind;
        return true;
}

static bool xml_property_attrs(XmlParser *p, const char **v) {
        if (!xml_require(p, XML_PROPERTY, v[1], "type") || !xml_require(p, XML_PROPERTY, v[2], "access"))
                return false;
        if (!scaffold_valid_single_type(v[1])) {
                xml_error(p, "property %s: '%s' is not a single complete D-Bus type", v[0], v[1]);
                return false;
        }
        if (strcmp(v[2], "read") != 0 && strcmp(v[2], "write") != 0 && strcmp(v[2], "readwrite") != 0) {
                xml_error(p, "property %s: access='%s': write read, write or readwrite", v[0], v[2]);
                return false;
        }
        return true;
}

static bool xml_arg(XmlParser *p, const XmlFrame *parent, const char **v) {
        if (!xml_require(p, XML_ARG, v[1], "type"))
                return false;
        if (!scaffold_valid_single_type(v[1])) {
                xml_error(p, "'%s' is not a single complete D-Bus type", v[1]);
                return false;
        }
        if (v[2] && strcmp(v[2], "out") != 0 && (strcmp(v[2], "in") != 0 || parent->kind == XML_SIGNAL)) {
                xml_error(p, "direction='%s': write %s", v[2], parent->kind == XML_SIGNAL ?
                          "out (or nothing) for a signal's argument" : "in or out");
                return false;
        }
        return true;
}

/* Builds what the element describes; false after an error (reported). */
static bool xml_element(XmlParser *p, XmlKind kind, const XmlFrame *parent, const char **v, XmlFrame *frame) {
        switch (kind) {
        case XML_NODE:
                return parent ? xml_child(p, parent, v[0], frame) : xml_root(p, v[0], frame);
        case XML_INTERFACE:
                return xml_require(p, kind, v[0], "name") && xml_interface(p, parent, v[0], frame);
        case XML_METHOD:
        case XML_SIGNAL:
                frame->interface = parent->interface;
                return xml_require(p, kind, v[0], "name") &&
                       xml_member(p, parent, kind == XML_METHOD ? SCAFFOLD_METHOD : SCAFFOLD_SIGNAL, v);
        case XML_PROPERTY:
                return xml_require(p, kind, v[0], "name") && xml_property_attrs(p, v) &&
                       xml_member(p, parent, SCAFFOLD_PROPERTY, v);
        case XML_ARG:
                return xml_arg(p, parent, v);
        case XML_ANNOTATION:
                return xml_require(p, kind, v[0], "name") && xml_require(p, kind, v[1], "value");
        default:
                return false;
        }
}

/* --------------------------------------------------------------------- */
/* expat callbacks. */

static int xml_kind(const char *name) {
        for (int k = 0; k < _XML_KIND_MAX; k++)
                if (strcmp(name, xml_names[k]) == 0)
                        return k;
        return -1;
}

static void XMLCALL on_start(void *userdata, const XML_Char *name, const XML_Char **attrs) {
        XmlParser *p = userdata;
        const XmlFrame *parent = p->depth > 0 ? &p->stack[p->depth - 1] : NULL;
        const char *values[4] = { NULL };
        int kind;

        if (++p->n_elements > SCAFFOLD_XML_MAX_ELEMENTS)
                {
                        xml_error(p, "more than %u elements: introspection data this large is refused",
                                 SCAFFOLD_XML_MAX_ELEMENTS);
                        return;
                }
        if (p->skip_depth > 0) {
                p->skip_depth++;
                return;
        }
        if (parent && strchr(name, NS_SEPARATOR)) {
                p->skip_depth = 1;      /* <doc:doc> and the like: documentation */
                return;
        }
        kind = xml_kind(name);
        if (!parent && kind != XML_NODE)
                {
                        xml_error(p, "the root element is <%s>: introspection data is a <node>",
                                 strchr(name, NS_SEPARATOR) ? strchr(name, NS_SEPARATOR) + 1 : name);
                        return;
                }
        if (kind < 0 || (parent && !(xml_children[parent->kind] & (1u << kind))))
                {
                        xml_error(p, "<%s> is not allowed in <%s>: introspection data has node, interface, "
                                    "method, signal, property, arg and annotation, as its DTD nests them",
                                 name, xml_names[parent->kind]);
                        return;
                }
        if (p->depth >= SCAFFOLD_XML_MAX_DEPTH)
                {
                        xml_error(p, "elements nested more than %u deep", SCAFFOLD_XML_MAX_DEPTH);
                        return;
                }
        XmlFrame *frame = &p->stack[p->depth];
        *frame = (XmlFrame) { .kind = (XmlKind) kind, .node = parent ? parent->node : NULL,
                              .interface = parent ? parent->interface : NULL };
        if (!xml_collect(p, (XmlKind) kind, attrs, values) || !xml_element(p, (XmlKind) kind, parent, values, frame)) {
                free(frame->path);
                return;
        }
        if (p->skip_depth > 0)
                free(TAKE_PTR(frame->path));    /* a walked child: nothing of it is kept */
        else
                p->depth++;
}

static void XMLCALL on_end(void *userdata, const XML_Char *name) {
        XmlParser *p = userdata;

        if (p->skip_depth > 0) {
                p->skip_depth--;
                return;
        }
        if (p->depth > 0)
                free(TAKE_PTR(p->stack[--p->depth].path));
}

static void XMLCALL on_text(void *userdata, const XML_Char *s, int len) {
        XmlParser *p = userdata;

        if (p->skip_depth > 0 || p->depth == 0)
                return;
        for (int i = 0; i < len; i++)
                if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
                        {
                                xml_error(p, "text in <%s>: introspection data has none outside documentation",
                                         xml_names[p->stack[p->depth - 1].kind]);
                                return;
                        }
}

/*
 * Entities: upower's interface files declare a few plain ones in the
 * DOCTYPE's internal subset for their documentation. Allowed: internal
 * general entities whose value is plain text (no reference to another
 * entity, so nothing multiplies), a few and short. Refused: external and
 * parameter entities, unparsed ones, and anything larger.
 */
#define MAX_ENTITIES 64
#define MAX_ENTITY_VALUE 4096

static void XMLCALL on_entity(void *userdata, const XML_Char *name, int is_parameter, const XML_Char *value,
                              int value_length, const XML_Char *base, const XML_Char *sysid,
                              const XML_Char *pubid, const XML_Char *notation) {
        XmlParser *p = userdata;

        if (is_parameter || !value || sysid || notation) {
                xml_error(p, "entity %s: only internal general entities with a plain value are allowed in "
                             "introspection data", name);
                return;
        }
        if (++p->n_entities > MAX_ENTITIES || value_length > MAX_ENTITY_VALUE ||
            memchr(value, '&', (size_t) value_length) || memchr(value, '<', (size_t) value_length)) {
                xml_error(p, "entity %s: at most %d entities of at most %d bytes of plain text (no '&' or '<') "
                             "are allowed in introspection data", name, MAX_ENTITIES, MAX_ENTITY_VALUE);
                return;
        }
}

/* --------------------------------------------------------------------- */

static void xml_report(XmlParser *p) {
        enum XML_Error code = XML_GetErrorCode(p->xml);

        if (code == XML_ERROR_ABORTED)
                return;         /* reported by whoever stopped */
        xml_error(p, "broken XML: %s", XML_ErrorString(code));
}

static void xml_parser_done(XmlParser *p) {
        while (p->depth > 0)
                free(TAKE_PTR(p->stack[--p->depth].path));
        for (size_t i = 0; i < p->n_children; i++)
                free(p->children[i]);
        free(p->children);
        if (p->xml)
                XML_ParserFree(p->xml);
}

int scaffold_xml_parse(ScaffoldTree *tree, const char *data, size_t size, const char *file,
                       const char *path, Diagnostics *diag, char ***ret_children, size_t *ret_n_children) {
        XmlParser p = { .tree = tree, .diag = diag, .file = file ? file : "<introspection>", .walk_path = path };
        int r = 0;

        if (!tree || (!data && size > 0))
                return -EINVAL;
        if (size > SCAFFOLD_XML_MAX_SIZE)
                return diagnostics_add(diag, DIAGNOSTIC_ERROR, p.file, 0, 0,
                                       "%zu bytes: introspection data is at most %u bytes", size,
                                       SCAFFOLD_XML_MAX_SIZE) ?: SCAFFOLD_E_INVALID;
        if (size > INT32_MAX || memchr(data, '\0', size))
                return diagnostics_add(diag, DIAGNOSTIC_ERROR, p.file, 0, 0,
                                       "introspection data contains a NUL byte") ?: SCAFFOLD_E_INVALID;
        p.xml = XML_ParserCreateNS(NULL, NS_SEPARATOR);
        if (!p.xml)
                return -ENOMEM;
        XML_SetUserData(p.xml, &p);
        XML_SetElementHandler(p.xml, on_start, on_end);
        XML_SetCharacterDataHandler(p.xml, on_text);
        XML_SetEntityDeclHandler(p.xml, on_entity);
        if (XML_Parse(p.xml, data ? data : "", (int) size, XML_TRUE) != XML_STATUS_OK && !p.failure)
                xml_report(&p);
        if (p.failure)
                r = p.failure;
        else if (p.n_errors > 0)
                r = SCAFFOLD_E_INVALID;
        else if (ret_children) {
                *ret_children = TAKE_PTR(p.children);
                *ret_n_children = p.n_children;
                p.n_children = 0;
        }
        xml_parser_done(&p);
        return r;
}
