/* narrow_phase.c -- the narrowphase: one candidate pair's contacts (gap gN,
 * normal n from A to B, point, feature, Jacobian rows), by shape kinds, and
 * the pass over the sorted candidates that fills w->contacts (collide.c has
 * the overview). */
#include "collide/collide_impl.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------- helpers */

static double cross(double ax, double ay, double bx, double by) { return ax * by - ay * bx; }

/* Closest point k of segment a-b to x; unit normal n = (x - k)/|x - k|, or the
 * segment's left normal when x lies on it; returns |x - k|. */
static double segment_normal(const double a[2], const double b[2], const double x[2], double n[2])
{
    double ex = b[0] - a[0], ey = b[1] - a[1], ee = ex * ex + ey * ey;
    double s = ee > 0.0 ? ((x[0] - a[0]) * ex + (x[1] - a[1]) * ey) / ee : 0.0;
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    double dx = x[0] - (a[0] + s * ex), dy = x[1] - (a[1] + s * ey), d = hypot(dx, dy);
    if (d > 1e-300) { n[0] = dx / d; n[1] = dy / d; }
    else if (ee > 0.0) { double e = sqrt(ee); n[0] = -ey / e; n[1] = ex / e; }
    else { n[0] = 0.0; n[1] = 1.0; }
    return d;
}

/* Vertex x against convex polygon P by its edge lines: s = max_e N_e.(x - x_e),
 * *edge = argmax. Returns whether the projection of x on that edge lies within
 * the edge extended by m on both sides. */
static int vertex_edge(const rc_shape *P, const double x[2], double m, int *edge, double *s)
{
    int e = 0;
    double best = -INFINITY;
    for (int i = 0; i < P->nvert; i++) {
        double si = P->wnorm[i][0] * (x[0] - P->wvert[i][0]) + P->wnorm[i][1] * (x[1] - P->wvert[i][1]);
        if (si > best) { best = si; e = i; }
    }
    const double *a = P->wvert[e], *b = P->wvert[(e + 1) % P->nvert];
    double ex = b[0] - a[0], ey = b[1] - a[1], L = hypot(ex, ey);
    double pr = L > 0.0 ? ((x[0] - a[0]) * ex + (x[1] - a[1]) * ey) / L : 0.0;
    *edge = e;
    *s = best;
    return pr >= -m && pr <= L + m;
}

/* ---------------------------------------------------------------- narrowphase */

typedef struct pair_ctx {
    rc_world *w;
    int sa, sb;
    const rc_shape *A, *B;
    int all;            /* named pair: every feature, whatever the gap */
    double m;           /* contact margin                              */
    double dx;          /* periodic boundary: B is the image of shape sb moved by dx in x */
    rc_status st;
    rc_contact *buf;    /* NULL: the contacts go to w->contacts; else to buf (a team's */
    int nbuf, capbuf;   /* second thread, narrow_all), at most capbuf of them         */
    int full;           /* buf ran out of room: the pair is done again by the caller   */
} pair_ctx;

/* the contacts written so far, and the i-th of them */
static int out_count(const pair_ctx *p) { return p->buf ? p->nbuf : p->w->ncontacts; }
static rc_contact *out_at(const pair_ctx *p, int i) { return p->buf ? &p->buf[i] : &p->w->contacts[i]; }
static void out_truncate(pair_ctx *p, int n)
{
    if (p->buf) p->nbuf = n;
    else p->w->ncontacts = n;
}

/* Jacobian rows of one side: sign * [n, r x n; t, r x t], r = point - x_body,
 * the body moved by dx in x (the periodic image B touches). */
static void jac_side(const rc_world *w, int body, const rc_contact *c, double sign, double dx, double Hr[2])
{
    if (body == RC_GROUND) return;             /* rows stay zero */
    const double *q = w->q + w->bodies[body].iq;
    double rx = c->point[0] - (q[0] + dx), ry = c->point[1] - q[1];
    /* the rotational column; the rows' first two columns are sign * n, sign * t
     * (rcm_contact_jacobian), t = (n_y, -n_x) */
    Hr[0] = sign * cross(rx, ry, c->n[0], c->n[1]);
    Hr[1] = sign * cross(rx, ry, c->n[1], -c->n[0]);
}

