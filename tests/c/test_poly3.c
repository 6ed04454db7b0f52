/* test_poly3.c -- box-box contact through the convex-polyhedron routine
 * (collide/poly3.c, geom3d.h) against independent computations: the box's
 * topology, random box pairs (fixed seed) against brute force (the 15 SAT
 * axes over all 8 + 8 projected vertices for overlapping pairs, the exact
 * distance over vertex-box and edge-edge pairs for separated ones), points
 * on both surfaces, resting face-face manifolds (4 points, equal gaps),
 * edge-edge crossings at analytic gaps, features unchanged under 1e-7
 * motions, the Jacobian rows against finite differences. */
#include "rc_test.h"
#include "collide/geom3d.h"

static unsigned long long rng = 0x2545F4914F6CDD1DULL;
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

static rcc_shape3 rand_box(void)
{
    rcc_shape3 s = { .kind = RCC_G3_BOX };
    for (int i = 0; i < 3; i++) s.half[i] = urand(0.1, 0.6);
    return s;
}

/* world vertex k (bit i: + side on axis i) by the rotation matrix */
static void vertex(double *x, const rcc_shape3 *s, const rcc_pose3 *p, int k)
{
    double R[9], b[3];
    rcb_quat_matrix(p->q, R);
    for (int i = 0; i < 3; i++) b[i] = (k >> i) & 1 ? s->half[i] : -s->half[i];
    for (int i = 0; i < 3; i++) x[i] = p->p[i] + R[3 * i] * b[0] + R[3 * i + 1] * b[1] + R[3 * i + 2] * b[2];
}

static void axis_of(double *u, const rcc_pose3 *p, int i)
{
    double R[9];
    rcb_quat_matrix(p->q, R);
    for (int j = 0; j < 3; j++) u[j] = R[3 * j + i];
}

/* signed distance of x to the box (negative inside) */
static double box_sd(const rcc_shape3 *s, const rcc_pose3 *p, const double *x)
{
    double d[3], out = 0.0, in = -HUGE_VAL;
    rcb_v3_sub(d, x, p->p);
    for (int i = 0; i < 3; i++) {
        double u[3];
        axis_of(u, p, i);
        const double e = fabs(rcb_v3_dot(d, u)) - s->half[i];
        if (e > 0) out += e * e;
        in = fmax(in, e);
    }
    return out > 0 ? sqrt(out) : in;
}

/* the largest separation over the 15 axes, by projecting all vertices */
static double sat_ref(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb)
{
    double ax[15][3], va[8][3], vb[8][3], best = -HUGE_VAL;
    int n = 0;
    for (int i = 0; i < 3; i++) { axis_of(ax[n++], pa, i); }
    for (int i = 0; i < 3; i++) { axis_of(ax[n++], pb, i); }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double u[3], w[3];
            axis_of(u, pa, i);
            axis_of(w, pb, j);
            rcb_v3_cross(ax[n], u, w);
            const double L = rcb_v3_norm(ax[n]);
            if (L > 1e-6) { rcb_v3_scale(ax[n], 1.0 / L, ax[n]); n++; }
        }
    for (int k = 0; k < 8; k++) { vertex(va[k], a, pa, k); vertex(vb[k], b, pb, k); }
    for (int i = 0; i < n; i++) {
        double lo_a = HUGE_VAL, hi_a = -HUGE_VAL, lo_b = HUGE_VAL, hi_b = -HUGE_VAL;
        for (int k = 0; k < 8; k++) {
            const double x = rcb_v3_dot(ax[i], va[k]), y = rcb_v3_dot(ax[i], vb[k]);
            lo_a = fmin(lo_a, x); hi_a = fmax(hi_a, x); lo_b = fmin(lo_b, y); hi_b = fmax(hi_b, y);
        }
        best = fmax(best, fmax(lo_b - hi_a, lo_a - hi_b));
    }
    return best;
}

