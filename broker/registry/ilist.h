/* Intrusive circular doubly-linked lists (header only). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * An IList is both a list head and a node: a head is an IList whose
 * neighbours are the first and last nodes; an empty head points at
 * itself. A node that is on no list also points at itself, so
 * ilist_remove() is safe on an unlinked node. Every operation is O(1)
 * and none allocates. Embed the node in the object and get back to the
 * object with ILIST_ENTRY().
 */
typedef struct IList {
        struct IList *prev;
        struct IList *next;
} IList;

#define ILIST_INIT(name) { &(name), &(name) }

#define ILIST_ENTRY(node, type, member) \
        ((type *)((char *)(node) - offsetof(type, member)))

/* Walks the nodes of head; the current node may be removed. */
#define ILIST_FOREACH_SAFE(node, tmp, head) \
        for ((node) = (head)->next, (tmp) = (node)->next; \
             (node) != (head); \
             (node) = (tmp), (tmp) = (node)->next)

static inline void ilist_init(IList *l) {
        l->prev = l;
        l->next = l;
}

static inline bool ilist_is_empty(const IList *l) {
        return l->next == l;
}

/* Whether a node is linked into some list. */
static inline bool ilist_is_linked(const IList *node) {
        return node->next != node;
}

static inline void ilist_insert_after(IList *pos, IList *node) {
        node->prev = pos;
        node->next = pos->next;
        pos->next->prev = node;
        pos->next = node;
}

static inline void ilist_insert_before(IList *pos, IList *node) {
        ilist_insert_after(pos->prev, node);
}

static inline void ilist_append(IList *head, IList *node) {
        ilist_insert_before(head, node);
}

static inline void ilist_prepend(IList *head, IList *node) {
        ilist_insert_after(head, node);
}

static inline void ilist_remove(IList *node) {
        node->prev->next = node->next;
        node->next->prev = node->prev;
        ilist_init(node);
}

/* First node of head, NULL if empty. */
static inline IList *ilist_first(const IList *head) {
        return ilist_is_empty(head) ? NULL : head->next;
}

/* Node after node in head, NULL at the end. */
static inline IList *ilist_next(const IList *head, const IList *node) {
        return node->next == head ? NULL : node->next;
}
