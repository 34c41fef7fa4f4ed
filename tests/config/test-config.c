/*
 * test-config: the busconfig loader against fixture files (tests/config/
 * fixtures), the distribution's own dbus-1 configuration, and error
 * messages checked to the byte, file:line included.
 */
#include <dirent.h>
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

#include "config.h"
#include "invalid-cases.h"

static BusConfig *load_ok(const char *path, unsigned flags) {
        BusConfig *config = NULL;
        ConfigError err = {};
        int r = bus_config_load_file(path, flags, &config, &err);

        if (r != 0)
                fail_msg("%s: r=%d: %s", path, r, err.message);
        assert_non_null(config);
        assert_string_equal(err.message, "");
        return config;
}

static const BusPolicyRule *rule_at(const BusConfig *config, size_t policy, size_t rule) {
        assert_true(policy < config->n_policies);
        assert_true(rule < config->policies[policy].n_rules);
        return &config->policies[policy].rules[rule];
}

static void test_full_scalars(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("valid/full.conf"), BUS_CONFIG_STRICT);

        assert_string_equal(config->type, "system");
        assert_string_equal(config->user, "messagebus");
        assert_string_equal(config->pidfile, "/run/dbus/pid");
        assert_string_equal(config->servicehelper, "/usr/lib/dbus-1.0/dbus-daemon-launch-helper");
        assert_true(config->fork && config->keep_umask && config->syslog && config->allow_anonymous);
        assert_int_equal(config->n_listen, 2);
        assert_string_equal(config->listen[0], "unix:path=/run/dbus/system_bus_socket");
        assert_string_equal(config->listen[1], "systemd:");
        assert_null(config->listen[2]);
        assert_int_equal(config->n_auth, 2);
        assert_string_equal(config->auth[1], "ANONYMOUS");
        assert_int_equal(config->apparmor_mode, BUS_APPARMOR_REQUIRED);
        assert_int_equal(config->n_associations, 1);
        assert_string_equal(config->associations[0].own, "org.example.Name");
        assert_string_equal(config->associations[0].context, "system_u:object_r:example_t");
        assert_int_equal(config->n_files, 1);
        assert_string_equal(config->files[0], FIXTURE("valid/full.conf"));
}

static void test_full_servicedirs(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("valid/full.conf"), 0);
        const char *expected[] = {
                FIXTURE("valid/services"), "/opt/services",
                "/usr/local/share/dbus-1/system-services", "/usr/share/dbus-1/system-services",
                "/lib/dbus-1/system-services",
        };

        assert_int_equal(config->n_servicedirs, ELEMENTSOF(expected));
        for (size_t i = 0; i < ELEMENTSOF(expected); i++)
                assert_string_equal(config->servicedirs[i], expected[i]);
}

static void test_full_limits(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("valid/full.conf"), 0);
        const BusConfigLimits *l = &config->limits;

        assert_int_equal(l->max_incoming_bytes, 1000000);
        assert_int_equal(l->max_incoming_unix_fds, 10);
        assert_int_equal(l->max_outgoing_bytes, 2000000);
        assert_int_equal(l->max_outgoing_unix_fds, 11);
        assert_int_equal(l->max_message_size, 300000);
        assert_int_equal(l->max_message_unix_fds, 12);
        assert_int_equal(l->service_start_timeout, 1001);
        assert_int_equal(l->auth_timeout, 1002);
        assert_int_equal(l->pending_fd_timeout, 1003);
        assert_int_equal(l->max_completed_connections, 1004);
        assert_int_equal(l->max_incomplete_connections, 1005);
        assert_int_equal(l->max_connections_per_user, 1006);
        assert_int_equal(l->max_pending_service_starts, 1007);
        assert_int_equal(l->max_names_per_connection, 1008);
        assert_int_equal(l->max_match_rules_per_connection, 1009);
        assert_int_equal(l->max_replies_per_connection, 1010);
        assert_int_equal(l->reply_timeout, 1011);
        assert_int_equal(l->max_containers, 1012);
        assert_int_equal(l->max_containers_per_user, 1013);
        assert_int_equal(l->max_container_metadata_bytes, 1014);
        assert_int_equal(l->max_connections_per_container, 1015);
}

