/* query.c -- spatial queries between steps (docs/queries-and-events.md):
 * the shapes overlapping an axis-aligned box, the shapes containing a point,
 * the first shape hit by a ray or by a swept disk.
 *
 * Every shape is seen as a convex core (a point, a segment or a convex
 * polygon, in the world frame at the world's current q) inflated by a radius:
 *     disk = centre + r, point = centre + 0, polygon = vertices + 0,
 *     ground segment = a-b + radius;
 * ground half-planes {N.(x - P) <= 0} and circular walls {|x - C| >= R} (the
 * solid outside the circle) apart. A swept disk of radius R is a
 * ray against the shape inflated by R more. The exact tests:
 *   point:  dist(p, core) <= r (0 inside a polygon);
 *   box:    dist(core, box) <= r, where dist = 0 when the separating axis test
 *           finds no gap (axes x, y and the core's edge normals), else the least
 *           vertex-to-set distance both ways (two disjoint convex polygons are
 *           nearest at a vertex of one of them);
 *   ray:    the rounded core is the core with a capsule on every edge (a disk
 *           at every vertex and the edge's rectangle of half-width r), so the
 *           first entry is the least entry into these convex pieces: disks by
 *           the quadratic, the core and the rectangles by clipping the ray
 *           against their sides (Cyrus & Beck). A ray that starts inside a
 *           shape (or touching it) does not hit it, as in Box2D.
 * A prefilter on each body's bounding circle (rc_shape.bound around the
 * body's position) skips shapes far from the query. One pass over the shapes,
 * O(n); nothing is allocated: results go to the caller's array. Periodic
 * worlds are queried as stored (no images across the boundary).
 */
#include "collide/collide_impl.h"

#include <math.h>

enum { QMAX = RC_MAX_POLYGON_VERTICES };

/* A shape in the world frame: a convex core of n vertices (CCW), its edge
 * normals (n >= 2; a segment's two sides), a radius; or a half-plane (half
 * = 1: P, N); or a circular wall (half = 2: centre P, radius r). */
typedef struct qshape {
    int n, half;
    double r;
    double v[QMAX][2];
    double P[2], N[2];
} qshape;

static rc_status bad(const char *fn, const char *what)
{
    return rc_set_error(RC_ERR_ARG, "%s: %s", fn, what);
}

static int finite2(const double *p) { return p && rcb_finite(p[0]) && rcb_finite(p[1]); }

/* The frame of shape s's body at the world's q (the identity on the ground). */
static void body_frame(const rc_world *w, const rc_shape *s, double f[4])
{
    f[0] = f[1] = 0.0; f[2] = 1.0; f[3] = 0.0;
    if (s->body == RC_GROUND) return;
    const double *q = w->q + w->bodies[s->body].iq;
    f[0] = q[0]; f[1] = q[1]; f[2] = cos(q[2]); f[3] = sin(q[2]);
}

static void to_world(const double f[4], const double *b, double *out)
{
    out[0] = f[0] + f[2] * b[0] - f[3] * b[1];
    out[1] = f[1] + f[3] * b[0] + f[2] * b[1];
}

static void shape_world(const rc_world *w, const rc_shape *s, qshape *g)
{
    double f[4];
    body_frame(w, s, f);
    g->half = 0; g->r = 0.0; g->n = 1;
    switch (s->type) {
    case RC_SHAPE_DISK: g->r = s->radius; /* fall through */
    case RC_SHAPE_POINT: to_world(f, s->offset, g->v[0]); return;
    case RC_SHAPE_POLYGON:
        g->n = s->nvert;
        for (int i = 0; i < s->nvert; i++) to_world(f, s->vert[i], g->v[i]);
        return;
    case RC_SHAPE_SEGMENT:   /* ground only */
        g->n = 2; g->r = s->radius;
        memcpy(g->v[0], s->a, sizeof s->a); memcpy(g->v[1], s->b, sizeof s->b);
        return;
    case RC_SHAPE_HALFPLANE:
        g->half = 1;
        memcpy(g->P, s->point, sizeof g->P); memcpy(g->N, s->normal, sizeof g->N);
        return;
    case RC_SHAPE_CIRCLE_INSIDE:   /* ground only */
        g->half = 2; g->r = s->radius;
        memcpy(g->P, s->offset, sizeof g->P);
        return;
    }
}

/* ---------------------------------------------------------------- distances */

