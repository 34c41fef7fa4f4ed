/*
 * How many registered connections each uid has: what max_connections_per_user
 * is checked against at every Hello. Counting the peer list instead cost
 * every Hello a walk over all connections, so a boot storm of N connects
 * cost N^2/2 steps (8% of the bus's time over 1,000 connections, perf,
 * bench/README.md). An open-addressing table of the uids that have
 * connections (linear probing, deletion by backward shift, so it never
 * fills with tombstones), grown at 3/4 full; its size follows the number
 * of distinct uids connected, which the connection limits bound.
 */
#include <errno.h>
#include <stdlib.h>

#include "uidcount.h"

static size_t uid_count_home(uint32_t uid, size_t n_slots) {
        return (size_t) ((uid * UINT32_C(2654435761)) & (uint32_t) (n_slots - 1));
}

static UidCountSlot *uid_count_find(const UidCount *c, uint32_t uid) {
        if (c->n_slots == 0)
                return NULL;
        for (size_t i = uid_count_home(uid, c->n_slots);; i = (i + 1) & (c->n_slots - 1)) {
                UidCountSlot *s = &c->slots[i];

                if (s->count == 0)
                        return NULL;
                if (s->uid == uid)
                        return s;
        }
}

static void uid_count_place(UidCountSlot *slots, size_t n_slots, UidCountSlot entry) {
        size_t i = uid_count_home(entry.uid, n_slots);

        while (slots[i].count != 0)
                i = (i + 1) & (n_slots - 1);
        slots[i] = entry;
}

static int uid_count_grow(UidCount *c) {
        size_t n = c->n_slots ? c->n_slots * 2 : 16;
        UidCountSlot *slots = calloc(n, sizeof(*slots));

        if (!slots)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_slots; i++)
                if (c->slots[i].count != 0)
                        uid_count_place(slots, n, c->slots[i]);
        free(c->slots);
        c->slots = slots;
        c->n_slots = n;
        return 0;
}

int uid_count_add(UidCount *c, uid_t uid) {
        UidCountSlot *s = uid_count_find(c, (uint32_t) uid);
        int r;

        if (s) {
                s->count++;
                return 0;
        }
        if ((c->n_used + 1) * 4 > c->n_slots * 3) {
                r = uid_count_grow(c);
                if (r < 0)
                        return r;
        }
        uid_count_place(c->slots, c->n_slots, (UidCountSlot) { .uid = (uint32_t) uid, .count = 1 });
        c->n_used++;
        return 0;
}

void uid_count_remove(UidCount *c, uid_t uid) {
        UidCountSlot *s = uid_count_find(c, (uint32_t) uid);
        size_t hole, i;

        if (!s || --s->count > 0)
                return;
        c->n_used--;
        /* Backward shift: pull later entries of the same run into the hole. */
        hole = (size_t) (s - c->slots);
        for (i = (hole + 1) & (c->n_slots - 1); c->slots[i].count != 0; i = (i + 1) & (c->n_slots - 1)) {
                size_t home = uid_count_home(c->slots[i].uid, c->n_slots);

                /* Stays if its home lies cyclically in (hole, i]. */
                if (hole <= i ? (hole < home && home <= i) : (hole < home || home <= i))
                        continue;
                c->slots[hole] = c->slots[i];
                hole = i;
        }
        c->slots[hole] = (UidCountSlot) {};
}

size_t uid_count_get(const UidCount *c, uid_t uid) {
        const UidCountSlot *s = uid_count_find(c, (uint32_t) uid);

        return s ? s->count : 0;
}

void uid_count_deinit(UidCount *c) {
        free(c->slots);
        *c = UID_COUNT_INIT;
}
