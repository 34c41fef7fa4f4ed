/*
 * The key service's own tokens (keyref_own_tokens, which it refuses as
 * bare token names) against the manifest its package ships
 * (keyd/mssf-keyd.aegis), read with mssf-policy's own parser: the same
 * names both ways. The list in the code is kept by hand; without this a
 * token added to the manifest alone would be taken by the service for
 * the global token of that name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "keyref.h"
#include "manifest.h"

static const char *manifest_path;

static bool code_has(const char *name) {
        for (const char *const *own = keyref_own_tokens; *own; own++)
                if (strcmp(*own, name) == 0)
                        return true;
        return false;
}

static void test_own_tokens_are_the_manifests(void **unused) {
        _cleanup_(package_freep) Package *package = NULL;
        size_t in_code = 0;

        assert_int_equal(manifest_parse_file(manifest_path, "mssf-keyd", NULL, NULL, &package), 0);
        assert_true(package->n_tokens > 0);
        for (size_t i = 0; i < package->n_tokens; i++) {
                if (!code_has(package->tokens[i]->name))
                        fail_msg("the manifest provides \"%s\", which keyref_own_tokens does not list",
                                 package->tokens[i]->name);
        }
        for (const char *const *own = keyref_own_tokens; *own; own++) {
                bool provided = false;

                for (size_t i = 0; i < package->n_tokens; i++)
                        provided = provided || strcmp(package->tokens[i]->name, *own) == 0;
                if (!provided)
                        fail_msg("keyref_own_tokens lists \"%s\", which the manifest does not provide", *own);
                in_code++;
        }
        assert_int_equal(in_code, package->n_tokens);
}

int main(int argc, char **argv) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_own_tokens_are_the_manifests),
        };

        if (argc != 2) {
                fprintf(stderr, "usage: test-keyd-manifest MANIFEST\n");
                return 2;
        }
        manifest_path = argv[1];
        return cmocka_run_group_tests(tests, NULL, NULL);
}