static double dist2_point_segment(const double *p, const double *a, const double *b)
{
    double ex = b[0] - a[0], ey = b[1] - a[1], L2 = ex * ex + ey * ey;
    double s = L2 > 0.0 ? ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / L2 : 0.0;
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    double dx = p[0] - (a[0] + s * ex), dy = p[1] - (a[1] + s * ey);
    return dx * dx + dy * dy;
}

/* Outward normal (unnormalised) of the CCW edge i -> i+1: (e_y, -e_x). */
static int inside_polygon(const qshape *g, const double *p)
{
    for (int i = 0; i < g->n; i++) {
        const double *a = g->v[i], *b = g->v[(i + 1) % g->n];
        if ((b[1] - a[1]) * (p[0] - a[0]) - (b[0] - a[0]) * (p[1] - a[1]) > 0.0) return 0;
    }
    return 1;
}

/* Squared distance from p to the core (0 inside a polygon). */
static double dist2_core(const qshape *g, const double *p)
{
    if (g->n == 1) {
        double dx = p[0] - g->v[0][0], dy = p[1] - g->v[0][1];
        return dx * dx + dy * dy;
    }
    if (g->n >= 3 && inside_polygon(g, p)) return 0.0;
    double d2 = INFINITY;
    int ne = g->n == 2 ? 1 : g->n;
    for (int i = 0; i < ne; i++) d2 = fmin(d2, dist2_point_segment(p, g->v[i], g->v[(i + 1) % g->n]));
    return d2;
}

static double dist2_point_box(const double *p, const double *lo, const double *hi)
{
    double dx = p[0] < lo[0] ? lo[0] - p[0] : p[0] > hi[0] ? p[0] - hi[0] : 0.0;
    double dy = p[1] < lo[1] ? lo[1] - p[1] : p[1] > hi[1] ? p[1] - hi[1] : 0.0;
    return dx * dx + dy * dy;
}

static int contains(const qshape *g, const double *p)
{
    if (g->half == 2) return hypot(p[0] - g->P[0], p[1] - g->P[1]) >= g->r;
    if (g->half) return g->N[0] * (p[0] - g->P[0]) + g->N[1] * (p[1] - g->P[1]) <= 0.0;
    return dist2_core(g, p) <= g->r * g->r;
}

/* Does axis (ax, ay) separate the core's projection from the box's? */
static int separated(const qshape *g, const double *lo, const double *hi, double ax, double ay)
{
    double c0 = INFINITY, c1 = -INFINITY;
    for (int i = 0; i < g->n; i++) {
        double s = ax * g->v[i][0] + ay * g->v[i][1];
        c0 = fmin(c0, s); c1 = fmax(c1, s);
    }
    double b0 = ax * (ax >= 0.0 ? lo[0] : hi[0]) + ay * (ay >= 0.0 ? lo[1] : hi[1]);
    double b1 = ax * (ax >= 0.0 ? hi[0] : lo[0]) + ay * (ay >= 0.0 ? hi[1] : lo[1]);
    return c1 < b0 || b1 < c0;
}

static int overlaps_box(const qshape *g, const double *lo, const double *hi)
{
    if (g->half == 2) {   /* the box's corner farthest from the centre */
        double x = fabs(lo[0] - g->P[0]) >= fabs(hi[0] - g->P[0]) ? lo[0] : hi[0];
        double y = fabs(lo[1] - g->P[1]) >= fabs(hi[1] - g->P[1]) ? lo[1] : hi[1];
        return hypot(x - g->P[0], y - g->P[1]) >= g->r;
    }
    if (g->half) {   /* the box's corner least along N */
        double x = g->N[0] >= 0.0 ? lo[0] : hi[0], y = g->N[1] >= 0.0 ? lo[1] : hi[1];
        return g->N[0] * (x - g->P[0]) + g->N[1] * (y - g->P[1]) <= 0.0;
    }
    int sep = separated(g, lo, hi, 1.0, 0.0) || separated(g, lo, hi, 0.0, 1.0);
    int ne = g->n == 1 ? 0 : g->n == 2 ? 1 : g->n;
    for (int i = 0; i < ne && !sep; i++) {
        const double *a = g->v[i], *b = g->v[(i + 1) % g->n];
        sep = separated(g, lo, hi, b[1] - a[1], a[0] - b[0]);
    }
    if (!sep) return 1;
    if (g->r == 0.0) return 0;
    double d2 = INFINITY;
    for (int i = 0; i < g->n; i++) d2 = fmin(d2, dist2_point_box(g->v[i], lo, hi));
    const double corner[4][2] = { { lo[0], lo[1] }, { hi[0], lo[1] }, { hi[0], hi[1] }, { lo[0], hi[1] } };
    for (int k = 0; k < 4 && g->n >= 2; k++) d2 = fmin(d2, dist2_core(g, corner[k]));
    return d2 <= g->r * g->r;
}

