/*
 * Protected storage. An item is a named secret under a key: the
 * caller's own (its label) or a token's. On disk
 *
 *     STORE/NAMESPACE/ITEM
 *
 * NAMESPACE and ITEM are 32 hex digits of HMAC-SHA256 with the key's
 * store-name key ("namespace", and "item " NAME): the disk names no
 * label, token or item name, and without the root nobody can tell whose
 * items a directory holds or test a guessed name. An item's file is a
 * blob of type "stored", encrypted with the key's store key, its header
 * and its name bound as associated data: a file copied over another
 * item's, or into another namespace, does not open (Altered).
 *
 * Bounds: names 1-128 of [A-Za-z0-9._-], items up to the service's input
 * limit, at most STORE_ITEMS_MAX items per key (QuotaExceeded: a caller
 * cannot fill the disk through one key; nothing bounds the number of
 * labels and tokens but the device's own packages). Writes are atomic (a
 * temporary file, fsync, rename, fsync of the directory).
 *
 * Authorization is the caller's business (service.c): whoever reaches
 * this may use ref. A missing item is NoSuchItem, which says nothing a
 * caller could not know: it may only ask about its own key's items.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blob.h"
#include "cipher.h"
#include "envelope.h"
#include "secmem.h"
#include "store.h"

/* The most an item's file may be: the largest item plus a blob's overhead. */
#define STORE_FILE_MAX (65536 + BLOB_OVERHEAD_MAX)
#define HEX_NAME_SIZE 33

bool store_valid_name(const char *name) {
        size_t n;

        if (!name || name[0] == '\0' || name[0] == '.')
                return false;
        n = strlen(name);
        if (n > STORE_NAME_MAX)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = name[i];

                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-'))
                        return false;
        }
        return true;
}

static void key_free(uint8_t *key) {
        secmem_free(key, DERIVED_KEY_SIZE);
}
DEFINE_CLEANUP(uint8_t *, key_free);

/* The namespace and item file names of (ref, name), 32 hex digits each. */
static int file_names(const RootKey *root, const KeyRef *ref, const char *name, char ns[HEX_NAME_SIZE],
                      char item[HEX_NAME_SIZE]) {
        static const char digits[] = "0123456789abcdef";
        _cleanup_(key_freep) uint8_t *key = NULL;
        uint8_t mac[2][32];
        int r;

        if ((r = rootkey_derive(root, KEY_PURPOSE_STORE_NAME, ref, &key)) < 0 ||
            (r = cipher_hmac(key, (CipherPart[]) { { "namespace", 9 } }, 1, mac[0])) < 0 ||
            (r = cipher_hmac(key, (CipherPart[]) { { "item ", 5 }, { name, strlen(name) } }, 2, mac[1])) < 0)
                return r;
        for (int i = 0; i < 16; i++) {
                ns[2 * i] = digits[mac[0][i] >> 4];
                ns[2 * i + 1] = digits[mac[0][i] & 0xf];
                item[2 * i] = digits[mac[1][i] >> 4];
                item[2 * i + 1] = digits[mac[1][i] & 0xf];
        }
        ns[32] = item[32] = '\0';
        return 0;
}

