/*
 * Differential test: for every input of the given corpus directories,
 * broker/wire's message_parse() and libdbus' dbus_message_demarshal()
 * must agree on accept or reject. Files named valid-* must also be
 * accepted by message_parse(), files named invalid-* rejected.
 *
 * Intended differences are listed in known_differences[] with the
 * reason; each is checked to still behave exactly as documented, so
 * the list cannot silently go stale. In every case broker/wire is the
 * stricter one (fail-closed); it never accepts what libdbus rejects.
 */
#include <dbus/dbus.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"

typedef struct KnownDifference {
        const char *file;
        const char *reason;
} KnownDifference;

/* libdbus accepts these, broker/wire rejects them. */
static const KnownDifference known_differences[] = {
        { "invalid-type-5",
          "unknown message type: the spec says to ignore it; libdbus accepts it, "
          "a bus cannot route what it does not understand, so broker/wire rejects it" },
        { "invalid-body-h-without-fds",
          "'h' index with no UNIX_FDS field: libdbus only fails when the fd is read, "
          "broker/wire checks indexes while validating (fail early, fail closed)" },
        { "invalid-sig-33-nested-arrays",
          "33 arrays nested through structs: the spec limits array nesting to 32; "
          "libdbus only counts consecutive 'a' codes" },
};

static const KnownDifference *find_known(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(known_differences); i++)
                if (strcmp(known_differences[i].file, name) == 0)
                        return &known_differences[i];
        return NULL;
}

static int read_file(const char *path, uint8_t **ret, size_t *ret_size) {
        FILE *f = fopen(path, "rb");
        uint8_t *buf = NULL;
        size_t size = 0, cap = 0;

        if (!f)
                return -errno;
        for (;;) {
                size_t n;

                if (size == cap) {
                        uint8_t *p = realloc(buf, cap = cap ? cap * 2 : 4096);

                        if (!p) {
                                free(buf);
                                fclose(f);
                                return -ENOMEM;
                        }
                        buf = p;
                }
                n = fread(buf + size, 1, cap - size, f);
                if (n == 0)
                        break;
                size += n;
        }
        fclose(f);
        *ret = buf;
        *ret_size = size;
        return 0;
}

static bool ours_accepts(const uint8_t *data, size_t size) {
        Message *m = NULL;
        int r = message_parse(data, size, NULL, 0, &m);

        message_unref(m);
        return r == 0;
}

static bool libdbus_accepts(const uint8_t *data, size_t size, char *why, size_t why_size) {
        DBusError error;
        DBusMessage *m;

        dbus_error_init(&error);
        m = dbus_message_demarshal((const char *) data, (int) size, &error);
        snprintf(why, why_size, "%s", dbus_error_is_set(&error) ? error.message : "-");
        dbus_error_free(&error);
        if (!m)
                return false;
        dbus_message_unref(m);
        /*
         * demarshal() takes the first message out of the buffer and ignores
         * what follows; message_parse() gets exactly one framed message.
         * Bytes after the first message are therefore a rejection here.
         */
        if (size >= 16 && dbus_message_demarshal_bytes_needed((const char *) data, (int) size) != (int) size) {
                snprintf(why, why_size, "trailing bytes after the message");
                return false;
        }
        return true;
}

/* Returns the number of failures for one file. */
static unsigned check_file(const char *dir, const char *name) {
        const KnownDifference *known = find_known(name);
        char path[4096], why[512];
        bool ours, theirs;
        uint8_t *data = NULL;
        size_t size = 0;
        unsigned failures = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (read_file(path, &data, &size) < 0) {
                fprintf(stderr, "%s: cannot read\n", path);
                return 1;
        }
        ours = ours_accepts(data, size);
        theirs = libdbus_accepts(data, size, why, sizeof(why));
        free(data);

        if (strncmp(name, "valid-", 6) == 0 && !ours) {
                fprintf(stderr, "FAIL %s: broker/wire rejects a valid message\n", name);
                failures++;
        }
        if (strncmp(name, "invalid-", 8) == 0 && ours) {
                fprintf(stderr, "FAIL %s: broker/wire accepts an invalid message\n", name);
                failures++;
        }
        if (known) {
                if (ours || !theirs) {
                        fprintf(stderr, "FAIL %s: documented difference no longer holds "
                                "(ours %d, libdbus %d): %s\n", name, ours, theirs, known->reason);
                        failures++;
                }
        } else if (ours != theirs) {
                fprintf(stderr, "FAIL %s: broker/wire %s, libdbus %s (%s)\n", name,
                        ours ? "accepts" : "rejects", theirs ? "accepts" : "rejects", why);
                failures++;
        }
        return failures;
}

int main(int argc, char **argv) {
        unsigned files = 0, failures = 0;

        for (int i = 1; i < argc; i++) {
                DIR *d = opendir(argv[i]);
                struct dirent *de;

                if (!d) {
                        perror(argv[i]);
                        return 1;
                }
                while ((de = readdir(d))) {
                        if (de->d_name[0] == '.')
                                continue;
                        files++;
                        failures += check_file(argv[i], de->d_name);
                }
                closedir(d);
        }
        dbus_shutdown();
        if (files == 0) {
                fprintf(stderr, "no corpus input\n");
                return 1;
        }
        printf("%u inputs, %u failures\n", files, failures);
        return failures == 0 ? 0 : 1;
}