/* distance from the point p0 + s (p1 - p0) to the segment (q0, q1): the clamped projection */
static double seg_dist_at(const double *p0, const double *p1, const double *q0, const double *q1, double s)
{
    double x[3], w[3], d[3], y[3];
    for (int i = 0; i < 3; i++) x[i] = p0[i] + s * (p1[i] - p0[i]);
    rcb_v3_sub(w, q1, q0);
    rcb_v3_sub(d, x, q0);
    double t = rcb_v3_dot(d, w) / rcb_v3_dot(w, w);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    for (int i = 0; i < 3; i++) y[i] = q0[i] + t * w[i];
    rcb_v3_sub(d, x, y);
    return rcb_v3_norm(d);
}
/* distance between segments: ternary search over s (the distance is convex in it) */
static double seg_dist(const double *p0, const double *p1, const double *q0, const double *q1)
{
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 100; it++) {
        const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        if (seg_dist_at(p0, p1, q0, q1, m1) < seg_dist_at(p0, p1, q0, q1, m2)) hi = m2; else lo = m1;
    }
    return seg_dist_at(p0, p1, q0, q1, 0.5 * (lo + hi));
}

/* the distance of two separated boxes: vertex-box both ways, edge-edge */
static double dist_ref(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb)
{
    double va[8][3], vb[8][3], d = HUGE_VAL;
    for (int k = 0; k < 8; k++) {
        vertex(va[k], a, pa, k);
        vertex(vb[k], b, pb, k);
        d = fmin(d, fmin(box_sd(b, pb, va[k]), box_sd(a, pa, vb[k])));
    }
    for (int i = 0; i < 8; i++)
        for (int bit = 0; bit < 3; bit++) {
            const int i2 = i | 1 << bit;
            if (i2 == i) continue;
            for (int j = 0; j < 8; j++)
                for (int bj = 0; bj < 3; bj++) {
                    const int j2 = j | 1 << bj;
                    if (j2 != j) d = fmin(d, seg_dist(va[i], va[i2], vb[j], vb[j2]));
                }
        }
    return d;
}

static double min_gap(const rcc_manifold3 *m)
{
    double g = HUGE_VAL;
    for (int i = 0; i < m->n; i++) g = fmin(g, m->pt[i].g);
    return g;
}

static const rcc_point3 *find_feature(const rcc_manifold3 *m, int f)
{
    for (int i = 0; i < m->n; i++) if (m->pt[i].feature == f) return &m->pt[i];
    return NULL;
}

/* how many of a box feature code's sides are 0 (vertex 0, edge 1, face 2) */
static int code_dim(int c) { return (c % 3 == 1) + (c / 3 % 3 == 1) + (c / 9 == 1); }

/* a random pair with B moved along a random direction to the target SAT separation */
static void random_pair(rcc_shape3 *a, rcc_pose3 *pa, rcc_shape3 *b, rcc_pose3 *pb, double target)
{
    *a = rand_box();
    *b = rand_box();
    for (int i = 0; i < 3; i++) { pa->p[i] = urand(-0.5, 0.5); pb->p[i] = urand(-0.5, 0.5); }
    rand_unit(pa->q, 4);
    rand_unit(pb->q, 4);
    double dir[3], lo = -3, hi = 3, base[3];
    rand_unit(dir, 3);
    rcb_v3_copy(base, pa->p);
    for (int it = 0; it < 80; it++) {
        const double mid = 0.5 * (lo + hi);
        rcb_v3_axpy(pb->p, base, mid, dir);
        if (sat_ref(a, pa, b, pb) < target) lo = mid; else hi = mid;
    }
    rcb_v3_axpy(pb->p, base, 0.5 * (lo + hi), dir);
}

static rcc_pose3 advance(const rcc_pose3 *p, const double *v, double eps)
{
    rcc_pose3 r = *p;
    const double phi[3] = { eps * v[3], eps * v[4], eps * v[5] };
    rcb_v3_axpy(r.p, p->p, eps, v);
    rcb_quat_step(r.q, phi);
    return r;
}

/* ---------------------------------------------------------------- tests */

