/*
 * Pending activations: waiters queue in order and are handed over once,
 * limits hold, departed peers are forgotten, deadlines expire; and the
 * direct spawn of Exec= with its environment, closed descriptors and
 * exec failures reported at once.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "activation-spawn.h"
#include "activation.h"
#include "message.h"
#include "service-file.h"

static char dir[] = "/tmp/mssf-act-XXXXXX";

static void write_service(const char *name, const char *exec, const char *extra) {
        char path[256];
        snprintf(path, sizeof(path), "%s/%s.service", dir, name);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "[D-BUS Service]\nName=%s\nExec=%s\n%s", name, exec, extra ? extra : "");
        fclose(f);
}

static int setup(void **state) {
        if (!mkdtemp(dir))
                return -1;
        write_service("org.a.One", "/bin/true", "SystemdService=one.service\n");
        write_service("org.a.Two", "/bin/true", NULL);
        return 0;
}

static int teardown(void **state) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        return system(cmd);
}

static Activation *new_activation(size_t max_pending) {
        Activation *a = NULL;
        ServiceTable *table = NULL;
        char *dirs[] = { dir };
        assert_int_equal(activation_new(max_pending, 1000, &a), 0);
        assert_int_equal(service_table_load(dirs, 1, 0, &table, NULL), 0);
        activation_set_services(a, table);
        return a;
}

static Message *new_call(const char *member) {
        Message *m = NULL;
        MessageBuilder *b = NULL;
        assert_int_equal(message_new_signal(":1.5", "/a", "org.a.I", member, &b), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        message_builder_free(b);
        return m;
}

static void test_queue_in_order(void **state) {
        _cleanup_(activation_freep) Activation *a = new_activation(8);
        int peer1, peer2;
        _cleanup_(message_unrefp) Message *m1 = new_call("First");
        _cleanup_(message_unrefp) Message *m2 = new_call("Second");
        bool new_start = false;
        const ServiceFile *file = NULL;
        ActivationQueued w1 = { &peer1, m1, 0 }, w2 = { &peer2, m2, 0 }, w3 = { &peer1, NULL, 77 };
        assert_int_equal(activation_enqueue(a, "org.a.One", &w1, 100, &new_start, &file), 0);
        assert_true(new_start);
        assert_string_equal(file->name, "org.a.One");
        assert_int_equal(activation_enqueue(a, "org.a.One", &w2, 200, &new_start, &file), 0);
        assert_false(new_start);
        assert_int_equal(activation_enqueue(a, "org.a.One", &w3, 300, &new_start, NULL), 0);
        assert_true(activation_is_pending(a, "org.a.One"));
        assert_string_equal(activation_name_for_unit(a, "one.service"), "org.a.One");
        assert_null(activation_name_for_unit(a, "two.service"));
        activation_set_pid(a, "org.a.One", 4242);
        assert_string_equal(activation_name_for_pid(a, 4242), "org.a.One");
        assert_null(activation_name_for_pid(a, 4243));

        ActivationQueued *waiters = NULL;
        assert_int_equal(activation_take(a, "org.a.One", &waiters), 3);
        assert_ptr_equal(waiters[0].message, m1);
        assert_ptr_equal(waiters[1].message, m2);
        assert_null(waiters[2].message);
        assert_int_equal(waiters[2].start_serial, 77);
        activation_queued_free(waiters, 3);
        /* handed over once: nothing is left to take */
        assert_false(activation_is_pending(a, "org.a.One"));
        assert_int_equal(activation_take(a, "org.a.One", &waiters), 0);
        assert_null(waiters);
}

static void test_unknown_and_limits(void **state) {
        _cleanup_(activation_freep) Activation *a = new_activation(1);
        int peer;
        ActivationQueued w = { &peer, NULL, 1 };
        bool new_start;
        assert_int_equal(activation_enqueue(a, "org.a.Nobody", &w, 0, &new_start, NULL), ACTIVATION_E_UNKNOWN);
        assert_int_equal(activation_enqueue(a, "org.a.One", &w, 0, &new_start, NULL), 0);
        assert_int_equal(activation_enqueue(a, "org.a.Two", &w, 0, &new_start, NULL), ACTIVATION_E_LIMIT);
        assert_false(activation_is_pending(a, "org.a.Two"));
        for (unsigned i = 1; i < ACTIVATION_MAX_QUEUED; i++)
                assert_int_equal(activation_enqueue(a, "org.a.One", &w, 0, &new_start, NULL), 0);
        assert_int_equal(activation_enqueue(a, "org.a.One", &w, 0, &new_start, NULL), ACTIVATION_E_QUEUE_FULL);
}

static void test_forget_peer(void **state) {
        _cleanup_(activation_freep) Activation *a = new_activation(8);
        int gone, stays;
        _cleanup_(message_unrefp) Message *m = new_call("Kept");
        _cleanup_(message_unrefp) Message *dropped = new_call("Dropped");
        ActivationQueued w1 = { &gone, dropped, 0 }, w2 = { &stays, m, 0 };
        bool new_start;
        assert_int_equal(activation_enqueue(a, "org.a.Two", &w1, 0, &new_start, NULL), 0);
        assert_int_equal(activation_enqueue(a, "org.a.Two", &w2, 0, &new_start, NULL), 0);
        activation_forget_peer(a, &gone);
        ActivationQueued *waiters = NULL;
        assert_int_equal(activation_take(a, "org.a.Two", &waiters), 1);
        assert_ptr_equal(waiters[0].peer, &stays);
        assert_ptr_equal(waiters[0].message, m);
        activation_queued_free(waiters, 1);
}