static void emit(pair_ctx *p, int feature, double gN, const double n[2], const double point[2])
{
    static const rc_contact zero;
    if (p->st != RC_OK || p->full || (!p->all && !(gN <= p->m))) return;
    rc_world *w = p->w;
    rc_contact *c;
    if (p->buf) {   /* a bounded buffer: no allocation off the calling thread */
        if (p->nbuf == p->capbuf) { p->full = 1; return; }
        c = &p->buf[p->nbuf++];
    } else {
        p->st = rcb_reserve((void **)&w->contacts, &w->cap_contacts, w->ncontacts + 1, sizeof(rc_contact));
        if (p->st != RC_OK) return;
        c = &w->contacts[w->ncontacts++];
    }
    *c = zero;
    c->gap = -1;
    c->key = rcm_contact_key(p->sa, p->sb, feature);
    c->shape_a = p->sa; c->shape_b = p->sb;
    c->body_a = p->A->body; c->body_b = p->B->body;
    c->feature = feature;
    c->point[0] = point[0]; c->point[1] = point[1];
    c->n[0] = n[0]; c->n[1] = n[1];
    c->gN = gN;
    jac_side(w, c->body_b, c, 1.0, p->dx, c->Hr[1]);
    jac_side(w, c->body_a, c, -1.0, 0.0, c->Hr[0]);
}

/* disk/point B vs half-plane A (P, N): gN = N.(c - P) - r, n = N, point = c - r N. */
static void round_half(pair_ctx *p)
{
    const rc_shape *H = p->A, *D = p->B;
    const double *N = H->normal, *c = D->wc;
    double r = round_radius(D);
    double gN = N[0] * (c[0] - H->point[0]) + N[1] * (c[1] - H->point[1]) - r;
    double pt[2] = { c[0] - r * N[0], c[1] - r * N[1] };
    emit(p, 0, gN, N, pt);
}

/* disk/point B vs segment A (a-b, radius s): k = closest point of a-b to c,
 * gN = |c - k| - r - s, n = (c - k)/|c - k|, point = c - r n. */
static void round_seg(pair_ctx *p)
{
    const rc_shape *S = p->A, *D = p->B;
    double n[2], r = round_radius(D);
    double gN = segment_normal(S->a, S->b, D->wc, n) - r - S->radius;
    double pt[2] = { D->wc[0] - r * n[0], D->wc[1] - r * n[1] };
    emit(p, 0, gN, n, pt);
}

/* disk/point pair: d = c_B - c_A, gN = |d| - r_A - r_B, n = d/|d| ((0,1) if
 * d = 0), point = midpoint of the surface points c_A + r_A n, c_B - r_B n. */
static void round_round(pair_ctx *p)
{
    const double *ca = p->A->wc, *cb = p->B->wc;
    double ra = round_radius(p->A), rb = round_radius(p->B);
    double dx = cb[0] - ca[0], dy = cb[1] - ca[1], d = sqrt(dx * dx + dy * dy);
    double n[2] = { 0.0, 1.0 };
    if (d >= 1e-300) { n[0] = dx / d; n[1] = dy / d; }
    double pt[2] = { 0.5 * (ca[0] + cb[0] + (ra - rb) * n[0]), 0.5 * (ca[1] + cb[1] + (ra - rb) * n[1]) };
    emit(p, 0, d - ra - rb, n, pt);
}

/* disk/point D vs polygon P. Outside: k = closest boundary point, gN = |c - k| - r,
 * nP = (c - k)/|c - k|. Inside: edge e of largest s_e = N_e.(c - x_e) (least
 * penetration), gN = s_e - r, nP = N_e. nP points from P to D, so n = nP if P
 * is A and -nP otherwise; point = c - r nP. */
