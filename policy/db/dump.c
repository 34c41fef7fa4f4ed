/*
 * `mssf-policy dump`: the loaded policy as text. It walks the validated
 * tables in file order (db-read.c guarantees the order and every
 * reference), so the output is deterministic. Token labels are quoted:
 * a Smack label cannot contain '"', so the quoting is unambiguous.
 */
#include "dump.h"

#include <errno.h>

#include "db-internal.h"

/* A reference db-read.c checked as never NONE (a name, a package). */
static const char *dump_string(const PolicyDb *db, uint32_t ref) {
        return db->strings + db_le(ref);
}

static void dump_labels(const PolicyDb *db, FILE *f, DbRange range) {
        uint32_t count = db_le(range.count);

        if (count == 0) {
                fputs(" open", f);
                return;
        }
        for (uint32_t i = 0; i < count; i++)
                fprintf(f, " \"%s\"", db_ref_string(db, range, i));
}

static void dump_rule(const PolicyDb *db, FILE *f, const DbRule *rule) {
        const char *interface = db_string(db, rule->interface);
        const char *member = db_string(db, rule->member);

        fprintf(f, "  %s %s %s %s ->", policy_kind_to_string((PolicyKind) db_le(rule->kind)),
                db_string(db, rule->path), interface ? interface : "*", member ? member : "*");
        dump_labels(db, f, rule->tokens);
        fputc('\n', f);
}

static void dump_name(const PolicyDb *db, FILE *f, uint32_t index) {
        const DbName *name = &db->names[index];
        const char *own_token = db_string(db, name->own_token);
        uint32_t first = db_le(name->rules_first);
        uint32_t declarer = db->declarers ? db_le(db->declarers[index]) : POLICY_DB_NONE;

        fprintf(f, "name %s\n", dump_string(db, name->name));
        if (declarer != POLICY_DB_NONE)
                fprintf(f, "  declared-by \"%s\"\n", dump_string(db, db->packages[declarer].name));
        for (uint32_t i = 0; i < db_le(name->owners.count); i++)
                fprintf(f, "  owner \"%s\"\n", db_ref_string(db, name->owners, i));
        if (own_token)
                fprintf(f, "  own-token \"%s\"\n", own_token);
        for (uint32_t i = first; i < first + db_le(name->rules_count); i++)
                dump_rule(db, f, &db->rules[i]);
}

int policy_db_dump(const PolicyDb *db, FILE *f) {
        const DbHeader *h;

        if (!db || !f)
                return -EINVAL;
        h = db->header;
        fprintf(f, "policy-db format %u, %zu bytes, crc32c 0x%08x\n", db_le(h->version),
                db->size, db_le(h->checksum));
        fprintf(f, "%u names, %u rules, %u strings bytes\n", db->n_names, db->n_rules,
                db->strings_size);
        for (uint32_t i = 0; i < db_le(h->global_tokens.count); i++)
                fprintf(f, "global-token \"%s\"\n", db_ref_string(db, h->global_tokens, i));
        for (uint32_t i = 0; i < db_le(h->monitor_labels.count); i++)
                fprintf(f, "monitor-label \"%s\"\n", db_ref_string(db, h->monitor_labels, i));
        for (uint32_t i = 0; i < db_le(db->checkany_labels.count); i++)
                fprintf(f, "checkany-label \"%s\"\n", db_ref_string(db, db->checkany_labels, i));
        for (uint32_t i = 0; i < db_le(db->provided_tokens.count); i++)
                fprintf(f, "provided-token \"%s\"\n", db_ref_string(db, db->provided_tokens, i));
        for (uint32_t i = 0; i < db->n_packages; i++) {
                fprintf(f, "package \"%s\" serves", dump_string(db, db->packages[i].name));
                if (db_le(db->packages[i].tokens.count) == 0)
                        fputs(" nothing", f);
                for (uint32_t j = 0; j < db_le(db->packages[i].tokens.count); j++)
                        fprintf(f, " \"%s\"", db_ref_string(db, db->packages[i].tokens, j));
                fputc('\n', f);
        }
        for (uint32_t i = 0; i < db->n_names; i++)
                dump_name(db, f, i);
        return ferror(f) ? -EIO : 0;
}
