/* narrow3d.c -- the spatial narrow phase (collide/geom3d.h): one pair of
 * shapes into a manifold of at most four points; the tangent frame, the
 * Jacobian row of a spatial body, world AABBs. Formulas and their sources:
 * docs/theory/spatial.md, "Contact geometry". */
#include "collide/narrow3d_impl.h"

/* ---------------------------------------------------------------- frames */

void rcc_tangent_frame(const double n[3], double t1[3], double t2[3])
{
    /* Frisvad (2012): t1 = (1 - nx^2 a, -nx ny a, -nx), t2 = (-nx ny a,
     * 1 - ny^2 a, -ny) with a = 1 / (1 + nz); for nz < 0 the same a written
     * as (1 - nz) / (nx^2 + ny^2) (equal for a unit n), which keeps the frame
     * orthonormal to round-off up to the singular point n = -e_z. */
    const double s = n[0] * n[0] + n[1] * n[1];
    if (n[2] < 0.0 && s < 1e-300) {
        rcb_v3_set(t1, 0.0, -1.0, 0.0);
        rcb_v3_set(t2, -1.0, 0.0, 0.0);
        return;
    }
    const double a = n[2] >= 0.0 ? 1.0 / (1.0 + n[2]) : (1.0 - n[2]) / s;
    const double b = -n[0] * n[1] * a;
    rcb_v3_set(t1, 1.0 - n[0] * n[0] * a, b, -n[0]);
    rcb_v3_set(t2, b, 1.0 - n[1] * n[1] * a, -n[1]);
}

void rcc_tangent_frame_follow(const double n[3], const double t1_prev[3], double t1[3], double t2[3])
{
    double u[3];
    rcb_v3_axpy(u, t1_prev, -rcb_v3_dot(t1_prev, n), n);
    const double L = rcb_v3_norm(u);
    if (!(L > 1e-6)) { rcc_tangent_frame(n, t1, t2); return; }
    rcb_v3_scale(t1, 1.0 / L, u);
    rcb_v3_cross(t2, n, t1);
}

/* A unit vector normal to the unit u (the fallback normal when a point lies
 * on a capsule's axis). */
void rcc_g3_normal_to(double r[3], const double u[3])
{
    double t2[3];
    rcc_tangent_frame(u, r, t2);
}

/* ---------------------------------------------------------------- Jacobian */

void rcc_jacobian3d(const double q[4], const double r_world[3], const double d[3], double row[6])
{
    /* d.(v + R (Omega x R^T r)) = d.v + (R^T d).(Omega x R^T r)
     *                           = d.v + Omega.(R^T r x R^T d) = d.v + Omega.R^T (r x d) */
    double w[3];
    rcb_v3_cross(w, r_world, d);
    row[0] = d[0]; row[1] = d[1]; row[2] = d[2];
    rcb_quat_rotate_inv(row + 3, q, w);
}

/* ---------------------------------------------------------------- AABB */

void rcc_shape3_aabb(const rcc_shape3 *s, const rcc_pose3 *pose, double lo[3], double hi[3])
{
    double e[3] = { 0, 0, 0 }, R[9];
    rcb_quat_matrix(pose->q, R);
    switch (s->kind) {
    case RCC_G3_SPHERE:
        rcb_v3_set(e, s->radius, s->radius, s->radius);
        break;
    case RCC_G3_CAPSULE:
        for (int i = 0; i < 3; i++) e[i] = s->half_len * fabs(R[3 * i + 2]) + s->radius;
        break;
    case RCC_G3_BOX:
        for (int i = 0; i < 3; i++)
            e[i] = fabs(R[3 * i]) * s->half[0] + fabs(R[3 * i + 1]) * s->half[1] + fabs(R[3 * i + 2]) * s->half[2];
        break;
    case RCC_G3_POLY:
        rcc_g3_poly_aabb(s->poly, pose, lo, hi);
        return;
    default:
        rcb_v3_set(lo, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL);
        rcb_v3_set(hi, HUGE_VAL, HUGE_VAL, HUGE_VAL);
        return;
    }
    for (int i = 0; i < 3; i++) { lo[i] = pose->p[i] - e[i]; hi[i] = pose->p[i] + e[i]; }
}

/* ---------------------------------------------------------------- points */

/* One point from its surface points, normal and gap. */
void rcc_g3_set_point(rcc_point3 *o, const double pa[3], const double pb[3], const double n[3], double g, int fa, int fb)
{
    rcb_v3_copy(o->pa, pa);
    rcb_v3_copy(o->pb, pb);
    rcb_v3_copy(o->n, n);
    o->g = g;
    o->feature = fa | fb << 8;
    rcc_tangent_frame(n, o->t1, o->t2);
}

