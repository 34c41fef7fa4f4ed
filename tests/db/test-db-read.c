/*
 * Tests of loading and looking up: round trips through the builder, every
 * truncation refused, every bit flip refused by the checksum, structural
 * validation on its own (flips re-sealed with a recomputed checksum), and
 * targeted corruptions with the exact error each must give.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "builder.h"
#include "crc32c.h"
#include "db-fixture.h"
#include "db-read.h"
#include "dump.h"
#include "format.h"

static void assert_tokens(const PolicyRequirement *req, const char *const *expected) {
        size_t n = 0;

        while (expected[n])
                n++;
        assert_int_equal(req->n_tokens, n);
        for (size_t i = 0; i < n; i++)
                assert_string_equal(policy_requirement_token(req, i), expected[i]);
        assert_null(policy_requirement_token(req, n));
}

#define TOKENS(...) ((const char *const[]) { __VA_ARGS__, NULL })
#define OPEN ((const char *const[]) { NULL })

static void test_crc32c_vector(void **state) {
        /* The check value of CRC-32C (RFC 3720, B.4). */
        assert_int_equal(crc32c_update(0, "123456789", 9), 0xe3069283u);
        assert_int_equal(crc32c_update(crc32c_update(0, "1234", 4), "56789", 5), 0xe3069283u);
        assert_int_equal(crc32c_update(0, "", 0), 0);
}

static void test_lookup_round_trip(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        PolicyRequirement req;

        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_METHOD, "/ril_0",
                                          "org.ofono.Modem", "SetProperty", &req), 0);
        assert_tokens(&req, TOKENS("Cellular"));
        assert_string_equal(req.name, "org.ofono");
        assert_string_equal(req.interface, "org.ofono.Modem");
        assert_string_equal(req.member, "SetProperty");
        /* Two tokens for one key are both required, in label order. */
        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_METHOD, "/ril_0",
                                          "org.ofono.Modem", "Dial", &req), 0);
        assert_tokens(&req, TOKENS("Cellular", "Telephony"));
        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_METHOD, "/ril_0",
                                          "org.ofono.Modem", "GetProperties", &req), 0);
        assert_tokens(&req, OPEN);
        /* A member without its own rule falls back to the interface default. */
        assert_int_equal(policy_db_lookup(db, "com.nokia.mce", POLICY_KIND_METHOD,
                                          "/com/nokia/mce/request", "com.nokia.mce.request",
                                          "get_tklock_mode", &req), 0);
        assert_tokens(&req, OPEN);
        assert_null(req.member);
        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_PROPERTY_WRITE, "/ril_0",
                                          "org.ofono.Modem", "Powered", &req), 0);
        assert_tokens(&req, TOKENS("Cellular"));
        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_PROPERTY_READ, "/ril_0",
                                          "org.ofono.Modem", "Powered", &req), 0);
        assert_tokens(&req, OPEN);
}

static void test_lookup_unions(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        PolicyRequirement req;

        /* Without interface: every token of any member of that name there. */
        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_METHOD, "/ril_0", NULL,
                                          "GetProperties", &req), 0);
        assert_tokens(&req, TOKENS("ofono::Sim"));
        assert_null(req.interface);
        /* ... plus the defaults of every interface at that path. */
        assert_int_equal(policy_db_lookup(db, "com.nokia.mce", POLICY_KIND_METHOD,
                                          "/com/nokia/mce/request", NULL,
                                          "req_radio_states_change", &req), 0);
        assert_tokens(&req, TOKENS("mce::DeviceModeControl"));
        /*
         * An unknown member there is not covered without an interface, even
         * with an (open) default: the default is its interface's, and the
         * call does not say which interface it means.
         */
        assert_int_equal(policy_db_lookup(db, "com.nokia.mce", POLICY_KIND_METHOD,
                                          "/com/nokia/mce/request", NULL, "anything", &req), POLICY_DB_UNCOVERED);
        /* /ril_0 has no default, so an unknown member is not covered. */
        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_METHOD, "/ril_0", NULL,
                                          "anything", &req), POLICY_DB_UNCOVERED);
        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_PROPERTY_READ, "/ril_0",
                                          NULL, "Serial", &req), 0);
        assert_tokens(&req, TOKENS("ofono::Identity"));
}

static void test_lookup_misses(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        PolicyRequirement req;

        assert_int_equal(policy_db_lookup(db, "org.example.Nobody", POLICY_KIND_METHOD, "/",
                                          "a.b", "c", &req), POLICY_DB_UNDECLARED);
        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_METHOD, "/ril_1",
                                          "org.ofono.Modem", "SetProperty", &req),
                         POLICY_DB_UNCOVERED);
        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_SIGNAL, "/ril_0",
                                          "org.ofono.Modem", "SetProperty", &req),
                         POLICY_DB_UNCOVERED);
        assert_int_equal(policy_db_lookup(db, "com.example.Multi", POLICY_KIND_METHOD, "/",
                                          "a.b", "c", &req), POLICY_DB_UNCOVERED);
        assert_int_equal(policy_db_lookup(db, "org.ofono", (PolicyKind) 9, "/", "a.b", "c", &req),
                         -EINVAL);
        assert_int_equal(policy_db_lookup(NULL, "org.ofono", POLICY_KIND_METHOD, "/", "a.b", "c",
                                          &req), -EINVAL);
}