static void round_poly(pair_ctx *p)
{
    int poly_a = p->A->type == RC_SHAPE_POLYGON;
    const rc_shape *P = poly_a ? p->A : p->B, *D = poly_a ? p->B : p->A;
    const double *c = D->wc;
    double r = round_radius(D), nP[2] = { 0.0, 1.0 }, dist;
    int e;
    vertex_edge(P, c, 0.0, &e, &dist);
    if (dist <= 0.0) {
        nP[0] = P->wnorm[e][0]; nP[1] = P->wnorm[e][1];
    } else {
        dist = INFINITY;
        for (int i = 0; i < P->nvert; i++) {
            double ni[2], di = segment_normal(P->wvert[i], P->wvert[(i + 1) % P->nvert], c, ni);
            if (di < dist) { dist = di; nP[0] = ni[0]; nP[1] = ni[1]; }
        }
    }
    double sg = poly_a ? 1.0 : -1.0, n[2] = { sg * nP[0], sg * nP[1] };
    double pt[2] = { c[0] - r * nP[0], c[1] - r * nP[1] };
    emit(p, 0, dist - r, n, pt);
}

/* polygon B vs half-plane A: per vertex i, gN = N.(x_i - P), n = N, point = x_i. */
static void poly_half(pair_ctx *p)
{
    const rc_shape *H = p->A, *P = p->B;
    for (int i = 0; i < P->nvert; i++) {
        const double *x = P->wvert[i];
        emit(p, i, H->normal[0] * (x[0] - H->point[0]) + H->normal[1] * (x[1] - H->point[1]), H->normal, x);
    }
}

/* A point x against the circular wall W (centre C, radius R, solid outside):
 * d = x - C, gN = R - |d| (the gap of the point; a disk subtracts its radius),
 * n = -d/|d| (inward, from the wall to the body: dgN/dx = n); at the centre,
 * where every direction is as far from the wall, d/|d| = (0, -1). */
static double circle_inside_normal(const rc_shape *W, const double x[2], double n[2])
{
    double dx = x[0] - W->offset[0], dy = x[1] - W->offset[1], d = hypot(dx, dy);
    n[0] = 0.0; n[1] = 1.0;
    if (d >= 1e-300) { n[0] = -dx / d; n[1] = -dy / d; }
    return W->radius - d;
}

/* disk/point B vs circular wall A (centre C, radius R): gN = R - r - |c - C|,
 * n = (C - c)/|c - C| (towards the centre), point = c - r n (the body's
 * surface point on the ray from C through c, where it meets the wall). */
static void round_cin(pair_ctx *p)
{
    const rc_shape *D = p->B;
    const double *c = D->wc, r = round_radius(D);
    double n[2], gN = circle_inside_normal(p->A, c, n) - r;
    double pt[2] = { c[0] - r * n[0], c[1] - r * n[1] };
    emit(p, 0, gN, n, pt);
}

/* polygon B vs circular wall A: per vertex i, gN = R - |x_i - C|,
 * n = (C - x_i)/|x_i - C|, point = x_i. */
static void poly_cin(pair_ctx *p)
{
    const rc_shape *P = p->B;
    for (int i = 0; i < P->nvert; i++) {
        double n[2], gN = circle_inside_normal(p->A, P->wvert[i], n);
        emit(p, i, gN, n, P->wvert[i]);
    }
}

/* Does segment a-b cross the inside of convex polygon P, both ends outside (or on its boundary)?
 * (Its part inside the edges' half-planes, t in [t0, t1], is not empty.) */
static int segment_crosses(const rc_shape *P, const double a[2], const double b[2])
{
    double t0 = 0.0, t1 = 1.0;
    int a_out = 0, b_out = 0;
    for (int e = 0; e < P->nvert; e++) {
        const double *N = P->wnorm[e], *x = P->wvert[e];
        const double sa = N[0] * (a[0] - x[0]) + N[1] * (a[1] - x[1]), sb = N[0] * (b[0] - x[0]) + N[1] * (b[1] - x[1]);
        /* an end on an edge's line counts as outside (a segment starting on a
         * polygon's edge and running into it crosses it) */
        if (sa >= 0.0 && sb >= 0.0) return 0;
        if (sa >= 0.0) { a_out = 1; t0 = fmax(t0, sa / (sa - sb)); }           /* enters here */
        else if (sb >= 0.0) { b_out = 1; t1 = fmin(t1, sa / (sa - sb)); }      /* leaves here */
    }
    return a_out && b_out && t0 < t1;
}

