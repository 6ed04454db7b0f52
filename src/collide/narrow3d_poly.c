/* narrow3d_poly.c -- the convex polyhedron pairs of the spatial narrow phase
 * (collide/geom3d.h; docs/theory/polyhedra.md, "Polyhedron shapes"):
 * plane-polyhedron (the vertices within the margin, at most four kept by
 * area), sphere-polyhedron and capsule-polyhedron (the closest point of the
 * polyhedron to a point), box-polyhedron and polyhedron-polyhedron (the SAT
 * and clipping routine of poly3.c). Features of a polyhedron: vertex k is
 * k, edge e is nv + e, face f is nv + ne + f (rcc_poly3 with code NULL). */
#include "collide/narrow3d_impl.h"

/* The signed distance of the body-frame point x to the polyhedron P
 * (negative inside), its closest point k, the outward unit normal e there
 * (from k towards x; inside: the normal of the face of least depth) and
 * the feature of k. Outside, the closest point lies inside a face whose
 * plane x is above (its projection inside the face's loop) or on an edge
 * (the closest of all edges' closest points, vertices at their ends). */
static double poly_closest(const rcc_poly3 *P, const double x[3], double k[3], double e[3], int *feat)
{
    int inside = 1, fm = 0;
    double dm = -HUGE_VAL;
    for (int f = 0; f < P->nf; f++) {
        const double *pl = P->plane + 4 * f, d = rcb_v3_dot(pl, x) - pl[3];
        if (d > 0.0) inside = 0;
        if (d > dm) { dm = d; fm = f; }
    }
    if (inside) {
        rcb_v3_axpy(k, x, -dm, P->plane + 4 * fm);
        rcb_v3_copy(e, P->plane + 4 * fm);
        *feat = P->nv + P->ne + fm;
        return dm;
    }
    double best = HUGE_VAL;
    for (int f = 0; f < P->nf; f++) {
        const double *pl = P->plane + 4 * f, d = rcb_v3_dot(pl, x) - pl[3];
        if (!(d > 0.0) || !(d < best)) continue;
        double y[3];
        rcb_v3_axpy(y, x, -d, pl);
        int in = 1;
        for (int j = P->fstart[f]; in && j < P->fstart[f + 1]; j++) {
            const int j1 = j + 1 < P->fstart[f + 1] ? j + 1 : P->fstart[f];
            const double *a = P->v + 3 * P->loop[j], *b = P->v + 3 * P->loop[j1];
            double ab[3], ay[3], c[3];
            rcb_v3_sub(ab, b, a);
            rcb_v3_sub(ay, y, a);
            rcb_v3_cross(c, ab, ay);
            if (rcb_v3_dot(c, pl) < 0.0) in = 0;
        }
        if (in) { best = d; rcb_v3_copy(k, y); rcb_v3_copy(e, pl); *feat = P->nv + P->ne + f; }
    }
    for (int i = 0; i < P->ne; i++) {
        const int *E = P->edge + 4 * i;
        const double *a = P->v + 3 * E[0], *b = P->v + 3 * E[1];
        double ab[3], ax[3], y[3], dy[3];
        rcb_v3_sub(ab, b, a);
        rcb_v3_sub(ax, x, a);
        const double t = clampd(rcb_v3_dot(ax, ab) / rcb_v3_dot(ab, ab), 0.0, 1.0);
        rcb_v3_axpy(y, a, t, ab);
        rcb_v3_sub(dy, x, y);
        const double L = rcb_v3_norm(dy);
        if (L < best) {
            best = L;
            rcb_v3_copy(k, y);
            rcb_v3_scale(e, 1.0 / L, dy);   /* L > 0: x is outside */
            *feat = t <= 0.0 ? E[0] : t >= 1.0 ? E[1] : P->nv + i;
        }
    }
    return best;
}

/* The ball at x (world) of radius r against polyhedron B (pose pb): the
 * point if its gap is <= margin. Returns the gap. */
