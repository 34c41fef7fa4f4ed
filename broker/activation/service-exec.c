/*
 * service-exec: splits an Exec= line into argv the way dbus-daemon's
 * shell-like parser does (it follows GLib's g_shell_parse_argv): blanks
 * separate words, '...' is literal, "..." honours \" \\ \$ \` and
 * \newline, a backslash elsewhere escapes the next character, and '#'
 * at the start of a word comments out the rest of the line. Nothing is
 * expanded: no variables, globs or substitutions, so the argv is exactly
 * what the file says.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "service-file.h"

typedef struct Words {
        char **argv;
        size_t n;
        char *word;             /* (owned) the word being built, or NULL */
        size_t len;
        size_t cap;
} Words;

/* Starts a word even if nothing goes in it ('' is an empty argument). */
static int word_start(Words *w) {
        if (w->word)
                return 0;
        w->word = malloc(32);
        if (!w->word)
                return -ENOMEM;
        w->cap = 32;
        w->len = 0;
        w->word[0] = '\0';
        return 0;
}

static int word_putc(Words *w, char c) {
        int r = word_start(w);
        if (r < 0)
                return r;
        if (w->len + 2 > w->cap) {
                char *grown = realloc(w->word, w->cap * 2);
                if (!grown)
                        return -ENOMEM;
                w->word = grown;
                w->cap *= 2;
        }
        w->word[w->len++] = c;
        w->word[w->len] = '\0';
        return 0;
}

static int word_end(Words *w) {
        if (!w->word)
                return 0;
        if (w->n + 1 >= SERVICE_FILE_MAX_ARGS)
                return SERVICE_FILE_E_INVALID;
        char **grown = reallocarray(w->argv, w->n + 2, sizeof(char *));
        if (!grown)
                return -ENOMEM;
        w->argv = grown;
        w->argv[w->n++] = w->word;
        w->argv[w->n] = NULL;
        *w = (Words){ .argv = w->argv, .n = w->n };
        return 0;
}

static bool double_quote_escapable(char c) {
        return c == '"' || c == '\\' || c == '$' || c == '`' || c == '\n';
}

/* Consumes a quoted part starting after its opening quote; returns its end. */
static const char *quoted(Words *w, const char *p, char quote, int *r) {
        for (; *p && *p != quote; p++) {
                if (quote == '"' && *p == '\\' && double_quote_escapable(p[1])) {
                        p++;
                        if (*p == '\n')
                                continue;
                }
                if ((*r = word_putc(w, *p)) < 0)
                        return p;
        }
        if (!*p)
                *r = SERVICE_FILE_E_INVALID;
        return p;
}

static int split(Words *w, const char *exec, const char **problem) {
        int r = 0;
        for (const char *p = exec; r == 0 && *p; p++) {
                switch (*p) {
                case ' ': case '\t': case '\n':
                        r = word_end(w);
                        break;
                case '\'': case '"':
                        if ((r = word_start(w)) == 0)
                                p = quoted(w, p + 1, *p, &r);
                        if (r > 0)
                                *problem = "unterminated quote";
                        break;
                case '\\':
                        if (!p[1]) {
                                *problem = "trailing backslash";
                                return SERVICE_FILE_E_INVALID;
                        }
                        p++;
                        if (*p != '\n')
                                r = word_putc(w, *p);
                        break;
                case '#':
                        if (!w->word)
                                return 0; /* a comment to the end */
                        r = word_putc(w, *p);
                        break;
                default:
                        r = word_putc(w, *p);
                }
        }
        if (r > 0 && !*problem)
                *problem = "too many arguments";
        return r;
}

int service_exec_split(const char *exec, char ***ret_argv, const char **ret_problem) {
        Words w = { 0 };
        const char *problem = NULL;
        int r = split(&w, exec, &problem);
        if (r == 0)
                r = word_end(&w);
        if (r == 0 && w.n == 0) {
                problem = "no command";
                r = SERVICE_FILE_E_INVALID;
        }
        if (r != 0) {
                free(w.word);
                service_strv_free(w.argv);
                if (ret_problem)
                        *ret_problem = problem ? problem : "too many arguments";
                return r;
        }
        *ret_argv = w.argv;
        return 0;
}
