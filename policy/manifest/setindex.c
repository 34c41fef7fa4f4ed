/*
 * The installed set's lookup tables.
 *
 * A device has thousands of packages, and resolving grants, checking bus
 * names and generating rules ask the set "who provides this token", "who
 * declares this name", "who serves this token" for every request of every
 * package: with linear scans that was quadratic (policy_set_find_token()
 * alone was 40% of a compile of 4,000 manifests). Here each question is
 * one hash lookup. The tables hold borrowed pointers into the packages;
 * they are filled as packages are added and refilled when one is removed,
 * which is rare and linear.
 *
 * "Serves" is what package-rules.c needs: a package serves a token if it
 * provides it, or requires it anywhere in its D-Bus declarations (a member,
 * an interface default, own="Token"). Each package appears once per token.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "setindex.h"

static const PackageList empty_list;

int set_index_new(SetIndex **ret) {
        SetIndex *index = calloc(1, sizeof(*index));

        if (!index)
                return -ENOMEM;
        *ret = index;
        return 0;
}

static void lists_free(SetIndex *index) {
        for (size_t i = 0; i < index->n_lists; i++) {
                free(index->lists[i]->packages);
                free(index->lists[i]);
        }
        free(index->lists);
        index->lists = NULL;
        index->n_lists = 0;
}

SetIndex *set_index_free(SetIndex *index) {
        if (!index)
                return NULL;
        strmap_deinit(&index->packages);
        strmap_deinit(&index->tokens);
        strmap_deinit(&index->names[BUS_SYSTEM]);
        strmap_deinit(&index->names[BUS_SESSION]);
        strmap_deinit(&index->servers);
        lists_free(index);
        free(index);
        return NULL;
}

static int list_new(SetIndex *index, PackageList **ret) {
        PackageList **lists = reallocarray(index->lists, index->n_lists + 1, sizeof(*lists));
        PackageList *list;

        if (!lists)
                return -ENOMEM;
        index->lists = lists;
        list = calloc(1, sizeof(*list));
        if (!list)
                return -ENOMEM;
        lists[index->n_lists++] = list;
        *ret = list;
        return 0;
}

/* token is served by package; package's tokens arrive together, so a repeat is the last entry. */
static int add_server(SetIndex *index, const char *token, const Package *package) {
        PackageList *list = strmap_get(&index->servers, token);
        const Package **packages;
        int r;

        if (!token)
                return 0;
        if (!list) {
                r = list_new(index, &list);
                if (r < 0)
                        return r;
                r = strmap_put(&index->servers, token, list);
                if (r < 0)
                        return r;
        }
        if (list->n_packages > 0 && list->packages[list->n_packages - 1] == package)
                return 0;
        packages = reallocarray(list->packages, list->n_packages + 1, sizeof(*packages));
        if (!packages)
                return -ENOMEM;
        packages[list->n_packages++] = package;
        list->packages = packages;
        return 0;
}

static int add_requirement(SetIndex *index, const Requirement *req, const Package *package) {
        if (req->kind != REQUIREMENT_TOKEN)
                return 0;
        return add_server(index, req->token, package);
}

static int add_interface(SetIndex *index, const Interface *iface, const Package *package) {
        int r = add_requirement(index, &iface->default_require, package);

        if (r >= 0)
                r = add_requirement(index, &iface->default_write, package);
        for (size_t i = 0; r >= 0 && i < iface->n_members; i++) {
                r = add_requirement(index, &iface->members[i]->require, package);
                if (r >= 0)
                        r = add_requirement(index, &iface->members[i]->write, package);
        }
        return r;
}

static int add_name(SetIndex *index, const DbusName *name, const Package *package) {
        int r = strmap_put(&index->names[name->bus], name->name, (void *) package);

        if (r >= 0 && name->own == OWN_TOKEN)
                r = add_server(index, name->own_token, package);
        for (size_t n = 0; r >= 0 && n < name->n_nodes; n++)
                for (size_t i = 0; r >= 0 && i < name->nodes[n]->n_interfaces; i++)
                        r = add_interface(index, name->nodes[n]->interfaces[i], package);
        return r;
}

int set_index_add(SetIndex *index, const Package *package) {
        int r = strmap_put(&index->packages, package->name, (void *) package);

        for (size_t i = 0; r >= 0 && i < package->n_tokens; i++) {
                r = strmap_put(&index->tokens, package->tokens[i]->label, (void *) package);
                if (r >= 0)
                        r = add_server(index, package->tokens[i]->label, package);
        }
        for (size_t i = 0; r >= 0 && i < package->n_names; i++)
                r = add_name(index, package->names[i], package);
        return r;
}

int set_index_rebuild(SetIndex *index, Package *const *packages, size_t n) {
        strmap_clear(&index->packages);
        strmap_clear(&index->tokens);
        strmap_clear(&index->names[BUS_SYSTEM]);
        strmap_clear(&index->names[BUS_SESSION]);
        strmap_clear(&index->servers);
        lists_free(index);
        for (size_t i = 0; i < n; i++) {
                int r = set_index_add(index, packages[i]);

                if (r < 0)
                        return r;
        }
        return 0;
}

const PackageList *set_index_servers(const SetIndex *index, const char *token) {
        const PackageList *list = strmap_get(&index->servers, token);

        return list ? list : &empty_list;
}
