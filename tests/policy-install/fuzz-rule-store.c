/*
 * Fuzz harness for the two parsers mssf-policy reads files with: Smack
 * rule files (smack_rules_parse, the rule store may hold other vendors'
 * files) and its crash journal (journal_parse). Properties checked beyond
 * "no crash, no leak": a parsed rule set formats to text that parses back
 * to the same text, and a journal that parses has its fields (each
 * security.ima entry an absolute path, its value no longer than an xattr).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz-text.h"
#include "fileio.h"
#include "integrity.h"
#include "journal.h"
#include "smack-rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rules_roundtrip(const char *text) {
        _cleanup_(smack_rules_freep) SmackRules *rules = NULL, *again = NULL;
        _cleanup_free_ char *formatted = NULL, *reformatted = NULL;
        unsigned line = 0;

        if (smack_rules_new(&rules) < 0 || smack_rules_new(&again) < 0)
                abort();
        if (smack_rules_parse(rules, text, false, &line) != 0)
                return;
        if (smack_rules_format(rules, "round trip", &formatted) < 0)
                abort();
        if (smack_rules_parse(again, formatted, true, &line) != 0)
                abort();
        if (smack_rules_format(again, "round trip", &reformatted) < 0)
                abort();
        if (strcmp(formatted, reformatted) != 0)
                abort();
}

static void check_journal(const char *text, size_t size) {
        _cleanup_(journal_freep) Journal *journal = NULL;

        if (journal_parse(text, size, &journal, NULL) != 0)
                return;
        if (!journal->package || (journal->manifest_data && strlen(journal->package) == 0))
                abort();
        if (!journal->has_ima && journal->n_ima != 0)
                abort();
        for (size_t i = 0; i < journal->n_ima; i++)
                if (!journal->ima[i].file || journal->ima[i].file[0] != '/' ||
                    journal->ima[i].value_size > FILEIO_XATTR_MAX)
                        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size);

        if (!text)
                return 0;
        check_rules_roundtrip(text);
        check_journal(text, size);
        free(text);
        return 0;
}
