/* test_box_box_fast.c -- the box-box fast path (rcc_collide_box_box: world
 * copies kept per box, the edge query by the boxes' three edge directions;
 * collide/poly3.c, docs/theory/polyhedra.md) against the general polyhedron
 * routine (rcc_collide_poly3 of the boxes' rcc_poly3_box) on a few thousand
 * random poses (fixed seed): general poses, resting and flush blocks turned
 * by tiny angles (or none), edge-edge crossings, pairs separated by about the
 * margin, coincident boxes. The same separation, number of points, feature
 * codes, gaps, points and normals, bit for bit (a fast path picking another
 * reference face, edge pair or clipped feature fails), again when the world
 * copies come from the table (the second call, and the boxes met again in
 * other pairs); every kind of outcome occurs. */
#include "rc_test.h"
#include "collide/geom3d.h"

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double urand(double lo, double hi)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static void rand_quat(double *q)
{
    double s;
    do {
        s = 0.0;
        for (int i = 0; i < 4; i++) { q[i] = urand(-1, 1); s += q[i] * q[i]; }
    } while (s > 1.0 || s < 1e-2);
    for (int i = 0; i < 4; i++) q[i] /= sqrt(s);
}

/* q turned by angle about z (quarter turns for flush blocks), then by a rotation vector of size tiny */
static void turned(double *q, double angle, double tiny)
{
    const double qz[4] = { cos(0.5 * angle), 0.0, 0.0, sin(0.5 * angle) };
    double phi[3] = { urand(-1, 1), urand(-1, 1), urand(-1, 1) };
    rcb_v3_scale(phi, tiny / rcb_v3_norm(phi), phi);
    for (int i = 0; i < 4; i++) q[i] = qz[i];
    if (tiny > 0.0) rcb_quat_step(q, phi);
}

/* a tiny angle: none, or 10^U(-12, -4) */
static double tiny_angle(void)
{
    return urand(0, 1) < 0.2 ? 0.0 : pow(10.0, urand(-12, -4));
}

typedef struct {
    long pairs, mismatch, face, edge, none, point1;
} tally;

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int same_point(const rcc_point3 *x, const rcc_point3 *y)
{
    int ok = x->feature == y->feature && same_bits(x->g, y->g);
    for (int i = 0; i < 3; i++)
        ok = ok && same_bits(x->pa[i], y->pa[i]) && same_bits(x->pb[i], y->pb[i]) && same_bits(x->n[i], y->n[i]);
    return ok;
}

static int same(double r1, const rcc_manifold3 *m1, double r2, const rcc_manifold3 *m2)
{
    if (!same_bits(r1, r2) || m1->n != m2->n) return 0;
    for (int i = 0; i < m1->n; i++) if (!same_point(&m1->pt[i], &m2->pt[i])) return 0;
    return 1;
}

static int code_dim(int c) { return (c % 3 == 1) + (c / 3 % 3 == 1) + (c / 9 == 1); }

/* the fast path twice (the second from the table) against the general one */
static void compare(const double ha[3], const rcc_pose3 *pa, const double hb[3], const rcc_pose3 *pb, double margin,
                    tally *t)
{
    rcc_box_poly3 A, B;
    rcc_manifold3 mg, m1, m2;
    rcc_poly3_box(ha, &A);
    rcc_poly3_box(hb, &B);
    const double rg = rcc_collide_poly3(&A.p, pa, &B.p, pb, margin, &mg);
    const double r1 = rcc_collide_box_box(ha, pa, hb, pb, margin, &m1);
    const double r2 = rcc_collide_box_box(ha, pa, hb, pb, margin, &m2);
    t->pairs++;
    if (!same(rg, &mg, r1, &m1) || !same(rg, &mg, r2, &m2)) {
        if (t->mismatch++ == 0)
            fprintf(stderr, "  first mismatch at pair %ld: general %d points (sep %.17g), fast %d then %d (%.17g)\n",
                    t->pairs, mg.n, rg, m1.n, m2.n, r1);
    }
    if (mg.n == 0) t->none++;
    else if (mg.n >= 3) t->face++;
    else if (mg.n == 1 && code_dim(mg.pt[0].feature & 0xff) == 1 && code_dim(mg.pt[0].feature >> 8) == 1) t->edge++;
    else t->point1++;
}

static void rand_half(double *h, double lo, double hi)
{
    for (int i = 0; i < 3; i++) h[i] = urand(lo, hi);
}

