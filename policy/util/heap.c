/*
 * Reserving the compile's heap in huge pages.
 *
 * Compiling 1,000 manifests touches about 16 MiB of heap once (the model
 * of every package, the rule tables, the image): with 4 KiB pages that is
 * 4,800 page faults, and on the 2-vCPU VM they cost 0.04-0.07 s of system
 * time, as much as half the user time of the whole compile. A 2 MiB page
 * is one fault. The kernel gives them to a mapping marked MADV_HUGEPAGE
 * (transparent_hugepage "madvise", Debian's default), so the heap is
 * grown once by the expected size (malloc's top pad for one sbrk) and the
 * new part is marked. Untouched memory stays virtual; the trim threshold
 * keeps free() from giving the marked part back and faulting it again.
 *
 * Nothing here is needed for correctness: every call may fail (another
 * malloc, a kernel without THP) and the compile runs as before.
 */
#include "heap.h"

#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HEAP_PROBE_SIZE (64u * 1024u)   /* below malloc's mmap threshold */
#define HEAP_PROBES 16                  /* the free top of the heap is smaller than this */
#define HEAP_DEFAULT_TOP_PAD (128 * 1024)
#define HEAP_HUGE_PAGE ((uintptr_t) 2 * 1024 * 1024)
#define HEAP_MAX_RESERVE ((size_t) 1 << 30)

static void heap_advise(uintptr_t start, uintptr_t end) {
        start = (start + HEAP_HUGE_PAGE - 1) & ~(HEAP_HUGE_PAGE - 1);
        end &= ~(HEAP_HUGE_PAGE - 1);
        if (end > start)
                (void) madvise((void *) start, end - start, MADV_HUGEPAGE);
}

void heap_reserve(size_t bytes) {
        void *probes[HEAP_PROBES];
        uintptr_t before = (uintptr_t) sbrk(0), after = before;
        size_t n = 0;

        if (bytes < HEAP_HUGE_PAGE || before == (uintptr_t) -1)
                return;
        if (bytes > HEAP_MAX_RESERVE)
                bytes = HEAP_MAX_RESERVE;
        if (mallopt(M_TRIM_THRESHOLD, (int) (bytes * 2 > INT_MAX ? INT_MAX : bytes * 2)) != 1 ||
            mallopt(M_TOP_PAD, (int) bytes) != 1)
                return;
        /* Allocate until malloc grows the heap (once, by bytes + the probe). */
        while (n < HEAP_PROBES && after == before) {
                probes[n] = malloc(HEAP_PROBE_SIZE);
                if (!probes[n])
                        break;
                n++;
                after = (uintptr_t) sbrk(0);
        }
        (void) mallopt(M_TOP_PAD, HEAP_DEFAULT_TOP_PAD);
        if (after != (uintptr_t) -1 && after > before)
                heap_advise(before, after);
        while (n > 0)
                free(probes[--n]);
}
