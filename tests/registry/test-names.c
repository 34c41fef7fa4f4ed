/*
 * Unit tests for names.c against dbus-daemon's documented RequestName and
 * ReleaseName behaviour (D-Bus specification, "org.freedesktop.DBus.RequestName"
 * table, and bus/services.c for queue placement).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "names.h"

#define AR NAMES_FLAG_ALLOW_REPLACEMENT
#define RE NAMES_FLAG_REPLACE_EXISTING
#define DNQ NAMES_FLAG_DO_NOT_QUEUE

typedef struct Fixture {
        NameRegistry *registry;
        NamePeerState a, b, c;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        assert_non_null(f);
        assert_int_equal(name_registry_new(&f->registry), 0);
        name_peer_state_init(&f->a, (struct Peer *)&f->a, ":1.1");
        name_peer_state_init(&f->b, (struct Peer *)&f->b, ":1.2");
        name_peer_state_init(&f->c, (struct Peer *)&f->c, ":1.3");
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        f->registry = name_registry_free(f->registry);
        name_peer_state_deinit(&f->a);
        name_peer_state_deinit(&f->b);
        name_peer_state_deinit(&f->c);
        free(f);
        return 0;
}

static uint32_t request(Fixture *f, NamePeerState *p, const char *name, uint32_t flags,
                        NameChange *change) {
        uint32_t reply = 0;
        assert_int_equal(names_request(f->registry, p, name, flags, 512, change, &reply), 0);
        assert_string_equal(change->name, name);
        return reply;
}

static uint32_t release(Fixture *f, NamePeerState *p, const char *name, NameChange *change) {
        uint32_t reply = 0;
        assert_int_equal(names_release(f->registry, p, name, change, &reply), 0);
        return reply;
}

static void assert_no_change(const NameChange *c) {
        assert_ptr_equal(c->old_owner, c->new_owner);
}

static void assert_change(const NameChange *c, const NamePeerState *old_owner,
                          const NamePeerState *new_owner) {
        assert_ptr_equal(c->old_owner, old_owner);
        assert_ptr_equal(c->new_owner, new_owner);
}

/* Queue of name, NULL-terminated list of expected peers in order. */
static void assert_queue(Fixture *f, const char *name, const NamePeerState *expected[]) {
        NamePeerState **owners = NULL;
        size_t n = 0, n_expected = 0;

        while (expected[n_expected])
                n_expected++;
        if (n_expected == 0) {
                assert_int_equal(names_list_queued_owners(f->registry, name, &owners, &n),
                                 NAMES_E_NO_SUCH_NAME);
                assert_null(names_get_owner(f->registry, name));
                return;
        }
        assert_int_equal(names_list_queued_owners(f->registry, name, &owners, &n), 0);
        assert_int_equal(n, n_expected);
        for (size_t i = 0; i < n; i++)
                assert_ptr_equal(owners[i], expected[i]);
        assert_ptr_equal(names_get_owner(f->registry, name), expected[0]);
        free(owners);
}

#define QUEUE(...) ((const NamePeerState *[]){ __VA_ARGS__, NULL })
#define EMPTY ((const NamePeerState *[]){ NULL })

static void release_all(Fixture *f, NamePeerState *p) {
        NameChange change;
        while (names_release_next(f->registry, p, &change) == 0)
                ;
        assert_int_equal(p->n_ownerships, 0);
}

static void test_new_name(void **state) {
        Fixture *f = *state;
        NameChange c;

        for (uint32_t flags = 0; flags < 8; flags++) {
                assert_int_equal(request(f, &f->a, "org.example.A", flags, &c),
                                 NAMES_REPLY_PRIMARY_OWNER);
                assert_change(&c, NULL, &f->a);
                assert_queue(f, "org.example.A", QUEUE(&f->a));
                assert_int_equal(release(f, &f->a, "org.example.A", &c), NAMES_RELEASE_RELEASED);
                assert_change(&c, &f->a, NULL);
                assert_queue(f, "org.example.A", EMPTY);
        }
}

