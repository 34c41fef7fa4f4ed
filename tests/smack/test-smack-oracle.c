/*
 * Unit tests of smack-oracle against a fake smackfs (fake-smackfs.h):
 * the question as written to access2, the answers, the cache, flushing
 * by explicit call and by inotify on every rule file, fail-closed errors,
 * and the "no Smack" mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake-smackfs.h"
#include "smack-oracle.h"

ssize_t __real_write(int fd, const void *buf, size_t n);

static const SmackLabel *label(const char *text) {
        const SmackLabel *l = NULL;

        assert_int_equal(smack_label_intern(text, &l), 0);
        return l;
}

typedef struct Fixture {
        FakeSmackfs *fake;
        SmackOracle *oracle;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));

        f->fake = fake_smackfs_new(true);
        assert_int_equal(smack_oracle_new(f->fake->dir, &f->oracle), 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        smack_oracle_free(f->oracle);
        fake_smackfs_free(f->fake);
        free(f);
        return 0;
}

static SmackOracleStats stats(SmackOracle *oracle) {
        SmackOracleStats s;

        smack_oracle_get_stats(oracle, &s);
        return s;
}

static void test_no_smack(void **state) {
        _cleanup_(smack_oracle_freep) SmackOracle *oracle = NULL;
        FakeSmackfs *fake = fake_smackfs_new(true);
        char path[512];

        assert_int_equal(smack_oracle_new("/nonexistent/smackfs", &oracle), 0);
        assert_false(smack_oracle_has_smack(oracle));
        assert_int_equal(smack_oracle_get_fd(oracle), -1);
        assert_int_equal(smack_oracle_refresh(oracle), 0);
        assert_int_equal(smack_has_access(oracle, label("Apple"), label("Orange"), "w"), -EOPNOTSUPP);
        /* Every token requirement denies, and is counted. */
        assert_int_equal(smack_has_token(oracle, label("Apple"), "Cellular"), 0);
        assert_int_equal(smack_has_token(oracle, NULL, "Cellular"), 0);
        assert_int_equal(smack_oracle_policy_has_token("Apple", "Cellular", oracle), 0);
        assert_int_equal(stats(oracle).no_smack_denials, 3);
        oracle = smack_oracle_free(oracle);

        /* A directory without access2 is no Smack either. */
        snprintf(path, sizeof(path), "%s/access2", fake->dir);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(smack_oracle_new(fake->dir, &oracle), 0);
        assert_false(smack_oracle_has_smack(oracle));
        fake_smackfs_free(fake);
        assert_null(smack_oracle_free(NULL));
}

static void test_question_format(void **state) {
        Fixture *f = *state;

        assert_true(smack_oracle_has_smack(f->oracle));
        assert_true(smack_oracle_get_fd(f->oracle) >= 0);
        assert_int_equal(stats(f->oracle).watches, 7);
        fake_smackfs_grant(f->fake, "Apple", "Orange", "rw");
        assert_int_equal(smack_has_access(f->oracle, label("Apple"), label("Orange"), "w"), 1);
        /* The long format: no padding, single spaces. */
        assert_string_equal(f->fake->last_request, "Apple Orange w");
        assert_int_equal(smack_has_access(f->oracle, label("Apple"), label("Orange"), "wr"), 1);
        assert_string_equal(f->fake->last_request, "Apple Orange rw");
        assert_int_equal(smack_has_access(f->oracle, label("Apple"), label("Orange"), "rwx"), 0);
        assert_string_equal(f->fake->last_request, "Apple Orange rwx");
        assert_int_equal(smack_has_access(f->oracle, label("Apple"), label("Pear"), "r"), 0);
        assert_int_equal(smack_has_access(f->oracle, label("Orange"), label("Apple"), "w"), 0);
        assert_int_equal(f->fake->questions, 5);
}

static void test_cache(void **state) {
        Fixture *f = *state;
        const SmackLabel *apple = label("Apple"), *orange = label("Orange");

        fake_smackfs_grant(f->fake, "Apple", "Orange", "w");
        assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), 1);
        assert_int_equal(smack_has_access(f->oracle, apple, orange, "r"), 0);
        assert_int_equal(f->fake->questions, 2);
        for (int i = 0; i < 100; i++) {
                assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), 1);
                assert_int_equal(smack_has_access(f->oracle, apple, orange, "r"), 0);
        }
        assert_int_equal(f->fake->questions, 2);
        assert_int_equal(stats(f->oracle).cache_hits, 200);
        assert_int_equal(stats(f->oracle).kernel_queries, 2);

        /* A rule change the oracle is not told of is not seen... */
        fake_smackfs_revoke(f->fake, "Apple", "Orange");
        assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), 1);
        /* ...until a flush (policy reload). */
        smack_oracle_flush(f->oracle);
        assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), 0);
        assert_int_equal(f->fake->questions, 3);
        assert_int_equal(stats(f->oracle).flushes, 1);
}