static void test_names_globals_monitors(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();

        assert_true(policy_db_declares_name(db, "org.ofono"));
        assert_true(policy_db_declares_name(db, "org.example.Locked"));
        assert_false(policy_db_declares_name(db, "org.ofono2"));
        assert_false(policy_db_declares_name(db, ""));
        assert_true(policy_db_is_global_token(db, "Cellular"));
        assert_true(policy_db_is_global_token(db, "Location"));
        assert_false(policy_db_is_global_token(db, "Telephony"));
        assert_true(policy_db_is_monitor_label(db, "dbus-monitor"));
        assert_false(policy_db_is_monitor_label(db, "dbus-monitor2"));
        assert_false(policy_db_is_monitor_label(NULL, "dbus-monitor"));
        assert_true(policy_db_is_checkany_label(db, "mssf-keyd"));
        assert_true(policy_db_is_checkany_label(db, "keys"));
        assert_false(policy_db_is_checkany_label(db, "mssf-keyd:helper"));
        assert_false(policy_db_is_checkany_label(db, "dbus-monitor"));
        assert_false(policy_db_is_checkany_label(db, NULL));
        assert_false(policy_db_is_checkany_label(NULL, "mssf-keyd"));
        /* Provided tokens: full labels, declared twice, listed once. */
        assert_true(policy_db_knows_provided_tokens(db));
        assert_true(policy_db_is_provided_token(db, "mce::LEDControl"));
        assert_true(policy_db_is_provided_token(db, "mce::DeviceModeControl"));
        assert_false(policy_db_is_provided_token(db, "LEDControl"));
        assert_false(policy_db_is_provided_token(db, "Cellular"));
        assert_false(policy_db_is_provided_token(NULL, "mce::LEDControl"));
}

/* What the basic fixture's packages serve, and who declared its names. */
static void test_declarers_and_packages(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = fixture_open_basic();
        const char *package = "unset";

        assert_true(policy_db_knows_declarers(db));
        assert_int_equal(policy_db_name_declarer(db, "org.ofono", &package), 0);
        assert_string_equal(package, "ofono");
        assert_int_equal(policy_db_name_declarer(db, "com.example.Multi", &package), 0);
        assert_string_equal(package, "multi");
        /* Declared, but by a package the file does not record. */
        assert_int_equal(policy_db_name_declarer(db, "org.example.Locked", &package), 0);
        assert_null(package);
        assert_int_equal(policy_db_name_declarer(db, "org.example.Nobody", &package),
                         POLICY_DB_UNDECLARED);
        assert_int_equal(policy_db_name_declarer(NULL, "org.ofono", &package), -EINVAL);
        assert_int_equal(policy_db_name_declarer(db, "org.ofono", NULL), -EINVAL);
        /* Its rules' tokens (a property write, a signal), its own token. */
        assert_true(policy_db_package_serves_token(db, "ofono", "Cellular"));
        assert_true(policy_db_package_serves_token(db, "ofono", "Telephony"));
        assert_true(policy_db_package_serves_token(db, "ofono", "ofono::Sim"));
        assert_true(policy_db_package_serves_token(db, "ofono", "ofono::Identity"));
        assert_true(policy_db_package_serves_token(db, "ofono", "ofono::OwnName"));
        /* A global token it does not use, another package's token. */
        assert_false(policy_db_package_serves_token(db, "ofono", "Location"));
        assert_false(policy_db_package_serves_token(db, "ofono", "mce::DisplayStatus"));
        /* A signal's token, and a token provided but guarding nothing. */
        assert_true(policy_db_package_serves_token(db, "mce", "mce::DisplayStatus"));
        assert_true(policy_db_package_serves_token(db, "mce", "mce::LEDControl"));
        assert_false(policy_db_package_serves_token(db, "mce", "Cellular"));
        /* A name with no rules; the own token of a name nobody is recorded to declare. */
        assert_false(policy_db_package_serves_token(db, "multi", "Cellular"));
        assert_false(policy_db_package_serves_token(db, "ofono", "Locked"));
        assert_false(policy_db_package_serves_token(db, "multi", "Locked"));
        assert_false(policy_db_package_serves_token(db, "nobody", "Cellular"));
        assert_false(policy_db_package_serves_token(NULL, "ofono", "Cellular"));
}

/*
 * The same policy as an older version wrote it. Each older header is a
 * prefix of the newer one, and each older file the newer one without its
 * last parts: version 3 lacks the checkany labels (the last references;
 * the packages and declarers move up over them), version 2 also the
 * packages and declarers (the last two sections, whose token references
 * end the refs array before the checkany labels), version 1 also the
 * provided tokens (the references before those). So: cut the file
 * there, drop the header's tail, move the sections up.
 */
