/* poly3.c -- convex polyhedra in the spatial narrow phase (collide/geom3d.h):
 * polyhedron-polyhedron contact by the separating
 * axis test over faces and Minkowski-face edge pairs (Gregorius, "The
 * Separating Axis Test between Convex Polyhedra", GDC 2013), face contacts by
 * clipping the incident face against the reference face's side planes
 * (Sutherland-Hodgman; Ericson 2005, Sec. 8.3.4) with feature-pair labels,
 * and box-box (the box's own parts: poly3_box.c). docs/theory/spatial.md,
 * "Box-box and convex polyhedra". */
#include "collide/poly3_impl.h"

#include <string.h>

/* ---------------------------------------------------------------- world copies */

void rcc_p3_to_world(wpoly *w, const rcc_poly3 *s, const rcc_pose3 *p)
{
    w->s = s;
    w->bw = NULL;
    rcb_v3_set(w->c, 0.0, 0.0, 0.0);
    for (int k = 0; k < s->nv; k++) {
        rcb_quat_rotate(w->v[k], p->q, s->v + 3 * k);
        rcb_v3_add(w->v[k], w->v[k], p->p);
        rcb_v3_add(w->c, w->c, w->v[k]);
    }
    rcb_v3_scale(w->c, 1.0 / s->nv, w->c);
    w->r = 0.0;
    for (int k = 0; k < s->nv; k++) {
        double d[3];
        rcb_v3_sub(d, w->v[k], w->c);
        w->r = fmax(w->r, rcb_v3_norm(d));
    }
    for (int f = 0; f < s->nf; f++) {
        rcb_quat_rotate(w->pl[f], p->q, s->plane + 4 * f);
        w->pl[f][3] = s->plane[4 * f + 3] + rcb_v3_dot(w->pl[f], p->p);   /* n.(p + R x) = n.p + d */
    }
}

static int fcode(const rcc_poly3 *s, int f) { return s->code ? s->code[f] : f; }

/* ---------------------------------------------------------------- the axes */

/* The face of a whose plane separates b most: max over faces of
 * min over b's vertices of n.v - d (Gregorius 2013, "face queries"). Faces
 * within tie of the largest separation are tied and the first of them is
 * taken (its separation returned): two blocks touching along an edge (a wall
 * of columns, diagonal neighbours) keep the same reference face whatever the
 * round-off of their resting motion, hence the same contact ids. */
double rcc_p3_face_sep(const wpoly *a, int f, const wpoly *b)
{
    double s = HUGE_VAL;
    for (int k = 0; k < b->s->nv; k++) {   /* fmin without the call (x is never NaN-compared true) */
        const double x = rcb_v3_dot(a->pl[f], b->v[k]) - a->pl[f][3];
        if (x < s) s = x;
    }
    return s;
}

static double face_query(const wpoly *a, const wpoly *b, double tie, int *best)
{
    double s[RCC_POLY3_MAX_F], sep = -HUGE_VAL;
    *best = 0;
    if (a->bw) rcc_p3_box_face_seps(a, b, s);
    else for (int f = 0; f < a->s->nf; f++) s[f] = rcc_p3_face_sep(a, f, b);
    for (int f = 0; f < a->s->nf; f++)
        if (s[f] > sep) sep = s[f];
    for (int f = 0; f < a->s->nf; f++)
        if (s[f] >= sep - tie) { *best = f; return s[f]; }
    return sep;   /* not reached unless NaN */
}

/* The Gauss-map arcs of the edges, computed once per polyhedron and query
 * (not once per edge pair): for edge i of a its direction u, |u|, and
 * g = b x a of its face normals a = n(f0), b = n(f1); for b the normals taken
 * negated (the Minkowski difference's -B) and g = d x c. The arc test of a
 * pair (Gregorius 2013) needs only the signs of the other polyhedron's face
 * normals against g: side[i nf + f] = n'(f).g(i), n' the other polyhedron's
 * normals as the test takes them (b's negated). One dot per (edge, face)
 * instead of two to four per edge pair, and the same products: negation is
 * exact, so the test below is the per-pair one bit for bit. Edge i's arc
 * (normals times sg): */
