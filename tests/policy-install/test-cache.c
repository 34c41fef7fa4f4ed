/*
 * Unit tests of the cache of parsed manifests (manifest-cache.c over
 * model-codec.c): every real-style fixture encodes and decodes to a model
 * that encodes the same and compiles to the same policy; a compile from
 * the cache writes the same policy.db and prints the same warnings as one
 * from the XML; a manifest or origin file changed, a cache of another
 * version or damaged in any byte is parsed again, never half trusted, and
 * so is one whose checksum is right but whose entry is empty.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compile.h"
#include "crc32c.h"
#include "installed.h"
#include "manifest.h"
#include "model-codec.h"
#include "policyset.h"
#include "tool-fixture.h"

#ifndef FIXTURES
#error FIXTURES (tests/manifest/fixtures/valid) must be defined
#endif

static const char *const fixtures[] = {
        "applauncherd", "credentials", "dsme", "extensions", "mce", "merge", "misplaced",
        "own", "sensorfw", "signon", "timed", "usb-moded", "crlf-tabs", "documented",
};

static Package *parse_fixture(const char *name) {
        char path[512];
        Package *p = NULL;

        snprintf(path, sizeof(path), "%s/%s.xml", FIXTURES, name);
        assert_int_equal(manifest_parse_file(path, name, "system", NULL, &p), 0);
        return p;
}

static CodecWriter encode(const Package *p) {
        CodecWriter w = {};

        model_codec_put_package(&w, p);
        assert_int_equal(w.error, 0);
        return w;
}

/* Parsed, and parsed-encoded-decoded: the same bytes again, the same policy.db. */
static void test_codec_round_trip(void **state) {
        PolicySet *parsed = NULL, *decoded = NULL;
        uint8_t *a = NULL, *b = NULL;
        size_t a_size = 0, b_size = 0;

        assert_int_equal(policy_set_new(NULL, &parsed), 0);
        assert_int_equal(policy_set_new(NULL, &decoded), 0);
        for (size_t i = 0; i < ELEMENTSOF(fixtures); i++) {
                Package *p = parse_fixture(fixtures[i]), *q = NULL;
                CodecWriter w = encode(p), again;
                CodecReader r = { .p = w.data, .end = w.data + w.size };

                assert_int_equal(model_codec_get_package(&r, p->name, p->origin, p->file, &q), 0);
                assert_ptr_equal(r.p, r.end);
                again = encode(q);
                assert_int_equal(again.size, w.size);
                assert_memory_equal(again.data, w.data, w.size);
                /* Every location points at the package's own file. */
                if (q->n_names > 0)
                        assert_ptr_equal(q->names[0]->loc.file, q->file);
                assert_int_equal(policy_set_add(parsed, p, NULL), 0);
                assert_int_equal(policy_set_add(decoded, q, NULL), 0);
                codec_writer_deinit(&w);
                codec_writer_deinit(&again);
        }
        assert_int_equal(policy_set_resolve(parsed, NULL), 0);
        assert_int_equal(policy_set_resolve(decoded, NULL), 0);
        assert_int_equal(policy_compile(parsed, &a, &a_size, NULL), 0);
        assert_int_equal(policy_compile(decoded, &b, &b_size, NULL), 0);
        assert_int_equal(a_size, b_size);
        assert_memory_equal(a, b, a_size);
        free(a);
        free(b);
        policy_set_free(parsed);
        policy_set_free(decoded);
}

/* Truncated anywhere or with any byte changed: an error or a package, never a crash. */
static void test_codec_damage(void **state) {
        Package *p = parse_fixture("mce");
        CodecWriter w = encode(p);

        for (size_t cut = 0; cut < w.size; cut++) {
                CodecReader r = { .p = w.data, .end = w.data + cut };
                Package *q = NULL;

                assert_int_equal(model_codec_get_package(&r, "mce", NULL, "f", &q), -EBADMSG);
        }
        for (size_t i = 0; i < w.size; i += 3) {
                CodecReader r = { .p = w.data, .end = w.data + w.size };
                Package *q = NULL;

                w.data[i] ^= 0x5a;
                if (model_codec_get_package(&r, "mce", NULL, "f", &q) == 0)
                        package_free(q);
                w.data[i] ^= 0x5a;
        }
        codec_writer_deinit(&w);
        package_free(p);
}

