/* The installed manifests as mssf-policy last parsed them (manifest-cache.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "diagnostic.h"
#include "macro.h"
#include "paths.h"

typedef struct Package Package;
typedef struct ManifestCache ManifestCache;

/* What a file was when it was parsed: a change to it changes one of these. */
typedef struct FileKey {
        bool exists;
        uint64_t dev, ino, size;
        int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
} FileKey;

/* path's key (exists false when it does not): 0 or -errno. */
int file_key_of(const char *path, FileKey *ret);

/*
 * MANIFEST_DIR/.mssf-policy.cache, read whole: a cache that does not exist,
 * is of another version or does not check out is empty. 0 or -ENOMEM.
 */
int manifest_cache_load(const ToolPaths *paths, ManifestCache **ret);
ManifestCache *manifest_cache_free(ManifestCache *cache);

/*
 * Package name as cached, when its manifest and origin files are exactly
 * as they were (their keys): 1 and *ret, with the origin it was parsed with
 * and its parse warnings added to diag (file names them), as parsing would;
 * 0 when not cached or changed, or -ENOMEM.
 */
int manifest_cache_get(ManifestCache *cache, const char *name, const FileKey *manifest,
                       const FileKey *origin, const char *file, Diagnostics *diag,
                       Package **ret);
/* Remember a package just parsed, with the warnings it got (diag from mark on). */
int manifest_cache_put(ManifestCache *cache, const char *name, const FileKey *manifest,
                       const FileKey *origin, const char *origin_text, const Package *package,
                       const Diagnostics *diag, const DiagnosticsMark *mark);
/* Write the packages got or put since load, when anything changed (atomic). */
int manifest_cache_save(ManifestCache *cache, const ToolPaths *paths);

DEFINE_CLEANUP(ManifestCache *, manifest_cache_free);
