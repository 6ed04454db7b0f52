/* slabs.c -- NSGS's "slabs" order (RC_ORDER_SLABS), for threads with few
 * barriers: the planar active contacts in RCN_SLABS slabs across gravity,
 * nested by halves, each half's contacts before those that join it to its
 * sibling.
 *
 * The colour order shares each colour among the threads and pays a barrier
 * per colour, 8 to 12 a sweep on a pile: the same per sweep whatever the
 * sweep costs (docs/benchmarks.md). Here the bodies of the step's active
 * contacts are cut, along the direction across gravity (x without
 * gravity), into RCN_SLABS slabs holding about as many contacts each
 * (quantiles of a histogram of the contacts over their body B's centre:
 * a pile's heap puts more contacts in its middle than at its walls). The
 * slabs are the leaves of a complete binary tree (RCN_SLAB_LEVELS levels);
 * a contact belongs to the lowest node whose slabs hold both its bodies
 * (one body and the ground: its body's slab). A sweep visits the nodes in
 * post-order -- a node's left half, its right half, then its own contacts,
 * those joining the two halves --, key order within a node: RCN_SLAB_SEGS
 * segments, the root's last.
 *
 * Two subtrees share no movable body, so a thread may sweep two of them side
 * by side (rcn_nsgs_pack_sweep2: a record of one, a record of the other,
 * ...; two independent chains of updates in flight instead of one) and
 * threads may sweep them at the same time, with the result of the
 * one-thread order bit for bit: with 2^d
 * threads each takes a subtree of height RCN_SLAB_LEVELS - d, then the
 * nodes above them level by level (those of a level in parallel), the
 * root last on one thread. On two threads the root's contacts -- a column
 * one slab-boundary wide, 0.34 % of the 10 000-disk pile's -- are the only ones swept
 * by one thread while the other waits: two barriers a sweep. The order
 * depends on the active set and the positions only, not on the threads.
 * Contacts with a body that is not a planar rigid body (a gap function's
 * deformable body) go to the root. The work arrays are the colour order's
 * (w->colour for each contact's segment, w->colour_start for the
 * segments' starts); the histogram comes from the step's work memory. */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>

enum { NBINS = 4096 };

/* the coordinate of body b across gravity (its centre), or NAN */
static double across(const rc_world *w, int b, const double ax[2])
{
    if (b < 0) return NAN;
    const rc_body *bd = &w->bodies[b];
    if (bd->kind != RC_BODY_RIGID2D) return NAN;
    return ax[0] * w->q[bd->iq] + ax[1] * w->q[bd->iq + 1];
}

/* The post-order index of node (height h, index j): the segments before it
 * are the nodes of the subtrees left of it and its own subtree's others.
 * A subtree of height h has 2^(h+1) - 1 nodes; the nodes left of (h, j)
 * are, for each set bit i of j << h (i >= h), a full subtree of height i. */
int rcn_slab_segment(int h, int j)
{
    int before = (1 << (h + 1)) - 2, x = j << h;
    for (int i = h; i < RCN_SLAB_LEVELS; i++)
        if (x >> i & 1) before += (1 << (i + 1)) - 1;
    return before;
}

/* the first segment of the subtree of (h, j) */
static int subtree_first(int h, int j) { return rcn_slab_segment(h, j) - ((1 << (h + 1)) - 2); }

rc_status rcn_slab_order(rc_world *w)
{
    const int n = w->nactive, cap = w->ncontacts;
    if (n == 0) return RC_OK;
    int *bins;
    double *xs;   /* the contacts' bodies' coordinates across gravity, A then B (NAN: the ground or not rigid) */
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->sweep, cap, sizeof(int), "sweep order"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->colour, cap, sizeof(int), "slabs"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->colour_start, RCN_SLAB_SEGS + 1, sizeof(int), "slabs"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&bins, NBINS, sizeof(int), "slabs"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&xs, 2LL * n, sizeof(double), "slabs"));
    const double *g = w->def.gravity;
    const double gn = sqrt(g[0] * g[0] + g[1] * g[1]);
    const double ax[2] = { gn > 0.0 ? -g[1] / gn : 1.0, gn > 0.0 ? g[0] / gn : 0.0 };   /* across gravity */
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        double *x = xs + 2 * k;
        x[0] = across(w, c->body_a, ax);
        x[1] = across(w, c->body_b, ax);
        for (int i = 0; i < 2; i++)
            if (x[i] == x[i]) { lo = x[i] < lo ? x[i] : lo; hi = x[i] > hi ? x[i] : hi; }
    }
    const double scale = hi > lo ? NBINS / (hi - lo) : 0.0;
