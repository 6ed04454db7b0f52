/* nsgs3_order.c -- the order in which NSGS visits the 3D contacts of a
 * dim = 3 world (nsgs3.c), once per step in the world's work arena (no
 * allocation once it has grown):
 *   "fixed": the active contacts by index (detection order);
 *   "random": a random permutation of them, a new one each step (seed: the
 *            solver's seed and the step; the planar solver reshuffles every
 *            sweep, the 3D one keeps the step's order for its packed records);
 *   "colour": the greedy colouring (colour.c) of the active contacts in
 *            index order, no two contacts of a colour sharing a body (the
 *            ground and static obstacles are shared freely), colour by
 *            colour, index order within a colour: a colour's contacts touch
 *            disjoint velocities and may be swept by several threads with
 *            the numbers of one (nsgs3.c);
 *   "position": by the height of the contact point (the midpoint of pa, pb)
 *            along -gravity, bottom first, ties by index;
 *   "top":   the same, top first: a contact is visited after those of what
 *            rests on it, so that a wall's or a pile's weight reaches the
 *            supports within a sweep (docs/theory/spatial.md, "NSGS":
 *            measured on the rockfall wall);
 * without gravity, by index. */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>
#include <stdint.h>

typedef struct height_item {
    double h;
    int i;
} height_item;

/* stable bottom-up merge sort of a[0..n) by increasing h (b: scratch of
 * n); returns the sorted array (a or b) */
static height_item *sort_by_height(height_item *a, height_item *b, int n)
{
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            const int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, o = lo;
            while (i < mid && j < hi) b[o++] = a[j].h < a[i].h ? a[j++] : a[i++];
            while (i < mid) b[o++] = a[i++];
            while (j < hi) b[o++] = a[j++];
        }
        height_item *t = a;
        a = b;
        b = t;
    }
    return a;
}

static void contact3_bodies(const rc_world *w, int item, int ab[2])
{
    ab[0] = w->c3->c[item].body_a;   /* RC_GROUND (< 0): shared freely */
    ab[1] = w->c3->c[item].body_b;
}

/* order = "colour": o[0..m) (index order) recoloured in place, the colours'
 * colours in *col (their starts: m + 1 room) */
static rc_status colour3(rc_world *w, int *o, int m, rcn_colours *col)
{
    int *colour, *sweep;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&colour, m, sizeof(int), "3D colours"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&sweep, m, sizeof(int), "3D colours"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&col->start, m + 1LL, sizeof(int), "3D colours"));
    RC_CHECK(rcn_colour_greedy(w, o, m, contact3_bodies, colour, sweep, col->start, &col->n));
    for (int k = 0; k < m; k++) o[k] = sweep[k];
    return RC_OK;
}

rc_status rcn_nsgs3_order(rc_world *w, int **order, int *n, rcn_colours *col)
{
    const rcm_c3 *c3 = w->c3;
    int *o, m = 0;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&o, c3->n > 0 ? c3->n : 1, sizeof(int), "3D sweep order"));
    for (int i = 0; i < c3->n; i++)
        if (c3->c[i].active) o[m++] = i;
    *order = o;
    *n = m;
    col->n = 0;
    col->start = NULL;
    const rc_order ord = w->sim.solver.order;
    if (ord == RC_ORDER_COLOUR) return m > 0 ? colour3(w, o, m, col) : RC_OK;
    if (ord == RC_ORDER_RANDOM) {   /* Fisher--Yates, xorshift64 seeded as the planar solver's */
        uint64_t rng = w->sim.solver.seed * 0x9E3779B97F4A7C15ull + (uint64_t)w->step + 1;
        for (int k = m - 1; k > 0; k--) {
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
            const int r = (int)(rng % (uint64_t)(k + 1)), t = o[k];
            o[k] = o[r];
            o[r] = t;
        }
        return RC_OK;
    }
    const double *g = w->def.gravity;
    const double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    if ((ord != RC_ORDER_POSITION && ord != RC_ORDER_TOP) || m < 2 || !(gn > 0.0)) return RC_OK;
    const double sign = ord == RC_ORDER_TOP ? -1.0 : 1.0;   /* top first: by decreasing height */
    height_item *items;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&items, 2LL * m, sizeof(height_item), "3D sweep order"));
    for (int k = 0; k < m; k++) {
        const rcm_contact3 *c = &c3->c[o[k]];
        double h = 0.0;
        for (int d = 0; d < 3; d++) h -= g[d] / gn * 0.5 * (c->pa[d] + c->pb[d]);
        items[k].h = sign * h;
        items[k].i = o[k];
    }
    const height_item *s = sort_by_height(items, items + m, m);
    for (int k = 0; k < m; k++) o[k] = s[k].i;
    return RC_OK;
}
