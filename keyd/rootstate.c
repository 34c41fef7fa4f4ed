/*
 * The root key's state file, the only file that says anything about the
 * root. A line format, so a device maker can read what it is and a test
 * can hand its parts to tpm2-tools:
 *
 *     # comment
 *     mssf-keyd-root 1
 *     mode tpm
 *     storage-name HEX        the storage key's name when sealed
 *     endorsement-name HEX    the endorsement-hierarchy key's name
 *     auth HEX                the sealed object's 32-byte authorization
 *     public HEX              TPM2B_PUBLIC, marshalled
 *     private HEX             TPM2B_PRIVATE, marshalled (encrypted by the TPM)
 *
 * or, in the weaker software mode, "mode software" and "secret HEX" (the
 * root itself, protected only by the file's owner and mode).
 *
 * The file is read as untrusted (a damaged disk, an edit): bounded, each
 * key once, every value checked, unknown lines refused; a failure is
 * ROOTSTATE_E_INVALID, which the service reports as StateDamaged and
 * never "repairs" by making a new root (that would silently lose every
 * blob). It is written once, at the first start, atomically and without
 * replacing one that exists. The buffers that hold its text are in the
 * secure heap: in software mode they hold the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootstate.h"
#include "secmem.h"

#define MAGIC_LINE "mssf-keyd-root 1"

RootState *rootstate_new(void) {
        return secmem_alloc(sizeof(RootState));
}

RootState *rootstate_free(RootState *state) {
        return secmem_free(state, sizeof(RootState));
}

/* Hex (even length, either case) into out: the number of bytes, or -1 when not hex or over max. */
static ssize_t hex_decode(const char *hex, size_t len, uint8_t *out, size_t max) {
        if (len % 2 != 0 || len / 2 > max)
                return -1;
        for (size_t i = 0; i < len / 2; i++) {
                int hi = hex_digit_value(hex[2 * i]), lo = hex_digit_value(hex[2 * i + 1]);

                if (hi < 0 || lo < 0)
                        return -1;
                out[i] = (uint8_t) (hi << 4 | lo);
        }
        return (ssize_t) (len / 2);
}

enum {
        FIELD_MODE, FIELD_STORAGE_NAME, FIELD_ENDORSEMENT_NAME, FIELD_AUTH, FIELD_PUBLIC, FIELD_PRIVATE,
        FIELD_SECRET, _FIELD_MAX,
};

static const char *const field_names[_FIELD_MAX] = {
        "mode", "storage-name", "endorsement-name", "auth", "public", "private", "secret",
};

/* One "key value" line into state; false when the value is not what the key takes. */
static bool parse_field(int field, const char *value, size_t len, RootState *state) {
        ssize_t n;

        switch (field) {
        case FIELD_MODE:
                if (len == 3 && memcmp(value, "tpm", 3) == 0)
                        state->mode = ROOT_MODE_TPM;
                else if (len == 8 && memcmp(value, "software", 8) == 0)
                        state->mode = ROOT_MODE_SOFTWARE;
                else
                        return false;
                return true;
        case FIELD_STORAGE_NAME:
                n = hex_decode(value, len, state->storage_name.bytes, sizeof(state->storage_name.bytes));
                state->storage_name.size = n > 0 ? (size_t) n : 0;
                return n > 0;
        case FIELD_ENDORSEMENT_NAME:
                n = hex_decode(value, len, state->endorsement_name.bytes,
                               sizeof(state->endorsement_name.bytes));
                state->endorsement_name.size = n > 0 ? (size_t) n : 0;
                return n > 0;
        case FIELD_AUTH:
                return hex_decode(value, len, state->auth, sizeof(state->auth)) == ROOTSTATE_AUTH_SIZE;
        case FIELD_PUBLIC:
                n = hex_decode(value, len, state->sealed.public_area, sizeof(state->sealed.public_area));
                state->sealed.public_size = n > 0 ? (size_t) n : 0;
                return n > 0;
        case FIELD_PRIVATE:
                n = hex_decode(value, len, state->sealed.private_area, sizeof(state->sealed.private_area));
                state->sealed.private_size = n > 0 ? (size_t) n : 0;
                return n > 0;
        case FIELD_SECRET:
                return hex_decode(value, len, state->secret, sizeof(state->secret)) == ROOTKEY_SIZE;
        }
        return false;
}

