/*
 * smack-oracle: "may this label do that to that label?", answered by the
 * kernel (DESIGN.md decision 3) and cached.
 *
 * The kernel is the only authority. The bus never re-implements Smack's
 * rule ladder (star, hat, floor, web, bring-up, the loaded rules): every
 * question it cannot answer from the cache is written to smackfs/access2
 * in the long format ("subject object access", the labels as they are,
 * separated by single spaces: unlike the old fixed-width access file,
 * access2 takes no padding) and the kernel's "1" or "0" is read back on
 * the same descriptor. access2 is a transaction file: one write per
 * open, so every question opens it afresh.
 *
 * One shortcut, taken because it is the kernel's own answer: subject ==
 * object (the same interned label) is allowed without asking, since the
 * kernel permits any access by a label to itself (Smack rule 5), except
 * for "*", which may access nothing (rule 1, checked first), so "*" is
 * always asked. (The kernel answers "0" for a label it has never seen;
 * the labels asked about are those of connected processes, which the
 * kernel knows by construction.)
 *
 * The cache: SMACK_ORACLE_CACHE_SLOTS (8,192) entries in 4-way sets,
 * keyed by (subject pointer, object pointer, access bits), since labels
 * are interned; a lookup is one multiply-shift and at most four compares
 * of three fields; a miss inserts at the front of its set and evicts the
 * set's oldest entry. Measured with the benchmark, 1,024 pairs asked
 * round robin: 4,096 direct-mapped slots missed 22% of the time, 4,096
 * slots in 4-way sets 2.3%, 8,192 in 4-way sets (192 KiB) almost never.
 * Flushing bumps a generation number, so it costs nothing however large
 * the table. Errors are never cached.
 *
 * Freshness: rules change only through the smackfs rule files; each is
 * watched with inotify (IN_MODIFY for every write by any process, and
 * IN_CLOSE_WRITE). smack_oracle_refresh(), called before each dispatch
 * batch, drains the events and flushes on any of them; the bus also
 * flushes on policy reload. access and access2 are deliberately not
 * watched: questions (ours included) change nothing. If a watch is lost
 * (IN_IGNORED: smackfs unmounted) the cache is switched off for good and
 * every question goes to the kernel.
 *
 * Fail closed: any error asking or reading the kernel's answer is
 * returned as a negative errno and counted; callers deny. Library code:
 * no logging.
 */
#include "smack-oracle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

/* Every smackfs file whose writes can change an access2 answer. */
static const char *const rule_files[] = {
        "load",
        "load2",
        "load-self",
        "load-self2",
        "change-rule",
        "revoke-subject",
        "unconfined",           /* CONFIG_SECURITY_SMACK_BRINGUP only */
};

enum {
        ACCESS_READ = 1 << 0,
        ACCESS_WRITE = 1 << 1,
        ACCESS_EXECUTE = 1 << 2,
        ACCESS_APPEND = 1 << 3,
        ACCESS_TRANSMUTE = 1 << 4,
        ACCESS_LOCK = 1 << 5,
};

static const char access_letters[] = "rwxatl";

typedef struct CacheEntry {
        const SmackLabel *subject;
        const SmackLabel *object;
        uint32_t generation;            /* valid only when equal to the oracle's */
        uint8_t access;
        uint8_t allowed;
} CacheEntry;

#define CACHE_WAYS 4
#define CACHE_SETS (SMACK_ORACLE_CACHE_SLOTS / CACHE_WAYS)
#define CACHE_SET_BITS 11

_Static_assert(CACHE_SETS == 1u << CACHE_SET_BITS, "cache_set() takes CACHE_SET_BITS bits");

struct SmackOracle {
        int dir_fd;                     /* (owned) smackfs, O_PATH; -1 without Smack */
        int inotify_fd;                 /* (owned) -1 without Smack */
        bool has_smack;
        uint32_t generation;            /* never 0: 0 marks an empty slot */
        SmackOracleStats stats;
        CacheEntry cache[CACHE_SETS][CACHE_WAYS];       /* way 0: the newest */
};

