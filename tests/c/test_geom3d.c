/* test_geom3d.c -- the spatial narrow phase (collide/geom3d.h) against
 * independent computations: every pair type on random poses (fixed seed):
 * the least gap of the manifold against a reference (closed forms, the 8
 * box vertices, nested ternary searches along the capsule axes), the points
 * on both surfaces, swapping A and B, the contact Jacobian rows against
 * finite differences of the gaps under a small motion of both bodies, the
 * continuity of features and tangent frames; and the degenerate cases. */
#include "rc_test.h"
#include "collide/geom3d.h"

/* ---------------------------------------------------------------- helpers */

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static double urand(double lo, double hi)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static void rand_unit(double *u, int dim)
{
    double s;
    do {
        s = 0.0;
        for (int i = 0; i < dim; i++) { u[i] = urand(-1, 1); s += u[i] * u[i]; }
    } while (s > 1.0 || s < 1e-2);
    for (int i = 0; i < dim; i++) u[i] /= sqrt(s);
}

static rcc_shape3 make_shape(int kind)
{
    rcc_shape3 s = { .kind = kind };
    switch (kind) {
    case RCC_G3_SPHERE: s.radius = urand(0.2, 1.0); break;
    case RCC_G3_CAPSULE: s.radius = urand(0.1, 0.5); s.half_len = urand(0.2, 1.0); break;
    case RCC_G3_BOX: for (int i = 0; i < 3; i++) s.half[i] = urand(0.2, 1.0); break;
    default: rand_unit(s.normal, 3); break;
    }
    return s;
}

static rcc_pose3 rand_pose(double spread)
{
    rcc_pose3 p;
    for (int i = 0; i < 3; i++) p.p[i] = urand(-spread, spread);
    rand_unit(p.q, 4);
    return p;
}

/* world = p + R b with the rotation matrix (independent of rcb_quat_rotate) */
static void to_world(double *x, const rcc_pose3 *p, const double *b)
{
    double R[9];
    rcb_quat_matrix(p->q, R);
    for (int i = 0; i < 3; i++) x[i] = p->p[i] + R[3 * i] * b[0] + R[3 * i + 1] * b[1] + R[3 * i + 2] * b[2];
}
static void to_body(double *b, const rcc_pose3 *p, const double *x)
{
    double R[9];
    rcb_quat_matrix(p->q, R);
    for (int i = 0; i < 3; i++)
        b[i] = R[i] * (x[0] - p->p[0]) + R[3 + i] * (x[1] - p->p[1]) + R[6 + i] * (x[2] - p->p[2]);
}

/* the capsule's axis point at s */
static void axis_point(double *x, const rcc_shape3 *s, const rcc_pose3 *p, double t)
{
    const double b[3] = { 0, 0, t };
    (void)s;
    to_world(x, p, b);
}

