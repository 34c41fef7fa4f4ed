/*
 * test-address: D-Bus server address parsing, escaping, the socket each
 * unix entry binds, and the connectable address printed for it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "address.h"

static BusAddressList *parse_ok(const char *text) {
        BusAddressList *list = NULL;
        AddressError err = {};
        int r = bus_address_parse(text, &list, &err);

        if (r != 0)
                fail_msg("%s: r=%d: %s", text, r, err.message);
        return list;
}

static void test_unix_kinds(void **state) {
        static const struct {
                const char *text;
                BusAddressKind kind;
                const char *path;
        } cases[] = {
                { "unix:path=/run/dbus/system_bus_socket", BUS_ADDRESS_UNIX_PATH, "/run/dbus/system_bus_socket" },
                { "unix:dir=/tmp", BUS_ADDRESS_UNIX_DIR, "/tmp" },
                { "unix:tmpdir=/tmp", BUS_ADDRESS_UNIX_TMPDIR, "/tmp" },
                { "unix:abstract=/tmp/dbus-x", BUS_ADDRESS_UNIX_ABSTRACT, "/tmp/dbus-x" },
                { "unix:runtime=yes", BUS_ADDRESS_UNIX_RUNTIME, NULL },
                { "systemd:", BUS_ADDRESS_SYSTEMD, NULL },
                { "unix:path=/a%20b%2cc%3bd%25", BUS_ADDRESS_UNIX_PATH, "/a b,c;d%" },
                { "unix:path=/x,mode=ignored", BUS_ADDRESS_UNIX_PATH, "/x" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(bus_address_list_freep) BusAddressList *list = parse_ok(cases[i].text);

                assert_int_equal(list->n_entries, 1);
                assert_int_equal(list->entries[0].kind, cases[i].kind);
                if (cases[i].path)
                        assert_string_equal(list->entries[0].path, cases[i].path);
                else
                        assert_null(list->entries[0].path);
                assert_null(list->entries[0].guid);
        }
        assert_string_equal(bus_address_kind_to_string(BUS_ADDRESS_UNIX_TMPDIR), "tmpdir");
        assert_string_equal(bus_address_kind_to_string(BUS_ADDRESS_SYSTEMD), "systemd");
}

static void test_list_and_guid(void **state) {
        _cleanup_(bus_address_list_freep) BusAddressList *list =
                parse_ok("unix:path=/a,guid=0123456789ABCDEF0123456789abcdef;;systemd:;");

        assert_int_equal(list->n_entries, 2);
        assert_int_equal(list->entries[0].kind, BUS_ADDRESS_UNIX_PATH);
        assert_string_equal(list->entries[0].guid, "0123456789ABCDEF0123456789abcdef");
        assert_int_equal(list->entries[1].kind, BUS_ADDRESS_SYSTEMD);
}

static void test_invalid(void **state) {
        static const struct {
                const char *text;
                int code;
                const char *message;
        } cases[] = {
                { "", ADDRESS_E_INVALID, "Empty address ''" },
                { ";;", ADDRESS_E_INVALID, "Empty address ';;'" },
                { "unix", ADDRESS_E_INVALID, "Address 'unix' does not start with a transport name and ':'" },
                { ":path=/x", ADDRESS_E_INVALID, "Address ':path=/x' does not start with a transport name and ':'" },
                { "unix:", ADDRESS_E_INVALID, "Must specify \"path\", \"dir\", \"tmpdir\", \"abstract\" or \"runtime\" in a unix: address" },
                { "unix:path", ADDRESS_E_INVALID, "Address element 'path' is not of the form key=value" },
                { "unix:path=", ADDRESS_E_INVALID, "Empty value for \"path\" in address" },
                { "unix:path=/a,abstract=b", ADDRESS_E_INVALID, "Cannot specify two of \"path\", \"dir\", \"tmpdir\", \"abstract\" and \"runtime\" at the same time" },
                { "unix:runtime=no", ADDRESS_E_INVALID, "If given, runtime must be \"yes\", not \"no\"" },
                { "unix:path=/a b", ADDRESS_E_INVALID, "Character ' ' should have been escaped in D-Bus address" },
                { "unix:path=/a%2", ADDRESS_E_INVALID, "In D-Bus address, percent character was not followed by two hex digits" },
                { "unix:path=/a%zz", ADDRESS_E_INVALID, "In D-Bus address, percent character was not followed by two hex digits" },
                { "unix:path=/a%00", ADDRESS_E_INVALID, "In D-Bus address, a value contains a NUL byte" },
                { "unix:path=/a,guid=123", ADDRESS_E_INVALID, "Bad or repeated guid in address: '123'" },
                { "frob:x=y", ADDRESS_E_INVALID, "Unknown address type 'frob' (valid types here are \"unix\" and \"systemd\")" },
                { "tcp:host=localhost,port=0", ADDRESS_E_UNSUPPORTED, "The tcp: transport is not supported by this bus; use unix: or systemd:" },
                { "nonce-tcp:", ADDRESS_E_UNSUPPORTED, "The nonce-tcp: transport is not supported by this bus; use unix: or systemd:" },
                { "unix:path=/ok;launchd:env=X", ADDRESS_E_UNSUPPORTED, "The launchd: transport is not supported by this bus; use unix: or systemd:" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                BusAddressList *list = NULL;
                AddressError err = {};
                int r = bus_address_parse(cases[i].text, &list, &err);

                if (r != cases[i].code || strcmp(err.message, cases[i].message) != 0)
                        fail_msg("'%s': r=%d '%s', want %d '%s'", cases[i].text, r, err.message, cases[i].code,
                                 cases[i].message);
                assert_null(list);
        }
}

static void test_escape_and_format(void **state) {
        static const char guid[] = "0123456789abcdef0123456789abcdef";
        char *s = NULL;

        assert_int_equal(bus_address_escape("/a b,c=d;e%f\xc3\xa9-_.*\\", &s), 0);
        assert_string_equal(s, "/a%20b%2cc%3dd%3be%25f%c3%a9-_.*\\");
        free(s);

        assert_int_equal(bus_address_format_unix("/run/dbus/system_bus_socket", false, guid, &s), 0);
        assert_string_equal(s, "unix:path=/run/dbus/system_bus_socket,guid=0123456789abcdef0123456789abcdef");
        free(s);
        assert_int_equal(bus_address_format_unix("/tmp/dbus-a b", true, guid, &s), 0);
        assert_string_equal(s, "unix:abstract=/tmp/dbus-a%20b,guid=0123456789abcdef0123456789abcdef");
        free(s);
        assert_int_equal(bus_address_format_unix("/x", false, "nothex", &s), -EINVAL);
}

static void test_socket_path(void **state) {
        _cleanup_(bus_address_list_freep) BusAddressList *list =
                parse_ok("unix:path=/p;unix:abstract=abs;unix:dir=/d;unix:tmpdir=/t;unix:runtime=yes;systemd:");
        char *path = NULL, *again = NULL;
        bool abstract = true;

        assert_int_equal(bus_address_socket_path(&list->entries[0], &path, &abstract), 0);
        assert_string_equal(path, "/p");
        assert_false(abstract);
        free(path);
        assert_int_equal(bus_address_socket_path(&list->entries[1], &path, &abstract), 0);
        assert_string_equal(path, "abs");
        assert_true(abstract);
        free(path);

        /* dir= and tmpdir= get a fresh "dbus-" and ten alphanumerics each time */
        for (size_t i = 2; i <= 3; i++) {
                assert_int_equal(bus_address_socket_path(&list->entries[i], &path, &abstract), 0);
                assert_int_equal(bus_address_socket_path(&list->entries[i], &again, &abstract), 0);
                assert_false(abstract);
                assert_int_equal(strlen(path), 3 + 5 + 10);
                assert_memory_equal(path, i == 2 ? "/d/dbus-" : "/t/dbus-", 8);
                assert_int_equal(strspn(path + 8, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), 10);
                assert_string_not_equal(path, again);
                free(path);
                free(again);
        }

        setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
        assert_int_equal(bus_address_socket_path(&list->entries[4], &path, &abstract), 0);
        assert_string_equal(path, "/run/user/1000/bus");
        free(path);
        unsetenv("XDG_RUNTIME_DIR");
        assert_int_equal(bus_address_socket_path(&list->entries[4], &path, &abstract), -ENXIO);
        assert_int_equal(bus_address_socket_path(&list->entries[5], &path, &abstract), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_unix_kinds),
                cmocka_unit_test(test_list_and_guid),
                cmocka_unit_test(test_invalid),
                cmocka_unit_test(test_escape_and_format),
                cmocka_unit_test(test_socket_path),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