void rcc_p3_edge_arc(const wpoly *w, int i, double sg, double u[3], double *un, double g[3])
{
    const int *E = w->s->edge + 4 * i;
    double na[3], nb[3];
    rcb_v3_sub(u, w->v[E[1]], w->v[E[0]]);
    *un = rcb_v3_norm(u);
    rcb_v3_scale(na, sg, w->pl[E[2]]);
    rcb_v3_scale(nb, sg, w->pl[E[3]]);
    rcb_v3_cross(g, nb, na);
}

/* a box's arcs are kept with its world copy (the same bits either sign),
 * computed when first needed */
void rcc_p3_edge_arcs(const wpoly *w, int negate, arcs *A)
{
    if (w->bw) {
        box_world *e = w->bw;
        if (!e->has_arcs)
            for (int i = 0; i < BOX_NE; i++) rcc_p3_edge_arc(w, i, 1.0, e->u[i], &e->un[i], e->g[i]);
        e->has_arcs = 1;
        memcpy(A->u, w->bw->u, sizeof w->bw->u);
        memcpy(A->un, w->bw->un, sizeof w->bw->un);
        memcpy(A->g, w->bw->g, sizeof w->bw->g);
        return;
    }
    for (int i = 0; i < w->s->ne; i++) rcc_p3_edge_arc(w, i, negate ? -1.0 : 1.0, A->u[i], &A->un[i], A->g[i]);
}

/* A->side: the normals of o (negated if negate) against A's arcs */
static void arc_sides(arcs *A, int ne, const wpoly *o, int negate)
{
    const double sg = negate ? -1.0 : 1.0;
    const int nf = o->s->nf;
    for (int f = 0; f < nf; f++) {
        double n[3];
        rcb_v3_scale(n, sg, o->pl[f]);
        for (int i = 0; i < ne; i++) A->side[i * nf + f] = rcb_v3_dot(n, A->g[i]);
    }
}

/* The edges j of b whose arcs cd (faces F[2], F[3], normals negated) cross
 * the arc ab of edge i of a (faces E[2], E[3]): the edges form a face of the
 * Minkowski difference (Gregorius 2013). Computed without branches (the
 * outcome of each pair is a coin toss to the branch predictor) into the list
 * js; returns its length. */
static int minkowski_faces(const arcs *A, const int *E, int i, const wpoly *b, const arcs *B, int nfa, int *js)
{
    const int nfb = b->s->nf, ne = b->s->ne, *F = b->s->edge;
    const double *sa = A->side + i * nfb;
    int n = 0;
    for (int j = 0; j < ne; j++) {
        const double cba = sa[F[4 * j + 2]], dba = sa[F[4 * j + 3]];
        const double adc = B->side[j * nfa + E[2]], bdc = B->side[j * nfa + E[3]];
        js[n] = j;
        n += (cba * dba < 0.0) & (adc * bdc < 0.0) & (cba * bdc > 0.0);
    }
    return n;
}

/* Edges i of a and j of b forming a Minkowski face: their axis ua x ub
 * (oriented away from a's centre) and separation, kept if the largest so far
 * (ties: the first pair in the order i, then j) */
void rcc_p3_edge_pair(const wpoly *a, const arcs *A, int i, const wpoly *b, const arcs *B, int j, edge_best *r)
{
    const int *E = a->s->edge + 4 * i, *F = b->s->edge + 4 * j;
    double x[3], d[3];
    rcb_v3_cross(x, A->u[i], B->u[j]);
    const double L2 = rcb_v3_dot(x, x), t = 1e-6 * A->un[i] * B->un[j];
    if (L2 < 0.25 * t * t) return;   /* surely parallel (below, the test itself) */
    const double L = sqrt(L2);
    if (!(L > t)) return;   /* parallel: the faces' case */
    rcb_v3_scale(x, 1.0 / L, x);
    rcb_v3_sub(d, a->v[E[0]], a->c);
    if (rcb_v3_dot(x, d) < 0.0) rcb_v3_scale(x, -1.0, x);
    rcb_v3_sub(d, b->v[F[0]], a->v[E[0]]);
    const double s = rcb_v3_dot(x, d);
    if (s > r->sep) { r->sep = s; r->ea = i; r->eb = j; rcb_v3_copy(r->axis, x); }
}