RC_TEST(box_polyhedron_topology)
{
    rcc_box_poly3 B;
    const double half[3] = { 0.3, 0.2, 0.1 };
    rcc_poly3_box(half, &B);
    const rcc_poly3 *p = &B.p;
    CHECK(p->nv == 8 && p->ne == 12 && p->nf == 6);
    for (int f = 0; f < 6; f++) {
        const double *n = p->plane + 4 * f;
        for (int j = p->fstart[f]; j < p->fstart[f + 1]; j++) {
            const int j1 = j + 1 < p->fstart[f + 1] ? j + 1 : p->fstart[f], j2 = j1 + 1 < p->fstart[f + 1] ? j1 + 1 : p->fstart[f];
            const double *x0 = p->v + 3 * p->loop[j], *x1 = p->v + 3 * p->loop[j1], *x2 = p->v + 3 * p->loop[j2];
            double u[3], w[3], c[3];
            rcb_v3_sub(u, x1, x0);
            rcb_v3_sub(w, x2, x1);
            rcb_v3_cross(c, u, w);
            CHECK(rcb_v3_dot(c, n) > 0.0);                      /* counter-clockwise from outside */
            CHECK_NEAR(rcb_v3_dot(n, x0), n[3], 1e-15);          /* on the face's plane */
            const int *e = p->edge + 4 * p->ledge[j];            /* the loop's edge */
            CHECK((e[0] == p->loop[j] && e[1] == p->loop[j1]) || (e[1] == p->loop[j] && e[0] == p->loop[j1]));
            CHECK(e[2] == f || e[3] == f);
        }
    }
    /* codes: the Voronoi regions of the other box pairs */
    for (int k = 0; k < 8; k++) {
        const double *x = p->v + 3 * k;
        CHECK(p->code[k] == rcc_box_feature(x[0] > 0 ? 1 : -1, x[1] > 0 ? 1 : -1, x[2] > 0 ? 1 : -1));
    }
    for (int e = 0; e < 12; e++) {
        const double *x0 = p->v + 3 * p->edge[4 * e], *x1 = p->v + 3 * p->edge[4 * e + 1];
        int s[3];
        for (int i = 0; i < 3; i++) s[i] = x0[i] != x1[i] ? 0 : x0[i] > 0 ? 1 : -1;
        CHECK(p->code[8 + e] == rcc_box_feature(s[0], s[1], s[2]));
    }
    for (int f = 0; f < 6; f++) {
        int s[3] = { 0, 0, 0 };
        s[f / 2] = f & 1 ? 1 : -1;
        CHECK(p->code[20 + f] == rcc_box_feature(s[0], s[1], s[2]));
    }
}

enum { NPAIRS = 2000 };