RC_TEST(fast_path_equals_general_path_on_random_poses)
{
    tally t = { 0 };
    for (int k = 0; k < 1500; k++) {   /* general poses: overlapping, touching, apart */
        double ha[3], hb[3];
        rcc_pose3 pa, pb;
        rand_half(ha, 0.05, 0.6);
        rand_half(hb, 0.05, 0.6);
        rand_quat(pa.q);
        rand_quat(pb.q);
        for (int i = 0; i < 3; i++) { pa.p[i] = urand(-0.5, 0.5); pb.p[i] = pa.p[i] + urand(-0.9, 0.9); }
        compare(ha, &pa, hb, &pb, k % 2 ? 1e-3 : 0.0, &t);
    }
    CHECK(t.mismatch == 0);
    CHECK(t.face > 100 && t.none > 100);
    printf("  general: %ld pairs, %ld mismatches (%ld face, %ld edge-edge, %ld one point, %ld none)\n", t.pairs,
           t.mismatch, t.face, t.edge, t.point1, t.none);
}

/* a block and its neighbours of a wall: on top (by quarter turns), beside,
 * gaps of 0, +-1e-9, +-1e-7 or up to 1e-4, tiny tilts, several B per A (the
 * table reused) */
RC_TEST(fast_path_equals_general_path_on_resting_blocks)
{
    tally t = { 0 };
    const double gaps[5] = { 0.0, 1e-9, -1e-9, 1e-7, -1e-7 };
    for (int k = 0; k < 400; k++) {
        double ha[3] = { 0.25, 0.15, 0.1 }, hb[3];
        rcc_pose3 pa;
        if (k % 2) rand_half(ha, 0.1, 0.3);
        turned(pa.q, 0.0, tiny_angle());
        for (int i = 0; i < 3; i++) pa.p[i] = urand(-2, 2);
        for (int n = 0; n < 5; n++) {
            rcc_pose3 pb;
            const int quarter = (int)urand(0, 4), axis = n % 3, same_size = n < 3;
            for (int i = 0; i < 3; i++) hb[i] = same_size ? ha[i] : urand(0.1, 0.3);
            if (quarter % 2) { const double x = hb[0]; hb[0] = hb[1]; hb[1] = x; }   /* a quarter turn: the same extents */
            turned(pb.q, quarter * 1.5707963267948966, tiny_angle());
            const double gap = n < 2 ? gaps[(int)urand(0, 5)] : urand(-1e-4, 1e-4);
            for (int i = 0; i < 3; i++) {
                const double ext = i == 0 && quarter % 2 ? hb[1] : i == 1 && quarter % 2 ? hb[0] : hb[i];
                pb.p[i] = pa.p[i] + (i == axis ? ha[i] + ext + gap
                                               : urand(0, 1) < 0.3 ? 0.0 : urand(-1, 1) * (ha[i] + ext) * 0.9);
            }
            if (quarter % 2) { const double x = hb[0]; hb[0] = hb[1]; hb[1] = x; }
            compare(ha, &pa, hb, &pb, n % 2 ? 1e-3 : 1e-5, &t);
            compare(hb, &pb, ha, &pa, 1e-3, &t);   /* the other way */
        }
    }
    CHECK(t.mismatch == 0);
    CHECK(t.face > 1000);
    printf("  resting: %ld pairs, %ld mismatches (%ld face, %ld edge-edge, %ld one point, %ld none)\n", t.pairs,
           t.mismatch, t.face, t.edge, t.point1, t.none);
}

/* edges crossing: A turned 45 deg about x, B about y, B above at a gap
 * about zero, tilted a little; and pairs separated by about the margin
 * (B moved along a random direction until the general path's separation is
 * the margin, then by +-1e-12 .. 1e-6) */
