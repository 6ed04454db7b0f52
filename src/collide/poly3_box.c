/* poly3_box.c -- the box in the convex-polyhedron routine (collide/poly3.c,
 * geom3d.h): its topology as a polyhedron, its world copies kept for the
 * next pairs of the same box, and the box-box edge query by the boxes' three
 * edge directions; both give what the general routine computes, bit for bit
 * (docs/theory/polyhedra.md, "The box-box fast path"). */
#include "collide/poly3_impl.h"

#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------- the box */

/* vertex k: bit i set on the + side of axis i; faces -x, +x, -y, +y, -z, +z,
 * loops counter-clockwise seen from outside; edges (v0, v1, f0, f1) */
static const int BOX_FSTART[7] = { 0, 4, 8, 12, 16, 20, 24 };
static const int BOX_LOOP[24] = { 4, 6, 2, 0, 1, 3, 7, 5, 1, 5, 4, 0, 2, 6, 7, 3, 2, 3, 1, 0, 4, 5, 7, 6 };
static const int BOX_LEDGE[24] = { 9, 6, 1, 2, 3, 7, 10, 4, 4, 8, 2, 0, 6, 11, 7, 5, 5, 3, 0, 1, 8, 10, 11, 9 };
static const int BOX_EDGE[48] = { 0, 1, 2, 4, 0, 2, 0, 4, 0, 4, 0, 2, 1, 3, 1, 4, 1, 5, 1, 2, 2, 3, 3, 4,
                                  2, 6, 0, 3, 3, 7, 1, 3, 4, 5, 2, 5, 4, 6, 0, 5, 5, 7, 1, 5, 6, 7, 3, 5 };
/* rcc_box_feature of each feature: 8 vertices, 12 edges, 6 faces */
static const unsigned char BOX_CODE[26] = { 0, 2, 6, 8, 18, 20, 24, 26,
                                            1, 3, 9, 5, 11, 7, 15, 17, 19, 21, 23, 25,
                                            12, 14, 10, 16, 4, 22 };

void rcc_poly3_box(const double half[3], rcc_box_poly3 *b)
{
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < 3; i++) b->v[3 * k + i] = (k >> i) & 1 ? half[i] : -half[i];
    for (int f = 0; f < 6; f++) {
        double *pl = b->plane + 4 * f;
        pl[0] = pl[1] = pl[2] = 0.0;
        pl[f / 2] = f & 1 ? 1.0 : -1.0;
        pl[3] = half[f / 2];
    }
    b->p = (rcc_poly3){ 8, 12, 6, b->v, b->plane, BOX_FSTART, BOX_LOOP, BOX_LEDGE, BOX_EDGE, BOX_CODE };
}

/* ---------------------------------------------------------------- the world copies kept */

/* A box's world copy and its arcs, kept for the next pairs of the same box
 * (a block of a wall is in ten pairs or so, met close together in the
 * broad phase's order): a direct-mapped table keyed by the copy's inputs
 * (half sizes and pose, bit for bit), so that a hit returns what rcc_p3_to_world
 * and rcc_p3_edge_arc would compute. The arcs are those of the unnegated normals:
 * (-b) x (-a) = b x a bit for bit, so they serve either side of the pair. */
enum { MEMO = 64 };

static unsigned memo_slot(const double key[10])
{
    uint64_t h = 0;
    for (int i = 3; i < 10; i++) {
        uint64_t x;
        memcpy(&x, key + i, sizeof x);
        h = (h ^ x) * 0x9E3779B97F4A7C15ULL;
    }
    return (unsigned)(h >> 58) & (MEMO - 1);
}

/* the world copy of box s from the entry of its half sizes and pose, else
 * computed into w and kept (not in keep's entry) */
void rcc_p3_box_world(wpoly *w, const rcc_poly3 *s, const double half[3], const rcc_pose3 *p, const box_world *keep)
{
    static _Thread_local box_world memo[MEMO + 1];   /* + 1: the entry when the slot is keep's */
    const double key[10] = { half[0], half[1], half[2], p->p[0], p->p[1], p->p[2], p->q[0], p->q[1], p->q[2], p->q[3] };
    box_world *e = &memo[memo_slot(key)];
    if (e == keep) e = &memo[MEMO];
    if (e->full && memcmp(e->key, key, sizeof key) == 0) {
        w->s = s;
        memcpy(w->v, e->v, sizeof e->v);
        memcpy(w->pl, e->pl, sizeof e->pl);
        rcb_v3_copy(w->c, e->c);
        w->r = e->r;
    } else {
        rcc_p3_to_world(w, s, p);
        memcpy(e->key, key, sizeof key);
        memcpy(e->v, w->v, sizeof e->v);
        memcpy(e->pl, w->pl, sizeof e->pl);
        rcb_v3_copy(e->c, w->c);
        e->r = w->r;
        e->full = 1;
        e->has_arcs = 0;   /* rcc_p3_edge_arcs computes them when first needed */
    }
    w->bw = e;
}

/* ---------------------------------------------------------------- the queries */