RC_TEST(random_pairs_against_brute_force)
{
    double worst_pen = 0.0, worst_surf = 0.0, worst_sep = 0.0, worst_frame = 0.0;
    int over = 0, sep = 0, exact_pen = 0, exact_sep = 0, edges = 0, faces = 0;
    for (int it = 0; it < NPAIRS; it++) {
        rcc_shape3 a, b;
        rcc_pose3 pa, pb;
        rcc_manifold3 m;
        random_pair(&a, &pa, &b, &pb, urand(-0.2, 0.3));
        CHECK(rcc_collide3(&a, &pa, &b, &pb, HUGE_VAL, &m));
        CHECK(m.n >= 1 && m.n <= RCC_MAX_POINTS);
        if (m.n < 1) continue;
        const double ref = sat_ref(&a, &pa, &b, &pb), g = min_gap(&m);
        if (m.n == 1 && code_dim(m.pt[0].feature & 0xff) == 1 && code_dim(m.pt[0].feature >> 8) == 1) edges++;
        else faces++;
        for (int j = 0; j < m.n; j++) {
            const rcc_point3 *o = &m.pt[j];
            double d[3];
            worst_surf = fmax(worst_surf, fmax(fabs(box_sd(&a, &pa, o->pa)), fabs(box_sd(&b, &pb, o->pb))));
            rcb_v3_sub(d, o->pb, o->pa);
            worst_frame = fmax(worst_frame, fabs(rcb_v3_dot(d, o->n) - o->g));
            worst_frame = fmax(worst_frame, fabs(rcb_v3_norm(o->n) - 1.0));
            for (int i = j + 1; i < m.n; i++) CHECK(m.pt[i].feature != o->feature);
        }
        if (ref < 0.0) {
            /* the penetration along the chosen normal: at least the least over the axes, at most 1/0.9 of it + bias */
            over++;
            double lo_a = HUGE_VAL, hi_a = -HUGE_VAL, lo_b = HUGE_VAL, hi_b = -HUGE_VAL, v[3];
            for (int k = 0; k < 8; k++) {
                vertex(v, &a, &pa, k);
                lo_a = fmin(lo_a, rcb_v3_dot(m.pt[0].n, v)); hi_a = fmax(hi_a, rcb_v3_dot(m.pt[0].n, v));
                vertex(v, &b, &pb, k);
                lo_b = fmin(lo_b, rcb_v3_dot(m.pt[0].n, v)); hi_b = fmax(hi_b, rcb_v3_dot(m.pt[0].n, v));
            }
            const double s_n = lo_b - hi_a;                   /* separation along n (A below B) */
            CHECK(s_n <= ref + 1e-12);
            CHECK(s_n >= ref / 0.9 - 1e-4 * 0.6 * sqrt(3.0) - 1e-12);
            CHECK(g >= s_n - 1e-12);                          /* no point deeper than the overlap along n */
            worst_pen = fmax(worst_pen, ref - s_n);
            if (ref - s_n <= 1e-12) exact_pen++;
        } else {
            /* separated: the gap is at most the distance (the SAT separation, a lower bound), exact for
             * face-vertex and edge-edge closest features */
            sep++;
            const double dref = dist_ref(&a, &pa, &b, &pb);
            CHECK(g <= dref + 1e-9);
            worst_sep = fmax(worst_sep, dref - g);
            if (fabs(dref - g) <= 1e-9) exact_sep++;
        }
        /* the margin: no point above it; a margin above the largest separation (which exceeds the
         * least gap by the bias to faces at most) keeps points */
        rcc_manifold3 mm;
        const double margin = fmax(g, ref) + 0.01;
        rcc_collide3(&a, &pa, &b, &pb, margin, &mm);
        CHECK(mm.n >= 1);
        for (int j = 0; j < mm.n; j++) CHECK(mm.pt[j].g <= margin + 1e-11);
        rcc_collide3(&a, &pa, &b, &pb, g - 1e-6, &mm);
        CHECK(mm.n == 0);
    }
    printf("  %d pairs (%d face, %d edge-edge manifolds): %d overlapping, penetration along n = the least over the\n"
           "  15 axes in %d (largest excess %.2e); %d separated, gap = distance in %d (largest shortfall %.2e);\n"
           "  points off their surfaces <= %.2e, |n.(pb - pa) - g| <= %.2e\n",
           NPAIRS, faces, edges, over, exact_pen, worst_pen, sep, exact_sep, worst_sep, worst_surf, worst_frame);
    CHECK(over > NPAIRS / 4 && sep > NPAIRS / 4 && edges > NPAIRS / 50);
    CHECK(exact_pen >= over * 4 / 5);   /* the rest: a face within the bias (10 % of the depth) of a better edge pair */
    CHECK(worst_surf <= 1e-11);
    CHECK(worst_frame <= 1e-12);
}

static rcc_pose3 pose_z(double x, double y, double z, double angle)   /* turned by angle about z */
{
    rcc_pose3 p = { { x, y, z }, { cos(0.5 * angle), 0, 0, sin(0.5 * angle) } };
    return p;
}

/* quadrilateral area of points in the plane z = const (the convex hull of 4 points) */
static double area4(const rcc_manifold3 *m)
{
    if (m->n < 3) return 0.0;
    double c[2] = { 0, 0 }, ang[4], A = 0.0;
    int idx[4];
    for (int i = 0; i < m->n; i++) { c[0] += m->pt[i].pb[0] / m->n; c[1] += m->pt[i].pb[1] / m->n; }
    for (int i = 0; i < m->n; i++) { ang[i] = atan2(m->pt[i].pb[1] - c[1], m->pt[i].pb[0] - c[0]); idx[i] = i; }
    for (int i = 0; i < m->n; i++)
        for (int j = i + 1; j < m->n; j++) if (ang[idx[j]] < ang[idx[i]]) { const int t = idx[i]; idx[i] = idx[j]; idx[j] = t; }
    for (int i = 0; i < m->n; i++) {
        const double *p = m->pt[idx[i]].pb, *q = m->pt[idx[(i + 1) % m->n]].pb;
        A += 0.5 * (p[0] * q[1] - p[1] * q[0]);
    }
    return A;
}

