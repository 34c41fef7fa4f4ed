/*
 * The oracle against the real kernel, run inside user-mode-linux by
 * test-smack-uml.sh (as root: rules can be loaded; access2 answers do not
 * depend on the asker's capabilities). Checks: answers for loaded rules;
 * the cache; a revocation written by another process is seen through the
 * inotify watch without any explicit flush (load2, change-rule,
 * revoke-subject); token rules ("Label Token w"); and, for Smack's special
 * labels, that the oracle's answer is the kernel's own (asked again
 * through a separate access2 transaction). Prints one line per check;
 * exit 0 when all pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "smack-oracle.h"

static int failures;

static void check(const char *what, long expected, long actual) {
        if (expected == actual)
                printf("ok - %s\n", what);
        else {
                printf("not ok - %s: expected %ld, got %ld\n", what, expected, actual);
                failures++;
        }
}

/* Another process writes the rule, as mssf-policy would. */
static void load(const char *file, const char *rule) {
        char command[600];

        snprintf(command, sizeof(command), "printf '%%s' '%s' > /sys/fs/smackfs/%s", rule, file);
        if (system(command) != 0) {
                printf("not ok - writing '%s' to %s\n", rule, file);
                failures++;
        }
}

static const SmackLabel *label(const char *text) {
        const SmackLabel *l = NULL;

        if (smack_label_intern(text, &l) != 0)
                abort();
        return l;
}