int rootstate_parse(const char *text, size_t size, RootState *ret, char *err, size_t err_size) {
        bool seen[_FIELD_MAX] = { false }, magic = false;
        unsigned line_number = 0;
        size_t at = 0;

        memset(ret, 0, sizeof(*ret));
        if (!text || size > ROOTSTATE_MAX_SIZE || memchr(text, '\0', size)) {
                snprintf(err, err_size, "not a text file of at most %d bytes", ROOTSTATE_MAX_SIZE);
                return ROOTSTATE_E_INVALID;
        }
        while (at < size) {
                const char *line = text + at, *end = memchr(line, '\n', size - at), *space;
                size_t len = end ? (size_t) (end - line) : size - at;
                int field = -1;

                at += len + (end ? 1 : 0);
                line_number++;
                if (len == 0 || line[0] == '#')
                        continue;
                if (!magic) {
                        if (len != strlen(MAGIC_LINE) || memcmp(line, MAGIC_LINE, len) != 0) {
                                snprintf(err, err_size, "line %u: not \"%s\"", line_number, MAGIC_LINE);
                                return ROOTSTATE_E_INVALID;
                        }
                        magic = true;
                        continue;
                }
                space = memchr(line, ' ', len);
                for (int i = 0; space && i < _FIELD_MAX; i++)
                        if ((size_t) (space - line) == strlen(field_names[i]) &&
                            memcmp(line, field_names[i], strlen(field_names[i])) == 0)
                                field = i;
                if (field < 0 || seen[field] ||
                    !parse_field(field, space + 1, len - (size_t) (space - line) - 1, ret)) {
                        snprintf(err, err_size, "line %u: %s", line_number,
                                 field < 0 ? "not a field of this file" :
                                 seen[field] ? "a field given twice" : "a value this field cannot take");
                        return ROOTSTATE_E_INVALID;
                }
                seen[field] = true;
        }
        if (!magic || !seen[FIELD_MODE]) {
                snprintf(err, err_size, "no \"%s\" or no mode", MAGIC_LINE);
                return ROOTSTATE_E_INVALID;
        }
        for (int i = FIELD_STORAGE_NAME; i < _FIELD_MAX; i++)
                if (seen[i] != (ret->mode == ROOT_MODE_TPM ? i != FIELD_SECRET : i == FIELD_SECRET)) {
                        snprintf(err, err_size, "mode %s %s \"%s\"", root_mode_to_string(ret->mode),
                                 seen[i] ? "does not take" : "needs", field_names[i]);
                        return ROOTSTATE_E_INVALID;
                }
        return 0;
}

int rootstate_read(const char *dir, RootState *ret, char *err, size_t err_size) {
        _cleanup_close_ int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int fd = -1;
        char *text = NULL;
        size_t size = 0;
        struct stat st;
        int r;

        if (dirfd < 0)
                return -errno;
        fd = openat(dirfd, ROOTSTATE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode) || (st.st_mode & 0077) || st.st_size > ROOTSTATE_MAX_SIZE) {
                snprintf(err, err_size, "%s/%s is not a regular file of at most %d bytes that only its "
                         "owner may read and write", dir, ROOTSTATE_FILE, ROOTSTATE_MAX_SIZE);
                return ROOTSTATE_E_INVALID;
        }
        text = secmem_alloc(ROOTSTATE_MAX_SIZE + 1);
        if (!text)
                return -ENOMEM;
        for (;;) {
                ssize_t n = read(fd, text + size, ROOTSTATE_MAX_SIZE + 1 - size);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = -errno;
                        secmem_free(text, ROOTSTATE_MAX_SIZE + 1);
                        return r;
                }
                if (n == 0 || (size += (size_t) n) > ROOTSTATE_MAX_SIZE)
                        break;
        }
        r = rootstate_parse(text, size, ret, err, err_size);
        secmem_free(text, ROOTSTATE_MAX_SIZE + 1);
        return r;
}