static void to_version(uint8_t *data, size_t *size, uint32_t version) {
        uint32_t header_size = version == POLICY_DB_FORMAT_VERSION_1 ? POLICY_DB_HEADER_SIZE_V1 :
                               version == POLICY_DB_FORMAT_VERSION_2 ? POLICY_DB_HEADER_SIZE_V2 :
                                                                       POLICY_DB_HEADER_SIZE_V3;
        uint32_t shift = (uint32_t) sizeof(DbHeader) - header_size, n_refs;
        DbHeader h;
        DbSection *sections[] = { &h.strings, &h.names, &h.name_index, &h.rules, &h.rule_index,
                                  &h.refs, &h.packages, &h.declarers };
        size_t n_sections = version == POLICY_DB_FORMAT_VERSION_3 ? ELEMENTSOF(sections) : 6;

        memcpy(&h, data, sizeof(h));
        if (version == POLICY_DB_FORMAT_VERSION_3) {
                /* Only the checkany references go: what follows the refs moves up over them. */
                uint32_t cut = 4 * le32toh(h.checkany_labels.count);
                size_t tail = le32toh(h.packages.offset);

                n_refs = le32toh(h.checkany_labels.first);
                memmove(data + tail - cut, data + tail, *size - tail);
                *size -= cut;
                h.packages.offset = htole32(le32toh(h.packages.offset) - cut);
                h.declarers.offset = htole32(le32toh(h.declarers.offset) - cut);
        } else {
                n_refs = le32toh(h.provided_tokens.first);
                if (version != POLICY_DB_FORMAT_VERSION_1)
                        n_refs += le32toh(h.provided_tokens.count);
                *size = le32toh(h.refs.offset) + 4 * (size_t) n_refs;
        }
        h.refs.count = htole32(n_refs);
        memmove(data + header_size, data + sizeof(h), *size - sizeof(h));
        *size -= shift;
        for (size_t i = 0; i < n_sections; i++)
                sections[i]->offset = htole32(le32toh(sections[i]->offset) - shift);
        h.version = htole32(version);
        h.header_size = htole32(header_size);
        h.file_size = htole32((uint32_t) *size);
        h.checksum = 0;
        memcpy(data, &h, header_size);
        h.checksum = htole32(policy_db_compute_checksum(data, *size));
        memcpy(data, &h, header_size);
}

/*
 * Version 3 files (before checkany labels), version 2 files (before
 * packages) and version 1 files (before provided tokens) still load and
 * answer what they hold; they say what they lack.
 */
static void test_older_versions(void **state) {
        for (uint32_t version = POLICY_DB_FORMAT_VERSION_1; version <= POLICY_DB_FORMAT_VERSION_3; version++) {
                _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
                _cleanup_(policy_db_freep) PolicyDb *db = NULL;
                _cleanup_free_ uint8_t *data = NULL;
                _cleanup_free_ char *text = NULL;
                const char *package = "unset";
                PolicyRequirement req;
                size_t size, text_size;
                uint32_t handle;
                FILE *f;

                assert_int_equal(policy_builder_new(&b), 0);
                assert_int_equal(policy_builder_add_name(b, "org.example.Svc", &handle), 0);
                assert_int_equal(policy_builder_set_declarer(b, handle, "svc"), 0);
                assert_int_equal(policy_builder_add_rule(b, handle, POLICY_KIND_METHOD, "/",
                                                         "org.example.Svc", "Do", "svc::Use"), 0);
                assert_int_equal(policy_builder_add_global_token(b, "Cellular"), 0);
                assert_int_equal(policy_builder_add_provided_token(b, "svc::Use"), 0);
                assert_int_equal(policy_builder_add_checkany_label(b, "keys"), 0);
                assert_int_equal(policy_builder_build(b, &data, &size), 0);
                to_version(data, &size, version);
                assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
                /* Before version 4 nobody may ask about any token. */
                assert_false(policy_db_is_checkany_label(db, "keys"));
                assert_int_equal(policy_db_knows_declarers(db), version == POLICY_DB_FORMAT_VERSION_3);
                assert_int_equal(policy_db_name_declarer(db, "org.example.Svc", &package), 0);
                if (version == POLICY_DB_FORMAT_VERSION_3)
                        assert_string_equal(package, "svc");
                else
                        assert_null(package);
                assert_int_equal(policy_db_package_serves_token(db, "svc", "svc::Use"),
                                 version == POLICY_DB_FORMAT_VERSION_3);
                assert_int_equal(policy_db_knows_provided_tokens(db), version != POLICY_DB_FORMAT_VERSION_1);
                assert_int_equal(policy_db_is_provided_token(db, "svc::Use"),
                                 version != POLICY_DB_FORMAT_VERSION_1);
                assert_true(policy_db_is_global_token(db, "Cellular"));
                assert_int_equal(policy_db_lookup(db, "org.example.Svc", POLICY_KIND_METHOD, "/",
                                                  "org.example.Svc", "Do", &req), 0);
                assert_tokens(&req, TOKENS("svc::Use"));
                f = open_memstream(&text, &text_size);
                assert_non_null(f);
                assert_int_equal(policy_db_dump(db, f), 0);
                assert_int_equal(fclose(f), 0);
                assert_int_equal(strstr(text, "package") != NULL, version == POLICY_DB_FORMAT_VERSION_3);
                assert_int_equal(strstr(text, "declared-by") != NULL, version == POLICY_DB_FORMAT_VERSION_3);
                assert_null(strstr(text, "checkany"));
                assert_int_equal(strstr(text, "provided-token \"svc::Use\"") != NULL,
                                 version != POLICY_DB_FORMAT_VERSION_1);
                /* Shorter than its header: truncated; a longer header than its version's: layout. */
                policy_db_free(TAKE_PTR(db));
                assert_int_equal(policy_db_open_buffer(data, POLICY_DB_HEADER_SIZE_V1 - 1, &db),
                                 POLICY_DB_E_TRUNCATED);
                if (version >= POLICY_DB_FORMAT_VERSION_2)
                        assert_int_equal(policy_db_open_buffer(data, POLICY_DB_HEADER_SIZE_V2 - 1, &db),
                                         POLICY_DB_E_TRUNCATED);
                if (version == POLICY_DB_FORMAT_VERSION_3)
                        assert_int_equal(policy_db_open_buffer(data, POLICY_DB_HEADER_SIZE_V3 - 1, &db),
                                         POLICY_DB_E_TRUNCATED);
        }
}