/* polygon B vs segment A (radius s).
 * Features 0..nvert-1, vertex x_i vs the segment: gN = |x_i - k| - s with k the
 * closest point of the segment, n = (x_i - k)/|x_i - k|, point = x_i.
 * A polygon lying across the segment (the segment crosses its inside, both
 * ends outside: a thin segment went into it) has vertices on both sides of
 * the segment's line L (unit normal nL): those on the side of its smaller
 * extent from L are inside it, gN = sigma nL.(x_i - a) - s < 0 with n = sigma nL,
 * sigma the side of its larger extent (the way out).
 * Features nvert, nvert+1, end point a, b vs the polygon's edge lines:
 * gN = max_e N_e.(a - x_e) - s, n = -N_e, point = a + s n (on the capsule);
 * kept when the end projects onto that edge (within the margin) or lies
 * inside the polygon (a sliver's nearest edge line may belong to an edge
 * the end does not face: its depth is still the penetration). */
static void poly_seg(pair_ctx *p)
{
    const rc_shape *S = p->A, *P = p->B;
    double nL[2] = { 0.0, 0.0 }, sigma = 0.0;
    if (segment_crosses(P, S->a, S->b)) {
        const double ex = S->b[0] - S->a[0], ey = S->b[1] - S->a[1], L = hypot(ex, ey);
        double up = 0.0, down = 0.0;
        nL[0] = -ey / L;
        nL[1] = ex / L;
        for (int i = 0; i < P->nvert; i++) {
            const double d = nL[0] * (P->wvert[i][0] - S->a[0]) + nL[1] * (P->wvert[i][1] - S->a[1]);
            up = fmax(up, d);
            down = fmax(down, -d);
        }
        sigma = up >= down ? 1.0 : -1.0;
    }
    for (int i = 0; i < P->nvert; i++) {
        double n[2], gN = segment_normal(S->a, S->b, P->wvert[i], n) - S->radius;
        const double d = sigma * (nL[0] * (P->wvert[i][0] - S->a[0]) + nL[1] * (P->wvert[i][1] - S->a[1]));
        if (sigma != 0.0 && d < 0.0) {   /* across the line, inside: the way out is sigma nL */
            n[0] = sigma * nL[0];
            n[1] = sigma * nL[1];
            gN = d - S->radius;
        }
        emit(p, i, gN, n, P->wvert[i]);
    }
    const double *ends[2] = { S->a, S->b };
    for (int j = 0; j < 2; j++) {
        int e;
        double s;
        int within = vertex_edge(P, ends[j], p->m, &e, &s);
        if (!p->all && !within && s > 0.0) continue;   /* an end inside the polygon: always */
        double n[2] = { -P->wnorm[e][0], -P->wnorm[e][1] };
        double pt[2] = { ends[j][0] + S->radius * n[0], ends[j][1] + S->radius * n[1] };
        emit(p, P->nvert + j, s - S->radius, n, pt);
    }
}

/* polygon A vs polygon B, vertex against edge lines both ways (named pairs:
 * every feature, whatever the gap).
 * Vertex x_i of A (feature i): gN = max_e N^B_e.(x_i - x^B_e), n = -N^B_e.
 * Vertex y_j of B (feature nA + j): gN = max_e N^A_e.(y_j - x^A_e), n = N^A_e.
 * point = the vertex. gN is exact for a penetrating vertex and a lower bound
 * of the distance outside. */
static void poly_poly_all(pair_ctx *p)
{
    for (int side = 0; side < 2; side++) {
        const rc_shape *V = side ? p->B : p->A, *E = side ? p->A : p->B;
        double sg = side ? 1.0 : -1.0;
        int f0 = side ? p->A->nvert : 0;
        for (int i = 0; i < V->nvert; i++) {
            int e;
            double s;
            (void)vertex_edge(E, V->wvert[i], p->m, &e, &s);
            double n[2] = { sg * E->wnorm[e][0], sg * E->wnorm[e][1] };
            emit(p, f0 + i, s, n, V->wvert[i]);
        }
    }
}

/* Separation of polygon Q from polygon P along P's edge normals: the largest
 * over P's edges e of min over Q's vertices of N_e.(y - x_e); *edge = argmax. */
