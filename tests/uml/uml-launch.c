/*
 * uml-launch: start linux.uml under a seccomp filter that hides the
 * host's extended FPU state from it.
 *
 * User-mode-linux 6.1 saves and restores its processes' registers with
 * ptrace(PTRACE_GETREGSET/PTRACE_SETREGSET, NT_X86_XSTATE) into a buffer
 * of a size fixed at build time. On a host CPU whose XSAVE area is larger
 * (AMX tiles), the kernel rejects the buffer and UML dies at the first
 * userspace instruction ("ptrace set fp regs failed, errno = 14"). When
 * those two requests fail with EIO instead, UML falls back to the
 * FXSAVE-only register set and boots. The cost: AVX upper halves are not
 * kept across UML context switches, so the guest must keep glibc off AVX
 * code (uml-run sets GLIBC_TUNABLES for that).
 *
 * The filter matches exactly ptrace(0x4204 or 0x4205, *, NT_X86_XSTATE);
 * every other system call, and every other ptrace, passes untouched. It is
 * inherited by every process UML forks, which is what we want: all of them
 * take part in the ptrace dance. Nothing here is a security boundary; it
 * only works around a size mismatch.
 *
 * Usage: uml-launch LINUX_UML [KERNEL ARGS...]
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"

#define PTRACE_GETREGSET_REQUEST 0x4204
#define PTRACE_SETREGSET_REQUEST 0x4205
#define NT_X86_XSTATE_NOTE 0x202

#define ARG_LO(n) (offsetof(struct seccomp_data, args[n]))
#define ARG_HI(n) (offsetof(struct seccomp_data, args[n]) + 4)

static int install_filter(void) {
        struct sock_filter code[] = {
                /* Only x86-64 system calls are judged; anything else passes. */
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 11),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ptrace, 0, 9),
                /* request: GETREGSET or SETREGSET (upper half zero) */
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(0)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 7),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PTRACE_GETREGSET_REQUEST, 1, 0),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PTRACE_SETREGSET_REQUEST, 0, 4),
                /* addr: the register set, NT_X86_XSTATE exactly */
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(2)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NT_X86_XSTATE_NOTE, 1, 0),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EIO & SECCOMP_RET_DATA)),
        };
        struct sock_fprog prog = {
                .len = ELEMENTSOF(code),
                .filter = code,
        };

        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -errno;
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
                return -errno;
        return 0;
}

int main(int argc, char **argv) {
        int r;

        if (argc < 2) {
                fprintf(stderr, "usage: %s LINUX_UML [KERNEL ARGS...]\n", argv[0]);
                return 2;
        }
        r = install_filter();
        if (r < 0) {
                fprintf(stderr, "uml-launch: cannot install seccomp filter: %s\n", strerror(-r));
                return 1;
        }
        execv(argv[1], argv + 1);
        fprintf(stderr, "uml-launch: cannot execute %s: %m\n", argv[1]);
        return 1;
}
