/*
 * The model of one package as bytes, and back: what lets mssf-policy keep
 * the manifests it has parsed (policy/install/manifest-cache.c) instead of
 * parsing a thousand XML files again for every package a device installs.
 *
 * The bytes are mssf-policy's own, written under its lock in a root-owned
 * directory, but reading them trusts nothing: every count is bounded by
 * the bytes left, every enum by its range, every string by its length, and
 * anything wrong makes the whole read fail (the cache is then ignored and
 * the XML parsed: the manifests are the truth, this is only a copy). The
 * format is little-endian; a string is its length and bytes (0xffffffff
 * for none); a SourceLoc is its line and column (its file is the
 * package's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model-codec.h"

#define NO_STRING UINT32_MAX

/* --------------------------------------------------------------------- */
/* Primitives. */

void codec_put_raw(CodecWriter *w, const void *data, size_t size) {
        if (w->error)
                return;
        if (w->size + size > w->allocated) {
                size_t grow = w->allocated ? w->allocated : 4096;
                uint8_t *bigger;

                while (grow < w->size + size)
                        grow *= 2;
                bigger = realloc(w->data, grow);
                if (!bigger) {
                        w->error = -ENOMEM;
                        return;
                }
                w->data = bigger;
                w->allocated = grow;
        }
        memcpy(w->data + w->size, data, size);
        w->size += size;
}

void codec_put_u8(CodecWriter *w, uint8_t v) {
        if (w->size < w->allocated) {
                w->data[w->size++] = v;
                return;
        }
        codec_put_raw(w, &v, 1);
}

void codec_put_u32(CodecWriter *w, uint32_t v) {
        uint8_t b[4] = { (uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16), (uint8_t) (v >> 24) };

        if (w->allocated - w->size >= sizeof(b)) {
                memcpy(w->data + w->size, b, sizeof(b));
                w->size += sizeof(b);
                return;
        }
        codec_put_raw(w, b, sizeof(b));
}

void codec_put_u64(CodecWriter *w, uint64_t v) {
        codec_put_u32(w, (uint32_t) v);
        codec_put_u32(w, (uint32_t) (v >> 32));
}

void codec_put_str(CodecWriter *w, const char *s) {
        size_t n = s ? strlen(s) : 0;

        if (n >= NO_STRING) {
                w->error = -E2BIG;
                return;
        }
        codec_put_u32(w, s ? (uint32_t) n : NO_STRING);
        if (s)
                codec_put_raw(w, s, n);
}

void codec_writer_deinit(CodecWriter *w) {
        free(w->data);
        *w = (CodecWriter) {};
}

static const uint8_t *take(CodecReader *r, size_t size) {
        const uint8_t *p = r->p;

        if (r->bad || (size_t) (r->end - r->p) < size) {
                r->bad = true;
                return NULL;
        }
        r->p += size;
        return p;
}

uint8_t codec_get_u8(CodecReader *r) {
        const uint8_t *p = take(r, 1);

        return p ? p[0] : 0;
}