static void test_deadlines(void **state) {
        _cleanup_(activation_freep) Activation *a = new_activation(8);
        int peer;
        ActivationQueued w = { &peer, NULL, 1 };
        bool new_start;
        assert_int_equal(activation_next_deadline(a), UINT64_MAX);
        assert_int_equal(activation_enqueue(a, "org.a.One", &w, 5000, &new_start, NULL), 0);
        assert_int_equal(activation_enqueue(a, "org.a.Two", &w, 7000, &new_start, NULL), 0);
        assert_int_equal(activation_next_deadline(a), 6000);
        assert_null(activation_first_expired(a, 5999));
        assert_string_equal(activation_first_expired(a, 6000), "org.a.One");
        /* joining a pending start does not move its deadline */
        assert_int_equal(activation_enqueue(a, "org.a.One", &w, 5900, &new_start, NULL), 0);
        assert_int_equal(activation_next_deadline(a), 6000);
}

static void test_environment(void **state) {
        _cleanup_(activation_freep) Activation *a = new_activation(8);
        assert_null(activation_get_env(a)[0]);
        assert_int_equal(activation_set_env(a, "FOO", "1"), 0);
        assert_int_equal(activation_set_env(a, "BAR", "x=y"), 0);
        assert_int_equal(activation_set_env(a, "FOO", "2"), 0);
        char *const *env = activation_get_env(a);
        assert_string_equal(env[0], "FOO=2");
        assert_string_equal(env[1], "BAR=x=y");
        assert_null(env[2]);
        assert_int_equal(activation_set_env(a, "", "1"), ACTIVATION_E_INVALID);
        assert_int_equal(activation_set_env(a, "A=B", "1"), ACTIVATION_E_INVALID);
}

static ServiceFile *file_for(const char *exec, const char *user) {
        char text[512];
        snprintf(text, sizeof(text), "[D-BUS Service]\nName=org.a.Spawned\nExec=%s\n%s%s\n", exec,
                 user ? "User=" : "", user ? user : "");
        ServiceFile *f = NULL;
        assert_int_equal(service_file_parse("s.service", text, strlen(text), &f, NULL), 0);
        return f;
}

static void test_spawn(void **state) {
        char out[256], script[1024];
        snprintf(out, sizeof(out), "%s/out", dir);
        int leaked = open("/dev/null", O_RDONLY); /* not close-on-exec on purpose */
        assert_true(leaked > 2);
        /* argv[2] is replaced: the script needs quoting a service file would make unreadable */
        _cleanup_(service_file_freep) ServiceFile *f = file_for("/bin/sh -c script", NULL);
        snprintf(script, sizeof(script),
                 "echo \"$DBUS_STARTER_ADDRESS $DBUS_STARTER_BUS_TYPE $DBUS_SYSTEM_BUS_ADDRESS $FOO\" > %s; "
                 "if test -e /proc/$$/fd/%d; then echo leaked; else echo closed; fi >> %s",
                 out, leaked, out);
        free(f->argv[2]);
        f->argv[2] = strdup(script);
        assert_non_null(f->argv[2]);
        char *env[] = { (char *)"FOO=bar", NULL };
        ActivationSpawn spawn = { "unix:path=/x", "system", env, false };
        pid_t pid = 0;
        char err[256] = "";
        assert_int_equal(activation_spawn(f, &spawn, &pid, err, sizeof(err)), 0);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        close(leaked);
        char line[256];
        FILE *in = fopen(out, "r");
        assert_non_null(in);
        assert_non_null(fgets(line, sizeof(line), in));
        assert_string_equal(line, "unix:path=/x system unix:path=/x bar\n");
        assert_non_null(fgets(line, sizeof(line), in));
        assert_string_equal(line, "closed\n");
        fclose(in);
}

static void test_spawn_failures(void **state) {
        _cleanup_(service_file_freep) ServiceFile *missing = file_for("/nonexistent/mssf-service --x", NULL);
        ActivationSpawn spawn = { "unix:path=/x", "session", NULL, false };
        pid_t pid = 0;
        char err[256] = "";
        assert_int_equal(activation_spawn(missing, &spawn, &pid, err, sizeof(err)), ACTIVATION_SPAWN_E_EXEC);
        assert_string_equal(err, "Failed to execute program /nonexistent/mssf-service: No such file or directory");
        if (getuid() != 0)
                return; /* switching users needs root */
        _cleanup_(service_file_freep) ServiceFile *nouser = file_for("/bin/true", "no-such-user-mssf");
        spawn.switch_user = true;
        assert_int_equal(activation_spawn(nouser, &spawn, &pid, err, sizeof(err)), ACTIVATION_SPAWN_E_USER);
        assert_string_equal(err, "Failed to switch to user \"no-such-user-mssf\" for org.a.Spawned: no such user");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_queue_in_order),
                cmocka_unit_test(test_unknown_and_limits),
                cmocka_unit_test(test_forget_peer),
                cmocka_unit_test(test_deadlines),
                cmocka_unit_test(test_environment),
                cmocka_unit_test(test_spawn),
                cmocka_unit_test(test_spawn_failures),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
