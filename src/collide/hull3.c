/*
 * hull3.c -- the convex hull of a point set and the mass properties of the
 * convex polyhedron (collide/hull3.h; docs/theory/polyhedra.md).
 *
 * Construction: a first tetrahedron from extreme points, then, as long as a
 * point lies farther than tol outside the hull, the farthest such point is
 * added (Barber, Dobkin & Huhdanpaa 1996, "The quickhull algorithm for convex
 * hulls", ACM TOMS 22(4)): the triangles it sees, grown as one connected
 * patch from the triangle it is farthest from, are replaced by a cone from the
 * point to their horizon. Triangles are kept counter-clockwise seen from
 * outside, so each directed edge has its reverse in exactly one neighbour.
 * Then adjacent triangles whose planes agree to tol are merged into faces,
 * each face's boundary is chained into one loop, vertices where a loop runs
 * straight (on an edge, or inside a face) are dropped, and the edges are
 * listed with their two faces. Sizes are bounded by the narrow phase's limits
 * (64 vertices, 64 faces); a larger hull is refused.
 */
#include "collide/hull3.h"

#include <math.h>
#include <string.h>

static void sub3(const double *a, const double *b, double *r) { r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2]; }
static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const double *a, const double *b, double *r)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
static double norm3(const double *a) { return sqrt(dot3(a, a)); }

/* ---------------------------------------------------------------- triangles */

/* the plane of triangle (a, b, c) of the points P, counter-clockwise seen from
 * the side n points to; returns twice its area */
static double tri_plane(const double *P, int a, int b, int c, double *pl)
{
    double u[3], w[3];
    sub3(P + 3 * b, P + 3 * a, u);
    sub3(P + 3 * c, P + 3 * a, w);
    cross3(u, w, pl);
    const double s = norm3(pl);
    if (s > 0.0) { pl[0] /= s; pl[1] /= s; pl[2] /= s; }
    pl[3] = dot3(pl, P + 3 * a);
    return s;
}

static double tri_dist(const rcc_hull3 *h, int t, const double *p) { return dot3(h->tplane + 4 * t, p) - h->tplane[4 * t + 3]; }

static void add_tri(rcc_hull3 *h, const double *P, int a, int b, int c)
{
    int *t = h->tri + 3 * h->ntri;
    t[0] = a; t[1] = b; t[2] = c;
    (void)tri_plane(P, a, b, c, h->tplane + 4 * h->ntri);
    h->ntri++;
}

/* the triangle holding the directed edge a -> b (-1: none) */
static int tri_with_edge(const rcc_hull3 *h, int a, int b)
{
    for (int t = 0; t < h->ntri; t++)
        for (int k = 0; k < 3; k++)
            if (h->tri[3 * t + k] == a && h->tri[3 * t + (k + 1) % 3] == b) return t;
    return -1;
}

/* ---------------------------------------------------------------- construction */

static rc_status first_tetrahedron(rcc_hull3 *h, const double *P, int n, double tol)
{
    int i0 = 0, i1 = -1, i2 = -1, i3 = -1;
    for (int i = 1; i < n; i++) if (P[3 * i] < P[3 * i0]) i0 = i;
    double best = tol, d[3], e[3], c[3];
    for (int i = 0; i < n; i++) {
        sub3(P + 3 * i, P + 3 * i0, d);
        if (norm3(d) > best) { best = norm3(d); i1 = i; }
    }
    if (i1 < 0) return rc_set_error(RC_ERR_ARG, "convex hull: the %d points coincide (to %.3g): no volume", n, tol);
    sub3(P + 3 * i1, P + 3 * i0, e);
    const double le = norm3(e);
    best = tol;
    for (int i = 0; i < n; i++) {   /* farthest from the line i0 i1 */
        sub3(P + 3 * i, P + 3 * i0, d);
        cross3(e, d, c);
        if (norm3(c) / le > best) { best = norm3(c) / le; i2 = i; }
    }
    if (i2 < 0) return rc_set_error(RC_ERR_ARG, "convex hull: the %d points lie on a line (to %.3g): no volume", n, tol);
    double pl[4];
    (void)tri_plane(P, i0, i1, i2, pl);
    best = tol;
    for (int i = 0; i < n; i++) {   /* farthest from the plane i0 i1 i2 */
        const double s = fabs(dot3(pl, P + 3 * i) - pl[3]);
        if (s > best) { best = s; i3 = i; }
    }
    if (i3 < 0) return rc_set_error(RC_ERR_ARG, "convex hull: the %d points lie in a plane (to %.3g): no volume", n, tol);
    const int q[4] = { i0, i1, i2, i3 };
    static const int f[4][3] = { { 0, 1, 2 }, { 0, 3, 1 }, { 1, 3, 2 }, { 2, 3, 0 } };
    const int flip = dot3(pl, P + 3 * i3) - pl[3] > 0.0;   /* i3 above i0 i1 i2: turn every face */
    h->ntri = 0;
    for (int k = 0; k < 4; k++)
        add_tri(h, P, q[f[k][0]], q[f[k][flip ? 2 : 1]], q[f[k][flip ? 1 : 2]]);
    return RC_OK;
}