/* mssf-broker's own per-label limits: read like the others, derived (by the bus) until set. */
static void test_label_limits(void **state) {
        static const char text[] = "<busconfig><limit name=\"max_names_per_connection\">7</limit></busconfig>";
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("valid/label-limits.conf"), 0);
        _cleanup_(bus_config_freep) BusConfig *unset = NULL;
        const BusConfigLimits *l = &config->limits;

        assert_int_equal(l->max_connections_per_label, 8);
        assert_int_equal(l->max_names_per_label, 9);
        assert_int_equal(l->max_match_rules_per_label, 10);
        assert_int_equal(l->max_replies_per_label, 11);
        assert_int_equal(l->max_queued_bytes_per_label, 5000000000LL);  /* bytes: not an int */
        assert_int_equal(l->max_queued_unix_fds_per_label, 13);

        assert_int_equal(bus_config_load_string("x.conf", text, strlen(text), 0, &unset, NULL), 0);
        l = &unset->limits;
        assert_int_equal(l->max_names_per_connection, 7);
        assert_int_equal(l->max_connections_per_label, BUS_CONFIG_LIMIT_DERIVED);
        assert_int_equal(l->max_names_per_label, BUS_CONFIG_LIMIT_DERIVED);
        assert_int_equal(l->max_match_rules_per_label, BUS_CONFIG_LIMIT_DERIVED);
        assert_int_equal(l->max_replies_per_label, BUS_CONFIG_LIMIT_DERIVED);
        assert_int_equal(l->max_queued_bytes_per_label, BUS_CONFIG_LIMIT_DERIVED);
        assert_int_equal(l->max_queued_unix_fds_per_label, BUS_CONFIG_LIMIT_DERIVED);
}

static void test_default_limits(void **state) {
        static const char text[] = "<busconfig/>";
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        const BusConfigLimits *l;

        assert_int_equal(bus_config_load_string("x.conf", text, strlen(text), 0, &config, NULL), 0);
        l = &config->limits;
        assert_int_equal(l->max_incoming_bytes, 133169152);
        assert_int_equal(l->max_outgoing_bytes, 133169152);
        assert_int_equal(l->max_message_size, 33554432);
        assert_int_equal(l->max_incoming_unix_fds, 64);
        assert_int_equal(l->max_outgoing_unix_fds, 64);
        assert_int_equal(l->max_message_unix_fds, 16);
        assert_int_equal(l->service_start_timeout, 25000);
        assert_int_equal(l->auth_timeout, 30000);
        assert_int_equal(l->pending_fd_timeout, 150000);
        assert_int_equal(l->max_completed_connections, 2048);
        assert_int_equal(l->max_incomplete_connections, 64);
        assert_int_equal(l->max_connections_per_user, 256);
        assert_int_equal(l->max_pending_service_starts, 512);
        assert_int_equal(l->max_names_per_connection, 512);
        assert_int_equal(l->max_match_rules_per_connection, 512);
        assert_int_equal(l->max_replies_per_connection, 128);
        assert_int_equal(l->reply_timeout, -1);
        assert_null(config->type);
        assert_int_equal(config->n_listen, 0);
        assert_int_equal(config->apparmor_mode, BUS_APPARMOR_ENABLED);
}

static void test_full_policy_contexts(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("valid/full.conf"), 0);
        const BusPolicy *p = config->policies;

        assert_int_equal(config->n_policies, 6);
        assert_int_equal(p[0].context, BUS_POLICY_DEFAULT);
        assert_int_equal(p[0].line, 43);
        assert_string_equal(p[0].file, FIXTURE("valid/full.conf"));
        assert_int_equal(p[0].n_rules, 12);
        assert_int_equal(p[1].context, BUS_POLICY_MANDATORY);
        assert_int_equal(p[2].context, BUS_POLICY_USER);
        assert_string_equal(p[2].principal, "root");
        assert_int_equal(p[3].context, BUS_POLICY_GROUP);
        assert_string_equal(p[3].principal, "1000");
        assert_int_equal(p[4].context, BUS_POLICY_AT_CONSOLE);
        assert_true(p[4].at_console);
        assert_int_equal(p[5].context, BUS_POLICY_AT_CONSOLE);
        assert_false(p[5].at_console);
        assert_string_equal(bus_policy_context_to_string(p[1].context), "mandatory");
}

