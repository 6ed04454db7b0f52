/*
 * collide.c -- contact detection at q_k (planar, dim = 2).
 *
 *   rc_collide_update_shapes: world-frame caches (centres, vertices, outward
 *     edge normals, AABBs) from w->q.
 *   rc_collide_detect: broadphase -> candidate shape pairs -> narrowphase
 *     (gap gN, normal n from A to B, contact point, feature) -> Jacobian rows
 *     H = [n_x n_y r x n; t_x t_y r x t] (side A with a minus sign).
 *
 * Pair order: a ground shape is A; otherwise A is the shape of lower index.
 * Broadphase: sweep-and-prune on x over all shapes (half-planes have an
 * infinite AABB, so they meet every body shape), with a persistent order
 * kept in w->order (order[0] = count, order[1..] = shape indices sorted by
 * AABB xmin) and updated by insertion sort (near O(n) for coherent motion).
 * Named pairs are added whatever their distance. Candidate pairs (w->pairs)
 * are sorted by (A, B) and features are emitted in increasing order, so the
 * contacts come out sorted by key without sorting the contacts themselves.
 * Nothing is allocated once the work arrays have grown to their steady size.
 */
#include "rc_internal.h"

#include <math.h>

/* ---------------------------------------------------------------- helpers */

enum { K_NONE = 0, K_ROUND, K_POLY, K_HALF, K_SEG }; /* shape kinds, in pair order */

static int kind_of(const rc_shape *s)
{
    switch (s->type) {
    case RC_SHAPE_DISK: case RC_SHAPE_POINT: return K_ROUND;
    case RC_SHAPE_POLYGON: return K_POLY;
    case RC_SHAPE_HALFPLANE: return s->body == RC_GROUND ? K_HALF : K_NONE;
    case RC_SHAPE_SEGMENT: return s->body == RC_GROUND ? K_SEG : K_NONE;
    }
    return K_NONE;
}

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
        double *bb = s->aabb;
        switch (s->type) {
        case RC_SHAPE_DISK:
        case RC_SHAPE_POINT: {
            double r = round_radius(s);
            s->wc[0] = x + c * s->offset[0] - sn * s->offset[1];
            s->wc[1] = y + sn * s->offset[0] + c * s->offset[1];
            bb[0] = s->wc[0] - r; bb[1] = s->wc[1] - r;
            bb[2] = s->wc[0] + r; bb[3] = s->wc[1] + r;
            if (s->bound == 0.0) s->bound = hypot(s->offset[0], s->offset[1]) + r;
            break;
        }
        case RC_SHAPE_POLYGON: {
            int n = s->nvert;
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
                s->wnorm[i][0] = L > 0.0 ? ey / L : 0.0;
                s->wnorm[i][1] = L > 0.0 ? -ex / L : 0.0;
            }
            break;
        }
        case RC_SHAPE_HALFPLANE:
            bb[0] = bb[1] = -INFINITY; bb[2] = bb[3] = INFINITY;
            break;
        case RC_SHAPE_SEGMENT: {
            double r = s->radius;
            bb[0] = fmin(s->a[0], s->b[0]) - r; bb[1] = fmin(s->a[1], s->b[1]) - r;
            bb[2] = fmax(s->a[0], s->b[0]) + r; bb[3] = fmax(s->a[1], s->b[1]) + r;
            break;
        }
        }
    }
}

/* ---------------------------------------------------------------- features */

int rc_collide_feature_count(const rc_shape *a, const rc_shape *b)
{
    if (a->body == b->body) return 0;          /* same body, or ground-ground */
    int ka = kind_of(a), kb = kind_of(b);
    if (ka > kb) { const rc_shape *s = a; a = b; b = s; int k = ka; ka = kb; kb = k; }
    if (ka == K_NONE) return 0;
    if (ka == K_ROUND) return 1;               /* disk/point with anything */
    if (ka == K_POLY) {
        if (kb == K_POLY) return a->nvert + b->nvert;
        if (kb == K_HALF) return a->nvert;
        if (kb == K_SEG) return a->nvert + 2;
    }
    return 0;                                  /* half-plane/segment pairs */
}

/* ---------------------------------------------------------------- narrowphase */

typedef struct pair_ctx {
    rc_world *w;
    int sa, sb;
    const rc_shape *A, *B;
    int all;            /* named pair: every feature, whatever the gap */
    double m;           /* contact margin                              */
    rc_status st;
} pair_ctx;

