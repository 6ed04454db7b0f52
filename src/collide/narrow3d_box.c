/* narrow3d_box.c -- the box pairs of the spatial narrow phase
 * (collide/geom3d.h): sphere-box and capsule-box (box-plane is with the
 * plane pairs in narrow3d.c). docs/theory/spatial.md, "Contact geometry". */
#include "collide/narrow3d_impl.h"

/* The signed distance of the box-frame point c to the box of half-extents
 * hx (negative inside), its closest box point k, the box's outward unit
 * normal e there (box frame) and the sides s of its Voronoi region. Outside:
 * k = clamp(c); inside: the face of least depth (ties: lowest axis), so that
 * a point at the centre leaves through the face of least half-extent. */
static double box_closest(const double hx[3], const double c[3], double k[3], double e[3], int s[3])
{
    int outside = 0;
    for (int i = 0; i < 3; i++) {
        s[i] = c[i] < -hx[i] ? -1 : c[i] > hx[i] ? 1 : 0;
        k[i] = s[i] ? s[i] * hx[i] : c[i];
        outside |= s[i] != 0;
    }
    if (outside) {
        double L = 0.0;
        for (int i = 0; i < 3; i++) { e[i] = c[i] - k[i]; L += e[i] * e[i]; }
        L = sqrt(L);
        for (int i = 0; i < 3; i++) e[i] /= L;       /* L > 0: c differs from k on an axis */
        return L;
    }
    int j = 0;
    for (int i = 1; i < 3; i++)
        if (hx[i] - fabs(c[i]) < hx[j] - fabs(c[j])) j = i;
    s[j] = c[j] >= 0.0 ? 1 : -1;
    k[j] = s[j] * hx[j];
    rcb_v3_set(e, 0.0, 0.0, 0.0);
    e[j] = s[j];
    return -(hx[j] - fabs(c[j]));
}

/* A point of a round shape against box B from box-frame data: the ball at
 * x (world) of radius r, the box point k and outward normal e (box frame). */
static void ball_box_point(rcc_manifold3 *m, const double x[3], double r, const rcc_pose3 *pb, const double k[3],
                           const double e[3], double g, int fa, int fb)
{
    double n[3], w[3], pA[3], pB[3];
    rcb_quat_rotate(n, pb->q, e);
    rcb_v3_scale(n, -1.0, n);                        /* from A to the box */
    rcb_quat_rotate(w, pb->q, k);
    rcb_v3_add(pB, pb->p, w);
    rcb_v3_axpy(pA, x, r, n);
    rcc_g3_set_point(&m->pt[m->n++], pA, pB, n, g, fa, fb);
}

/* Sphere A against box B: the closest point of the box to the centre (its
 * Voronoi region the feature); a centre inside pushes out through the
 * nearest face. */
void rcc_g3_sphere_box(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                       double margin, rcc_manifold3 *m)
{
    double dx[3], c[3], k[3], e[3];
    int s[3];
    rcb_v3_sub(dx, pa->p, pb->p);
    rcb_quat_rotate_inv(c, pb->q, dx);              /* the centre in the box frame */
    const double g = box_closest(b->half, c, k, e, s) - a->radius;
    if (!(g <= margin)) return;
    ball_box_point(m, pa->p, a->radius, pb, k, e, g, 0, rcc_box_feature(s[0], s[1], s[2]));
}

/* ---------------------------------------------------------------- capsule-box */

/* Capsule A against box B, in the box frame (c, u: the capsule's centre and
 * axis there). The gap is the least signed distance from the box of the
 * axis points, less the radius: f(s) = sd(c + s u) is convex (the signed
 * distance to a convex set is), minimised by golden-section search, then
 * exactly within the box feature found (vertex or edge), the ends preferred
 * on ties. An axis parallel to a face (|u_K| < 1e-5) above it gives two
 * points, the ends of the axis clipped to the face's rectangle
 * (Liang-Barsky), with the face's normal. An axis entering the box (a
 * penetration deeper than the radius) gives the axis point of least signed
 * distance, pushed out by the radius along the face normal: a point of the
 * capsule's solid, not of its boundary, and a gap that is a minimax there
 * (no gradient at the kink). */
static double axis_sd(const rcc_shape3 *b, const double c[3], const double u[3], double s)
{
    double x[3], k[3], e[3];
    int sd[3];
    rcb_v3_axpy(x, c, s, u);
    return box_closest(b->half, x, k, e, sd);
}

/* The exact minimiser within the box feature of x(s) (a vertex: the axis
 * point nearest it; an edge: the closest points of the axis and the edge's
 * line); a face keeps s (the distance is linear there: an end, or flat). */
static double refine_s(const rcc_shape3 *b, const double c[3], const double u[3], double s, double h)
{
    double x[3], k[3], e[3], w[3], pu[3], pw[3];
    int sd[3], free_axis = -1, nfree = 0;
    rcb_v3_axpy(x, c, s, u);
    if (box_closest(b->half, x, k, e, sd) < 0.0) return s;
    for (int i = 0; i < 3; i++) if (!sd[i]) { free_axis = i; nfree++; }
    if (nfree > 1) return s;
    rcb_v3_sub(w, c, k);                              /* from a point of the feature */
    rcb_v3_copy(pu, u);
    rcb_v3_copy(pw, w);
    if (nfree == 1) { pu[free_axis] = 0.0; pw[free_axis] = 0.0; }   /* across the edge */
    const double uu = rcb_v3_dot(pu, pu);
    return uu > 1e-300 ? clampd(-rcb_v3_dot(pu, pw) / uu, -h, h) : s;
}