/* "w" -> ACCESS_WRITE; -EINVAL for an empty string or a letter outside "rwxatl". */
static int access_parse(const char *access, unsigned *ret) {
        unsigned mask = 0;

        if (!access || !access[0])
                return -EINVAL;
        for (const char *c = access; *c; c++) {
                const char *letter = strchr(access_letters, *c);

                if (!letter)
                        return -EINVAL;
                mask |= 1u << (letter - access_letters);
        }
        *ret = mask;
        return 0;
}

/* The canonical spelling of mask ("rw", never "wr"), for the kernel. */
static void access_format(unsigned mask, char ret[sizeof(access_letters)]) {
        size_t n = 0;

        for (size_t i = 0; access_letters[i]; i++)
                if (mask & (1u << i))
                        ret[n++] = access_letters[i];
        ret[n] = '\0';
}

static CacheEntry *cache_set(SmackOracle *oracle, const SmackLabel *subject, const SmackLabel *object,
                             unsigned access) {
        uint64_t h = (uint64_t) (uintptr_t) subject * 0x9e3779b97f4a7c15ull;

        h ^= (uint64_t) (uintptr_t) object * 0xc2b2ae3d27d4eb4full;
        h ^= access;
        h *= 0x94d049bb133111ebull;
        return oracle->cache[h >> (64 - CACHE_SET_BITS)];
}

/* The live entry for the key in set, or NULL. */
static const CacheEntry *cache_find(const SmackOracle *oracle, const CacheEntry *set,
                                    const SmackLabel *subject, const SmackLabel *object, unsigned access) {
        for (size_t way = 0; way < CACHE_WAYS; way++) {
                const CacheEntry *entry = &set[way];

                if (entry->subject == subject && entry->object == object && entry->access == access &&
                    entry->generation == oracle->generation)
                        return entry;
        }
        return NULL;
}

/* Inserts at the front of set; the oldest way falls out. */
static void cache_insert(SmackOracle *oracle, CacheEntry *set, const SmackLabel *subject,
                         const SmackLabel *object, unsigned access, int allowed) {
        memmove(&set[1], &set[0], (CACHE_WAYS - 1) * sizeof(*set));
        set[0] = (CacheEntry) {
                .subject = subject,
                .object = object,
                .generation = oracle->generation,
                .access = (uint8_t) access,
                .allowed = (uint8_t) allowed,
        };
}

/*
 * The kernel's answer, as access2 gives it: "1" or "0", possibly followed
 * by a NUL or a newline. Anything else is -EIO.
 */
static int answer_parse(const char *answer, ssize_t n) {
        if (n < 1 || n > 2)
                return -EIO;
        if (n == 2 && answer[1] != '\0' && answer[1] != '\n')
                return -EIO;
        if (answer[0] == '1')
                return 1;
        if (answer[0] == '0')
                return 0;
        return -EIO;
}