static void test_open_file(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        char path[] = "/tmp/test-db-read-XXXXXX";
        size_t size;
        int fd;

        fixture_build_basic(&data, &size);
        fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, size), (ssize_t) size);
        close(fd);
        assert_int_equal(policy_db_open(path, &db), 0);
        assert_int_equal(policy_db_size(db), size);
        assert_memory_equal(policy_db_data(db), data, size);
        assert_int_equal(policy_db_checksum(db), policy_db_compute_checksum(data, size));
        unlink(path);
        assert_int_equal(policy_db_open(path, &db), -ENOENT);
        assert_int_equal(policy_db_open("/tmp", &db), -EBADFD);
        /* A FIFO is refused at once, not waited on. */
        assert_int_equal(mkfifo(path, 0600), 0);
        assert_int_equal(policy_db_open(path, &db), -EBADFD);
        unlink(path);
}

static void test_empty_policy(void **state) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        PolicyRequirement req;
        size_t size;

        assert_int_equal(policy_builder_new(&b), 0);
        assert_int_equal(policy_builder_build(b, &data, &size), 0);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        assert_false(policy_db_declares_name(db, "org.ofono"));
        assert_int_equal(policy_db_lookup(db, "org.ofono", POLICY_KIND_METHOD, "/", NULL, "x",
                                          &req), POLICY_DB_UNDECLARED);
        assert_false(policy_db_is_global_token(db, "Cellular"));
}

/* Every proper prefix of a valid file is refused, as truncated. */
static void test_every_truncation(void **state) {
        _cleanup_free_ uint8_t *data = NULL;
        PolicyDb *db = NULL;
        size_t size;

        fixture_build_basic(&data, &size);
        for (size_t len = 0; len < size; len++) {
                int r = policy_db_open_buffer(data, len, &db);

                if (r != POLICY_DB_E_TRUNCATED)
                        fail_msg("prefix of %zu/%zu bytes: %d", len, size, r);
                assert_null(db);
        }
}

static void test_trailing_bytes(void **state) {
        _cleanup_free_ uint8_t *data = NULL;
        PolicyDb *db = NULL;
        size_t size;

        fixture_build_basic(&data, &size);
        data = realloc(data, size + 4);
        assert_non_null(data);
        memset(data + size, 0, 4);
        assert_int_equal(policy_db_open_buffer(data, size + 4, &db), POLICY_DB_E_SIZE);
        assert_int_equal(policy_db_open_buffer(data, POLICY_DB_SIZE_MAX + 1u, &db),
                         POLICY_DB_E_SIZE);
        assert_null(db);
}

/* Every single-bit flip anywhere is refused when the checksum stays as written. */
static void test_every_bit_flip_checksummed(void **state) {
        _cleanup_free_ uint8_t *data = NULL;
        PolicyDb *db = NULL;
        size_t size;

        fixture_build_basic(&data, &size);
        for (size_t i = 0; i < size; i++)
                for (unsigned bit = 0; bit < 8; bit++) {
                        int r;

                        data[i] ^= (uint8_t) (1u << bit);
                        r = policy_db_open_buffer(data, size, &db);
                        data[i] ^= (uint8_t) (1u << bit);
                        if (r <= 0)
                                fail_msg("flip of bit %u of byte %zu accepted (%d)", bit, i, r);
                }
        assert_null(db);
}