static double poly_separation(const rc_shape *P, const rc_shape *Q, int *edge)
{
    double best = -INFINITY;
    *edge = 0;
    for (int e = 0; e < P->nvert; e++) {
        const double *N = P->wnorm[e], *x = P->wvert[e];
        double lo = INFINITY;
        for (int j = 0; j < Q->nvert; j++) {
            double d = N[0] * (Q->wvert[j][0] - x[0]) + N[1] * (Q->wvert[j][1] - x[1]);
            if (d < lo) lo = d;
        }
        if (lo > best) { best = lo; *edge = e; }
    }
    return best;
}

/* polygon A vs polygon B: one normal per pair, up to two points (reference-
 * face clipping, as Box2D's b2CollidePolygons, written for our features).
 * The reference face is the edge of largest separation over the edge
 * normals of both polygons (B's only when larger by 1e-3 of the margin, so
 * that the choice does not flicker); the incident edge is, of the two edges
 * at the other polygon's deepest vertex along -N, the one whose normal is
 * most opposed to N; it is clipped to the reference face (an end beyond it
 * is cut at the face's end). An end that is an incident vertex is that
 * vertex against the face: its feature (A's i: i, B's j: nA + j), point =
 * the vertex, n = N (from A to B) or -N, gN = N.(x - x_ref); an end cut at
 * the face's end is that reference vertex against the incident edge's line:
 * the vertex's feature and point, the edge's normal, gN its distance to the
 * line. Both are exact gap functions of the vertex-edge kind (their
 * Jacobians are the contact's H), a contact keeps its key while the
 * polygons slide, and the two points of an edge-to-edge contact lie at the
 * ends of the common segment. Each end with gN within the margin is a
 * contact. Two vertex-edge contacts at one corner (a corner against a
 * corner), which vertex-edge tests both ways give, do not occur: they would
 * double the friction cone there and stall Gauss--Seidel on the
 * indeterminate split. */
static void poly_poly_face(pair_ctx *p, int ea, int eb, int flip, int missed)
{
    const rc_shape *R = flip ? p->B : p->A, *I = flip ? p->A : p->B;
    const int er = flip ? eb : ea, fR = flip ? p->A->nvert : 0, fI = flip ? 0 : p->A->nvert;
    const double *N = R->wnorm[er], *r1 = R->wvert[er], *r2 = R->wvert[(er + 1) % R->nvert];
    /* the incident edge: at I's deepest vertex along -N, the more opposed of its two edges */
    int deep = 0;
    double dmin = INFINITY;
    for (int j = 0; j < I->nvert; j++) {
        double d = N[0] * I->wvert[j][0] + N[1] * I->wvert[j][1];
        if (d < dmin) { dmin = d; deep = j; }
    }
    const int prev = (deep + I->nvert - 1) % I->nvert;
    const int ei = N[0] * I->wnorm[prev][0] + N[1] * I->wnorm[prev][1]
                 < N[0] * I->wnorm[deep][0] + N[1] * I->wnorm[deep][1] ? prev : deep;
    const double *x[2] = { I->wvert[ei], I->wvert[(ei + 1) % I->nvert] };   /* the incident edge */
    /* positions along the face r1 -> r2 (length lf) */
    const double lf = hypot(r2[0] - r1[0], r2[1] - r1[1]);
    if (!(lf > 0.0)) return;
    const double tx = (r2[0] - r1[0]) / lf, ty = (r2[1] - r1[1]) / lf;
    const double t[2] = { (x[0][0] - r1[0]) * tx + (x[0][1] - r1[1]) * ty,
                          (x[1][0] - r1[0]) * tx + (x[1][1] - r1[1]) * ty };
    /* I's deepest vertex against the face's line: its gap is the separation
     * along N. 'missed': the polygons overlap (the separation is negative
     * along every axis, below -1e-9 of their size: not round-off, as boxes
     * resting flush in a stack; not only the face's line crossed, as a box
     * tilted by 1e-5 on a box with its corner beyond the face's end) with the
     * face of largest separation itself (not one kept by the hysteresis:
     * that one gives way to the other axis once the overlap exceeds it) */
    const double sg = flip ? -1.0 : 1.0, *xd = I->wvert[deep];
    const double n_face[2] = { sg * N[0], sg * N[1] };
    const double g_deep = N[0] * (xd[0] - r1[0]) + N[1] * (xd[1] - r1[1]);
    /* beside the face: a corner passing a corner, a contact once they overlap
     * and the axis of largest separation changes -- or, when it is already
     * that axis (a short reference face between two nearly parallel edges of
     * a skinny polygon), the deepest vertex */
    if ((t[0] < 0.0 && t[1] < 0.0) || (t[0] > lf && t[1] > lf)) {
        if (missed) emit(p, fI + deep, g_deep, n_face, xd);
        return;
    }
    /* each end: over the face, the incident vertex (cut = 0); beyond it, the
     * face's end vertex (cut = 1) unless the other end lies on that vertex */
    int feat[2], cut[2], keep[2] = { 1, 1 };
    for (int k = 0; k < 2; k++) {
        cut[k] = t[k] < 0.0 || t[k] > lf;
        feat[k] = fI + (ei + k) % I->nvert;
        if (!cut[k]) continue;
        const double f = t[k] < 0.0 ? 0.0 : lf;
        keep[k] = (t[1 - k] - f) * (t[k] - f) < 0.0;
        feat[k] = fR + (f == 0.0 ? er : (er + 1) % R->nvert);
    }
    const double *NI = I->wnorm[ei], *xi = x[0];
    double g[2];
    for (int k = 0; k < 2; k++) {
        const double *rv = cut[k] ? R->wvert[feat[k] - fR] : NULL;
        g[k] = !cut[k] ? N[0] * (x[k][0] - r1[0]) + N[1] * (x[k][1] - r1[1])      /* vertex vs the face */
                       : NI[0] * (rv[0] - xi[0]) + NI[1] * (rv[1] - xi[1]);       /* face's end vs the edge */
    }
    /* overlapping, yet no end inside (both cut at the ends of a short face, the
     * incident edge passing under it): the deepest vertex alone */
    if (missed && !(keep[0] && g[0] < 0.0) && !(keep[1] && g[1] < 0.0)) {
        emit(p, fI + deep, g_deep, n_face, xd);
        return;
    }
    const int first = feat[0] < feat[1] ? 0 : 1;   /* features in increasing order (sorted keys) */
    for (int kk = 0; kk < 2; kk++) {
        const int k = kk ? 1 - first : first;
        if (!keep[k]) continue;
        if (!cut[k]) {   /* incident vertex against the reference face */
            emit(p, feat[k], g[k], n_face, x[k]);
        } else {         /* the reference vertex against the incident edge's line */
            const double n[2] = { -sg * NI[0], -sg * NI[1] };
            emit(p, feat[k], g[k], n, R->wvert[feat[k] - fR]);
        }
    }
}

