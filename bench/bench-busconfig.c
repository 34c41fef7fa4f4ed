/*
 * Cost of one busconfig decision: the full Debian 12 system bus policy
 * (/usr/share/dbus-1/system.conf and every system.d file) against a policy
 * with no rules. Prints nanoseconds per send check for a call to
 * NetworkManager (many rules name it) and to a peer no rule names, and per
 * receive and own check.
 *
 *   taskset -c 0 build/bench/bench-busconfig [CONFIG]
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "busconfig-policy.h"
#include "config.h"

#define ROUNDS 2000000u

static double now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile int sink;

static double time_send(const BusconfigClient *client, const BusconfigMessage *m, const BusconfigPeer *peer) {
        BusconfigVerdict v;
        double t0 = now_ns();
        for (unsigned i = 0; i < ROUNDS; i++) {
                busconfig_client_check_send(client, m, peer, false, &v);
                sink += v.allow;
        }
        return (now_ns() - t0) / ROUNDS;
}

static double time_receive(const BusconfigClient *client, const BusconfigMessage *m, const BusconfigPeer *peer) {
        BusconfigVerdict v;
        double t0 = now_ns();
        for (unsigned i = 0; i < ROUNDS; i++) {
                busconfig_client_check_receive(client, m, peer, false, false, &v);
                sink += v.allow;
        }
        return (now_ns() - t0) / ROUNDS;
}

static double time_own(const BusconfigClient *client, const char *name) {
        BusconfigVerdict v;
        double t0 = now_ns();
        for (unsigned i = 0; i < ROUNDS; i++) {
                busconfig_client_check_own(client, name, &v);
                sink += v.allow;
        }
        return (now_ns() - t0) / ROUNDS;
}

static int run(const char *label, BusConfig *config) {
        _cleanup_(busconfig_policy_unrefp) BusconfigPolicy *policy = NULL;
        _cleanup_(busconfig_client_unrefp) BusconfigClient *client = NULL;
        BusconfigIdentity id = { 1000, NULL, 0, false };
        size_t n_rules = 0;
        for (size_t i = 0; i < config->n_policies; i++)
                n_rules += config->policies[i].n_rules;
        if (busconfig_policy_new(config, 100, &policy, NULL) < 0 ||
            busconfig_policy_get_client(policy, &id, &client) < 0)
                return 1;
        const char *nm[] = { "org.freedesktop.NetworkManager" };
        BusconfigPeer to_nm = { ":1.7", nm, 1 }, to_other = { ":1.8", NULL, 0 };
        BusconfigMessage call = { .type = 1, .path = "/org/freedesktop/NetworkManager",
                                  .interface = "org.freedesktop.NetworkManager", .member = "GetDevices",
                                  .destination = "org.freedesktop.NetworkManager", .sender = ":1.1" };
        BusconfigMessage other = call;
        other.destination = ":1.8";
        printf("%-22s %5zu rules: send to NM %6.1f ns, send to other %6.1f ns, receive %6.1f ns, own %6.1f ns\n",
               label, n_rules, time_send(client, &call, &to_nm), time_send(client, &other, &to_other),
               time_receive(client, &call, &to_nm), time_own(client, "org.freedesktop.NetworkManager"));
        return 0;
}

int main(int argc, char **argv) {
        const char *path = argc > 1 ? argv[1] : "/usr/share/dbus-1/system.conf";
        ConfigError err = { { 0 } };
        _cleanup_(bus_config_freep) BusConfig *full = NULL, *empty = NULL;
        if (bus_config_load(path, &full, &err) != 0) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
        }
        const char *none = "<busconfig><policy context=\"default\"/></busconfig>";
        if (bus_config_load_string("empty.conf", none, strlen(none), 0, &empty, &err) != 0)
                return 1;
        return run("no rules", empty) || run(path, full);
}
