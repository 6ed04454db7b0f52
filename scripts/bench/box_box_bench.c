/* box_box_bench.c -- the box-box narrow phase alone (rcc_collide3 on two
 * boxes: collide/poly3.c), not a test.
 *
 *   scripts/bench/box_box [CALLS]     (builds this file, then runs it)
 *
 * Cases (fixed seed, 1000 poses each, every pose called CALLS / 1000 times):
 *   resting   a box 0.2 x 0.1 x 0.05 (half) lying on a box 0.5 x 0.5 x 0.1,
 *             turned about z and shifted, gap 1e-4 (4 points);
 *   random    random boxes (half-extents 0.1..0.6) in random poses, centres
 *             within 0.6 (mostly overlapping: faces and edge pairs);
 *   apart     the same moved 3 apart along x, margin 0.01 (the early exit);
 *   wall      the rockfall's wall (scripts/papers/acary2024_rockfall.lua): 20
 *             columns x 10 layers of blocks 2 x 1 x 1 (half 1, 0.5, 0.5)
 *             tilted by 1e-6 rad at random, 1e-6 into each other, each
 *             block's pairs with its right, upper and diagonal neighbours in
 *             turn (a block is met in several pairs close together, as in
 *             the broad phase's order), margin 1e-3; every pass moves each
 *             block by 1e-12 (new poses, as a time step).
 * Prints the CPU time per pair and the mean number of points.
 */
#define _POSIX_C_SOURCE 199309L
#include "collide/geom3d.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

enum { NPOSE = 1000 };

static void rand_quat(double *q)
{
    double s = 0;
    for (int i = 0; i < 4; i++) { q[i] = urand(-1, 1); s += q[i] * q[i]; }
    for (int i = 0; i < 4; i++) q[i] /= sqrt(s);
}

enum { COLS = 20, LAYERS = 10, NB = COLS * LAYERS };

static void wall(long calls)
{
    static rcc_shape3 s = { .kind = RCC_G3_BOX, .half = { 1.0, 0.5, 0.5 } };
    static rcc_pose3 p[NB];
    static int pairs[8 * NB][2];
    int np = 0;
    for (int l = 0; l < LAYERS; l++)
        for (int c = 0; c < COLS; c++) {
            rcc_pose3 *q = &p[l * COLS + c];
            const double phi[3] = { urand(-1e-6, 1e-6), urand(-1e-6, 1e-6), urand(-1e-6, 1e-6) };
            *q = (rcc_pose3){ { 0.0, c * (1.0 - 1e-6), 0.5 + l * (1.0 - 1e-6) }, { 1, 0, 0, 0 } };
            rcb_quat_step(q->q, phi);
        }
    for (int l = 0; l < LAYERS; l++)
        for (int c = 0; c < COLS; c++) {
            const int i = l * COLS + c;
            if (c + 1 < COLS) { pairs[np][0] = i; pairs[np++][1] = i + 1; }
            if (l + 1 == LAYERS) continue;
            pairs[np][0] = i; pairs[np++][1] = i + COLS;
            if (c + 1 < COLS) { pairs[np][0] = i; pairs[np++][1] = i + COLS + 1; }
            if (c > 0) { pairs[np][0] = i; pairs[np++][1] = i + COLS - 1; }
        }
    rcc_manifold3 m;
    long points = 0, done = 0;
    const double t0 = now();
    while (done < calls) {
        for (int k = 0; k < np; k++) {
            rcc_collide3(&s, &p[pairs[k][0]], &s, &p[pairs[k][1]], 1e-3, &m);
            points += m.n;
        }
        done += np;
        for (int i = 0; i < NB; i++) p[i].p[0] += 1e-12;
    }
    const double dt = now() - t0;
    printf("%-8s %ld pairs: %.0f ns per pair, %.2f points per pair\n", "wall", done, 1e9 * dt / done,
           (double)points / done);
}

int main(int argc, char **argv)
{
    const long calls = argc > 1 ? atol(argv[1]) : 2000000;
    static rcc_shape3 a[NPOSE], b[NPOSE];
    static rcc_pose3 pa[NPOSE], pb[NPOSE];
    const char *names[3] = { "resting", "random", "apart" };
    wall(calls);
    for (int c = 0; c < 3; c++) {
        double margin = c == 0 ? 1e-3 : c == 1 ? HUGE_VAL : 0.01;
        for (int k = 0; k < NPOSE; k++) {
            a[k] = (rcc_shape3){ .kind = RCC_G3_BOX };
            b[k] = (rcc_shape3){ .kind = RCC_G3_BOX };
            if (c == 0) {
                const double h1[3] = { 0.5, 0.5, 0.1 }, h2[3] = { 0.2, 0.1, 0.05 }, t = urand(-3, 3);
                memcpy(a[k].half, h1, sizeof h1);
                memcpy(b[k].half, h2, sizeof h2);
                pa[k] = (rcc_pose3){ { 0, 0, 0 }, { 1, 0, 0, 0 } };
                pb[k] = (rcc_pose3){ { urand(-0.2, 0.2), urand(-0.2, 0.2), 0.15 + 1e-4 }, { cos(t / 2), 0, 0, sin(t / 2) } };
            } else {
                for (int i = 0; i < 3; i++) { a[k].half[i] = urand(0.1, 0.6); b[k].half[i] = urand(0.1, 0.6); }
                for (int i = 0; i < 3; i++) { pa[k].p[i] = urand(-0.3, 0.3); pb[k].p[i] = urand(-0.3, 0.3); }
                if (c == 2) pb[k].p[0] += 3.0;
                rand_quat(pa[k].q);
                rand_quat(pb[k].q);
            }
        }
        rcc_manifold3 m;
        long points = 0;
        const double t0 = now();
        for (long i = 0; i < calls; i++) {
            const int k = (int)(i % NPOSE);
            rcc_collide3(&a[k], &pa[k], &b[k], &pb[k], margin, &m);
            points += m.n;
        }
        const double dt = now() - t0;
        printf("%-8s %ld pairs: %.0f ns per pair, %.2f points per pair\n", names[c], calls, 1e9 * dt / calls,
               (double)points / calls);
    }
    return 0;
}
