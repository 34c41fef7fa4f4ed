/*
 * Differential test: for every input of the given corpus directories,
 * broker/wire's message_parse() and libdbus' dbus_message_demarshal()
 * must agree on accept or reject. Files named valid-* must also be
 * accepted by message_parse(), files named invalid-* rejected.
 *
 * Intended differences are the classes below, each with its reason;
 * a disagreement passes only if broker/wire is the stricter side and
 * the message libdbus accepted shows one of them. Every class must be
 * seen in the corpus, so the list cannot silently go stale. broker/wire
 * never accepts what libdbus rejects.
 */
#include <dbus/dbus.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"
#include "validate.h"

/*
 * Where broker/wire rejects what libdbus accepts, on purpose. Each class
 * is recognised from the message libdbus accepted, so fuzzer-found
 * inputs are classified as well as the named seeds.
 */
enum {
        DIFF_UNKNOWN_TYPE = 1 << 0,
        DIFF_FD_INDEX = 1 << 1,
        DIFF_UNIQUE_NAME = 1 << 2,
        DIFF_ARRAY_NESTING = 1 << 3,
};

static const char *const diff_reasons[] = {
        "unknown message type: the spec says to ignore it and libdbus accepts it; "
        "a bus cannot route what it does not understand, so broker/wire rejects it",
        "'h' value without a matching descriptor: libdbus only fails when the fd is "
        "read, broker/wire checks indexes while validating (fail early, fail closed)",
        "unique name without a '.' (\":1-7\", \":0742\"): the spec requires one in every "
        "bus name; libdbus does not check it for unique names",
        "more than 32 arrays nested through structs or dict entries: the spec limits "
        "array nesting to 32, libdbus only counts consecutive 'a' codes",
};

static bool unique_without_dot(const char *name) {
        return name && name[0] == ':' && !strchr(name, '.');
}

/* Our stricter signature rules, applied to a signature libdbus accepted. */
static bool too_deep(const char *sig) {
        return sig && !validate_signature(sig, strlen(sig));
}

static unsigned classify_values(DBusMessageIter *it) {
        unsigned classes = 0;
        int type;

        while ((type = dbus_message_iter_get_arg_type(it)) != DBUS_TYPE_INVALID) {
                if (type == DBUS_TYPE_UNIX_FD)
                        classes |= DIFF_FD_INDEX;
                if (type == DBUS_TYPE_SIGNATURE) {
                        const char *sig = NULL;

                        dbus_message_iter_get_basic(it, &sig);
                        if (too_deep(sig))
                                classes |= DIFF_ARRAY_NESTING;
                }
                if (dbus_type_is_container(type)) {
                        DBusMessageIter sub;
                        char *sig;

                        dbus_message_iter_recurse(it, &sub);
                        sig = dbus_message_iter_get_signature(&sub);
                        if (too_deep(sig))
                                classes |= DIFF_ARRAY_NESTING;
                        dbus_free(sig);
                        classes |= classify_values(&sub);
                }
                dbus_message_iter_next(it);
        }
        return classes;
}

/* Which documented differences a message libdbus accepted exhibits. */
static unsigned classify(DBusMessage *m) {
        DBusMessageIter it;
        unsigned classes = 0;
        int type = dbus_message_get_type(m);

        if (type < DBUS_MESSAGE_TYPE_METHOD_CALL || type > DBUS_MESSAGE_TYPE_SIGNAL)
                classes |= DIFF_UNKNOWN_TYPE;
        if (unique_without_dot(dbus_message_get_sender(m)) ||
            unique_without_dot(dbus_message_get_destination(m)))
                classes |= DIFF_UNIQUE_NAME;
        if (too_deep(dbus_message_get_signature(m)))
                classes |= DIFF_ARRAY_NESTING;
        if (dbus_message_iter_init(m, &it))
                classes |= classify_values(&it);
        return classes;
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

static bool libdbus_accepts(const uint8_t *data, size_t size, unsigned *ret_classes,
                            char *why, size_t why_size) {
        DBusError error;
        DBusMessage *m;

        *ret_classes = 0;
        dbus_error_init(&error);
        m = dbus_message_demarshal((const char *) data, (int) size, &error);
        snprintf(why, why_size, "%s", dbus_error_is_set(&error) ? error.message : "-");
        dbus_error_free(&error);
        if (!m)
                return false;
        *ret_classes = classify(m);
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

/* Returns the number of failures for one file; ORs the differences seen into *seen. */
static unsigned check_file(const char *dir, const char *name, unsigned *seen) {
        char path[4096], why[512];
        unsigned classes, failures = 0;
        bool ours, theirs;
        uint8_t *data = NULL;
        size_t size = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (read_file(path, &data, &size) < 0) {
                fprintf(stderr, "%s: cannot read\n", path);
                return 1;
        }
        ours = ours_accepts(data, size);
        theirs = libdbus_accepts(data, size, &classes, why, sizeof(why));
        free(data);

        if (strncmp(name, "valid-", 6) == 0 && !ours) {
                fprintf(stderr, "FAIL %s: broker/wire rejects a valid message\n", name);
                failures++;
        }
        if (strncmp(name, "invalid-", 8) == 0 && ours) {
                fprintf(stderr, "FAIL %s: broker/wire accepts an invalid message\n", name);
                failures++;
        }
        if (ours == theirs)
                return failures;
        if (!ours && theirs && classes != 0) {
                *seen |= classes;
                return failures;        /* a documented difference */
        }
        fprintf(stderr, "FAIL %s: broker/wire %s, libdbus %s (%s)\n", name,
                ours ? "accepts" : "rejects", theirs ? "accepts" : "rejects", why);
        return failures + 1;
}

int main(int argc, char **argv) {
        unsigned files = 0, failures = 0, seen = 0;

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
                        failures += check_file(argv[i], de->d_name, &seen);
                }
                closedir(d);
        }
        dbus_shutdown();
        if (files == 0) {
                fprintf(stderr, "no corpus input\n");
                return 1;
        }
        /* Each documented difference must still be exercised, and still hold. */
        for (unsigned k = 0; k < ELEMENTSOF(diff_reasons); k++) {
                if (seen & (1u << k))
                        printf("intended difference %u seen: %s\n", k, diff_reasons[k]);
                else {
                        fprintf(stderr, "FAIL: intended difference %u never seen: %s\n", k, diff_reasons[k]);
                        failures++;
                }
        }
        printf("%u inputs, %u failures\n", files, failures);
        return failures == 0 ? 0 : 1;
}