/* ---------------------------------------------------------------- rays */

/* First entry t in [0, 1] of p + t d into the disk (c, rho) from outside. */
static int ray_disk(const double *p, const double *d, const double *c, double rho, double *t)
{
    double mx = p[0] - c[0], my = p[1] - c[1];
    double a = d[0] * d[0] + d[1] * d[1], b = mx * d[0] + my * d[1], cc = mx * mx + my * my - rho * rho;
    if (!(a > 0.0) || cc <= 0.0 || b >= 0.0) return 0;
    double disc = b * b - a * cc;
    if (disc < 0.0) return 0;
    double s = cc / (-b + sqrt(disc));   /* the smaller root, without cancellation */
    if (!(s >= 0.0 && s <= 1.0)) return 0;
    *t = s;
    return 1;
}

/* First entry t in [0, 1] of p + t d into {N_i.x <= o_i, i < m} from outside;
 * *k the side entered. */
static int ray_clip(const double *p, const double *d, const double (*N)[2], const double *o, int m,
                    double *t, int *k)
{
    double t0 = -INFINITY, t1 = INFINITY;
    int ki = -1;
    for (int i = 0; i < m; i++) {
        double num = N[i][0] * p[0] + N[i][1] * p[1] - o[i], den = N[i][0] * d[0] + N[i][1] * d[1];
        if (den == 0.0) {
            if (num > 0.0) return 0;
            continue;
        }
        double s = -num / den;
        if (den < 0.0) {
            if (s > t0) { t0 = s; ki = i; }
        } else if (s < t1) {
            t1 = s;
        }
    }
    if (ki < 0 || !(t0 <= t1) || !(t0 >= 0.0 && t0 <= 1.0)) return 0;
    *t = t0; *k = ki;
    return 1;
}

/* Keep the hit (t, normal) if it is the first so far. */
static void keep(double t, double nx, double ny, double *best, double *n)
{
    if (t < *best) { *best = t; n[0] = nx; n[1] = ny; }
}

/* The circular wall (centre c, radius R, solid outside) inflated by rho: the
 * exit t in [0, 1] of p + t d from the disk (c, R - rho), p inside it. */
static int ray_circle_inside(const double *p, const double *d, const double *c, double R, double rho,
                             double *t, double *n)
{
    const double Ri = R - rho, mx = p[0] - c[0], my = p[1] - c[1];
    const double a = d[0] * d[0] + d[1] * d[1], b = mx * d[0] + my * d[1], cc = mx * mx + my * my - Ri * Ri;
    if (!(Ri > 0.0) || !(cc < 0.0) || !(a > 0.0)) return 0;   /* starts inside the solid */
    const double s = (-b + sqrt(b * b - a * cc)) / a;          /* the larger root (cc < 0: real, > 0) */
    if (!(s >= 0.0 && s <= 1.0)) return 0;
    *t = s;
    n[0] = -(mx + s * d[0]) / Ri;   /* outward from the solid: towards the centre */
    n[1] = -(my + s * d[1]) / Ri;
    return 1;
}

/* The rectangle of edge a-b with half-width rho: 4 sides. */
static void edge_rect(const double *a, const double *b, double rho, double N[4][2], double o[4])
{
    double ex = b[0] - a[0], ey = b[1] - a[1], L = hypot(ex, ey);
    ex /= L; ey /= L;
    N[0][0] = ey;  N[0][1] = -ex; o[0] = N[0][0] * a[0] + N[0][1] * a[1] + rho;
    N[1][0] = -ey; N[1][1] = ex;  o[1] = N[1][0] * a[0] + N[1][1] * a[1] + rho;
    N[2][0] = ex;  N[2][1] = ey;  o[2] = ex * b[0] + ey * b[1];
    N[3][0] = -ex; N[3][1] = -ey; o[3] = -ex * a[0] - ey * a[1];
}

/* The first hit of p + t d (t in [0, 1]) on the shape inflated by R:
 * fraction, outward unit normal at the hit. */