static _Thread_local arcs ARC_A, ARC_B;   /* 70 KB each: off the stack */

/* The edge pair of largest separation along ua x ub (oriented away from a's
 * centre) among the Minkowski faces; -HUGE_VAL and ea = -1 if none. */
static void edge_query(const wpoly *a, const wpoly *b, edge_best *r)
{
    arcs *A = &ARC_A, *B = &ARC_B;
    int js[EDGE_MAX];
    *r = (edge_best){ -HUGE_VAL, { 0, 0, 0 }, -1, -1 };
    if (a->s->ne > EDGE_MAX || b->s->ne > EDGE_MAX) return;   /* not reached: hulls are smaller */
    rcc_p3_edge_arcs(a, 0, A);
    rcc_p3_edge_arcs(b, 1, B);
    arc_sides(A, a->s->ne, b, 1);
    arc_sides(B, b->s->ne, a, 0);
    for (int i = 0; i < a->s->ne; i++) {
        const int nj = minkowski_faces(A, a->s->edge + 4 * i, i, b, B, a->s->nf, js);
        for (int k = 0; k < nj; k++) rcc_p3_edge_pair(a, A, i, b, B, js[k], r);
    }
}

/* ---------------------------------------------------------------- edge pair */

/* Closest points p0 + s u, q0 + t w of two segments (s, t in [0, 1];
 * Ericson 2005, Sec. 5.1.9). */
static void seg_closest(const double p0[3], const double u[3], const double q0[3], const double w[3], double *s_out,
                        double *t_out)
{
    double r[3];
    rcb_v3_sub(r, p0, q0);
    const double a = rcb_v3_dot(u, u), e = rcb_v3_dot(w, w), f = rcb_v3_dot(w, r);
    const double c = rcb_v3_dot(u, r), b = rcb_v3_dot(u, w), den = a * e - b * b;
    double s = den > 0.0 ? clampd((b * f - c * e) / den, 0.0, 1.0) : 0.0;
    double t = (b * s + f) / e;
    if (t < 0.0 || t > 1.0) {
        t = clampd(t, 0.0, 1.0);
        s = clampd((b * t - c) / a, 0.0, 1.0);
    }
    *s_out = s;
    *t_out = t;
}

static void edge_contact(const wpoly *a, const wpoly *b, int ea, int eb, const double n[3], double margin,
                         rcc_manifold3 *m)
{
    const int *E = a->s->edge + 4 * ea, *F = b->s->edge + 4 * eb;
    double u[3], w[3], xa[3], xb[3], d[3], s, t;
    rcb_v3_sub(u, a->v[E[1]], a->v[E[0]]);
    rcb_v3_sub(w, b->v[F[1]], b->v[F[0]]);
    seg_closest(a->v[E[0]], u, b->v[F[0]], w, &s, &t);
    rcb_v3_axpy(xa, a->v[E[0]], s, u);
    rcb_v3_axpy(xb, b->v[F[0]], t, w);
    rcb_v3_sub(d, xb, xa);
    const double g = rcb_v3_dot(n, d);
    if (!(g <= margin)) return;
    rcc_g3_set_point(&m->pt[m->n++], xa, xb, n, g, fcode(a->s, a->s->nv + ea), fcode(b->s, b->s->nv + eb));
}

/* ---------------------------------------------------------------- face contact */

enum { MAXP = 2 * RCC_POLY3_MAX_LOOP };