static void append_hex(char *buf, size_t size, size_t *at, const char *key, const uint8_t *bytes, size_t n) {
        static const char digits[] = "0123456789abcdef";
        int k = snprintf(buf + *at, size - *at, "%s ", key);

        *at += (size_t) k;
        for (size_t i = 0; i < n && *at + 3 < size; i++) {
                buf[(*at)++] = digits[bytes[i] >> 4];
                buf[(*at)++] = digits[bytes[i] & 0xf];
        }
        buf[(*at)++] = '\n';
}

/* The text of state into buf (ROOTSTATE_MAX_SIZE): its length. */
static size_t format_state(const RootState *state, char *buf) {
        size_t at = 0;

        at += (size_t) snprintf(buf, ROOTSTATE_MAX_SIZE,
                                "# mssf-keyd: the device's root key (docs/keyd.md). Do not edit.\n"
                                "%s\nmode %s\n", MAGIC_LINE, root_mode_to_string(state->mode));
        if (state->mode == ROOT_MODE_SOFTWARE) {
                append_hex(buf, ROOTSTATE_MAX_SIZE, &at, "secret", state->secret, ROOTKEY_SIZE);
                return at;
        }
        append_hex(buf, ROOTSTATE_MAX_SIZE, &at, "storage-name", state->storage_name.bytes,
                   state->storage_name.size);
        append_hex(buf, ROOTSTATE_MAX_SIZE, &at, "endorsement-name", state->endorsement_name.bytes,
                   state->endorsement_name.size);
        append_hex(buf, ROOTSTATE_MAX_SIZE, &at, "auth", state->auth, ROOTSTATE_AUTH_SIZE);
        append_hex(buf, ROOTSTATE_MAX_SIZE, &at, "public", state->sealed.public_area, state->sealed.public_size);
        append_hex(buf, ROOTSTATE_MAX_SIZE, &at, "private", state->sealed.private_area,
                   state->sealed.private_size);
        return at;
}

static int write_all(int fd, const char *buf, size_t size) {
        while (size > 0) {
                ssize_t n = write(fd, buf, size);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                buf += n;
                size -= (size_t) n;
        }
        return 0;
}

int rootstate_write(const char *dir, const RootState *state) {
        _cleanup_close_ int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int fd = -1;
        char temp[64], *text;
        size_t size;
        int r;

        if (dirfd < 0)
                return -errno;
        snprintf(temp, sizeof(temp), ".%s.%d", ROOTSTATE_FILE, (int) getpid());
        (void) unlinkat(dirfd, temp, 0);
        fd = openat(dirfd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        text = secmem_alloc(ROOTSTATE_MAX_SIZE);
        if (!text) {
                (void) unlinkat(dirfd, temp, 0);
                return -ENOMEM;
        }
        size = format_state(state, text);
        r = write_all(fd, text, size);
        secmem_free(text, ROOTSTATE_MAX_SIZE);
        if (r == 0 && (fchmod(fd, 0600) < 0 || fsync(fd) < 0))
                r = -errno;
        /* link() never replaces: a state that appeared meanwhile is kept, and this one dropped. */
        if (r == 0 && linkat(dirfd, temp, dirfd, ROOTSTATE_FILE, 0) < 0)
                r = -errno;
        (void) unlinkat(dirfd, temp, 0);
        if (r == 0 && fsync(dirfd) < 0)
                r = -errno;
        return r;
}