/* Two balls: centres xa, xb, radii ra, rb; nfb the normal when the centres
 * coincide. Appends the point if its gap is <= margin. */
static void ball_ball(rcc_manifold3 *m, const double xa[3], double ra, const double xb[3], double rb,
                      const double nfb[3], double margin, int fa, int fb)
{
    double d[3], n[3], pa[3], pb[3];
    rcb_v3_sub(d, xb, xa);
    const double L = rcb_v3_norm(d);
    if (L > 1e-300) rcb_v3_scale(n, 1.0 / L, d);
    else rcb_v3_copy(n, nfb);
    const double g = L - ra - rb;
    if (!(g <= margin)) return;
    rcb_v3_axpy(pa, xa, ra, n);
    rcb_v3_axpy(pb, xb, -rb, n);
    rcc_g3_set_point(&m->pt[m->n++], pa, pb, n, g, fa, fb);
}


/* ---------------------------------------------------------------- pairs */


static void sphere_sphere(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                          double margin, rcc_manifold3 *m)
{
    ball_ball(m, pa->p, a->radius, pb->p, b->radius, EZ, margin, 0, 0);
}

/* plane A (outward normal n, through p0), the body point x at distance
 * d = n.(x - p0) with radius r: pa = x - d n, pb = x - r n. */
static void plane_point(rcc_manifold3 *m, const double n[3], const double p0[3], const double x[3], double r,
                        double margin, int fb)
{
    double dx[3], pa[3], pb[3];
    rcb_v3_sub(dx, x, p0);
    const double d = rcb_v3_dot(n, dx), g = d - r;
    if (!(g <= margin)) return;
    rcb_v3_axpy(pa, x, -d, n);
    rcb_v3_axpy(pb, x, -r, n);
    rcc_g3_set_point(&m->pt[m->n++], pa, pb, n, g, 0, fb);
}

static void plane_sphere(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                         double margin, rcc_manifold3 *m)
{
    double n[3];
    rcb_quat_rotate(n, pa->q, a->normal);
    plane_point(m, n, pa->p, pb->p, b->radius, margin, 0);
}

/* Plane A against capsule B: a point per end. The end whose cap faces the
 * plane touches with its sphere's lowest point e - r n; the other end with
 * the lowest point of its rim circle, e - r n_perp (n_perp the unit part of
 * n across the axis), the point of the capsule's surface nearest the plane
 * in that end's cross-section; both agree when the axis is parallel to the
 * plane. */
static void plane_capsule(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                          double margin, rcc_manifold3 *m)
{
    double n[3], u[3], e[3], dx[3], w[3], y[3];
    rcb_quat_rotate(n, pa->q, a->normal);
    rcb_quat_rotate(u, pb->q, EZ);
    rcb_v3_sub(dx, pb->p, pa->p);
    const double slop = SLOP * (rcb_v3_norm(dx) + b->half_len + b->radius);
    const double nu = rcb_v3_dot(n, u);
    rcb_v3_axpy(w, n, -nu, u);                       /* n across the axis */
    const double L = rcb_v3_norm(w);
    if (L > 1e-300) rcb_v3_scale(w, 1.0 / L, w);
    else rcc_g3_normal_to(w, u);                            /* axis along n: the rim is level */
    const int ends = b->half_len > 0.0 ? 2 : 1;
    for (int k = 0; k < ends; k++) {
        const double o = k ? 1.0 : -1.0;             /* the end's outward axis direction o u */
        rcb_v3_axpy(e, pb->p, o * b->half_len, u);
        rcb_v3_axpy(y, e, -b->radius, o * nu <= 0.0 ? n : w);
        plane_point(m, n, pa->p, y, 0.0, margin + slop, k ? RCC_F_END1 : RCC_F_END0);
    }
}

/* The box's vertex k (bits 0, 1, 2: + side on x, y, z) in the world. */
static void box_vertex(double v[3], const rcc_shape3 *s, const rcc_pose3 *p, int k, int sg[3])
{
    double b[3], w[3];
    for (int i = 0; i < 3; i++) { sg[i] = (k >> i) & 1 ? 1 : -1; b[i] = sg[i] * s->half[i]; }
    rcb_quat_rotate(w, p->q, b);
    rcb_v3_add(v, p->p, w);
}

