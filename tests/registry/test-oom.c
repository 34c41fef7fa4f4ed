/*
 * Allocation failure: every registry operation that allocates must fail
 * with -ENOMEM and leave everything as it was (no half-inserted name,
 * rule or reply slot, nothing leaked). malloc, calloc, strdup and strndup
 * are wrapped (-Wl,--wrap=...) to fail the n-th call after arming; each
 * test retries with n = 1, 2, ... until the operation succeeds, so every
 * allocation in it fails once.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "match.h"
#include "message.h"
#include "names.h"
#include "reply.h"
#include "strmap.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

static unsigned fail_countdown;         /* 0: disarmed; 1: the next allocation fails */

static bool alloc_fails(void) {
        if (fail_countdown == 0)
                return false;
        if (--fail_countdown > 0)
                return false;
        return true;
}

void *__wrap_malloc(size_t n) {
        return alloc_fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size) {
        return alloc_fails() ? NULL : __real_calloc(n, size);
}

char *__wrap_strdup(const char *s) {
        return alloc_fails() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n) {
        return alloc_fails() ? NULL : __real_strndup(s, n);
}

#define MAX_ATTEMPTS 64

static void test_names(void **state) {
        NameRegistry *registry = NULL;
        NamePeerState a, b;
        NameChange change;
        uint32_t reply = 0;
        unsigned k;
        int r = -ENOMEM;

        assert_int_equal(name_registry_new(&registry), 0);
        name_peer_state_init(&a, NULL, ":1.1");
        name_peer_state_init(&b, NULL, ":1.2");
        assert_int_equal(names_request(registry, &a, "org.example.Held", 0, 10, &change, &reply), 0);

        /* A new name: the Name, its string, the map slot, the ownership. */
        for (k = 1; k <= MAX_ATTEMPTS; k++) {
                fail_countdown = k;
                r = names_request(registry, &b, "org.example.New", 0, 10, &change, &reply);
                fail_countdown = 0;
                if (r != -ENOMEM)
                        break;
                assert_null(names_get_owner(registry, "org.example.New"));
                assert_int_equal(b.n_ownerships, 0);
                assert_int_equal(strmap_size(&registry->names), 1);
        }
        assert_int_equal(r, 0);
        assert_true(k > 2);
        assert_ptr_equal(names_get_owner(registry, "org.example.New"), &b);

        /* Queueing on a held name. */
        for (k = 1; k <= MAX_ATTEMPTS; k++) {
                fail_countdown = k;
                r = names_request(registry, &b, "org.example.Held", 0, 10, &change, &reply);
                fail_countdown = 0;
                if (r != -ENOMEM)
                        break;
                assert_int_equal(b.n_ownerships, 1);
        }
        assert_int_equal(r, 0);
        assert_int_equal(reply, NAMES_REPLY_IN_QUEUE);
        assert_true(k > 1);

        fail_countdown = 1;
        NameRegistry *other = NULL;
        assert_int_equal(name_registry_new(&other), -ENOMEM);
        fail_countdown = 0;

        while (names_release_next(registry, &a, &change) == 0)
                ;
        while (names_release_next(registry, &b, &change) == 0)
                ;
        name_registry_free(registry);
}

static int count_call(void *userdata, MatchOwner *owner, bool eavesdrop) {
        (*(unsigned *)userdata)++;
        return 0;
}

static unsigned recipients(MatchRegistry *registry, const MatchMessage *msg) {
        unsigned n = 0;
        assert_int_equal(match_registry_dispatch(registry, msg, count_call, &n), 0);
        return n;
}

static void add_until_success(MatchRegistry *registry, MatchOwner *owner, const char *text,
                              const MatchMessage *msg, unsigned min_failures) {
        size_t before = match_registry_n_rules(registry);
        size_t nodes_before = match_registry_n_index_nodes(registry);
        unsigned seen_before = recipients(registry, msg);
        unsigned k;
        int r = -ENOMEM;

        for (k = 1; k <= MAX_ATTEMPTS; k++) {
                fail_countdown = k;
                r = match_owner_add(owner, text, strlen(text), 100);
                fail_countdown = 0;
                if (r != -ENOMEM)
                        break;
                assert_int_equal(match_registry_n_rules(registry), before);
                assert_int_equal(match_registry_n_index_nodes(registry), nodes_before);
                assert_int_equal(recipients(registry, msg), seen_before);
        }
        assert_int_equal(r, 0);
        assert_true(k > min_failures);
        assert_int_equal(match_registry_n_rules(registry), before + 1);
}