static double ball_poly(rcc_manifold3 *m, const double x[3], double r, const rcc_poly3 *P, const rcc_pose3 *pb,
                        double margin, int fa)
{
    double dx[3], c[3], k[3], e[3], n[3], w[3], pA[3], pB[3];
    int f;
    rcb_v3_sub(dx, x, pb->p);
    rcb_quat_rotate_inv(c, pb->q, dx);
    const double g = poly_closest(P, c, k, e, &f) - r;
    if (!(g <= margin)) return g;
    rcb_quat_rotate(n, pb->q, e);
    rcb_v3_scale(n, -1.0, n);                        /* from A to the polyhedron */
    rcb_quat_rotate(w, pb->q, k);
    rcb_v3_add(pB, pb->p, w);
    rcb_v3_axpy(pA, x, r, n);
    rcc_g3_set_point(&m->pt[m->n++], pA, pB, n, g, fa, f);
    return g;
}

void rcc_g3_sphere_poly(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                        double margin, rcc_manifold3 *m)
{
    ball_poly(m, pa->p, a->radius, b->poly, pb, margin, 0);
}

/* the signed distance to P of the capsule axis point c + s u (body frame of P) */
static double axis_sd(const rcc_poly3 *P, const double c[3], const double u[3], double s)
{
    double x[3], k[3], e[3];
    int f;
    rcb_v3_axpy(x, c, s, u);
    return poly_closest(P, x, k, e, &f);
}

/* Capsule A against polyhedron B: a point per end (the end spheres) and,
 * when the axis comes nearer the polyhedron between its ends (the minimum
 * of the convex signed distance along the axis, by golden-section search,
 * below both ends' by more than round-off), the ball at that axis point:
 * at most three points, the ends for a capsule lying on a face. */
void rcc_g3_capsule_poly(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                         double margin, rcc_manifold3 *m)
{
    const rcc_poly3 *P = b->poly;
    double uw[3], x[3];
    rcb_quat_rotate(uw, pa->q, EZ);
    const double h = a->half_len;
    if (!(h > 0.0)) { ball_poly(m, pa->p, a->radius, P, pb, margin, RCC_F_END0); return; }
    for (int k = 0; k < 2; k++) {
        rcb_v3_axpy(x, pa->p, k ? h : -h, uw);
        ball_poly(m, x, a->radius, P, pb, margin, k ? RCC_F_END1 : RCC_F_END0);
    }
    double dx[3], c[3], u[3];
    rcb_v3_sub(dx, pa->p, pb->p);
    rcb_quat_rotate_inv(c, pb->q, dx);
    rcb_quat_rotate_inv(u, pb->q, uw);
    const double ig = 0.6180339887498949;
    double lo = -h, hi = h, x1 = hi - ig * (hi - lo), x2 = lo + ig * (hi - lo);
    double f1 = axis_sd(P, c, u, x1), f2 = axis_sd(P, c, u, x2);
    for (int it = 0; it < 200 && hi - lo > 1e-15 * h; it++) {
        if (f1 <= f2) { hi = x2; x2 = x1; f2 = f1; x1 = hi - ig * (hi - lo); f1 = axis_sd(P, c, u, x1); }
        else { lo = x1; x1 = x2; f1 = f2; x2 = lo + ig * (hi - lo); f2 = axis_sd(P, c, u, x2); }
    }
    const double s = 0.5 * (lo + hi), f = axis_sd(P, c, u, s);
    const double tol = 1e-9 * (h + a->radius + rcb_v3_norm(dx));
    if (f < fmin(axis_sd(P, c, u, -h), axis_sd(P, c, u, h)) - tol) {
        rcb_v3_axpy(x, pa->p, s, uw);
        ball_poly(m, x, a->radius, P, pb, margin, RCC_F_SIDE);
    }
}

/* ---------------------------------------------------------------- plane */

/* the signed area (times 2) of (p, q, x) seen along n */
static double area_n(const double p[3], const double q[3], const double x[3], const double n[3])
{
    double a[3], b[3], c[3];
    rcb_v3_sub(a, q, p);
    rcb_v3_sub(b, x, p);
    rcb_v3_cross(c, a, b);
    return rcb_v3_dot(c, n);
}

/* Four of the nc > 4 candidate points (indices idx, sorted by depth) kept
 * by area: the deepest, the farthest from it, the one of largest triangle
 * with them, the one farthest outside that triangle (in the plane of
 * normal n). */
