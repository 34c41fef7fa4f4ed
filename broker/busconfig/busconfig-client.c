/*
 * busconfig-client: the rules that apply to one connection identity,
 * indexed, and the send / receive / own checks over them.
 *
 * dbus-daemon walks a connection's whole rule list for every message and
 * keeps the last rule that matches. We get the same answer without the
 * walk: every rule that names one peer (send_destination=, receive_sender=,
 * own=) sits in a bucket under that name, the rest in a "prefix" or an
 * "any" list, each in rule order. For a message we scan, from the end,
 * only the lists that can match (the buckets of the names the peer owns,
 * the prefix list, the any list); the first match in each is its last
 * match, and of those the one latest in rule order decides. The result is
 * the same as the full walk because a rule outside the scanned buckets
 * names a peer that the message's peer is not.
 *
 * dbus-daemon also drops, when it builds the list, every rule that comes
 * before a "blanket" rule of the same kind (one with no type, path,
 * interface, member, error or peer). The blanket test ignores
 * requested_reply, eavesdrop, send_broadcast and the fd bounds, so the
 * drop can change answers (a blanket deny with send_broadcast="true" still
 * removes earlier allows for unicast messages); we do the same so that
 * verdicts agree with dbus-daemon's exactly.
 *
 * Most session buses allow everything (session.conf: allow
 * send_destination="*" and receive with eavesdrop="true"): a client
 * whose send (receive) rules end in a rule that matches every message
 * from or to every peer, with no deny after it, allows everything,
 * since that rule or a later allow always matches last. bc_client_build()
 * finds that once, and busconfig_client_allows_every_send() (_receive())
 * lets the caller skip the checks, which cost several hundred
 * instructions per message otherwise.
 *
 * Nothing here allocates after bc_client_build(); checks are pure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "busconfig-internal.h"
#include "config.h"

static int list_add(BcList *list, const BcEntry *entry) {
        if (list->n_items == list->cap) {
                size_t cap = list->cap ? list->cap * 2 : 4;
                const BcEntry **items = reallocarray(list->items, cap, sizeof(*items));
                if (!items)
                        return -ENOMEM;
                list->items = items;
                list->cap = cap;
        }
        list->items[list->n_items++] = entry;
        return 0;
}

static void list_deinit(BcList *list) {
        free(list->items);
        *list = (BcList){ 0 };
}

static void index_init(BcIndex *index) {
        strmap_init(&index->by_name);
}

static void index_deinit(BcIndex *index) {
        size_t iter = 0;
        const char *key;
        void *value;
        while (strmap_next(&index->by_name, &iter, &key, &value)) {
                list_deinit(value);
                free(value);
        }
        strmap_deinit(&index->by_name);
        list_deinit(&index->prefix);
        list_deinit(&index->any);
}

static int index_add_named(BcIndex *index, const char *name, const BcEntry *entry) {
        BcList *list = strmap_get(&index->by_name, name);
        if (!list) {
                list = calloc(1, sizeof(*list));
                if (!list)
                        return -ENOMEM;
                int r = strmap_put(&index->by_name, name, list);
                if (r < 0) {
                        free(list);
                        return r;
                }
        }
        return list_add(list, entry);
}

/* The rule's kind matches any peer and any message: dbus-daemon's blanket. */
static bool rule_is_blanket(const BusPolicyRule *rule) {
        switch (rule->kind) {
        case BUS_RULE_SEND:
        case BUS_RULE_RECEIVE:
                return rule->type == BUS_MESSAGE_TYPE_ANY && !rule->path && !rule->interface &&
                       !rule->member && !rule->error && !rule->peer;
        case BUS_RULE_OWN:
                return !rule->own && !rule->own_is_prefix;
        default:
                return false;
        }
}

static int index_entry(BusconfigClient *client, const BcEntry *entry) {
        const BusPolicyRule *rule = entry->rule;
        switch (rule->kind) {
        case BUS_RULE_SEND:
                if (!rule->peer)
                        return list_add(&client->send.any, entry);
                if (rule->peer_is_prefix)
                        return list_add(&client->send.prefix, entry);
                return index_add_named(&client->send, rule->peer, entry);
        case BUS_RULE_RECEIVE:
                if (!rule->peer)
                        return list_add(&client->receive.any, entry);
                return index_add_named(&client->receive, rule->peer, entry);
        case BUS_RULE_OWN:
                if (rule->own_is_prefix)
                        return list_add(&client->own.prefix, entry);
                if (!rule->own)
                        return list_add(&client->own.any, entry);
                return index_add_named(&client->own, rule->own, entry);
        default:
                return 0; /* user=/group= rules decide connecting only */
        }
}

static BcAllowAll allow_all_of(const BusconfigClient *client, BusRuleKind kind);