static void test_already_owner_updates_flags(void **state) {
        Fixture *f = *state;
        NameChange c;

        assert_int_equal(request(f, &f->a, "org.example.A", 0, &c), NAMES_REPLY_PRIMARY_OWNER);
        assert_int_equal(request(f, &f->a, "org.example.A", AR, &c), NAMES_REPLY_ALREADY_OWNER);
        assert_no_change(&c);
        assert_int_equal(f->a.n_ownerships, 1);
        /* Now replaceable: b takes over and a, without DO_NOT_QUEUE, waits second. */
        assert_int_equal(request(f, &f->b, "org.example.A", RE, &c), NAMES_REPLY_PRIMARY_OWNER);
        assert_change(&c, &f->a, &f->b);
        assert_queue(f, "org.example.A", QUEUE(&f->b, &f->a));
        /* b re-requests without ALLOW_REPLACEMENT: a cannot take it back. */
        assert_int_equal(request(f, &f->b, "org.example.A", 0, &c), NAMES_REPLY_ALREADY_OWNER);
        assert_int_equal(request(f, &f->a, "org.example.A", RE, &c), NAMES_REPLY_IN_QUEUE);
        assert_no_change(&c);
        assert_queue(f, "org.example.A", QUEUE(&f->b, &f->a));
        release_all(f, &f->a);
        release_all(f, &f->b);
}

/*
 * The full table: owner flags x requester flags, with a third peer already
 * queued so queue placement is visible. Expected values follow the
 * specification: the requester becomes owner iff the owner allows
 * replacement and the requester asks for it; otherwise it is queued unless
 * it said DO_NOT_QUEUE (EXISTS). A replaced owner stays queued (second)
 * unless it had DO_NOT_QUEUE. REPLACE_EXISTING always queues second.
 */
static void test_flag_table(void **state) {
        Fixture *f = *state;
        const char *name = "org.example.Table";
        NameChange c;

        for (uint32_t owner_flags = 0; owner_flags < 8; owner_flags++) {
                for (uint32_t flags = 0; flags < 8; flags++) {
                        bool replace = (owner_flags & AR) && (flags & RE);
                        uint32_t expected = replace ? NAMES_REPLY_PRIMARY_OWNER :
                                            (flags & DNQ) ? NAMES_REPLY_EXISTS : NAMES_REPLY_IN_QUEUE;

                        assert_int_equal(request(f, &f->a, name, owner_flags, &c),
                                         NAMES_REPLY_PRIMARY_OWNER);
                        assert_int_equal(request(f, &f->c, name, 0, &c), NAMES_REPLY_IN_QUEUE);
                        assert_no_change(&c);

                        assert_int_equal(request(f, &f->b, name, flags, &c), expected);
                        if (expected == NAMES_REPLY_PRIMARY_OWNER) {
                                assert_change(&c, &f->a, &f->b);
                                if (owner_flags & DNQ) {
                                        assert_queue(f, name, QUEUE(&f->b, &f->c));
                                        assert_int_equal(f->a.n_ownerships, 0);
                                } else {
                                        assert_queue(f, name, QUEUE(&f->b, &f->a, &f->c));
                                }
                        } else if (expected == NAMES_REPLY_IN_QUEUE) {
                                assert_no_change(&c);
                                if (flags & RE)
                                        assert_queue(f, name, QUEUE(&f->a, &f->b, &f->c));
                                else
                                        assert_queue(f, name, QUEUE(&f->a, &f->c, &f->b));
                        } else {
                                assert_no_change(&c);
                                assert_queue(f, name, QUEUE(&f->a, &f->c));
                                assert_int_equal(f->b.n_ownerships, 0);
                        }
                        release_all(f, &f->a);
                        release_all(f, &f->b);
                        release_all(f, &f->c);
                        assert_queue(f, name, EMPTY);
                }
        }
}