#define BIN(x) ((int)(((x) - lo) * scale < NBINS - 1.0 ? ((x) - lo) * scale : NBINS - 1.0))
    /* the slab of each bin: the contacts counted at their body B (or A),
     * bin b's slab from the contacts before its middle */
    for (int b = 0; b < NBINS; b++) bins[b] = 0;
    int counted = 0;
    for (int k = 0; k < n; k++) {
        const double x = xs[2 * k + 1] == xs[2 * k + 1] ? xs[2 * k + 1] : xs[2 * k];
        if (x == x) { bins[BIN(x)]++; counted++; }
    }
    for (int b = 0, before = 0; b < NBINS; b++) {
        const int cnt = bins[b];
        const long long mid2 = 2LL * before + cnt;   /* twice the contacts before the bin's middle */
        const int s = counted > 0 ? (int)(mid2 * RCN_SLABS / (2LL * counted)) : 0;
        bins[b] = s < RCN_SLABS ? s : RCN_SLABS - 1;
        before += cnt;
    }
    int *start = w->colour_start;
    for (int s = 0; s <= RCN_SLAB_SEGS; s++) start[s] = 0;
    for (int k = 0; k < n; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        const int ab[2] = { c->body_a, c->body_b };
        int slab[2] = { -1, -1 }, bad = 0;
        for (int i = 0; i < 2; i++) {
            if (ab[i] < 0) continue;   /* the ground: shared freely */
            const double x = xs[2 * k + i];
            if (!(x == x)) { bad = 1; continue; }
            slab[i] = bins[BIN(x)];
        }
        int seg;
        if (bad || (slab[0] < 0 && slab[1] < 0)) {
            seg = RCN_SLAB_SEGS - 1;   /* the root */
        } else {
            const int la = slab[0] < 0 ? slab[1] : slab[0], lb = slab[1] < 0 ? slab[0] : slab[1];
            int h = 0;
            while ((la >> h) != (lb >> h)) h++;   /* the lowest common node's height */
            seg = rcn_slab_segment(h, la >> h);
        }
        w->colour[k] = seg;
        start[seg + 1]++;
    }
#undef BIN
    for (int s = 0; s < RCN_SLAB_SEGS; s++) start[s + 1] += start[s];   /* counting sort, stable: key order kept */
    for (int k = 0; k < n; k++) w->sweep[start[w->colour[k]]++] = w->active[k];
    for (int s = RCN_SLAB_SEGS; s > 0; s--) start[s] = start[s - 1];
    start[0] = 0;
    w->ncolours = RCN_SLAB_SEGS;
    return RC_OK;
}

int rcn_slab_interleave = 1;

/* the subtree of (h, j) in sweep: its two halves side by side (range2),
 * then its own node; or its segments in order */
static void subtree(const int *start, int h, int j, rcn_colour_range range, rcn_slab_range2 range2, void *ctx)
{
    const int last = rcn_slab_segment(h, j);
    if (h == 0 || !range2 || !rcn_slab_interleave) {
        (void)range(ctx, start[subtree_first(h, j)], start[last + 1]);
        return;
    }
    const int left = rcn_slab_segment(h - 1, 2 * j), right = rcn_slab_segment(h - 1, 2 * j + 1);
    (void)range2(ctx, start[subtree_first(h - 1, 2 * j)], start[left + 1], start[subtree_first(h - 1, 2 * j + 1)],
                 start[right + 1]);
    (void)range(ctx, start[last], start[last + 1]);
}

void rcn_slab_pass(const int *start, int root, rcn_colour_range range, rcn_slab_range2 range2, void *ctx)
{
    int nth = 1;
#ifdef _OPENMP
    nth = omp_get_num_threads();
#endif
    if (nth == 1) {   /* this thread alone: the root's halves, then (root) its own contacts */
        const int L = RCN_SLAB_LEVELS, end = RCN_SLAB_SEGS - 1;
        if (range2 && rcn_slab_interleave)
            (void)range2(ctx, start[0], start[rcn_slab_segment(L - 1, 0) + 1], start[subtree_first(L - 1, 1)],
                         start[rcn_slab_segment(L - 1, 1) + 1]);
        else (void)range(ctx, 0, start[end]);
        if (root) (void)range(ctx, start[end], start[RCN_SLAB_SEGS]);
        return;
    }
    int d = 0;   /* 2^d subtrees, at most one per thread */
    while (d < RCN_SLAB_LEVELS && 2 << d <= nth) d++;
    const int h0 = RCN_SLAB_LEVELS - d;
    RC_OMP(omp for schedule(static, 1))
    for (int j = 0; j < 1 << d; j++) subtree(start, h0, j, range, range2, ctx);
    for (int h = h0 + 1; h < RCN_SLAB_LEVELS; h++) {   /* the nodes between the subtrees and the root */
        RC_OMP(omp for schedule(static, 1))
        for (int j = 0; j < 1 << (RCN_SLAB_LEVELS - h); j++) {
            const int s = rcn_slab_segment(h, j);
            (void)range(ctx, start[s], start[s + 1]);
        }
    }
    if (!root) return;
    RC_OMP(omp single)
    (void)range(ctx, start[RCN_SLAB_SEGS - 1], start[RCN_SLAB_SEGS]);
}