static double axis_min(const rcc_shape3 *b, const double c[3], const double u[3], double h)
{
    const double ig = 0.6180339887498949;
    double lo = -h, hi = h, x1 = hi - ig * (hi - lo), x2 = lo + ig * (hi - lo);
    double f1 = axis_sd(b, c, u, x1), f2 = axis_sd(b, c, u, x2);
    for (int it = 0; it < 200 && hi - lo > 1e-16 * (1.0 + h); it++) {
        if (f1 <= f2) { hi = x2; x2 = x1; f2 = f1; x1 = hi - ig * (hi - lo); f1 = axis_sd(b, c, u, x1); }
        else { lo = x1; x1 = x2; f1 = f2; x2 = lo + ig * (hi - lo); f2 = axis_sd(b, c, u, x2); }
    }
    double s = refine_s(b, c, u, 0.5 * (lo + hi), h), f = axis_sd(b, c, u, s);
    /* the ends on ties to round-off (the distance is linear along a face) */
    const double fl = axis_sd(b, c, u, -h), fh = axis_sd(b, c, u, h), tol = 1e-14 * (1.0 + fabs(f));
    if (fh <= f + tol) { s = h; f = fh; }
    if (fl <= f + tol) s = -h;
    return s;
}

/* The two points of an axis parallel to face (K, sigma) above it, if the
 * clipped axis is longer than the slop; returns how many (0 or 2). */
static int capsule_face_points(rcc_manifold3 *two, const rcc_shape3 *a, const rcc_shape3 *b, const rcc_pose3 *pb,
                               const double c[3], const double u[3], int K, int sigma)
{
    double lo = -a->half_len, hi = a->half_len;
    double side_lo[3] = { 0, 0, 0 }, side_hi[3] = { 0, 0, 0 };
    for (int j = 0; j < 3; j++) {
        if (j == K) continue;
        if (fabs(u[j]) < 1e-300) { if (fabs(c[j]) > b->half[j]) return 0; continue; }
        const int up = u[j] > 0.0 ? 1 : -1;          /* the side reached as s grows */
        const double s_in = (-up * b->half[j] - c[j]) / u[j], s_out = (up * b->half[j] - c[j]) / u[j];
        if (s_in > lo) { lo = s_in; rcb_v3_set(side_lo, 0, 0, 0); side_lo[j] = -up; }
        if (s_out < hi) { hi = s_out; rcb_v3_set(side_hi, 0, 0, 0); side_hi[j] = up; }
    }
    if (!(hi - lo > SLOP * (a->half_len + b->half[0] + b->half[1] + b->half[2]))) return 0;
    for (int i = 0; i < 2; i++) {
        const double s = i ? hi : lo;
        double x[3], xw[3], k[3], e[3] = { 0, 0, 0 };
        int sd[3];
        rcb_v3_axpy(x, c, s, u);
        rcb_v3_copy(k, x);
        k[K] = sigma * b->half[K];
        e[K] = sigma;
        for (int j = 0; j < 3; j++) sd[j] = j == K ? sigma : (int)(i ? side_hi[j] : side_lo[j]);
        rcb_quat_rotate(xw, pb->q, x);
        rcb_v3_add(xw, pb->p, xw);
        ball_box_point(two, xw, a->radius, pb, k, e, sigma * x[K] - b->half[K] - a->radius,
                       capsule_feature(s, a->half_len), rcc_box_feature(sd[0], sd[1], sd[2]));
    }
    return 2;
}

void rcc_g3_capsule_box(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                        double margin, rcc_manifold3 *m)
{
    double dx[3], uw[3], c[3], u[3], x[3], xw[3], k[3], e[3];
    int sd[3];
    rcb_v3_sub(dx, pa->p, pb->p);
    rcb_quat_rotate_inv(c, pb->q, dx);
    rcb_quat_rotate(uw, pa->q, EZ);
    rcb_quat_rotate_inv(u, pb->q, uw);
    const double s = a->half_len > 0.0 ? axis_min(b, c, u, a->half_len) : 0.0;
    rcb_v3_axpy(x, c, s, u);
    const double dist = box_closest(b->half, x, k, e, sd), g = dist - a->radius;
    rcc_manifold3 one = { 0 };
    rcb_v3_axpy(xw, pa->p, s, uw);
    ball_box_point(&one, xw, a->radius, pb, k, e, g, capsule_feature(s, a->half_len), rcc_box_feature(sd[0], sd[1], sd[2]));
    const int K = fabs(e[0]) == 1.0 ? 0 : fabs(e[1]) == 1.0 ? 1 : fabs(e[2]) == 1.0 ? 2 : -1;   /* a face's normal */
    rcc_manifold3 two = { 0 };
    if (dist >= 0.0 && K >= 0 && fabs(u[K]) < sqrt(PARALLEL_SIN2) && a->half_len > 0.0
        && capsule_face_points(&two, a, b, pb, c, u, K, e[K] > 0.0 ? 1 : -1)) {
        if (g < fmin(two.pt[0].g, two.pt[1].g) - SLOP * (a->half_len + a->radius + rcb_v3_norm(b->half)))
        {
            double d0[3], d1[3];   /* the nearer point takes the closest points */
            rcb_v3_sub(d0, two.pt[0].pa, one.pt[0].pa);
            rcb_v3_sub(d1, two.pt[1].pa, one.pt[0].pa);
            two.pt[rcb_v3_norm(d0) <= rcb_v3_norm(d1) ? 0 : 1] = one.pt[0];
        }
        const double slop = SLOP * (rcb_v3_norm(dx) + a->half_len + a->radius + rcb_v3_norm(b->half));
        for (int i = 0; i < 2; i++)
            if (two.pt[i].g <= margin + slop) m->pt[m->n++] = two.pt[i];
        return;
    }
    if (g <= margin) m->pt[m->n++] = one.pt[0];
}