static void reseal(uint8_t *data, size_t size) {
        uint32_t crc = htole32(policy_db_compute_checksum(data, size));

        memcpy(data + POLICY_DB_CHECKSUM_OFFSET, &crc, sizeof(crc));
}

/* A flip the validation accepted must still give a fully usable policy. */
static void exercise(PolicyDb *db) {
        PolicyRequirement req;
        FILE *f = fopen("/dev/null", "w");

        assert_non_null(f);
        assert_int_equal(policy_db_dump(db, f), 0);
        fclose(f);
        (void) policy_db_lookup(db, "org.ofono", POLICY_KIND_METHOD, "/ril_0", NULL, "Dial",
                                &req);
        (void) policy_db_is_global_token(db, "Cellular");
}

/*
 * Structural validation alone: each flip is re-sealed with a correct
 * checksum. Outside the string table (where a flipped letter can make
 * another valid name) a flip must be refused; a few refs flipping onto
 * another valid string may survive, and those must load consistently.
 */
static void test_every_bit_flip_resealed(void **state) {
        _cleanup_free_ uint8_t *data = NULL;
        unsigned refused = 0, accepted_structural = 0, total_structural = 0;
        size_t size, strings_end;
        DbHeader h;

        fixture_build_basic(&data, &size);
        memcpy(&h, data, sizeof(h));
        strings_end = le32toh(h.strings.offset) + le32toh(h.strings.count);
        for (size_t i = 0; i < size; i++)
                for (unsigned bit = 0; bit < 8; bit++) {
                        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
                        bool structural = i < sizeof(DbHeader) || i >= strings_end;
                        int r;

                        if (i >= POLICY_DB_CHECKSUM_OFFSET && i < POLICY_DB_CHECKSUM_OFFSET + 4)
                                continue;
                        data[i] ^= (uint8_t) (1u << bit);
                        reseal(data, size);
                        r = policy_db_open_buffer(data, size, &db);
                        data[i] ^= (uint8_t) (1u << bit);
                        assert_true(r >= 0);
                        total_structural += structural;
                        if (r > 0) {
                                assert_non_null(policy_db_error_to_string(r));
                                refused++;
                                continue;
                        }
                        exercise(db);
                        accepted_structural += structural;
                }
        reseal(data, size);
        print_message("flips refused %u, structural flips accepted %u of %u\n", refused,
                      accepted_structural, total_structural);
        /*
         * At most 1 in 200 structural flips may land on another valid string
         * (measured: 9 of 10288, all label references moved onto another
         * label, which only the checksum can tell).
         */
        assert_true(accepted_structural * 200 <= total_structural);
}

typedef struct Corruption {
        const char *what;
        void (*apply)(uint8_t *data, DbHeader *h);
        int expected;
} Corruption;

static uint32_t *u32_at(uint8_t *data, uint32_t offset) {
        return (uint32_t *) (data + offset);
}

static DbName *name_at(uint8_t *data, const DbHeader *h, uint32_t i) {
        return (DbName *) (data + le32toh(h->names.offset)) + i;
}

static DbRule *rule_at(uint8_t *data, const DbHeader *h, uint32_t i) {
        return (DbRule *) (data + le32toh(h->rules.offset)) + i;
}