static void test_full_simple_rules(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("valid/full.conf"), 0);
        const BusPolicyRule *r;

        r = rule_at(config, 0, 0); /* <deny send_destination="*" eavesdrop="true"/> */
        assert_false(r->allow);
        assert_int_equal(r->kind, BUS_RULE_SEND);
        assert_null(r->peer);
        assert_int_equal(r->eavesdrop, BUS_TRISTATE_TRUE);
        assert_int_equal(r->line, 44);
        assert_string_equal(r->file, FIXTURE("valid/full.conf"));

        r = rule_at(config, 0, 1);
        assert_int_equal(r->kind, BUS_RULE_OWN);
        assert_string_equal(r->own, "org.example.Name");
        assert_false(r->own_is_prefix);
        r = rule_at(config, 0, 2);
        assert_string_equal(r->own, "org.example.Prefix");
        assert_true(r->own_is_prefix);
        r = rule_at(config, 0, 3);
        assert_int_equal(r->kind, BUS_RULE_OWN);
        assert_null(r->own);
        r = rule_at(config, 0, 4);
        assert_int_equal(r->kind, BUS_RULE_USER);
        assert_null(r->principal);
        r = rule_at(config, 0, 5);
        assert_int_equal(r->kind, BUS_RULE_GROUP);
        assert_string_equal(r->principal, "wheel");
        assert_false(r->allow);
}

static void test_full_send_rules(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("valid/full.conf"), 0);
        const BusPolicyRule *r;

        r = rule_at(config, 0, 6);
        assert_int_equal(r->kind, BUS_RULE_SEND);
        assert_int_equal(r->line, 50);
        assert_string_equal(r->peer, "org.example.Dest");
        assert_false(r->peer_is_prefix);
        assert_string_equal(r->interface, "org.example.Iface");
        assert_string_equal(r->member, "Method");
        assert_string_equal(r->path, "/org/example");
        assert_int_equal(r->type, BUS_MESSAGE_TYPE_METHOD_CALL);
        assert_int_equal(r->requested_reply, BUS_TRISTATE_FALSE);
        assert_int_equal(r->broadcast, BUS_TRISTATE_FALSE);
        assert_int_equal(r->eavesdrop, BUS_TRISTATE_UNSET);
        assert_int_equal(r->min_fds, 1);
        assert_int_equal(r->max_fds, 4);
        assert_true(r->log);

        r = rule_at(config, 0, 7);
        assert_string_equal(r->peer, "org.example.P");
        assert_true(r->peer_is_prefix);
        assert_string_equal(r->error, "org.example.Error");
        assert_int_equal(r->max_fds, 33554432);
        assert_false(r->log);

        r = rule_at(config, 0, 8);
        assert_int_equal(r->type, BUS_MESSAGE_TYPE_SIGNAL);
        assert_int_equal(r->broadcast, BUS_TRISTATE_TRUE);
        assert_null(r->peer);
}

static void test_full_receive_rules(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("valid/full.conf"), 0);
        const BusPolicyRule *r;

        r = rule_at(config, 0, 9);
        assert_int_equal(r->kind, BUS_RULE_RECEIVE);
        assert_string_equal(r->peer, "org.example.Dest");
        assert_string_equal(r->interface, "org.example.Iface");
        assert_string_equal(r->member, "Signal");
        assert_int_equal(r->type, BUS_MESSAGE_TYPE_SIGNAL);
        assert_int_equal(r->requested_reply, BUS_TRISTATE_TRUE);
        assert_int_equal(r->eavesdrop, BUS_TRISTATE_FALSE);
        r = rule_at(config, 0, 10);
        assert_string_equal(r->error, "org.example.Error");
        /* eavesdrop alone is a receive rule, as in dbus-daemon */
        r = rule_at(config, 0, 11);
        assert_int_equal(r->kind, BUS_RULE_RECEIVE);
        assert_null(r->peer);
        assert_int_equal(r->eavesdrop, BUS_TRISTATE_TRUE);
        /* send_interface="*" is "any" */
        r = rule_at(config, 1, 0);
        assert_int_equal(r->kind, BUS_RULE_SEND);
        assert_null(r->interface);
        assert_string_equal(bus_rule_kind_to_string(r->kind), "send");
}

