/*
 * mssf-policy check MANIFEST --xml/--dest: what the service offers that
 * the manifest does not cover, judged as the bus judges (policy/db,
 * decide.c), so the author sees what a new version of the service added:
 *  - a method no annotation covers (neither its own nor its interface's
 *    default at that path) is refused to every caller: "uncovered";
 *  - a signal or property no annotation covers is open to everyone:
 *    "uncovered" too, since nobody decided that;
 *  - a member the manifest does not list but its interface's default
 *    covers: a "note" (covered, but maybe not as the author would);
 *  - org.freedesktop.DBus.Peer's Ping and GetMachineId are open whatever
 *    a manifest says (the D-Bus libraries answer them), and Properties'
 *    Get, Set and GetAll are judged by the property they name: never
 *    reported. Any other member listed under Peer is the service's own
 *    method, judged like any other (decide.c does the same).
 * The tree is complete (scaffold_tree_complete()): every object offers
 * Introspectable.Introspect, so a manifest that leaves it out at an
 * object, where the bus refuses it, is told so, whether the
 * introspection data listed it or not.
 * Only the uncovered lines count; the notes are information.
 */
#include <errno.h>
#include <string.h>

#include "model.h"
#include "scaffold.h"

static const DbusName *find_name(const Package *package, const char *name) {
        for (size_t i = 0; i < package->n_names; i++)
                if (strcmp(package->names[i]->name, name) == 0)
                        return package->names[i];
        return NULL;
}

static const Node *find_node(const DbusName *name, const char *path) {
        for (size_t i = 0; i < name->n_nodes; i++)
                if (strcmp(name->nodes[i]->path, path) == 0)
                        return name->nodes[i];
        return NULL;
}

static const Interface *find_interface(const Node *node, const char *name) {
        for (size_t i = 0; node && i < node->n_interfaces; i++)
                if (strcmp(node->interfaces[i]->name, name) == 0)
                        return node->interfaces[i];
        return NULL;
}

static MemberKind model_kind(ScaffoldMemberKind kind) {
        return kind == SCAFFOLD_METHOD ? MEMBER_METHOD : kind == SCAFFOLD_SIGNAL ? MEMBER_SIGNAL : MEMBER_PROPERTY;
}

static const Member *find_member(const Interface *iface, const ScaffoldMember *m) {
        for (size_t i = 0; iface && i < iface->n_members; i++)
                if (iface->members[i]->kind == model_kind(m->kind) && strcmp(iface->members[i]->name, m->name) == 0)
                        return iface->members[i];
        return NULL;
}

/* Never the manifest's business: Peer's Ping and GetMachineId, and the Properties methods. */
static bool never_declared(const char *interface, const ScaffoldMember *m) {
        if (m->kind != SCAFFOLD_METHOD)
                return false;
        if (strcmp(interface, "org.freedesktop.DBus.Peer") == 0)
                return strcmp(m->name, "Ping") == 0 || strcmp(m->name, "GetMachineId") == 0;
        return strcmp(interface, "org.freedesktop.DBus.Properties") == 0 &&
               (strcmp(m->name, "Get") == 0 || strcmp(m->name, "Set") == 0 || strcmp(m->name, "GetAll") == 0);
}

static const char *requirement_text(const Requirement *req) {
        return req->kind == REQUIREMENT_OPEN ? "open" : req->token;
}

static const char *kind_word(ScaffoldMemberKind kind) {
        return kind == SCAFFOLD_METHOD ? "method" : kind == SCAFFOLD_SIGNAL ? "signal" : "property";
}

static const char *uncovered_effect(ScaffoldMemberKind kind) {
        switch (kind) {
        case SCAFFOLD_METHOD:
                return "the bus refuses it to every caller";
        case SCAFFOLD_SIGNAL:
                return "every recipient gets it";
        default:
                return "anyone may read and set it";
        }
}

/* One member: 1 if uncovered (line written), else 0 (maybe a note). */
static size_t check_member(const char *path, const ScaffoldInterface *si, const Interface *mi,
                           const ScaffoldMember *m, FILE *out) {
        const Member *mm = find_member(mi, m);

        if (never_declared(si->name, m) || (mm && mm->require.kind != REQUIREMENT_UNSET))
                return 0;
        if (mi && mi->default_require.kind != REQUIREMENT_UNSET) {
                fprintf(out, "note: %s %s %s.%s is not listed; the default of its interface covers it (%s)\n",
                        kind_word(m->kind), path, si->name, m->name, requirement_text(&mi->default_require));
                return 0;
        }
        fprintf(out, "uncovered: %s %s %s.%s: no annotation covers it, so %s\n", kind_word(m->kind), path,
                si->name, m->name, uncovered_effect(m->kind));
        return 1;
}

int scaffold_check_coverage(const ScaffoldTree *tree, const Package *package, const char *name,
                            FILE *out, size_t *ret_uncovered) {
        const DbusName *declared;
        size_t uncovered = 0;

        if (!tree || !package || !name || !out || !ret_uncovered)
                return -EINVAL;
        declared = find_name(package, name);
        if (!declared)
                return -ENOENT;
        for (size_t i = 0; i < tree->n_nodes; i++) {
                const ScaffoldNode *node = tree->nodes[i];
                const Node *mnode = find_node(declared, node->path);

                for (size_t j = 0; j < node->n_interfaces; j++) {
                        const ScaffoldInterface *si = node->interfaces[j];
                        const Interface *mi = find_interface(mnode, si->name);

                        for (size_t k = 0; k < si->n_members; k++)
                                uncovered += check_member(node->path, si, mi, si->members[k], out);
                }
        }
        *ret_uncovered = uncovered;
        return ferror(out) ? -EIO : 0;
}