/* The clipped incident polygon: points x with their feature pair (fr on the
 * reference polyhedron, fi on the incident one, unified numbering), and the
 * label of the edge to the next point: >= 0 an incident edge, < 0 the side
 * -1 - el of the reference face (a piece cut along it). */
typedef struct {
    int n;
    double x[MAXP][3];
    int fr[MAXP], fi[MAXP], el[MAXP];
} cpoly;

typedef struct {
    const wpoly *R, *I;
    int f, ns, face_i;     /* reference face, its sides, the incident face */
} clip_ctx;

/* where the side planes k1 and k2 of the reference face meet on it: their
 * common vertex if they are adjacent, else side k2's edge */
static int ref_corner(const clip_ctx *c, int k1, int k2)
{
    const rcc_poly3 *s = c->R->s;
    const int j0 = s->fstart[c->f];
    if (k2 == (k1 + 1) % c->ns) return s->loop[j0 + k2];
    if (k1 == (k2 + 1) % c->ns) return s->loop[j0 + k1];
    return s->nv + s->ledge[j0 + k2];
}

static void emit(cpoly *o, const double x[3], int fr, int fi, int el)
{
    if (o->n >= MAXP) return;
    rcb_v3_copy(o->x[o->n], x);
    o->fr[o->n] = fr;
    o->fi[o->n] = fi;
    o->el[o->n++] = el;
}

/* Sutherland-Hodgman against side k (outward normal sn; the side's plane
 * sn.x = off), labelling the new points: an incident edge cut by the side
 * is (the side's edge, that edge); a piece along side k1 cut by side k is
 * (their corner, the incident face). A point up to tol outside the side is
 * kept as it is (its label survives round-off motions); an edge is cut only
 * where it crosses the side's plane between points more than tol inside and
 * outside (the cut exactly on both faces' boundaries): a point within tol of
 * the plane stands for the cut next to it. */
static void clip_side(const cpoly *in, cpoly *out, const clip_ctx *c, int k, const double sn[3], double off, double tol)
{
    const rcc_poly3 *R = c->R->s, *I = c->I->s;
    const int edge_k = R->nv + R->ledge[R->fstart[c->f] + k];
    out->n = 0;
    for (int i = 0; i < in->n; i++) {
        const int j = (i + 1) % in->n;
        const double di = rcb_v3_dot(sn, in->x[i]) - off, dj = rcb_v3_dot(sn, in->x[j]) - off;
        if (di <= tol) emit(out, in->x[i], in->fr[i], in->fi[i], di >= -tol && dj > tol ? -1 - k : in->el[i]);
        if (!((di < -tol && dj > tol) || (di > tol && dj < -tol))) continue;
        double x[3], d[3];
        rcb_v3_sub(d, in->x[j], in->x[i]);
        rcb_v3_axpy(x, in->x[i], di / (di - dj), d);
        const int el = in->el[i];
        if (el >= 0) emit(out, x, edge_k, I->nv + el, di <= 0.0 ? -1 - k : el);
        else emit(out, x, ref_corner(c, -1 - el, k), I->nv + I->ne + c->face_i, di <= 0.0 ? -1 - k : el);
    }
}

/* the incident face's loop (world), its vertices labelled (reference face, vertex) */
static void incident_polygon(cpoly *p, const clip_ctx *c)
{
    const rcc_poly3 *I = c->I->s;
    p->n = 0;
    for (int j = I->fstart[c->face_i]; j < I->fstart[c->face_i + 1]; j++)
        emit(p, c->I->v[I->loop[j]], c->R->s->nv + c->R->s->ne + c->f, I->loop[j], I->ledge[j]);
}

/* At most four of the n points kept (Gregorius 2015, "Robust contact
 * creation"): the deepest, the farthest from it, then the points making the
 * largest triangle with those two on either side (areas about the normal
 * nr). keep[] gets their indices; returns how many. */
