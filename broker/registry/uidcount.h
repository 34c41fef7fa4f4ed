/* How many registered connections each uid has (uidcount.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct UidCountSlot {
        uint32_t uid;
        uint32_t count;                 /* 0: the slot is free */
} UidCountSlot;

typedef struct UidCount {
        UidCountSlot *slots;            /* (owned) */
        size_t n_slots;                 /* 0 or a power of two */
        size_t n_used;
} UidCount;

#define UID_COUNT_INIT ((UidCount) {})

/* One more for uid: 0 or -ENOMEM (then nothing changed). */
int uid_count_add(UidCount *c, uid_t uid);
/* One fewer (uid must have one). */
void uid_count_remove(UidCount *c, uid_t uid);
size_t uid_count_get(const UidCount *c, uid_t uid);
void uid_count_deinit(UidCount *c);
