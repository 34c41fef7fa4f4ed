/*
 * The undo log behind mssf-policy's all-or-nothing promise.
 *
 * An install touches four kinds of state: files (manifest copy, origin,
 * rule files, policy.db), extended attributes (SMACK64EXEC, security.ima), the kernel's
 * Smack rules, and the running bus (told last, after commit, and never
 * undone). Before each change the log stores what was there: a file's
 * bytes and mode or its absence, an xattr's value or its absence, a rule
 * pair's access in the kernel before the transaction began. Rollback
 * walks the log backwards and restores each one, and keeps going past a
 * failure so that one stuck step does not leave the others changed.
 *
 * Invariant: an entry is appended before its change is made, and only if
 * the change is then attempted, so rollback never "restores" something we
 * never touched. A change that failed half-way is still undone (the saved
 * state is written back regardless).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fileio.h"
#include "safe-root.h"
#include "transaction.h"

typedef enum UndoKind {
        UNDO_FILE,
        UNDO_XATTR,
        UNDO_KERNEL_RULE,
} UndoKind;

typedef struct Undo {
        UndoKind kind;
        FileSnapshot *file;             /* UNDO_FILE */
        const SafeRoot *root;           /* (not owned) UNDO_XATTR: where path is */
        char *path;                     /* UNDO_XATTR: inside root */
        struct stat st;                 /* UNDO_XATTR: the file that was changed */
        char *name;                     /* UNDO_XATTR */
        char *value;                    /* (nullable) UNDO_XATTR: NULL = absent */
        size_t value_size;
        char *subject;                  /* UNDO_KERNEL_RULE */
        char *object;
        unsigned access;                /* UNDO_KERNEL_RULE: the access before the transaction */
} Undo;

struct Transaction {
        Undo *undos;
        size_t n_undos;
        size_t n_allocated;
        TransactionRules rules;         /* .set NULL: none */
        char *failure;                  /* (nullable) what the first failed change was */
        bool finished;
};

int transaction_new(const TransactionRules *rules, Transaction **ret) {
        Transaction *t = calloc(1, sizeof(*t));

        if (!t)
                return -ENOMEM;
        if (rules)
                t->rules = *rules;
        *ret = t;
        return 0;
}

static void undo_clear(Undo *u) {
        file_snapshot_free(u->file);
        free(u->path);
        free(u->name);
        free(u->value);
        free(u->subject);
        free(u->object);
}

static void undos_clear(Transaction *t) {
        for (size_t i = 0; i < t->n_undos; i++)
                undo_clear(&t->undos[i]);
        t->n_undos = 0;
}

Transaction *transaction_free(Transaction *t) {
        if (!t)
                return NULL;
        if (!t->finished)
                (void) transaction_rollback(t);
        undos_clear(t);
        free(t->undos);
        free(t->failure);
        free(t);
        return NULL;
}

/* Takes *u's contents on success; on failure the caller still owns them. */
static int undo_append(Transaction *t, Undo *u) {
        if (t->n_undos == t->n_allocated) {
                size_t grow = t->n_allocated ? t->n_allocated * 2 : 16;
                Undo *bigger = reallocarray(t->undos, grow, sizeof(Undo));

                if (!bigger)
                        return -ENOMEM;
                t->undos = bigger;
                t->n_allocated = grow;
        }
        t->undos[t->n_undos++] = *u;
        *u = (Undo) {};
        return 0;
}

/* Remember the first failure, "writing /path" style, and pass r on. */
_printf_(3, 4)
static int note_failure(Transaction *t, int r, const char *format, ...) {
        va_list ap;

        if (r >= 0 || t->failure)
                return r;
        va_start(ap, format);
        if (vasprintf(&t->failure, format, ap) < 0)
                t->failure = NULL;
        va_end(ap);
        return r;
}

static int record_file(Transaction *t, const char *path) {
        Undo u = { .kind = UNDO_FILE };
        int r;

        r = file_snapshot_new(path, &u.file);
        if (r < 0)
                return r;
        r = undo_append(t, &u);
        if (r < 0)
                undo_clear(&u);
        return r;
}

int transaction_write_file(Transaction *t, const char *path, const void *data, size_t size,
                           mode_t mode) {
        int r = record_file(t, path);

        if (r >= 0)
                r = fileio_write_atomic(path, data, size, mode);
        return note_failure(t, r, "writing %s", path);
}

