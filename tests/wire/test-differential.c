/*
 * Differential test: for every input of the given corpus directories,
 * broker/wire's message_parse() and libdbus' dbus_message_demarshal()
 * must agree on accept or reject, and where both accept, on the header
 * fields and the top-level arguments. Files named valid-* must also be
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
        DIFF_FD_INDEX = 1 << 0,
        DIFF_UNIQUE_NAME = 1 << 1,
        DIFF_ARRAY_NESTING = 1 << 2,
};

static const char *const diff_reasons[] = {
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

static Message *ours_parse(const uint8_t *data, size_t size) {
        Message *m = NULL;

        if (message_parse(data, size, NULL, 0, &m) != 0)
                return NULL;
        return m;
}

/* The message libdbus accepted (NULL if rejected), with the difference classes it shows. */
static DBusMessage *libdbus_parse(const uint8_t *data, size_t size, unsigned *ret_classes,
                                  char *why, size_t why_size) {
        DBusError error;
        DBusMessage *m;

        *ret_classes = 0;
        dbus_error_init(&error);
        m = dbus_message_demarshal((const char *) data, (int) size, &error);
        snprintf(why, why_size, "%s", dbus_error_is_set(&error) ? error.message : "-");
        dbus_error_free(&error);
        if (!m)
                return NULL;
        *ret_classes = classify(m);
        /*
         * demarshal() takes the first message out of the buffer and ignores
         * what follows; message_parse() gets exactly one framed message.
         * Bytes after the first message are therefore a rejection here.
         */
        if (size >= 16 && dbus_message_demarshal_bytes_needed((const char *) data, (int) size) != (int) size) {
                snprintf(why, why_size, "trailing bytes after the message");
                dbus_message_unref(m);
                return NULL;
        }
        return m;
}

static bool same_string(const char *a, const char *b) {
        /* libdbus reports an absent signature as "". */
        return strcmp(a ?: "", b ?: "") == 0;
}

/* When both accept, they must also read the same header. */
static const char *header_mismatch(Message *ours, DBusMessage *theirs) {
        if (message_get_type(ours) != dbus_message_get_type(theirs))
                return "type";
        if (message_get_serial(ours) != dbus_message_get_serial(theirs))
                return "serial";
        if (message_get_reply_serial(ours) != dbus_message_get_reply_serial(theirs))
                return "reply serial";
        if (!!(message_get_flags(ours) & MESSAGE_FLAG_NO_REPLY_EXPECTED) != !!dbus_message_get_no_reply(theirs))
                return "no-reply flag";
        if (!(message_get_flags(ours) & MESSAGE_FLAG_NO_AUTO_START) != !!dbus_message_get_auto_start(theirs))
                return "auto-start flag";
        if (!!(message_get_flags(ours) & MESSAGE_FLAG_ALLOW_INTERACTIVE_AUTHORIZATION) !=
            !!dbus_message_get_allow_interactive_authorization(theirs))
                return "interactive-authorization flag";
        if (!same_string(message_get_path(ours), dbus_message_get_path(theirs)))
                return "path";
        if (!same_string(message_get_interface(ours), dbus_message_get_interface(theirs)))
                return "interface";
        if (!same_string(message_get_member(ours), dbus_message_get_member(theirs)))
                return "member";
        if (!same_string(message_get_error_name(ours), dbus_message_get_error_name(theirs)))
                return "error name";
        if (!same_string(message_get_destination(ours), dbus_message_get_destination(theirs)))
                return "destination";
        if (!same_string(message_get_sender(ours), dbus_message_get_sender(theirs)))
                return "sender";
        if (!same_string(message_get_signature(ours), dbus_message_get_signature(theirs)))
                return "signature";
        return NULL;
}

/* ... and the same top-level arguments (what match rules look at). */
static const char *args_mismatch(Message *ours, DBusMessage *theirs) {
        MessageArg args[MESSAGE_ARGS_MAX];
        DBusMessageIter it;
        unsigned n = 0, i = 0;
        int type;

        if (message_get_args(ours, args, &n) != 0)
                return "arguments (message_get_args failed)";
        if (!dbus_message_iter_init(theirs, &it))
                return n == 0 ? NULL : "argument count";
        while ((type = dbus_message_iter_get_arg_type(&it)) != DBUS_TYPE_INVALID && i < MESSAGE_ARGS_MAX) {
                char expected = type == DBUS_TYPE_STRUCT ? '(' : (char) type;

                if (i >= n || args[i].type != expected)
                        return "argument type";
                if (type == DBUS_TYPE_STRING || type == DBUS_TYPE_OBJECT_PATH || type == DBUS_TYPE_SIGNATURE) {
                        const char *str = NULL;

                        dbus_message_iter_get_basic(&it, &str);
                        if (!args[i].str || strcmp(args[i].str, str) != 0)
                                return "string argument";
                } else if (args[i].str)
                        return "non-string argument with a string";
                i++;
                dbus_message_iter_next(&it);
        }
        return i == n ? NULL : "argument count";
}

/* Returns the number of failures for one file; ORs the differences seen into *seen. */
static unsigned check_file(const char *dir, const char *name, unsigned *seen) {
        char path[4096], why[512];
        unsigned classes, failures = 0;
        DBusMessage *theirs_message;
        Message *ours_message;
        const char *mismatch;
        bool ours, theirs;
        uint8_t *data = NULL;
        size_t size = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (read_file(path, &data, &size) < 0) {
                fprintf(stderr, "%s: cannot read\n", path);
                return 1;
        }
        ours_message = ours_parse(data, size);
        theirs_message = libdbus_parse(data, size, &classes, why, sizeof(why));
        free(data);
        ours = ours_message;
        theirs = theirs_message;
        if (ours && theirs && ((mismatch = header_mismatch(ours_message, theirs_message)) ||
                               (mismatch = args_mismatch(ours_message, theirs_message)))) {
                fprintf(stderr, "FAIL %s: broker/wire and libdbus read a different %s\n", name, mismatch);
                failures++;
        }
        message_unref(ours_message);
        if (theirs_message)
                dbus_message_unref(theirs_message);

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
