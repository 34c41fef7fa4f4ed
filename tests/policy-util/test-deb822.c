/*
 * Unit tests of deb822.c: paragraphs, continuation and " ." lines,
 * comments only where asked for, and every syntax error with its line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "deb822.h"
#include "diagnostic.h"

typedef struct Collected {
        size_t n;
        char text[1024];
} Collected;

/* "Name=value|Name=value;" per paragraph, with the first field's line. */
static int collect(const Deb822Paragraph *p, void *userdata) {
        Collected *c = userdata;
        size_t len = strlen(c->text);

        snprintf(c->text + len, sizeof(c->text) - len, "@%u:", p->line);
        for (size_t i = 0; i < p->n_fields; i++) {
                len = strlen(c->text);
                snprintf(c->text + len, sizeof(c->text) - len, "%s%s=%s", i ? "|" : "",
                         p->fields[i].name, p->fields[i].value);
        }
        len = strlen(c->text);
        snprintf(c->text + len, sizeof(c->text) - len, ";");
        c->n++;
        return 0;
}

static int parse(const char *text, bool comments, Collected *c, const char **error,
                 unsigned *line) {
        *c = (Collected) {};
        return deb822_parse_buffer(text, strlen(text), comments, collect, c, error, line);
}

static void test_paragraphs(void **state) {
        Collected c;
        const char *error = NULL;
        unsigned line = 0;

        assert_int_equal(parse("\n\nPackage: a\nVersion:  1.0  \n\n\nPackage: b\n", false, &c,
                               &error, &line), 0);
        assert_int_equal(c.n, 2);
        assert_string_equal(c.text, "@3:Package=a|Version=1.0;@7:Package=b;");
        assert_int_equal(parse("Description: short\n long\n .\n\tend\nSHA256:\n 00 1 P\r\n", false,
                               &c, &error, &line), 0);
        assert_string_equal(c.text, "@1:Description=short\nlong\n\nend|SHA256=\n00 1 P;");
        assert_int_equal(parse("", false, &c, &error, &line), 0);
        assert_int_equal(c.n, 0);
}

static void test_comments(void **state) {
        Collected c;
        const char *error = NULL;
        unsigned line = 0;

        assert_int_equal(parse("# head\nA: 1\n# inside\nB: 2\n", true, &c, &error, &line), 0);
        assert_string_equal(c.text, "@2:A=1|B=2;");
        /* Without comments a '#' line is not a field. */
        assert_int_equal(parse("# head\nA: 1\n", false, &c, &error, &line), DEB822_E_SYNTAX);
        assert_int_equal(line, 1);
}

static void test_errors(void **state) {
        static const struct {
                const char *text;
                unsigned line;
        } cases[] = {
                { " lone continuation\n", 1 },
                { "A: 1\nno colon\n", 2 },
                { "A: 1\n: empty name\n", 2 },
                { "A: 1\nB C: space in name\n", 2 },
                { "A: 1\n\n-B: dash\n", 3 },
        };
        Collected c;
        const char *error = NULL;
        unsigned line = 0;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                error = NULL;
                assert_int_equal(parse(cases[i].text, false, &c, &error, &line), DEB822_E_SYNTAX);
                assert_int_equal(line, cases[i].line);
                assert_non_null(error);
        }
        /* A NUL byte is not text. */
        assert_int_equal(deb822_parse_buffer("A: 1\nB: \0x\n", 10, false, collect, &c, &error,
                                             &line), DEB822_E_SYNTAX);
        assert_int_equal(line, 2);
}

static void test_lookup(void **state) {
        FILE *f = fmemopen((void *) "Package: x\nsha256: ab\n", 22, "r");
        Deb822Reader r;
        Deb822Paragraph p;

        assert_non_null(f);
        deb822_reader_init(&r, f, false);
        assert_int_equal(deb822_read(&r, &p), 1);
        assert_string_equal(deb822_get(&p, "SHA256"), "ab");
        assert_string_equal(deb822_get(&p, "package"), "x");
        assert_null(deb822_get(&p, "Version"));
        assert_int_equal(deb822_field(&p, "SHA256")->line, 2);
        deb822_paragraph_clear(&p);
        assert_int_equal(deb822_read(&r, &p), 0);
        deb822_reader_deinit(&r);
        fclose(f);
}

/* A configuration file: absent is empty, too large and not deb822 are its errors in diag. */
static void test_config(void **state) {
        char dir[] = "/tmp/test-deb822-XXXXXX", path[64], *text = NULL;
        Diagnostics *diag = NULL;
        Collected c = {};
        size_t size = 1;
        FILE *f;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/x.conf", dir);
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(deb822_load_config(path, 1u << 20, diag, &text, &size), 0);
        assert_string_equal(text, "");
        assert_int_equal(size, 0);
        free(text);
        text = NULL;
        f = fopen(path, "w");
        assert_non_null(f);
        for (int i = 0; i < 2000; i++)
                fputs("# a comment line that takes up room\n", f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(deb822_load_config(path, 1024, diag, &text, &size), DEB822_E_REPORTED);
        assert_null(text);
        assert_int_equal(diag->n_errors, 1);
        assert_string_equal(diag->items[0]->file, path);
        assert_int_equal(deb822_load_config(path, 1u << 20, diag, &text, &size), 0);
        assert_int_equal(deb822_parse_config(text, size, path, diag, collect, &c), 0);
        assert_int_equal(c.n, 0);
        free(text);
        assert_int_equal(deb822_parse_config("A: 1\n\n# c\nB: 2\n", 15, "f", diag, collect, &c), 0);
        assert_string_equal(c.text, "@1:A=1;@4:B=2;");
        assert_int_equal(deb822_parse_config("A: 1\n not\nno colon\n", 20, "f.conf", diag, collect, &c),
                         DEB822_E_REPORTED);
        assert_int_equal(diag->n_errors, 2);
        assert_string_equal(diag->items[1]->file, "f.conf");
        assert_int_equal(diag->items[1]->line, 3);
        diagnostics_free(diag);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_paragraphs),
                cmocka_unit_test(test_comments),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_lookup),
                cmocka_unit_test(test_config),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