static void bad_magic(uint8_t *data, DbHeader *h) { data[0] = 'X'; }
static void bad_version(uint8_t *data, DbHeader *h) { h->version = htole32(5); }
/* A version 4 file relabelled version 1, 2 or 3: its header is too long for that. */
static void version_1_header(uint8_t *data, DbHeader *h) { h->version = htole32(1); }
static void version_2_header(uint8_t *data, DbHeader *h) { h->version = htole32(2); }
static void version_3_header(uint8_t *data, DbHeader *h) { h->version = htole32(3); }
static void bad_header_size(uint8_t *data, DbHeader *h) { h->header_size = htole32(100); }
static void bad_flags(uint8_t *data, DbHeader *h) { h->flags = htole32(1); }
static void bad_reserved(uint8_t *data, DbHeader *h) { h->reserved = htole32(1); }
static void small_file_size(uint8_t *data, DbHeader *h) {
        h->file_size = htole32(le32toh(h->file_size) - 4);
}
static void gap_before_names(uint8_t *data, DbHeader *h) {
        h->names.offset = htole32(le32toh(h->names.offset) + 4);
}
static void overlapping_rules(uint8_t *data, DbHeader *h) {
        h->name_index.count = htole32(le32toh(h->name_index.count) + 1);
}
static void huge_refs(uint8_t *data, DbHeader *h) { h->refs.count = htole32(0x40000000u); }
static void nonzero_padding(uint8_t *data, DbHeader *h) {
        uint32_t end = le32toh(h->strings.offset) + le32toh(h->strings.count);

        if (end % 4 == 0)
                fail_msg("the fixture's string table needs padding for this test");
        data[end] = 1;
}
static void unterminated_strings(uint8_t *data, DbHeader *h) {
        data[le32toh(h->strings.offset) + le32toh(h->strings.count) - 1] = 'x';
}
static void invalid_utf8(uint8_t *data, DbHeader *h) {
        data[le32toh(h->strings.offset) + 1] = 0xff;
}
static void empty_string(uint8_t *data, DbHeader *h) {
        data[le32toh(h->strings.offset)] = '\0';
}
static void unsorted_strings(uint8_t *data, DbHeader *h) {
        data[le32toh(h->strings.offset)] = '~';
}
static void ref_mid_string(uint8_t *data, DbHeader *h) {
        DbName *n = name_at(data, h, 0);

        n->name = htole32(le32toh(n->name) + 1);
}
static void ref_past_strings(uint8_t *data, DbHeader *h) {
        name_at(data, h, 0)->name = h->strings.count;
}
static void name_is_a_path(uint8_t *data, DbHeader *h) {
        name_at(data, h, 0)->name = rule_at(data, h, 0)->path;
}
static void rule_path_is_a_name(uint8_t *data, DbHeader *h) {
        rule_at(data, h, 0)->path = name_at(data, h, 0)->name;
}
static void bad_kind(uint8_t *data, DbHeader *h) { rule_at(data, h, 0)->kind = htole32(7); }
static void owner_is_a_path(uint8_t *data, DbHeader *h) {
        uint32_t first = le32toh(name_at(data, h, 0)->owners.first);

        *u32_at(data, le32toh(h->refs.offset) + 4 * first) = rule_at(data, h, 0)->path;
}
static void names_swapped(uint8_t *data, DbHeader *h) {
        uint32_t tmp = name_at(data, h, 0)->name;

        name_at(data, h, 0)->name = name_at(data, h, 1)->name;
        name_at(data, h, 1)->name = tmp;
}
static void rules_count_off(uint8_t *data, DbHeader *h) {
        DbName *n = name_at(data, h, 0);

        n->rules_count = htole32(le32toh(n->rules_count) + 1);
}
static void rule_of_other_name(uint8_t *data, DbHeader *h) {
        rule_at(data, h, 0)->name = htole32(le32toh(rule_at(data, h, 0)->name) + 1);
}
static void tokens_overlap(uint8_t *data, DbHeader *h) {
        DbRule *r = rule_at(data, h, 0);

        r->tokens.first = htole32(le32toh(r->tokens.first) - 1);
}
static void bucket_out_of_range(uint8_t *data, DbHeader *h) {
        uint32_t *b = u32_at(data, le32toh(h->rule_index.offset));

        for (uint32_t i = 0; i < le32toh(h->rule_index.count); i++)
                if (b[i] != htole32(POLICY_DB_EMPTY)) {
                        b[i] = htole32(le32toh(h->rules.count));
                        return;
                }
}
static void bucket_duplicate(uint8_t *data, DbHeader *h) {
        uint32_t *b = u32_at(data, le32toh(h->name_index.offset));
        uint32_t used = POLICY_DB_EMPTY;

        for (uint32_t i = 0; i < le32toh(h->name_index.count); i++)
                if (b[i] != htole32(POLICY_DB_EMPTY)) {
                        if (used == POLICY_DB_EMPTY)
                                used = b[i];
                        else {
                                b[i] = used;
                                return;
                        }
                }
}
static void bucket_dropped(uint8_t *data, DbHeader *h) {
        uint32_t *b = u32_at(data, le32toh(h->rule_index.offset));

        for (uint32_t i = 0; i < le32toh(h->rule_index.count); i++)
                if (b[i] != htole32(POLICY_DB_EMPTY)) {
                        b[i] = htole32(POLICY_DB_EMPTY);
                        return;
                }
}
static void index_rotated(uint8_t *data, DbHeader *h) {
        uint32_t *b = u32_at(data, le32toh(h->rule_index.offset));
        uint32_t n = le32toh(h->rule_index.count), last = b[n - 1];

        memmove(b + 1, b, (n - 1) * sizeof(uint32_t));
        b[0] = last;
}
static void refs_left_over(uint8_t *data, DbHeader *h) {
        h->monitor_labels.count = htole32(0);
}
static void unsorted_globals(uint8_t *data, DbHeader *h) {
        uint32_t *refs = u32_at(data, le32toh(h->refs.offset));
        uint32_t first = le32toh(h->global_tokens.first), tmp = refs[first];

        refs[first] = refs[first + 1];
        refs[first + 1] = tmp;
}

static void unsorted_provided(uint8_t *data, DbHeader *h) {
        uint32_t *refs = u32_at(data, le32toh(h->refs.offset));
        uint32_t first = le32toh(h->provided_tokens.first), tmp = refs[first];

        refs[first] = refs[first + 1];
        refs[first + 1] = tmp;
}
static void provided_past_refs(uint8_t *data, DbHeader *h) {
        h->provided_tokens.count = h->refs.count;
}
/* One more provided token: the first package's first token, so the packages' ranges start too late. */
static void provided_into_packages(uint8_t *data, DbHeader *h) {
        h->provided_tokens.count = htole32(le32toh(h->provided_tokens.count) + 1);
}

