/*
 * Smack rules as data: the (subject, object, access) triples that
 * mssf-policy writes to /etc/smack/accesses.d and to smackfs load2.
 *
 * A SmackRules set holds one entry per (subject, object) pair. Rule files
 * combine by union (smack_rules_add): two packages that both need "A B w"
 * each list it, and the kernel must keep it while any file does. The
 * kernel's listing combines by replacement (smack_rules_set), because a
 * load2 write sets the pair's access. Labels are checked against what the
 * kernel accepts before they reach a file, so a file we wrote always loads.
 * The union of a device's rule store has tens of thousands of pairs, so
 * pairs are found through a hash index (open addressing, at most half
 * full), rebuilt when the array is sorted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smack-rules.h"
#include "strmap.h"

static const char access_letters[] = "rwxatlb";

int smack_rules_new(SmackRules **ret) {
        SmackRules *rules = calloc(1, sizeof(*rules));

        if (!rules)
                return -ENOMEM;
        *ret = rules;
        return 0;
}

SmackRules *smack_rules_free(SmackRules *rules) {
        if (!rules)
                return NULL;
        for (size_t i = 0; i < rules->n_rules; i++) {
                free(rules->rules[i].subject);
                free(rules->rules[i].object);
        }
        free(rules->rules);
        free(rules->slots);
        free(rules);
        return NULL;
}

bool smack_label_valid(const char *s) {
        size_t len;

        if (!s)
                return false;
        len = strlen(s);
        if (len == 0 || len > SMACK_LABEL_MAX || s[0] == '-')
                return false;
        for (const char *p = s; *p; p++)
                if (*p <= ' ' || *p > '~' || strchr("/\"\\'", *p))
                        return false;
        return true;
}

static uint64_t pair_hash(const char *subject, const char *object) {
        return strmap_hash_more(strmap_hash(subject), object);
}

/* The slot holding the pair, or the free slot where it would go; NULL without a table. */
static size_t *pair_slot(const SmackRules *rules, const char *subject, const char *object) {
        uint64_t hash = pair_hash(subject, object);

        for (size_t i = 0; i < rules->n_slots; i++) {
                size_t *slot = &rules->slots[strmap_probe(hash, i, rules->n_slots)];
                const SmackRule *rule;

                if (*slot == 0)
                        return slot;
                rule = &rules->rules[*slot - 1];
                if (strcmp(rule->subject, subject) == 0 && strcmp(rule->object, object) == 0)
                        return slot;
        }
        return NULL;
}

static void index_fill(SmackRules *rules) {
        memset(rules->slots, 0, rules->n_slots * sizeof(size_t));
        for (size_t i = 0; i < rules->n_rules; i++)
                *pair_slot(rules, rules->rules[i].subject, rules->rules[i].object) = i + 1;
}

/* Twice the table, for one more rule. */
static int index_grow(SmackRules *rules) {
        size_t n = rules->n_slots ? rules->n_slots * 2 : 32;
        size_t *slots = calloc(n, sizeof(size_t));

        if (!slots)
                return -ENOMEM;
        free(rules->slots);
        rules->slots = slots;
        rules->n_slots = n;
        index_fill(rules);
        return 0;
}

const SmackRule *smack_rules_find(const SmackRules *rules, const char *subject, const char *object) {
        const size_t *slot = pair_slot(rules, subject, object);

        return slot && *slot ? &rules->rules[*slot - 1] : NULL;
}

unsigned smack_rules_get(const SmackRules *rules, const char *subject, const char *object) {
        const SmackRule *rule = smack_rules_find(rules, subject, object);

        return rule ? rule->access : 0;
}

/* subject and object are valid labels (checked by the caller). */
static int rules_update_valid(SmackRules *rules, const char *subject, const char *object,
                              unsigned access, bool replace) {
        SmackRule *rule = (SmackRule *) smack_rules_find(rules, subject, object);
        _cleanup_free_ char *subject_copy = NULL, *object_copy = NULL;

        if (rule) {
                rule->access = replace ? access : (rule->access | access);
                return 0;
        }
        if (rules->n_rules == rules->n_allocated) {
                size_t grow = rules->n_allocated ? rules->n_allocated * 2 : 16;
                SmackRule *bigger = reallocarray(rules->rules, grow, sizeof(SmackRule));

                if (!bigger)
                        return -ENOMEM;
                rules->rules = bigger;
                rules->n_allocated = grow;
        }
        if ((rules->n_rules + 1) * 2 > rules->n_slots) {
                int r = index_grow(rules);

                if (r < 0)
                        return r;
        }
        subject_copy = strdup(subject);
        object_copy = strdup(object);
        if (!subject_copy || !object_copy)
                return -ENOMEM;
        rules->rules[rules->n_rules++] = (SmackRule) {
                .subject = TAKE_PTR(subject_copy),
                .object = TAKE_PTR(object_copy),
                .access = access,
        };
        *pair_slot(rules, subject, object) = rules->n_rules;
        return 0;
}