/* Order: main's rules, child's, main's, includedir's (sorted), main's last. */
static void test_include_merge(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("valid/main.conf"), BUS_CONFIG_STRICT);
        const char *order[] = { "org.example.First", "org.example.Child", "org.example.A",
                                "org.example.B", "org.example.Last" };

        assert_string_equal(config->type, "system");      /* child overrides */
        assert_string_equal(config->user, "alice");       /* from include.d/10-a.conf */
        assert_true(config->fork);
        assert_int_equal(config->limits.auth_timeout, 6); /* child's value comes back */
        assert_int_equal(config->limits.max_replies_per_connection, 7);
        assert_int_equal(config->n_listen, 2);
        assert_string_equal(config->listen[0], "unix:tmpdir=/tmp");
        assert_string_equal(config->listen[1], "unix:path=/run/child");
        assert_int_equal(config->n_servicedirs, 2);
        assert_string_equal(config->servicedirs[0], "/a");
        assert_string_equal(config->servicedirs[1], FIXTURE("valid/sub/rel"));
        assert_int_equal(config->n_policies, ELEMENTSOF(order));
        for (size_t i = 0; i < ELEMENTSOF(order); i++)
                assert_string_equal(rule_at(config, i, 0)->peer, order[i]);
        assert_string_equal(rule_at(config, 1, 0)->file, FIXTURE("valid/sub/child.conf"));
        assert_int_equal(config->n_files, 4);
        assert_int_equal(config->n_includedirs, 2);
        assert_string_equal(config->includedirs[0], FIXTURE("valid/../include.d"));
        assert_string_equal(config->includedirs[1], FIXTURE("valid/missing.d"));
        assert_int_equal(config->n_warnings, 0);
}

static void test_no_includes(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("valid/main.conf"), BUS_CONFIG_NO_INCLUDES);

        assert_string_equal(config->type, "session");
        assert_int_equal(config->n_policies, 2);
        assert_int_equal(config->n_files, 1);
        assert_int_equal(config->n_includedirs, 2);
}

static void test_includedir_broken_file(void **state) {
        _cleanup_(bus_config_freep) BusConfig *config = load_ok(FIXTURE("broken-main.conf"), 0);
        ConfigError err = {};
        BusConfig *strict = NULL;

        /* dbus-daemon skips the broken file whole, and says why. */
        assert_null(config->user);
        assert_int_equal(config->n_policies, 1);
        assert_string_equal(rule_at(config, 0, 0)->own, "org.example.Good");
        assert_int_equal(config->n_warnings, 1);
        assert_string_equal(config->warnings[0],
                            FIXTURE("broken.d/20-bad.conf")
                            ":5: Attribute \"bogus\" is invalid on <allow> element in this context");

        assert_int_equal(bus_config_load_file(FIXTURE("broken-main.conf"), BUS_CONFIG_STRICT, &strict, &err),
                         CONFIG_E_INVALID);
        assert_null(strict);
        assert_string_equal(err.message, config->warnings[0]);
}

static void test_include_cycle(void **state) {
        BusConfig *config = NULL;
        ConfigError err = {};

        assert_int_equal(bus_config_load(FIXTURE("cycle/a.conf"), &config, &err), CONFIG_E_INVALID);
        assert_null(config);
        assert_string_equal(err.message, FIXTURE("cycle/b.conf") ":3: Circular inclusion of file '"
                                         FIXTURE("cycle/a.conf") "'");
}

static void test_missing_file(void **state) {
        BusConfig *config = NULL;
        ConfigError err = {};

        assert_int_equal(bus_config_load(FIXTURE("nope.conf"), &config, &err), -ENOENT);
        assert_null(config);
        assert_string_equal(err.message, FIXTURE("nope.conf") ": Failed to open: No such file or directory");
}

