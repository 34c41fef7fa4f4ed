/*
 * Service files: valid ones in the shapes Debian ships, each kind of
 * mistake with its file:line message, Exec= splitting, the table's
 * priority, naming and duplicate rules, and every service file installed
 * on this machine.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "service-file.h"

static void parse_ok(const char *text, ServiceFile **ret) {
        ServiceFileError err = { { 0 } };
        int r = service_file_parse("t.service", text, strlen(text), ret, &err);
        if (r != 0)
                fail_msg("unexpected error %d: %s", r, err.message);
}

static void parse_bad(const char *text, const char *message) {
        ServiceFileError err = { { 0 } };
        ServiceFile *file = NULL;
        assert_int_equal(service_file_parse("t.service", text, strlen(text), &file, &err), SERVICE_FILE_E_INVALID);
        assert_null(file);
        assert_string_equal(err.message, message);
}

static void test_valid(void **state) {
        _cleanup_(service_file_freep) ServiceFile *f = NULL;
        parse_ok("# comment\n\n[D-BUS Service]\nName=org.freedesktop.login1\nExec=/bin/false\nUser=root\n"
                 "SystemdService=dbus-org.freedesktop.login1.service\n", &f);
        assert_string_equal(f->name, "org.freedesktop.login1");
        assert_string_equal(f->exec, "/bin/false");
        assert_string_equal(f->argv[0], "/bin/false");
        assert_null(f->argv[1]);
        assert_string_equal(f->user, "root");
        assert_string_equal(f->systemd_service, "dbus-org.freedesktop.login1.service");
        assert_null(f->assumed_apparmor_label);
}

static void test_lenient_parts(void **state) {
        _cleanup_(service_file_freep) ServiceFile *f = NULL;
        /* CRLF, blanks around '=', other groups, unknown and localised keys, escapes */
        parse_ok("[Desktop Entry]\r\nName=ignored\r\n[D-BUS Service]\r\nName = org.example.Foo\r\n"
                 "Name[de]=org.example.Bar\r\nX-Other=1\r\nExec=/usr/bin/foo\\s--x\r\nAssumedAppArmorLabel=foo\r\n", &f);
        assert_string_equal(f->name, "org.example.Foo");
        assert_string_equal(f->argv[0], "/usr/bin/foo");
        assert_string_equal(f->argv[1], "--x");
        assert_string_equal(f->assumed_apparmor_label, "foo");
}

static void test_errors(void **state) {
        parse_bad("[D-BUS Service]\nExec=/bin/true\n", "t.service: no Name= in [D-BUS Service]");
        parse_bad("[D-BUS Service]\nName=org.a.B\n", "t.service: no Exec= in [D-BUS Service]");
        parse_bad("Name=org.a.B\nExec=/bin/true\n", "t.service: no [D-BUS Service] group");
        parse_bad("[D-BUS Service]\nName=org.a.B\nExec=/bin/true\nName=org.a.C\n",
                  "t.service:4: Name is given twice in [D-BUS Service]");
        parse_bad("[D-BUS Service]\nName=org..B\nExec=/bin/true\n",
                  "t.service: Name=org..B is not a valid well-known bus name");
        parse_bad("[D-BUS Service]\nName=:1.3\nExec=/bin/true\n",
                  "t.service: Name=:1.3 is not a valid well-known bus name");
        parse_bad("[D-BUS Service]\njust words\n", "t.service:2: expected '=' after the key");
        parse_bad("[D-BUS Service]\n=value\n", "t.service:2: expected \"Key=value\", a [Group] or a # comment");
        parse_bad("[D-BUS Service\nName=a.b\n", "t.service:1: malformed group header: [D-BUS Service");
        parse_bad("[D-BUS Service]\nName=a.b\nExec=/x\\q\n", "t.service:3: invalid escape in the value of Exec");
        parse_bad("[D-BUS Service]\nName=a.b\nExec=/bin/sh -c 'echo\n",
                  "t.service: Exec=/bin/sh -c 'echo: unterminated quote");
        parse_bad("[D-BUS Service]\nName=a.b\nExec=   \n", "t.service: Exec=: no command");
        const char bad_utf8[] = "[D-BUS Service]\nName=a.b\nExec=/bin/\xff\n";
        parse_bad(bad_utf8, "t.service: not UTF-8 text (or contains a NUL byte)");
}

static void test_bounds(void **state) {
        size_t n = SERVICE_FILE_MAX_LINE + 40;
        char *text = malloc(n + 64);
        assert_non_null(text);
        strcpy(text, "[D-BUS Service]\nExec=/");
        memset(text + strlen(text), 'a', SERVICE_FILE_MAX_LINE);
        strcpy(text + 22 + SERVICE_FILE_MAX_LINE, "\n");
        parse_bad(text, "t.service:2: line longer than 4096 bytes");
        free(text);
}

static void expect_split(const char *exec, const char *const *words) {
        char **argv = NULL;
        const char *problem = NULL;
        int r = service_exec_split(exec, &argv, &problem);
        if (r != 0)
                fail_msg("%s: %s", exec, problem);
        size_t i = 0;
        for (; words[i]; i++) {
                assert_non_null(argv[i]);
                assert_string_equal(argv[i], words[i]);
        }
        assert_null(argv[i]);
        service_strv_free(argv);
}

