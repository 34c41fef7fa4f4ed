/* Smack rules: (subject, object, access) triples, their text form, sets of them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/* Access bits, in the order the kernel prints them ("rwxatlb"). */
enum {
        SMACK_ACCESS_READ    = 1u << 0,         /* r */
        SMACK_ACCESS_WRITE   = 1u << 1,         /* w */
        SMACK_ACCESS_EXECUTE = 1u << 2,         /* x */
        SMACK_ACCESS_APPEND  = 1u << 3,         /* a */
        SMACK_ACCESS_TRANS   = 1u << 4,         /* t */
        SMACK_ACCESS_LOCK    = 1u << 5,         /* l */
        SMACK_ACCESS_BRINGUP = 1u << 6,         /* b */
};
#define SMACK_ACCESS_STRING_MAX 8               /* "rwxatlb" + NUL; "-" for none */
#define SMACK_LABEL_MAX 255

/* Expected outcomes. */
enum {
        SMACK_RULES_E_SYNTAX = 1,               /* a line is not "subject object access" */
};

typedef struct SmackRule {
        char *subject;
        char *object;
        unsigned access;                        /* SMACK_ACCESS_*; 0 = none ("-") */
} SmackRule;

/* A set keyed by (subject, object): one entry per pair. */
typedef struct SmackRules {
        SmackRule *rules;
        size_t n_rules;
        size_t n_allocated;
        /* (owned) hash index of the pairs: rule index + 1, 0 = free slot. */
        size_t *slots;
        size_t n_slots;                         /* 0 or a power of two */
} SmackRules;

int smack_rules_new(SmackRules **ret);
SmackRules *smack_rules_free(SmackRules *rules);

/* Add access to the pair's entry (creating it): the union of rules. */
int smack_rules_add(SmackRules *rules, const char *subject, const char *object, unsigned access);
/* Set the pair's access, replacing what it had (the kernel's semantics). */
int smack_rules_set(SmackRules *rules, const char *subject, const char *object, unsigned access);
/* The pair's access, 0 when absent. */
unsigned smack_rules_get(const SmackRules *rules, const char *subject, const char *object);
const SmackRule *smack_rules_find(const SmackRules *rules, const char *subject, const char *object);
/* Add every rule of other (union). */
int smack_rules_merge(SmackRules *rules, const SmackRules *other);
/* Sort by subject, then object (bytewise), for stable files and output. */
void smack_rules_sort(SmackRules *rules);

/* "rwxatlb" in any order or "-"; 0 or SMACK_RULES_E_SYNTAX. */
int smack_access_parse(const char *s, unsigned *ret);
/* Canonical text ("-" for none) into buf. */
void smack_access_format(unsigned access, char buf[SMACK_ACCESS_STRING_MAX]);
bool smack_label_valid(const char *s);

/*
 * Parse rule-file text: one "subject object access" per line, blank
 * lines and lines starting with '#' or ';' skipped (as systemd's loader
 * does). A repeated pair replaces the earlier one when replace is true
 * (the kernel's load2 listing), else adds to it. On
 * SMACK_RULES_E_SYNTAX *ret_line (nullable) is the bad line.
 */
int smack_rules_parse(SmackRules *rules, const char *text, bool replace, unsigned *ret_line);

/*
 * The text of a rule file: header (nullable, a comment without '#'), then
 * every rule with access, sorted. Rules with no access are left out.
 */
int smack_rules_format(const SmackRules *rules, const char *header, char **ret);

DEFINE_CLEANUP(SmackRules *, smack_rules_free);