static void test_requeue(void **state) {
        Fixture *f = *state;
        NameChange c;

        assert_int_equal(request(f, &f->a, "org.example.A", 0, &c), NAMES_REPLY_PRIMARY_OWNER);
        assert_int_equal(request(f, &f->b, "org.example.A", 0, &c), NAMES_REPLY_IN_QUEUE);
        assert_int_equal(request(f, &f->c, "org.example.A", 0, &c), NAMES_REPLY_IN_QUEUE);
        /* Queued again: keeps its place, no second entry. */
        assert_int_equal(request(f, &f->c, "org.example.A", AR, &c), NAMES_REPLY_IN_QUEUE);
        assert_int_equal(f->c.n_ownerships, 1);
        assert_queue(f, "org.example.A", QUEUE(&f->a, &f->b, &f->c));
        /* REPLACE_EXISTING on a non-replaceable name jumps to second place. */
        assert_int_equal(request(f, &f->c, "org.example.A", RE, &c), NAMES_REPLY_IN_QUEUE);
        assert_queue(f, "org.example.A", QUEUE(&f->a, &f->c, &f->b));
        /* DO_NOT_QUEUE while queued: EXISTS, and the queue entry goes. */
        assert_int_equal(request(f, &f->b, "org.example.A", DNQ, &c), NAMES_REPLY_EXISTS);
        assert_no_change(&c);
        assert_queue(f, "org.example.A", QUEUE(&f->a, &f->c));
        assert_int_equal(f->b.n_ownerships, 0);
        /* The queued peer's new flags apply when it becomes owner. */
        assert_int_equal(request(f, &f->c, "org.example.A", AR, &c), NAMES_REPLY_IN_QUEUE);
        assert_int_equal(release(f, &f->a, "org.example.A", &c), NAMES_RELEASE_RELEASED);
        assert_change(&c, &f->a, &f->c);
        assert_int_equal(request(f, &f->b, "org.example.A", RE, &c), NAMES_REPLY_PRIMARY_OWNER);
        assert_change(&c, &f->c, &f->b);
        assert_queue(f, "org.example.A", QUEUE(&f->b, &f->c));
        release_all(f, &f->b);
        release_all(f, &f->c);
}

static void test_release(void **state) {
        Fixture *f = *state;
        NameChange c;

        assert_int_equal(release(f, &f->a, "org.example.A", &c), NAMES_RELEASE_NON_EXISTENT);
        assert_no_change(&c);
        assert_int_equal(request(f, &f->a, "org.example.A", 0, &c), NAMES_REPLY_PRIMARY_OWNER);
        assert_int_equal(release(f, &f->b, "org.example.A", &c), NAMES_RELEASE_NOT_OWNER);
        assert_no_change(&c);
        assert_int_equal(request(f, &f->b, "org.example.A", 0, &c), NAMES_REPLY_IN_QUEUE);
        assert_int_equal(request(f, &f->c, "org.example.A", 0, &c), NAMES_REPLY_IN_QUEUE);
        /* Releasing a queued place changes no owner. */
        assert_int_equal(release(f, &f->b, "org.example.A", &c), NAMES_RELEASE_RELEASED);
        assert_no_change(&c);
        assert_queue(f, "org.example.A", QUEUE(&f->a, &f->c));
        assert_int_equal(release(f, &f->a, "org.example.A", &c), NAMES_RELEASE_RELEASED);
        assert_string_equal(c.name, "org.example.A");
        assert_change(&c, &f->a, &f->c);
        assert_int_equal(release(f, &f->c, "org.example.A", &c), NAMES_RELEASE_RELEASED);
        assert_change(&c, &f->c, NULL);
        /* The change outlives the name. */
        assert_string_equal(c.name, "org.example.A");
        assert_queue(f, "org.example.A", EMPTY);
        assert_int_equal(release(f, &f->c, "org.example.A", &c), NAMES_RELEASE_NON_EXISTENT);
}

