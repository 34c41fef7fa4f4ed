/*
 * Fuzzer for the match-rule parser (untrusted AddMatch/RemoveMatch text).
 * Every input is parsed; a rule that parses must equal itself, be added to
 * and removed from a registry, and be tested against a few messages, so
 * the index and the matcher see every shape of rule the parser accepts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "match-internal.h"
#include "message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_call(void *userdata, MatchOwner *owner, bool eavesdrop) {
        (*(unsigned *)userdata)++;
        return 0;
}

static void exercise(const char *text, size_t n, MatchRule *rule) {
        MatchRegistry *registry = NULL;
        MatchOwner owner;
        MessageArg args[3] = {
                { "org.example.Name", 's' },
                { "/org/example/", 'o' },
                { NULL, 'u' },
        };
        MatchMessage msgs[2] = {
                {
                        .type = MESSAGE_SIGNAL, .sender = ":1.1", .path = "/org/example",
                        .interface = "org.example.Iface", .member = "Changed", .args = args, .n_args = 3,
                },
                {
                        .type = MESSAGE_METHOD_CALL, .sender = ":1.2", .destination = ":1.3",
                        .path = "/", .member = "Get", .args = args, .n_args = 1,
                },
        };

        if (!match_rule_equal(rule, rule))
                abort();
        if (match_registry_new(&registry) < 0)
                return;
        match_owner_init(&owner, registry, NULL);
        if (match_owner_add(&owner, text, n, 4) == 0) {
                /* The index must agree with testing the rule directly. */
                for (size_t i = 0; i < 2; i++) {
                        unsigned calls = 0;
                        if (match_registry_dispatch(registry, &msgs[i], count_call, &calls) != 0)
                                abort();
                        if (calls != (match_rule_matches(rule, &msgs[i]) ? 1u : 0u))
                                abort();
                }
                if (match_owner_remove(&owner, text, n) != 0)
                        abort();
        }
        match_owner_deinit(&owner);
        match_registry_free(registry);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        MatchRule *rule = NULL;
        const char *text = (const char *)data;

        if (match_rule_parse(text, size, &rule) != 0)
                return 0;
        exercise(text, size, rule);
        match_rule_free(rule);
        return 0;
}