/* Jacobian rows of one side: sign * [n, r x n; t, r x t], r = point - x_body. */
static void jac_side(const rc_world *w, int body, const rc_contact *c, double sign, double H[2][3])
{
    if (body == RC_GROUND) return;             /* rows stay zero */
    const double *q = w->q + w->bodies[body].iq;
    double rx = c->point[0] - q[0], ry = c->point[1] - q[1];
    H[0][0] = sign * c->n[0]; H[0][1] = sign * c->n[1]; H[0][2] = sign * cross(rx, ry, c->n[0], c->n[1]);
    H[1][0] = sign * c->t[0]; H[1][1] = sign * c->t[1]; H[1][2] = sign * cross(rx, ry, c->t[0], c->t[1]);
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
    c->t[0] = n[1]; c->t[1] = -n[0];
    c->gN = gN;
    jac_side(w, c->body_b, c, 1.0, c->Hb);
    jac_side(w, c->body_a, c, -1.0, c->Ha);
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

/* polygon B vs segment A (radius s).
 * Features 0..nvert-1, vertex x_i vs the segment: gN = |x_i - k| - s with k the
 * closest point of the segment, n = (x_i - k)/|x_i - k|, point = x_i.
 * Features nvert, nvert+1, end point a, b vs the polygon's edge lines:
 * gN = max_e N_e.(a - x_e) - s, n = -N_e, point = a + s n (on the capsule). */
static void poly_seg(pair_ctx *p)
{
    const rc_shape *S = p->A, *P = p->B;
    for (int i = 0; i < P->nvert; i++) {
        double n[2], gN = segment_normal(S->a, S->b, P->wvert[i], n) - S->radius;
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

/* polygon A vs polygon B, vertex against edge lines both ways.
 * Vertex x_i of A (feature i): gN = max_e N^B_e.(x_i - x^B_e), n = -N^B_e.
 * Vertex y_j of B (feature nA + j): gN = max_e N^A_e.(y_j - x^A_e), n = N^A_e.
 * point = the vertex. gN is exact for a penetrating vertex and a lower bound
 * of the distance outside; a vertex is kept if gN <= margin and its projection
 * lies within the chosen edge extended by the margin. */
static void poly_poly(pair_ctx *p)
{
    for (int side = 0; side < 2; side++) {
        const rc_shape *V = side ? p->B : p->A, *E = side ? p->A : p->B;
        double sg = side ? 1.0 : -1.0;
        int f0 = side ? p->A->nvert : 0;
        for (int i = 0; i < V->nvert; i++) {
            int e;
            double s;
            int within = vertex_edge(E, V->wvert[i], p->m, &e, &s);
            if (!p->all && !within) continue;
            double n[2] = { sg * E->wnorm[e][0], sg * E->wnorm[e][1] };
            emit(p, f0 + i, s, n, V->wvert[i]);
        }
    }
}

static void narrow(pair_ctx *p)
{
    int ka = kind_of(p->A), kb = kind_of(p->B);
    if (ka == K_HALF) { if (kb == K_ROUND) round_half(p); else if (kb == K_POLY) poly_half(p); }
    else if (ka == K_SEG) { if (kb == K_ROUND) round_seg(p); else if (kb == K_POLY) poly_seg(p); }
    else if (ka == K_ROUND && kb == K_ROUND) round_round(p);
    else if ((ka == K_ROUND && kb == K_POLY) || (ka == K_POLY && kb == K_ROUND)) round_poly(p);
    else if (ka == K_POLY && kb == K_POLY) poly_poly(p);
}

/* ---------------------------------------------------------------- sorting */

/* Heapsort of the shape indices ord[0..n) by AABB xmin (no allocation,
 * O(n log n) worst case): the fallback for the broadphase order. */
static void sift(const rc_shape *S, int *ord, int i, int n)
{
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && S[ord[c]].aabb[0] < S[ord[c + 1]].aabb[0]) c++;
        if (!(S[ord[i]].aabb[0] < S[ord[c]].aabb[0])) return;
        int t = ord[i]; ord[i] = ord[c]; ord[c] = t;
        i = c;
    }
}

static void heapsort_order(const rc_shape *S, int *ord, int n)
{
    for (int i = n / 2 - 1; i >= 0; i--) sift(S, ord, i, n);
    for (int end = n - 1; end > 0; end--) {
        int t = ord[0]; ord[0] = ord[end]; ord[end] = t;
        sift(S, ord, 0, end);
    }
}

/* Sort the candidate pairs (A, 2B + f) lexicographically: two stable counting
 * sorts (LSD radix, O(npairs + nshapes)) using the spare room of w->pairs. */
static rc_status sort_pairs(rc_world *w)
{
    int np = w->npairs, nk = 2 * w->nshapes + 2;
    if (np < 2) return RC_OK;
    RC_CHECK(rc_reserve((void **)&w->pairs, &w->cap_pairs, 4 * np + nk + 1, sizeof(int)));
    int *in = w->pairs, *out = in + 2 * np, *cnt = out + 2 * np;
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

/* ---------------------------------------------------------------- broadphase */

/* Update the persistent x-order: append new shapes, then insertion sort on
 * AABB xmin; if the order is far from sorted (first call, teleports), fall
 * back to heapsort. */
static rc_status sap_sort(rc_world *w)
{
    int n = w->nshapes, had = w->cap_order > 0 ? w->order[0] : 0;
    RC_CHECK(rc_reserve((void **)&w->order, &w->cap_order, n + 1, sizeof(int)));
    int *ord = w->order + 1;
    if (had < 0 || had > n) had = 0;
    for (int i = 0; i < had; i++)
        if (ord[i] < 0 || ord[i] >= had) { had = 0; break; }
    for (int i = had; i < n; i++) ord[i] = i;
    w->order[0] = n;

    const rc_shape *S = w->shapes;
    long budget = 8L * n + 1024;
    for (int i = 1; i < n; i++) {
        int s = ord[i], j = i;
        double x = S[s].aabb[0];
        while (j > 0 && S[ord[j - 1]].aabb[0] > x && budget-- > 0) { ord[j] = ord[j - 1]; j--; }
        ord[j] = s;
        if (budget <= 0) {
            heapsort_order(S, ord, n);
            break;
        }
    }
    return RC_OK;
}

/* Candidate pair (i, j): ordered into (A, B) and stored as (A, 2B + !named)
 * so that sorting puts a pair's named copy first. */
static rc_status push_pair(rc_world *w, int i, int j, int named)
{
    const rc_shape *a = &w->shapes[i], *b = &w->shapes[j];
    if (b->body == RC_GROUND || (a->body != RC_GROUND && j < i)) { int t = i; i = j; j = t; }
    if (rc_collide_feature_count(a, b) == 0) return RC_OK;
    if (named && !rc_world_pair_is_named(w, i, j)) return RC_OK;
    RC_CHECK(rc_reserve((void **)&w->pairs, &w->cap_pairs, 2 * (w->npairs + 1), sizeof(int)));
    w->pairs[2 * w->npairs] = i;
    w->pairs[2 * w->npairs + 1] = 2 * j + !named;
    w->npairs++;
    return RC_OK;
}

/* Sweep over x, then test y; AABBs are inflated by bm (see rc_collide_detect). */
static rc_status sap_pairs(rc_world *w, double bm)
{
    const rc_shape *S = w->shapes;
    const int *ord = w->order + 1;
    int n = w->nshapes;
    for (int i = 0; i < n; i++) {
        const double *a = S[ord[i]].aabb;
        double xmax = a[2] + bm;
        for (int j = i + 1; j < n; j++) {
            const double *b = S[ord[j]].aabb;
            if (!(b[0] <= xmax)) break;
            if (b[1] > a[3] + bm || a[1] > b[3] + bm) continue;
            if (S[ord[i]].body == S[ord[j]].body) continue;
            RC_CHECK(push_pair(w, ord[i], ord[j], 0));
        }
    }
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

static rc_status detect(rc_world *w)
{
    /* Broadphase inflation 1.5 m > sqrt(2) m: a polygon vertex kept by the
     * edge-line test lies within sqrt(2) m of the other polygon. */
    double m = w->def.contact_margin, bm = 1.5 * m;
    RC_CHECK(sap_sort(w));
    RC_CHECK(sap_pairs(w, bm));
    RC_CHECK(named_pairs(w));

    RC_CHECK(sort_pairs(w));
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
        int sa = w->pairs[2 * k], sb = w->pairs[2 * k + 1] >> 1;
        pair_ctx p = { w, sa, sb, &w->shapes[sa], &w->shapes[sb], !(w->pairs[2 * k + 1] & 1), m, RC_OK };
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