static int reduce4(const cpoly *p, const double *g, const double nr[3], int keep[4])
{
    if (p->n <= 4) {
        for (int i = 0; i < p->n; i++) keep[i] = i;
        return p->n;
    }
    int i0 = 0, i1 = -1, i2 = -1, i3 = -1;
    for (int i = 1; i < p->n; i++) if (g[i] < g[i0]) i0 = i;
    double best = -1.0, lo = 0.0, hi = 0.0, d[3], e[3], x[3];
    for (int i = 0; i < p->n; i++) {
        rcb_v3_sub(d, p->x[i], p->x[i0]);
        if (rcb_v3_dot(d, d) > best) { best = rcb_v3_dot(d, d); i1 = i; }
    }
    rcb_v3_sub(d, p->x[i1], p->x[i0]);
    for (int i = 0; i < p->n; i++) {
        rcb_v3_sub(e, p->x[i], p->x[i0]);
        rcb_v3_cross(x, d, e);
        const double A = rcb_v3_dot(x, nr);
        if (A > hi) { hi = A; i2 = i; }
        if (A < lo) { lo = A; i3 = i; }
    }
    int n = 0;
    keep[n++] = i0;
    if (i1 != i0) keep[n++] = i1;
    if (i2 >= 0) keep[n++] = i2;
    if (i3 >= 0) keep[n++] = i3;
    return n;
}

/* Reference face f of R (R is A if ref_a), the incident face of I the one
 * most against its normal, clipped; the points with a gap <= margin + tol
 * (the gap: the depth below the reference plane), at most four. */
static void face_contact(const wpoly *R, int f, const wpoly *I, int ref_a, double margin, double tol, rcc_manifold3 *m)
{
    const rcc_poly3 *Rs = R->s;
    clip_ctx c = { R, I, f, Rs->fstart[f + 1] - Rs->fstart[f], 0 };
    const double *nr = R->pl[f];
    for (int k = 1; k < I->s->nf; k++)
        if (rcb_v3_dot(I->pl[k], nr) < rcb_v3_dot(I->pl[c.face_i], nr)) c.face_i = k;
    cpoly buf[2];
    int cur = 0;
    incident_polygon(&buf[0], &c);
    for (int k = 0; k < c.ns && buf[cur].n > 0; k++) {
        const double *r0 = R->v[Rs->loop[Rs->fstart[f] + k]], *r1 = R->v[Rs->loop[Rs->fstart[f] + (k + 1) % c.ns]];
        double u[3], sn[3];
        rcb_v3_sub(u, r1, r0);
        rcb_v3_cross(sn, u, nr);
        rcb_v3_scale(sn, 1.0 / rcb_v3_norm(sn), sn);
        clip_side(&buf[cur], &buf[1 - cur], &c, k, sn, rcb_v3_dot(sn, r0), tol);
        cur = 1 - cur;
    }
    /* the points under the margin */
    cpoly *p = &buf[cur], q;
    q.n = 0;
    double g[MAXP];
    for (int i = 0; i < p->n; i++) {
        const double gi = rcb_v3_dot(nr, p->x[i]) - R->pl[f][3];
        if (!(gi <= margin + tol)) continue;
        g[q.n] = gi;
        emit(&q, p->x[i], p->fr[i], p->fi[i], p->el[i]);
    }
    int keep[4];
    const int nk = reduce4(&q, g, nr, keep);
    for (int j = 0; j < nk; j++) {
        const int i = keep[j];
        double y[3], n[3];
        rcb_v3_axpy(y, q.x[i], -g[i], nr);                  /* on the reference face */
        const int cr = fcode(Rs, q.fr[i]), ci = fcode(I->s, q.fi[i]);
        if (ref_a) rcc_g3_set_point(&m->pt[m->n++], y, q.x[i], nr, g[i], cr, ci);
        else {
            rcb_v3_scale(n, -1.0, nr);
            rcc_g3_set_point(&m->pt[m->n++], q.x[i], y, n, g[i], ci, cr);
        }
    }
}

