/* xstate: the host's XSAVE area as ptrace(2) shows it to user-mode-linux. */
#pragma once

#include <sys/types.h>

/* Larger than any XSAVE area a CPU has today (AMX: 11008 bytes). */
#define XSTATE_MAX 65536

/*
 * The size of the NT_X86_XSTATE register set of the stopped tracee pid,
 * read with a buffer larger than any (the kernel shortens iov_len to the
 * whole area). Returns the size (> 0) or a negative errno.
 */
long xstate_tracee_size(pid_t pid);

/*
 * The host's XSAVE area as the kernel's ptrace shows it to a tracer such
 * as user-mode-linux: forks a child that stops itself, measures it with
 * xstate_tracee_size() and kills it. Returns the size or a negative errno.
 */
long xstate_host_size(void);

/*
 * The state components this host enables (XCR0), as names separated by
 * spaces ("x87 SSE AVX AVX-512 PKRU AMX"), into buf. Returns buf.
 */
const char *xstate_features(char *buf, size_t size);
