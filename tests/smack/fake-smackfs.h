/* A fake smackfs for host tests: a directory of real files, and a fake kernel behind access2. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The test program links with -Wl,--wrap=read,--wrap=write,--wrap=close:
 * reads and writes on a descriptor open on the fake access2 are answered
 * here, as the kernel would (one question per open, "1" or "0"); every
 * other descriptor goes to the real system calls. Everything else
 * (inotify on the rule files) is real.
 */
typedef enum FakeAnswer {
        FAKE_ANSWER_KERNEL,             /* as the kernel: "1\0" or "0\0" */
        FAKE_ANSWER_NEWLINE,            /* "1\n" */
        FAKE_ANSWER_BARE,               /* "1" without a terminator */
        FAKE_ANSWER_WRITE_ERROR,        /* write fails with EIO */
        FAKE_ANSWER_SHORT_WRITE,        /* write takes one byte less */
        FAKE_ANSWER_READ_ERROR,         /* read fails with EIO */
        FAKE_ANSWER_EMPTY,              /* read returns 0 bytes */
        FAKE_ANSWER_GARBAGE,            /* "x\0" */
        FAKE_ANSWER_LONG,               /* "11\0" */
} FakeAnswer;

typedef struct FakeSmackfs {
        char *dir;                      /* (owned) the fake mount point */
        FakeAnswer answer;
        unsigned questions;             /* access2 questions answered */
        char last_request[1024];        /* the last question, as written */
        char rules[4096][128];          /* "subject object access" (short labels only) */
        size_t n_rules;
} FakeSmackfs;

/*
 * Creates a fresh directory with access2 and, if with_rule_files, every
 * rule file the oracle watches. Only one fake is active at a time.
 */
FakeSmackfs *fake_smackfs_new(bool with_rule_files);
void fake_smackfs_free(FakeSmackfs *fake);

/* Grants "subject object access" in the fake kernel (replacing an earlier rule for the pair). */
void fake_smackfs_grant(FakeSmackfs *fake, const char *subject, const char *object, const char *access);
void fake_smackfs_revoke(FakeSmackfs *fake, const char *subject, const char *object);

/* Writes text to the named file of the fake directory (for real: inotify sees it). */
void fake_smackfs_write_file(FakeSmackfs *fake, const char *name, const char *text);
