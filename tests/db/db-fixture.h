/* Shared by the policy/db tests: a policy built in code, and a mocked token oracle. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "db-read.h"
#include "macro.h"

/*
 * The "basic" policy (its rules are listed in db-fixture.c): two real-world
 * names, one name with two owner labels and no rules, one owned by token
 * only and with no declarer recorded (the others are declared by ofono,
 * mce and multi). The image is malloc'd; the test frees it.
 */
void fixture_build_basic(uint8_t **ret_data, size_t *ret_size);
PolicyDb *fixture_open_basic(void);

/*
 * The oracle: grants is a NULL-terminated list of "label token" strings;
 * fail_with, when non-zero, is returned for every question (an error).
 */
typedef struct MockOracle {
        const char *const *grants;
        int fail_with;
        unsigned calls;
} MockOracle;

int mock_has_token(const char *label, const char *token, void *userdata);

/* Reads a whole file (the test fails if it cannot). */
char *fixture_read_file(const char *path, size_t *ret_size);
