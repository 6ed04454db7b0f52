/*
 * collide.c -- contact detection at q_k (planar, dim = 2).
 *
 *   rc_collide_update_shapes: world-frame caches (centres; polygons: vertices,
 *     outward edge normals, AABB) from w->q.
 *   rc_collide_detect: broadphase -> candidate shape pairs -> narrowphase
 *     (gap gN, normal n from A to B, contact point, feature) -> Jacobian rows
 *     H = [n_x n_y r x n; t_x t_y r x t] (side A with a minus sign; only the
 *     rotational column r x n, r x t is stored, see rc_contact in model/model.h).
 *
 * Pair order: a ground shape is A; otherwise A is the shape of lower index.
 *
 * Broadphase: a uniform grid, rebuilt every step in O(n). Each shape's AABB is
 * inflated by 0.75 m (two boxes overlap iff the AABBs are within 1.5 m, see
 * detect) and entered in every cell it covers; a pair is tested in the first
 * cell both cover only (the cell of the corner (max x0, max y0)), so it is
 * found once. The cell size is 1.5 x the mean inflated extent of the body
 * shapes, the mean taken over the extents <= 4 x the plain mean (cell_size),
 * doubled while the entries exceed E = 4 n + 64. Cells are buckets themselves
 * (row-major) when the grid's bounding box has at most T cells, else they are
 * hashed into T buckets (T = the power of two >= E); a counting sort groups
 * the entries by bucket. Big shapes are tested against every shape: ground
 * half-planes (by the least N.(x - P) over the other's box), shapes covering
 * more than max(64, n / 8) cells (cheaper that way), shapes too far out for
 * int cell coordinates or not finite. Ground segments are ordinary shapes (a
 * long one covers a row of cells, or is big). Shapes that never touch
 * anything (half-planes and segments on bodies) are left out.
 *
 * Storage, all in w->order (ints; its size depends on n = w->nshapes only, so
 * it grows only when shapes are added and detection allocates nothing in
 * steady state), carved as
 *   [0, 8)          header: n, grid shapes, big shapes, hashed (0/1), entries,
 *                   buckets, cells in x, cells in y (diagnostics, tests)
 *   box  [4 n]      doubles (8 n ints): inflated AABBs
 *   cell [4 n]      cx0 cy0 cx1 cy1, or a mark in cell[4 i] (CELL_*)
 *   body [n]        body of each shape
 *   list [n]        grid shapes from the front, big shapes at the back
 *   start [T + 1]   bucket offsets
 *   ent  [E]        shape << 2 | (first column) << 1 | (first row)
 * (14 n + T + E + 9 ints, about 95 bytes per shape). w->pairs holds the
 * candidate pairs; once they are found, the radix sort that orders them uses
 * w->order after its header as scratch (w->pairs' spare room if it is short).
 *
 * Periodic boundary in x (world def periodic_x = {x0, x1}, L = x1 - x0): the
 * cell size is L / nx for a whole number nx of columns, column indices wrap
 * modulo nx, and a shape covering more than half the columns is big. Every
 * shape but a half-plane is narrower than L / 2 (checked, else an error), so
 * two shapes touch through one image at most: the nearest, B moved by
 * k L (image_shift of their box centres). The narrowphase sees that image
 * (shift_shape) and the Jacobian of B takes its lever arm from the moved
 * centre, so the impulse acts on the real body. Half-planes act on the real
 * shapes (no image).
 *
 * Named pairs are added whatever their distance. Candidate pairs (w->pairs)
 * are sorted by (A, B) (radix sort, O(pairs + n)) and features are emitted in
 * increasing order, so the contacts come out sorted by key without sorting
 * the contacts themselves. Nothing is allocated once the work arrays have
 * grown to their steady size.
 */
#include "collide/collide.h"

#include <limits.h>
#include <stddef.h>
#include <math.h>

/* ---------------------------------------------------------------- helpers */

enum { GRID_HDR = 8 };      /* the grid's header ints, before its boxes (keeps them 8-byte aligned) */

/* radius of a disk, 0 for a point contactor */
static double round_radius(const rc_shape *s) { return s->type == RC_SHAPE_DISK ? s->radius : 0.0; }

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

/* ---------------------------------------------------------------- world-frame caches */