static void test_invalid_fixtures(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(invalid_cases); i++) {
                char path[512], expected[1024];
                BusConfig *config = NULL;
                ConfigError err = {};
                int r;

                snprintf(path, sizeof(path), "%s/invalid/%s.conf", FIXTURE_DIR, invalid_cases[i].name);
                snprintf(expected, sizeof(expected), "%s:%s", path, invalid_cases[i].where_and_what);
                r = bus_config_load(path, &config, &err);
                if (r != CONFIG_E_INVALID || strcmp(err.message, expected) != 0)
                        fail_msg("%s: r=%d\n got: %s\nwant: %s", invalid_cases[i].name, r, err.message, expected);
                assert_null(config);
        }
}

/* Every fixture in invalid/ has a case above, so none goes untested. */
static void test_invalid_fixtures_all_listed(void **state) {
        DIR *d = opendir(FIXTURE("invalid"));
        struct dirent *de;
        size_t n = 0;

        assert_non_null(d);
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                n++;
        }
        closedir(d);
        assert_int_equal(n, ELEMENTSOF(invalid_cases));
}

static void test_string_load_and_bounds(void **state) {
        static const char ok[] = "<busconfig><user>u</user></busconfig>trailing-garbage";
        BusConfig *config = NULL;
        ConfigError err = {};
        size_t big_size = 1024 * 1024 + 1;
        char *big;

        /* size bounds what is parsed: the garbage after it is never seen */
        assert_int_equal(bus_config_load_string("/etc/x.conf", ok, strlen(ok) - 16, 0, &config, &err), 0);
        assert_string_equal(config->user, "u");
        config = bus_config_free(config);

        assert_int_equal(bus_config_load_string("/etc/x.conf", ok, strlen(ok), 0, &config, &err),
                         CONFIG_E_INVALID);
        assert_string_equal(err.message, "/etc/x.conf:1: junk after document element (column 37)");

        big = malloc(big_size);
        assert_non_null(big);
        memset(big, ' ', big_size);
        assert_int_equal(bus_config_load_string("/etc/big.conf", big, big_size, 0, &config, &err),
                         CONFIG_E_INVALID);
        assert_string_equal(err.message, "/etc/big.conf: File is larger than 1 MiB");
        free(big);
}

/* A chain of includes deeper than the bound fails where the bound is hit. */
static void test_include_depth(void **state) {
        char dir[] = "/tmp/test-config-XXXXXX";
        char path[600], expected[1024];
        BusConfig *config = NULL;
        ConfigError err = {};

        assert_non_null(mkdtemp(dir));
        for (int i = 0; i < 20; i++) {
                FILE *f;

                snprintf(path, sizeof(path), "%s/%d.conf", dir, i);
                f = fopen(path, "w");
                assert_non_null(f);
                fprintf(f, "<busconfig>\n  <include>%d.conf</include>\n</busconfig>\n", i + 1);
                fclose(f);
        }
        snprintf(path, sizeof(path), "%s/0.conf", dir);
        assert_int_equal(bus_config_load(path, &config, &err), CONFIG_E_INVALID);
        assert_null(config);
        snprintf(expected, sizeof(expected), "%s/15.conf:2: Includes nested deeper than 16 levels at '%s/16.conf'",
                 dir, dir);
        assert_string_equal(err.message, expected);
        for (int i = 0; i < 20; i++) {
                snprintf(path, sizeof(path), "%s/%d.conf", dir, i);
                unlink(path);
        }
        rmdir(dir);
}

static void test_text_bound(void **state) {
        static const char head[] = "<busconfig>\n<user>", tail[] = "</user></busconfig>";
        static char text[sizeof(head) + 5000 + sizeof(tail)];
        BusConfig *config = NULL;
        ConfigError err = {};
        size_t len = 0;

        memcpy(text, head, strlen(head));
        len += strlen(head);
        for (size_t i = 0; i < 5000; i++)
                text[len++] = 'u';
        memcpy(text + len, tail, strlen(tail));
        len += strlen(tail);
        assert_int_equal(bus_config_load_string("/etc/t.conf", text, len, 0, &config, &err), CONFIG_E_INVALID);
        assert_string_equal(err.message, "/etc/t.conf:2: Text content longer than 4096 bytes");
}