static int ray_shape(const qshape *g, const double *p, const double *d, double R, double *t, double *n)
{
    double best = INFINITY, s;
    int k;
    if (g->half == 2) {
        if (!ray_circle_inside(p, d, g->P, g->r, R, &best, n)) return 0;
    } else if (g->half) {
        if (g->N[0] * (p[0] - g->P[0]) + g->N[1] * (p[1] - g->P[1]) <= R) return 0;   /* starts inside */
        const double N[1][2] = { { g->N[0], g->N[1] } };
        const double o = g->N[0] * g->P[0] + g->N[1] * g->P[1] + R;
        if (ray_clip(p, d, N, &o, 1, &s, &k)) keep(s, g->N[0], g->N[1], &best, n);
    } else {
        const double rho = g->r + R;
        if (dist2_core(g, p) <= rho * rho) return 0;   /* starts inside */
        if (rho > 0.0)
            for (int i = 0; i < g->n; i++)
                if (ray_disk(p, d, g->v[i], rho, &s))
                    keep(s, (p[0] + s * d[0] - g->v[i][0]) / rho, (p[1] + s * d[1] - g->v[i][1]) / rho, &best, n);
        int ne = g->n == 1 ? 0 : g->n == 2 ? 1 : g->n;
        for (int i = 0; i < ne; i++) {
            double N[4][2], o[4];
            edge_rect(g->v[i], g->v[(i + 1) % g->n], rho, N, o);
            if (ray_clip(p, d, (const double (*)[2])N, o, 4, &s, &k)) keep(s, N[k][0], N[k][1], &best, n);
        }
        if (g->n >= 3) {
            double N[QMAX][2], o[QMAX];
            for (int i = 0; i < g->n; i++) {
                const double *a = g->v[i], *b = g->v[(i + 1) % g->n];
                double nx = b[1] - a[1], ny = a[0] - b[0], L = hypot(nx, ny);
                N[i][0] = nx / L; N[i][1] = ny / L; o[i] = N[i][0] * a[0] + N[i][1] * a[1];
            }
            if (ray_clip(p, d, (const double (*)[2])N, o, g->n, &s, &k)) keep(s, N[k][0], N[k][1], &best, n);
        }
    }
    if (!(best <= 1.0)) return 0;
    double L = hypot(n[0], n[1]);   /* unit to round-off */
    n[0] /= L; n[1] /= L;
    *t = best;
    return 1;
}

/* ---------------------------------------------------------------- prefilter */

/* A live shape (removed ones keep their slot: model/remove.c) of the filter's group. */
static int group_ok(const rc_shape *s, const rc_query_filter *f)
{
    return s->type != RCM_SHAPE_REMOVED && (!f || !f->use_group || s->group == f->group);
}

/* The bounding radius of shape s inflated by R, with room for the round-off
 * of the world-frame transform at q. */
static double slack_bound(const rc_shape *s, const double *q, double R)
{
    return s->bound + R + 1e-9 * (s->bound + fabs(q[0]) + fabs(q[1]));
}

/* Can shape s (inflated by R) reach within the box? A cheap test on the
 * body's bounding circle (ground shapes: always tested exactly). */
static int near_box(const rc_world *w, const rc_shape *s, const double *lo, const double *hi, double R)
{
    if (s->body == RC_GROUND) return 1;
    const double *q = w->q + w->bodies[s->body].iq, br = slack_bound(s, q, R);
    return dist2_point_box(q, lo, hi) <= br * br;
}

static int near_ray(const rc_world *w, const rc_shape *s, const double *p, const double *to, double R)
{
    if (s->body == RC_GROUND) return 1;
    const double *q = w->q + w->bodies[s->body].iq, br = slack_bound(s, q, R);
    return dist2_point_segment(q, p, to) <= br * br;
}

/* ---------------------------------------------------------------- API */

rc_query_filter rc_default_query_filter(void)
{
    rc_query_filter f = { 0, 0 };
    return f;
}

static rc_status check_common(const char *fn, const rc_world *w, const rc_query_filter *f)
{
    if (!w) return bad(fn, "'w' is NULL");
    if (f && f->use_group != 0 && f->use_group != 1)
        return rc_set_error(RC_ERR_ARG, "%s: 'filter.use_group' must be 0 or 1 (got %d)", fn, f->use_group);
    return RC_OK;
}

static rc_status check_out(const char *fn, int *shapes, int cap, int *count)
{
    if (!count) return bad(fn, "'count' is NULL");
    if (cap < 0) return rc_set_error(RC_ERR_ARG, "%s: 'cap' must be >= 0 (got %d)", fn, cap);
    if (cap > 0 && !shapes) return bad(fn, "'shapes' is NULL with cap > 0");
    return RC_OK;
}