/* Subject == object is allowed without asking, except for "*". */
static void test_same_label(void **state) {
        Fixture *f = *state;

        assert_int_equal(smack_has_access(f->oracle, label("Apple"), label("Apple"), "rwxatl"), 1);
        assert_int_equal(f->fake->questions, 0);
        assert_int_equal(stats(f->oracle).same_label, 1);
        assert_int_equal(smack_has_access(f->oracle, label("*"), label("*"), "r"), 0);
        assert_int_equal(f->fake->questions, 1);
        assert_string_equal(f->fake->last_request, "* * r");
}

/* A write to any rule file flushes at the next refresh; questions do not. */
static void test_inotify(void **state) {
        static const char *const rule_files[] = {
                "load", "load2", "load-self", "load-self2", "change-rule", "revoke-subject", "unconfined",
        };
        Fixture *f = *state;
        const SmackLabel *apple = label("Apple"), *orange = label("Orange");
        unsigned questions;

        assert_int_equal(smack_oracle_refresh(f->oracle), 0);
        for (size_t i = 0; i < sizeof(rule_files) / sizeof(rule_files[0]); i++) {
                fake_smackfs_grant(f->fake, "Apple", "Orange", "w");
                smack_oracle_flush(f->oracle);
                assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), 1);
                fake_smackfs_revoke(f->fake, "Apple", "Orange");
                assert_int_equal(smack_oracle_refresh(f->oracle), 0);
                assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), 1);

                fake_smackfs_write_file(f->fake, rule_files[i], "Apple Orange -");
                assert_int_equal(smack_oracle_refresh(f->oracle), 1);
                assert_int_equal(smack_oracle_refresh(f->oracle), 0);
                assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), 0);
        }

        /* Opening a rule file for writing and closing it (IN_CLOSE_WRITE) flushes too. */
        fake_smackfs_write_file(f->fake, "load2", "");
        assert_int_equal(smack_oracle_refresh(f->oracle), 1);

        /* Our own questions (and anybody's) on access2 flush nothing. */
        questions = f->fake->questions;
        assert_int_equal(smack_has_access(f->oracle, orange, apple, "r"), 0);
        assert_int_equal(f->fake->questions, questions + 1);
        assert_int_equal(smack_oracle_refresh(f->oracle), 0);
        {
                char path[512];
                int fd;

                snprintf(path, sizeof(path), "%s/access2", f->fake->dir);
                fd = open(path, O_WRONLY | O_CLOEXEC);
                assert_true(fd >= 0);
                assert_int_equal(__real_write(fd, "x", 1), 1);
                close(fd);
        }
        assert_int_equal(smack_oracle_refresh(f->oracle), 0);
}

/* A lost watch (the file went away) switches the cache off for good. */
static void test_lost_watch(void **state) {
        Fixture *f = *state;
        const SmackLabel *apple = label("Apple"), *orange = label("Orange");
        char path[512];

        fake_smackfs_grant(f->fake, "Apple", "Orange", "w");
        assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), 1);
        assert_true(stats(f->oracle).cache_enabled);
        snprintf(path, sizeof(path), "%s/load-self", f->fake->dir);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(smack_oracle_refresh(f->oracle), 1);
        assert_false(stats(f->oracle).cache_enabled);
        for (int i = 0; i < 3; i++)
                assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), 1);
        assert_int_equal(f->fake->questions, 4);
}

/* Only some rule files exist: those are watched; none at all: no cache. */
static void test_partial_rule_files(void **state) {
        _cleanup_(smack_oracle_freep) SmackOracle *oracle = NULL;
        FakeSmackfs *fake = fake_smackfs_new(false);

        assert_int_equal(smack_oracle_new(fake->dir, &oracle), 0);
        assert_true(smack_oracle_has_smack(oracle));
        assert_int_equal(stats(oracle).watches, 0);
        assert_false(stats(oracle).cache_enabled);
        fake_smackfs_grant(fake, "Apple", "Orange", "w");
        assert_int_equal(smack_has_access(oracle, label("Apple"), label("Orange"), "w"), 1);
        assert_int_equal(smack_has_access(oracle, label("Apple"), label("Orange"), "w"), 1);
        assert_int_equal(fake->questions, 2);
        oracle = smack_oracle_free(oracle);

        {
                char path[512];
                FILE *file;

                snprintf(path, sizeof(path), "%s/load2", fake->dir);
                file = fopen(path, "w");
                assert_non_null(file);
                fclose(file);
        }
        assert_int_equal(smack_oracle_new(fake->dir, &oracle), 0);
        assert_int_equal(stats(oracle).watches, 1);
        assert_true(stats(oracle).cache_enabled);
        assert_int_equal(smack_has_access(oracle, label("Apple"), label("Orange"), "w"), 1);
        assert_int_equal(smack_has_access(oracle, label("Apple"), label("Orange"), "w"), 1);
        assert_int_equal(fake->questions, 3);
        oracle = smack_oracle_free(oracle);
        {
                char path[512];

                snprintf(path, sizeof(path), "%s/load2", fake->dir);
                unlink(path);
        }
        fake_smackfs_free(fake);
}