void rc_collide_update_shapes(rc_world *w)
{
    for (int k = 0; k < w->nshapes; k++) {
        rc_shape *s = &w->shapes[k];
        double x = 0.0, y = 0.0, c = 1.0, sn = 0.0;
        if (s->body != RC_GROUND) {
            const double *q = w->q + w->bodies[s->body].iq;
            x = q[0]; y = q[1]; c = cos(q[2]); sn = sin(q[2]);
        }
        switch (s->type) {
        case RC_SHAPE_DISK:
        case RC_SHAPE_POINT: {   /* the AABB follows from wc and the radius (shape_aabb) */
            double r = round_radius(s);
            s->wc[0] = x + c * s->offset[0] - sn * s->offset[1];
            s->wc[1] = y + sn * s->offset[0] + c * s->offset[1];
            if (s->bound == 0.0) s->bound = hypot(s->offset[0], s->offset[1]) + r;
            break;
        }
        case RC_SHAPE_POLYGON: {
            int n = s->nvert;
            double *bb = rc_shape_poly_aabb(s);
            bb[0] = bb[1] = INFINITY; bb[2] = bb[3] = -INFINITY;
            for (int i = 0; i < n; i++) {
                double *v = s->wvert[i];
                v[0] = x + c * s->vert[i][0] - sn * s->vert[i][1];
                v[1] = y + sn * s->vert[i][0] + c * s->vert[i][1];
                bb[0] = fmin(bb[0], v[0]); bb[1] = fmin(bb[1], v[1]);
                bb[2] = fmax(bb[2], v[0]); bb[3] = fmax(bb[3], v[1]);
            }
            if (s->bound == 0.0)
                for (int i = 0; i < n; i++) s->bound = fmax(s->bound, hypot(s->vert[i][0], s->vert[i][1]));
            for (int i = 0; i < n; i++) {  /* CCW: outward normal of edge i -> i+1 is (e_y, -e_x)/|e| */
                const double *a = s->wvert[i], *b = s->wvert[(i + 1) % n];
                double ex = b[0] - a[0], ey = b[1] - a[1], L = hypot(ex, ey);
                const double *va = s->vert[i], *vb = s->vert[(i + 1) % n];
                const double fx = vb[0] - va[0], fy = vb[1] - va[1], Lb = hypot(fx, fy);
                if (!(L > 1e-6 * Lb)) {   /* an edge lost to the world frame's rounding (a tiny polygon
                                             far out): the body-frame edge turned (a unit normal) */
                    ex = c * fx - sn * fy;
                    ey = sn * fx + c * fy;
                    L = hypot(ex, ey);
                }
                s->wnorm[i][0] = L > 0.0 ? ey / L : 0.0;
                s->wnorm[i][1] = L > 0.0 ? -ex / L : 0.0;
            }
            break;
        }
        case RC_SHAPE_HALFPLANE:
        case RC_SHAPE_SEGMENT:   /* static: shape_aabb */
            break;
        }
    }
}

/* A shape's world-frame AABB (xmin ymin xmax ymax) at the caches' q_k. */
static void shape_aabb(const rc_shape *s, double bb[4])
{
    switch (s->type) {
    case RC_SHAPE_DISK:
    case RC_SHAPE_POINT: {
        double r = round_radius(s);
        bb[0] = s->wc[0] - r; bb[1] = s->wc[1] - r;
        bb[2] = s->wc[0] + r; bb[3] = s->wc[1] + r;
        return;
    }
    case RC_SHAPE_POLYGON:
        memcpy(bb, rc_shape_poly_aabb(s), 4 * sizeof(double));
        return;
    case RC_SHAPE_SEGMENT: {
        double r = s->radius;
        bb[0] = fmin(s->a[0], s->b[0]) - r; bb[1] = fmin(s->a[1], s->b[1]) - r;
        bb[2] = fmax(s->a[0], s->b[0]) + r; bb[3] = fmax(s->a[1], s->b[1]) + r;
        return;
    }
    case RC_SHAPE_HALFPLANE:
        break;
    }
    bb[0] = bb[1] = -INFINITY; bb[2] = bb[3] = INFINITY;
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
} pair_ctx;

/* Jacobian rows of one side: sign * [n, r x n; t, r x t], r = point - x_body,
 * the body moved by dx in x (the periodic image B touches). */
static void jac_side(const rc_world *w, int body, const rc_contact *c, double sign, double dx, double Hr[2])
{
    if (body == RC_GROUND) return;             /* rows stay zero */
    const double *q = w->q + w->bodies[body].iq;
    double rx = c->point[0] - (q[0] + dx), ry = c->point[1] - q[1];
    /* the rotational column; the rows' first two columns are sign * n, sign * t
     * (rc_contact_jacobian), t = (n_y, -n_x) */
    Hr[0] = sign * cross(rx, ry, c->n[0], c->n[1]);
    Hr[1] = sign * cross(rx, ry, c->n[1], -c->n[0]);
}

