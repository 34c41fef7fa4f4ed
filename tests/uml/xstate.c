/*
 * xstate: what the host's XSAVE area looks like to a ptrace tracer, for
 * uml-hostinfo, which names the host in every guest run's output.
 *
 * User-mode-linux keeps its processes' registers in that area (it reads
 * and writes it with PTRACE_GETREGSET/SETREGSET, NT_X86_XSTATE), and
 * whether a given linux.uml keeps all of them depends on its size and
 * contents: 832 bytes (x87, SSE, AVX), 2432 or 2696 (AVX-512, AMD or Intel
 * layout), 11008 (AMX). The kernel shortens a GETREGSET to the buffer it
 * is given and iov_len tells how much it wrote, so a buffer larger than
 * any area measures it.
 */
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xstate.h"

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif

long xstate_tracee_size(pid_t pid) {
        static unsigned char probe[XSTATE_MAX];
        struct iovec iov = { .iov_base = probe, .iov_len = sizeof probe };

        if (ptrace(PTRACE_GETREGSET, pid, (void *) NT_X86_XSTATE, &iov) < 0)
                return -errno;
        /* A whole buffer back means the area may be larger still. */
        if (iov.iov_len == 0 || iov.iov_len >= sizeof probe)
                return -E2BIG;
        return (long) iov.iov_len;
}

long xstate_host_size(void) {
        long size;
        int status;
        pid_t child = fork();

        if (child < 0)
                return -errno;
        if (child == 0) {
                if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
                        _exit(1);
                raise(SIGSTOP);
                _exit(0);
        }
        if (waitpid(child, &status, 0) != child)
                size = -errno;
        else if (!WIFSTOPPED(status))
                size = -ECHILD;
        else
                size = xstate_tracee_size(child);
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        return size;
}

const char *xstate_features(char *buf, size_t size) {
        static const struct {
                unsigned long long mask;
                const char *name;
        } features[] = {
                { 1ULL << 0, "x87" },
                { 1ULL << 1, "SSE" },
                { 1ULL << 2, "AVX" },
                { 7ULL << 5, "AVX-512" },
                { 1ULL << 9, "PKRU" },
                { 3ULL << 17, "AMX" },
        };
        unsigned a, b, c, d, lo, hi;
        unsigned long long xcr0;
        size_t used = 0;

        buf[0] = 0;
        if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) {
                snprintf(buf, size, "x87 SSE (no XSAVE)");
                return buf;
        }
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        xcr0 = ((unsigned long long) hi << 32) | lo;
        for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
                if ((xcr0 & features[i].mask) == features[i].mask && used < size) {
                        int n = snprintf(buf + used, size - used, "%s%s", used ? " " : "", features[i].name);
                        if (n < 0)
                                break;
                        used += (size_t) n;
                }
        return buf;
}