RC_TEST(fast_path_equals_general_path_on_edges_and_margins)
{
    tally t = { 0 };
    const double margin = 1e-3;
    for (int k = 0; k < 600; k++) {
        double ha[3], hb[3], phi[3];
        rcc_pose3 pa = { { 0, 0, 0 }, { 1, 0, 0, 0 } }, pb = { { 0, 0, 0 }, { 1, 0, 0, 0 } };
        rand_half(ha, 0.1, 0.4);
        rand_half(hb, 0.1, 0.4);
        const double ta = 0.7853981633974483 + urand(-1, 1) * tiny_angle();
        const double tb = 0.7853981633974483 + urand(-1, 1) * tiny_angle();
        rcb_v3_set(phi, ta, urand(-0.1, 0.1) * (k % 2), 0.0);
        rcb_quat_step(pa.q, phi);
        rcb_v3_set(phi, 0.0, tb, urand(-0.1, 0.1) * (k % 3 == 0));
        rcb_quat_step(pb.q, phi);
        const double za = ha[1] * sin(ta) + ha[2] * cos(ta), zb = hb[0] * sin(tb) + hb[2] * cos(tb);
        rcb_v3_set(pb.p, urand(-0.05, 0.05), urand(-0.05, 0.05), za + zb + urand(-1e-3, 1e-3));
        compare(ha, &pa, hb, &pb, margin, &t);
    }
    for (int k = 0; k < 600; k++) {
        double ha[3], hb[3], dir[4], lo = 0.0, hi = 3.0;   /* dir: rand_quat writes 4 */
        rcc_pose3 pa, pb;
        rcc_box_poly3 A, B;
        rcc_manifold3 m;
        rand_half(ha, 0.1, 0.5);
        rand_half(hb, 0.1, 0.5);
        rand_quat(pa.q);
        if (k % 2) rand_quat(pb.q);
        else turned(pb.q, 0.0, tiny_angle()), turned(pa.q, 0.0, tiny_angle());
        rcb_v3_set(pa.p, 0, 0, 0);
        rand_quat(dir);   /* a random direction: the first three of a random unit 4-vector, normalized */
        rcb_v3_scale(dir, 1.0 / rcb_v3_norm(dir), dir);
        rcc_poly3_box(ha, &A);
        rcc_poly3_box(hb, &B);
        for (int it = 0; it < 60; it++) {
            rcb_v3_scale(pb.p, 0.5 * (lo + hi), dir);
            if (rcc_collide_poly3(&A.p, &pa, &B.p, &pb, margin, &m) < margin) lo = 0.5 * (lo + hi);
            else hi = 0.5 * (lo + hi);
        }
        rcb_v3_scale(pb.p, 0.5 * (lo + hi) * (1.0 + urand(-1, 1) * pow(10.0, urand(-12, -6))), dir);
        compare(ha, &pa, hb, &pb, margin, &t);
    }
    CHECK(t.mismatch == 0);
    CHECK(t.edge > 100 && t.none > 50 && t.face > 50);
    printf("  edges, margins: %ld pairs, %ld mismatches (%ld face, %ld edge-edge, %ld one point, %ld none)\n",
           t.pairs, t.mismatch, t.face, t.edge, t.point1, t.none);
}

/* two boxes of the same size and pose (one entry of the table for both),
 * nearly so, of other sizes at the same pose, and a box turned in place
 * against the same neighbour (the table's key is the size and the whole
 * pose: an entry of another size or turn is not taken) */
RC_TEST(fast_path_equals_general_path_on_coincident_boxes)
{
    tally t = { 0 };
    for (int k = 0; k < 100; k++) {
        double h[3], h2[3];
        rcc_pose3 pa, pb;
        rand_half(h, 0.1, 0.5);
        rand_half(h2, 0.1, 0.5);
        rand_quat(pa.q);
        for (int i = 0; i < 3; i++) pa.p[i] = urand(-1, 1);
        pb = pa;
        if (k % 2) pb.p[k % 3] += 1e-9;
        compare(h, &pa, h, &pb, 1e-3, &t);
        compare(h, &pa, h2, &pa, 1e-3, &t);
    }
    CHECK(t.face == t.pairs);
    for (int k = 0; k < 100; k++) {
        const double ha[3] = { 0.3, 0.2, 0.1 }, hb[3] = { 0.2, 0.2, 0.2 };
        rcc_pose3 pa = { { 0, 0, 0 }, { 1, 0, 0, 0 } }, pb = { { 0.1, 0.05, 0.3 - 1e-6 }, { 1, 0, 0, 0 } };
        turned(pb.q, 0.0, 1e-3 * (k % 10));   /* pb.p unchanged */
        compare(ha, &pa, hb, &pb, 1e-3, &t);
        turned(pa.q, 0.0, 1e-3 * (k % 7));
        compare(ha, &pa, hb, &pb, 1e-3, &t);
    }
    CHECK(t.mismatch == 0);
}

RC_TEST_MAIN(T(fast_path_equals_general_path_on_random_poses), T(fast_path_equals_general_path_on_resting_blocks),
             T(fast_path_equals_general_path_on_edges_and_margins), T(fast_path_equals_general_path_on_coincident_boxes))