/* max_names_per_connection counts owned and queued names plus the unique name. */
static void test_limit(void **state) {
        Fixture *f = *state;
        NameChange c;
        uint32_t reply = 0;

        assert_int_equal(names_request(f->registry, &f->a, "org.example.A", 0, 3, &c, &reply), 0);
        assert_int_equal(names_request(f->registry, &f->b, "org.example.B", 0, 3, &c, &reply), 0);
        /* Queued names count too: a's unique name, A, and its place for B make 3. */
        assert_int_equal(names_request(f->registry, &f->a, "org.example.B", 0, 3, &c, &reply), 0);
        assert_int_equal(reply, NAMES_REPLY_IN_QUEUE);
        assert_int_equal(names_request(f->registry, &f->a, "org.example.C", 0, 3, &c, &reply),
                         NAMES_E_LIMIT);
        /* As in dbus-daemon, the check comes first, even for a held name. */
        assert_int_equal(names_request(f->registry, &f->a, "org.example.A", 0, 3, &c, &reply),
                         NAMES_E_LIMIT);
        assert_null(names_get_owner(f->registry, "org.example.C"));
        assert_int_equal(names_release(f->registry, &f->a, "org.example.B", &c, &reply), 0);
        assert_int_equal(names_request(f->registry, &f->a, "org.example.C", 0, 3, &c, &reply), 0);
        assert_int_equal(reply, NAMES_REPLY_PRIMARY_OWNER);
        /* Limits 0 and 1 leave no room beside the unique name. */
        assert_int_equal(names_request(f->registry, &f->c, "org.example.D", 0, 0, &c, &reply),
                         NAMES_E_LIMIT);
        assert_int_equal(names_request(f->registry, &f->c, "org.example.D", 0, 1, &c, &reply),
                         NAMES_E_LIMIT);
        assert_int_equal(names_request(f->registry, &f->c, "org.example.D", 0, 2, &c, &reply), 0);
        /* No limit at all. */
        for (int i = 0; i < 600; i++) {
                char name[32];
                snprintf(name, sizeof(name), "org.example.N%d", i);
                assert_int_equal(names_request(f->registry, &f->b, name, 0, SIZE_MAX, &c, &reply), 0);
        }
        release_all(f, &f->a);
        release_all(f, &f->b);
        release_all(f, &f->c);
}

static void test_invalid(void **state) {
        Fixture *f = *state;
        NameChange c;
        uint32_t reply = 0;
        char long_name[NAMES_NAME_MAX + 2];

        memset(long_name, 'a', sizeof(long_name) - 1);
        long_name[sizeof(long_name) - 1] = '\0';
        assert_int_equal(names_request(f->registry, &f->a, long_name, 0, 10, &c, &reply), -EINVAL);
        assert_int_equal(names_request(f->registry, &f->a, "", 0, 10, &c, &reply), -EINVAL);
        assert_int_equal(names_release(f->registry, &f->a, long_name, &c, &reply), -EINVAL);
        /* The longest allowed name works and is copied whole. */
        long_name[NAMES_NAME_MAX] = '\0';
        assert_int_equal(names_request(f->registry, &f->a, long_name, 0, 10, &c, &reply), 0);
        assert_string_equal(c.name, long_name);
        release_all(f, &f->a);
}

static void test_disconnect(void **state) {
        Fixture *f = *state;
        NameChange c;

        request(f, &f->a, "org.example.One", 0, &c);
        request(f, &f->b, "org.example.One", 0, &c);
        request(f, &f->a, "org.example.Two", 0, &c);
        request(f, &f->c, "org.example.Three", 0, &c);
        request(f, &f->a, "org.example.Three", 0, &c);

        assert_int_equal(names_release_next(f->registry, &f->a, &c), 0);
        assert_string_equal(c.name, "org.example.One");
        assert_change(&c, &f->a, &f->b);
        assert_int_equal(names_release_next(f->registry, &f->a, &c), 0);
        assert_string_equal(c.name, "org.example.Two");
        assert_change(&c, &f->a, NULL);
        /* Being queued for Three changes no owner: no event. */
        assert_int_equal(names_release_next(f->registry, &f->a, &c), NAMES_E_DONE);
        assert_int_equal(f->a.n_ownerships, 0);
        assert_queue(f, "org.example.One", QUEUE(&f->b));
        assert_queue(f, "org.example.Two", EMPTY);
        assert_queue(f, "org.example.Three", QUEUE(&f->c));
        assert_int_equal(names_release_next(f->registry, &f->a, &c), NAMES_E_DONE);
        release_all(f, &f->b);
        release_all(f, &f->c);
}