typedef struct Compiled {
        char *db;
        size_t db_size;
        char *warnings;
} Compiled;

static int do_compile(ToolContext *c, void *userdata) {
        Compiled *out = userdata;
        FILE *f;
        size_t size = 0;
        int r = tool_compile(c, NULL);

        f = open_memstream(&out->warnings, &size);
        for (size_t i = 0; i < c->diag->n_items; i++) {
                char *line = NULL;

                assert_int_equal(diagnostic_format(c->diag->items[i], &line), 0);
                fprintf(f, "%s\n", line);
                free(line);
        }
        fclose(f);
        if (r == 0) {
                _cleanup_free_ char *path = fileio_join(c->paths.root, "var/lib/mssf/policy.db");

                assert_int_equal(fileio_read(path, &out->db, &out->db_size), 0);
        }
        return r;
}

static Compiled compile(const ToolFixture *f) {
        Compiled out = {};

        assert_int_equal(tool_fixture_run(f, do_compile, &out, NULL), 0);
        return out;
}

static void assert_same(const Compiled *a, const Compiled *b) {
        assert_int_equal(a->db_size, b->db_size);
        assert_memory_equal(a->db, b->db, a->db_size);
        assert_string_equal(a->warnings, b->warnings);
}

static void compiled_clear(Compiled *c) {
        free(c->db);
        free(c->warnings);
        *c = (Compiled) {};
}

static void install_fixtures(const ToolFixture *f, char **ret_manifests) {
        _cleanup_free_ char *origins = fileio_join(f->root, "var/lib/mssf/origins");
        char *manifests = fileio_join(f->root, "var/lib/mssf/manifests");

        assert_int_equal(fileio_mkdir_p(manifests, 0755), 0);
        assert_int_equal(fileio_mkdir_p(origins, 0755), 0);
        for (size_t i = 0; i < ELEMENTSOF(fixtures); i++) {
                char path[512], name[128];
                _cleanup_free_ char *text = NULL;
                size_t size = 0;

                snprintf(path, sizeof(path), "%s/%s.xml", FIXTURES, fixtures[i]);
                assert_int_equal(fileio_read(path, &text, &size), 0);
                snprintf(name, sizeof(name), "%s.xml", fixtures[i]);
                tool_fixture_write(manifests, name, text);
                tool_fixture_write(origins, fixtures[i], i % 2 ? "system\n" : "thirdparty\n");
        }
        *ret_manifests = manifests;
}

static void test_cache_gives_the_same(void **state) {
        ToolFixture *f = tool_fixture_new("test-cache");
        _cleanup_free_ char *manifests = NULL, *cache = NULL, *data = NULL;
        Compiled cold, warm, again;
        size_t size = 0;

        install_fixtures(f, &manifests);
        cache = fileio_join(manifests, ".mssf-policy.cache");
        cold = compile(f);
        assert_non_null(strstr(cold.warnings, "warning:"));
        assert_int_equal(fileio_read(cache, &data, &size), 0);
        warm = compile(f);
        assert_same(&cold, &warm);
        compiled_clear(&warm);

        /* Every byte damaged in turn: the cache is ignored, the result the same. */
        for (size_t i = 0; i < size; i += size / 40 + 1) {
                data[i] ^= 0x01;
                assert_int_equal(fileio_write_atomic(cache, data, size, 0644), 0);
                again = compile(f);
                assert_same(&cold, &again);
                compiled_clear(&again);
                data[i] ^= 0x01;
        }
        compiled_clear(&cold);
        tool_fixture_free(f);
}

/* A cache file as manifest_cache_save() lays it out, with one entry for
 * NAME whose payload is empty: a right checksum over bytes we never write. */
