/*
 * The cache of parsed manifests, so that installing one package on a
 * device with a thousand does not parse a thousand XML files again.
 *
 * The installed manifests (MANIFEST_DIR/NAME.xml) and origin files stay
 * the truth; this file, MANIFEST_DIR/.mssf-policy.cache, only holds what
 * parsing them gave (the model, model-codec.c, and the warnings) with the
 * identity of each file when it was parsed: device, inode, size, mtime and
 * ctime. mssf-policy replaces those files by rename, so any change gives a
 * new inode and ctime (which no one can set back), and an entry is used
 * only when both files are exactly as they were; anything else is parsed
 * again. The cache is written (atomically) only by runs holding the lock,
 * with the entries that run used, so removed packages leave it too. A
 * cache that is of another version, does not check out (CRC32C over the
 * whole) or does not decode is ignored, never trusted in part.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crc32c.h"
#include "fileio.h"
#include "manifest-cache.h"
#include "model-codec.h"
#include "model.h"
#include "strmap.h"

#define CACHE_NAME ".mssf-policy.cache"
#define CACHE_MAGIC "MSSFMC\n"          /* with its NUL: 8 bytes */
#define CACHE_HEADER_SIZE 20            /* magic, version, count, crc */

typedef struct CacheEntry {
        char *name;
        FileKey manifest;
        FileKey origin;
        char *origin_text;              /* (nullable) */
        uint8_t *payload;               /* warnings, then the package */
        size_t payload_size;
        bool used;                      /* got or put in this run: saved */
} CacheEntry;

struct ManifestCache {
        CacheEntry **entries;
        size_t n_entries;
        StrMap by_name;
        bool dirty;
};

int file_key_of(const char *path, FileKey *ret) {
        struct stat st;

        if (stat(path, &st) < 0) {
                if (errno != ENOENT)
                        return -errno;
                *ret = (FileKey) {};
                return 0;
        }
        *ret = (FileKey) {
                .exists = true,
                .dev = (uint64_t) st.st_dev,
                .ino = (uint64_t) st.st_ino,
                .size = (uint64_t) st.st_size,
                .mtime_sec = st.st_mtim.tv_sec,
                .mtime_nsec = st.st_mtim.tv_nsec,
                .ctime_sec = st.st_ctim.tv_sec,
                .ctime_nsec = st.st_ctim.tv_nsec,
        };
        return 0;
}

static bool key_equal(const FileKey *a, const FileKey *b) {
        return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
               a->size == b->size && a->mtime_sec == b->mtime_sec &&
               a->mtime_nsec == b->mtime_nsec && a->ctime_sec == b->ctime_sec &&
               a->ctime_nsec == b->ctime_nsec;
}

static void entry_free(CacheEntry *e) {
        if (!e)
                return;
        free(e->name);
        free(e->origin_text);
        free(e->payload);
        free(e);
}

ManifestCache *manifest_cache_free(ManifestCache *cache) {
        if (!cache)
                return NULL;
        for (size_t i = 0; i < cache->n_entries; i++)
                entry_free(cache->entries[i]);
        free(cache->entries);
        strmap_deinit(&cache->by_name);
        free(cache);
        return NULL;
}

/* The entry called name, or NULL. */
static CacheEntry *cache_find(const ManifestCache *cache, const char *name) {
        uintptr_t index = (uintptr_t) strmap_get(&cache->by_name, name);

        return index ? cache->entries[index - 1] : NULL;
}

/* Add (or replace) an entry; takes e. The index maps names to position + 1. */
static int cache_add(ManifestCache *cache, CacheEntry *e) {
        StrMapSlot *slot = strmap_find(&cache->by_name, e->name);
        CacheEntry **entries;

        if (slot) {
                size_t i = (uintptr_t) slot->value - 1;

                entry_free(cache->entries[i]);
                cache->entries[i] = e;
                slot->key = e->name;
                return 0;
        }
        entries = reallocarray(cache->entries, cache->n_entries + 1, sizeof(CacheEntry *));
        if (!entries) {
                entry_free(e);
                return -ENOMEM;
        }
        cache->entries = entries;
        entries[cache->n_entries++] = e;
        return strmap_put(&cache->by_name, e->name, (void *) (uintptr_t) cache->n_entries);
}

static void put_key(CodecWriter *w, const FileKey *k) {
        codec_put_u8(w, k->exists);
        codec_put_u64(w, k->dev);
        codec_put_u64(w, k->ino);
        codec_put_u64(w, k->size);
        codec_put_u64(w, (uint64_t) k->mtime_sec);
        codec_put_u64(w, (uint64_t) k->mtime_nsec);
        codec_put_u64(w, (uint64_t) k->ctime_sec);
        codec_put_u64(w, (uint64_t) k->ctime_nsec);
}