/* Every way of failing to read the kernel's answer denies, is counted and is not cached. */
static void test_answers_and_errors(void **state) {
        static const struct {
                FakeAnswer answer;
                int expected;
        } cases[] = {
                { FAKE_ANSWER_KERNEL, 1 },
                { FAKE_ANSWER_NEWLINE, 1 },
                { FAKE_ANSWER_BARE, 1 },
                { FAKE_ANSWER_WRITE_ERROR, -EIO },
                { FAKE_ANSWER_SHORT_WRITE, -EIO },
                { FAKE_ANSWER_READ_ERROR, -EIO },
                { FAKE_ANSWER_EMPTY, -EIO },
                { FAKE_ANSWER_GARBAGE, -EIO },
                { FAKE_ANSWER_LONG, -EIO },
        };
        Fixture *f = *state;
        const SmackLabel *apple = label("Apple"), *orange = label("Orange");
        uint64_t errors = 0;

        fake_smackfs_grant(f->fake, "Apple", "Orange", "w");
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                f->fake->answer = cases[i].answer;
                smack_oracle_flush(f->oracle);
                if (smack_has_access(f->oracle, apple, orange, "w") != cases[i].expected)
                        fail_msg("answer mode %zu: expected %d", i, cases[i].expected);
                if (cases[i].expected < 0) {
                        errors++;
                        /* Not cached: the next question asks again and fails again. */
                        assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), cases[i].expected);
                        errors++;
                }
                assert_int_equal(stats(f->oracle).kernel_errors, errors);
                /* A good answer afterwards works. */
                f->fake->answer = FAKE_ANSWER_KERNEL;
                assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), 1);
        }

        /* access2 gone after start: -ENOENT, a denial. */
        {
                char path[512];

                snprintf(path, sizeof(path), "%s/access2", f->fake->dir);
                assert_int_equal(unlink(path), 0);
                smack_oracle_flush(f->oracle);
                assert_int_equal(smack_has_access(f->oracle, apple, orange, "w"), -ENOENT);
        }
}

static void test_bad_arguments(void **state) {
        Fixture *f = *state;
        const SmackLabel *apple = label("Apple");

        assert_int_equal(smack_has_access(f->oracle, apple, apple, ""), -EINVAL);
        assert_int_equal(smack_has_access(f->oracle, apple, apple, "q"), -EINVAL);
        assert_int_equal(smack_has_access(f->oracle, apple, apple, "W"), -EINVAL);
        assert_int_equal(smack_has_access(f->oracle, apple, apple, NULL), -EINVAL);
        assert_int_equal(smack_has_access(f->oracle, NULL, apple, "w"), -EINVAL);
        assert_int_equal(smack_has_access(f->oracle, apple, NULL, "w"), -EINVAL);
        assert_int_equal(smack_has_access(NULL, apple, apple, "w"), -EINVAL);
        assert_int_equal(smack_has_token(f->oracle, apple, "Bad Token"), -EINVAL);
        assert_int_equal(smack_has_token(f->oracle, NULL, "Cellular"), -EINVAL);
        assert_int_equal(smack_has_token(f->oracle, apple, NULL), -EINVAL);
        assert_int_equal(smack_oracle_policy_has_token("-bad", "Cellular", f->oracle), -EINVAL);
        assert_int_equal(smack_oracle_refresh(NULL), -EINVAL);
        assert_int_equal(f->fake->questions, 0);
}

/* A token is held when the kernel grants "label token w". */
static void test_tokens(void **state) {
        Fixture *f = *state;

        fake_smackfs_grant(f->fake, "maps", "Location", "w");
        fake_smackfs_grant(f->fake, "maps", "Cellular", "r");
        assert_int_equal(smack_has_token(f->oracle, label("maps"), "Location"), 1);
        assert_string_equal(f->fake->last_request, "maps Location w");
        assert_int_equal(smack_has_token(f->oracle, label("maps"), "Cellular"), 0);
        assert_int_equal(smack_has_token(f->oracle, label("game"), "Location"), 0);
        assert_int_equal(smack_oracle_policy_has_token("maps", "Location", f->oracle), 1);
        assert_int_equal(smack_oracle_policy_has_token("maps", "ofono::Modem", f->oracle), 0);
        assert_int_equal(f->fake->questions, 4);
}

