/*
 * uml-hostinfo: one line naming this host as user-mode-linux sees it:
 * the CPU, its XSAVE area as ptrace measures it, and the state components
 * the host enables. uml-kernel keys its choice of kernel on this line and
 * prints it with every choice, so each guest run says where it ran.
 *
 *   $ uml-hostinfo
 *   AMD EPYC, XSAVE area 2432 bytes (x87 SSE AVX AVX-512)
 */
#include <stdio.h>
#include <string.h>

#include "xstate.h"

static const char *cpu_model(char *buf, size_t size) {
        FILE *f = fopen("/proc/cpuinfo", "re");
        char line[256];

        snprintf(buf, size, "unknown CPU");
        if (!f)
                return buf;
        while (fgets(line, sizeof line, f)) {
                char *value = strchr(line, ':');
                if (strncmp(line, "model name", 10) != 0 || !value)
                        continue;
                value += 1 + strspn(value + 1, " \t");
                value[strcspn(value, "\n")] = 0;
                snprintf(buf, size, "%s", value);
                break;
        }
        fclose(f);
        return buf;
}

int main(void) {
        char model[128], features[128];
        long area = xstate_host_size();

        if (area < 0) {
                fprintf(stderr, "uml-hostinfo: cannot measure the XSAVE area with ptrace: %s\n",
                        strerror((int) -area));
                return 1;
        }
        printf("%s, XSAVE area %ld bytes (%s)\n", cpu_model(model, sizeof model), area,
               xstate_features(features, sizeof features));
        return 0;
}