static void write_empty_entry_cache(const char *path, const char *name) {
        CodecWriter w = {};
        uint32_t crc;

        codec_put_raw(&w, (const uint8_t[20]) {}, 20);
        codec_put_str(&w, name);
        for (int key = 0; key < 2; key++) {
                codec_put_u8(&w, 1);
                for (int field = 0; field < 7; field++)
                        codec_put_u64(&w, 1);
        }
        codec_put_str(&w, "system");
        codec_put_u32(&w, 0);
        assert_int_equal(w.error, 0);
        memcpy(w.data, "MSSFMC\n", 8);
        crc = crc32c_update(0, w.data + 20, w.size - 20);
        for (size_t i = 0; i < 4; i++) {
                w.data[8 + i] = (uint8_t) (MODEL_CODEC_VERSION >> (8 * i));
                w.data[12 + i] = (uint8_t) (1u >> (8 * i));
                w.data[16 + i] = (uint8_t) (crc >> (8 * i));
        }
        assert_int_equal(fileio_write_atomic(path, w.data, w.size, 0644), 0);
        codec_writer_deinit(&w);
}

/* An entry with an empty payload is a cache that is not ours: parsed again
 * from the XML, not a failed compile. */
static void test_empty_entry_is_parsed_again(void **state) {
        ToolFixture *f = tool_fixture_new("test-cache-empty");
        _cleanup_free_ char *manifests = NULL, *cache = NULL;
        Compiled cold, again;

        install_fixtures(f, &manifests);
        cache = fileio_join(manifests, ".mssf-policy.cache");
        cold = compile(f);
        write_empty_entry_cache(cache, "mce");
        again = compile(f);
        assert_same(&cold, &again);
        compiled_clear(&again);
        compiled_clear(&cold);
        tool_fixture_free(f);
}

static const char *origin_of(const ToolFixture *f, const char *name, bool write_cache) {
        static char origin[64];
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        ToolPathOptions options = { .root = f->root };
        PolicySet *set = NULL;
        ToolPaths paths;

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(tool_paths_init(&paths, &options), 0);
        paths.write_cache = write_cache;
        assert_int_equal(installed_load(&paths, NULL, diag, &set), 0);
        snprintf(origin, sizeof(origin), "%s", policy_set_find_package(set, name)->origin ?: "-");
        policy_set_free(set);
        tool_paths_deinit(&paths);
        return origin;
}

static void test_changed_files_are_parsed_again(void **state) {
        ToolFixture *f = tool_fixture_new("test-cache");
        _cleanup_free_ char *manifests = NULL, *origins = NULL;
        Compiled before, after = {};

        install_fixtures(f, &manifests);
        origins = fileio_join(f->root, "var/lib/mssf/origins");
        before = compile(f);
        assert_null(memmem(before.db, before.db_size, "org.example.Changed", 19));
        /* The same name, another manifest: the cache entry no longer applies. */
        tool_fixture_write(manifests, "own.xml", "<aegis><provide><dbus name=\"org.example.Changed\" "
                           "own=\"SELF\" bus=\"system\"/></provide></aegis>");
        after = compile(f);
        assert_non_null(memmem(after.db, after.db_size, "org.example.Changed", 19));
        compiled_clear(&after);
        /* Another origin for a cached package: read again. */
        assert_string_equal(origin_of(f, "own", true), "system");
        tool_fixture_write(origins, "own", "operator\n");
        assert_string_equal(origin_of(f, "own", true), "operator");
        {
                _cleanup_free_ char *path = fileio_join(origins, "own");

                assert_int_equal(fileio_unlink(path), 0);
        }
        assert_string_equal(origin_of(f, "own", false), "-");
        /* A broken manifest stops the compile, cache or not. */
        tool_fixture_write(manifests, "own.xml", "<aegis>");
        assert_int_equal(tool_fixture_run(f, do_compile, &after, NULL), TOOL_E_INVALID);
        assert_non_null(strstr(after.warnings, "own.xml:1:8: error: broken XML"));
        compiled_clear(&after);
        compiled_clear(&before);
        tool_fixture_free(f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_codec_round_trip),
                cmocka_unit_test(test_codec_damage),
                cmocka_unit_test(test_cache_gives_the_same),
                cmocka_unit_test(test_empty_entry_is_parsed_again),
                cmocka_unit_test(test_changed_files_are_parsed_again),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