/* The reference face is the edge of largest separation, kept on A's side
 * while B's is not larger by 1e-3 of the margin (no flicker between the two
 * faces of boxes resting flush). 'missed' (poly_poly_face): the polygons
 * overlap (the separation is negative along every axis, below -1e-9 of
 * their size: not round-off, as boxes resting flush in a stack; not only the
 * face's line crossed, as a box tilted by 1e-5 on a box with its corner
 * beyond the face's end) with the face of largest separation itself (not one
 * kept by the hysteresis: that one gives way to the other axis once the
 * overlap exceeds it). When the two axes are equally deep (a sliver's short
 * face and the other polygon's face at one depth, 1e-13 apart: the kept
 * face never gives way) and the kept face gives no penetrating contact, the
 * other face is the reference. */
static void poly_poly(pair_ctx *p)
{
    if (p->all) { poly_poly_all(p); return; }
    int ea, eb;
    const double sa = poly_separation(p->A, p->B, &ea), sb = poly_separation(p->B, p->A, &eb);
    if ((sa > sb ? sa : sb) > p->m) return;
    const int flip = sb > sa + 1e-3 * p->m, exact = (sb > sa) == flip;
    const int overlap = (sa > sb ? sa : sb) < -1e-9 * fmax(p->A->bound, p->B->bound);
    const int n0 = out_count(p);
    poly_poly_face(p, ea, eb, flip, overlap && exact);
    if (!overlap || exact || p->st != RC_OK || p->full) return;
    for (int i = n0; i < out_count(p); i++)
        if (out_at(p, i)->gN < 0.0) return;
    out_truncate(p, n0);   /* none penetrates: the other face */
    poly_poly_face(p, ea, eb, !flip, 1);
}