RC_TEST(resting_face_face_four_points_equal_gaps)
{
    const rcc_shape3 big = { .kind = RCC_G3_BOX, .half = { 0.5, 0.5, 0.1 } }, small = { .kind = RCC_G3_BOX, .half = { 0.2, 0.1, 0.05 } };
    /* (B on A, turned) small on big, big on small, equal boxes aligned, equal boxes shifted: 4 points at gap 0.01 */
    struct { const rcc_shape3 *a, *b; rcc_pose3 pb; int ref_vertices; } cases[] = {
        { &big, &small, pose_z(0.1, -0.05, 0.16, 0.3), 1 },
        { &small, &big, pose_z(0.05, 0.02, 0.16, 0.7), 0 },
        { &big, &big, pose_z(0.0, 0.0, 0.21, 0.0), 1 },
        { &big, &big, pose_z(0.2, 0.1, 0.21, 0.0), 0 },
    };
    const rcc_pose3 pa = pose_z(0, 0, 0, 0);
    for (int c = 0; c < 4; c++) {
        rcc_manifold3 m;
        rcc_collide3(cases[c].a, &pa, cases[c].b, &cases[c].pb, 0.02, &m);
        CHECK(m.n == 4);
        for (int j = 0; j < m.n; j++) {
            CHECK_NEAR(m.pt[j].g, 0.01, 1e-15);
            CHECK_NEAR(m.pt[j].n[2], 1.0, 1e-15);
            CHECK_NEAR(m.pt[j].pa[2], cases[c].a->half[2], 1e-15);
            for (int i = j + 1; i < m.n; i++) CHECK(m.pt[i].feature != m.pt[j].feature);
            if (cases[c].ref_vertices) CHECK(code_dim(m.pt[j].feature & 0xff) == 2 && code_dim(m.pt[j].feature >> 8) == 0);
        }
        rcc_collide3(cases[c].a, &pa, cases[c].b, &cases[c].pb, 0.0099, &m);   /* below the margin: none */
        CHECK(m.n == 0);
    }
    /* an equal box turned by 45 degrees: an octagon of 8 clipped points, 4 kept, the largest quadrilateral
     * (the square of alternate vertices: half the octagon's circumradius^2 x 4 = 2 R^2) */
    const rcc_shape3 cube = { .kind = RCC_G3_BOX, .half = { 0.5, 0.5, 0.5 } };
    const rcc_pose3 pb = pose_z(0, 0, 1.0 + 1e-3, 0.25 * 3.14159265358979323846);
    rcc_manifold3 m;
    rcc_collide3(&cube, &pa, &cube, &pb, 0.01, &m);
    CHECK(m.n == 4);
    for (int j = 0; j < m.n; j++) CHECK_NEAR(m.pt[j].g, 1e-3, 1e-15);
    const double R = 0.5 / cos(3.14159265358979323846 / 8);   /* the regular octagon's circumradius */
    printf("  octagon: 4 points kept of 8, area %.6f (2 R^2 = %.6f, octagon %.6f)\n", area4(&m), 2 * R * R, 2 * sqrt(2.0) * R * R);
    CHECK_NEAR(area4(&m), 2 * R * R, 1e-11);
}

RC_TEST(edge_edge_crossing_analytic_gap)
{
    /* a cube on an edge along x (turned 45 deg about x), under a cube on an edge along y (45 deg about y):
     * the top edge at z = h sqrt2, the bottom one at zb - h sqrt2, gap = zb - 2 h sqrt2 */
    const double h = 0.5, s = sin(3.14159265358979323846 / 8), c = cos(3.14159265358979323846 / 8);
    const rcc_shape3 cube = { .kind = RCC_G3_BOX, .half = { h, h, h } };
    for (int k = 0; k < 2; k++) {
        const double gap = k ? -0.01 : 0.02;
        const rcc_pose3 pa = { { 0.03, 0.0, 0.0 }, { c, s, 0, 0 } };
        const rcc_pose3 pb = { { 0.0, -0.02, 2 * h * sqrt(2.0) + gap }, { c, 0, s, 0 } };
        rcc_manifold3 m;
        rcc_collide3(&cube, &pa, &cube, &pb, 0.05, &m);
        CHECK(m.n == 1);
        if (m.n != 1) continue;
        const rcc_point3 *o = &m.pt[0];
        CHECK_NEAR(o->g, gap, 1e-14);
        CHECK_NEAR(o->n[2], 1.0, 1e-14);
        CHECK_NEAR(o->pa[0], 0.0, 1e-14);
        CHECK_NEAR(o->pa[1], 0.0, 1e-14);
        CHECK_NEAR(o->pb[0], 0.0, 1e-14);
        CHECK_NEAR(o->pb[1], 0.0, 1e-14);
        CHECK(code_dim(o->feature & 0xff) == 1 && code_dim(o->feature >> 8) == 1);
    }
}

