/* collide_bench.c -- contact detection alone (rcc_detect), not a test.
 *
 *   scripts/bench/collide [SCENE [N [STEPS]]]      (builds this file, then runs it)
 *
 * Scenes (fixed seed; the world's margin 0.01; three half-planes: a floor and
 * two walls, as in disks_in_box.lua):
 *   lattice  the initial state of disks_in_box.lua: N disks, radii 0.1 +- 10 %,
 *            on a lattice of c = ceil(sqrt(2N)) columns with spacing 0.25,
 *            jittered by +-0.01;
 *   pile     a dense pile: the same disks on a triangular lattice of spacing
 *            0.2 (the mean diameter) across the same box width 0.25 c, so
 *            neighbours touch or overlap (N / (1.25 c) rows);
 *   poly     a dense polydisperse packing: radii 0.02 to 0.1 (5x) on a
 *            triangular lattice of spacing 0.12, 10 % polygons (boxes and
 *            3- to 6-gons of the same size), and 1 in 500 shapes a disk of
 *            radius 0.6 (overlapping its neighbours).
 * Every step moves each body by up to 1e-3 and turns it by up to 1e-2
 * (coherent motion), refreshes the shapes and detects the contacts. Prints
 * the mean CPU time per rcc_detect and per rcc_update_shapes.
 */
#define _POSIX_C_SOURCE 199309L
#include "collide/collide.h"

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

static void ok(rc_status s)
{
    if (s != RC_OK) { fprintf(stderr, "collide_bench: %s\n", rc_last_error()); exit(1); }
}

static void halfplane(rc_world *w, double px, double nx, double ny)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_HALFPLANE; d.point[0] = px; d.point[1] = 0.0; d.normal[0] = nx; d.normal[1] = ny;
    ok(rc_shape_create(w, RC_GROUND, &d, NULL));
}

static void body(rc_world *w, double x, double y, const rc_shape_def *d)
{
    rc_body_def b = rc_default_body_def();
    b.q[0] = x; b.q[1] = y; b.q[2] = urand(-3.0, 3.0);
    int id = -1;
    ok(rc_body_create(w, &b, &id));
    ok(rc_shape_create(w, id, d, NULL));
}

static rc_shape_def disk(double r)
{
    rc_shape_def d = rc_default_shape_def();
    d.type = RC_SHAPE_DISK; d.radius = r;
    return d;
}

int main(int argc, char **argv)
{
    const char *scene = argc > 1 ? argv[1] : "pile";
    int N = argc > 2 ? atoi(argv[2]) : 10000, steps = argc > 3 ? atoi(argv[3]) : 50;
    rc_world_def wd = rc_default_world_def();
    wd.contact_margin = 0.01;
    rc_world *w = NULL;
    ok(rc_world_create(&wd, &w));
    int c = (int)ceil(sqrt(2.0 * N));
    double width = 0.25 * c;
    halfplane(w, 0.0, 0.0, 1.0);
    halfplane(w, 0.0, 1.0, 0.0);
    halfplane(w, width, -1.0, 0.0);
    if (!strcmp(scene, "lattice")) {
        for (int i = 0; i < N; i++) {
            rc_shape_def d = disk(0.1 * urand(0.9, 1.1));
            body(w, 0.25 * (i % c + 0.5) + urand(-0.01, 0.01), 0.25 * (i / c + 0.5) + 0.05 + urand(-0.01, 0.01), &d);
        }
    } else if (!strcmp(scene, "pile") || !strcmp(scene, "poly")) {
        int poly = scene[1] == 'o';
        double s = poly ? 0.12 : 0.2;
        int cols = (int)(width / s);
        for (int i = 0; i < N; i++) {
            int row = i / cols, col = i % cols;
            double x = s * (col + 0.5 + 0.5 * (row % 2)), y = s * (0.5 + 0.8660254037844386 * row);
            rc_shape_def d = disk(poly ? urand(0.02, 0.1) : 0.1 * urand(0.9, 1.1));
            if (poly && i % 500 == 250) d.radius = 0.6;
            else if (poly && i % 10 == 3) {
                double r = urand(0.02, 0.1);
                int n = 3 + i % 4;
                d.type = RC_SHAPE_POLYGON;
                d.nvert = n == 4 && i % 20 == 3 ? 4 : n;
                for (int k = 0; k < d.nvert; k++) {
                    double a = 2.0 * 3.14159265358979323846 * k / d.nvert;
                    d.vert[k][0] = r * cos(a); d.vert[k][1] = r * sin(a);
                }
            }
            body(w, x, y, &d);
        }
    } else {
        fprintf(stderr, "collide_bench: scene must be lattice, pile or poly\n");
        return 2;
    }

    rcc_update_shapes(w);
    ok(rcc_detect(w));   /* first call: the work arrays grow */
    double t_det = 0.0, t_upd = 0.0;
    long contacts = 0, pairs = 0;
    uint64_t a0 = rc_alloc_count();
    for (int k = 0; k < steps; k++) {
        for (int b = 0; b < w->nbodies; b++) {
            double *q = w->q + w->bodies[b].iq;
            q[0] += urand(-1e-3, 1e-3); q[1] += urand(-1e-3, 1e-3); q[2] += urand(-1e-2, 1e-2);
        }
        double t0 = now();
        rcc_update_shapes(w);
        double t1 = now();
        ok(rcc_detect(w));
        double t2 = now();
        t_upd += t1 - t0;
        t_det += t2 - t1;
        contacts += w->ncontacts;
        pairs += w->npairs;
    }
    printf("collide_bench: %s, %d shapes, %d steps: detect %.4f ms (%.1f ns per shape), update_shapes %.4f ms, "
           "%.0f candidate pairs, %.0f contacts, %llu allocations\n",
           scene, w->nshapes, steps, 1e3 * t_det / steps, 1e9 * t_det / steps / w->nshapes, 1e3 * t_upd / steps,
           (double)pairs / steps, (double)contacts / steps, (unsigned long long)(rc_alloc_count() - a0));
    rc_world_destroy(w);
    return 0;
}
