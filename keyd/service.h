/* The key service's operations, for a caller whose label the bus gave and whose tokens the bus answers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blob.h"
#include "buffer.h"
#include "keyd-error.h"
#include "keyref.h"
#include "rootkey.h"

/* The most one call takes: plaintext, data to sign or verify, an item; and GetRandom's most. */
#define SERVICE_MAX_INPUT 65536
#define SERVICE_MAX_RANDOM 4096
/* The most a blob or a signature may be: the largest input plus a blob's overhead. */
#define SERVICE_MAX_BLOB (SERVICE_MAX_INPUT + BLOB_OVERHEAD_MAX)

/*
 * Whether the caller holds token: 0 with *ret_held (false also for a
 * token that does not exist), or a KEYD_E_* code / -errno with error
 * filled when the bus could not or would not tell. Asked every time a
 * token's key is used: a revoked grant is seen by the next call.
 */
typedef int (*ServiceTokenCheck)(const char *token, bool *ret_held, void *userdata, KeydError *error);

/* Who is calling: the bus's word for it. */
typedef struct ServiceCaller {
        const char *label;              /* (nullable) its Smack label; NULL or unusable: NoLabel */
        ServiceTokenCheck holds_token;
        void *userdata;
} ServiceCaller;

typedef struct Service {
        const RootKey *root;            /* (nullable) NULL: no root; state says why */
        KeydError state;                /* why there is no root (code and sentence) */
        const char *store_dir;
        const char *const *own_tokens;  /* the service's own tokens, by bare name (NULL-terminated) */
} Service;

/* Which key made a signature, whose call, in which mode. */
typedef struct ServiceSigner {
        KeyRef key;
        char signer[KEYREF_NAME_MAX + 1];
        RootMode mode;
} ServiceSigner;

/*
 * Each returns 0 (ret filled: free it with buffer_wipe()) or a KEYD_E_*
 * code or -errno with error filled. The order of checks is the same for
 * all: the caller's label, the root, the arguments' form and size, then
 * whether the caller may use the key, then the work.
 */
int service_encrypt(const Service *s, const ServiceCaller *caller, const char *key, const uint8_t *data,
                    size_t size, Buffer *ret, KeydError *error);
int service_decrypt(const Service *s, const ServiceCaller *caller, const uint8_t *blob, size_t size,
                    Buffer *ret, KeydError *error);
int service_sign(const Service *s, const ServiceCaller *caller, const char *key, const uint8_t *data,
                 size_t size, Buffer *ret, KeydError *error);
int service_verify(const Service *s, const ServiceCaller *caller, const uint8_t *data, size_t size,
                   const uint8_t *signature, size_t signature_size, ServiceSigner *ret, KeydError *error);
int service_random(const Service *s, const ServiceCaller *caller, uint32_t size, Buffer *ret, KeydError *error);
int service_store(const Service *s, const ServiceCaller *caller, const char *key, const char *name,
                  const uint8_t *data, size_t size, KeydError *error);
int service_load(const Service *s, const ServiceCaller *caller, const char *key, const char *name,
                 Buffer *ret, KeydError *error);
int service_remove(const Service *s, const ServiceCaller *caller, const char *key, const char *name,
                   KeydError *error);