/* More pairs than slots: collisions evict, answers stay right, the table never grows. */
static void test_eviction(void **state) {
        Fixture *f = *state;
        static const SmackLabel *subjects[100], *objects[100];
        char text[32];

        for (int i = 0; i < 100; i++) {
                snprintf(text, sizeof(text), "s%d", i);
                subjects[i] = label(text);
                snprintf(text, sizeof(text), "o%d", i);
                objects[i] = label(text);
        }
        fake_smackfs_grant(f->fake, "s7", "o7", "w");
        fake_smackfs_grant(f->fake, "s42", "o3", "w");
        for (int round = 0; round < 2; round++)
                for (int s = 0; s < 100; s++)
                        for (int o = 0; o < 100; o++) {
                                int expected = (s == 7 && o == 7) || (s == 42 && o == 3);

                                assert_int_equal(smack_has_access(f->oracle, subjects[s], objects[o], "w"),
                                                 expected);
                        }
        assert_int_equal(stats(f->oracle).queries, 20000);
        /* 10,000 pairs in 8,192 slots: much of the second round had to ask again. */
        assert_true(f->fake->questions > 11000);
        assert_true(stats(f->oracle).cache_hits + stats(f->oracle).kernel_queries == 20000);
}

/*
 * 200,000 random steps (questions, grants and revocations written to a
 * rule file, refreshes) over 10,000 label pairs and three accesses: more
 * keys than slots, so entries are evicted all the time. After each
 * refresh every answer must be the kernel's current one.
 */
static void test_random_against_kernel(void **state) {
        static const char *const accesses[] = { "r", "w", "rw" };
        static const unsigned access_bits[] = { 1, 2, 3 };
        enum { N = 100 };
        Fixture *f = *state;
        static const SmackLabel *subjects[N], *objects[N];
        static unsigned char model[N][N];       /* bit 0 r, bit 1 w */
        uint64_t seed = 0x2545f4914f6cdd1dull;
        char text[32];

        for (int i = 0; i < N; i++) {
                snprintf(text, sizeof(text), "rs%d", i);
                subjects[i] = label(text);
                snprintf(text, sizeof(text), "ro%d", i);
                objects[i] = label(text);
        }
        for (int step = 0; step < 200000; step++) {
                unsigned s, o, kind;

                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s = (unsigned) (seed % N);
                o = (unsigned) ((seed >> 16) % N);
                kind = (unsigned) ((seed >> 32) % 100);
                if (kind < 2) {
                        /* A rule change, as mssf-policy writes it; the bus refreshes before its next batch. */
                        unsigned bits = (unsigned) ((seed >> 40) % 4);
                        char rule[64];

                        snprintf(text, sizeof(text), "rs%u", s);
                        snprintf(rule, sizeof(rule), "ro%u", o);
                        if (bits == 0)
                                fake_smackfs_revoke(f->fake, text, rule);
                        else
                                fake_smackfs_grant(f->fake, text, rule, bits == 1 ? "r" : bits == 2 ? "w" : "rw");
                        model[s][o] = (unsigned char) bits;
                        fake_smackfs_write_file(f->fake, "load2", "x");
                        assert_int_equal(smack_oracle_refresh(f->oracle), 1);
                } else {
                        unsigned a = (unsigned) ((seed >> 40) % 3);
                        int expected = (model[s][o] & access_bits[a]) == access_bits[a];

                        if (smack_has_access(f->oracle, subjects[s], objects[o], accesses[a]) != expected)
                                fail_msg("step %d: rs%u ro%u %s: expected %d", step, s, o, accesses[a], expected);
                }
        }
        assert_int_equal(stats(f->oracle).kernel_errors, 0);
        assert_true(stats(f->oracle).cache_hits > 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_smack),
                cmocka_unit_test(test_partial_rule_files),
                cmocka_unit_test_setup_teardown(test_question_format, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
                cmocka_unit_test_setup_teardown(test_same_label, setup, teardown),
                cmocka_unit_test_setup_teardown(test_inotify, setup, teardown),
                cmocka_unit_test_setup_teardown(test_lost_watch, setup, teardown),
                cmocka_unit_test_setup_teardown(test_answers_and_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
                cmocka_unit_test_setup_teardown(test_tokens, setup, teardown),
                cmocka_unit_test_setup_teardown(test_eviction, setup, teardown),
                cmocka_unit_test_setup_teardown(test_random_against_kernel, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