static void keep_four(double (*v)[3], int *idx, int nc, const double n[3])
{
    int pick[4] = { idx[0], -1, -1, -1 };
    double best = -1.0;
    for (int j = 1; j < nc; j++) {
        double d[3];
        rcb_v3_sub(d, v[idx[j]], v[pick[0]]);
        const double L = rcb_v3_dot(d, d) - rcb_v3_dot(d, n) * rcb_v3_dot(d, n);
        if (L > best) { best = L; pick[1] = idx[j]; }
    }
    best = -1.0;
    for (int j = 1; j < nc; j++) {
        if (idx[j] == pick[1]) continue;
        const double A = fabs(area_n(v[pick[0]], v[pick[1]], v[idx[j]], n));
        if (A > best) { best = A; pick[2] = idx[j]; }
    }
    if (area_n(v[pick[0]], v[pick[1]], v[pick[2]], n) < 0.0) { const int t = pick[1]; pick[1] = pick[2]; pick[2] = t; }
    best = -HUGE_VAL;
    for (int j = 1; j < nc; j++) {
        const int k = idx[j];
        if (k == pick[1] || k == pick[2]) continue;
        double out = -HUGE_VAL;
        for (int i = 0; i < 3; i++) out = fmax(out, -area_n(v[pick[i]], v[pick[(i + 1) % 3]], v[k], n));
        if (out > best) { best = out; pick[3] = k; }
    }
    for (int i = 0; i < 4; i++) idx[i] = pick[i];
}

void rcc_g3_plane_poly(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                       double margin, rcc_manifold3 *m)
{
    const rcc_poly3 *P = b->poly;
    double n[3], v[RCC_POLY3_MAX_V][3], d[RCC_POLY3_MAX_V], dx[3], R = 0.0;
    int idx[RCC_POLY3_MAX_V], nc = 0;
    rcb_quat_rotate(n, pa->q, a->normal);
    for (int k = 0; k < P->nv; k++) R = fmax(R, rcb_v3_norm(P->v + 3 * k));
    rcb_v3_sub(dx, pb->p, pa->p);
    const double slop = SLOP * (rcb_v3_norm(dx) + R);
    for (int k = 0; k < P->nv; k++) {
        double w[3];
        rcb_quat_rotate(w, pb->q, P->v + 3 * k);
        rcb_v3_add(v[k], pb->p, w);
        rcb_v3_sub(dx, v[k], pa->p);
        d[k] = rcb_v3_dot(n, dx);
        if (!(d[k] <= margin + slop)) continue;
        int j = nc++;   /* insertion by depth, ties by vertex index */
        while (j > 0 && d[idx[j - 1]] > d[k]) { idx[j] = idx[j - 1]; j--; }
        idx[j] = k;
    }
    if (nc > RCC_MAX_POINTS) { keep_four(v, idx, nc, n); nc = RCC_MAX_POINTS; }
    for (int j = 0; j < nc; j++) {
        double pA[3], pB[3];
        const int k = idx[j];
        rcb_v3_axpy(pA, v[k], -d[k], n);
        rcb_v3_copy(pB, v[k]);
        rcc_g3_set_point(&m->pt[m->n++], pA, pB, n, d[k], 0, k);
    }
}

/* ---------------------------------------------------------------- polyhedra */

void rcc_g3_box_poly(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                     double margin, rcc_manifold3 *m)
{
    rcc_box_poly3 A;
    rcc_poly3_box(a->half, &A);
    rcc_collide_poly3(&A.p, pa, b->poly, pb, margin, m);
}

void rcc_g3_poly_poly(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                      double margin, rcc_manifold3 *m)
{
    rcc_collide_poly3(a->poly, pa, b->poly, pb, margin, m);
}

/* the world AABB of a posed polyhedron: its rotated vertices' box */
void rcc_g3_poly_aabb(const rcc_poly3 *P, const rcc_pose3 *pose, double lo[3], double hi[3])
{
    rcb_v3_set(lo, HUGE_VAL, HUGE_VAL, HUGE_VAL);
    rcb_v3_set(hi, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL);
    for (int k = 0; k < P->nv; k++) {
        double w[3];
        rcb_quat_rotate(w, pose->q, P->v + 3 * k);
        for (int i = 0; i < 3; i++) {
            lo[i] = fmin(lo[i], pose->p[i] + w[i]);
            hi[i] = fmax(hi[i], pose->p[i] + w[i]);
        }
    }
}
