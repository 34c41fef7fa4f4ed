/*
 * The fake kernel behind a fake smackfs/access2 (see fake-smackfs.h).
 * It implements just enough of Smack's ladder for tests: "*" as subject
 * may access nothing, a label may access itself, else an explicit rule
 * must contain every requested letter. Questions are parsed strictly in
 * the long format ("%s %s %s", single spaces), so a padded or malformed
 * question is answered as the kernel answers a bad one: EINVAL.
 */
#include "fake-smackfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
int __real_close(int fd);
int __wrap_close(int fd);

static FakeSmackfs *active;
static dev_t access2_dev;
static ino_t access2_ino;
static int pending_fd = -1;     /* the descriptor that asked, until it reads */
static int pending_answer = -1;

static const char *const files[] = {
        "load", "load2", "load-self", "load-self2", "change-rule", "revoke-subject", "unconfined",
};

static void touch(const char *dir, const char *name) {
        char path[512];
        int fd;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
        if (fd < 0)
                abort();
        close(fd);
}

FakeSmackfs *fake_smackfs_new(bool with_rule_files) {
        FakeSmackfs *fake = calloc(1, sizeof(*fake));
        char path[512];
        struct stat st;

        if (!fake)
                abort();
        fake->dir = strdup("/tmp/fake-smackfs.XXXXXX");
        if (!fake->dir || !mkdtemp(fake->dir))
                abort();
        touch(fake->dir, "access2");
        if (with_rule_files)
                for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
                        touch(fake->dir, files[i]);
        snprintf(path, sizeof(path), "%s/access2", fake->dir);
        if (stat(path, &st) < 0)
                abort();
        access2_dev = st.st_dev;
        access2_ino = st.st_ino;
        active = fake;
        return fake;
}

void fake_smackfs_free(FakeSmackfs *fake) {
        char path[512];

        if (!fake)
                return;
        snprintf(path, sizeof(path), "%s/access2", fake->dir);
        unlink(path);
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                snprintf(path, sizeof(path), "%s/%s", fake->dir, files[i]);
                unlink(path);
        }
        rmdir(fake->dir);
        free(fake->dir);
        if (active == fake)
                active = NULL;
        free(fake);
}

void fake_smackfs_grant(FakeSmackfs *fake, const char *subject, const char *object, const char *access) {
        fake_smackfs_revoke(fake, subject, object);
        if (fake->n_rules >= sizeof(fake->rules) / sizeof(fake->rules[0]))
                abort();
        if ((size_t) snprintf(fake->rules[fake->n_rules++], sizeof(fake->rules[0]), "%s %s %s", subject, object,
                              access) >= sizeof(fake->rules[0]))
                abort();
}

void fake_smackfs_revoke(FakeSmackfs *fake, const char *subject, const char *object) {
        char prefix[300];

        snprintf(prefix, sizeof(prefix), "%s %s ", subject, object);
        for (size_t i = 0; i < fake->n_rules; i++)
                if (strncmp(fake->rules[i], prefix, strlen(prefix)) == 0) {
                        memmove(fake->rules[i], fake->rules[fake->n_rules - 1], sizeof(fake->rules[0]));
                        fake->n_rules--;
                        return;
                }
}

void fake_smackfs_write_file(FakeSmackfs *fake, const char *name, const char *text) {
        char path[512];
        int fd;

        snprintf(path, sizeof(path), "%s/%s", fake->dir, name);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                abort();
        if (__real_write(fd, text, strlen(text)) != (ssize_t) strlen(text))
                abort();
        close(fd);
}

static bool is_access2(int fd) {
        struct stat st;

        return active && fstat(fd, &st) == 0 && st.st_dev == access2_dev && st.st_ino == access2_ino;
}

/* The fake kernel's decision for "subject object access": 1, 0, or -EINVAL. */
static int fake_decide(const char *request) {
        char subject[300], object[300], access[16], rest[2], prefix[610];
        size_t length;
        int n;

        /* Exactly three words, single spaces. */
        if (strstr(request, "  ") || request[0] == ' ')
                return -EINVAL;
        n = sscanf(request, "%299s %299s %15s %1s", subject, object, access, rest);
        if (n != 3)
                return -EINVAL;
        if (strcmp(subject, "*") == 0)
                return 0;
        if (strcmp(subject, object) == 0)
                return 1;
        snprintf(prefix, sizeof(prefix), "%s %s ", subject, object);
        length = strlen(prefix);
        for (size_t i = 0; i < active->n_rules; i++) {
                const char *rule_access;

                if (strncmp(active->rules[i], prefix, length) != 0)
                        continue;
                rule_access = active->rules[i] + length;
                for (const char *c = access; *c; c++)
                        if (!strchr(rule_access, *c))
                                return 0;
                return 1;
        }
        return 0;
}

ssize_t __wrap_write(int fd, const void *buf, size_t n) {
        char request[1024];
        int r;

        if (!is_access2(fd))
                return __real_write(fd, buf, n);
        if (active->answer == FAKE_ANSWER_WRITE_ERROR) {
                errno = EIO;
                return -1;
        }
        if (pending_fd == fd) {
                /* One question per open, as simple_transaction_get(). */
                errno = EBUSY;
                return -1;
        }
        if (n >= sizeof(request)) {
                errno = EFBIG;
                return -1;
        }
        memcpy(request, buf, n);
        request[n] = '\0';
        snprintf(active->last_request, sizeof(active->last_request), "%s", request);
        r = fake_decide(request);
        if (r < 0) {
                errno = -r;
                return -1;
        }
        active->questions++;
        pending_fd = fd;
        pending_answer = r;
        return active->answer == FAKE_ANSWER_SHORT_WRITE ? (ssize_t) n - 1 : (ssize_t) n;
}

ssize_t __wrap_read(int fd, void *buf, size_t n) {
        const char *text;
        size_t length;

        if (!is_access2(fd))
                return __real_read(fd, buf, n);
        if (pending_fd != fd) {
                /* Nothing asked on this descriptor: the kernel reads an empty transaction. */
                return 0;
        }
        pending_fd = -1;
        switch (active->answer) {
        case FAKE_ANSWER_READ_ERROR:
                errno = EIO;
                return -1;
        case FAKE_ANSWER_EMPTY:
                return 0;
        case FAKE_ANSWER_GARBAGE:
                text = "x";
                length = 2;
                break;
        case FAKE_ANSWER_LONG:
                text = pending_answer ? "11" : "00";
                length = 3;
                break;
        case FAKE_ANSWER_NEWLINE:
                text = pending_answer ? "1\n" : "0\n";
                length = 2;
                break;
        case FAKE_ANSWER_BARE:
                text = pending_answer ? "1" : "0";
                length = 1;
                break;
        default:
                text = pending_answer ? "1" : "0";
                length = 2;     /* with its NUL, as simple_transaction_set(file, 2) */
                break;
        }
        if (length > n)
                length = n;
        memcpy(buf, text, length);
        return (ssize_t) length;
}

int __wrap_close(int fd) {
        if (fd == pending_fd)
                pending_fd = -1;
        return __real_close(fd);
}
