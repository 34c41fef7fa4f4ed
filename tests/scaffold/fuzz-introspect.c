/*
 * Fuzzer of the introspection parser (policy/scaffold/scaffold-xml.c): any
 * bytes, parsed as a file and as an Introspect reply of "/"; what parses
 * is completed as scaffold completes it (every object then has
 * Introspectable and Peer exactly once, or the fuzzer aborts) and written
 * as a manifest (to memory). Replayed over corpus-introspect/ in every
 * test run; with -Dfuzzing=true also a libFuzzer binary.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaffold.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_manifest(const ScaffoldTree *tree) {
        ScaffoldManifest manifest = { .name = "org.example.Fuzz", .token = "Token", .source = "fuzz" };
        char *text = NULL;
        size_t n = 0;
        FILE *out = open_memstream(&text, &n);

        if (!out)
                abort();
        if (scaffold_write_manifest(tree, &manifest, out) != 0)
                abort();
        fclose(out);
        free(text);
}

/* How often node has interface name; aborts where that one lacks method member. */
static size_t count_interface(const ScaffoldNode *node, const char *name, const char *member) {
        size_t n = 0;

        for (size_t i = 0; i < node->n_interfaces; i++) {
                const ScaffoldInterface *iface = node->interfaces[i];
                bool has_member = false;

                if (strcmp(iface->name, name) != 0)
                        continue;
                for (size_t j = 0; j < iface->n_members; j++)
                        has_member |= iface->members[j]->kind == SCAFFOLD_METHOD &&
                                      strcmp(iface->members[j]->name, member) == 0;
                if (!has_member)
                        abort();
                n++;
        }
        return n;
}

/* scaffold_tree_complete()'s promise: every object answers Introspect and Ping, declared once. */
static void check_complete(const ScaffoldTree *tree) {
        for (size_t i = 0; i < tree->n_nodes; i++)
                if (count_interface(tree->nodes[i], "org.freedesktop.DBus.Introspectable", "Introspect") != 1 ||
                    count_interface(tree->nodes[i], "org.freedesktop.DBus.Peer", "Ping") != 1 ||
                    count_interface(tree->nodes[i], "org.freedesktop.DBus.Peer", "GetMachineId") != 1)
                        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        for (int walking = 0; walking <= 1; walking++) {
                ScaffoldTree *tree = NULL;
                Diagnostics *diag = NULL;
                char **children = NULL;
                size_t n_children = 0;
                int r;

                if (scaffold_tree_new(&tree) < 0 || diagnostics_new(&diag) < 0)
                        abort();
                r = scaffold_xml_parse(tree, (const char *) data, size, "fuzz.xml", walking ? "/" : NULL, diag,
                                       &children, &n_children);
                if (r == 0) {
                        if (scaffold_tree_complete(tree) < 0)
                                abort();
                        check_complete(tree);
                        scaffold_tree_sort(tree);
                        write_manifest(tree);
                }
                for (size_t i = 0; i < n_children; i++)
                        free(children[i]);
                free(children);
                diagnostics_free(diag);
                scaffold_tree_free(tree);
        }
        return 0;
}