static void test_match(void **state) {
        MatchRegistry *registry = NULL;
        MatchOwner a, b;
        MessageArg args[1] = { { "x", 's' } };
        MatchMessage msg = {
                .type = MESSAGE_SIGNAL, .sender = "org.example.Svc", .path = "/a/b",
                .interface = "org.example.I", .member = "M", .args = args, .n_args = 1,
        };

        assert_int_equal(match_registry_new(&registry), 0);
        match_owner_init(&a, registry, (struct Peer *)&a);
        match_owner_init(&b, registry, (struct Peer *)&b);

        /* Everything new: parse buffers, rule, sender set, bucket, leaf, map slots. */
        add_until_success(registry, &a, "sender='org.example.Svc',interface='org.example.I',"
                          "member='M',arg0='x'", &msg, 6);
        /* Existing set and bucket, new leaf. */
        add_until_success(registry, &b, "sender='org.example.Svc',interface='org.example.I',"
                          "member='M',path_namespace='/a'", &msg, 3);
        /* Existing set, new bucket, plain leaf. */
        add_until_success(registry, &b, "sender='org.example.Svc',member='M'", &msg, 3);
        /* Eavesdrop index, wildcard set. */
        add_until_success(registry, &b, "eavesdrop='true'", &msg, 2);
        /* A destination=':unique' list, then the index. */
        add_until_success(registry, &b, "eavesdrop='true',destination=':1.7',member='M'", &msg, 4);

        /* RemoveMatch only parses: failing that removes nothing. */
        fail_countdown = 1;
        assert_int_equal(match_owner_remove(&a, "member='M'", 10), -ENOMEM);
        fail_countdown = 0;
        assert_int_equal(match_registry_n_rules(registry), 5);

        /*
         * sender set, 2 buckets, 2 keyed leaves; in the eavesdrop index the
         * (*, *) and (*, M) buckets; the destination list.
         */
        assert_int_equal(match_registry_n_index_nodes(registry), 8);
        match_owner_deinit(&a);
        match_owner_deinit(&b);
        assert_int_equal(match_registry_n_index_nodes(registry), 0);
        match_registry_free(registry);
}

static void test_reply(void **state) {
        ReplyRegistry *registry = NULL;
        ReplyOwner a, b;
        unsigned failures = 0;

        assert_int_equal(reply_registry_new(&registry), 0);
        reply_owner_init(&a, registry, NULL);
        reply_owner_init(&b, registry, NULL);

        /* 40 slots: the table grows several times on the way. */
        for (uint32_t serial = 1; serial <= 40; serial++) {
                for (unsigned k = 1; k <= MAX_ATTEMPTS; k++) {
                        fail_countdown = k;
                        int r = reply_registry_expect(registry, &a, &b, serial, serial, 100);
                        fail_countdown = 0;
                        if (r == 0)
                                break;
                        assert_int_equal(r, -ENOMEM);
                        failures++;
                        assert_int_equal(reply_registry_size(registry), serial - 1);
                        assert_int_equal(a.n_waiting, serial - 1);
                        assert_int_equal(reply_registry_take(registry, &a, &b, serial), REPLY_E_NONE);
                }
        }
        assert_int_equal(reply_registry_size(registry), 40);
        assert_true(failures > 40);
        for (uint32_t serial = 1; serial <= 40; serial++)
                assert_int_equal(reply_registry_take(registry, &a, &b, serial), 0);

        reply_owner_deinit(&a);
        reply_owner_deinit(&b);
        reply_registry_free(registry);
}

static void test_strmap(void **state) {
        StrMap map = STRMAP_INIT;
        static char keys[100][8];
        int v = 0;

        for (int i = 0; i < 100; i++) {
                snprintf(keys[i], sizeof(keys[i]), "k%d", i);
                fail_countdown = 1;
                int r = strmap_put(&map, keys[i], &v);
                fail_countdown = 0;
                if (r == -ENOMEM) {
                        assert_null(strmap_get(&map, keys[i]));
                        assert_int_equal(strmap_size(&map), (size_t)i);
                        r = strmap_put(&map, keys[i], &v);
                }
                assert_int_equal(r, 0);
        }
        for (int i = 0; i < 100; i++)
                assert_non_null(strmap_get(&map, keys[i]));
        strmap_deinit(&map);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_match),
                cmocka_unit_test(test_reply),
                cmocka_unit_test(test_strmap),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
