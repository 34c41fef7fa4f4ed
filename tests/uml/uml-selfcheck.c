/*
 * uml-selfcheck: does this guest keep its processes' registers and data?
 * Run by uml-init (and boot-init) inside every guest before anything else;
 * a guest that fails it is never used for a test.
 *
 * User-mode-linux saves and restores a guest thread's registers whenever
 * the thread traps into the guest kernel: a page fault on a fresh page, a
 * signal, a switch to another thread of the same host process. A launcher
 * that gets this wrong (the FXSAVE-only fallback, a short XSAVE buffer)
 * loses vector registers there, and glibc's string functions then compute
 * wrong answers from right data. So, in three threads at once, each with
 * its own pattern, for every register width the CPU offers:
 *
 *   - load every vector register (xmm0-15; ymm0-15 with AVX; zmm0-31 and
 *     k1-7 with AVX-512), touch fresh pages, spin while an interval timer
 *     fires a handler that overwrites every vector register, and compare
 *     what the registers hold afterwards with what was loaded;
 *   - memset, memcpy and memcmp fresh 64 KiB mappings under the same timer
 *     (what went wrong under the FXSAVE-only fallback UML was once run with).
 *
 * Prints one line saying what was checked, how many faults and signals
 * it took, and exits 0; or prints each wrong result and exits 1.
 */
#include <cpuid.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#define THREADS 3
#define ROUNDS 12
#define PAGES 16
#define SPIN 20000
#define MEM_ROUNDS 20
#define MEM_SIZE 65536
#define PAGE 4096
#define VEC_BYTES (32 * 64 + 8 * 8)     /* zmm0-31 and k0-7: the widest set */

enum width { WIDTH_XMM, WIDTH_YMM, WIDTH_ZMM };

static enum width widest;
static atomic_long signals, faults, failures;

typedef void (*RoundFn)(const uint8_t *in, uint8_t *out, volatile uint8_t *pages, long npages, long spin);

/* The body shared by every width: touch each page, then spin. */
#define TOUCH_AND_SPIN                                                  \
        "test %[n], %[n]\n jz 2f\n"                                     \
        "1: movb $1, (%[p])\n add $4096, %[p]\n dec %[n]\n jnz 1b\n"    \
        "2: test %[s], %[s]\n jz 4f\n"                                  \
        "3: pause\n dec %[s]\n jnz 3b\n"                                \
        "4:\n"

#define LX(n) "movdqu " #n "*16(%[in]), %%xmm" #n "\n"
#define SX(n) "movdqu %%xmm" #n ", " #n "*16(%[out])\n"
#define X16(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define XMM_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
        "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

static void round_xmm(const uint8_t *in, uint8_t *out, volatile uint8_t *pages, long npages, long spin) {
        __asm__ volatile(X16(LX) TOUCH_AND_SPIN X16(SX)
                         : [p] "+r"(pages), [n] "+r"(npages), [s] "+r"(spin)
                         : [in] "r"(in), [out] "r"(out)
                         : "memory", "cc", XMM_CLOBBERS);
}

#define LY(n) "vmovdqu " #n "*32(%[in]), %%ymm" #n "\n"
#define SY(n) "vmovdqu %%ymm" #n ", " #n "*32(%[out])\n"

__attribute__((target("avx"))) static void round_ymm(const uint8_t *in, uint8_t *out, volatile uint8_t *pages,
                                                     long npages, long spin) {
        __asm__ volatile(X16(LY) TOUCH_AND_SPIN X16(SY) "vzeroupper\n"
                         : [p] "+r"(pages), [n] "+r"(npages), [s] "+r"(spin)
                         : [in] "r"(in), [out] "r"(out)
                         : "memory", "cc", XMM_CLOBBERS);
}

#define LZ(n) "vmovdqu64 " #n "*64(%[in]), %%zmm" #n "\n"
#define SZ(n) "vmovdqu64 %%zmm" #n ", " #n "*64(%[out])\n"
#define Z16(M) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)
#define LK(n) "kmovw " #n "*8+2048(%[in]), %%k" #n "\n"
#define SK(n) "kmovw %%k" #n ", " #n "*8+2048(%[out])\n"
#define K7(M) M(1) M(2) M(3) M(4) M(5) M(6) M(7)

__attribute__((target("avx512f"))) static void round_zmm(const uint8_t *in, uint8_t *out, volatile uint8_t *pages,
                                                         long npages, long spin) {
        __asm__ volatile(X16(LZ) Z16(LZ) K7(LK) TOUCH_AND_SPIN X16(SZ) Z16(SZ) K7(SK) "vzeroupper\n"
                         : [p] "+r"(pages), [n] "+r"(npages), [s] "+r"(spin)
                         : [in] "r"(in), [out] "r"(out)
                         : "memory", "cc", XMM_CLOBBERS, "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",
                           "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28",
                           "xmm29", "xmm30", "xmm31", "k1", "k2", "k3", "k4", "k5", "k6", "k7");
}

static const struct {
        const char *name;
        RoundFn round;
        size_t bytes;           /* what round() loads and stores */
} widths[] = {
        [WIDTH_XMM] = { "xmm0-15", round_xmm, 16 * 16 },
        [WIDTH_YMM] = { "ymm0-15", round_ymm, 16 * 32 },
        [WIDTH_ZMM] = { "zmm0-31+k1-7", round_zmm, 2048 + 8 * 8 },
};

