/*
 * The tree scaffold builds (scaffold.h), and the D-Bus type signature
 * check the introspection parser applies to every type it reads.
 *
 * Every object answers org.freedesktop.DBus.Introspectable.Introspect
 * and org.freedesktop.DBus.Peer's Ping and GetMachineId: GDBus, libdbus
 * and sd-bus answer them themselves, whether or not the introspection
 * data lists them (GDBus and libdbus leave Introspectable out on a path
 * prefix such as "/" or "/org"; an interface file or a hand-written
 * document usually lists neither). scaffold_tree_complete() gives every
 * object both, with those members, where the data leaves them out, so
 * that the manifest declares them (open) and a client can walk the tree
 * and ping the service under the bus's mediation, which refuses what a
 * manifest does not declare; check then reports an object whose
 * manifest leaves Introspect out. What the data lists of them is kept:
 * nothing is listed twice.
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

int scaffold_push(void *array, size_t *n, void *item) {
        void ***slots = array;
        void **grown = realloc(*slots, (*n + 1) * sizeof(void *));

        if (!grown)
                return -ENOMEM;
        grown[(*n)++] = item;
        *slots = grown;
        return 0;
}

/* What every object answers, and why the tree has it when the data does not say. */
static const struct {
        const char *interface;
        const char *members[2];
        const char *implied;
} standard_interfaces[] = {
        { "org.freedesktop.DBus.Introspectable", { "Introspect", NULL },
          "(implied: every object answers Introspect)" },
        { "org.freedesktop.DBus.Peer", { "Ping", "GetMachineId" },
          "(implied: every object answers Ping and GetMachineId)" },
};

/* iface's method name, appended unless iface lists it already. */
static int complete_method(ScaffoldInterface *iface, const char *name) {
        ScaffoldMember *method;

        for (size_t i = 0; i < iface->n_members; i++)
                if (iface->members[i]->kind == SCAFFOLD_METHOD && strcmp(iface->members[i]->name, name) == 0)
                        return 0;
        method = calloc(1, sizeof(*method));
        if (!method || !(method->name = strdup(name)) ||
            scaffold_push(&iface->members, &iface->n_members, method) < 0) {
                scaffold_member_free(method);
                return -ENOMEM;
        }
        method->kind = SCAFFOLD_METHOD;
        return 0;
}

/* node's interface name, appended (empty, its file the reason) unless node lists it already. */
static int complete_interface(ScaffoldNode *node, const char *name, const char *implied,
                              ScaffoldInterface **ret) {
        ScaffoldInterface *iface;

        for (size_t i = 0; i < node->n_interfaces; i++)
                if (strcmp(node->interfaces[i]->name, name) == 0) {
                        *ret = node->interfaces[i];
                        return 0;
                }
        iface = calloc(1, sizeof(*iface));
        if (!iface || !(iface->name = strdup(name)) || !(iface->file = strdup(implied)) ||
            scaffold_push(&node->interfaces, &node->n_interfaces, iface) < 0) {
                scaffold_interface_free(iface);
                return -ENOMEM;
        }
        *ret = iface;
        return 0;
}

int scaffold_tree_complete(ScaffoldTree *tree) {
        for (size_t i = 0; i < tree->n_nodes; i++)
                for (size_t j = 0; j < ELEMENTSOF(standard_interfaces); j++) {
                        ScaffoldInterface *iface = NULL;
                        int r = complete_interface(tree->nodes[i], standard_interfaces[j].interface,
                                                   standard_interfaces[j].implied, &iface);

                        for (size_t k = 0; r == 0 && k < ELEMENTSOF(standard_interfaces[j].members); k++)
                                if (standard_interfaces[j].members[k])
                                        r = complete_method(iface, standard_interfaces[j].members[k]);
                        if (r < 0)
                                return r;
                }
        return 0;
}
