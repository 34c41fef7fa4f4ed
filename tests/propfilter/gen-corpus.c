/*
 * Writes the seed corpus of fuzz-propfilter (one file per input: selector
 * byte, 8-byte visibility mask, message) into the directory argv[1].
 * Deterministic; run it again after changing the seeds and commit the
 * result (libFuzzer runs add their finds to the same directory).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "propfilter-testlib.h"

static const uint64_t masks[] = {
        UINT64_MAX, 0, 0x5555555555555555u, 0x0f0f0f0ff0f0f0f0u,
};

static unsigned n_seeds;

static int write_seed(const char *dir, const char *what, uint8_t selector, uint64_t mask,
                      const void *data, size_t size) {
        char path[4096];
        FILE *f;

        snprintf(path, sizeof(path), "%s/seed-%03u-%s", dir, n_seeds++, what);
        f = fopen(path, "wbe");
        if (!f)
                return -errno;
        fputc(selector, f);
        fwrite(&mask, 8, 1, f);
        fwrite(data, 1, size, f);
        return fclose(f) == 0 ? 0 : -errno;
}

/*
 * Every mask, for each selector given; for the first selector also the 64
 * masks with one bit clear, so that each question is once the only hidden
 * one (small messages only: big ones get the first mask alone).
 */
static int seeds(const char *dir, const char *what, Message *m, const uint8_t *selectors,
                 size_t n_selectors) {
        size_t size;
        const void *data = message_get_data(m, &size);
        int k = 0;

        for (size_t s = 0; s < n_selectors && !k; s++)
                for (size_t i = 0; i < ELEMENTSOF(masks) && !k; i++) {
                        k = write_seed(dir, what, selectors[s], masks[i], data, size);
                        if (size > 4096)
                                break;
                }
        for (unsigned bit = 0; bit < 64 && size <= 4096 && !k; bit++)
                k = write_seed(dir, what, selectors[0], ~(UINT64_C(1) << bit), data, size);
        message_unref(m);
        return k;
}

#define SEEDS(what, build, ...) do {                                                    \
                Message *_m = NULL;                                                     \
                const uint8_t _sel[] = { __VA_ARGS__ };                                 \
                int _k = (build);                                                       \
                if (_k || (_k = seeds(dir, what, _m, _sel, sizeof(_sel))))              \
                        return _k;                                                      \
        } while (0)

static int malformed(Message **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int k;

        k = message_new_signal(":1.7", "/o", "org.freedesktop.DBus.Properties", "PropertiesChanged", &b);
        if (!k)
                k = message_builder_append_basic(b, 's', "org.ex.I");
        if (!k)
                k = testlib_append_properties(b, "A,C");
        return k ?: message_builder_finish(b, ret);
}

static int generate(const char *dir) {
        uint8_t buf[512];
        size_t n;

        SEEDS("get-all", testlib_get_all_reply("Name,Secret,Nested,Structs,Other,Vv,Dict", &_m), 1, 2, 5);
        SEEDS("get-all-fds", testlib_get_all_reply("Fd1,A,Fd2", &_m), 1);
        SEEDS("get-all-big", testlib_get_all_reply("A,Big,C", &_m), 1);
        SEEDS("get-all-empty", testlib_get_all_reply("", &_m), 1);
        SEEDS("managed-objects", testlib_managed_objects_reply(
                "/a:org.ex.A=P,Nested;org.ex.B=Q|/b:org.ex.B=Q,R|/c:|/d:org.ex.D=;bad name=X", &_m),
                3, 7, 11);
        SEEDS("managed-objects-as-get-all", testlib_managed_objects_reply("/a:org.ex.A=P", &_m), 1, 5);
        SEEDS("properties-changed", testlib_properties_changed("/o", "org.ex.I",
                "A,Secret,Nested,Structs", "B,Secret2", &_m), 0, 8);
        SEEDS("properties-changed-bad-interface", testlib_properties_changed("/o", "not one",
                "A", "B", &_m), 0);
        SEEDS("properties-changed-empty", testlib_properties_changed("/o", "org.ex.I", "", "", &_m), 0);
        SEEDS("interfaces-added", testlib_interfaces_added("/o",
                "org.ex.A=P,Q;org.ex.B=R,S;org.ex.C=;org.ex.D=Fd,Vv", &_m), 0, 8);
        SEEDS("malformed", malformed(&_m), 0);
        n = testlib_big_endian_get_all(buf);
        for (size_t i = 0; i < ELEMENTSOF(masks); i++) {
                int k = write_seed(dir, "big-endian", 1, masks[i], buf, n);

                if (k)
                        return k;
        }
        /* After the older seeds, so that their numbers stay. */
        SEEDS("interfaces-removed", testlib_interfaces_removed("/o",
                "org.ex.A,org.ex.B,not one,org.ex.C", &_m), 0, 8);
        SEEDS("interfaces-removed-empty", testlib_interfaces_removed("/o", "", &_m), 0);
        return 0;
}

int main(int argc, char **argv) {
        int k;

        if (argc != 2) {
                fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
                return 2;
        }
        k = generate(argv[1]);
        if (k) {
                fprintf(stderr, "gen-corpus: %s\n", strerror(k < 0 ? -k : EINVAL));
                return 1;
        }
        printf("%u seeds\n", n_seeds);
        return 0;
}
