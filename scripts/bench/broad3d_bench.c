/* broad3d_bench.c -- the spatial broad phase alone (rcc_broad3_pairs,
 * src/collide/broad3d.c), not a test.
 *
 *   scripts/bench/broad3d [SCENE [N [CALLS [CELL]]]]     (builds this file, then runs it)
 *
 * Scenes (fixed seed; sphere radii 0.1 +- 10 %, AABBs as the boxes):
 *   random   N centres uniform in a cube of side 0.25 N^(1/3) (about 2 pairs
 *            per sphere);
 *   lattice  the initial state of spheres_in_box (issue 14): a cubic lattice
 *            of ceil((2N)^(1/3)) per side, spacing 0.25, jitter +-0.01, filled
 *            to N (no pairs but the jitter's);
 *   pile     a dense pile: the same spheres on a cubic lattice of spacing 0.2
 *            (the mean diameter), so that neighbours' boxes touch or overlap.
 * Prints the CPU time per call (mean over CALLS after one sizing call) and
 * the pairs per second.
 */
#define _POSIX_C_SOURCE 199309L
#include "collide/geom3d.h"

#include <stdlib.h>
#include <time.h>

static unsigned long long rng = 88172645463325252ULL;
static double urand(double lo, double hi)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void scene(const char *name, int n, double *bb)
{
    const int side = (int)ceil(cbrt(2.0 * n)), pile = !strcmp(name, "pile");
    const int ps = (int)ceil(cbrt((double)n));
    for (int k = 0; k < n; k++) {
        double c[3];
        if (!strcmp(name, "random")) {
            for (int a = 0; a < 3; a++) c[a] = urand(0, 0.25 * cbrt((double)n));
        } else if (pile) {
            c[0] = 0.2 * (k % ps); c[1] = 0.2 * (k / ps % ps); c[2] = 0.2 * (k / ps / ps);
        } else {
            c[0] = 0.25 * (k % side); c[1] = 0.25 * (k / side % side); c[2] = 0.25 * (k / side / side);
            for (int a = 0; a < 3; a++) c[a] += urand(-0.01, 0.01);
        }
        const double r = 0.1 * urand(0.9, 1.1);
        for (int a = 0; a < 3; a++) { bb[6 * k + a] = c[a] - r; bb[6 * k + 3 + a] = c[a] + r; }
    }
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "random";
    const int n = argc > 2 ? atoi(argv[2]) : 10000;
    const int calls = argc > 3 ? atoi(argv[3]) : 20;
    const double cell = argc > 4 ? atof(argv[4]) : 0.0;   /* 0: the default (2 x the mean extent) */
    if (n < 2 || calls < 1 || (strcmp(name, "random") && strcmp(name, "lattice") && strcmp(name, "pile"))) {
        fprintf(stderr, "usage: broad3d [random|lattice|pile [N >= 2 [CALLS >= 1]]]\n");
        return 2;
    }
    double *bb = malloc(sizeof(double) * 6 * (size_t)n);
    if (!bb) return 1;
    scene(name, n, bb);
    rcc_broad3 b = { 0 };
    if (rcc_broad3_pairs(&b, n, bb, cell) != RC_OK) { fprintf(stderr, "%s\n", rc_last_error()); return 1; }
    const uint64_t a0 = rc_alloc_count();
    const double t0 = now();
    for (int k = 0; k < calls; k++) rcc_broad3_pairs(&b, n, bb, cell);
    const double dt = (now() - t0) / calls;
    printf("%-8s N = %7d: %8d pairs, %8.3f ms per call, %6.1f ns per sphere, %.3g pairs/s, %llu allocations in %d calls\n",
           name, n, b.npairs, 1e3 * dt, 1e9 * dt / n, b.npairs / dt,
           (unsigned long long)(rc_alloc_count() - a0), calls);
    rcc_broad3_free(&b);
    free(bb);
    return 0;
}
