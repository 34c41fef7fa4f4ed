/*
 * Fuzzer for policy_db_open_buffer(): any bytes must be refused cleanly or
 * load into a policy that every lookup and the dump can walk. Inputs are
 * taken as they are and also re-sealed with a correct checksum, so the
 * fuzzer gets past the CRC into the structural validation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "decide.h"
#include "dump.h"
#include "format.h"
#include "macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int deny_all(const char *label, const char *token, void *userdata) {
        return 0;
}

static void exercise(const PolicyDb *db) {
        static const char *const names[] = { "org.ofono", "com.nokia.mce", "com.example.Multi" };
        PolicyMessage m = { .type = POLICY_MESSAGE_METHOD_CALL, .path = "/ril_0",
                            .interface = "org.ofono.Modem", .member = "Dial" };
        PolicyDecision d;
        FILE *f = fopen("/dev/null", "w");

        if (f) {
                policy_db_dump(db, f);
                fclose(f);
        }
        policy_db_decide(db, names, ELEMENTSOF(names), "app", &m, deny_all, NULL, &d);
        m.interface = NULL;
        policy_db_decide(db, names, ELEMENTSOF(names), "app", &m, deny_all, NULL, &d);
        m.type = POLICY_MESSAGE_SIGNAL;
        policy_db_decide(db, names, ELEMENTSOF(names), "app", &m, deny_all, NULL, &d);
        policy_db_may_own(db, "org.ofono", "app", deny_all, NULL, &d);
        policy_db_is_global_token(db, "Cellular");
        policy_db_is_monitor_label(db, "dbus-monitor");
        policy_db_is_checkany_label(db, "mssf-keyd");
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                const char *package = NULL;

                if (policy_db_name_declarer(db, names[i], &package) == 0 && package)
                        policy_db_package_serves_token(db, package, "Cellular");
        }
        policy_db_package_serves_token(db, "ofono", "ofono::OwnName");
}

static void try_open(const uint8_t *data, size_t size) {
        PolicyDb *db = NULL;

        if (policy_db_open_buffer(data, size, &db) == 0) {
                exercise(db);
                policy_db_free(db);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint8_t *copy;
        uint32_t crc;

        try_open(data, size);
        /* Any size that holds the checksum: older headers are shorter than this version's. */
        if (size < POLICY_DB_CHECKSUM_OFFSET + sizeof(crc) || size > POLICY_DB_SIZE_MAX)
                return 0;
        copy = malloc(size);
        if (!copy)
                return 0;
        memcpy(copy, data, size);
        crc = htole32(policy_db_compute_checksum(copy, size));
        memcpy(copy + POLICY_DB_CHECKSUM_OFFSET, &crc, sizeof(crc));
        try_open(copy, size);
        free(copy);
        return 0;
}