static void plane_box(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                      double margin, rcc_manifold3 *m)
{
    double n[3], v[8][3], d[8], dx[3];
    int sg[8][3], idx[8], nc = 0;
    rcb_quat_rotate(n, pa->q, a->normal);
    rcb_v3_sub(dx, pb->p, pa->p);
    const double slop = SLOP * (rcb_v3_norm(dx) + rcb_v3_norm(b->half));
    for (int k = 0; k < 8; k++) {
        box_vertex(v[k], b, pb, k, sg[k]);
        rcb_v3_sub(dx, v[k], pa->p);
        d[k] = rcb_v3_dot(n, dx);
        if (!(d[k] <= margin + slop)) continue;
        int j = nc++;   /* insertion by depth, ties by vertex index */
        while (j > 0 && d[idx[j - 1]] > d[k]) { idx[j] = idx[j - 1]; j--; }
        idx[j] = k;
    }
    if (nc > RCC_MAX_POINTS) nc = RCC_MAX_POINTS;
    for (int j = 0; j < nc; j++) {
        const int k = idx[j];
        plane_point(m, n, pa->p, v[k], 0.0, margin + slop, rcc_box_feature(sg[k][0], sg[k][1], sg[k][2]));
    }
}

static void sphere_capsule(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                           double margin, rcc_manifold3 *m)
{
    double u[3], dx[3], x[3], nfb[3];
    rcb_quat_rotate(u, pb->q, EZ);
    rcb_v3_sub(dx, pa->p, pb->p);
    const double t = clampd(rcb_v3_dot(dx, u), -b->half_len, b->half_len);
    rcb_v3_axpy(x, pb->p, t, u);
    rcc_g3_normal_to(nfb, u);
    ball_ball(m, pa->p, a->radius, x, b->radius, nfb, margin, 0, capsule_feature(t, b->half_len));
}

/* ---------------------------------------------------------------- capsules */

typedef struct { double c[3], u[3], h, r; } seg3;

static void seg_of(seg3 *s, const rcc_shape3 *sh, const rcc_pose3 *p)
{
    rcb_v3_copy(s->c, p->p);
    rcb_quat_rotate(s->u, p->q, EZ);
    s->h = sh->half_len;
    s->r = sh->radius;
}

/* Closest points A(s) = ca + s ua, B(t) = cb + t ub of two segments
 * (Ericson 2005, Sec. 5.1.9, ClosestPtSegmentSegment, with unit directions
 * and parameters centred on the midpoints); parallel segments take s = 0
 * before clamping, as there. */
static void seg_seg(const seg3 *A, const seg3 *B, double *s_out, double *t_out)
{
    double r[3];
    rcb_v3_sub(r, A->c, B->c);
    const double b = rcb_v3_dot(A->u, B->u), c = rcb_v3_dot(A->u, r), f = rcb_v3_dot(B->u, r);
    const double denom = 1.0 - b * b;
    double s = denom > 0.0 ? clampd((b * f - c) / denom, -A->h, A->h) : 0.0;
    double t = f + s * b;                            /* the closest B(t) to A(s) */
    if (t < -B->h || t > B->h) {
        t = clampd(t, -B->h, B->h);
        s = clampd(t * b - c, -A->h, A->h);          /* the closest A(s) to B(t) */
    }
    *s_out = s;
    *t_out = t;
}

/* The point pair at A(s), its closest point on B. */
static void capsule_point(rcc_manifold3 *m, const seg3 *A, const seg3 *B, double s, double margin)
{
    double xa[3], xb[3], dx[3], nfb[3];
    rcb_v3_axpy(xa, A->c, s, A->u);
    rcb_v3_sub(dx, xa, B->c);
    const double t = clampd(rcb_v3_dot(dx, B->u), -B->h, B->h);
    rcb_v3_axpy(xb, B->c, t, B->u);
    rcc_g3_normal_to(nfb, A->u);
    ball_ball(m, xa, A->r, xb, B->r, nfb, margin, capsule_feature(s, A->h), capsule_feature(t, B->h));
}