RC_TEST(features_persist_under_small_motions)
{
    int points = 0, changed = 0, resting = 0;
    for (int it = 0; it < NPAIRS; it++) {
        rcc_shape3 a, b;
        rcc_pose3 pa, pb;
        rcc_manifold3 m, m1;
        double v[6];
        random_pair(&a, &pa, &b, &pb, urand(-0.1, 0.05));
        for (int i = 0; i < 6; i++) v[i] = urand(-1, 1);
        rcc_collide3(&a, &pa, &b, &pb, HUGE_VAL, &m);
        const rcc_pose3 pb1 = advance(&pb, v, 1e-7);
        rcc_collide3(&a, &pa, &b, &pb1, HUGE_VAL, &m1);
        for (int j = 0; j < m.n; j++) {
            points++;
            if (!find_feature(&m1, m.pt[j].feature)) changed++;
        }
    }
    /* resting: a box on a box, moved by 1e-7 in any way, keeps its four features */
    const rcc_shape3 big = { .kind = RCC_G3_BOX, .half = { 0.5, 0.5, 0.1 } }, small = { .kind = RCC_G3_BOX, .half = { 0.2, 0.1, 0.05 } };
    const rcc_pose3 pa = pose_z(0, 0, 0, 0);
    for (int it = 0; it < 200; it++) {
        rcc_pose3 pb = pose_z(urand(-0.2, 0.2), urand(-0.2, 0.2), 0.15, urand(-3, 3));
        double v[6];
        for (int i = 0; i < 6; i++) v[i] = urand(-1, 1);
        rcc_manifold3 m, m1;
        rcc_collide3(&big, &pa, &small, &pb, 1e-3, &m);
        const rcc_pose3 pb1 = advance(&pb, v, 1e-7);
        rcc_collide3(&big, &pa, &small, &pb1, 1e-3, &m1);
        CHECK(m.n == 4 && m1.n == 4);
        for (int j = 0; j < m.n; j++) resting += find_feature(&m1, m.pt[j].feature) != NULL;
    }
    printf("  %d points, %d changed feature under a 1e-7 motion; resting: %d of 800 kept\n", points, changed, resting);
    CHECK(changed <= points / 200 + 1);
    CHECK(resting == 800);
}

/* is n the sign x outward normal of the box face of code c? (a face-vertex point, not a corner of the
 * other body's reference face projected on this face) */
static int along_face(const double *n, int c, const rcc_pose3 *p, double sign)
{
    const int t[3] = { c % 3 - 1, c / 3 % 3 - 1, c / 9 - 1 };
    for (int i = 0; i < 3; i++) {
        if (!t[i]) continue;
        double u[3];
        axis_of(u, p, i);
        return fabs(rcb_v3_dot(u, n) - sign * t[i]) < 1e-12;
    }
    return 0;
}

static double dot6(const double *a, const double *b)
{
    double s = 0;
    for (int i = 0; i < 6; i++) s += a[i] * b[i];
    return s;
}

/* Flush equal faces, as in a wall of blocks stacked in columns: a block on a
 * block, side by side, and diagonal neighbours touching along an edge. Moved
 * by up to 1e-7 in any way (the resting motion at a solver's tolerance), each
 * pair keeps its contact points' features (hence ids and warm starts) and its
 * normal: before the clipping tolerance, the coincident corners became
 * clipped points of other features and the wall crept (rockfall_spec). */