static void narrow(pair_ctx *p)
{
    int ka = rcm_shape_kind(p->A), kb = rcm_shape_kind(p->B);
    if (ka == RC_SK_HALF) { if (kb == RC_SK_ROUND) round_half(p); else if (kb == RC_SK_POLY) poly_half(p); }
    else if (ka == RC_SK_SEG) { if (kb == RC_SK_ROUND) round_seg(p); else if (kb == RC_SK_POLY) poly_seg(p); }
    else if (ka == RC_SK_CIN) { if (kb == RC_SK_ROUND) round_cin(p); else if (kb == RC_SK_POLY) poly_cin(p); }
    else if (ka == RC_SK_ROUND && kb == RC_SK_ROUND) round_round(p);
    else if ((ka == RC_SK_ROUND && kb == RC_SK_POLY) || (ka == RC_SK_POLY && kb == RC_SK_ROUND)) round_poly(p);
    else if (ka == RC_SK_POLY && kb == RC_SK_POLY) poly_poly(p);
}

/* ---------------------------------------------------------------- detection */

/* The image of shape s moved by dx in x (world-frame caches only; polygon
 * vertices into vert, edge normals shared). */
static const rc_shape *shift_shape(const rc_shape *s, double dx, rc_shape *image,
                                   double (*vert)[2])
{
    *image = *s;
    image->wc[0] += dx;
    if (s->type == RC_SHAPE_POLYGON) {
        for (int i = 0; i < s->nvert; i++) { vert[i][0] = s->wvert[i][0] + dx; vert[i][1] = s->wvert[i][1]; }
        image->wvert = vert;
    }
    return image;
}


/* The narrowphase of pairs lo .. hi - 1 into the list of tpl (w->contacts,
 * or a bounded buffer: then it stops before the first pair that does not fit
 * and returns that pair's index, hi when all fit); *st: the status. */
static int narrow_range(rc_world *w, double L, int lo, int hi, pair_ctx *tpl, rc_status *st)
{
    *st = RC_OK;
    for (int k = lo; k < hi; k++) {
        if (k + PREFETCH_AHEAD < hi) {   /* the shapes of a coming pair: kind and centre */
            const char *a = (const char *)&w->shapes[w->pairs[2 * (k + PREFETCH_AHEAD)]];
            const char *b = (const char *)&w->shapes[w->pairs[2 * (k + PREFETCH_AHEAD) + 1] >> 1];
            PREFETCH(a); PREFETCH(a + offsetof(rc_shape, wc));
            PREFETCH(b); PREFETCH(b + offsetof(rc_shape, wc));
        }
        int sa = w->pairs[2 * k], sb = w->pairs[2 * k + 1] >> 1;
        pair_ctx p = *tpl;
        p.sa = sa; p.sb = sb; p.A = &w->shapes[sa]; p.B = &w->shapes[sb];
        p.all = !(w->pairs[2 * k + 1] & 1);
        p.dx = 0.0;
        rc_shape image;
        double image_vert[RC_MAX_POLYGON_VERTICES][2];
        if (L > 0.0 && p.A->type != RC_SHAPE_HALFPLANE && p.A->type != RC_SHAPE_CIRCLE_INSIDE) {   /* periodic: B's nearest image */
            double ba[4], bb[4];
            rcc_shape_aabb(p.A, ba);
            rcc_shape_aabb(p.B, bb);
            p.dx = image_shift(L, 0.5 * (ba[0] + ba[2]), 0.5 * (bb[0] + bb[2]));
            if (p.dx != 0.0) p.B = shift_shape(p.B, p.dx, &image, image_vert);
        }
        const int c0 = out_count(&p);
        narrow(&p);
        tpl->nbuf = p.nbuf;
        if (p.st != RC_OK) { *st = p.st; return k; }
        if (p.full) { tpl->nbuf = c0; return k; }   /* the caller does this pair and the rest */
        if (out_count(&p) == c0) continue;
        int law = rcm_world_law_for(w, sa, sb);
        if (law == RC_NO_CONTACT) { out_truncate(&p, c0); tpl->nbuf = p.nbuf; continue; }
        for (int c = c0; c < out_count(&p); c++) out_at(&p, c)->law = law;
    }
    return hi;
}

