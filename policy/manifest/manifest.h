/* The Aegis manifest parser: one XML manifest into one Package. */
#pragma once

#include <stddef.h>

#include "diagnostic.h"
#include "model.h"

/*
 * Expected outcomes (positive, module-prefixed). Negative errno values are
 * unexpected failures (-ENOMEM, I/O errors) and are returned unchanged.
 */
enum {
        MANIFEST_E_INVALID = 1,         /* at least one error was added to diag */
};

/* Bounds on what one manifest may contain (docs/manifest.md). */
#define MANIFEST_MAX_FILE_SIZE  (1024 * 1024)
#define MANIFEST_MAX_DEPTH      16
#define MANIFEST_MAX_ITEMS      20000   /* elements in one file */
#define MANIFEST_MAX_LABEL      255     /* Smack label length */

/*
 * Parse one manifest as package package_name (its Smack label) installed
 * from origin (nullable). Warnings and errors go to diag (nullable).
 * Returns 0 and *ret on success, MANIFEST_E_INVALID if any error was
 * found (*ret untouched), or a negative errno.
 *
 * Token names are resolved within the package (bare: own token if it
 * provides one of that name, else global); nothing outside the file is
 * consulted, so every label in the result is final.
 */
int manifest_parse_file(const char *path, const char *package_name, const char *origin,
                        Diagnostics *diag, Package **ret);
/* The same over a buffer; file names it in diagnostics (nullable). */
int manifest_parse_buffer(const char *data, size_t size, const char *file,
                          const char *package_name, const char *origin,
                          Diagnostics *diag, Package **ret);

/*
 * The package name a manifest file stands for: its base name without
 * ".aegis.xml", ".aegis" or ".xml" ("debian/mce.aegis" -> "mce").
 * MANIFEST_E_INVALID if that is not a valid package label.
 */
int manifest_package_name_from_path(const char *path, char **ret);

/*
 * `mssf-policy check MANIFEST...`: validate each manifest on its own (names
 * from manifest_package_name_from_path(), or names[i] when names is not
 * NULL) against device (NULL: the built-in default device policy).
 * References that only the rest of the system can resolve (another
 * package's token, an unknown global token) are warnings here.
 * Returns 0, MANIFEST_E_INVALID if any error was reported, or -errno.
 */
int manifest_check(const char *const *paths, const char *const *names, size_t n_paths,
                   const DevicePolicy *device, Diagnostics *diag);

/* Validators shared by the policy modules (no allocation, any input). */
bool manifest_valid_label(const char *s);          /* a Smack label */
bool manifest_valid_package_label(const char *s);  /* ... usable for a package */
bool manifest_valid_bus_name(const char *s);       /* a well-known bus name */
bool manifest_valid_object_path(const char *s);
/* An absolute, normal file path: no empty, "." or ".." component, no trailing '/'. */
bool manifest_valid_file_path(const char *s);
bool manifest_valid_interface_name(const char *s);
bool manifest_valid_member_name(const char *s);