/* ---------------------------------------------------------------- distance */

/* The closest points of separated polyhedra (features in unified numbering):
 * the least of vertex-face distances whose projection falls in the face and
 * of edge-edge distances (ends included): exact for convex polyhedra apart. */
typedef struct {
    double d, pa[3], pb[3];
    int fa, fb;
} closest;

static int in_face(const wpoly *F, int f, const double x[3])
{
    const rcc_poly3 *s = F->s;
    const int j0 = s->fstart[f], ns = s->fstart[f + 1] - j0;
    for (int k = 0; k < ns; k++) {
        const double *r0 = F->v[s->loop[j0 + k]], *r1 = F->v[s->loop[j0 + (k + 1) % ns]];
        double u[3], sn[3], d[3];
        rcb_v3_sub(u, r1, r0);
        rcb_v3_cross(sn, u, F->pl[f]);
        rcb_v3_sub(d, x, r0);
        if (rcb_v3_dot(sn, d) > 0.0) return 0;
    }
    return 1;
}

/* h[f nv + k]: the height of V's vertex k over F's face plane f (nv: V's vertices) */
static void heights(const wpoly *F, const wpoly *V, double *h)
{
    const int nv = V->s->nv;
    for (int f = 0; f < F->s->nf; f++)
        for (int k = 0; k < nv; k++) h[f * nv + k] = rcb_v3_dot(F->pl[f], V->v[k]) - F->pl[f][3];
}

/* the vertices of V above the faces of F (F is A if f_is_a); h: heights(F, V) */
static void vertex_face(const wpoly *F, const wpoly *V, const double *h, int f_is_a, closest *c)
{
    const rcc_poly3 *s = F->s;
    const int nv = V->s->nv;
    for (int f = 0; f < s->nf; f++)
        for (int k = 0; k < nv; k++) {
            const double hk = h[f * nv + k];
            if (hk < 0.0 || hk >= c->d || !in_face(F, f, V->v[k])) continue;
            double y[3];
            rcb_v3_axpy(y, V->v[k], -hk, F->pl[f]);
            c->d = hk;
            rcb_v3_copy(f_is_a ? c->pa : c->pb, y);
            rcb_v3_copy(f_is_a ? c->pb : c->pa, V->v[k]);
            c->fa = f_is_a ? s->nv + s->ne + f : k;
            c->fb = f_is_a ? k : s->nv + s->ne + f;
        }
}

static int seg_feature(const rcc_poly3 *s, int e, double t)
{
    return t <= 0.0 ? s->edge[4 * e] : t >= 1.0 ? s->edge[4 * e + 1] : s->nv + e;
}

/* lb[e]: a lower bound of the distance from P's edge e to the convex Q:
 * the largest over Q's face planes of the smaller height of the edge's ends
 * (a height is linear along the edge, and Q lies below every plane); h:
 * heights(Q, P) */
static void edge_bounds(const wpoly *P, const wpoly *Q, const double *h, double *lb)
{
    const rcc_poly3 *s = P->s;
    const int nv = s->nv;
    for (int e = 0; e < s->ne; e++) {
        const int v0 = s->edge[4 * e], v1 = s->edge[4 * e + 1];
        double b = -HUGE_VAL;
        for (int f = 0; f < Q->s->nf; f++) {
            const double h0 = h[f * nv + v0], h1 = h[f * nv + v1], m = h0 < h1 ? h0 : h1;
            if (m > b) b = m;
        }
        lb[e] = b;
    }
}

/* the closest pair of edges; an edge farther from the other polyhedron
 * than the best distance so far (edge_bounds, with 1e-9 of the sizes for
 * the round-off) cannot be in a closer pair and is skipped: the same
 * result as trying every pair */