static DbPackage *package_at(uint8_t *data, const DbHeader *h, uint32_t i) {
        return (DbPackage *) (data + le32toh(h->packages.offset)) + i;
}
static void package_swallows_declarers(uint8_t *data, DbHeader *h) {
        /* The sections still tile the file; the declarers no longer match the names. */
        h->packages.count = htole32(le32toh(h->packages.count) + 1);
        h->declarers.offset = htole32(le32toh(h->declarers.offset) + sizeof(DbPackage));
        h->declarers.count = htole32(le32toh(h->declarers.count) - 3);
}
static void package_is_a_token(uint8_t *data, DbHeader *h) {
        /* "mce::DeviceModeControl": a label, but no package's. */
        package_at(data, h, 0)->name = *u32_at(data, le32toh(h->refs.offset) +
                                                          4 * le32toh(h->provided_tokens.first));
}
static void packages_swapped(uint8_t *data, DbHeader *h) {
        uint32_t tmp = package_at(data, h, 0)->name;

        package_at(data, h, 0)->name = package_at(data, h, 1)->name;
        package_at(data, h, 1)->name = tmp;
}
static void unsorted_package_tokens(uint8_t *data, DbHeader *h) {
        uint32_t *refs = u32_at(data, le32toh(h->refs.offset));
        uint32_t first = le32toh(package_at(data, h, 0)->tokens.first), tmp = refs[first];

        if (le32toh(package_at(data, h, 0)->tokens.count) < 2)
                fail_msg("the fixture's first package needs two tokens for this test");
        refs[first] = refs[first + 1];
        refs[first + 1] = tmp;
}
static void package_tokens_past_refs(uint8_t *data, DbHeader *h) {
        DbPackage *last = package_at(data, h, le32toh(h->packages.count) - 1);

        /* Past every reference, the checkany labels' too. */
        last->tokens.count = h->refs.count;
}
static void declarer_out_of_range(uint8_t *data, DbHeader *h) {
        *u32_at(data, le32toh(h->declarers.offset)) = h->packages.count;
}
static void unsorted_checkany(uint8_t *data, DbHeader *h) {
        uint32_t *refs = u32_at(data, le32toh(h->refs.offset));
        uint32_t first = le32toh(h->checkany_labels.first), tmp = refs[first];

        refs[first] = refs[first + 1];
        refs[first + 1] = tmp;
}
static void checkany_past_refs(uint8_t *data, DbHeader *h) {
        h->checkany_labels.count = htole32(le32toh(h->checkany_labels.count) + 1);
}
/* The last package's last token taken for a checkany label: the ranges no longer tile the refs. */
static void checkany_into_packages(uint8_t *data, DbHeader *h) {
        h->checkany_labels.first = htole32(le32toh(h->checkany_labels.first) - 1);
}
static void checkany_is_a_path(uint8_t *data, DbHeader *h) {
        uint32_t *refs = u32_at(data, le32toh(h->refs.offset));

        refs[le32toh(h->checkany_labels.first)] = rule_at(data, h, 0)->path;
}