uint32_t codec_get_u32(CodecReader *r) {
        const uint8_t *p = take(r, 4);

        return p ? (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
                   (uint32_t) p[3] << 24 : 0;
}

uint64_t codec_get_u64(CodecReader *r) {
        uint64_t low = codec_get_u32(r);

        return low | (uint64_t) codec_get_u32(r) << 32;
}

char *codec_get_str(CodecReader *r) {
        uint32_t n = codec_get_u32(r);
        const uint8_t *p;
        char *s;

        if (r->bad || n == NO_STRING)
                return NULL;
        p = take(r, n);
        if (!p || memchr(p, '\0', n)) {
                r->bad = true;
                return NULL;
        }
        s = strndup((const char *) p, n);
        if (!s)
                r->bad = true;
        return s;
}

uint32_t codec_get_count(CodecReader *r, size_t min_size) {
        uint32_t n = codec_get_u32(r);

        if (!r->bad && (size_t) (r->end - r->p) / min_size < n)
                r->bad = true;
        return r->bad ? 0 : n;
}

/* --------------------------------------------------------------------- */
/* Writing a package. */

static void put_loc(CodecWriter *w, SourceLoc loc) {
        codec_put_u32(w, loc.line);
        codec_put_u32(w, loc.column);
}

static void put_requirement(CodecWriter *w, const Requirement *req) {
        codec_put_u8(w, (uint8_t) req->kind);
        codec_put_str(w, req->token);
        put_loc(w, req->loc);
}

static void put_interface(CodecWriter *w, const Interface *iface) {
        codec_put_str(w, iface->name);
        put_requirement(w, &iface->default_require);
        put_requirement(w, &iface->default_write);
        put_loc(w, iface->loc);
        codec_put_u32(w, (uint32_t) iface->n_members);
        for (size_t i = 0; i < iface->n_members; i++) {
                const Member *m = iface->members[i];

                codec_put_u8(w, (uint8_t) m->kind);
                codec_put_str(w, m->name);
                put_requirement(w, &m->require);
                put_requirement(w, &m->write);
                codec_put_u8(w, (uint8_t) m->access);
                put_loc(w, m->loc);
        }
}

static void put_name(CodecWriter *w, const DbusName *d) {
        codec_put_str(w, d->name);
        codec_put_u8(w, (uint8_t) d->bus);
        codec_put_u8(w, (uint8_t) d->own);
        codec_put_u8(w, d->own_explicit);
        codec_put_str(w, d->own_token);
        put_loc(w, d->loc);
        codec_put_u32(w, (uint32_t) d->n_owner_labels);
        for (size_t i = 0; i < d->n_owner_labels; i++) {
                codec_put_str(w, d->owner_labels[i]);
                put_loc(w, d->owner_locs[i]);
        }
        codec_put_u32(w, (uint32_t) d->n_nodes);
        for (size_t i = 0; i < d->n_nodes; i++) {
                codec_put_str(w, d->nodes[i]->path);
                put_loc(w, d->nodes[i]->loc);
                codec_put_u32(w, (uint32_t) d->nodes[i]->n_interfaces);
                for (size_t j = 0; j < d->nodes[i]->n_interfaces; j++)
                        put_interface(w, d->nodes[i]->interfaces[j]);
        }
}

static void put_request(CodecWriter *w, const Request *req) {
        codec_put_u32(w, req->policy);
        codec_put_u8(w, req->context_install);
        put_loc(w, req->loc);
        codec_put_u32(w, (uint32_t) req->n_credentials);
        for (size_t i = 0; i < req->n_credentials; i++) {
                const Credential *c = req->credentials[i];

                codec_put_u8(w, (uint8_t) c->kind);
                codec_put_str(w, c->name);
                codec_put_str(w, c->written);
                codec_put_str(w, c->provider);
                put_loc(w, c->loc);
        }
        codec_put_u32(w, (uint32_t) req->n_targets);
        for (size_t i = 0; i < req->n_targets; i++) {
                codec_put_str(w, req->targets[i]->path);
                codec_put_str(w, req->targets[i]->package);
                codec_put_str(w, req->targets[i]->id);
                put_loc(w, req->targets[i]->loc);
        }
}

void model_codec_put_package(CodecWriter *w, const Package *p) {
        put_loc(w, p->loc);
        codec_put_u32(w, (uint32_t) p->n_requests);
        for (size_t i = 0; i < p->n_requests; i++)
                put_request(w, p->requests[i]);
        codec_put_u32(w, (uint32_t) p->n_tokens);
        for (size_t i = 0; i < p->n_tokens; i++) {
                codec_put_str(w, p->tokens[i]->name);
                codec_put_str(w, p->tokens[i]->label);
                codec_put_u8(w, p->tokens[i]->check_origin);
                put_loc(w, p->tokens[i]->loc);
        }
        codec_put_u32(w, (uint32_t) p->n_names);
        for (size_t i = 0; i < p->n_names; i++)
                put_name(w, p->names[i]);
        codec_put_u32(w, (uint32_t) p->n_accounts);
        for (size_t i = 0; i < p->n_accounts; i++) {
                codec_put_str(w, p->accounts[i]->user);
                codec_put_str(w, p->accounts[i]->group);
                put_loc(w, p->accounts[i]->loc);
        }
}

/* --------------------------------------------------------------------- */
/* Reading a package. */

typedef struct Decoder {
        CodecReader *r;
        Package *package;               /* what is being filled */
        int error;                      /* -ENOMEM, sticky */
} Decoder;

static int status(const Decoder *d) {
        if (d->error)
                return d->error;
        return d->r->bad ? -EBADMSG : 0;
}

static SourceLoc get_loc(Decoder *d) {
        SourceLoc loc = { .file = d->package->file };

        loc.line = codec_get_u32(d->r);
        loc.column = codec_get_u32(d->r);
        return loc;
}

/* An enum value below max, else the reader goes bad. */
static unsigned get_enum(Decoder *d, unsigned max) {
        unsigned v = codec_get_u8(d->r);

        if (v >= max)
                d->r->bad = true;
        return v;
}

/* A string that must be there. */
static char *get_required(Decoder *d) {
        char *s = codec_get_str(d->r);

        if (!s)
                d->r->bad = true;
        return s;
}

static void get_requirement(Decoder *d, Requirement *req) {
        req->kind = (RequirementKind) get_enum(d, REQUIREMENT_TOKEN + 1);
        req->token = codec_get_str(d->r);
        req->loc = get_loc(d);
        if (req->kind == REQUIREMENT_UNSET)
                req->loc = (SourceLoc) {};
        if ((req->kind == REQUIREMENT_TOKEN) != (req->token != NULL))
                d->r->bad = true;
}

/* Append item to an array of the model, or free it with free_fn. */
#define APPEND(d, arr, n, item, free_fn)                                        \
        do {                                                                    \
                if (status(d) == 0 && MODEL_APPEND(arr, n, item) == 0)          \
                        break;                                                  \
                if (status(d) == 0)                                             \
                        (d)->error = -ENOMEM;                                   \
                free_fn(item);                                                  \
        } while (0)

static void get_member(Decoder *d, Interface *iface) {
        MemberKind kind = (MemberKind) get_enum(d, MEMBER_PROPERTY + 1);
        _cleanup_free_ char *name = get_required(d);
        Member *m = NULL;

        if (status(d) != 0 || member_new(kind, name, (SourceLoc) {}, &m) < 0) {
                d->error = d->error ?: (d->r->bad ? 0 : -ENOMEM);
                return;
        }
        get_requirement(d, &m->require);
        get_requirement(d, &m->write);
        m->access = (PropertyAccess) get_enum(d, PROPERTY_ACCESS_WRITE + 1);
        m->loc = get_loc(d);
        APPEND(d, iface->members, iface->n_members, m, member_free);
}

static void get_interface(Decoder *d, Node *node) {
        _cleanup_free_ char *name = get_required(d);
        Interface *iface = NULL;
        uint32_t n;

        if (status(d) != 0 || interface_new(name, (SourceLoc) {}, &iface) < 0) {
                d->error = d->error ?: (d->r->bad ? 0 : -ENOMEM);
                return;
        }
        get_requirement(d, &iface->default_require);
        get_requirement(d, &iface->default_write);
        iface->loc = get_loc(d);
        n = codec_get_count(d->r, 2);
        for (uint32_t i = 0; i < n && status(d) == 0; i++)
                get_member(d, iface);
        APPEND(d, node->interfaces, node->n_interfaces, iface, interface_free);
}

static void get_node(Decoder *d, DbusName *name) {
        _cleanup_free_ char *path = get_required(d);
        Node *node = NULL;
        uint32_t n;

        if (status(d) != 0 || node_new(path, (SourceLoc) {}, &node) < 0) {
                d->error = d->error ?: (d->r->bad ? 0 : -ENOMEM);
                return;
        }
        node->loc = get_loc(d);
        n = codec_get_count(d->r, 4);
        for (uint32_t i = 0; i < n && status(d) == 0; i++)
                get_interface(d, node);
        APPEND(d, name->nodes, name->n_nodes, node, node_free);
}

static void get_name(Decoder *d) {
        _cleanup_free_ char *text = get_required(d);
        BusKind bus = (BusKind) get_enum(d, BUS_SESSION + 1);
        DbusName *name = NULL;
        uint32_t n;

        if (status(d) != 0 || dbus_name_new(text, bus, (SourceLoc) {}, &name) < 0) {
                d->error = d->error ?: (d->r->bad ? 0 : -ENOMEM);
                return;
        }
        name->own = (OwnKind) get_enum(d, OWN_TOKEN + 1);
        name->own_explicit = codec_get_u8(d->r) != 0;
        name->own_token = codec_get_str(d->r);
        name->loc = get_loc(d);
        n = codec_get_count(d->r, 4);
        for (uint32_t i = 0; i < n && status(d) == 0; i++) {
                _cleanup_free_ char *label = get_required(d);
                SourceLoc loc = get_loc(d);

                if (label && dbus_name_add_owner_label(name, label, loc) < 0)
                        d->error = -ENOMEM;
        }
        n = codec_get_count(d->r, 4);
        for (uint32_t i = 0; i < n && status(d) == 0; i++)
                get_node(d, name);
        APPEND(d, d->package->names, d->package->n_names, name, dbus_name_free);
}

static void get_credential(Decoder *d, Request *req) {
        CredentialKind kind = (CredentialKind) get_enum(d, CREDENTIAL_MATCH + 1);
        _cleanup_free_ char *name = get_required(d), *written = get_required(d),
                            *provider = codec_get_str(d->r);
        SourceLoc loc = get_loc(d);
        Credential *c = NULL;

        if (status(d) != 0 || credential_new(kind, name, written, provider, loc, &c) < 0) {
                d->error = d->error ?: (d->r->bad ? 0 : -ENOMEM);
                return;
        }
        APPEND(d, req->credentials, req->n_credentials, c, credential_free);
}

static void get_target(Decoder *d, Request *req) {
        _cleanup_free_ char *path = codec_get_str(d->r), *package = codec_get_str(d->r),
                            *id = codec_get_str(d->r);
        SourceLoc loc = get_loc(d);
        RequestTarget *t = NULL;

        if (status(d) != 0 || request_target_new(path, package, id, loc, &t) < 0) {
                d->error = d->error ?: (d->r->bad ? 0 : -ENOMEM);
                return;
        }
        APPEND(d, req->targets, req->n_targets, t, request_target_free);
}

static void get_request(Decoder *d) {
        uint32_t policy = codec_get_u32(d->r);
        bool context_install = codec_get_u8(d->r) != 0;
        SourceLoc loc = get_loc(d);
        Request *req = NULL;
        uint32_t n;

        if (status(d) != 0 || request_new(loc, &req) < 0) {
                d->error = d->error ?: (d->r->bad ? 0 : -ENOMEM);
                return;
        }
        req->policy = policy;
        req->context_install = context_install;
        n = codec_get_count(d->r, 13);
        for (uint32_t i = 0; i < n && status(d) == 0; i++)
                get_credential(d, req);
        n = codec_get_count(d->r, 20);
        for (uint32_t i = 0; i < n && status(d) == 0; i++)
                get_target(d, req);
        APPEND(d, d->package->requests, d->package->n_requests, req, request_free);
}

static void get_token(Decoder *d) {
        _cleanup_free_ char *name = get_required(d), *label = get_required(d);
        bool check_origin = codec_get_u8(d->r) != 0;
        SourceLoc loc = get_loc(d);
        ProvidedToken *t = NULL;

        if (status(d) != 0 ||
            provided_token_new(d->package->name, name, check_origin, loc, &t) < 0) {
                d->error = d->error ?: (d->r->bad ? 0 : -ENOMEM);
                return;
        }
        /* The label is always derived: a different one is not our writing. */
        if (strcmp(t->label, label) != 0)
                d->r->bad = true;
        APPEND(d, d->package->tokens, d->package->n_tokens, t, provided_token_free);
}

static void get_account(Decoder *d) {
        _cleanup_free_ char *user = get_required(d), *group = codec_get_str(d->r);
        SourceLoc loc = get_loc(d);
        Account *a = NULL;

        if (status(d) != 0 || account_new(user, group, loc, &a) < 0) {
                d->error = d->error ?: (d->r->bad ? 0 : -ENOMEM);
                return;
        }
        APPEND(d, d->package->accounts, d->package->n_accounts, a, account_free);
}

int model_codec_get_package(CodecReader *r, const char *name, const char *origin,
                            const char *file, Package **ret) {
        _cleanup_(package_freep) Package *package = NULL;
        Decoder d = { .r = r };
        uint32_t n;
        int result;

        result = package_new(name, origin, file, &package);
        if (result < 0)
                return result;
        d.package = package;
        package->loc = get_loc(&d);
        n = codec_get_count(r, 13);
        for (uint32_t i = 0; i < n && status(&d) == 0; i++)
                get_request(&d);
        n = codec_get_count(r, 13);
        for (uint32_t i = 0; i < n && status(&d) == 0; i++)
                get_token(&d);
        n = codec_get_count(r, 14);
        for (uint32_t i = 0; i < n && status(&d) == 0; i++)
                get_name(&d);
        n = codec_get_count(r, 12);
        for (uint32_t i = 0; i < n && status(&d) == 0; i++)
                get_account(&d);
        result = status(&d);
        if (result < 0)
                return result;
        *ret = TAKE_PTR(package);
        return 0;
}