int bc_client_build(BusconfigClient *client, const BcRuleSet *const *sets, size_t n_sets) {
        size_t total = 0, last_blanket[3] = { 0, 0, 0 }, pos = 0;
        index_init(&client->send);
        index_init(&client->receive);
        index_init(&client->own);
        for (size_t s = 0; s < n_sets; s++)
                total += sets[s]->n_refs;
        client->entries = calloc(total ? total : 1, sizeof(BcEntry));
        if (!client->entries)
                return -ENOMEM;
        /* Positions are 1-based here so that 0 means "no blanket rule". */
        for (size_t s = 0; s < n_sets; s++)
                for (size_t i = 0; i < sets[s]->n_refs; i++) {
                        const BusPolicyRule *rule = sets[s]->refs[i].rule;
                        pos++;
                        if (rule->kind <= BUS_RULE_OWN && rule_is_blanket(rule))
                                last_blanket[rule->kind] = pos;
                }
        pos = 0;
        for (size_t s = 0; s < n_sets; s++)
                for (size_t i = 0; i < sets[s]->n_refs; i++) {
                        const BusPolicyRule *rule = sets[s]->refs[i].rule;
                        pos++;
                        if (rule->kind > BUS_RULE_OWN || pos < last_blanket[rule->kind])
                                continue;
                        BcEntry *entry = &client->entries[client->n_entries];
                        *entry = (BcEntry){ rule, sets[s]->refs[i].context, (uint32_t)client->n_entries };
                        client->n_entries++;
                        int r = index_entry(client, entry);
                        if (r < 0)
                                return r;
                }
        client->send_all = allow_all_of(client, BUS_RULE_SEND);
        client->receive_all = allow_all_of(client, BUS_RULE_RECEIVE);
        return 0;
}

void bc_client_deinit(BusconfigClient *client) {
        index_deinit(&client->send);
        index_deinit(&client->receive);
        index_deinit(&client->own);
        free(client->entries);
        client->entries = NULL;
        client->n_entries = 0;
}

/* name is prefix, or prefix followed by '.' and more (dbus's "words"). */
static bool has_prefix_words(const char *name, const char *prefix) {
        size_t n = strlen(prefix);
        return name && strncmp(name, prefix, n) == 0 && (name[n] == '\0' || name[n] == '.');
}

static bool field_differs(const char *rule_value, const char *message_value) {
        return rule_value && message_value && strcmp(rule_value, message_value) != 0;
}

typedef struct BcQuery {
        BusconfigCheck check;
        const BusconfigMessage *message;
        const BusconfigPeer *peer;      /* receiver for send, sender for receive; NULL: driver */
        bool requested_reply;
        bool eavesdropping;
} BcQuery;

static bool tristate(BusTristate value, bool unset) {
        return value == BUS_TRISTATE_UNSET ? unset : value == BUS_TRISTATE_TRUE;
}

/* requested_reply and eavesdrop, as dbus-daemon applies them. */
static bool reply_flags_match(const BusPolicyRule *rule, const BcQuery *q) {
        bool eavesdrop = tristate(rule->eavesdrop, false);
        bool requested = tristate(rule->requested_reply, rule->allow);
        if (q->check == BUSCONFIG_CHECK_RECEIVE) {
                if (q->eavesdropping && rule->allow && !eavesdrop)
                        return false;
                if (!q->eavesdropping && !rule->allow && eavesdrop)
                        return false;
        }
        if (q->message->is_reply) {
                if (!q->requested_reply && rule->allow && requested && !eavesdrop)
                        return false;
                if (q->requested_reply && !rule->allow && !requested)
                        return false;
        }
        return true;
}

/*
 * Whether rule (a send or receive rule) matches every message with at
 * most its max_fds descriptors, from or to any peer, in every query:
 * nothing but the reply flags to compare, and those match in each
 * combination of requested_reply, eavesdropping and being a reply.
 */
static bool rule_matches_every_message(const BusPolicyRule *rule) {
        BusconfigMessage m = { 0 };

        if (rule->peer || rule->type != BUS_MESSAGE_TYPE_ANY || rule->path || rule->interface ||
            rule->member || rule->error || rule->broadcast != BUS_TRISTATE_UNSET || rule->min_fds != 0)
                return false;
        for (unsigned bits = 0; bits < 8; bits++) {
                BcQuery q = { rule->kind == BUS_RULE_SEND ? BUSCONFIG_CHECK_SEND : BUSCONFIG_CHECK_RECEIVE,
                              &m, NULL, bits & 1, bits & 2 };

                m.is_reply = bits & 4;
                if (!reply_flags_match(rule, &q))
                        return false;
        }
        return true;
}

/* The latest rule of kind that matches every message, if no deny of that kind comes after it. */
static BcAllowAll allow_all_of(const BusconfigClient *client, BusRuleKind kind) {
        BcAllowAll all = { false, 0 };

        for (size_t i = 0; i < client->n_entries; i++) {
                const BusPolicyRule *rule = client->entries[i].rule;

                if (rule->kind != kind)
                        continue;
                if (!rule->allow)
                        all.valid = false;
                else if (rule_matches_every_message(rule))
                        all = (BcAllowAll){ true, rule->max_fds };
        }
        return all;
}

bool busconfig_client_allows_every_send(const BusconfigClient *client, unsigned n_fds) {
        return client->send_all.valid && n_fds <= client->send_all.max_fds;
}

bool busconfig_client_allows_every_receive(const BusconfigClient *client, unsigned n_fds) {
        return client->receive_all.valid && n_fds <= client->receive_all.max_fds;
}

