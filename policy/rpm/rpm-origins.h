/* The device maker's map from the keys that sign rpm packages to the device policy's origins. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "diagnostic.h"
#include "macro.h"

/*
 * /etc/mssf/rpm-origins.conf: deb822 paragraphs, '#' comments, in order
 * of trust (the first that matches wins):
 *
 *     Mssf-Origin: system
 *     Signed-By: 2EEE 75A2 8596 1EF3 105A  93EC 0F2B C6D7 751E 5DED
 *
 * Signed-By holds one or more OpenPGP fingerprints (v4: 40 hex digits,
 * v5/v6: 64), separated by commas or on continuation lines; spaces inside
 * one (as gpg --fingerprint prints it) are ignored. A package maps to
 * Mssf-Origin when the key that issued its header signature is one of
 * them (rpm-signer.h says when a signature counts).
 */
#define RPM_ORIGINS_MAX_FINGERPRINT 32

typedef struct RpmFingerprint {
        uint8_t bytes[RPM_ORIGINS_MAX_FINGERPRINT];
        size_t size;                    /* 20 (v4) or 32 (v5, v6) */
} RpmFingerprint;

typedef struct RpmOrigin {
        char *mssf_origin;
        RpmFingerprint *keys;
        size_t n_keys;
        unsigned line;                  /* of its paragraph */
} RpmOrigin;

typedef struct RpmOrigins {
        char *file;
        RpmOrigin *items;
        size_t n_items;
} RpmOrigins;

enum {
        RPM_ORIGINS_E_INVALID = 1,      /* errors (file:line) are in diag */
};

/* 0 and *ret (empty when the file does not exist), RPM_ORIGINS_E_INVALID, or -errno. */
int rpm_origins_load(const char *path, Diagnostics *diag, RpmOrigins **ret);
int rpm_origins_parse(const char *text, size_t size, const char *file, Diagnostics *diag,
                      RpmOrigins **ret);
RpmOrigins *rpm_origins_free(RpmOrigins *origins);

/* The first paragraph that lists fingerprint, or NULL. */
const RpmOrigin *rpm_origins_find(const RpmOrigins *origins, const RpmFingerprint *fingerprint);

/* "2EEE75A2...": the upper-case hex form, into hex (2 * RPM_ORIGINS_MAX_FINGERPRINT + 1 bytes). */
void rpm_fingerprint_hex(const RpmFingerprint *fingerprint, char *hex);

DEFINE_CLEANUP(RpmOrigins *, rpm_origins_free);
