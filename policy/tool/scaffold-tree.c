/*
 * The tree scaffold builds (scaffold.h), and the D-Bus type signature
 * check the introspection parser applies to every type it reads.
 *
 * An object the data names but describes no interface of (a path prefix
 * such as "/" or "/org", which GDBus and libdbus answer Introspect on
 * without listing Introspectable) still answers Introspect: the walk
 * itself relies on it. scaffold_tree_complete() gives such an object
 * that one method, so that the manifest declares it (open) and a client
 * can walk the tree under the bus's mediation, and check reports it when
 * a manifest leaves it out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scaffold.h"

/* --------------------------------------------------------------------- */
/* D-Bus type signatures (the specification's grammar, its depth limits). */

static const char basic_types[] = "ybnqiuxtdhsog";

/* One complete type at *s, which moves past it; false if there is none. */
static bool single_type(const char **s, unsigned arrays, unsigned structs) {
        char c = **s;

        if (!c)
                return false;
        (*s)++;
        if (c == 'v' || strchr(basic_types, c))
                return true;
        if (c == 'a') {
                if (arrays >= 32)
                        return false;
                if (**s != '{')
                        return single_type(s, arrays + 1, structs);
                /* A dict entry: only as an array's element, a basic key, one value. */
                (*s)++;
                if (!**s || !strchr(basic_types, **s) || structs >= 32)
                        return false;
                (*s)++;
                if (!single_type(s, arrays + 1, structs + 1) || **s != '}')
                        return false;
                (*s)++;
                return true;
        }
        if (c == '(') {
                if (structs >= 32 || **s == ')')
                        return false;
                while (**s != ')')
                        if (!single_type(s, arrays, structs + 1))
                                return false;
                (*s)++;
                return true;
        }
        return false;
}

bool scaffold_valid_single_type(const char *s) {
        const char *p = s;

        return s && strlen(s) <= 255 && single_type(&p, 0, 0) && *p == '\0';
}

/* --------------------------------------------------------------------- */
/* The tree. */

int scaffold_tree_new(ScaffoldTree **ret) {
        *ret = calloc(1, sizeof(ScaffoldTree));
        return *ret ? 0 : -ENOMEM;
}

ScaffoldMember *scaffold_member_free(ScaffoldMember *m) {
        if (!m)
                return NULL;
        free(m->name);
        free(m->type);
        free(m->access);
        free(m);
        return NULL;
}

ScaffoldInterface *scaffold_interface_free(ScaffoldInterface *i) {
        if (!i)
                return NULL;
        for (size_t j = 0; j < i->n_members; j++)
                scaffold_member_free(i->members[j]);
        free(i->members);
        free(i->name);
        free(i->file);
        free(i);
        return NULL;
}

ScaffoldTree *scaffold_tree_free(ScaffoldTree *tree) {
        if (!tree)
                return NULL;
        for (size_t i = 0; i < tree->n_nodes; i++) {
                ScaffoldNode *node = tree->nodes[i];

                for (size_t j = 0; j < node->n_interfaces; j++)
                        scaffold_interface_free(node->interfaces[j]);
                free(node->interfaces);
                free(node->path);
                free(node);
        }
        free(tree->nodes);
        free(tree);
        return NULL;
}

static int compare_nodes(const void *a, const void *b) {
        return strcmp((*(ScaffoldNode *const *) a)->path, (*(ScaffoldNode *const *) b)->path);
}

void scaffold_tree_sort(ScaffoldTree *tree) {
        if (tree->n_nodes > 1)
                qsort(tree->nodes, tree->n_nodes, sizeof(tree->nodes[0]), compare_nodes);
}

const ScaffoldNode *scaffold_tree_find(const ScaffoldTree *tree, const char *path) {
        for (size_t i = 0; i < tree->n_nodes; i++)
                if (strcmp(tree->nodes[i]->path, path) == 0)
                        return tree->nodes[i];
        return NULL;
}

int scaffold_tree_complete(ScaffoldTree *tree) {
        for (size_t i = 0; i < tree->n_nodes; i++) {
                ScaffoldNode *node = tree->nodes[i];
                ScaffoldInterface *iface;
                ScaffoldMember *introspect;

                if (node->n_interfaces > 0)
                        continue;
                node->interfaces = calloc(1, sizeof(node->interfaces[0]));
                iface = calloc(1, sizeof(*iface));
                introspect = calloc(1, sizeof(*introspect));
                if (iface)
                        iface->members = calloc(1, sizeof(iface->members[0]));
                if (!node->interfaces || !iface || !iface->members || !introspect ||
                    !(iface->name = strdup("org.freedesktop.DBus.Introspectable")) ||
                    !(iface->file = strdup("(implied: an object answers Introspect)")) ||
                    !(introspect->name = strdup("Introspect"))) {
                        scaffold_member_free(introspect);
                        scaffold_interface_free(iface);
                        return -ENOMEM;
                }
                introspect->kind = SCAFFOLD_METHOD;
                iface->members[iface->n_members++] = introspect;
                node->interfaces[node->n_interfaces++] = iface;
        }
        return 0;
}