static void capsule_capsule(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                            double margin, rcc_manifold3 *m)
{
    seg3 A, B;
    seg_of(&A, a, pa);
    seg_of(&B, b, pb);
    double s, t, xa[3], xb[3], nfb[3], w[3];
    seg_seg(&A, &B, &s, &t);
    rcb_v3_axpy(xa, A.c, s, A.u);
    rcb_v3_axpy(xb, B.c, t, B.u);
    rcb_v3_cross(w, A.u, B.u);
    const double sin2 = rcb_v3_dot(w, w);
    if (sin2 > 1e-300) rcb_v3_scale(nfb, 1.0 / sqrt(sin2), w);
    else rcc_g3_normal_to(nfb, A.u);
    if (sin2 < PARALLEL_SIN2 && A.h > 0.0 && B.h > 0.0) {
        /* parallel: the ends of the overlap of B's projection on A */
        double r[3];
        rcb_v3_sub(r, B.c, A.c);
        const double c0 = rcb_v3_dot(r, A.u), bh = fabs(rcb_v3_dot(A.u, B.u)) * B.h;
        const double lo = fmax(-A.h, c0 - bh), hi = fmin(A.h, c0 + bh);
        if (hi - lo > SLOP * (A.h + B.h)) {
            rcc_manifold3 two = { 0 };
            capsule_point(&two, &A, &B, lo, HUGE_VAL);
            capsule_point(&two, &A, &B, hi, HUGE_VAL);
            /* keep the true least distance: the nearer of the two takes the
             * closest points when they are deeper (nearly parallel axes) */
            rcc_manifold3 one = { 0 };
            ball_ball(&one, xa, A.r, xb, B.r, nfb, HUGE_VAL, capsule_feature(s, A.h), capsule_feature(t, B.h));
            if (one.pt[0].g < fmin(two.pt[0].g, two.pt[1].g) - SLOP * (A.h + B.h + A.r + B.r))
                two.pt[fabs(s - lo) <= fabs(s - hi) ? 0 : 1] = one.pt[0];
            const double slop = SLOP * (rcb_v3_norm(r) + A.h + B.h + A.r + B.r);
            for (int k = 0; k < 2; k++)
                if (two.pt[k].g <= margin + slop) m->pt[m->n++] = two.pt[k];
            return;
        }
    }
    ball_ball(m, xa, A.r, xb, B.r, nfb, margin, capsule_feature(s, A.h), capsule_feature(t, B.h));
}

/* ---------------------------------------------------------------- dispatch */

typedef void (*pair_fn)(const rcc_shape3 *, const rcc_pose3 *, const rcc_shape3 *, const rcc_pose3 *,
                        double, rcc_manifold3 *);

/* by (kind A, kind B) with kind A <= kind B */
static const pair_fn PAIRS[5][5] = {
    [RCC_G3_PLANE] = { [RCC_G3_SPHERE] = plane_sphere, [RCC_G3_CAPSULE] = plane_capsule, [RCC_G3_BOX] = plane_box,
                       [RCC_G3_POLY] = rcc_g3_plane_poly },
    [RCC_G3_SPHERE] = { [RCC_G3_SPHERE] = sphere_sphere, [RCC_G3_CAPSULE] = sphere_capsule, [RCC_G3_BOX] = rcc_g3_sphere_box,
                        [RCC_G3_POLY] = rcc_g3_sphere_poly },
    [RCC_G3_CAPSULE] = { [RCC_G3_CAPSULE] = capsule_capsule, [RCC_G3_BOX] = rcc_g3_capsule_box,
                         [RCC_G3_POLY] = rcc_g3_capsule_poly },
    [RCC_G3_BOX] = { [RCC_G3_BOX] = rcc_g3_box_box, [RCC_G3_POLY] = rcc_g3_box_poly },
    [RCC_G3_POLY] = { [RCC_G3_POLY] = rcc_g3_poly_poly },
};

/* (B, A)'s manifold as (A, B)'s: points swapped, normals reversed. */
static void swap_manifold(rcc_manifold3 *m)
{
    for (int k = 0; k < m->n; k++) {
        rcc_point3 *o = &m->pt[k];
        double x[3];
        rcb_v3_copy(x, o->pa);
        rcb_v3_copy(o->pa, o->pb);
        rcb_v3_copy(o->pb, x);
        rcb_v3_scale(o->n, -1.0, o->n);
        rcc_tangent_frame(o->n, o->t1, o->t2);
        o->feature = (o->feature >> 8) | (o->feature & 0xff) << 8;
    }
}

int rcc_collide3(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                 double margin, rcc_manifold3 *m)
{
    m->n = 0;
    if (a->kind < 0 || a->kind > 4 || b->kind < 0 || b->kind > 4) return 0;
    const int swap = a->kind > b->kind;
    const pair_fn f = swap ? PAIRS[b->kind][a->kind] : PAIRS[a->kind][b->kind];
    if (!f) return 0;
    if (swap) {
        f(b, pb, a, pa, margin, m);
        swap_manifold(m);
    } else {
        f(a, pa, b, pb, margin, m);
    }
    return 1;
}