/* One access2 transaction: open, write the question, read the answer. */
static int kernel_ask(SmackOracle *oracle, const SmackLabel *subject, const SmackLabel *object,
                      unsigned access) {
        char request[2 * SMACK_LABEL_MAX + sizeof(access_letters) + 2];
        char letters[sizeof(access_letters)];
        char answer[8];
        _cleanup_close_ int fd = -1;
        ssize_t n;
        int length;

        access_format(access, letters);
        length = snprintf(request, sizeof(request), "%s %s %s", subject->text, object->text, letters);
        if (length < 0 || (size_t) length >= sizeof(request))
                return -EINVAL;
        fd = openat(oracle->dir_fd, "access2", O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        n = write(fd, request, (size_t) length);
        if (n < 0)
                return -errno;
        if (n != length)
                return -EIO;
        n = read(fd, answer, sizeof(answer));
        if (n < 0)
                return -errno;
        return answer_parse(answer, n);
}

static int watch_rule_files(SmackOracle *oracle, const char *smackfs) {
        for (size_t i = 0; i < ELEMENTSOF(rule_files); i++) {
                _cleanup_free_ char *path = NULL;

                if (asprintf(&path, "%s/%s", smackfs, rule_files[i]) < 0)
                        return -ENOMEM;
                if (inotify_add_watch(oracle->inotify_fd, path, IN_MODIFY | IN_CLOSE_WRITE) < 0) {
                        /* Older kernels lack some of them; a missing file cannot change. */
                        if (errno == ENOENT)
                                continue;
                        return -errno;
                }
                oracle->stats.watches++;
        }
        /* Nothing watched: no way to see a rule change, so do not cache. */
        oracle->stats.cache_enabled = oracle->stats.watches > 0;
        return 0;
}

/* Opens smackfs; has_smack stays false when it (or its access2) is absent. */
static int oracle_open_smackfs(SmackOracle *oracle, const char *smackfs) {
        int r;

        oracle->dir_fd = open(smackfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (oracle->dir_fd < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        if (faccessat(oracle->dir_fd, "access2", F_OK, 0) < 0) {
                r = errno;
                oracle->dir_fd = safe_close(oracle->dir_fd);
                return r == ENOENT ? 0 : -r;
        }
        oracle->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (oracle->inotify_fd < 0)
                return -errno;
        r = watch_rule_files(oracle, smackfs);
        if (r < 0)
                return r;
        oracle->has_smack = true;
        return 0;
}

int smack_oracle_new(const char *smackfs, SmackOracle **ret) {
        _cleanup_(smack_oracle_freep) SmackOracle *oracle = NULL;
        int r;

        if (!ret)
                return -EINVAL;
        oracle = calloc(1, sizeof(*oracle));
        if (!oracle)
                return -ENOMEM;
        oracle->dir_fd = -1;
        oracle->inotify_fd = -1;
        oracle->generation = 1;
        r = oracle_open_smackfs(oracle, smackfs ? smackfs : SMACK_ORACLE_DEFAULT_PATH);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(oracle);
        return 0;
}

SmackOracle *smack_oracle_free(SmackOracle *oracle) {
        if (!oracle)
                return NULL;
        safe_close(oracle->inotify_fd);
        safe_close(oracle->dir_fd);
        free(oracle);
        return NULL;
}

bool smack_oracle_has_smack(const SmackOracle *oracle) {
        return oracle && oracle->has_smack;
}

int smack_oracle_get_fd(const SmackOracle *oracle) {
        return oracle ? oracle->inotify_fd : -1;
}

void smack_oracle_flush(SmackOracle *oracle) {
        if (!oracle)
                return;
        oracle->stats.flushes++;
        if (++oracle->generation == 0) {
                /* After 2^32 flushes: really empty the table once. */
                memset(oracle->cache, 0, sizeof(oracle->cache));
                oracle->generation = 1;
        }
}

/* Looks at what inotify reported: a lost watch ends caching for good. */
static void oracle_note_events(SmackOracle *oracle, const char *buffer, size_t size) {
        size_t offset = 0;

        while (offset + sizeof(struct inotify_event) <= size) {
                struct inotify_event event;

                memcpy(&event, buffer + offset, sizeof(event));
                if (event.mask & IN_IGNORED)
                        oracle->stats.cache_enabled = false;
                offset += sizeof(event) + event.len;
        }
}

int smack_oracle_refresh(SmackOracle *oracle) {
        char buffer[4096];
        bool changed = false;

        if (!oracle)
                return -EINVAL;
        if (!oracle->has_smack)
                return 0;
        for (;;) {
                ssize_t n = read(oracle->inotify_fd, buffer, sizeof(buffer));

                if (n < 0) {
                        int r = -errno;

                        if (r == -EINTR)
                                continue;
                        if (r == -EAGAIN)
                                break;
                        smack_oracle_flush(oracle);
                        return r;
                }
                if (n == 0)
                        break;
                changed = true;
                oracle_note_events(oracle, buffer, (size_t) n);
        }
        if (!changed)
                return 0;
        smack_oracle_flush(oracle);
        return 1;
}

int smack_has_access(SmackOracle *oracle, const SmackLabel *subject, const SmackLabel *object,
                     const char *access) {
        const CacheEntry *entry;
        CacheEntry *set;
        unsigned mask;
        int r;

        if (!oracle || !subject || !object)
                return -EINVAL;
        r = access_parse(access, &mask);
        if (r < 0)
                return r;
        if (!oracle->has_smack)
                return -EOPNOTSUPP;
        oracle->stats.queries++;
        /* Smack rule 5 (rule 1 first: "*" may not even access "*"). */
        if (subject == object && !subject->is_star) {
                oracle->stats.same_label++;
                return 1;
        }
        set = cache_set(oracle, subject, object, mask);
        entry = oracle->stats.cache_enabled ? cache_find(oracle, set, subject, object, mask) : NULL;
        if (entry) {
                oracle->stats.cache_hits++;
                return entry->allowed;
        }
        oracle->stats.kernel_queries++;
        r = kernel_ask(oracle, subject, object, mask);
        if (r < 0) {
                oracle->stats.kernel_errors++;
                return r;
        }
        cache_insert(oracle, set, subject, object, mask, r);
        return r;
}

int smack_has_token_label(SmackOracle *oracle, const SmackLabel *subject, const char *token,
                          const SmackLabel **ret_token) {
        const SmackLabel *token_label;
        int r;

        if (!oracle || !token)
                return -EINVAL;
        if (!oracle->has_smack) {
                /* DESIGN.md decision 7: without Smack every token requirement denies. */
                oracle->stats.no_smack_denials++;
                return 0;
        }
        if (!subject)
                return -EINVAL;
        /* The policy names few tokens: after the first time, a lookup without validation. */
        token_label = smack_label_find(token);
        if (!token_label) {
                r = smack_label_intern(token, &token_label);
                if (r > 0)
                        return -EINVAL;
                if (r < 0)
                        return r;
        }
        r = smack_has_access(oracle, subject, token_label, "w");
        if (r > 0 && ret_token)
                *ret_token = token_label;
        return r;
}

int smack_has_token(SmackOracle *oracle, const SmackLabel *subject, const char *token) {
        return smack_has_token_label(oracle, subject, token, NULL);
}

int smack_has_token_uncached(SmackOracle *oracle, const SmackLabel *subject, const char *token) {
        /* Only its text is read: the label is never interned, so it must not reach the cache. */
        SmackLabel object = { .text = token };
        unsigned mask;
        int r;

        if (!oracle || !token || !smack_label_is_valid(token))
                return -EINVAL;
        if (!oracle->has_smack) {
                oracle->stats.no_smack_denials++;
                return 0;
        }
        if (!subject)
                return -EINVAL;
        r = access_parse("w", &mask);
        if (r < 0)
                return r;
        object.length = strlen(token);
        oracle->stats.queries++;
        oracle->stats.kernel_queries++;
        r = kernel_ask(oracle, subject, &object, mask);
        if (r < 0)
                oracle->stats.kernel_errors++;
        return r;
}

int smack_oracle_policy_has_token(const char *label, const char *token, void *userdata) {
        SmackOracle *oracle = userdata;
        const SmackLabel *subject = NULL;
        int r;

        if (!oracle || !label)
                return -EINVAL;
        if (oracle->has_smack) {
                r = smack_label_intern(label, &subject);
                if (r > 0)
                        return -EINVAL;
                if (r < 0)
                        return r;
        }
        return smack_has_token(oracle, subject, token);
}

void smack_oracle_get_stats(const SmackOracle *oracle, SmackOracleStats *ret) {
        *ret = oracle->stats;
}