/* The namespace directory, opened (made if create). */
static int open_namespace(const char *store_dir, const char *ns, bool create) {
        _cleanup_close_ int store = -1;
        int fd;

        if (create && mkdir(store_dir, 0700) < 0 && errno != EEXIST)
                return -errno;
        store = open(store_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (store < 0)
                return -errno;
        if (create && mkdirat(store, ns, 0700) < 0 && errno != EEXIST)
                return -errno;
        fd = openat(store, ns, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

/* Items in the namespace (hex names only: temporary files are not items). */
static int count_items(int nsfd, size_t *ret) {
        int fd = dup(nsfd);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *e;
        size_t n = 0;

        if (!d) {
                safe_close(fd);
                return -errno;
        }
        while ((e = readdir(d)))
                if (strlen(e->d_name) == 32 && e->d_name[0] != '.')
                        n++;
        closedir(d);
        *ret = n;
        return 0;
}

static int write_file(int dirfd, const char *name, const Buffer *data) {
        char temp[64];
        int fd, r = 0;

        snprintf(temp, sizeof(temp), ".%s.%d", name, (int) getpid());
        fd = openat(dirfd, temp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        for (size_t at = 0; r == 0 && at < data->size;) {
                ssize_t n = write(fd, data->data + at, data->size - at);

                if (n < 0 && errno != EINTR)
                        r = -errno;
                else if (n > 0)
                        at += (size_t) n;
        }
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        safe_close(fd);
        if (r == 0 && renameat(dirfd, temp, dirfd, name) < 0)
                r = -errno;
        if (r < 0)
                (void) unlinkat(dirfd, temp, 0);
        else if (fsync(dirfd) < 0)
                r = -errno;
        return r;
}

int store_put(const char *store_dir, const RootKey *root, const KeyRef *ref, const char *creator,
              const char *name, const uint8_t *data, size_t size, KeydError *error) {
        char ns[HEX_NAME_SIZE], item[HEX_NAME_SIZE];
        _cleanup_close_ int nsfd = -1;
        Buffer blob = { 0 };
        size_t n_items = 0;
        int r;

        if ((r = file_names(root, ref, name, ns, item)) < 0)
                return keyd_fail(error, r, "cannot derive the item's file name");
        nsfd = open_namespace(store_dir, ns, true);
        if (nsfd < 0)
                return keyd_fail(error, nsfd, "cannot open the store: %s", strerror(-nsfd));
        if (faccessat(nsfd, item, F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
                if ((r = count_items(nsfd, &n_items)) < 0)
                        return keyd_fail(error, r, "cannot read the store: %s", strerror(-r));
                if (n_items >= STORE_ITEMS_MAX)
                        return keyd_fail(error, KEYD_E_QUOTA,
                                         "%zu items are stored under this key, the most there may be (%d): "
                                         "remove one first", n_items, STORE_ITEMS_MAX);
        }
        r = envelope_seal(root, BLOB_TYPE_STORED, KEY_PURPOSE_STORE, ref, creator, name, data, size, &blob);
        if (r < 0)
                return keyd_fail(error, r, "cannot encrypt the item");
        r = write_file(nsfd, item, &blob);
        buffer_wipe(&blob);
        return r < 0 ? keyd_fail(error, r, "cannot write the item: %s", strerror(-r)) : 0;
}

static int no_such_item(const char *name, KeydError *error) {
        return keyd_fail(error, KEYD_E_NO_SUCH_ITEM, "no item \"%s\" is stored under this key", name);
}

int store_get(const char *store_dir, const RootKey *root, const KeyRef *ref, const char *name, Buffer *ret,
              KeydError *error) {
        char ns[HEX_NAME_SIZE], item[HEX_NAME_SIZE];
        _cleanup_close_ int nsfd = -1, fd = -1;
        Buffer file = { 0 };
        struct stat st;
        BlobView view;
        size_t size = 0;
        int r;

        if ((r = file_names(root, ref, name, ns, item)) < 0)
                return keyd_fail(error, r, "cannot derive the item's file name");
        nsfd = open_namespace(store_dir, ns, false);
        if (nsfd == -ENOENT)
                return no_such_item(name, error);
        if (nsfd < 0)
                return keyd_fail(error, nsfd, "cannot open the store: %s", strerror(-nsfd));
        fd = openat(nsfd, item, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 && errno == ENOENT)
                return no_such_item(name, error);
        if (fd < 0 || fstat(fd, &st) < 0)
                return keyd_fail(error, -errno, "cannot read the item: %s", strerror(errno));
        if (!S_ISREG(st.st_mode) || st.st_size > STORE_FILE_MAX)
                return keyd_fail(error, KEYD_E_MALFORMED, "the item's file is not a stored item");
        if ((r = buffer_alloc(&file, (size_t) st.st_size)) < 0)
                return keyd_fail(error, r, "no memory");
        while (size < file.size) {
                ssize_t n = read(fd, file.data + size, file.size - size);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                size += (size_t) n;
        }
        file.size = size;
        r = blob_parse(file.data, file.size, BLOB_TYPE_STORED, &view);
        if (r == BLOB_E_VERSION)
                r = keyd_fail(error, KEYD_E_UNSUPPORTED_VERSION, "the item was stored by a newer format");
        else if (r != 0 || view.header.key.kind != ref->kind || strcmp(view.header.key.name, ref->name) != 0)
                r = keyd_fail(error, r != 0 ? KEYD_E_MALFORMED : KEYD_E_ALTERED,
                              "the item's file is not this key's item \"%s\"", name);
        else
                r = envelope_open(root, KEY_PURPOSE_STORE, &view, name, ret, error);
        buffer_wipe(&file);
        return r;
}

int store_remove(const char *store_dir, const RootKey *root, const KeyRef *ref, const char *name,
                 KeydError *error) {
        char ns[HEX_NAME_SIZE], item[HEX_NAME_SIZE];
        _cleanup_close_ int nsfd = -1;
        int r;

        if ((r = file_names(root, ref, name, ns, item)) < 0)
                return keyd_fail(error, r, "cannot derive the item's file name");
        nsfd = open_namespace(store_dir, ns, false);
        if (nsfd == -ENOENT)
                return no_such_item(name, error);
        if (nsfd < 0)
                return keyd_fail(error, nsfd, "cannot open the store: %s", strerror(-nsfd));
        if (unlinkat(nsfd, item, 0) < 0)
                return errno == ENOENT ? no_such_item(name, error) :
                       keyd_fail(error, -errno, "cannot remove the item: %s", strerror(errno));
        return fsync(nsfd) < 0 ? keyd_fail(error, -errno, "cannot remove the item: %s", strerror(errno)) : 0;
}