static FileKey get_key(CodecReader *r) {
        FileKey k = { .exists = codec_get_u8(r) != 0 };

        k.dev = codec_get_u64(r);
        k.ino = codec_get_u64(r);
        k.size = codec_get_u64(r);
        k.mtime_sec = (int64_t) codec_get_u64(r);
        k.mtime_nsec = (int64_t) codec_get_u64(r);
        k.ctime_sec = (int64_t) codec_get_u64(r);
        k.ctime_nsec = (int64_t) codec_get_u64(r);
        return k;
}

/* One entry as written by manifest_cache_save(). */
static int read_entry(CodecReader *r, CacheEntry **ret) {
        CacheEntry *e = calloc(1, sizeof(*e));
        uint32_t size;

        if (!e)
                return -ENOMEM;
        e->name = codec_get_str(r);
        e->manifest = get_key(r);
        e->origin = get_key(r);
        e->origin_text = codec_get_str(r);
        size = codec_get_count(r, 1);
        if (size == 0)
                r->bad = true; /* a parsed package is never empty */
        if (!r->bad) {
                e->payload = malloc(size);
                if (e->payload) {
                        memcpy(e->payload, r->p, size);
                        e->payload_size = size;
                        r->p += size;
                }
        }
        if (r->bad || !e->name || !e->payload) {
                bool bad = r->bad || !e->name;

                entry_free(e);
                return bad ? -EBADMSG : -ENOMEM;
        }
        *ret = e;
        return 0;
}

static uint32_t le32(const uint8_t *p) {
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static char *cache_path(const ToolPaths *paths) {
        return fileio_join(paths->manifest_dir, CACHE_NAME);
}

/* The entries of a cache file's bytes; -EBADMSG when it does not check out. */
static int parse_cache(ManifestCache *cache, const uint8_t *data, size_t size) {
        CodecReader r = { .p = data + CACHE_HEADER_SIZE, .end = data + size };
        uint32_t n;

        if (size < CACHE_HEADER_SIZE || memcmp(data, CACHE_MAGIC, 8) != 0 ||
            le32(data + 8) != MODEL_CODEC_VERSION ||
            le32(data + 16) != crc32c_update(0, data + CACHE_HEADER_SIZE, size - CACHE_HEADER_SIZE))
                return -EBADMSG;
        n = le32(data + 12);
        for (uint32_t i = 0; i < n; i++) {
                CacheEntry *e = NULL;
                int err = read_entry(&r, &e);

                if (err < 0)
                        return err;
                err = cache_add(cache, e);
                if (err < 0)
                        return err;
        }
        return r.p == r.end ? 0 : -EBADMSG;
}

int manifest_cache_load(const ToolPaths *paths, ManifestCache **ret) {
        _cleanup_(manifest_cache_freep) ManifestCache *cache = calloc(1, sizeof(*cache));
        _cleanup_free_ char *path = cache_path(paths), *data = NULL;
        size_t size = 0;
        int r;

        if (!cache || !path)
                return -ENOMEM;
        r = fileio_read(path, &data, &size);
        if (r >= 0)
                r = parse_cache(cache, (const uint8_t *) data, size);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* Missing, unreadable or not ours: start empty (and rewrite it). */
                manifest_cache_free(cache);
                cache = calloc(1, sizeof(*cache));
                if (!cache)
                        return -ENOMEM;
                cache->dirty = r != -ENOENT;
        }
        *ret = TAKE_PTR(cache);
        return 0;
}

/* Replay the warnings parsing gave, then decode the package. */
static int decode(const CacheEntry *e, const char *origin, const char *file, Diagnostics *diag,
                  Package **ret) {
        CodecReader r = { .p = e->payload, .end = e->payload + e->payload_size };
        uint32_t n = codec_get_count(&r, 13);

        for (uint32_t i = 0; i < n && !r.bad; i++) {
                DiagnosticSeverity severity = codec_get_u8(&r) ? DIAGNOSTIC_ERROR : DIAGNOSTIC_WARNING;
                unsigned line = codec_get_u32(&r), column = codec_get_u32(&r);
                _cleanup_free_ char *message = codec_get_str(&r);

                if (!r.bad && message &&
                    diagnostics_add(diag, severity, file, line, column, "%s", message) < 0)
                        return -ENOMEM;
        }
        if (r.bad)
                return -EBADMSG;
        return model_codec_get_package(&r, e->name, origin, file, ret);
}