rc_status rc_query_box(const rc_world *w, const double lo[2], const double hi[2], const rc_query_filter *filter,
                       int *shapes, int cap, int *count)
{
    const char *fn = "rc_query_box";
    RC_CHECK(check_common(fn, w, filter));
    RC_CHECK(check_out(fn, shapes, cap, count));
    if (!finite2(lo)) return bad(fn, "'lo' must be 2 finite numbers");
    if (!finite2(hi)) return bad(fn, "'hi' must be 2 finite numbers");
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1]))
        return rc_set_error(RC_ERR_ARG, "%s: 'lo' must be <= 'hi' in x and y (got lo = (%g, %g), hi = (%g, %g))",
                            fn, lo[0], lo[1], hi[0], hi[1]);
    int n = 0;
    qshape g;
    for (int i = 0; i < w->nshapes; i++) {
        const rc_shape *s = &w->shapes[i];
        if (!group_ok(s, filter) || !near_box(w, s, lo, hi, 0.0)) continue;
        shape_world(w, s, &g);
        if (!overlaps_box(&g, lo, hi)) continue;
        if (n < cap) shapes[n] = i;
        n++;
    }
    *count = n;
    return RC_OK;
}

rc_status rc_query_point(const rc_world *w, const double p[2], const rc_query_filter *filter,
                         int *shapes, int cap, int *count)
{
    const char *fn = "rc_query_point";
    RC_CHECK(check_common(fn, w, filter));
    RC_CHECK(check_out(fn, shapes, cap, count));
    if (!finite2(p)) return bad(fn, "'point' must be 2 finite numbers");
    int n = 0;
    qshape g;
    for (int i = 0; i < w->nshapes; i++) {
        const rc_shape *s = &w->shapes[i];
        if (!group_ok(s, filter) || !near_box(w, s, p, p, 0.0)) continue;
        shape_world(w, s, &g);
        if (!contains(&g, p)) continue;
        if (n < cap) shapes[n] = i;
        n++;
    }
    *count = n;
    return RC_OK;
}

static rc_status cast(const char *fn, const rc_world *w, const double *from, const double *to, double R,
                      const rc_query_filter *filter, rc_query_hit *hit, int *found)
{
    RC_CHECK(check_common(fn, w, filter));
    if (!hit) return bad(fn, "'hit' is NULL");
    if (!found) return bad(fn, "'found' is NULL");
    if (!finite2(from)) return bad(fn, "'from' must be 2 finite numbers");
    if (!finite2(to)) return bad(fn, "'to' must be 2 finite numbers");
    const double d[2] = { to[0] - from[0], to[1] - from[1] };
    if (!rcb_finite(d[0]) || !rcb_finite(d[1])) return bad(fn, "'to' - 'from' overflows");
    *found = 0;
    double best = INFINITY;
    qshape g;
    for (int i = 0; i < w->nshapes; i++) {
        const rc_shape *s = &w->shapes[i];
        if (!group_ok(s, filter) || !near_ray(w, s, from, to, R)) continue;
        shape_world(w, s, &g);
        double t = 0.0, n[2] = { 0.0, 0.0 };
        if (!ray_shape(&g, from, d, R, &t, n) || !(t < best)) continue;
        best = t;
        *found = 1;
        hit->shape = i;
        hit->body = s->body;
        hit->fraction = t;
        hit->normal[0] = n[0]; hit->normal[1] = n[1];
        /* the point on the shape: the centre at the hit, less R along the normal */
        hit->point[0] = from[0] + t * d[0] - R * n[0];
        hit->point[1] = from[1] + t * d[1] - R * n[1];
    }
    return RC_OK;
}

rc_status rc_ray_cast(const rc_world *w, const double from[2], const double to[2], const rc_query_filter *filter,
                      rc_query_hit *hit, int *found)
{
    return cast("rc_ray_cast", w, from, to, 0.0, filter, hit, found);
}

rc_status rc_disk_cast(const rc_world *w, const double from[2], const double to[2], double radius,
                       const rc_query_filter *filter, rc_query_hit *hit, int *found)
{
    if (!rcb_finite(radius) || !(radius > 0.0))
        return rc_set_error(RC_ERR_ARG, "rc_disk_cast: 'radius' must be > 0 (got %g)", radius);
    return cast("rc_disk_cast", w, from, to, radius, filter, hit, found);
}