/* The kernel asked directly, in a transaction of our own. */
static int raw_access(const char *subject, const char *object, const char *access) {
        char request[600], answer[4] = "";
        int fd, n;

        snprintf(request, sizeof(request), "%s %s %s", subject, object, access);
        fd = open("/sys/fs/smackfs/access2", O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (write(fd, request, strlen(request)) < 0 || (n = (int) read(fd, answer, sizeof(answer))) < 1) {
                close(fd);
                return -EIO;
        }
        close(fd);
        return answer[0] == '1';
}

static uint64_t kernel_queries(SmackOracle *oracle) {
        SmackOracleStats stats;

        smack_oracle_get_stats(oracle, &stats);
        return stats.kernel_queries;
}

static void test_rules(SmackOracle *oracle) {
        const SmackLabel *apple = label("UmlApple"), *orange = label("UmlOrange"), *pear = label("UmlPear");
        struct pollfd pfd = { .fd = smack_oracle_get_fd(oracle), .events = POLLIN };
        uint64_t before;

        load("load2", "UmlApple UmlOrange rw");
        check("refresh after load2 flushes", 1, smack_oracle_refresh(oracle));
        check("a loaded rule grants w", 1, smack_has_access(oracle, apple, orange, "w"));
        check("a loaded rule grants rw", 1, smack_has_access(oracle, apple, orange, "rw"));
        check("not more than the rule", 0, smack_has_access(oracle, apple, orange, "rwx"));
        check("no rule the other way", 0, smack_has_access(oracle, orange, apple, "w"));
        check("no rule for an unknown label", 0, smack_has_access(oracle, apple, pear, "r"));

        before = kernel_queries(oracle);
        for (int i = 0; i < 1000; i++)
                if (smack_has_access(oracle, apple, orange, "w") != 1)
                        abort();
        check("cached answers ask the kernel nothing", (long) before, (long) kernel_queries(oracle));
        check("nothing pending on the inotify fd", 0, poll(&pfd, 1, 0));

        load("load2", "UmlApple UmlOrange -");
        check("the inotify fd is readable after a revocation", 1, poll(&pfd, 1, 0));
        check("until refresh the cached answer stands", 1, smack_has_access(oracle, apple, orange, "w"));
        check("refresh sees the revocation", 1, smack_oracle_refresh(oracle));
        check("the revoked rule denies, no explicit flush", 0, smack_has_access(oracle, apple, orange, "w"));
        check("refresh again: nothing new", 0, smack_oracle_refresh(oracle));

        load("load2", "UmlApple UmlOrange w");
        smack_oracle_refresh(oracle);
        check("granted again", 1, smack_has_access(oracle, apple, orange, "w"));
        load("change-rule", "UmlApple UmlOrange - w");
        check("refresh after change-rule", 1, smack_oracle_refresh(oracle));
        check("change-rule removed w", 0, smack_has_access(oracle, apple, orange, "w"));

        load("load2", "UmlApple UmlOrange w");
        smack_oracle_refresh(oracle);
        check("granted once more", 1, smack_has_access(oracle, apple, orange, "w"));
        load("revoke-subject", "UmlApple");
        check("refresh after revoke-subject", 1, smack_oracle_refresh(oracle));
        check("revoke-subject removed it", 0, smack_has_access(oracle, apple, orange, "w"));

        /* Questions on access2, by anybody, flush nothing. */
        raw_access("UmlApple", "UmlOrange", "w");
        check("access2 questions are not rule changes", 0, smack_oracle_refresh(oracle));
}

static void test_tokens(SmackOracle *oracle) {
        const SmackLabel *app = label("UmlApp");

        load("load2", "UmlApp UmlToken w");
        load("load2", "UmlApp UmlReadOnly r");
        smack_oracle_refresh(oracle);
        check("a granted token is held", 1, smack_has_token(oracle, app, "UmlToken"));
        check("read access to a token is not holding it", 0, smack_has_token(oracle, app, "UmlReadOnly"));
        check("an ungranted token is not held", 0, smack_has_token(oracle, app, "UmlOtherToken"));
        check("the policy adaptor agrees", 1, smack_oracle_policy_has_token("UmlApp", "UmlToken", oracle));
        load("load2", "UmlApp UmlToken -");
        check("refresh after the token is revoked", 1, smack_oracle_refresh(oracle));
        check("a revoked token is no longer held", 0, smack_has_token(oracle, app, "UmlToken"));
}

/* The special labels: the oracle never decides them itself, except subject == object. */
static void test_special_labels(SmackOracle *oracle) {
        static const char *const questions[][3] = {
                { "*", "*", "r" },
                { "*", "UmlOrange", "r" },
                { "^", "UmlOrange", "r" },
                { "^", "UmlOrange", "w" },
                { "UmlApple", "_", "r" },
                { "UmlApple", "_", "w" },
                { "UmlApple", "*", "w" },
                { "UmlApple", "@", "w" },
                { "@", "UmlOrange", "w" },
                { "_", "_", "w" },
                { "UmlApple", "UmlApple", "rwxat" },
        };

        for (size_t i = 0; i < sizeof(questions) / sizeof(questions[0]); i++) {
                char what[200];

                snprintf(what, sizeof(what), "\"%s %s %s\" is the kernel's answer", questions[i][0],
                         questions[i][1], questions[i][2]);
                check(what, raw_access(questions[i][0], questions[i][1], questions[i][2]),
                      smack_has_access(oracle, label(questions[i][0]), label(questions[i][1]), questions[i][2]));
        }
}

static double now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* Figures only (UML system calls are much slower than a real kernel's). */
static void measure(SmackOracle *oracle) {
        const SmackLabel *apple = label("UmlApple"), *orange = label("UmlOrange");
        double start;

        start = now_ns();
        for (int i = 0; i < 200; i++) {
                smack_oracle_flush(oracle);
                if (smack_has_access(oracle, apple, orange, "w") < 0)
                        abort();
        }
        printf("# a question to the kernel (access2 transaction), under UML: %.1f us\n",
               (now_ns() - start) / 200 / 1000);
        start = now_ns();
        for (int i = 0; i < 1000000; i++)
                if (smack_has_access(oracle, apple, orange, "w") < 0)
                        abort();
        printf("# a cached answer, under UML: %.1f ns\n", (now_ns() - start) / 1000000);
        start = now_ns();
        for (int i = 0; i < 1000; i++)
                smack_oracle_refresh(oracle);
        printf("# smack_oracle_refresh() with nothing pending, under UML: %.1f us\n", (now_ns() - start) / 1000 / 1000);
}

int main(void) {
        SmackOracle *oracle = NULL;
        SmackOracleStats stats;
        int r;

        r = smack_oracle_new(NULL, &oracle);
        check("the oracle starts", 0, r);
        if (r < 0)
                return 1;
        check("the kernel has Smack", 1, smack_oracle_has_smack(oracle));
        smack_oracle_get_stats(oracle, &stats);
        check("load, load2, load-self, load-self2, change-rule, revoke-subject are watched", 1,
              stats.watches >= 6);
        check("the cache is on", 1, stats.cache_enabled);

        test_rules(oracle);
        test_tokens(oracle);
        test_special_labels(oracle);
        measure(oracle);

        smack_oracle_get_stats(oracle, &stats);
        check("no kernel errors", 0, (long) stats.kernel_errors);
        printf("# %llu questions, %llu same-label, %llu cache hits, %llu to the kernel, %llu flushes, %u watches\n",
               (unsigned long long) stats.queries, (unsigned long long) stats.same_label,
               (unsigned long long) stats.cache_hits, (unsigned long long) stats.kernel_queries,
               (unsigned long long) stats.flushes, stats.watches);
        smack_oracle_free(oracle);
        printf("%d failure(s)\n", failures);
        return failures == 0 ? 0 : 1;
}