static void edge_pairs(const wpoly *A, const wpoly *B, const double *hab, const double *hba, closest *c)
{
    double la[EDGE_MAX], lb[EDGE_MAX];
    if (A->s->ne > EDGE_MAX || B->s->ne > EDGE_MAX) return;   /* not reached: hulls are smaller */
    edge_bounds(A, B, hab, la);
    edge_bounds(B, A, hba, lb);
    const double slack = 1e-9 * (A->r + B->r);
    for (int i = 0; i < A->s->ne; i++) {
        if (la[i] > c->d + slack) continue;
        const int *E = A->s->edge + 4 * i;
        double u[3];
        rcb_v3_sub(u, A->v[E[1]], A->v[E[0]]);
        for (int j = 0; j < B->s->ne; j++) {
            if (lb[j] > c->d + slack) continue;
            const int *F = B->s->edge + 4 * j;
            double w[3], xa[3], xb[3], d[3], s, t;
            rcb_v3_sub(w, B->v[F[1]], B->v[F[0]]);
            seg_closest(A->v[E[0]], u, B->v[F[0]], w, &s, &t);
            rcb_v3_axpy(xa, A->v[E[0]], s, u);
            rcb_v3_axpy(xb, B->v[F[0]], t, w);
            rcb_v3_sub(d, xb, xa);
            const double L = rcb_v3_norm(d);
            if (!(L < c->d)) continue;
            c->d = L;
            rcb_v3_copy(c->pa, xa);
            rcb_v3_copy(c->pb, xb);
            c->fa = seg_feature(A->s, i, s);
            c->fb = seg_feature(B->s, j, t);
        }
    }
}

/* the closest features of A and B, apart: vertex--face, then edge--edge */
static void closest_features(const wpoly *A, const wpoly *B, closest *c)
{
    double hab[RCC_POLY3_MAX_F * RCC_POLY3_MAX_V], hba[RCC_POLY3_MAX_F * RCC_POLY3_MAX_V];   /* A's vertices over B's faces, B's over A's */
    heights(B, A, hab);
    heights(A, B, hba);
    vertex_face(A, B, hba, 1, c);
    vertex_face(B, A, hab, 0, c);
    edge_pairs(A, B, hab, hba, c);
}

static double min_gap(const rcc_manifold3 *m)
{
    double g = HUGE_VAL;
    for (int i = 0; i < m->n; i++) g = fmin(g, m->pt[i].g);
    return g;
}

/* |pb - pa| = g: the points' offset is along the normal (the closest points of two edges inside both) */
static int along_normal(const rcc_point3 *o, double L)
{
    double d[3];
    rcb_v3_sub(d, o->pb, o->pa);
    return fabs(rcb_v3_norm(d) - fabs(o->g)) <= 1e-9 * L;
}

/* ---------------------------------------------------------------- the pair */

/* a face of B replaces A's if its separation is larger by the bias (a
 * fraction 1 - REL of a penetration, and ABS_TOL times the smaller size), an
 * edge pair the faces' likewise: face contacts are preferred (stable
 * manifolds, Gregorius 2013); separated pairs take the largest separation
 * to within ABS_TOL L */
#define REL_FACE 0.98
#define REL_EDGE 0.90
#define ABS_TOL 1e-4
/* the clipping tolerance (times the sizes): an incident vertex this close outside a
 * side of the reference face stays a vertex (its feature label, hence the contact id
 * and warm start, survive the round-off motions of a resting pair) */
#define CLIP_TOL 1e-6

/* s beats s0 by more than the bias: 1 - rel of a penetration, and ABS_TOL L */
static int better(double s, double s0, double rel, double L)
{
    return s > s0 + (1.0 - rel) * fmax(-s0, 0.0) + ABS_TOL * L;
}