static void emit(pair_ctx *p, int feature, double gN, const double n[2], const double point[2])
{
    static const rc_contact zero;
    if (p->st != RC_OK || (!p->all && !(gN <= p->m))) return;
    rc_world *w = p->w;
    p->st = rc_reserve((void **)&w->contacts, &w->cap_contacts, w->ncontacts + 1, sizeof(rc_contact));
    if (p->st != RC_OK) return;
    rc_contact *c = &w->contacts[w->ncontacts++];
    *c = zero;
    c->gap = -1;
    c->key = rc_contact_key(p->sa, p->sb, feature);
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

/* Does segment a-b cross the inside of convex polygon P, both ends outside?
 * (Its part inside the edges' half-planes, t in [t0, t1], is not empty.) */
static int segment_crosses(const rc_shape *P, const double a[2], const double b[2])
{
    double t0 = 0.0, t1 = 1.0;
    int a_out = 0, b_out = 0;
    for (int e = 0; e < P->nvert; e++) {
        const double *N = P->wnorm[e], *x = P->wvert[e];
        const double sa = N[0] * (a[0] - x[0]) + N[1] * (a[1] - x[1]), sb = N[0] * (b[0] - x[0]) + N[1] * (b[1] - x[1]);
        if (sa > 0.0 && sb > 0.0) return 0;
        if (sa > 0.0) { a_out = 1; t0 = fmax(t0, sa / (sa - sb)); }            /* enters here */
        else if (sb > 0.0) { b_out = 1; t1 = fmin(t1, sa / (sa - sb)); }       /* leaves here */
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
 * gN = max_e N_e.(a - x_e) - s, n = -N_e, point = a + s n (on the capsule). */
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
        if (!p->all && !within) continue;
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
static void poly_poly(pair_ctx *p)
{
    if (p->all) { poly_poly_all(p); return; }
    int ea, eb;
    const double sa = poly_separation(p->A, p->B, &ea), sb = poly_separation(p->B, p->A, &eb);
    if ((sa > sb ? sa : sb) > p->m) return;
    const int flip = sb > sa + 1e-3 * p->m;
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
    const int missed = (sa > sb ? sa : sb) < -1e-9 * fmax(R->bound, I->bound) && (sb > sa) == flip;
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

static void narrow(pair_ctx *p)
{
    int ka = rc_shape_kind(p->A), kb = rc_shape_kind(p->B);
    if (ka == RC_SK_HALF) { if (kb == RC_SK_ROUND) round_half(p); else if (kb == RC_SK_POLY) poly_half(p); }
    else if (ka == RC_SK_SEG) { if (kb == RC_SK_ROUND) round_seg(p); else if (kb == RC_SK_POLY) poly_seg(p); }
    else if (ka == RC_SK_ROUND && kb == RC_SK_ROUND) round_round(p);
    else if ((ka == RC_SK_ROUND && kb == RC_SK_POLY) || (ka == RC_SK_POLY && kb == RC_SK_ROUND)) round_poly(p);
    else if (ka == RC_SK_POLY && kb == RC_SK_POLY) poly_poly(p);
}

/* ---------------------------------------------------------------- sorting */

/* Sort the candidate pairs (A, 2B + f) lexicographically: two stable counting
 * sorts (LSD radix, O(npairs + nshapes)). The scratch (2 npairs + 2 nshapes + 3
 * ints) is the broadphase grid's storage after its header (done with once the
 * pairs are found), else the spare room of w->pairs. */
static rc_status sort_pairs(rc_world *w)
{
    int np = w->npairs, nk = 2 * w->nshapes + 2;
    if (np < 2) return RC_OK;
    int *in = w->pairs, *out;
    if ((long long)GRID_HDR + 2LL * np + nk + 1 <= w->cap_order) {
        out = w->order + GRID_HDR;
    } else {
        RC_CHECK(rc_reserve((void **)&w->pairs, &w->cap_pairs, 4 * np + nk + 1, sizeof(int)));
        in = w->pairs;
        out = in + 2 * np;
    }
    int *cnt = out + 2 * np;
    for (int pass = 0; pass < 2; pass++) {
        const int *src = pass ? out : in, col = pass ? 0 : 1;
        int *dst = pass ? in : out;
        for (int i = 0; i <= nk; i++) cnt[i] = 0;
        for (int k = 0; k < np; k++) cnt[src[2 * k + col] + 1]++;
        for (int i = 1; i <= nk; i++) cnt[i] += cnt[i - 1];
        for (int k = 0; k < np; k++) {
            int d = cnt[src[2 * k + col]]++;
            dst[2 * d] = src[2 * k];
            dst[2 * d + 1] = src[2 * k + 1];
        }
    }
    return RC_OK;
}

/* The shapes are large structs: fetch those about to be read a few
 * iterations ahead (the narrowphase reads the B's of the pairs, scattered). */
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif
enum { PREFETCH_AHEAD = 8 };

/* ---------------------------------------------------------------- broadphase */

/* Candidate pair (i, j): ordered into (A, B) and stored as (A, 2B + !named)
 * so that sorting puts a pair's named copy first. */
static rc_status push_pair(rc_world *w, int i, int j, int named)
{
    const rc_shape *a = &w->shapes[i], *b = &w->shapes[j];
    if (b->body == RC_GROUND || (a->body != RC_GROUND && j < i)) { int t = i; i = j; j = t; }
    if (rc_shape_feature_count(a, b) == 0) return RC_OK;
    if (named && !rc_world_pair_is_named(w, i, j)) return RC_OK;
    RC_CHECK(rc_reserve((void **)&w->pairs, &w->cap_pairs, 2 * (w->npairs + 1), sizeof(int)));
    w->pairs[2 * w->npairs] = i;
    w->pairs[2 * w->npairs + 1] = 2 * j + !named;
    w->npairs++;
    return RC_OK;
}

/* A candidate pair of the broadphase: two shapes of kinds that have features
 * and of different bodies, so that their feature count is > 0; ordered into
 * (A, B) from their bodies alone, without reading the shapes. */
static rc_status push_candidate(rc_world *w, int i, int j, int body_i, int body_j)
{
    if (body_j == RC_GROUND || (body_i != RC_GROUND && j < i)) { int t = i; i = j; j = t; }
    if (2 * (w->npairs + 1) > w->cap_pairs)
        RC_CHECK(rc_reserve((void **)&w->pairs, &w->cap_pairs, 2 * (w->npairs + 1), sizeof(int)));
    w->pairs[2 * w->npairs] = i;
    w->pairs[2 * w->npairs + 1] = 2 * j + 1;
    w->npairs++;
    return RC_OK;
}

/* The uniform grid (layout of w->order at the top of the file). */

enum { CELL_SKIP = INT_MIN, CELL_BIG, CELL_HALF };  /* marks in cell[4 i] */

/* cell = GRID_SCALE x the typical inflated extent of the body shapes (see
 * cell_size); a shape whose cell coordinates would exceed GRID_MAX_COORD
 * (far away, or non-finite) goes to the big list. */
#define GRID_SCALE 1.5
#define GRID_MAX_COORD 1e9

typedef struct grid {
    int ns, E, T;
    double x0, L;       /* periodic boundary in x: cell [x0, x0 + L); L = 0: none */
    int nx;             /* periodic: columns across L (cell size L / nx)           */
    int *hdr;
    double *box;        /* 4 per shape: inflated AABB                         */
    int *cell;          /* 4 per shape: cx0 cy0 cx1 cy1, or a CELL_* mark      */
    int *body;          /* ns: body of each shape                             */
    int *list;          /* ns: grid shapes from the front, big ones at the back */
    int *start;         /* T + 1: bucket offsets                              */
    int *ent;           /* E: shape << 2 | first column << 1 | first row      */
} grid;

static rc_status grid_layout(rc_world *w, grid *g)
{
    int ns = w->nshapes;
    if (ns > (INT_MAX / 2) / 40)
        return rc_set_error(RC_ERR_NOMEM, "broadphase: too many shapes (%d)", ns);
    int E = 4 * ns + 64, T = 64;
    while (T < E) T *= 2;
    int need = GRID_HDR + 8 * ns + 4 * ns + 2 * ns + (T + 1) + E;
    if (need > w->cap_order) {   /* exactly: the size changes only when shapes are added */
        int *o = rc_realloc(w->order, (size_t)need * sizeof(int));
        if (!o) return rc_set_error(RC_ERR_NOMEM, "out of memory (broadphase grid, %d ints)", need);
        w->order = o;
        w->cap_order = need;
    }
    int *o = w->order;
    g->ns = ns; g->E = E; g->T = T;
    g->hdr = o;
    g->box = (double *)(void *)(o + GRID_HDR);
    g->cell = o + GRID_HDR + 8 * ns;
    g->body = g->cell + 4 * ns;
    g->list = g->body + ns;
    g->start = g->list + ns;
    g->ent = g->start + T + 1;
    return RC_OK;
}

/* floor for |t| < 2^31 */
static int ifloor(double t)
{
    int k = (int)t;
    return k - (t < (double)k);
}

static unsigned cell_hash(int cx, int cy)
{
    unsigned h = (unsigned)cx * 0x9E3779B1u ^ ((unsigned)cy + 0x7F4A7C15u) * 0x85EBCA77u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    return h;
}

static int boxes_overlap(const double *a, const double *b)
{
    return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/* Periodic boundary: the shift k L (k integer) that brings x_b nearest to x_a
 * (0 without a periodic boundary). Every shape is narrower than L / 2, so two
 * shapes can touch through one image at most: this one. */
static double image_shift(double L, double x_a, double x_b)
{
    return L > 0.0 ? L * floor((x_a - x_b) / L + 0.5) : 0.0;
}

static int boxes_overlap_p(const grid *g, const double *a, const double *b)
{
    if (g->L == 0.0) return boxes_overlap(a, b);
    double d = image_shift(g->L, 0.5 * (a[0] + a[2]), 0.5 * (b[0] + b[2]));
    return a[0] <= b[2] + d && b[0] + d <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/* Can a shape inside box b (inflated AABB) touch the half-plane (P, N) within
 * margin m? Every gap of a disk/point (N.(c - P) - r) or polygon vertex
 * (N.(x_i - P)) is >= the least N.(x - P) over the box, s, reached at a
 * corner; keep the pair when s <= m plus a rounding allowance (the inflation
 * already lowers s by at least 0.75 m). */
static int halfplane_near(const double N[2], const double P[2], const double *b, double m)
{
    double x = N[0] >= 0.0 ? b[0] : b[2], y = N[1] >= 0.0 ? b[1] : b[3];
    double s = N[0] * (x - P[0]) + N[1] * (y - P[1]);
    return s <= m + 1e-9 * (1.0 + fabs(x) + fabs(y) + fabs(P[0]) + fabs(P[1]));
}

/* Cell size: GRID_SCALE x the mean inflated extent of the body shapes among
 * the candidates, the mean taken again over the extents <= 4 x the first mean
 * (a few huge shapes must not coarsen the grid for all the others). */
static double cell_size(const grid *g, int ncand)
{
    double sum = 0.0, sum2 = 0.0;
    int n = 0, n2 = 0;
    for (int pass = 0; pass < 2; pass++) {
        double cap = pass ? 4.0 * sum / n : INFINITY;
        for (int k = 0; k < ncand; k++) {
            int i = g->list[k];
            if (g->body[i] == RC_GROUND) continue;
            const double *b = g->box + 4 * i;
            double d = fmax(b[2] - b[0], b[3] - b[1]);
            if (!rc_finite(d) || !(d <= cap)) continue;
            if (pass) { sum2 += d; n2++; } else { sum += d; n++; }
        }
        if (!n) return 1.0;
    }
    double h = GRID_SCALE * sum2 / n2;
    return h > 0.0 && rc_finite(h) ? h : 1.0;
}

/* Cell ranges of the candidates for cell size h: the number of grid entries;
 * a candidate too far (or not finite) or covering more than klim cells is
 * marked big. */
static long long grid_cells(grid *g, int ncand, double h, long long klim)
{
    double inv = 1.0 / h;
    long long nent = 0;
    for (int k = 0; k < ncand; k++) {
        int i = g->list[k], *c = g->cell + 4 * i;
        const double *b = g->box + 4 * i;
        double t[4] = { (b[0] - g->x0) * inv, b[1] * inv, (b[2] - g->x0) * inv, b[3] * inv };
        if (!(fabs(t[0]) < GRID_MAX_COORD && fabs(t[1]) < GRID_MAX_COORD
              && fabs(t[2]) < GRID_MAX_COORD && fabs(t[3]) < GRID_MAX_COORD)) { c[0] = CELL_BIG; continue; }
        for (int j = 0; j < 4; j++) c[j] = ifloor(t[j]);
        long long K = (long long)(c[2] - c[0] + 1) * (c[3] - c[1] + 1);
        /* periodic: a shape over more than half the columns would meet another
         * in two wrapped ranges (big: tested against every shape) */
        if (K > klim || (g->nx && 2LL * (c[2] - c[0] + 1) > g->nx)) c[0] = CELL_BIG;
        else nent += K;
    }
    return nent;
}

/* Candidate pairs: the shapes whose AABBs, each inflated by bm / 2, overlap
 * (a ground half-plane: whose box reaches within the margin of it). */
static rc_status grid_pairs(rc_world *w, double m, double bm)
{
    grid g = { 0 };
    RC_CHECK(grid_layout(w, &g));
    if (rc_periodic(w)) { g.x0 = w->def.periodic_x[0]; g.L = w->def.periodic_x[1] - g.x0; }
    const rc_shape *S = w->shapes;
    const int ns = g.ns;
    const double e = 0.5 * bm;
    double *box = g.box;
    int *cell = g.cell, *list = g.list, *body = g.body;

    /* the one pass over the shapes: inflated boxes, bodies; marks for the
     * shapes that never touch anything (body half-planes and segments) and
     * for the ground half-planes; the others are the grid's candidates */
    int ncand = 0;
    for (int i = 0; i < ns; i++) {
        if (i + PREFETCH_AHEAD < ns) PREFETCH(&S[i + PREFETCH_AHEAD].wc);
        int k = rc_shape_kind(&S[i]);
        body[i] = S[i].body;
        double *b = box + 4 * i, a[4];
        shape_aabb(&S[i], a);
        b[0] = a[0] - e; b[1] = a[1] - e; b[2] = a[2] + e; b[3] = a[3] + e;
        if (k == RC_SK_NONE) cell[4 * i] = CELL_SKIP;
        else if (k == RC_SK_HALF) cell[4 * i] = CELL_HALF;
        else list[ncand++] = i;
        if (g.L > 0.0 && k != RC_SK_NONE && k != RC_SK_HALF && !(b[2] - b[0] < 0.5 * g.L))
            return rc_set_error(RC_ERR_ARG, "periodic boundary: shape %d%s%s%s is %.6g wide with the contact margin, "
                                "not less than half the cell length %.6g (use a half-plane, or a longer cell)",
                                i, S[i].name ? " '" : "", S[i].name ? S[i].name : "", S[i].name ? "'" : "",
                                b[2] - b[0], g.L);
    }

    /* cells; a shape covering more than klim cells costs more in the grid
     * than against every shape (big list); double the cell size until the
     * entries fit */
    long long klim = ns / 8 > 64 ? ns / 8 : 64;
    double h = cell_size(&g, ncand);
    if (g.L > 0.0) {   /* periodic: a whole number of columns across L */
        double nxd = floor(g.L / h);
        g.nx = nxd < 1.0 ? 1 : nxd > 1e6 ? 1000000 : (int)nxd;
        h = g.L / g.nx;
    }
    for (int tries = 0; grid_cells(&g, ncand, h, klim) > g.E && tries < 64; tries++) {
        h *= 2.0;
        if (g.L > 0.0) { g.nx = g.nx / 2 > 1 ? g.nx / 2 : 1; h = g.L / g.nx; }
    }

    /* the grid list (front of list, in index order; the entries are checked
     * again in case the doubling gave up) and its bounding cells */
    int ng = 0, gx0 = INT_MAX, gy0 = INT_MAX, gx1 = INT_MIN, gy1 = INT_MIN;
    long long used = 0;
    for (int k = 0; k < ncand; k++) {
        int i = list[k], *c = cell + 4 * i;
        if (c[0] == CELL_BIG) continue;
        long long K = (long long)(c[2] - c[0] + 1) * (c[3] - c[1] + 1);
        if (used + K > g.E) { c[0] = CELL_BIG; continue; }
        used += K;
        list[ng++] = i;
        if (c[0] < gx0) gx0 = c[0];
        if (c[1] < gy0) gy0 = c[1];
        if (c[2] > gx1) gx1 = c[2];
        if (c[3] > gy1) gy1 = c[3];
    }
    if (g.nx && ng) { gx0 = 0; gx1 = g.nx - 1; }   /* periodic: columns wrap into [0, nx) */
    /* the big list (back of list): ground half-planes and big candidates */
    int nbig = 0;
    for (int i = 0; i < ns; i++)
        if (cell[4 * i] == CELL_BIG || cell[4 * i] == CELL_HALF) list[ns - 1 - nbig++] = i;

    /* buckets: the cells themselves (row-major) when the grid's bounding box
     * has at most T cells, else a spatial hash into T buckets */
    long long ncx = ng ? (long long)gx1 - gx0 + 1 : 1, ncy = ng ? (long long)gy1 - gy0 + 1 : 1;
    int hashed = ncx * ncy > g.T;
    int nb = hashed ? g.T : (int)(ncx * ncy), nx = (int)ncx, *st = g.start;
    unsigned mask = (unsigned)g.T - 1u;
    const int pnx = g.nx;
#define WRAP(cx) (pnx ? (((cx) % pnx) + pnx) % pnx : (cx))
#define BUCKET(cx, cy) (hashed ? (int)(cell_hash(WRAP(cx), cy) & mask) : (WRAP(cx) - gx0) + nx * ((cy) - gy0))
    memset(st, 0, (size_t)(nb + 1) * sizeof(int));
    for (int k = 0; k < ng; k++) {
        const int *c = cell + 4 * list[k];
        for (int cy = c[1]; cy <= c[3]; cy++)
            for (int cx = c[0]; cx <= c[2]; cx++) st[BUCKET(cx, cy)]++;
    }
    for (int b = 1; b < nb; b++) st[b] += st[b - 1];
    st[nb] = nb ? st[nb - 1] : 0;
    for (int k = ng - 1; k >= 0; k--) {
        int i = list[k];
        const int *c = cell + 4 * i;
        for (int cy = c[1]; cy <= c[3]; cy++)
            for (int cx = c[0]; cx <= c[2]; cx++) {
                int p = --st[BUCKET(cx, cy)];
                g.ent[p] = i << 2 | (cx == c[0]) << 1 | (cy == c[1]);
            }
    }
#undef BUCKET
#undef WRAP

    /* pairs within each cell, tested only in the first cell both cover (the
     * cell of the corner (max x0, max y0)): there one of them starts its
     * column and one (maybe the other) its row. A hashed bucket may hold
     * several cells; entries of different cells are not told apart (it would
     * take 2 ints per entry): such a pair is tested and, in the rare case
     * that both shapes cover both cells, found twice, the copy dropped with
     * the duplicates after the sort */
    for (int b = 0; b < nb; b++) {
        int p1 = st[b + 1];
        for (int p = st[b]; p < p1; p++) {
            int ep = g.ent[p], i = ep >> 2;
            const double *bi = box + 4 * i;
            for (int q = p + 1; q < p1; q++) {
                int eq = g.ent[q];
                if (((ep | eq) & 3) != 3) continue;
                int j = eq >> 2;
                if (!boxes_overlap_p(&g, bi, box + 4 * j) || body[i] == body[j]) continue;
                RC_CHECK(push_candidate(w, i, j, body[i], body[j]));
            }
        }
    }

    /* big shapes against every other shape: the half-plane test when one is
     * a ground half-plane, else the box test */
    const int *big = list + ns - nbig;
    for (int k = 0; k < nbig; k++) {
        int i = big[k];
        if (cell[4 * i] == CELL_HALF) {
            const double *N = S[i].normal, *P = S[i].point;
            for (int l = 0; l < ng; l++) {
                int j = list[l];
                if (halfplane_near(N, P, box + 4 * j, m) && body[j] != body[i])
                    RC_CHECK(push_candidate(w, i, j, body[i], body[j]));
            }
            for (int l = k + 1; l < nbig; l++) {
                int j = big[l];
                if (cell[4 * j] != CELL_HALF && halfplane_near(N, P, box + 4 * j, m) && body[j] != body[i])
                    RC_CHECK(push_candidate(w, i, j, body[i], body[j]));
            }
        } else {
            const double *bi = box + 4 * i;
            for (int l = 0; l < ng; l++) {
                int j = list[l];
                if (boxes_overlap_p(&g, bi, box + 4 * j) && body[j] != body[i])
                    RC_CHECK(push_candidate(w, i, j, body[i], body[j]));
            }
            for (int l = k + 1; l < nbig; l++) {
                int j = big[l];
                int near = cell[4 * j] == CELL_HALF ? halfplane_near(S[j].normal, S[j].point, bi, m)
                                                    : boxes_overlap_p(&g, bi, box + 4 * j);
                if (near && body[j] != body[i]) RC_CHECK(push_candidate(w, i, j, body[i], body[j]));
            }
        }
    }

    int *hd = g.hdr;
    hd[0] = ns; hd[1] = ng; hd[2] = nbig; hd[3] = hashed; hd[4] = (int)used; hd[5] = nb;
    hd[6] = ng ? nx : 0; hd[7] = ng ? (int)ncy : 0;
    return RC_OK;
}

/* Pairs of named body rules, whatever their distance (history columns). */
static rc_status named_pairs(rc_world *w)
{
    for (int r = 0; r < w->nrules; r++) {
        const rc_rule *R = &w->rules[r];
        if (R->def.kind != RC_RULE_BODIES || !R->name || R->def.a == R->def.b) continue;
        for (int i = 0; i < w->nshapes; i++) {
            if (w->shapes[i].body != R->def.a) continue;
            for (int j = 0; j < w->nshapes; j++)
                if (w->shapes[j].body == R->def.b) RC_CHECK(push_pair(w, i, j, 1));
        }
    }
    return RC_OK;
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


static rc_status detect(rc_world *w)
{
    /* Broadphase inflation 1.5 m > sqrt(2) m: a polygon vertex kept by the
     * edge-line test lies within sqrt(2) m of the other polygon. */
    double m = w->detect_margin > w->def.contact_margin ? w->detect_margin : w->def.contact_margin, bm = 1.5 * m;
    const double L = rc_periodic(w) ? w->def.periodic_x[1] - w->def.periodic_x[0] : 0.0;
    RC_CHECK(grid_pairs(w, m, bm));
    RC_CHECK(named_pairs(w));

    RC_CHECK(sort_pairs(w));
    /* room for half as many more candidates as this step's (and 32): the
     * pair count wanders from step to step and creeps up while a pile
     * settles, the next steps find their room */
    RC_CHECK(rc_reserve((void **)&w->pairs, &w->cap_pairs, 3 * w->npairs + 64, sizeof(int)));
    int np = 0;
    for (int k = 0; k < w->npairs; k++) {      /* drop duplicates, keep the named copy */
        const int *x = w->pairs + 2 * k;
        if (np > 0 && w->pairs[2 * np - 2] == x[0] && w->pairs[2 * np - 1] >> 1 == x[1] >> 1) continue;
        w->pairs[2 * np] = x[0];
        w->pairs[2 * np + 1] = x[1];
        np++;
    }
    w->npairs = np;

    for (int k = 0; k < np; k++) {
        if (k + PREFETCH_AHEAD < np) {   /* the shapes of a coming pair: kind and centre */
            const char *a = (const char *)&w->shapes[w->pairs[2 * (k + PREFETCH_AHEAD)]];
            const char *b = (const char *)&w->shapes[w->pairs[2 * (k + PREFETCH_AHEAD) + 1] >> 1];
            PREFETCH(a); PREFETCH(a + offsetof(rc_shape, wc));
            PREFETCH(b); PREFETCH(b + offsetof(rc_shape, wc));
        }
        int sa = w->pairs[2 * k], sb = w->pairs[2 * k + 1] >> 1;
        pair_ctx p = { w, sa, sb, &w->shapes[sa], &w->shapes[sb], !(w->pairs[2 * k + 1] & 1), m, 0.0, RC_OK };
        rc_shape image;
        double image_vert[RC_MAX_POLYGON_VERTICES][2];
        if (L > 0.0 && p.A->type != RC_SHAPE_HALFPLANE) {   /* periodic: B's nearest image */
            double ba[4], bb[4];
            shape_aabb(p.A, ba);
            shape_aabb(p.B, bb);
            p.dx = image_shift(L, 0.5 * (ba[0] + ba[2]), 0.5 * (bb[0] + bb[2]));
            if (p.dx != 0.0) p.B = shift_shape(p.B, p.dx, &image, image_vert);
        }
        int c0 = w->ncontacts;
        narrow(&p);
        RC_CHECK(p.st);
        if (w->ncontacts == c0) continue;
        int law = rc_world_law_for(w, sa, sb);
        if (law == RC_NO_CONTACT) { w->ncontacts = c0; continue; }
        for (int c = c0; c < w->ncontacts; c++) w->contacts[c].law = law;
    }
    return RC_OK;
}

rc_status rc_collide_detect(rc_world *w)
{
    w->ncontacts = 0;
    w->npairs = 0;
    rc_status s = detect(w);
    if (s != RC_OK) w->ncontacts = 0;
    return s;
}

void rc_collide_wrap(rc_world *w)
{
    if (!rc_periodic(w)) return;
    const double x0 = w->def.periodic_x[0], x1 = w->def.periodic_x[1], L = x1 - x0;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        if (bd->kind != RC_BODY_RIGID2D) continue;
        double *x = w->q + bd->iq, x_old = x[0];
        if (x_old >= x0 && x_old < x1) continue;
        double xn = x_old - L * floor((x_old - x0) / L);
        if (xn >= x1) xn -= L;   /* rounding of x0 + L - tiny */
        if (xn < x0) xn = x0;
        x[0] = xn;
        /* E_pot = -m g.q: moving by xn - x_old changes it by -m g_x (xn - x_old) */
        w->E_wrap += rc_body_mass(w, bd) * w->def.gravity[0] * (xn - x_old);
    }
}