static void test_iteration(void **state) {
        Fixture *f = *state;
        NameChange c;

        request(f, &f->a, "org.example.One", 0, &c);
        request(f, &f->b, "org.example.Two", 0, &c);
        request(f, &f->a, "org.example.Two", 0, &c);

        size_t iter = 0, count = 0;
        const char *name;
        NamePeerState *owner;
        while (names_next(f->registry, &iter, &name, &owner)) {
                if (strcmp(name, "org.example.One") == 0)
                        assert_ptr_equal(owner, &f->a);
                else if (strcmp(name, "org.example.Two") == 0)
                        assert_ptr_equal(owner, &f->b);
                else
                        fail_msg("unexpected name %s", name);
                count++;
        }
        assert_int_equal(count, 2);

        const IList *it = NULL;
        bool primary;
        assert_true(name_peer_state_next(&f->a, &it, &name, &primary));
        assert_string_equal(name, "org.example.One");
        assert_true(primary);
        assert_true(name_peer_state_next(&f->a, &it, &name, &primary));
        assert_string_equal(name, "org.example.Two");
        assert_false(primary);
        assert_false(name_peer_state_next(&f->a, &it, &name, &primary));

        assert_true(name_peer_state_owns(&f->a, "org.example.One"));
        assert_false(name_peer_state_owns(&f->a, "org.example.Two"));
        assert_true(name_peer_state_owns(&f->b, "org.example.Two"));
        release_all(f, &f->a);
        release_all(f, &f->b);
}

/* Freeing the registry with names still held leaves the peers empty. */
static void test_free_with_names(void **state) {
        Fixture *f = *state;
        NameChange c;

        request(f, &f->a, "org.example.One", 0, &c);
        request(f, &f->b, "org.example.One", 0, &c);
        f->registry = name_registry_free(f->registry);
        assert_int_equal(f->a.n_ownerships, 0);
        assert_int_equal(f->b.n_ownerships, 0);
        assert_true(ilist_is_empty(&f->a.ownerships));
}

/* A tally counts several peers' names together, through every way a name is gained or lost. */
static void test_tally(void **state) {
        Fixture *f = *state;
        NameChange change;
        size_t tally = 0, other = 0;

        request(f, &f->a, "org.mssf.A1", 0, &change);
        name_peer_state_set_tally(&f->a, &tally);
        name_peer_state_set_tally(&f->b, &tally);
        assert_int_equal(tally, 1);     /* what a held already moved over */
        request(f, &f->b, "org.mssf.A1", 0, &change);   /* queued counts */
        request(f, &f->b, "org.mssf.B1", 0, &change);
        assert_int_equal(tally, 3);
        request(f, &f->c, "org.mssf.C1", 0, &change);   /* c is not in it */
        assert_int_equal(tally, 3);
        /* Replaced with DO_NOT_QUEUE: b loses the name, and the tally with it. */
        request(f, &f->b, "org.mssf.X", AR | DNQ, &change);
        assert_int_equal(tally, 4);
        request(f, &f->c, "org.mssf.X", RE, &change);
        assert_int_equal(tally, 3);
        release(f, &f->a, "org.mssf.A1", &change);
        assert_int_equal(tally, 2);
        /* Moving to another tally takes what it holds along. */
        name_peer_state_set_tally(&f->b, &other);
        assert_int_equal(tally, 0);
        assert_int_equal(other, 2);
        while (names_release_next(f->registry, &f->b, &change) == 0)
                ;
        assert_int_equal(other, 0);
        while (names_release_next(f->registry, &f->c, &change) == 0)
                ;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_new_name, setup, teardown),
                cmocka_unit_test_setup_teardown(test_tally, setup, teardown),
                cmocka_unit_test_setup_teardown(test_already_owner_updates_flags, setup, teardown),
                cmocka_unit_test_setup_teardown(test_flag_table, setup, teardown),
                cmocka_unit_test_setup_teardown(test_requeue, setup, teardown),
                cmocka_unit_test_setup_teardown(test_release, setup, teardown),
                cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_invalid, setup, teardown),
                cmocka_unit_test_setup_teardown(test_disconnect, setup, teardown),
                cmocka_unit_test_setup_teardown(test_iteration, setup, teardown),
                cmocka_unit_test_setup_teardown(test_free_with_names, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