int manifest_cache_get(ManifestCache *cache, const char *name, const FileKey *manifest,
                       const FileKey *origin, const char *file, Diagnostics *diag, Package **ret) {
        CacheEntry *e = cache ? cache_find(cache, name) : NULL;
        DiagnosticsMark mark = diagnostics_mark(diag);
        int r;

        if (!e || !key_equal(&e->manifest, manifest) || !key_equal(&e->origin, origin))
                return 0;
        r = decode(e, e->origin_text, file, diag, ret);
        if (r == -EBADMSG) {
                /* Not what we wrote after all: parse it, and write the cache again. */
                diagnostics_rewind(diag, &mark);
                cache->dirty = true;
                return 0;
        }
        if (r < 0)
                return r;
        e->used = true;
        return 1;
}

int manifest_cache_put(ManifestCache *cache, const char *name, const FileKey *manifest,
                       const FileKey *origin, const char *origin_text, const Package *package,
                       const Diagnostics *diag, const DiagnosticsMark *mark) {
        CodecWriter w = {};
        CacheEntry *e;
        size_t n = diag ? diag->n_items - mark->n_items : 0;

        /*
         * Warnings past the list's bound were only counted, and a filter
         * (diagnostics_set_keep()) dropped some: no full record of the
         * parse, so that one is parsed every time.
         */
        if (!cache || (diag && (diag->n_warnings + diag->n_errors - mark->n_warnings -
                                mark->n_errors != n || diag->n_refused != mark->n_refused)))
                return 0;
        codec_put_u32(&w, (uint32_t) n);
        for (size_t i = 0; i < n; i++) {
                const Diagnostic *d = diag->items[mark->n_items + i];

                codec_put_u8(&w, d->severity == DIAGNOSTIC_ERROR);
                codec_put_u32(&w, d->line);
                codec_put_u32(&w, d->column);
                codec_put_str(&w, d->message);
        }
        model_codec_put_package(&w, package);
        e = calloc(1, sizeof(*e));
        if (w.error || !e || !(e->name = strdup(name)) ||
            (origin_text && !(e->origin_text = strdup(origin_text)))) {
                codec_writer_deinit(&w);
                entry_free(e);
                return -ENOMEM;
        }
        e->manifest = *manifest;
        e->origin = *origin;
        e->payload = TAKE_PTR(w.data);
        e->payload_size = w.size;
        e->used = true;
        cache->dirty = true;
        return cache_add(cache, e);
}

int manifest_cache_save(ManifestCache *cache, const ToolPaths *paths) {
        _cleanup_free_ char *path = NULL;
        CodecWriter w = {};
        uint32_t n = 0, crc;
        int r;

        if (!cache)
                return 0;
        for (size_t i = 0; i < cache->n_entries; i++)
                if (!cache->entries[i]->used)
                        cache->dirty = true;    /* a package went: drop it */
                else
                        n++;
        if (!cache->dirty)
                return 0;
        path = cache_path(paths);
        if (!path)
                return -ENOMEM;
        if (n == 0) {
                cache->dirty = false;
                return fileio_unlink(path);
        }
        codec_put_raw(&w, (const uint8_t[CACHE_HEADER_SIZE]) {}, CACHE_HEADER_SIZE);
        for (size_t i = 0; i < cache->n_entries; i++) {
                const CacheEntry *e = cache->entries[i];

                if (!e->used)
                        continue;
                codec_put_str(&w, e->name);
                put_key(&w, &e->manifest);
                put_key(&w, &e->origin);
                codec_put_str(&w, e->origin_text);
                codec_put_u32(&w, (uint32_t) e->payload_size);
                codec_put_raw(&w, e->payload, e->payload_size);
        }
        if (w.error) {
                codec_writer_deinit(&w);
                return -ENOMEM;
        }
        memcpy(w.data, CACHE_MAGIC, 8);
        crc = crc32c_update(0, w.data + CACHE_HEADER_SIZE, w.size - CACHE_HEADER_SIZE);
        for (size_t i = 0; i < 4; i++) {
                w.data[8 + i] = (uint8_t) (MODEL_CODEC_VERSION >> (8 * i));
                w.data[12 + i] = (uint8_t) (n >> (8 * i));
                w.data[16 + i] = (uint8_t) (crc >> (8 * i));
        }
        r = fileio_write_atomic(path, w.data, w.size, 0644);
        codec_writer_deinit(&w);
        if (r >= 0)
                cache->dirty = false;
        return r;
}