/* The narrowphase of the sorted candidate pairs (duplicates dropped). With
 * solver.threads > 1 and enough pairs, two threads: the first half of the
 * pairs into w->contacts, the second into a buffer from the step's work
 * memory (sized from the contact list's capacity), appended after: the
 * contacts in the one-thread order, bit for bit. Pairs that did not fit
 * in the buffer are done after, on this thread. */
static rc_status narrow_all(rc_world *w, double m)
{
    const double L = rcm_periodic(w) ? w->def.periodic_x[1] - w->def.periodic_x[0] : 0.0;
    /* the next detection's first block of pairs: room for half as many more
     * candidates as this one's (and 32): the pair count wanders from step to
     * step and creeps up while a pile settles */
    w->room_pairs = 3 * w->npairs + 64;
    int np = 0;
    for (int k = 0; k < w->npairs; k++) {      /* drop duplicates, keep the named copy */
        const int *x = w->pairs + 2 * k;
        if (np > 0 && w->pairs[2 * np - 2] == x[0] && w->pairs[2 * np - 1] >> 1 == x[1] >> 1) continue;
        w->pairs[2 * np] = x[0];
        w->pairs[2 * np + 1] = x[1];
        np++;
    }
    w->npairs = np;
    pair_ctx main_ctx = { w, 0, 0, NULL, NULL, 0, m, 0.0, RC_OK, NULL, 0, 0, 0 };
    rc_status st = RC_OK;
    int from = 0;
#ifdef _OPENMP
    const int team = rcm_team2(w, 2LL * np);   /* a pair weighs two shapes (model/team.h) */
    if (team) {
        const int mid = np / 2;
        pair_ctx second = main_ctx;
        second.capbuf = rcc_team_cap > 0 ? rcc_team_cap : w->cap_contacts / 2 + w->cap_contacts / 8 + 64;
        RC_CHECK(rcb_arena_array(&w->work, (void **)&second.buf, second.capbuf, sizeof(rc_contact), "narrowphase"));
        rc_status s0 = RC_OK, s1 = RC_OK;
        int stop = np;
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) (void)narrow_range(w, L, 0, mid, &main_ctx, &s0);
            else if (omp_get_thread_num() == 1) stop = narrow_range(w, L, mid, np, &second, &s1);
        }
        RC_CHECK(s0);   /* s1 is RC_OK: a bounded buffer does not allocate */
        (void)s1;
        if (second.nbuf > 0) {
            RC_CHECK(rcb_reserve((void **)&w->contacts, &w->cap_contacts, w->ncontacts + second.nbuf, sizeof(rc_contact)));
            rc_contact *dst = w->contacts + w->ncontacts;
            const int nb = second.nbuf, h = nb / 2;   /* the copy by halves, one per thread */
#pragma omp parallel for num_threads(2) schedule(static, 1)
            for (int t = 0; t < 2; t++)
                memcpy(dst + (t ? h : 0), second.buf + (t ? h : 0), (size_t)(t ? nb - h : h) * sizeof(rc_contact));
            w->ncontacts += second.nbuf;
        }
        from = stop;
    }
#endif
    (void)narrow_range(w, L, from, np, &main_ctx, &st);
    return st;
}

rc_status rcc_narrow_pairs(rc_world *w)
{
    /* Broadphase inflation 1.5 m > sqrt(2) m: a polygon vertex kept by the
     * edge-line test lies within sqrt(2) m of the other polygon. */
    double m = w->detect_margin > w->def.contact_margin ? w->detect_margin : w->def.contact_margin, bm = 1.5 * m;
    /* the grid, the pairs and the sort's scratch in the step's work memory,
     * given back after the narrowphase: the solver's work reuses the bytes */
    const rcb_arena_mark mark = rcb_arena_mark_now(&w->work);
    w->pairs = NULL;
    w->cap_pairs = 0;
    rc_status s = rcc_grid_pairs(w, m, bm);
    if (s == RC_OK) s = rcc_named_pairs(w);
    if (s == RC_OK) s = rcc_sort_pairs(w);
    if (s == RC_OK) s = narrow_all(w, m);
    rcb_arena_release(&w->work, mark);
    w->order = w->pairs = NULL;
    w->cap_order = w->cap_pairs = 0;
    return s;
}