/* the point farthest outside the hull (> tol), its triangle; -1: none */
static int farthest_outside(const rcc_hull3 *h, const double *P, int n, double tol, int *tri)
{
    int best = -1;
    double dmax = tol;
    for (int i = 0; i < n; i++)
        for (int t = 0; t < h->ntri; t++) {
            const double d = tri_dist(h, t, P + 3 * i);
            if (d > dmax) { dmax = d; best = i; *tri = t; }
        }
    return best;
}

/* add point p seen from triangle t0: the connected patch of triangles that
 * see it (distance > tol) is replaced by the cone from p to its horizon */
static rc_status add_point(rcc_hull3 *h, const double *P, int p, int t0, double tol)
{
    unsigned char vis[RCC_HULL3_MAX_T];
    int stack[RCC_HULL3_MAX_T], ns = 0, horizon[2 * RCC_HULL3_MAX_T], nh = 0;
    memset(vis, 0, sizeof vis);
    vis[t0] = 1;
    stack[ns++] = t0;
    while (ns > 0) {   /* grow the visible patch across edges */
        const int t = stack[--ns];
        for (int k = 0; k < 3; k++) {
            const int a = h->tri[3 * t + k], b = h->tri[3 * t + (k + 1) % 3];
            const int u = tri_with_edge(h, b, a);
            if (u >= 0 && !vis[u] && tri_dist(h, u, P + 3 * p) > tol) { vis[u] = 1; stack[ns++] = u; }
        }
    }
    for (int t = 0; t < h->ntri; t++) {   /* the horizon: visible edges whose neighbour is not */
        if (!vis[t]) continue;
        for (int k = 0; k < 3; k++) {
            const int a = h->tri[3 * t + k], b = h->tri[3 * t + (k + 1) % 3];
            const int u = tri_with_edge(h, b, a);
            if (u < 0 || !vis[u]) { horizon[2 * nh] = a; horizon[2 * nh + 1] = b; nh++; }
        }
    }
    int nvis = 0;
    for (int t = 0; t < h->ntri; t++) nvis += vis[t];
    if (h->ntri - nvis + nh > RCC_HULL3_MAX_T)
        return rc_set_error(RC_ERR_ARG, "convex hull: more than %d vertices (a polyhedron has at most %d)",
                            RCC_HULL3_MAX_V, RCC_HULL3_MAX_V);
    int m = 0;   /* keep the triangles that do not see p, in order */
    for (int t = 0; t < h->ntri; t++) {
        if (vis[t]) continue;
        memmove(h->tri + 3 * m, h->tri + 3 * t, 3 * sizeof(int));
        memmove(h->tplane + 4 * m, h->tplane + 4 * t, 4 * sizeof(double));
        m++;
    }
    h->ntri = m;
    for (int k = 0; k < nh; k++) add_tri(h, P, horizon[2 * k], horizon[2 * k + 1], p);
    return RC_OK;
}

/* ---------------------------------------------------------------- faces */

