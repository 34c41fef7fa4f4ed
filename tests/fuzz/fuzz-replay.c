/*
 * Replays a libFuzzer harness over its corpus once, without libFuzzer.
 * Every argument is a file or a directory of files; each file is one input.
 * A harness that crashes or trips a sanitizer fails the test; an empty or
 * missing corpus fails too, so the test cannot pass by replaying nothing.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
        FILE *f = fopen(path, "rb");
        if (!f) {
                perror(path);
                return -1;
        }
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0;
        for (;;) {
                if (len == cap) {
                        cap = cap ? cap * 2 : 4096;
                        uint8_t *n = realloc(buf, cap);
                        if (!n) {
                                free(buf);
                                fclose(f);
                                return -1;
                        }
                        buf = n;
                }
                size_t r = fread(buf + len, 1, cap - len, f);
                if (r == 0)
                        break;
                len += r;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        return 0;
}

static int replay_path(const char *path, unsigned *count) {
        struct stat st;
        if (stat(path, &st) < 0) {
                perror(path);
                return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
                (*count)++;
                return replay_file(path);
        }
        DIR *d = opendir(path);
        if (!d) {
                perror(path);
                return -1;
        }
        struct dirent *de;
        int r = 0;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                char child[4096];
                snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
                if (replay_path(child, count) < 0)
                        r = -1;
        }
        closedir(d);
        return r;
}

int main(int argc, char **argv) {
        unsigned count = 0;
        for (int i = 1; i < argc; i++)
                if (replay_path(argv[i], &count) < 0)
                        return 1;
        if (count == 0) {
                fprintf(stderr, "no corpus input replayed\n");
                return 1;
        }
        printf("replayed %u inputs\n", count);
        return 0;
}
