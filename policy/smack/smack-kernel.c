/*
 * The kernel's side of Smack, through smackfs.
 *
 * load2 takes one "subject object access" per write and *sets* that
 * pair's access ("-" clears it); reading it lists every rule. access2 is
 * a transaction file: write a question, read "1" or "0" from the same
 * file descriptor. Writes use O_APPEND, which smackfs ignores, so that a
 * test can stand a plain directory with a regular load2 file in for
 * smackfs: the listing then holds every write in order, and reading it
 * with "last one wins" gives the same state the kernel would have.
 * Nothing here decides anything; it only carries rules to the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "smack-kernel.h"

bool smack_kernel_available(const char *smackfs) {
        _cleanup_free_ char *load2 = fileio_join(smackfs, "load2");

        return load2 && access(load2, W_OK) == 0;
}

int smack_kernel_read(const char *smackfs, SmackRules **ret) {
        _cleanup_free_ char *load2 = fileio_join(smackfs, "load2");
        _cleanup_(smack_rules_freep) SmackRules *rules = NULL;
        _cleanup_free_ char *text = NULL;
        int r;

        if (!load2)
                return -ENOMEM;
        r = fileio_read(load2, &text, NULL);
        if (r < 0)
                return r;
        r = smack_rules_new(&rules);
        if (r < 0)
                return r;
        r = smack_rules_parse(rules, text, true, NULL);
        if (r != 0)
                return r < 0 ? r : -EBADMSG;
        *ret = TAKE_PTR(rules);
        return 0;
}

int smack_kernel_set(const char *smackfs, const char *subject, const char *object, unsigned access) {
        _cleanup_free_ char *load2 = fileio_join(smackfs, "load2");
        _cleanup_free_ char *line = NULL;
        _cleanup_close_ int fd = -1;
        char letters[SMACK_ACCESS_STRING_MAX];
        ssize_t n;
        int len;

        if (!load2)
                return -ENOMEM;
        if (!smack_label_valid(subject) || !smack_label_valid(object))
                return -EINVAL;
        smack_access_format(access, letters);
        len = asprintf(&line, "%s %s %s\n", subject, object, letters);
        if (len < 0)
                return -ENOMEM;
        fd = open(load2, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = write(fd, line, (size_t) len);
        if (n < 0)
                return -errno;
        if (n != len)
                return -EIO;
        return 0;
}

int smack_kernel_access(const char *smackfs, const char *subject, const char *object,
                        const char *access) {
        _cleanup_free_ char *access2 = fileio_join(smackfs, "access2");
        _cleanup_free_ char *question = NULL;
        _cleanup_close_ int fd = -1;
        char answer[2] = "";
        int len;

        if (!access2)
                return -ENOMEM;
        if (!smack_label_valid(subject) || !smack_label_valid(object))
                return -EINVAL;
        len = asprintf(&question, "%s %s %s", subject, object, access);
        if (len < 0)
                return -ENOMEM;
        fd = open(access2, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (write(fd, question, (size_t) len) != len)
                return errno > 0 ? -errno : -EIO;
        if (read(fd, answer, 1) != 1)
                return errno > 0 ? -errno : -EIO;
        if (answer[0] == '1')
                return 1;
        if (answer[0] == '0')
                return 0;
        return -EBADMSG;
}

struct SmackKernelRules {
        char *smackfs;
        SmackRules *before;             /* (nullable) read at the first question */
};

int smack_kernel_rules_new(const char *smackfs, SmackKernelRules **ret) {
        SmackKernelRules *k = calloc(1, sizeof(*k));

        if (!k)
                return -ENOMEM;
        k->smackfs = strdup(smackfs);
        if (!k->smackfs) {
                free(k);
                return -ENOMEM;
        }
        *ret = k;
        return 0;
}

SmackKernelRules *smack_kernel_rules_free(SmackKernelRules *k) {
        if (!k)
                return NULL;
        free(k->smackfs);
        smack_rules_free(k->before);
        free(k);
        return NULL;
}

/* What the pair had before the transaction's first change: the listing, read once. */
static int rules_get(void *userdata, const char *subject, const char *object,
                     unsigned *ret_access) {
        SmackKernelRules *k = userdata;
        int r;

        if (!k->before) {
                r = smack_kernel_read(k->smackfs, &k->before);
                if (r < 0)
                        return r;
        }
        *ret_access = smack_rules_get(k->before, subject, object);
        return 0;
}

static int rules_set(void *userdata, const char *subject, const char *object, unsigned access) {
        SmackKernelRules *k = userdata;

        return smack_kernel_set(k->smackfs, subject, object, access);
}

TransactionRules smack_kernel_transaction_rules(SmackKernelRules *k) {
        return (TransactionRules) {
                .get = rules_get,
                .set = rules_set,
                .where = k->smackfs,
                .userdata = k,
        };
}
