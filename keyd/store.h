/* Protected storage: named items under a key (an app's own or a token's), encrypted on disk. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "buffer.h"
#include "keyd-error.h"
#include "keyref.h"
#include "rootkey.h"

/* An item's name: 1-128 of [A-Za-z0-9._-], not starting with '.'. */
#define STORE_NAME_MAX 128
/* Items under one key: a full store is refused (QuotaExceeded), never grown without bound. */
#define STORE_ITEMS_MAX 256

/* Whether name may name an item. */
bool store_valid_name(const char *name);

/*
 * Under store_dir (made 0700 if missing): put writes the item
 * atomically, replacing one of the same name; get reads and opens it
 * into ret; remove unlinks it. The caller has checked that ref is the
 * caller's to use. creator: the caller's label, recorded in the item.
 * 0, or KEYD_E_NO_SUCH_ITEM, KEYD_E_QUOTA, KEYD_E_OTHER_ROOT,
 * KEYD_E_ALTERED, KEYD_E_MALFORMED, KEYD_E_UNSUPPORTED_VERSION, or
 * -errno; error says why.
 */
int store_put(const char *store_dir, const RootKey *root, const KeyRef *ref, const char *creator,
              const char *name, const uint8_t *data, size_t size, KeydError *error);
int store_get(const char *store_dir, const RootKey *root, const KeyRef *ref, const char *name, Buffer *ret,
              KeydError *error);
int store_remove(const char *store_dir, const RootKey *root, const KeyRef *ref, const char *name,
                 KeydError *error);
