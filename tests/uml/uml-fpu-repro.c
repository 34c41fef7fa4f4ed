/*
 * Reproducer for the known issue in README.md: under uml-launch's
 * FXSAVE-only fallback, a guest process that takes timer signals while it
 * first touches fresh pages sometimes loses SSE register contents, and a
 * memcmp over equal arrays says they differ (rechecked byte by byte, they
 * are equal). Prints what it saw; exit 1 when a comparison was wrong. Not a registered test (it documents a UML limitation we cannot
 * fix here); build it with cc -O2 and run it with uml-run.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <emmintrin.h>
static volatile long hits;
static void handler(int sig) { hits++; }
int main(void) {
    struct sigaction sa = { .sa_handler = handler };
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 200 }, { 0, 200 } };
    setitimer(ITIMER_REAL, &it, NULL);
    long bad = 0;
    static char a[65536], b[65536];
    for (long iter = 0; iter < 20000; iter++) {
        __m128i x = _mm_set1_epi32((int) iter);
        for (int k = 0; k < 2000; k++) x = _mm_add_epi32(x, _mm_set1_epi32(1));
        if (_mm_cvtsi128_si32(x) != (int) iter + 2000) { bad++; printf("xmm bad at iter %ld after %ld signals\n", iter, hits); }
        memset(a, (int) (iter & 0x7f) + 1, sizeof a);
        memcpy(b, a, sizeof b);
        if (memcmp(a, b, sizeof a) != 0 || b[sizeof b - 1] != (char) ((iter & 0x7f) + 1)) { bad++; size_t i = 0; while (i < sizeof a && a[i] == b[i]) i++; size_t j = i; while (j < sizeof a && a[j] != b[j]) j++; printf("mem bad at iter %ld after %ld signals: bytes %zu..%zu differ (b=%d a=%d), &b[i]=%p\n", iter, hits, i, j, b[i], a[i], (void*)&b[i]); }
    }
    printf("signals %ld, bad %ld\n", hits, bad);
    return bad != 0;
}
