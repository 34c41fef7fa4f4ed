/* The device policy: global tokens, what each origin may be granted, monitor and checkany labels. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "diagnostic.h"
#include "model.h"

#define DEVICE_POLICY_PATH "/etc/mssf/device-policy.conf"

enum {
        DEVICE_POLICY_E_INVALID = 1,    /* errors were added to diag */
};

/* The built-in default (docs/manifest.md lists it). */
int device_policy_new_default(DevicePolicy **ret);

/* Parse the line format; 0, DEVICE_POLICY_E_INVALID or -errno (-ENOENT if absent). */
int device_policy_parse_file(const char *path, Diagnostics *diag, DevicePolicy **ret);
int device_policy_parse_buffer(const char *data, size_t size, const char *file,
                               Diagnostics *diag, DevicePolicy **ret);

/* path (NULL: DEVICE_POLICY_PATH) if it exists, else the built-in default. */
int device_policy_load(const char *path, Diagnostics *diag, DevicePolicy **ret);

/*
 * Whether a package from origin (NULL: unknown) may be granted the
 * credential with this full name. check_origin_token: the credential is a
 * checkorigin token, which only an exact pattern or "*" covers.
 */
bool device_policy_allows(const DevicePolicy *policy, const char *origin, const char *name,
                          bool check_origin_token);
/*
 * The global token that equals name but for case ("trackerReadAccess" ->
 * "TrackerReadAccess"), or NULL: real files changed case between
 * revisions, and the case is significant.
 */
const char *device_policy_similar_token(const DevicePolicy *policy, const char *name);

/*
 * Whether a package from origin (NULL: unknown) may name label, beyond its
 * own and those under it, as an owner of its bus names ("label" lines).
 */
bool device_policy_grants_label(const DevicePolicy *policy, const char *origin,
                                const char *label);

/*
 * Whether a package from origin (NULL: unknown) may serve the global token
 * token: guard its D-Bus members with it, which gives every holder Smack
 * reach to it and it reach to every holder ("serve" lines). A package's
 * own tokens need no line.
 */
bool device_policy_allows_serving(const DevicePolicy *policy, const char *origin,
                                  const char *token);

/*
 * Whether a package from origin (NULL: unknown) may declare the bus name:
 * no "name" line reserves it, or one of its origin's lines does.
 */
bool device_policy_allows_name(const DevicePolicy *policy, const char *origin,
                               const char *name);

/* Whether label may monitor / eavesdrop. */
bool device_policy_is_monitor(const DevicePolicy *policy, const char *label);

/*
 * Whether label may ask the bus about its callers for any token ("checkany"
 * lines: the key service's label, and no other).
 */
bool device_policy_is_checkany(const DevicePolicy *policy, const char *label);
