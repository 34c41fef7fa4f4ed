/*
 * What a planned change does to the other installed packages, said in one
 * line each.
 *
 * Installing, upgrading or removing one package can grant or take away
 * what others requested (a provider's tokens come or go, a label changes
 * hands). The user is told that, package by package, from the rule files
 * the plan rewrites (their text before and after), never by replaying the
 * other packages' manifests and their warnings: on a device with hundreds
 * of packages that would bury the one line about the package being
 * changed. Only reads the plan; prints nothing itself.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "effects.h"
#include "install-plan.h"
#include "package-rules.h"
#include "smack-rules.h"

#define EFFECTS_ITEMS_SHOWN 8

static int parse(const char *text, SmackRules **ret) {
        _cleanup_(smack_rules_freep) SmackRules *rules = NULL;
        int r = smack_rules_new(&rules);

        if (r < 0)
                return r;
        /* Our own files, written from the plan: a syntax error means nothing to compare. */
        r = text ? smack_rules_parse(rules, text, true, NULL) : 0;
        if (r != 0)
                return r < 0 ? r : -EBADMSG;
        *ret = TAKE_PTR(rules);
        return 0;
}

/* "OBJECT" for the package's own label, "SUBJECT -> OBJECT" for any other pair. */
static int pair_text(const SmackRule *rule, const char *package, char **ret) {
        if (strcmp(rule->subject, package) == 0)
                return asprintf(ret, "%s", rule->object) < 0 ? -ENOMEM : 0;
        return asprintf(ret, "%s -> %s", rule->subject, rule->object) < 0 ? -ENOMEM : 0;
}

typedef struct Line {
        char *text;
        size_t size;
        FILE *f;
        size_t n_items;
        size_t n_more;
        const char *section;            /* the last "granted"/"revoked"/"changed" written */
} Line;

static int line_add(Line *line, const char *section, const char *item, const char *detail) {
        if (line->n_items >= EFFECTS_ITEMS_SHOWN) {
                line->n_more++;
                return 0;
        }
        if (line->section != section)
                fprintf(line->f, "%s%s ", line->n_items > 0 ? "; " : "", section);
        else
                fputs(", ", line->f);
        fprintf(line->f, "%s%s", item, detail ? detail : "");
        line->section = section;
        line->n_items++;
        return 0;
}

/* The changes between before and after, as "granted A, B; revoked C; changed D (rw -> r)". */
static int describe(const char *package, const SmackRules *before, const SmackRules *after,
                    char **ret) {
        static const char granted[] = "granted", revoked[] = "revoked", changed[] = "changed";
        static const char *const sections[] = { granted, revoked, changed };
        Line line = {};
        int r = 0;

        line.f = open_memstream(&line.text, &line.size);
        if (!line.f)
                return -ENOMEM;
        /* The package's own reach first (what it was granted), then what reaches it. */
        for (size_t pass = 0; pass < 2 * ELEMENTSOF(sections); pass++) {
                size_t s = pass % ELEMENTSOF(sections);
                bool own = pass < ELEMENTSOF(sections);
                const SmackRules *from = sections[s] == revoked ? before : after;

                for (size_t i = 0; r >= 0 && i < from->n_rules; i++) {
                        const SmackRule *rule = &from->rules[i];
                        unsigned old = smack_rules_get(before, rule->subject, rule->object);
                        unsigned new = smack_rules_get(after, rule->subject, rule->object);
                        char a[SMACK_ACCESS_STRING_MAX], b[SMACK_ACCESS_STRING_MAX];
                        _cleanup_free_ char *item = NULL, *detail = NULL;

                        if (old == new || own != (strcmp(rule->subject, package) == 0) ||
                            (sections[s] == granted && old != 0) ||
                            (sections[s] == revoked && new != 0) ||
                            (sections[s] == changed && (old == 0 || new == 0)))
                                continue;
                        r = pair_text(rule, package, &item);
                        if (r >= 0 && sections[s] == changed) {
                                smack_access_format(old, a);
                                smack_access_format(new, b);
                                if (asprintf(&detail, " (%s -> %s)", a, b) < 0)
                                        r = -ENOMEM;
                        }
                        if (r >= 0)
                                r = line_add(&line, sections[s], item, detail);
                }
        }
        if (r >= 0 && line.n_more > 0)
                fprintf(line.f, "; and %zu more", line.n_more);
        if (fclose(line.f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0 || line.n_items == 0) {
                free(line.text);
                *ret = NULL;
                return r < 0 ? r : 0;
        }
        *ret = line.text;
        return 0;
}

int effects_on_others(const InstallPlan *plan, FILE *out, const char *prefix) {
        size_t prefix_size = strlen(PACKAGE_RULES_PREFIX);

        for (size_t i = 0; i < plan->n_rule_files; i++) {
                const RuleFile *file = &plan->rule_files[i];
                _cleanup_(smack_rules_freep) SmackRules *before = NULL, *after = NULL;
                _cleanup_free_ char *text = NULL;
                const char *package;
                int r;

                if (strncmp(file->name, PACKAGE_RULES_PREFIX, prefix_size) != 0)
                        continue;
                package = file->name + prefix_size;
                if (strcmp(package, plan->package) == 0 ||
                    (file->old_text && file->new_text && strcmp(file->old_text, file->new_text) == 0) ||
                    (!file->old_text && !file->new_text))
                        continue;
                r = parse(file->old_text, &before);
                if (r >= 0)
                        r = parse(file->new_text, &after);
                if (r >= 0)
                        r = describe(package, before, after, &text);
                if (r < 0)
                        return r;
                if (text)
                        fprintf(out, "%s%s: %s\n", prefix, package, text);
        }
        return 0;
}