static void test_log_only_on_send(void **state) {
        static const char text[] =
                "<busconfig><policy context=\"default\">"
                "<allow receive_sender=\"a.b\" log=\"true\"/>"
                "<deny send_destination=\"a.b\" log=\"true\"/>"
                "</policy></busconfig>";
        _cleanup_(bus_config_freep) BusConfig *config = NULL;

        assert_int_equal(bus_config_load_string("/etc/l.conf", text, strlen(text), 0, &config, NULL), 0);
        assert_false(rule_at(config, 0, 0)->log);
        assert_true(rule_at(config, 0, 1)->log);
}

static void free_dirs(char **dirs) {
        for (size_t i = 0; dirs[i]; i++)
                free(dirs[i]);
        free(dirs);
}

static void test_session_servicedirs(void **state) {
        char runtime[] = "/tmp/test-config-runtime-XXXXXX", services[128], why[600];
        char **dirs = NULL;
        struct stat st;

        assert_non_null(mkdtemp(runtime));
        snprintf(services, sizeof(services), "%s/dbus-1/services", runtime);
        setenv("XDG_RUNTIME_DIR", runtime, 1);
        setenv("XDG_DATA_HOME", "/home/u/.data/", 1);
        setenv("XDG_DATA_DIRS", "/opt/share:/usr/share/", 1);
        assert_int_equal(bus_config_standard_session_servicedirs(&dirs, why, sizeof(why)), 0);
        assert_string_equal(why, "");
        assert_string_equal(dirs[0], services);
        assert_string_equal(dirs[1], "/home/u/.data/dbus-1/services");
        assert_string_equal(dirs[2], "/opt/share/dbus-1/services");
        assert_string_equal(dirs[3], "/usr/share/dbus-1/services");
        assert_null(dirs[4]);
        free_dirs(dirs);
        /* The transient directory was made, for the bus user alone. */
        assert_int_equal(stat(services, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 0777, 0700);

        /* A runtime directory others may write serves no services (and says why). */
        assert_int_equal(chmod(runtime, 0770), 0);
        assert_int_equal(bus_config_standard_session_servicedirs(&dirs, why, sizeof(why)), 0);
        assert_non_null(strstr(why, "can be written by others"));
        assert_string_equal(dirs[0], "/home/u/.data/dbus-1/services");
        free_dirs(dirs);
        rmdir(services);
        snprintf(services, sizeof(services), "%s/dbus-1", runtime);
        rmdir(services);
        rmdir(runtime);

        unsetenv("XDG_RUNTIME_DIR");
        unsetenv("XDG_DATA_HOME");
        unsetenv("XDG_DATA_DIRS");
        setenv("HOME", "/home/v", 1);
        assert_int_equal(bus_config_standard_session_servicedirs(&dirs, why, sizeof(why)), 0);
        assert_string_equal(dirs[0], "/home/v/.local/share/dbus-1/services");
        assert_string_equal(dirs[1], "/usr/local/share/dbus-1/services");
        assert_string_equal(dirs[2], "/usr/share/dbus-1/services");
        assert_null(dirs[3]);
        free_dirs(dirs);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_full_scalars),
                cmocka_unit_test(test_full_servicedirs),
                cmocka_unit_test(test_full_limits),
                cmocka_unit_test(test_default_limits),
                cmocka_unit_test(test_label_limits),
                cmocka_unit_test(test_full_policy_contexts),
                cmocka_unit_test(test_full_simple_rules),
                cmocka_unit_test(test_full_send_rules),
                cmocka_unit_test(test_full_receive_rules),
                cmocka_unit_test(test_include_merge),
                cmocka_unit_test(test_no_includes),
                cmocka_unit_test(test_includedir_broken_file),
                cmocka_unit_test(test_include_cycle),
                cmocka_unit_test(test_missing_file),
                cmocka_unit_test(test_invalid_fixtures),
                cmocka_unit_test(test_invalid_fixtures_all_listed),
                cmocka_unit_test(test_string_load_and_bounds),
                cmocka_unit_test(test_include_depth),
                cmocka_unit_test(test_text_bound),
                cmocka_unit_test(test_log_only_on_send),
                cmocka_unit_test(test_session_servicedirs),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
