/*
 * Mediation with the real kernel, run inside user-mode-linux by
 * test-mediation-uml.sh (as root, so it can load rules). A policy built in
 * code requires token UmlCellular for org.mssf.UmlCellular's Dial and
 * CallStarted; rules written to smackfs by another process (as
 * mssf-policy does) change the verdicts at the next refresh, without a
 * flush or a policy reload. Prints one line per check; exit 0 when all pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "db-read.h"
#include "mediation.h"
#include "message.h"
#include "smack-oracle.h"

static int failures;

static void check(const char *what, const char *expected, const MediationVerdict *verdict) {
        const char *actual = verdict->reason == MEDIATION_REASON_NONE ? "allowed" : verdict->text;

        if (strcmp(expected, actual) == 0)
                printf("ok - %s\n", what);
        else {
                printf("not ok - %s:\n  expected %s\n  got      %s\n", what, expected, actual);
                failures++;
        }
}

static void load(const char *file, const char *rule) {
        char command[600];

        snprintf(command, sizeof(command), "printf '%%s' '%s' > /sys/fs/smackfs/%s", rule, file);
        if (system(command) != 0) {
                printf("not ok - writing '%s' to %s\n", rule, file);
                failures++;
        }
}

static PolicyDb *build_policy(void) {
        PolicyBuilder *builder = NULL;
        PolicyDb *db = NULL;
        uint8_t *data = NULL;
        uint32_t name;
        size_t size;

        if (policy_builder_new(&builder) < 0 ||
            policy_builder_add_name(builder, "org.mssf.UmlCellular", &name) != 0 ||
            policy_builder_add_owner(builder, name, "UmlService") != 0 ||
            policy_builder_set_own_token(builder, name, "UmlOwnToken") != 0 ||
            policy_builder_add_rule(builder, name, POLICY_KIND_METHOD, "/", "org.mssf.UmlCellular", "Dial",
                                    "UmlCellular") != 0 ||
            policy_builder_add_rule(builder, name, POLICY_KIND_SIGNAL, "/", "org.mssf.UmlCellular",
                                    "CallStarted", "UmlCellular") != 0 ||
            policy_builder_build(builder, &data, &size) != 0 ||
            policy_db_open_buffer(data, size, &db) != 0)
                abort();
        policy_builder_free(builder);
        free(data);
        return db;
}

static Message *message(uint8_t type, const char *destination, const char *member) {
        MessageBuilder *builder = NULL;
        Message *m = NULL;

        if (message_builder_new(type, &builder) < 0 || message_builder_set_path(builder, "/") < 0 ||
            message_builder_set_interface(builder, "org.mssf.UmlCellular") < 0 ||
            message_builder_set_member(builder, member) < 0 ||
            (destination && message_builder_set_destination(builder, destination) < 0) ||
            message_builder_finish(builder, &m) != 0)
                abort();
        message_builder_free(builder);
        return m;
}

int main(void) {
        static const char *const service_names[] = { "org.mssf.UmlCellular" };
        PolicyDb *db = build_policy();
        SmackOracle *oracle = NULL;
        MediationPeer caller = { .unique_name = ":1.1" };
        MediationPeer service = { .unique_name = ":1.2", .names = service_names, .n_names = 1 };
        MediationVerdict verdict;
        Message *dial, *signal;

        if (smack_oracle_new(NULL, &oracle) < 0 || !smack_oracle_has_smack(oracle))
                return 1;
        if (smack_label_intern("UmlCaller", &caller.label) != 0 ||
            smack_label_intern("UmlService", &service.label) != 0)
                return 1;
        dial = message(MESSAGE_METHOD_CALL, "org.mssf.UmlCellular", "Dial");
        signal = message(MESSAGE_SIGNAL, NULL, "CallStarted");

        mediation_check_message(&caller, &service, dial, false, db, oracle, &verdict);
        check("no Smack rule: denied by Smack",
              "Rejected: label \"UmlCaller\" lacks Smack access \"UmlCaller UmlService w\" to send method "
              "org.mssf.UmlCellular.Dial to org.mssf.UmlCellular", &verdict);

        load("load2", "UmlCaller UmlService w");
        load("load2", "UmlService UmlCaller w");
        smack_oracle_refresh(oracle);
        mediation_check_message(&caller, &service, dial, false, db, oracle, &verdict);
        check("Smack allows, the token is missing",
              "Rejected: label \"UmlCaller\" lacks token \"UmlCellular\" required by org.mssf.UmlCellular "
              "for method org.mssf.UmlCellular.Dial", &verdict);

        load("load2", "UmlCaller UmlCellular w");
        smack_oracle_refresh(oracle);
        mediation_check_message(&caller, &service, dial, false, db, oracle, &verdict);
        check("the token granted by a rule: allowed", "allowed", &verdict);
        mediation_check_message(&service, &caller, signal, false, db, oracle, &verdict);
        check("the protected signal reaches a holder", "allowed", &verdict);

        load("load2", "UmlCaller UmlCellular -");
        smack_oracle_refresh(oracle);
        mediation_check_message(&service, &caller, signal, false, db, oracle, &verdict);
        check("token revoked: the signal is held back",
              "Rejected: label \"UmlCaller\" lacks token \"UmlCellular\" required by org.mssf.UmlCellular "
              "to receive signal org.mssf.UmlCellular.CallStarted", &verdict);

        load("revoke-subject", "UmlCaller");
        smack_oracle_refresh(oracle);
        mediation_check_message(&caller, &service, dial, false, db, oracle, &verdict);
        check("revoke-subject: Smack denies again",
              "Rejected: label \"UmlCaller\" lacks Smack access \"UmlCaller UmlService w\" to send method "
              "org.mssf.UmlCellular.Dial to org.mssf.UmlCellular", &verdict);

        mediation_check_own(&service, "org.mssf.UmlCellular", db, oracle, &verdict);
        check("the declared owner may own the name", "allowed", &verdict);
        mediation_check_own(&caller, "org.mssf.UmlCellular", db, oracle, &verdict);
        check("another label may not",
              "Rejected: label \"UmlCaller\" may not own org.mssf.UmlCellular: its manifest reserves it for "
              "other labels and holders of token \"UmlOwnToken\"", &verdict);
        load("load2", "UmlCaller UmlOwnToken w");
        smack_oracle_refresh(oracle);
        mediation_check_own(&caller, "org.mssf.UmlCellular", db, oracle, &verdict);
        check("a holder of the own token may", "allowed", &verdict);

        message_unref(dial);
        message_unref(signal);
        smack_oracle_free(oracle);
        policy_db_free(db);
        printf("%d failure(s)\n", failures);
        return failures == 0 ? 0 : 1;
}