static const Corruption corruptions[] = {
        { "bad magic", bad_magic, POLICY_DB_E_MAGIC },
        { "bad version", bad_version, POLICY_DB_E_VERSION },
        { "version 1 with a version 4 header", version_1_header, POLICY_DB_E_LAYOUT },
        { "version 2 with a version 4 header", version_2_header, POLICY_DB_E_LAYOUT },
        { "version 3 with a version 4 header", version_3_header, POLICY_DB_E_LAYOUT },
        { "bad header size", bad_header_size, POLICY_DB_E_LAYOUT },
        { "flags set", bad_flags, POLICY_DB_E_LAYOUT },
        { "reserved set", bad_reserved, POLICY_DB_E_LAYOUT },
        { "file size too small", small_file_size, POLICY_DB_E_SIZE },
        { "gap before names", gap_before_names, POLICY_DB_E_LAYOUT },
        { "sections overlap", overlapping_rules, POLICY_DB_E_LAYOUT },
        { "refs beyond the file", huge_refs, POLICY_DB_E_LAYOUT },
        { "padding not zero", nonzero_padding, POLICY_DB_E_LAYOUT },
        { "strings unterminated", unterminated_strings, POLICY_DB_E_STRING },
        { "invalid UTF-8", invalid_utf8, POLICY_DB_E_STRING },
        { "empty string", empty_string, POLICY_DB_E_STRING },
        { "strings unsorted", unsorted_strings, POLICY_DB_E_ORDER },
        { "ref into a string", ref_mid_string, POLICY_DB_E_STRING },
        { "ref past the strings", ref_past_strings, POLICY_DB_E_STRING },
        { "bus name is a path", name_is_a_path, POLICY_DB_E_VALUE },
        { "path is a bus name", rule_path_is_a_name, POLICY_DB_E_VALUE },
        { "unknown kind", bad_kind, POLICY_DB_E_VALUE },
        { "owner label is a path", owner_is_a_path, POLICY_DB_E_VALUE },
        { "names unsorted", names_swapped, POLICY_DB_E_ORDER },
        { "rules count off", rules_count_off, POLICY_DB_E_RANGE },
        { "rule of another name", rule_of_other_name, POLICY_DB_E_RANGE },
        { "token range overlaps", tokens_overlap, POLICY_DB_E_RANGE },
        { "bucket out of range", bucket_out_of_range, POLICY_DB_E_RANGE },
        { "bucket duplicated", bucket_duplicate, POLICY_DB_E_INDEX },
        { "bucket dropped", bucket_dropped, POLICY_DB_E_INDEX },
        { "index rotated", index_rotated, POLICY_DB_E_INDEX },
        { "refs left over", refs_left_over, POLICY_DB_E_RANGE },
        { "globals unsorted", unsorted_globals, POLICY_DB_E_ORDER },
        { "provided tokens unsorted", unsorted_provided, POLICY_DB_E_ORDER },
        { "provided tokens past the refs", provided_past_refs, POLICY_DB_E_RANGE },
        { "provided tokens into the packages'", provided_into_packages, POLICY_DB_E_ORDER },
        { "declarers fewer than names", package_swallows_declarers, POLICY_DB_E_LAYOUT },
        { "package label is a token", package_is_a_token, POLICY_DB_E_VALUE },
        { "packages unsorted", packages_swapped, POLICY_DB_E_ORDER },
        { "package tokens unsorted", unsorted_package_tokens, POLICY_DB_E_ORDER },
        { "package tokens past the refs", package_tokens_past_refs, POLICY_DB_E_RANGE },
        { "declarer out of range", declarer_out_of_range, POLICY_DB_E_RANGE },
        { "checkany labels unsorted", unsorted_checkany, POLICY_DB_E_ORDER },
        { "checkany labels past the refs", checkany_past_refs, POLICY_DB_E_RANGE },
        { "checkany labels into the packages'", checkany_into_packages, POLICY_DB_E_RANGE },
        { "checkany label is a path", checkany_is_a_path, POLICY_DB_E_VALUE },
};

static void test_targeted_corruptions(void **state) {
        _cleanup_free_ uint8_t *original = NULL;
        size_t size;

        fixture_build_basic(&original, &size);
        for (size_t i = 0; i < ELEMENTSOF(corruptions); i++) {
                _cleanup_free_ uint8_t *data = malloc(size);
                PolicyDb *db = NULL;
                DbHeader h;
                int r;

                assert_non_null(data);
                memcpy(data, original, size);
                memcpy(&h, data, sizeof(h));
                corruptions[i].apply(data, &h);
                memcpy(data + sizeof(h.magic), (uint8_t *) &h + sizeof(h.magic),
                       sizeof(h) - sizeof(h.magic));
                reseal(data, size);
                r = policy_db_open_buffer(data, size, &db);
                if (r != corruptions[i].expected)
                        fail_msg("%s: got %d (%s), expected %d (%s)", corruptions[i].what, r,
                                 policy_db_error_to_string(r), corruptions[i].expected,
                                 policy_db_error_to_string(corruptions[i].expected));
                assert_null(db);
        }
}

static void test_error_strings(void **state) {
        for (int code = POLICY_DB_E_TRUNCATED; code <= POLICY_DB_E_INDEX; code++)
                assert_non_null(policy_db_error_to_string(code));
        assert_null(policy_db_error_to_string(0));
        assert_null(policy_db_error_to_string(-EINVAL));
        assert_null(policy_db_error_to_string(POLICY_DB_E_INDEX + 1));
}

static void test_bad_arguments(void **state) {
        PolicyDb *db = NULL;

        assert_int_equal(policy_db_open_buffer(NULL, 4, &db), -EINVAL);
        assert_int_equal(policy_db_open_buffer("x", 1, NULL), -EINVAL);
        assert_int_equal(policy_db_open(NULL, &db), -EINVAL);
        assert_null(policy_db_free(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_crc32c_vector),
                cmocka_unit_test(test_lookup_round_trip),
                cmocka_unit_test(test_lookup_unions),
                cmocka_unit_test(test_lookup_misses),
                cmocka_unit_test(test_names_globals_monitors),
                cmocka_unit_test(test_declarers_and_packages),
                cmocka_unit_test(test_older_versions),
                cmocka_unit_test(test_open_file),
                cmocka_unit_test(test_empty_policy),
                cmocka_unit_test(test_every_truncation),
                cmocka_unit_test(test_trailing_bytes),
                cmocka_unit_test(test_every_bit_flip_checksummed),
                cmocka_unit_test(test_every_bit_flip_resealed),
                cmocka_unit_test(test_targeted_corruptions),
                cmocka_unit_test(test_error_strings),
                cmocka_unit_test(test_bad_arguments),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
