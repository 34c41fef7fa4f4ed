/*
 * Unit tests of broker/io/userdb.c: NSS's answer for a uid is used again
 * only while it can still be true. NSS itself (creds_nss_groups()) is
 * replaced at link time (--wrap) by a table the tests change, so that
 * every question that reaches it is counted; the watched directory is a
 * scratch one standing in for /etc.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "creds.h"
#include "userdb.h"

static unsigned asked;
static gid_t answer_gid = 100;

int __wrap_creds_nss_groups(uid_t uid, gid_t **ret, size_t *ret_n);
int __wrap_creds_nss_groups(uid_t uid, gid_t **ret, size_t *ret_n) {
        asked++;
        if (uid == 4242)
                return CREDS_E_NO_USER;
        *ret = malloc(2 * sizeof(gid_t));
        if (!*ret)
                return -ENOMEM;
        (*ret)[0] = (gid_t) uid;
        (*ret)[1] = answer_gid;
        *ret_n = 2;
        return 0;
}

int __wrap_creds_nss_user(uid_t uid);
int __wrap_creds_nss_user(uid_t uid) {
        asked++;
        return uid == 4242 ? CREDS_E_NO_USER : 0;
}

typedef struct Fixture {
        char dir[64];
        UserDb *db;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));

        assert_non_null(f);
        snprintf(f->dir, sizeof(f->dir), "/tmp/userdb-test.XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        assert_int_equal(userdb_new(f->dir, &f->db), 0);
        asked = 0;
        answer_gid = 100;
        *state = f;
        return 0;
}

static void write_file(const Fixture *f, const char *name) {
        char path[128];
        FILE *out;

        snprintf(path, sizeof(path), "%s/%s", f->dir, name);
        out = fopen(path, "w");
        assert_non_null(out);
        fputs("x\n", out);
        fclose(out);
}

static int teardown(void **state) {
        Fixture *f = *state;
        char cmd[128];

        userdb_free(f->db);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
        assert_int_equal(system(cmd), 0);
        free(f);
        return 0;
}

/* The second group NSS gave uid (the one the tests change). */
static gid_t second_group(UserDb *db, uid_t uid) {
        gid_t *groups = NULL, second;
        size_t n = 0;

        assert_int_equal(userdb_groups(db, uid, &groups, &n), 0);
        assert_int_equal(n, 2);
        assert_int_equal(groups[0], (gid_t) uid);
        second = groups[1];
        groups[1] = 9999;       /* the caller's copy: the table must not see this */
        free(groups);
        return second;
}

static void test_remembered_until_a_file_changes(void **state) {
        Fixture *f = *state;

        assert_int_equal(second_group(f->db, 1000), 100);
        assert_int_equal(second_group(f->db, 1000), 100);
        assert_int_equal(asked, 1);
        assert_int_equal(userdb_stats(f->db).hits, 1);
        /* Another file of /etc changes nothing. */
        write_file(f, "hostname");
        assert_int_equal(second_group(f->db, 1000), 100);
        assert_int_equal(asked, 1);
        /* A group added to /etc/group is seen at the very next connection. */
        answer_gid = 200;
        write_file(f, "group");
        assert_int_equal(second_group(f->db, 1000), 200);
        assert_int_equal(asked, 2);
        /* passwd replaced by rename, as useradd and editors do. */
        answer_gid = 300;
        write_file(f, "passwd.new");
        {
                char from[128], to[128];

                snprintf(from, sizeof(from), "%s/passwd.new", f->dir);
                snprintf(to, sizeof(to), "%s/passwd", f->dir);
                assert_int_equal(rename(from, to), 0);
        }
        assert_int_equal(second_group(f->db, 1000), 300);
        answer_gid = 400;
        write_file(f, "nsswitch.conf");
        assert_int_equal(second_group(f->db, 1000), 400);
        assert_int_equal(asked, 4);
}

static void test_bounded_age_and_flush(void **state) {
        Fixture *f = *state;

        assert_int_equal(second_group(f->db, 1000), 100);
        answer_gid = 150;
        /* Sources nobody watches (LDAP, systemd's userdb): asked again after a second. */
        usleep(1100 * 1000);
        assert_int_equal(second_group(f->db, 1000), 150);
        answer_gid = 160;
        userdb_flush(f->db);
        assert_int_equal(second_group(f->db, 1000), 160);
        assert_int_equal(asked, 3);
}

static void test_unknown_uid_never_remembered(void **state) {
        Fixture *f = *state;
        gid_t *groups = NULL;
        size_t n = 0;

        for (int i = 0; i < 3; i++)
                assert_int_equal(userdb_groups(f->db, 4242, &groups, &n), CREDS_E_NO_USER);
        assert_int_equal(asked, 3);
}

static void test_blind_without_the_directory(void **state) {
        Fixture *f = *state;
        char cmd[128];

        assert_int_equal(second_group(f->db, 1000), 100);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
        assert_int_equal(system(cmd), 0);
        /* The watch is gone with it: from now on NSS answers every time. */
        assert_int_equal(second_group(f->db, 1000), 100);
        assert_int_equal(second_group(f->db, 1000), 100);
        assert_int_equal(asked, 3);
        assert_int_equal(mkdir(f->dir, 0700), 0);
        write_file(f, "other");
        assert_int_equal(second_group(f->db, 1000), 100);
        assert_int_equal(asked, 4);
}

/* Known to exist is remembered too, and groups asked of a uid only known to exist go to NSS once. */
static void test_user_known(void **state) {
        Fixture *f = *state;

        assert_int_equal(userdb_user(f->db, 1000), 0);
        assert_int_equal(userdb_user(f->db, 1000), 0);
        assert_int_equal(asked, 1);
        assert_int_equal(second_group(f->db, 1000), 100);
        assert_int_equal(second_group(f->db, 1000), 100);
        assert_int_equal(userdb_user(f->db, 1000), 0);
        assert_int_equal(asked, 2);
        assert_int_equal(userdb_user(f->db, 4242), CREDS_E_NO_USER);
        assert_int_equal(userdb_user(f->db, 4242), CREDS_E_NO_USER);
        assert_int_equal(asked, 4);
        write_file(f, "passwd");
        assert_int_equal(userdb_user(f->db, 1000), 0);
        assert_int_equal(asked, 5);
}

static void test_no_userdb(void **state) {
        assert_int_equal(second_group(NULL, 1000), 100);
        assert_int_equal(second_group(NULL, 1000), 100);
        assert_int_equal(asked, 2);
        assert_int_equal(userdb_new("/nonexistent/etc", &(UserDb *){ NULL }), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_remembered_until_a_file_changes, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bounded_age_and_flush, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unknown_uid_never_remembered, setup, teardown),
                cmocka_unit_test_setup_teardown(test_blind_without_the_directory, setup, teardown),
                cmocka_unit_test_setup_teardown(test_user_known, setup, teardown),
                cmocka_unit_test_setup_teardown(test_no_userdb, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