RC_TEST(flush_blocks_keep_features_under_small_motions)
{
    const rcc_shape3 blk = { .kind = RCC_G3_BOX, .half = { 1.0, 0.5, 0.5 } };
    const rcc_pose3 pa = pose_z(0, 0, 0, 0);
    const double offsets[3][3] = { { 0, 0, 1 }, { 0, 1, 0 }, { 0, 1, 1 } };   /* on top, beside, diagonal */
    int kept = 0, points = 0;
    for (int c = 0; c < 3; c++) {
        const rcc_pose3 pb = pose_z(offsets[c][0], offsets[c][1], offsets[c][2], 0);
        for (int it = 0; it < 200; it++) {
            double va[6], vb[6];
            for (int i = 0; i < 6; i++) { va[i] = urand(-1, 1); vb[i] = urand(-1, 1); }
            const rcc_pose3 pa0 = advance(&pa, va, urand(0, 1e-7)), pb0 = advance(&pb, vb, urand(0, 1e-7));
            const rcc_pose3 pa1 = advance(&pa0, va, urand(0, 1e-7)), pb1 = advance(&pb0, vb, -urand(0, 1e-7));
            rcc_manifold3 m, m1;
            rcc_collide3(&blk, &pa0, &blk, &pb0, 1e-3, &m);
            rcc_collide3(&blk, &pa1, &blk, &pb1, 1e-3, &m1);
            CHECK(m.n == (c < 2 ? 4 : 2) && m1.n == m.n);
            for (int j = 0; j < m.n; j++) {
                const rcc_point3 *o = find_feature(&m1, m.pt[j].feature);
                points++;
                if (o && rcb_v3_dot(o->n, m.pt[j].n) > 1.0 - 1e-9) kept++;
            }
        }
    }
    printf("  flush blocks (on top, beside, diagonal): %d of %d points keep feature and normal\n", kept, points);
    CHECK(points == 200 * 10 && kept == points);
}

RC_TEST(jacobian_rows_match_finite_differences)
{
    /* face-vertex and edge-edge points (material points of both bodies' features); clipped points
     * (edge x side, corner x face) slide along their features and are not checked */
    const double eps = 1e-6;
    double worst_rel = 0.0;
    int checked = 0, unmatched = 0, clipped = 0;
    for (int it = 0; it < NPAIRS; it++) {
        rcc_shape3 a, b;
        rcc_pose3 pa, pb;
        rcc_manifold3 m, mp, mm;
        double va[6], vb[6];
        random_pair(&a, &pa, &b, &pb, urand(-0.1, 0.1));
        for (int i = 0; i < 6; i++) { va[i] = urand(-1, 1); vb[i] = urand(-1, 1); }
        rcc_collide3(&a, &pa, &b, &pb, HUGE_VAL, &m);
        const rcc_pose3 pa1 = advance(&pa, va, eps), pb1 = advance(&pb, vb, eps);
        const rcc_pose3 pa0 = advance(&pa, va, -eps), pb0 = advance(&pb, vb, -eps);
        rcc_collide3(&a, &pa1, &b, &pb1, HUGE_VAL, &mp);
        rcc_collide3(&a, &pa0, &b, &pb0, HUGE_VAL, &mm);
        for (int j = 0; j < m.n; j++) {
            const rcc_point3 *o = &m.pt[j], *op = find_feature(&mp, o->feature), *om = find_feature(&mm, o->feature);
            const int da = code_dim(o->feature & 0xff), db = code_dim(o->feature >> 8);
            const int vf = (da == 2 && db == 0 && along_face(o->n, o->feature & 0xff, &pa, 1.0))
                           || (da == 0 && db == 2 && along_face(o->n, o->feature >> 8, &pb, -1.0));
            if (!(vf || (da == 1 && db == 1 && m.n == 1))) { clipped++; continue; }
            if (!op || !om) { unmatched++; continue; }
            double ra[3], rb[3], ja[6], jb[6];
            rcb_v3_sub(ra, o->pa, pa.p);
            rcb_v3_sub(rb, o->pb, pb.p);
            rcc_jacobian3d(pa.q, ra, o->n, ja);
            rcc_jacobian3d(pb.q, rb, o->n, jb);
            const double rate = dot6(jb, vb) - dot6(ja, va), fd = (op->g - om->g) / (2 * eps);
            worst_rel = fmax(worst_rel, fabs(fd - rate) / fmax(1.0, fabs(rate)));
            checked++;
        }
    }
    printf("  %d points: |dg/dt (FD, eps = %g) - (J_B v_B - J_A v_A)| / max(1, |rate|) <= %.2e (%d unmatched, %d clipped"
           " points not checked)\n", checked, eps, worst_rel, unmatched, clipped);
    CHECK(checked >= NPAIRS);
    CHECK(unmatched <= checked / 100);
    CHECK(worst_rel <= 1e-7);
}

RC_TEST_MAIN(T(box_polyhedron_topology), T(random_pairs_against_brute_force), T(resting_face_face_four_points_equal_gaps),
             T(edge_edge_crossing_analytic_gap), T(features_persist_under_small_motions),
             T(flush_blocks_keep_features_under_small_motions), T(jacobian_rows_match_finite_differences))
