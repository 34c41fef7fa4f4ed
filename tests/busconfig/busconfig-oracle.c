/*
 * busconfig-oracle CONFIG: answers policy questions about CONFIG with the
 * busconfig module, one per line on stdin, "allow" or "deny" per line on
 * stdout, so a differential test can compare them with what dbus-daemon
 * does with the same configuration. Fields are separated by spaces; "-"
 * stands for an absent value; NAMES is a comma-separated list whose first
 * entry is the peer's unique name ("driver" for the bus driver).
 *
 *   connect UID
 *   own UID NAME
 *   send UID NAMES TYPE IS_REPLY REQUESTED PATH IFACE MEMBER ERROR DEST
 *   recv UID NAMES TYPE IS_REPLY REQUESTED EAVESDROP PATH IFACE MEMBER ERROR DEST SENDER
 *
 * UID's groups come from NSS (getgrouplist), as a real client's would.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busconfig-policy.h"
#include "config.h"

#define MAX_FIELDS 16
#define MAX_NAMES 16

static const char *field(char **f, size_t n, size_t i) {
        return i < n && strcmp(f[i], "-") ? f[i] : NULL;
}

static int identity_for(const char *uid_text, gid_t *gids, BusconfigIdentity *ret) {
        uid_t uid = (uid_t)strtoul(uid_text, NULL, 10);
        struct passwd *pw = getpwuid(uid);
        int n = 64;
        if (!pw || getgrouplist(pw->pw_name, pw->pw_gid, gids, &n) < 0)
                return -1;
        *ret = (BusconfigIdentity){ uid, gids, (size_t)n, false };
        return 0;
}

static size_t split_names(char *list, const char **names, bool *driver, const char **unique) {
        size_t n = 0;
        *driver = !strcmp(list, "driver");
        *unique = strtok(list, ",");
        for (char *t = strtok(NULL, ","); t && n < MAX_NAMES; t = strtok(NULL, ","))
                names[n++] = t;
        return n;
}

static bool answer(BusconfigPolicy *policy, char **f, size_t n) {
        gid_t gids[64];
        BusconfigIdentity id;
        BusconfigVerdict v = { 0 };
        if (n < 2 || identity_for(f[1], gids, &id) < 0)
                return false;
        if (!strcmp(f[0], "connect")) {
                busconfig_policy_check_connect(policy, &id, &v);
                return v.allow;
        }
        _cleanup_(busconfig_client_unrefp) BusconfigClient *client = NULL;
        if (busconfig_policy_get_client(policy, &id, &client) < 0)
                return false;
        if (!strcmp(f[0], "own") && n >= 3) {
                busconfig_client_check_own(client, f[2], &v);
                return v.allow;
        }
        bool recv = !strcmp(f[0], "recv");
        if (n < (recv ? 13u : 11u))
                return false;
        const char *names[MAX_NAMES], *unique;
        bool driver;
        size_t n_names = split_names(f[2], names, &driver, &unique);
        BusconfigPeer peer = { unique, names, n_names };
        size_t o = recv ? 1 : 0; /* recv has EAVESDROP before PATH */
        BusconfigMessage m = {
                .type = (uint8_t)atoi(f[3]), .is_reply = atoi(f[4]) != 0,
                .path = field(f, n, 6 + o), .interface = field(f, n, 7 + o), .member = field(f, n, 8 + o),
                .error_name = field(f, n, 9 + o), .destination = field(f, n, 10 + o),
                .sender = recv ? field(f, n, 12) : NULL,
        };
        bool requested = atoi(f[5]) != 0;
        if (recv)
                busconfig_client_check_receive(client, &m, driver ? NULL : &peer, atoi(f[6]) != 0, requested, &v);
        else
                busconfig_client_check_send(client, &m, driver ? NULL : &peer, requested, &v);
        return v.allow;
}

int main(int argc, char **argv) {
        if (argc != 2) {
                fprintf(stderr, "usage: busconfig-oracle CONFIG\n");
                return 2;
        }
        ConfigError err = { { 0 } };
        _cleanup_(bus_config_freep) BusConfig *config = NULL;
        if (bus_config_load(argv[1], &config, &err) != 0) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
        }
        _cleanup_(busconfig_policy_unrefp) BusconfigPolicy *policy = NULL;
        if (busconfig_policy_new(config, 0, &policy, NULL) < 0)
                return 1;
        char line[4096];
        while (fgets(line, sizeof(line), stdin)) {
                char *f[MAX_FIELDS];
                size_t n = 0;
                for (char *t = strtok(line, " \n"); t && n < MAX_FIELDS; t = strtok(NULL, " \n"))
                        f[n++] = t;
                if (n == 0)
                        continue;
                puts(answer(policy, f, n) ? "allow" : "deny");
                fflush(stdout);
        }
        return 0;
}