static int rules_update(SmackRules *rules, const char *subject, const char *object,
                        unsigned access, bool replace) {
        if (!smack_label_valid(subject) || !smack_label_valid(object))
                return -EINVAL;
        return rules_update_valid(rules, subject, object, access, replace);
}

int smack_rules_add(SmackRules *rules, const char *subject, const char *object, unsigned access) {
        return rules_update(rules, subject, object, access, false);
}

int smack_rules_set(SmackRules *rules, const char *subject, const char *object, unsigned access) {
        return rules_update(rules, subject, object, access, true);
}

int smack_rules_merge(SmackRules *rules, const SmackRules *other) {
        for (size_t i = 0; i < other->n_rules; i++) {
                const SmackRule *rule = &other->rules[i];
                /* Every label in a set was checked when it entered it. */
                int r = rules_update_valid(rules, rule->subject, rule->object, rule->access, false);

                if (r < 0)
                        return r;
        }
        return 0;
}

static int rule_compare(const void *a, const void *b) {
        const SmackRule *x = a, *y = b;
        int c = strcmp(x->subject, y->subject);

        return c != 0 ? c : strcmp(x->object, y->object);
}

void smack_rules_sort(SmackRules *rules) {
        if (rules->n_rules < 2)
                return;
        qsort(rules->rules, rules->n_rules, sizeof(SmackRule), rule_compare);
        index_fill(rules);
}

int smack_access_parse(const char *s, unsigned *ret) {
        unsigned access = 0;

        if (strcmp(s, "-") == 0) {
                *ret = 0;
                return 0;
        }
        if (*s == '\0')
                return SMACK_RULES_E_SYNTAX;
        for (const char *p = s; *p; p++) {
                const char *letter = strchr(access_letters, *p >= 'A' && *p <= 'Z' ? *p + 32 : *p);

                if (!letter || *letter == '\0')
                        return SMACK_RULES_E_SYNTAX;
                access |= 1u << (letter - access_letters);
        }
        *ret = access;
        return 0;
}

void smack_access_format(unsigned access, char buf[SMACK_ACCESS_STRING_MAX]) {
        size_t n = 0;

        for (size_t i = 0; access_letters[i]; i++)
                if (access & (1u << i))
                        buf[n++] = access_letters[i];
        if (n == 0)
                buf[n++] = '-';
        buf[n] = '\0';
}

/* One line, modified in place (a comment or blank one adds nothing): 0 or SMACK_RULES_E_SYNTAX. */
static int parse_line(SmackRules *rules, char *line, bool replace) {
        char *fields[4] = {};
        size_t n = 0;
        unsigned access;
        int r;

        line += strspn(line, " \t\r");
        if (*line == '\0' || *line == '#' || *line == ';')
                return 0;
        for (char *save = NULL, *word = strtok_r(line, " \t\r", &save); word;
             word = strtok_r(NULL, " \t\r", &save)) {
                if (n == ELEMENTSOF(fields))
                        return SMACK_RULES_E_SYNTAX;
                fields[n++] = word;
        }
        if (n != 3 || !smack_label_valid(fields[0]) || !smack_label_valid(fields[1]))
                return SMACK_RULES_E_SYNTAX;
        r = smack_access_parse(fields[2], &access);
        if (r != 0)
                return r;
        r = rules_update_valid(rules, fields[0], fields[1], access, replace);
        return r < 0 ? r : 0;
}

int smack_rules_parse(SmackRules *rules, const char *text, bool replace, unsigned *ret_line) {
        _cleanup_free_ char *copy = strdup(text);
        unsigned line_number = 0;
        char *line, *next;

        if (!copy)
                return -ENOMEM;
        for (line = copy; line; line = next) {
                int r;

                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                line_number++;
                r = parse_line(rules, line, replace);
                if (r < 0)
                        return r;
                if (r == SMACK_RULES_E_SYNTAX) {
                        if (ret_line)
                                *ret_line = line_number;
                        return r;
                }
        }
        return 0;
}

int smack_rules_format(const SmackRules *rules, const char *header, char **ret) {
        _cleanup_free_ SmackRule *sorted = NULL;
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;

        if (rules->n_rules > 0) {
                sorted = calloc(rules->n_rules, sizeof(SmackRule));
                if (!sorted)
                        return -ENOMEM;
                memcpy(sorted, rules->rules, rules->n_rules * sizeof(SmackRule));
                qsort(sorted, rules->n_rules, sizeof(SmackRule), rule_compare);
        }
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        if (header)
                fprintf(f, "# %s\n", header);
        for (size_t i = 0; i < rules->n_rules; i++) {
                char access[SMACK_ACCESS_STRING_MAX];

                if (sorted[i].access == 0)
                        continue;
                smack_access_format(sorted[i].access, access);
                fprintf(f, "%s %s %s\n", sorted[i].subject, sorted[i].object, access);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}
