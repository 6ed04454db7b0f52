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

/* the coordinate of body b across gravity (its centre): INFINITY for the
 * ground (shared freely), NAN for a body that is not planar rigid */
static double across(const rc_world *w, int b, const double ax[2])
{
    if (b < 0) return INFINITY;
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

/* The order's passes over the active contacts k0 .. k1 (one thread's half,
 * or all): each pass's results are the same whatever the cut, so that the
 * order is that of one thread bit for bit (integer counts; the range's
 * largest and smallest coordinate). */
typedef struct slab_scan {
    double *xs;                       /* the coordinates of the bodies A, B of each contact */
    const int *slab_of_bin;           /* NBINS */
    double ax[2], lo, scale;
} slab_scan;

static int bin_of(const slab_scan *sc, double x)
{
    const double f = (x - sc->lo) * sc->scale;
    return (int)(f < NBINS - 1.0 ? f : NBINS - 1.0);
}

/* the bodies' coordinates; [lo, hi] of the finite ones */
static void scan_coordinates(const rc_world *w, slab_scan *sc, int k0, int k1, double *lo, double *hi)
{
    double l = INFINITY, u = -INFINITY;
    for (int k = k0; k < k1; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        double *x = sc->xs + 2 * k;
        x[0] = across(w, c->body_a, sc->ax);
        x[1] = across(w, c->body_b, sc->ax);
        for (int i = 0; i < 2; i++)
            if (isfinite(x[i])) { l = x[i] < l ? x[i] : l; u = x[i] > u ? x[i] : u; }
    }
    *lo = l;
    *hi = u;
}

/* the contacts counted at their body B (or A) in the bins; their number */
static int scan_histogram(const slab_scan *sc, int k0, int k1, int *bins)
{
    int counted = 0;
    for (int b = 0; b < NBINS; b++) bins[b] = 0;
    for (int k = k0; k < k1; k++) {
        const double x = isfinite(sc->xs[2 * k + 1]) ? sc->xs[2 * k + 1] : sc->xs[2 * k];
        if (isfinite(x)) { bins[bin_of(sc, x)]++; counted++; }
    }
    return counted;
}

/* each contact's segment (w->colour), counted per segment in cnt */
static void scan_segments(rc_world *w, const slab_scan *sc, int k0, int k1, int *cnt)
{
    for (int s = 0; s < RCN_SLAB_SEGS; s++) cnt[s] = 0;
    for (int k = k0; k < k1; k++) {
        int slab[2] = { -1, -1 }, bad = 0;
        for (int i = 0; i < 2; i++) {
            const double x = sc->xs[2 * k + i];
            if (x == INFINITY) continue;   /* the ground: shared freely */
            if (!(x == x)) { bad = 1; continue; }
            slab[i] = sc->slab_of_bin[bin_of(sc, x)];
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
        cnt[seg]++;
    }
}

/* The order's four passes over the active contacts run on two threads with
 * the solver's (each thread a fixed half, rcm_team2): the histogram and the
 * segment counts per half, added; the counting sort's scatter per half from
 * offsets that put the first half's contacts of a segment before the
 * second's -- the one-thread order exactly. */
rc_status rcn_slab_order(rc_world *w)
{
    const int n = w->nactive, cap = w->ncontacts;
    if (n == 0) return RC_OK;
    int *bins, *cnt;   /* bins: 2 x NBINS (a half's histogram each); cnt: 2 x RCN_SLAB_SEGS */
    slab_scan sc;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->sweep, cap, sizeof(int), "sweep order"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->colour, cap, sizeof(int), "slabs"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->colour_start, RCN_SLAB_SEGS + 1, sizeof(int), "slabs"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&bins, 2 * NBINS, sizeof(int), "slabs"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&cnt, 2 * RCN_SLAB_SEGS, sizeof(int), "slabs"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&sc.xs, 2LL * n, sizeof(double), "slabs"));
    const double *g = w->def.gravity;
    const double gn = sqrt(g[0] * g[0] + g[1] * g[1]);
    sc.ax[0] = gn > 0.0 ? -g[1] / gn : 1.0;   /* across gravity */
    sc.ax[1] = gn > 0.0 ? g[0] / gn : 0.0;
    const int team = rcm_team2(w, n), half = team ? n / 2 : n;
    const int k0[2] = { 0, half }, k1[2] = { half, n };
    double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
    int counted[2] = { 0, 0 };
    RC_OMP(omp parallel for num_threads(2) schedule(static, 1) if(team))
    for (int t = 0; t < 2; t++) scan_coordinates(w, &sc, k0[t], k1[t], &lo[t], &hi[t]);
    const double l = lo[0] < lo[1] ? lo[0] : lo[1], u = hi[0] > hi[1] ? hi[0] : hi[1];
    sc.lo = l;
    sc.scale = u > l ? NBINS / (u - l) : 0.0;
    RC_OMP(omp parallel for num_threads(2) schedule(static, 1) if(team))
    for (int t = 0; t < 2; t++) counted[t] = scan_histogram(&sc, k0[t], k1[t], bins + t * NBINS);
    /* the slab of each bin: bin b's slab from the contacts before its middle */
    const int total = counted[0] + counted[1];
    for (int b = 0, before = 0; b < NBINS; b++) {
        const int c = bins[b] + bins[NBINS + b];
        const long long mid2 = 2LL * before + c;   /* twice the contacts before the bin's middle */
        const int s = total > 0 ? (int)(mid2 * RCN_SLABS / (2LL * total)) : 0;
        bins[b] = s < RCN_SLABS ? s : RCN_SLABS - 1;
        before += c;
    }
    sc.slab_of_bin = bins;
    RC_OMP(omp parallel for num_threads(2) schedule(static, 1) if(team))
    for (int t = 0; t < 2; t++) scan_segments(w, &sc, k0[t], k1[t], cnt + t * RCN_SLAB_SEGS);
    /* counting sort, stable (key order kept): a segment's first half, then its second */
    int *start = w->colour_start, *off0 = bins, *off1 = bins + RCN_SLAB_SEGS;   /* the bins are done with */
    start[0] = 0;
    for (int s = 0; s < RCN_SLAB_SEGS; s++) {
        off0[s] = start[s];
        off1[s] = start[s] + cnt[s];
        start[s + 1] = start[s] + cnt[s] + cnt[RCN_SLAB_SEGS + s];
    }
    RC_OMP(omp parallel for num_threads(2) schedule(static, 1) if(team))
    for (int t = 0; t < 2; t++) {
        int *off = t ? off1 : off0;
        for (int k = k0[t]; k < k1[t]; k++) w->sweep[off[w->colour[k]]++] = w->active[k];
    }
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