static double dist3(const double *a, const double *b)
{
    const double d[3] = { a[0] - b[0], a[1] - b[1], a[2] - b[2] };
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* min over t in [-h, h] of |x - axis(t)| by ternary search (convex in t) */
static double point_axis_dist(const double *x, const rcc_shape3 *s, const rcc_pose3 *p)
{
    double lo = -s->half_len, hi = s->half_len, y[3];
    for (int it = 0; it < 200 && hi - lo > 1e-15; it++) {
        const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        double y1[3], y2[3];
        axis_point(y1, s, p, m1);
        axis_point(y2, s, p, m2);
        if (dist3(x, y1) < dist3(x, y2)) hi = m2; else lo = m1;
    }
    axis_point(y, s, p, 0.5 * (lo + hi));
    return dist3(x, y);
}

static double axis_axis_dist(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb)
{
    double lo = -a->half_len, hi = a->half_len, x[3];
    for (int it = 0; it < 100 && hi - lo > 1e-14; it++) {
        const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        double x1[3], x2[3];
        axis_point(x1, a, pa, m1);
        axis_point(x2, a, pa, m2);
        if (point_axis_dist(x1, b, pb) < point_axis_dist(x2, b, pb)) hi = m2; else lo = m1;
    }
    axis_point(x, a, pa, 0.5 * (lo + hi));
    return point_axis_dist(x, b, pb);
}

/* signed distance of the world point x to the box (negative inside) */
static double box_sd(const rcc_shape3 *s, const rcc_pose3 *p, const double *x)
{
    double b[3], out = 0.0, in = -HUGE_VAL;
    to_body(b, p, x);
    for (int i = 0; i < 3; i++) {
        const double e = fabs(b[i]) - s->half[i];
        if (e > 0) out += e * e;
        in = fmax(in, e);
    }
    return out > 0 ? sqrt(out) : in;
}

static double plane_sd(const rcc_shape3 *s, const rcc_pose3 *p, const double *x)
{
    double n[3];
    const double zero[3] = { 0, 0, 0 };
    to_world(n, p, s->normal);
    double o[3];
    to_world(o, p, zero);
    return (n[0] - o[0]) * (x[0] - p->p[0]) + (n[1] - o[1]) * (x[1] - p->p[1]) + (n[2] - o[2]) * (x[2] - p->p[2]);
}

/* signed distance of a world point to a shape's surface */
static double shape_sd(const rcc_shape3 *s, const rcc_pose3 *p, const double *x)
{
    switch (s->kind) {
    case RCC_G3_SPHERE: return dist3(x, p->p) - s->radius;
    case RCC_G3_CAPSULE: return point_axis_dist(x, s, p) - s->radius;
    case RCC_G3_BOX: return box_sd(s, p, x);
    default: return plane_sd(s, p, x);
    }
}

/* The reference gap (signed distance between the shapes) */
static double ref_gap(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb)
{
    if (a->kind > b->kind) return ref_gap(b, pb, a, pa);
    if (a->kind == RCC_G3_PLANE) {
        if (b->kind == RCC_G3_SPHERE) return plane_sd(a, pa, pb->p) - b->radius;
        double g = HUGE_VAL, x[3];
        if (b->kind == RCC_G3_CAPSULE) {
            for (int k = -1; k <= 1; k += 2) { axis_point(x, b, pb, k * b->half_len); g = fmin(g, plane_sd(a, pa, x)); }
            return g - b->radius;
        }
        for (int k = 0; k < 8; k++) {
            const double v[3] = { (k & 1 ? 1 : -1) * b->half[0], (k & 2 ? 1 : -1) * b->half[1], (k & 4 ? 1 : -1) * b->half[2] };
            to_world(x, pb, v);
            g = fmin(g, plane_sd(a, pa, x));
        }
        return g;
    }
    if (a->kind == RCC_G3_SPHERE) {
        if (b->kind == RCC_G3_SPHERE) return dist3(pa->p, pb->p) - a->radius - b->radius;
        if (b->kind == RCC_G3_CAPSULE) return point_axis_dist(pa->p, b, pb) - a->radius - b->radius;
        return box_sd(b, pb, pa->p) - a->radius;
    }
    if (b->kind == RCC_G3_BOX) {   /* capsule-box: the least signed distance of the axis (convex) */
        double lo = -a->half_len, hi = a->half_len, x1[3], x2[3];
        for (int it = 0; it < 200 && hi - lo > 1e-15; it++) {
            const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
            axis_point(x1, a, pa, m1);
            axis_point(x2, a, pa, m2);
            if (box_sd(b, pb, x1) < box_sd(b, pb, x2)) hi = m2; else lo = m1;
        }
        axis_point(x1, a, pa, 0.5 * (lo + hi));
        return box_sd(b, pb, x1) - a->radius;
    }
    return axis_axis_dist(a, pa, b, pb) - a->radius - b->radius;   /* capsule-capsule */
}

/* capsule-box with the capsule's axis entering the box (a penetration deeper
 * than the radius): the gap there is a minimax (see docs/theory/spatial.md),
 * its point on the axis ball, not on the capsule's boundary */
static int axis_in_box(const rcc_shape3 *a, const rcc_shape3 *b, double g)
{
    const rcc_shape3 *c = a->kind == RCC_G3_CAPSULE ? a : b, *x = a->kind == RCC_G3_BOX ? a : b;
    return c->kind == RCC_G3_CAPSULE && x->kind == RCC_G3_BOX && g < -c->radius;
}

static const rcc_point3 *find_feature(const rcc_manifold3 *m, int f)
{
    for (int k = 0; k < m->n; k++) if (m->pt[k].feature == f) return &m->pt[k];
    return NULL;
}

static double min_gap(const rcc_manifold3 *m)
{
    double g = HUGE_VAL;
    for (int k = 0; k < m->n; k++) g = fmin(g, m->pt[k].g);
    return g;
}

static int finite_point(const rcc_point3 *o)
{
    int ok = isfinite(o->g);
    for (int i = 0; i < 3; i++)
        ok &= isfinite(o->pa[i]) && isfinite(o->pb[i]) && isfinite(o->n[i]) && isfinite(o->t1[i]) && isfinite(o->t2[i]);
    return ok;
}

/* n unit, (t1, t2, n) orthonormal and right-handed, g = n.(pb - pa) and
 * pb - pa = g n: the largest violation */
static double frame_error(const rcc_point3 *o)
{
    double c[3], d[3], e = fabs(rcb_v3_norm(o->n) - 1.0);
    e = fmax(e, fabs(rcb_v3_norm(o->t1) - 1.0));
    e = fmax(e, fabs(rcb_v3_norm(o->t2) - 1.0));
    e = fmax(e, fabs(rcb_v3_dot(o->t1, o->n)));
    e = fmax(e, fabs(rcb_v3_dot(o->t2, o->n)));
    e = fmax(e, fabs(rcb_v3_dot(o->t1, o->t2)));
    rcb_v3_cross(c, o->t1, o->t2);
    rcb_v3_sub(c, c, o->n);
    e = fmax(e, rcb_v3_norm(c));
    rcb_v3_sub(d, o->pb, o->pa);
    e = fmax(e, fabs(rcb_v3_dot(o->n, d) - o->g));
    rcb_v3_axpy(d, d, -o->g, o->n);
    return fmax(e, rcb_v3_norm(d));
}

static const int PAIRS[][2] = {
    { RCC_G3_SPHERE, RCC_G3_SPHERE }, { RCC_G3_PLANE, RCC_G3_SPHERE }, { RCC_G3_SPHERE, RCC_G3_CAPSULE },
    { RCC_G3_CAPSULE, RCC_G3_CAPSULE }, { RCC_G3_CAPSULE, RCC_G3_PLANE }, { RCC_G3_PLANE, RCC_G3_BOX },
    { RCC_G3_BOX, RCC_G3_SPHERE }, { RCC_G3_BOX, RCC_G3_CAPSULE },
};
enum { NPAIRS = (int)(sizeof PAIRS / sizeof PAIRS[0]), PER_TYPE = 300 };

/* a random pair of type k, placed so that the gap is in about [-0.5, 1] */
static void random_pair(int k, rcc_shape3 *a, rcc_pose3 *pa, rcc_shape3 *b, rcc_pose3 *pb)
{
    *a = make_shape(PAIRS[k][0]);
    *b = make_shape(PAIRS[k][1]);
    *pa = rand_pose(0.5);
    *pb = rand_pose(0.5);
    /* move B along a random direction until the reference gap is the target */
    double dir[3], target = urand(-0.4, 1.0);
    rand_unit(dir, 3);
    if (a->kind == RCC_G3_PLANE) to_world(dir, &(rcc_pose3){ { 0, 0, 0 }, { pa->q[0], pa->q[1], pa->q[2], pa->q[3] } }, a->normal);
    if (b->kind == RCC_G3_PLANE) {
        double nb[3];
        to_world(nb, &(rcc_pose3){ { 0, 0, 0 }, { pb->q[0], pb->q[1], pb->q[2], pb->q[3] } }, b->normal);
        rcb_v3_scale(dir, -1.0, nb);
    }
    double lo = -5, hi = 5;   /* the gap grows with the offset along dir (bisection) */
    const rcc_pose3 base = *pb;
    for (int it = 0; it < 60; it++) {
        const double m = 0.5 * (lo + hi);
        rcb_v3_axpy(pb->p, base.p, m, dir);
        rcc_manifold3 mm;   /* placement only: the gap under test is cheaper than the reference */
        rcc_collide3(a, pa, b, pb, HUGE_VAL, &mm);
        if (min_gap(&mm) < target) lo = m; else hi = m;
    }
    rcb_v3_axpy(pb->p, base.p, 0.5 * (lo + hi), dir);
}

/* ---------------------------------------------------------------- tests */

RC_TEST(gap_exact_points_on_surfaces)
{
    double worst_gap = 0.0, worst_surf = 0.0, worst_frame = 0.0;
    int nonempty = 0, deep = 0;
    for (int k = 0; k < NPAIRS; k++)
        for (int it = 0; it < PER_TYPE; it++) {
            rcc_shape3 a, b;
            rcc_pose3 pa, pb;
            rcc_manifold3 m;
            random_pair(k, &a, &pa, &b, &pb);
            CHECK(rcc_collide3(&a, &pa, &b, &pb, HUGE_VAL, &m));
            CHECK(m.n >= 1 && m.n <= RCC_MAX_POINTS);
            if (m.n < 1) continue;
            nonempty++;
            const double ref = ref_gap(&a, &pa, &b, &pb);
            worst_gap = fmax(worst_gap, fabs(min_gap(&m) - ref));
            for (int j = 0; j < m.n; j++) {
                CHECK(finite_point(&m.pt[j]));
                if (axis_in_box(&a, &b, m.pt[j].g)) { deep++; continue; }
                const double ea = fabs(shape_sd(&a, &pa, m.pt[j].pa)), eb = fabs(shape_sd(&b, &pb, m.pt[j].pb));
                if (fmax(ea, eb) > 1e-12) printf("  pair %d-%d: point %d off its surface by %.3g, %.3g (g %.3g)\n",
                                                a.kind, b.kind, j, ea, eb, m.pt[j].g);
                worst_surf = fmax(worst_surf, fmax(ea, eb));
                worst_frame = fmax(worst_frame, frame_error(&m.pt[j]));
            }
            /* the margin: no point above it, the deepest kept */
            rcc_manifold3 mm;
            const double margin = ref + 0.01;
            rcc_collide3(&a, &pa, &b, &pb, margin, &mm);
            CHECK(mm.n >= 1);
            for (int j = 0; j < mm.n; j++) CHECK(mm.pt[j].g <= margin + 1e-11);
            rcc_collide3(&a, &pa, &b, &pb, ref - 1e-6, &mm);
            CHECK(mm.n == 0);
        }
    printf("  %d pairs: |min g - reference| <= %.2e, points off their surface <= %.2e, frame/gap <= %.2e"
           " (%d capsule axes in a box not checked on the surfaces)\n", nonempty, worst_gap, worst_surf, worst_frame, deep);
    CHECK(deep < PER_TYPE / 5);
    CHECK(nonempty == NPAIRS * PER_TYPE);
    CHECK(worst_gap <= 1e-11);
    CHECK(worst_surf <= 1e-12);
    CHECK(worst_frame <= 1e-12);
}

RC_TEST(swap_flips_normal_keeps_gap)
{
    double worst = 0.0;
    for (int k = 0; k < NPAIRS; k++)
        for (int it = 0; it < PER_TYPE; it++) {
            rcc_shape3 a, b;
            rcc_pose3 pa, pb;
            rcc_manifold3 m, s;
            random_pair(k, &a, &pa, &b, &pb);
            rcc_collide3(&a, &pa, &b, &pb, HUGE_VAL, &m);
            rcc_collide3(&b, &pb, &a, &pa, HUGE_VAL, &s);
            CHECK(m.n == s.n);
            for (int j = 0; j < m.n; j++) {
                const int f = m.pt[j].feature;
                const rcc_point3 *o = find_feature(&s, (f >> 8) | (f & 0xff) << 8);
                CHECK(o != NULL);
                if (!o) continue;
                worst = fmax(worst, fabs(o->g - m.pt[j].g));
                for (int i = 0; i < 3; i++) {
                    worst = fmax(worst, fabs(o->n[i] + m.pt[j].n[i]));
                    worst = fmax(worst, fabs(o->pa[i] - m.pt[j].pb[i]));
                    worst = fmax(worst, fabs(o->pb[i] - m.pt[j].pa[i]));
                }
            }
        }
    printf("  swap: largest difference %.2e\n", worst);
    CHECK(worst <= 1e-12);
}

/* the pose after a time eps at velocity v = (v world, Omega body) */
static rcc_pose3 advance(const rcc_pose3 *p, const double *v, double eps)
{
    rcc_pose3 r = *p;
    const double phi[3] = { eps * v[3], eps * v[4], eps * v[5] };
    rcb_v3_axpy(r.p, p->p, eps, v);
    rcb_quat_step(r.q, phi);
    return r;
}

static double dot6(const double *a, const double *b)
{
    double s = 0;
    for (int i = 0; i < 6; i++) s += a[i] * b[i];
    return s;
}

RC_TEST(jacobian_rows_match_finite_differences)
{
    const double eps = 1e-6;
    double worst = 0.0, worst_rel = 0.0;
    int checked = 0, unmatched = 0, inside = 0;
    for (int k = 0; k < NPAIRS; k++)
        for (int it = 0; it < PER_TYPE; it++) {
            rcc_shape3 a, b;
            rcc_pose3 pa, pb;
            rcc_manifold3 m, mp, mm;
            double va[6], vb[6];
            random_pair(k, &a, &pa, &b, &pb);
            for (int i = 0; i < 6; i++) { va[i] = urand(-1, 1); vb[i] = urand(-1, 1); }
            rcc_collide3(&a, &pa, &b, &pb, HUGE_VAL, &m);
            const rcc_pose3 pa1 = advance(&pa, va, eps), pb1 = advance(&pb, vb, eps);
            const rcc_pose3 pa0 = advance(&pa, va, -eps), pb0 = advance(&pb, vb, -eps);
            rcc_collide3(&a, &pa1, &b, &pb1, HUGE_VAL, &mp);
            rcc_collide3(&a, &pa0, &b, &pb0, HUGE_VAL, &mm);
            for (int j = 0; j < m.n; j++) {
                const rcc_point3 *o = &m.pt[j], *op = find_feature(&mp, o->feature), *om = find_feature(&mm, o->feature);
                if (!op || !om) { unmatched++; continue; }
                if (axis_in_box(&a, &b, o->g)) { inside++; continue; }   /* a minimax: no gradient */
                double ra[3], rb[3], ja[6], jb[6];
                rcb_v3_sub(ra, o->pa, pa.p);
                rcb_v3_sub(rb, o->pb, pb.p);
                rcc_jacobian3d(pa.q, ra, o->n, ja);
                rcc_jacobian3d(pb.q, rb, o->n, jb);
                const double rate = dot6(jb, vb) - dot6(ja, va), fd = (op->g - om->g) / (2 * eps);
                worst = fmax(worst, fabs(fd - rate));
                worst_rel = fmax(worst_rel, fabs(fd - rate) / fmax(1.0, fabs(rate)));
                checked++;
            }
        }
    printf("  %d points: |dg/dt (FD, eps = %g) - (J_B v_B - J_A v_A)| <= %.2e (%d unmatched, %d capsule axes in a box)\n",
           checked, eps, worst, unmatched, inside);
    CHECK(checked >= NPAIRS * PER_TYPE);
    CHECK(unmatched <= checked / 100);
    CHECK(worst_rel <= 1e-7);
}

RC_TEST(jacobian_row_is_the_point_velocity)
{
    /* row . v = d . (v + R (Omega x R^T r)) with the matrix R */
    for (int it = 0; it < 100; it++) {
        double q[4], r[3], d[3], v[6], row[6], R[9], rb[3], w[3], u[3];
        rand_unit(q, 4);
        for (int i = 0; i < 3; i++) { r[i] = urand(-2, 2); d[i] = urand(-1, 1); }
        for (int i = 0; i < 6; i++) v[i] = urand(-3, 3);
        rcc_jacobian3d(q, r, d, row);
        rcb_quat_matrix(q, R);
        for (int i = 0; i < 3; i++) rb[i] = R[i] * r[0] + R[3 + i] * r[1] + R[6 + i] * r[2];
        rcb_v3_cross(w, v + 3, rb);
        for (int i = 0; i < 3; i++) u[i] = v[i] + R[3 * i] * w[0] + R[3 * i + 1] * w[1] + R[3 * i + 2] * w[2];
        CHECK_NEAR(dot6(row, v), rcb_v3_dot(d, u), 1e-13);
    }
}

RC_TEST(features_and_frames_continuous)
{
    /* a motion of 1e-7: the same features (but near a feature's boundary),
     * the tangent frame moves by O(1e-7) (away from n = -e_z) */
    int points = 0, changed = 0;
    double worst = 0.0;
    for (int k = 0; k < NPAIRS; k++)
        for (int it = 0; it < PER_TYPE; it++) {
            rcc_shape3 a, b;
            rcc_pose3 pa, pb;
            rcc_manifold3 m, m1;
            double v[6];
            random_pair(k, &a, &pa, &b, &pb);
            for (int i = 0; i < 6; i++) v[i] = urand(-1, 1);
            rcc_collide3(&a, &pa, &b, &pb, HUGE_VAL, &m);
            const rcc_pose3 pb1 = advance(&pb, v, 1e-7);
            rcc_collide3(&a, &pa, &b, &pb1, HUGE_VAL, &m1);
            for (int j = 0; j < m.n; j++) {
                const rcc_point3 *o = &m.pt[j], *o1 = find_feature(&m1, o->feature);
                if (axis_in_box(&a, &b, o->g)) continue;
                points++;
                if (!o1) { changed++; continue; }
                if (o->n[2] < -0.9) continue;
                double d1[3], d2[3];
                rcb_v3_sub(d1, o1->t1, o->t1);
                rcb_v3_sub(d2, o1->t2, o->t2);
                worst = fmax(worst, fmax(rcb_v3_norm(d1), rcb_v3_norm(d2)));
            }
        }
    printf("  %d points, %d changed feature under a 1e-7 motion; tangents moved <= %.2e\n", points, changed, worst);
    CHECK(changed <= points / 1000 + 1);
    CHECK(worst <= 1e-5);
}

RC_TEST(tangent_frame_smooth_across_the_equator)
{
    /* the two formulas of a (nz >= 0, nz < 0) agree at nz = 0 */
    double n1[3] = { 0.6, 0.8, 1e-17 }, n2[3] = { 0.6, 0.8, -1e-17 }, a1[3], b1[3], a2[3], b2[3];
    rcc_tangent_frame(n1, a1, b1);
    rcc_tangent_frame(n2, a2, b2);
    for (int i = 0; i < 3; i++) { CHECK_NEAR(a1[i], a2[i], 1e-15); CHECK_NEAR(b1[i], b2[i], 1e-15); }
    /* orthonormal close to the singular point n = -e_z */
    double n3[3] = { 1e-9, 2e-9, -1.0 }, t1[3], t2[3];
    rcc_tangent_frame(n3, t1, t2);
    CHECK_NEAR(rcb_v3_dot(t1, t2), 0.0, 1e-15);
    CHECK_NEAR(rcb_v3_norm(t1), 1.0, 1e-15);
    CHECK_NEAR(rcb_v3_dot(t1, n3), 0.0, 1e-15);
    /* following a previous t1: the projection, continuous through -e_z */
    double n4[3] = { 0, 0, -1 }, prev[3] = { 0.6, 0.0, 0.8 }, f1[3], f2[3];
    rcc_tangent_frame_follow(n4, prev, f1, f2);
    CHECK_NEAR(f1[0], 1.0, 1e-15);
    CHECK_NEAR(f2[1], -1.0, 1e-15);   /* n x t1 = -e_z x e_x = -e_y */
}

/* ---------------------------------------------------------------- degenerate cases */

static const double PI = 3.14159265358979323846;
static const rcc_pose3 ID = { { 0, 0, 0 }, { 1, 0, 0, 0 } };

RC_TEST(coincident_sphere_centres)
{
    rcc_shape3 a = { .kind = RCC_G3_SPHERE, .radius = 0.5 }, b = { .kind = RCC_G3_SPHERE, .radius = 0.25 };
    rcc_manifold3 m;
    rcc_collide3(&a, &ID, &b, &ID, 0.0, &m);
    CHECK(m.n == 1 && finite_point(&m.pt[0]));
    CHECK_NEAR(m.pt[0].g, -0.75, 0);
    CHECK_NEAR(m.pt[0].n[2], 1.0, 0);
    CHECK(frame_error(&m.pt[0]) <= 1e-15);
    /* a sphere centred on a capsule's axis: a normal across the axis */
    rcc_shape3 c = { .kind = RCC_G3_CAPSULE, .radius = 0.1, .half_len = 1 };
    rcc_collide3(&a, &ID, &c, &ID, 0.0, &m);
    CHECK(m.n == 1 && finite_point(&m.pt[0]));
    CHECK_NEAR(m.pt[0].g, -0.6, 1e-15);
    CHECK_NEAR(m.pt[0].n[2], 0.0, 1e-15);
    CHECK(m.pt[0].feature == (RCC_F_SIDE << 8));
    /* a sphere centred in a box: out through the face of least half-extent */
    rcc_shape3 bx = { .kind = RCC_G3_BOX, .half = { 1, 0.5, 2 } };
    rcc_collide3(&a, &ID, &bx, &ID, 0.0, &m);
    CHECK(m.n == 1 && finite_point(&m.pt[0]));
    CHECK_NEAR(m.pt[0].g, -1.0, 1e-15);
    CHECK_NEAR(m.pt[0].n[1], -1.0, 1e-15);   /* from the sphere to the box: -(box's outward +y) */
    CHECK(m.pt[0].feature >> 8 == rcc_box_feature(0, 1, 0));
    /* crossing capsule axes */
    rcc_pose3 pc = { { 0, 0, 0 }, { sqrt(0.5), sqrt(0.5), 0, 0 } };   /* axis along -y */
    rcc_collide3(&c, &ID, &c, &pc, 0.0, &m);
    CHECK(m.n == 1 && finite_point(&m.pt[0]));
    CHECK_NEAR(m.pt[0].g, -0.2, 1e-15);
    CHECK_NEAR(fabs(m.pt[0].n[0]), 1.0, 1e-15);
}

RC_TEST(parallel_capsules_two_points)
{
    rcc_shape3 c = { .kind = RCC_G3_CAPSULE, .radius = 0.25, .half_len = 1 };
    rcc_pose3 pb = { { 1, 0, 0.5 }, { 1, 0, 0, 0 } };
    rcc_manifold3 m;
    rcc_collide3(&c, &ID, &c, &pb, 0.5, &m);
    CHECK(m.n == 2);
    for (int j = 0; j < m.n; j++) {
        CHECK_NEAR(m.pt[j].g, 0.5, 1e-15);
        CHECK_NEAR(m.pt[j].n[0], 1.0, 1e-15);
    }
    CHECK(m.n < 2 || (m.pt[0].feature == (RCC_F_SIDE | RCC_F_END0 << 8) && fabs(m.pt[0].pa[2] + 0.5) < 1e-15));
    CHECK(m.n < 2 || (m.pt[1].feature == (RCC_F_END1 | RCC_F_SIDE << 8) && fabs(m.pt[1].pa[2] - 1.0) < 1e-15));
    /* antiparallel (B turned by pi about x) and slightly out of parallel: still two */
    rcc_pose3 pr = { { 1, 0, 0.5 }, { 0, 1, 0, 0 } };
    rcc_collide3(&c, &ID, &c, &pr, 0.5, &m);
    CHECK(m.n == 2);
    rcc_pose3 pt = { { 1, 0, 0.5 }, { cos(2e-6), sin(2e-6), 0, 0 } };   /* 4e-6 rad */
    rcc_collide3(&c, &ID, &c, &pt, 0.6, &m);
    CHECK(m.n == 2);
    /* the overlap's ends are 1 + h^2 theta^2 / 2 apart, the closest points 1:
     * within the slop (1e-12 x the sizes) the ends are kept */
    CHECK_NEAR(min_gap(&m), ref_gap(&c, &ID, &c, &pt), 1e-11);
    /* collinear end to end: one point between the ends */
    rcc_pose3 pe = { { 0, 0, 2.5 }, { 1, 0, 0, 0 } };
    rcc_collide3(&c, &ID, &c, &pe, 0.0, &m);
    CHECK(m.n == 1);
    CHECK_NEAR(m.pt[0].g, 0.0, 1e-15);
    CHECK(m.pt[0].feature == (RCC_F_END1 | RCC_F_END0 << 8));
}

RC_TEST(capsule_perpendicular_and_parallel_to_plane)
{
    rcc_shape3 pl = { .kind = RCC_G3_PLANE, .normal = { 0, 0, 1 } };
    rcc_shape3 c = { .kind = RCC_G3_CAPSULE, .radius = 0.25, .half_len = 1 };
    rcc_pose3 up = { { 0.3, 0.2, 1.25 }, { 1, 0, 0, 0 } };
    rcc_manifold3 m;
    rcc_collide3(&c, &up, &pl, &ID, 0.0, &m);
    CHECK(m.n == 1);
    CHECK_NEAR(m.pt[0].g, 0.0, 1e-15);
    CHECK_NEAR(m.pt[0].n[2], -1.0, 0);               /* from the capsule to the plane */
    CHECK(m.pt[0].feature == RCC_F_END0);
    CHECK_NEAR(m.pt[0].pb[2], 0.0, 1e-15);
    rcc_pose3 flat = { { 0, 0, 0.25 }, { sqrt(0.5), 0, sqrt(0.5), 0 } };   /* axis along x */
    rcc_collide3(&pl, &ID, &c, &flat, 0.0, &m);
    CHECK(m.n == 2);
    for (int j = 0; j < m.n; j++) CHECK_NEAR(m.pt[j].g, 0.0, 1e-15);
}

RC_TEST(box_face_and_edge_on_plane)
{
    rcc_shape3 pl = { .kind = RCC_G3_PLANE, .normal = { 0, 0, 1 } };
    rcc_shape3 bx = { .kind = RCC_G3_BOX, .half = { 0.5, 0.3, 0.2 } };
    rcc_manifold3 m;
    rcc_pose3 p = { { 1, 2, 0.2 }, { 1, 0, 0, 0 } };
    rcc_collide3(&pl, &ID, &bx, &p, 0.0, &m);
    CHECK(m.n == 4);
    for (int j = 0; j < m.n; j++) { CHECK_NEAR(m.pt[j].g, 0.0, 0); CHECK((m.pt[j].feature >> 8) < 9); }
    /* a face down after a rotation by pi/2 about x (round-off in R) */
    const double c = cos(PI / 4), s = sin(PI / 4);
    rcc_pose3 r = { { 1, 2, 0.3 }, { c, s, 0, 0 } };
    rcc_collide3(&pl, &ID, &bx, &r, 0.0, &m);
    CHECK(m.n == 4);
    for (int j = 0; j < m.n; j++) CHECK_NEAR(m.pt[j].g, 0.0, 1e-15);
    /* an edge down: pi/4 about x */
    rcc_pose3 e = { { 1, 2, sqrt(0.3 * 0.3 + 0.2 * 0.2) * sin(PI / 4 + atan2(0.2, 0.3)) }, { cos(PI / 8), sin(PI / 8), 0, 0 } };
    rcc_collide3(&pl, &ID, &bx, &e, 0.0, &m);
    CHECK(m.n == 2);
    for (int j = 0; j < m.n; j++) CHECK_NEAR(m.pt[j].g, 0.0, 1e-15);
    CHECK(m.n < 2 || m.pt[0].feature != m.pt[1].feature);
    /* a large margin: the four deepest of the eight vertices */
    rcc_collide3(&pl, &ID, &bx, &p, 10.0, &m);
    CHECK(m.n == 4);
    for (int j = 0; j < m.n; j++) CHECK_NEAR(m.pt[j].g, 0.0, 0);
}

RC_TEST(capsule_on_box_face)
{
    rcc_shape3 bx = { .kind = RCC_G3_BOX, .half = { 1, 0.5, 0.25 } };
    rcc_shape3 c = { .kind = RCC_G3_CAPSULE, .radius = 0.1, .half_len = 0.5 };
    const int top = rcc_box_feature(0, 0, 1), top_edge = rcc_box_feature(1, 0, 1);
    rcc_manifold3 m;
    /* lying on the top face (axis along x): two points at the ends */
    rcc_pose3 flat = { { 0.2, 0, 0.35 }, { sqrt(0.5), 0, sqrt(0.5), 0 } };
    rcc_collide3(&c, &flat, &bx, &ID, 0.0, &m);
    CHECK(m.n == 2);
    for (int j = 0; j < m.n; j++) { CHECK_NEAR(m.pt[j].g, 0.0, 1e-15); CHECK_NEAR(m.pt[j].n[2], -1.0, 1e-15); }
    CHECK(m.n < 2 || (m.pt[0].feature == (RCC_F_END0 | top << 8) && m.pt[1].feature == (RCC_F_END1 | top << 8)));
    /* over the edge x = 1: the second point where the axis leaves the face */
    rcc_pose3 over = { { 0.8, 0, 0.35 }, { sqrt(0.5), 0, sqrt(0.5), 0 } };
    rcc_collide3(&bx, &ID, &c, &over, 0.0, &m);
    CHECK(m.n == 2);
    CHECK(m.n < 2 || (m.pt[1].feature == (top_edge | RCC_F_SIDE << 8) && fabs(m.pt[1].pb[0] - 1.0) < 1e-15));
    for (int j = 0; j < m.n; j++) CHECK_NEAR(m.pt[j].g, 0.0, 1e-15);
    /* standing on it: one point, the lower end */
    rcc_pose3 up = { { 0.3, 0.1, 0.85 }, { 1, 0, 0, 0 } };
    rcc_collide3(&c, &up, &bx, &ID, 0.0, &m);
    CHECK(m.n == 1);
    CHECK(m.n < 1 || (m.pt[0].feature == (RCC_F_END0 | top << 8) && fabs(m.pt[0].g) < 1e-15));
    /* the axis through the box's centre: finite, deeper than the radius */
    rcc_collide3(&c, &ID, &bx, &ID, 0.0, &m);
    CHECK(m.n == 1 && finite_point(&m.pt[0]) && m.pt[0].g < -0.1);
}

RC_TEST_MAIN(T(capsule_on_box_face), T(gap_exact_points_on_surfaces), T(swap_flips_normal_keeps_gap), T(jacobian_rows_match_finite_differences),
             T(jacobian_row_is_the_point_velocity), T(features_and_frames_continuous),
             T(tangent_frame_smooth_across_the_equator), T(coincident_sphere_centres), T(parallel_capsules_two_points),
             T(capsule_perpendicular_and_parallel_to_plane), T(box_face_and_edge_on_plane))