static enum width cpu_widest(void) {
        unsigned a, b, c, d, xcr0_lo, xcr0_hi;

        if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
                return WIDTH_XMM;
        __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
        if ((xcr0_lo & 0x6) != 0x6)
                return WIDTH_XMM;
        if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F) && (xcr0_lo & 0xe0) == 0xe0)
                return WIDTH_ZMM;
        return WIDTH_YMM;
}

/* The handler overwrites every register of the widest width. */
static void on_alarm(int sig) {
        static const uint8_t junk[VEC_BYTES] = { [0 ... VEC_BYTES - 1] = 0x5a };
        uint8_t sink[VEC_BYTES];

        (void) sig;
        atomic_fetch_add(&signals, 1);
        widths[widest].round(junk, sink, NULL, 0, 0);
}

/* A pattern for every register; of the opmask slots only k1-k7's 16 bits are loaded. */
static void fill(uint8_t *buf, size_t n, unsigned seed) {
        for (size_t i = 0; i < n; i++)
                buf[i] = (uint8_t) ((seed * 131 + i * 7 + (i >> 8)) ^ 0xa5);
        for (size_t k = 0; k < 8; k++)
                memset(buf + 2048 + k * 8 + (k ? 2 : 0), 0, k ? 6 : 8);
}

static void report(const char *what, long round, size_t at, unsigned want, unsigned got) {
        atomic_fetch_add(&failures, 1);
        printf("uml-selfcheck: WRONG %s in round %ld: byte %zu is %#04x, was %#04x\n", what, round, at, got, want);
}

static void check_registers(enum width w, unsigned seed) {
        uint8_t in[VEC_BYTES], out[VEC_BYTES];

        for (long r = 0; r < ROUNDS; r++) {
                volatile uint8_t *pages = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE,
                                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (pages == MAP_FAILED) {
                        report("mmap", r, 0, 0, 0);
                        return;
                }
                fill(in, sizeof in, seed * 1000 + (unsigned) r);
                memset(out, 0, sizeof out);
                widths[w].round(in, out, pages, PAGES, SPIN);
                atomic_fetch_add(&faults, PAGES);
                munmap((void *) pages, PAGES * PAGE);
                for (size_t i = 0; i < widths[w].bytes; i++)
                        if (in[i] != out[i]) {
                                report(widths[w].name, r, i, in[i], out[i]);
                                return;
                        }
        }
}

static void check_memory(unsigned seed) {
        for (long r = 0; r < MEM_ROUNDS; r++) {
                uint8_t *a = mmap(NULL, 2 * MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                uint8_t *b;
                int value = (int) ((seed + r) & 0x7f) + 1;

                if (a == MAP_FAILED) {
                        report("mmap", r, 0, 0, 0);
                        return;
                }
                b = a + MEM_SIZE;
                memset(a, value, MEM_SIZE);
                memcpy(b, a, MEM_SIZE);
                atomic_fetch_add(&faults, 2 * MEM_SIZE / PAGE);
                if (memcmp(a, b, MEM_SIZE) != 0 || b[MEM_SIZE - 1] != value) {
                        size_t i = 0;
                        while (i < MEM_SIZE && a[i] == b[i])
                                i++;
                        report("memset/memcpy/memcmp", r, i, a[i < MEM_SIZE ? i : 0], b[i < MEM_SIZE ? i : 0]);
                }
                munmap(a, 2 * MEM_SIZE);
        }
}

static void *worker(void *arg) {
        unsigned seed = (unsigned) (uintptr_t) arg;

        for (int w = 0; w <= (int) widest; w++)
                check_registers((enum width) w, seed + (unsigned) w);
        check_memory(seed);
        return NULL;
}

int main(void) {
        struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
        struct itimerval timer = { { 0, 200 }, { 0, 200 } };
        pthread_t threads[THREADS - 1];

        widest = cpu_widest();
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGALRM, &sa, NULL) < 0 || setitimer(ITIMER_REAL, &timer, NULL) < 0) {
                perror("uml-selfcheck: timer");
                return 1;
        }
        for (int t = 0; t < THREADS - 1; t++)
                if (pthread_create(&threads[t], NULL, worker, (void *) (uintptr_t) (t + 1)) != 0) {
                        fprintf(stderr, "uml-selfcheck: cannot start a thread\n");
                        return 1;
                }
        worker((void *) (uintptr_t) 7);
        for (int t = 0; t < THREADS - 1; t++)
                pthread_join(threads[t], NULL);
        memset(&timer, 0, sizeof timer);
        setitimer(ITIMER_REAL, &timer, NULL);

        if (atomic_load(&signals) == 0) {
                printf("uml-selfcheck: WRONG: no timer signal arrived, so nothing was checked across signals\n");
                return 1;
        }
        if (atomic_load(&failures) > 0) {
                printf("uml-selfcheck: FAILED: %ld wrong result(s) over %ld page faults and %ld signals\n",
                       atomic_load(&failures), atomic_load(&faults), atomic_load(&signals));
                return 1;
        }
        printf("uml-selfcheck: ok: %s kept across %ld fresh-page faults and %ld signals in %d threads; "
               "memset/memcpy/memcmp right over %d fresh 64 KiB arrays\n",
               widest == WIDTH_ZMM ? "xmm, ymm, zmm and k registers" : widest == WIDTH_YMM ? "xmm and ymm registers" : "xmm registers",
               atomic_load(&faults), atomic_load(&signals), THREADS, THREADS * MEM_ROUNDS);
        return 0;
}