static void test_exec_split(void **state) {
        expect_split("/usr/libexec/foo --bus", (const char *const[]){ "/usr/libexec/foo", "--bus", NULL });
        expect_split("  a\t b  ", (const char *const[]){ "a", "b", NULL });
        expect_split("a 'b c' \"d \\\"e\\\" $x\" f\\ g", (const char *const[]){ "a", "b c", "d \"e\" $x", "f g", NULL });
        expect_split("a '' b", (const char *const[]){ "a", "", "b", NULL });
        expect_split("a \"\\n\"", (const char *const[]){ "a", "\\n", NULL });
        expect_split("a b#c # comment", (const char *const[]){ "a", "b#c", NULL });
        expect_split("x'y'\"z\"", (const char *const[]){ "xyz", NULL });
        char **argv = NULL;
        const char *problem = NULL;
        assert_int_equal(service_exec_split("a \\", &argv, &problem), SERVICE_FILE_E_INVALID);
        assert_string_equal(problem, "trailing backslash");
        assert_int_equal(service_exec_split("a \"b", &argv, &problem), SERVICE_FILE_E_INVALID);
        assert_string_equal(problem, "unterminated quote");
        assert_int_equal(service_exec_split("# only a comment", &argv, &problem), SERVICE_FILE_E_INVALID);
        assert_string_equal(problem, "no command");
        char many[SERVICE_FILE_MAX_ARGS * 2 + 4];
        for (size_t i = 0; i < SERVICE_FILE_MAX_ARGS; i++) {
                many[2 * i] = 'a';
                many[2 * i + 1] = ' ';
        }
        many[2 * SERVICE_FILE_MAX_ARGS] = '\0';
        assert_int_equal(service_exec_split(many, &argv, &problem), SERVICE_FILE_E_INVALID);
        assert_string_equal(problem, "too many arguments");
}

static void write_file(const char *dir, const char *name, const char *text) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void test_table(void **state) {
        char high[] = "/tmp/mssf-svc-high-XXXXXX", low[] = "/tmp/mssf-svc-low-XXXXXX";
        assert_non_null(mkdtemp(high));
        assert_non_null(mkdtemp(low));
        write_file(high, "org.a.One.service", "[D-BUS Service]\nName=org.a.One\nExec=/bin/high\n");
        write_file(low, "org.a.One.service", "[D-BUS Service]\nName=org.a.One\nExec=/bin/low\n");
        write_file(low, "org.a.Two.service", "[D-BUS Service]\nName=org.a.Two\nExec=/bin/two\n");
        write_file(low, "misnamed.service", "[D-BUS Service]\nName=org.a.Three\nExec=/bin/three\n");
        write_file(low, "broken.service", "[D-BUS Service]\nName=org.a.Four\n");
        write_file(low, "README", "not a service file\n");
        char *dirs[] = { high, low, (char *)"/nonexistent/mssf" };
        char **warnings = NULL;
        _cleanup_(service_table_freep) ServiceTable *table = NULL;
        assert_int_equal(service_table_load(dirs, 3, SERVICE_TABLE_STRICT_NAMING, &table, &warnings), 0);
        const ServiceFile *one = service_table_lookup(table, "org.a.One");
        assert_non_null(one);
        assert_string_equal(one->exec, "/bin/high");
        assert_non_null(service_table_lookup(table, "org.a.Two"));
        assert_null(service_table_lookup(table, "org.a.Three"));
        assert_null(service_table_lookup(table, "org.a.Four"));
        const char *const *names;
        assert_int_equal(service_table_names(table, &names), 2);
        assert_string_equal(names[0], "org.a.One");
        assert_string_equal(names[1], "org.a.Two");
        /* broken, misnamed (alphabetical order), then the duplicate */
        assert_non_null(warnings);
        assert_non_null(strstr(warnings[0], "broken.service: no Exec= in [D-BUS Service]: skipped"));
        assert_non_null(strstr(warnings[1], "misnamed.service: should be named \"org.a.Three.service\""));
        assert_non_null(strstr(warnings[2], "org.a.One.service: Name=org.a.One is already provided by"));
        assert_null(warnings[3]);
        service_strv_free(warnings);

        /* Without strict naming (the session bus) the misnamed file counts. */
        _cleanup_(service_table_freep) ServiceTable *session = NULL;
        assert_int_equal(service_table_load(dirs, 3, 0, &session, NULL), 0);
        assert_non_null(service_table_lookup(session, "org.a.Three"));
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf %s %s", high, low);
        assert_int_equal(system(cmd), 0);
}

/* Every service file Debian installed here parses, none is skipped. */
static void test_installed(void **state) {
        char *dirs[] = { (char *)"/usr/share/dbus-1/system-services", (char *)"/usr/share/dbus-1/services" };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                char **warnings = NULL;
                _cleanup_(service_table_freep) ServiceTable *table = NULL;
                assert_int_equal(service_table_load(&dirs[i], 1, i == 0 ? SERVICE_TABLE_STRICT_NAMING : 0, &table,
                                                    &warnings),
                                 0);
                if (warnings && warnings[0])
                        fail_msg("%s", warnings[0]);
                service_strv_free(warnings);
                const char *const *names;
                assert_true(service_table_names(table, &names) > 0);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid),
                cmocka_unit_test(test_lenient_parts),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_exec_split),
                cmocka_unit_test(test_table),
                cmocka_unit_test(test_installed),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