/* the pair; ha, hb: the half sizes if a, b are boxes of rcc_poly3_box (their world copies kept: rcc_p3_box_world), else NULL */
static double collide(const rcc_poly3 *a, const rcc_pose3 *pa, const double *ha, const rcc_poly3 *b,
                      const rcc_pose3 *pb, const double *hb, double margin, rcc_manifold3 *m)
{
    wpoly A, B;
    int fa, fb;
    m->n = 0;
    if (a->nv > RCC_POLY3_MAX_V || a->nf > RCC_POLY3_MAX_F || b->nv > RCC_POLY3_MAX_V || b->nf > RCC_POLY3_MAX_F)
        return HUGE_VAL;   /* beyond the world copies (the builder of a polyhedron refuses it) */
    if (ha) rcc_p3_box_world(&A, a, ha, pa, NULL);
    else rcc_p3_to_world(&A, a, pa);
    if (hb) rcc_p3_box_world(&B, b, hb, pb, A.bw);
    else rcc_p3_to_world(&B, b, pb);
    const double tol = CLIP_TOL * (A.r + B.r);
    const double sa = face_query(&A, &B, tol, &fa);
    if (!(sa <= margin)) return sa;
    const double sb = face_query(&B, &A, tol, &fb);
    if (!(sb <= margin)) return sb;
    edge_best eq;
    if (A.bw && B.bw) rcc_p3_box_edge_query(&A, &ARC_A, &B, &ARC_B, &eq);
    else edge_query(&A, &B, &eq);
    const double se = eq.sep;
    const int ea = eq.ea, eb = eq.eb;
    const double *axis = eq.axis;
    if (ea >= 0 && !(se <= margin)) return se;
    const double L = fmin(A.r, B.r);
    const int use_edge = ea >= 0 && better(se, fmax(sa, sb), REL_EDGE, L), ref_b = better(sb, sa, REL_FACE, L);
    const double s = use_edge ? se : ref_b ? sb : sa;
    if (use_edge) edge_contact(&A, &B, ea, eb, axis, margin, m);
    else face_contact(ref_b ? &B : &A, ref_b ? fb : fa, ref_b ? &A : &B, !ref_b, margin, tol, m);
    if (s > tol && (m->n == 0 || fabs(min_gap(m) - s) > 1e-9 * L || (use_edge && !along_normal(&m->pt[0], L)))) {
        /* separated (beyond the clipping tolerance: closer, the manifold stays that of a touching
         * pair), and no point at the axis's separation (which the distance is then), or an edge
         * pair's closest points at an end: the closest features are not those of the axis, their point */
        closest c = { HUGE_VAL, { 0, 0, 0 }, { 0, 0, 0 }, 0, 0 };
        closest_features(&A, &B, &c);
        m->n = 0;
        if (!(c.d <= margin)) return c.d;
        double n[3];
        rcb_v3_sub(n, c.pb, c.pa);
        rcb_v3_scale(n, 1.0 / c.d, n);
        rcc_g3_set_point(&m->pt[m->n++], c.pa, c.pb, n, c.d, fcode(a, c.fa), fcode(b, c.fb));
        return c.d;
    }
    if (m->n == 0 && ea >= 0 && !use_edge) edge_contact(&A, &B, ea, eb, axis, margin, m);
    return s;
}

double rcc_collide_poly3(const rcc_poly3 *a, const rcc_pose3 *pa, const rcc_poly3 *b, const rcc_pose3 *pb,
                         double margin, rcc_manifold3 *m)
{
    return collide(a, pa, NULL, b, pb, NULL, margin, m);
}

double rcc_collide_box_box(const double ha[3], const rcc_pose3 *pa, const double hb[3], const rcc_pose3 *pb,
                           double margin, rcc_manifold3 *m)
{
    rcc_box_poly3 A, B;
    rcc_poly3_box(ha, &A);
    rcc_poly3_box(hb, &B);
    return collide(&A.p, pa, ha, &B.p, pb, hb, margin, m);
}

void rcc_g3_box_box(const rcc_shape3 *a, const rcc_pose3 *pa, const rcc_shape3 *b, const rcc_pose3 *pb,
                    double margin, rcc_manifold3 *m)
{
    rcc_collide_box_box(a->half, pa, b->half, pb, margin, m);
}