static int find_root(int *parent, int i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

/* adjacent triangles whose planes agree to tol (each one's far vertex within
 * tol of the other's plane) are one face: group[t] */
static void group_coplanar(const rcc_hull3 *h, const double *P, double tol, int *group)
{
    for (int t = 0; t < h->ntri; t++) group[t] = t;
    for (int t = 0; t < h->ntri; t++)
        for (int k = 0; k < 3; k++) {
            const int a = h->tri[3 * t + k], b = h->tri[3 * t + (k + 1) % 3], c = h->tri[3 * t + (k + 2) % 3];
            const int u = tri_with_edge(h, b, a);
            if (u <= t) continue;
            int far = -1;
            for (int j = 0; j < 3; j++)
                if (h->tri[3 * u + j] != a && h->tri[3 * u + j] != b) far = h->tri[3 * u + j];
            if (fabs(tri_dist(h, t, P + 3 * far)) <= tol && fabs(tri_dist(h, u, P + 3 * c)) <= tol)
                group[find_root(group, u)] = find_root(group, t);
        }
    for (int t = 0; t < h->ntri; t++) group[t] = find_root(group, t);
}

/* the boundary of each group chained into one loop (input indices) */
static rc_status chain_loops(rcc_hull3 *h, const int *group)
{
    int be[2 * RCC_HULL3_MAX_LOOP], used[RCC_HULL3_MAX_LOOP];
    h->nf = 0;
    int nl = 0;
    for (int g = 0; g < h->ntri; g++) {
        int nb = 0, any = 0;
        for (int t = 0; t < h->ntri; t++) {
            if (group[t] != g) continue;
            any = 1;
            for (int k = 0; k < 3; k++) {
                const int a = h->tri[3 * t + k], b = h->tri[3 * t + (k + 1) % 3];
                const int u = tri_with_edge(h, b, a);
                if (u < 0 || group[u] != g) { be[2 * nb] = a; be[2 * nb + 1] = b; used[nb++] = 0; }
            }
        }
        if (!any) continue;
        if (h->nf == RCC_HULL3_MAX_F)
            return rc_set_error(RC_ERR_ARG, "convex hull: more than %d faces (a polyhedron has at most %d)", RCC_HULL3_MAX_F,
                                RCC_HULL3_MAX_F);
        h->fstart[h->nf] = nl;
        int cur = 0;
        for (int k = 0; k < nb; k++) {   /* follow the edges from the end of the last one */
            used[cur] = 1;
            h->loop[nl++] = be[2 * cur];
            const int end = be[2 * cur + 1];
            cur = -1;
            for (int j = 0; j < nb && cur < 0; j++)
                if (!used[j] && be[2 * j] == end) cur = j;
            if (cur < 0) {
                if (k != nb - 1 || end != h->loop[h->fstart[h->nf]])
                    return rc_set_error(RC_ERR_ARG, "convex hull: a face's boundary is not one loop (points too degenerate for tol)");
                break;
            }
        }
        h->nf++;
    }
    h->fstart[h->nf] = nl;
    return RC_OK;
}

/* drop the loop vertices where a loop runs straight (within tol of the line
 * through their neighbours) */
static void drop_straight(rcc_hull3 *h, const double *P, double tol)
{
    int nl = 0;
    for (int f = 0; f < h->nf; f++) {
        const int s = h->fstart[f], len = h->fstart[f + 1] - s, s1 = nl;
        for (int k = 0; k < len; k++) {
            const double *u = P + 3 * h->loop[s + (k + len - 1) % len], *v = P + 3 * h->loop[s + k],
                         *w = P + 3 * h->loop[s + (k + 1) % len];
            double uw[3], uv[3], c[3];
            sub3(w, u, uw);
            sub3(v, u, uv);
            cross3(uw, uv, c);
            if (norm3(c) > tol * norm3(uw)) h->loop[nl++] = h->loop[s + k];
        }
        h->fstart[f] = s1;
    }
    h->fstart[h->nf] = nl;
}

/* compact the vertices (input index -> 0..nv-1), the faces' planes (Newell's
 * normal of the loop, d the mean over its vertices), the edges */
static rc_status finish(rcc_hull3 *h, const double *P)
{
    h->nv = 0;
    for (int j = 0; j < h->fstart[h->nf]; j++) {
        const int i = h->loop[j];
        int k = 0;
        while (k < h->nv && h->src[k] != i) k++;
        if (k == h->nv) {
            if (h->nv == RCC_HULL3_MAX_V)
                return rc_set_error(RC_ERR_ARG, "convex hull: more than %d vertices (a polyhedron has at most %d)",
                                    RCC_HULL3_MAX_V, RCC_HULL3_MAX_V);
            h->src[h->nv] = i;
            memcpy(h->v + 3 * h->nv, P + 3 * i, 3 * sizeof(double));
            h->nv++;
        }
        h->loop[j] = k;
    }
    h->ne = 0;
    for (int f = 0; f < h->nf; f++) {
        const int s = h->fstart[f], len = h->fstart[f + 1] - s;
        double *pl = h->plane + 4 * f, d = 0.0;
        if (len < 3) return rc_set_error(RC_ERR_ARG, "convex hull: a face with %d vertices (points too degenerate for tol)", len);
        pl[0] = pl[1] = pl[2] = 0.0;
        for (int k = 0; k < len; k++) {
            const double *a = h->v + 3 * h->loop[s + k], *b = h->v + 3 * h->loop[s + (k + 1) % len];
            pl[0] += (a[1] - b[1]) * (a[2] + b[2]);
            pl[1] += (a[2] - b[2]) * (a[0] + b[0]);
            pl[2] += (a[0] - b[0]) * (a[1] + b[1]);
        }
        const double s2 = norm3(pl);
        for (int i = 0; i < 3; i++) pl[i] /= s2;
        for (int k = 0; k < len; k++) d += dot3(pl, h->v + 3 * h->loop[s + k]);
        pl[3] = d / len;
        for (int k = 0; k < len; k++) {   /* edge a -> b of face f: new, or the reverse of one seen */
            const int a = h->loop[s + k], b = h->loop[s + (k + 1) % len];
            int e = 0;
            while (e < h->ne && !(h->edge[4 * e] == b && h->edge[4 * e + 1] == a && h->edge[4 * e + 3] < 0)) e++;
            if (e < h->ne) { h->edge[4 * e + 3] = f; continue; }
            if (h->ne == RCC_HULL3_MAX_E) return rc_set_error(RC_ERR_ARG, "convex hull: too many edges");
            int *E = h->edge + 4 * h->ne++;
            E[0] = a; E[1] = b; E[2] = f; E[3] = -1;
        }
    }
    int open = h->nv - h->ne + h->nf != 2;   /* Euler: V - E + F = 2 */
    for (int e = 0; e < h->ne; e++) open |= h->edge[4 * e + 3] < 0;
    if (open) return rc_set_error(RC_ERR_ARG, "convex hull: the faces do not close (points too degenerate for tol)");
    return RC_OK;
}

rc_status rcc_hull3_build(const double *pts, int n, double tol, rcc_hull3 *h)
{
    memset(h, 0, sizeof *h);
    if (n < 4) return rc_set_error(RC_ERR_ARG, "convex hull: %d points (at least 4, not all in a plane)", n);
    double lo[3], hi[3];
    for (int i = 0; i < 3 * n; i++)
        if (!rcb_finite(pts[i])) return rc_set_error(RC_ERR_ARG, "convex hull: point %d has a non-finite coordinate", i / 3 + 1);
    for (int k = 0; k < 3; k++) { lo[k] = hi[k] = pts[k]; }
    for (int i = 1; i < n; i++)
        for (int k = 0; k < 3; k++) { lo[k] = fmin(lo[k], pts[3 * i + k]); hi[k] = fmax(hi[k], pts[3 * i + k]); }
    double ext[3];
    sub3(hi, lo, ext);
    if (!(tol > 0.0)) tol = 1e-9 * norm3(ext);
    RC_CHECK(first_tetrahedron(h, pts, n, tol));
    for (;;) {
        int t = -1;
        const int p = farthest_outside(h, pts, n, tol, &t);
        if (p < 0) break;
        RC_CHECK(add_point(h, pts, p, t, tol));
    }
    int group[RCC_HULL3_MAX_T];
    group_coplanar(h, pts, tol, group);
    RC_CHECK(chain_loops(h, group));
    drop_straight(h, pts, tol);
    RC_CHECK(finish(h, pts));
    for (int i = 0; i < n; i++) {   /* what became of the other points */
        int k = 0;
        while (k < h->nv && h->src[k] != i) k++;
        if (k < h->nv) continue;
        double dmax = -INFINITY;
        for (int f = 0; f < h->nf; f++) dmax = fmax(dmax, dot3(h->plane + 4 * f, pts + 3 * i) - h->plane[4 * f + 3]);
        if (dmax < -tol) h->interior++; else h->merged++;
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- mass */

void rcc_hull3_mass(const rcc_hull3 *h, double *V, double c[3], double J[9])
{
    double o[3] = { 0.0, 0.0, 0.0 }, vol = 0.0, s1[3] = { 0.0, 0.0, 0.0 }, C[9] = { 0 };
    for (int i = 0; i < h->nv; i++)
        for (int k = 0; k < 3; k++) o[k] += h->v[3 * i + k] / h->nv;
    for (int f = 0; f < h->nf; f++) {
        const int s = h->fstart[f], len = h->fstart[f + 1] - s;
        for (int k = 1; k + 1 < len; k++) {   /* the tetrahedron (o, a, b, c) of a fan triangle */
            double a[3], b[3], cc[3], bxc[3], sum[3];
            sub3(h->v + 3 * h->loop[s], o, a);
            sub3(h->v + 3 * h->loop[s + k], o, b);
            sub3(h->v + 3 * h->loop[s + k + 1], o, cc);
            cross3(b, cc, bxc);
            const double det = dot3(a, bxc);
            vol += det / 6.0;
            for (int i = 0; i < 3; i++) { sum[i] = a[i] + b[i] + cc[i]; s1[i] += det / 24.0 * sum[i]; }
            for (int i = 0; i < 3; i++)   /* int x x^T over the tetrahedron: det/120 (a a' + b b' + c c' + s s') */
                for (int j = 0; j < 3; j++)
                    C[3 * i + j] += det / 120.0 * (a[i] * a[j] + b[i] * b[j] + cc[i] * cc[j] + sum[i] * sum[j]);
        }
    }
    *V = vol;
    double m[3];
    for (int i = 0; i < 3; i++) { m[i] = s1[i] / vol; c[i] = o[i] + m[i]; }
    for (int i = 0; i < 3; i++)   /* about the centroid */
        for (int j = 0; j < 3; j++) C[3 * i + j] -= vol * m[i] * m[j];
    const double tr = C[0] + C[4] + C[8];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) J[3 * i + j] = (i == j ? tr : 0.0) - C[3 * i + j];
}