/* Face f = 2m + 1 of a box has the normal n = N_m, face 2m the normal -n
 * (bit for bit but for the signs of zero components): with y_k = n.v_k, face
 * 2m + 1 gives min_k (y_k - d) and face 2m min_k (-y_k - d') = -max_k (y_k +
 * d') (negation is exact, rounding is monotone and odd): the general loop's
 * numbers from half its dots, except the sign of an exact zero (x - x is +0
 * either way round), so a zero is computed as the general loop does. */
void rcc_p3_box_face_seps(const wpoly *a, const wpoly *b, double s[6])
{
    for (int m = 0; m < 3; m++) {
        const double *pl = a->pl[2 * m + 1], d0 = a->pl[2 * m][3];
        double lo = HUGE_VAL, hi = -HUGE_VAL;
        for (int k = 0; k < b->s->nv; k++) {
            const double y = rcb_v3_dot(pl, b->v[k]), x = y - pl[3], x0 = y + d0;
            if (x < lo) lo = x;
            if (x0 > hi) hi = x0;
        }
        s[2 * m + 1] = lo;
        s[2 * m] = hi != 0.0 ? -hi : rcc_p3_face_sep(a, 2 * m, b);
    }
}

/* Box-box: the same pairs as edge_query's, found by the boxes' structure.
 * A box's 12 edges are 3 groups of 4 parallel ones, whose arcs g are +-G (the
 * cross product of the same two normals up to order and signs: rotation and
 * cross product are linear, negation is exact), and its opposite faces'
 * normals are negatives, both bit for bit but for the signs of zeros, which
 * the tests' strict comparisons do not see. So the first test, cba dba < 0,
 * has one outcome for the four edges i of a group (the same product up to
 * its sign pattern), and the second, adc bdc < 0, one for the four edges j
 * of a group: 6 dots per group each way, then the third test, cba bdc > 0,
 * computed as edge_query does on the pairs passing both. */
static const int BOX_GROUP[12] = { 0, 1, 2, 1, 2, 0, 2, 2, 0, 1, 1, 0 };   /* the axis of edge i */
static const unsigned BOX_GMASK[3] = { 0x921u, 0x60au, 0xd4u };           /* the edges of each axis */

/* side[f]: box o's face normals (times sg) against the arc of A's edge k,
 * the first of group k; returns the edges of o whose faces lie on either
 * side (the first test: their arcs cross the group's great circle) */
static unsigned crossing(const arcs *A, int k, const wpoly *o, double sg, double side[6])
{
    unsigned m = 0;
    for (int f = 0; f < 6; f++) {
        double n[3];
        rcb_v3_scale(n, sg, o->pl[f]);
        side[f] = rcb_v3_dot(n, A->g[k]);
    }
    for (int j = 0; j < BOX_NE; j++) {
        const int *F = o->s->edge + 4 * j;
        m |= (unsigned)(side[F[2]] * side[F[3]] < 0.0) << j;
    }
    return m;
}

/* sg[i]: +-1, arc i of A against its group's first (g_i = sg[i] g_k) */
static void arc_signs(const arcs *A, double sg[BOX_NE])
{
    for (int i = 0; i < BOX_NE; i++) sg[i] = rcb_v3_dot(A->g[i], A->g[BOX_GROUP[i]]) > 0.0 ? 1.0 : -1.0;
}

/* The third test's cba bdc for the pair (i, j) is ga_i gb_j sa[k(i)][F2_j]
 * sb[l(j)][E3_i] up to the signs of zeros; its sign is that of c[k(i)][j]
 * e[i][l(j)] below (exact sign flips), evaluated for the 144 pairs without
 * branches (each a coin toss to the branch predictor). */
void rcc_p3_box_edge_query(const wpoly *a, arcs *A, const wpoly *b, arcs *B, edge_best *r)
{
    unsigned f1[3], f2[3];
    double sa[3][6], sb[3][6], ga[BOX_NE], gb[BOX_NE], c[3][BOX_NE], e[BOX_NE][3];
    *r = (edge_best){ -HUGE_VAL, { 0, 0, 0 }, -1, -1 };
    rcc_p3_edge_arcs(a, 0, A);
    rcc_p3_edge_arcs(b, 1, B);
    for (int k = 0; k < 3; k++) {   /* edge k is the first of group k */
        f1[k] = crossing(A, k, b, -1.0, sa[k]);
        f2[k] = crossing(B, k, a, 1.0, sb[k]);
    }
    arc_signs(A, ga);
    arc_signs(B, gb);
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < BOX_NE; j++) {
            c[k][j] = gb[j] * sa[k][b->s->edge[4 * j + 2]];
            e[j][k] = ga[j] * sb[k][a->s->edge[4 * j + 3]];
        }
    for (int i = 0; i < BOX_NE; i++) {
        const double *ck = c[BOX_GROUP[i]];
        unsigned cand = 0, third = 0;
        for (int l = 0; l < 3; l++) cand |= BOX_GMASK[l] & (0u - (f2[l] >> i & 1u));   /* the second test */
        for (int j = 0; j < BOX_NE; j++) third |= (unsigned)(ck[j] * e[i][BOX_GROUP[j]] > 0.0) << j;
        cand &= f1[BOX_GROUP[i]] & third;
        while (cand) {
            const int j = __builtin_ctz(cand);
            cand &= cand - 1u;
            rcc_p3_edge_pair(a, A, i, b, B, j, r);
        }
    }
}