static bool broadcast_matches(const BusPolicyRule *rule, const BusconfigMessage *m) {
        if (rule->broadcast == BUS_TRISTATE_UNSET)
                return true;
        bool broadcast = !m->destination && m->type == BUS_MESSAGE_TYPE_SIGNAL;
        return broadcast == (rule->broadcast == BUS_TRISTATE_TRUE);
}

static bool message_rule_matches(const BusPolicyRule *rule, const BcQuery *q) {
        const BusconfigMessage *m = q->message;
        if (rule->type != BUS_MESSAGE_TYPE_ANY && rule->type != m->type)
                return false;
        if (!reply_flags_match(rule, q))
                return false;
        if (field_differs(rule->path, m->path))
                return false;
        /* An allow naming an interface never matches a message without one; a deny does. */
        if (rule->interface && (m->interface ? strcmp(rule->interface, m->interface) != 0 : rule->allow))
                return false;
        if (field_differs(rule->member, m->member) || field_differs(rule->error, m->error_name))
                return false;
        if (q->check == BUSCONFIG_CHECK_SEND && !broadcast_matches(rule, m))
                return false;
        return m->n_fds >= rule->min_fds && m->n_fds <= rule->max_fds;
}

/* Does the peer (or, for the driver, the message's address) fall under the prefix? */
static bool peer_has_prefix(const BcQuery *q, const char *prefix) {
        if (!q->peer)
                return has_prefix_words(q->message->destination, prefix);
        if (has_prefix_words(q->peer->unique_name, prefix))
                return true;
        for (size_t i = 0; i < q->peer->n_names; i++)
                if (has_prefix_words(q->peer->names[i], prefix))
                        return true;
        return false;
}

/* The latest entry of list that matches, or NULL. */
static const BcEntry *scan_back(const BcList *list, const BcQuery *q, bool prefix) {
        if (!list)
                return NULL;
        for (size_t i = list->n_items; i-- > 0;) {
                const BcEntry *e = list->items[i];
                if (prefix && !peer_has_prefix(q, e->rule->peer))
                        continue;
                if (message_rule_matches(e->rule, q))
                        return e;
        }
        return NULL;
}

static const BcEntry *later(const BcEntry *a, const BcEntry *b) {
        if (!a)
                return b;
        if (!b)
                return a;
        return a->order > b->order ? a : b;
}

static const BcEntry *scan_named(const BcIndex *index, const char *name, const BcQuery *q) {
        return name ? scan_back(strmap_get(&index->by_name, name), q, false) : NULL;
}

static const BcEntry *decide(const BcIndex *index, const BcQuery *q, const char *driver_name) {
        const BcEntry *best = scan_back(&index->any, q, false);
        best = later(best, scan_back(&index->prefix, q, true));
        if (!q->peer)
                return later(best, scan_named(index, driver_name, q));
        best = later(best, scan_named(index, q->peer->unique_name, q));
        for (size_t i = 0; i < q->peer->n_names; i++)
                best = later(best, scan_named(index, q->peer->names[i], q));
        return best;
}

static void verdict_from(const BcEntry *entry, BusconfigCheck check, BusconfigVerdict *ret) {
        *ret = (BusconfigVerdict){ .check = check };
        if (!entry)
                return; /* no rule matched: denied */
        ret->allow = entry->rule->allow;
        ret->log = check == BUSCONFIG_CHECK_SEND && entry->rule->log;
        ret->rule = entry->rule;
        ret->context = entry->context;
}

void busconfig_client_check_send(const BusconfigClient *client, const BusconfigMessage *message,
                                 const BusconfigPeer *receiver, bool requested_reply,
                                 BusconfigVerdict *ret) {
        BcQuery q = { BUSCONFIG_CHECK_SEND, message, receiver, requested_reply, false };
        verdict_from(decide(&client->send, &q, message->destination), BUSCONFIG_CHECK_SEND, ret);
}

void busconfig_client_check_receive(const BusconfigClient *client, const BusconfigMessage *message,
                                    const BusconfigPeer *sender, bool eavesdropping,
                                    bool requested_reply, BusconfigVerdict *ret) {
        BcQuery q = { BUSCONFIG_CHECK_RECEIVE, message, sender, requested_reply, eavesdropping };
        verdict_from(decide(&client->receive, &q, message->sender), BUSCONFIG_CHECK_RECEIVE, ret);
}

void busconfig_client_check_own(const BusconfigClient *client, const char *name,
                                BusconfigVerdict *ret) {
        const BcEntry *best = client->own.any.n_items ? client->own.any.items[client->own.any.n_items - 1] : NULL;
        const BcList *exact = strmap_get(&client->own.by_name, name);
        if (exact && exact->n_items)
                best = later(best, exact->items[exact->n_items - 1]);
        for (size_t i = client->own.prefix.n_items; i-- > 0;) {
                const BcEntry *e = client->own.prefix.items[i];
                if (has_prefix_words(name, e->rule->own)) {
                        best = later(best, e);
                        break;
                }
        }
        verdict_from(best, BUSCONFIG_CHECK_OWN, ret);
}