int transaction_remove_file(Transaction *t, const char *path) {
        int r = record_file(t, path);

        if (r >= 0)
                r = fileio_unlink(path);
        return note_failure(t, r, "removing %s", path);
}

static int xattr_write(int fd, const char *name, const void *value, size_t size) {
        if (value)
                return fsetxattr(fd, name, value, size, 0) < 0 ? -errno : 0;
        if (fremovexattr(fd, name) < 0 && errno != ENODATA)
                return -errno;
        return 0;
}

/*
 * Put a saved value back, on the very file that was changed (a file
 * renamed over it since is not touched), unless it is still there: a
 * change the kernel refused (EVM refuses security.ima on a file without a
 * valid HMAC) left it as it was, and writing it again would be refused
 * the same way.
 */
static int xattr_restore(const Undo *u) {
        _cleanup_free_ char *current = NULL;
        _cleanup_close_ int fd = -1;
        struct stat st;
        size_t size = 0;
        int r;

        r = safe_root_open(u->root, u->path, &fd, &st);
        if (r < 0)
                return r;
        if (r > 0 || !safe_root_same_file(&st, &u->st))
                return 0;
        if (fileio_fget_xattr(fd, u->name, &current, &size) >= 0 &&
            (current ? u->value && size == u->value_size && memcmp(current, u->value, size) == 0
                     : !u->value))
                return 0;
        return xattr_write(fd, u->name, u->value, u->value_size);
}

int transaction_set_xattr(Transaction *t, const SafeRoot *root, int fd, const char *path,
                          const char *name, const void *value, size_t size) {
        Undo u = { .kind = UNDO_XATTR, .root = root };
        int r;

        if (fstat(fd, &u.st) < 0)
                return note_failure(t, -errno, "reading %s", path);
        r = fileio_fget_xattr(fd, name, &u.value, &u.value_size);
        if (r < 0)
                return note_failure(t, r, "reading %s of %s", name, path);
        u.path = strdup(path);
        u.name = strdup(name);
        if (!u.path || !u.name) {
                undo_clear(&u);
                return -ENOMEM;
        }
        r = undo_append(t, &u);
        if (r < 0) {
                undo_clear(&u);
                return r;
        }
        r = xattr_write(fd, name, value, size);
        return note_failure(t, r, "setting %s on %s", name, path);
}

int transaction_set_rule(Transaction *t, const char *subject, const char *object,
                         unsigned access) {
        Undo u = { .kind = UNDO_KERNEL_RULE };
        int r;

        if (!t->rules.set)
                return -EINVAL;
        r = t->rules.get(t->rules.userdata, subject, object, &u.access);
        if (r < 0)
                return note_failure(t, r, "reading the rules from %s", t->rules.where);
        u.subject = strdup(subject);
        u.object = strdup(object);
        if (!u.subject || !u.object) {
                undo_clear(&u);
                return -ENOMEM;
        }
        r = undo_append(t, &u);
        if (r < 0) {
                undo_clear(&u);
                return r;
        }
        r = t->rules.set(t->rules.userdata, subject, object, access);
        return note_failure(t, r, "loading the rule for %s -> %s into the kernel (%s)", subject,
                            object, t->rules.where);
}

const char *transaction_failure(const Transaction *t) {
        return t->failure;
}

static int undo_apply(const Transaction *t, const Undo *u) {
        switch (u->kind) {
        case UNDO_FILE:
                return file_snapshot_restore(u->file);
        case UNDO_XATTR:
                return xattr_restore(u);
        case UNDO_KERNEL_RULE:
                return t->rules.set(t->rules.userdata, u->subject, u->object, u->access);
        }
        return -EINVAL;
}

int transaction_rollback(Transaction *t) {
        int first = 0;

        for (size_t i = t->n_undos; i > 0; i--) {
                int r = undo_apply(t, &t->undos[i - 1]);

                if (r < 0 && first == 0)
                        first = r;
        }
        undos_clear(t);
        t->finished = true;
        return first;
}

void transaction_commit(Transaction *t) {
        undos_clear(t);
        t->finished = true;
}

size_t transaction_size(const Transaction *t) {
        return t->n_undos;
}
