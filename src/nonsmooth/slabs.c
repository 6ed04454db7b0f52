/* slabs.c -- NSGS's "slabs" order (RC_ORDER_SLABS), for threads with few
 * barriers: the planar active contacts in RCN_SLABS slabs across gravity,
 * then the contacts between two slabs.
 *
 * The colour order shares each colour among the threads and pays a barrier
 * per colour, 8 to 12 a sweep on a pile: the same per sweep whatever the
 * sweep costs, so two threads gained only 1.2x on the 10 000-disk pile of
 * this machine (docs/benchmarks.md). Here the bodies of the step's active
 * contacts are cut into RCN_SLABS slabs of equal width along the direction
 * across gravity (x without gravity), from their centres; a contact whose
 * bodies lie in one slab (or one body and the ground) belongs to it, the
 * others -- between two slabs -- to the boundary. A sweep visits slab 0,
 * slab 1, ..., then the boundary, each in key order. No two slabs share a
 * movable body, so the slabs may be swept by different threads in any
 * assignment with the same result bit for bit (one pass: the threads take
 * slabs dynamically, then one barrier, then one thread sweeps the boundary,
 * a few per cent of the contacts). The order depends on the active set and
 * the positions only, not on the threads. Contacts with a body that is not
 * a planar rigid body (a gap function's deformable body) go to the
 * boundary. The work arrays are the colour order's (w->colour for each
 * contact's slab, w->body_top for each body's, w->colour_start for the
 * slabs' starts: RCN_SLABS + 1 ranges, the last the boundary). */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>

/* the coordinate of body b across gravity (its centre), or NAN */
static double across(const rc_world *w, int b, const double ax[2])
{
    if (b < 0) return NAN;
    const rc_body *bd = &w->bodies[b];
    if (bd->kind != RC_BODY_RIGID2D) return NAN;
    return ax[0] * w->q[bd->iq] + ax[1] * w->q[bd->iq + 1];
}

rc_status rcn_slab_order(rc_world *w)
{
    const int n = w->nactive, cap = w->ncontacts;
    if (n == 0) return RC_OK;
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->sweep, cap, sizeof(int), "sweep order"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->colour, cap, sizeof(int), "slabs"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->colour_start, RCN_SLABS + 2, sizeof(int), "slabs"));
    const double *g = w->def.gravity;
    const double gn = sqrt(g[0] * g[0] + g[1] * g[1]);
    const double ax[2] = { gn > 0.0 ? -g[1] / gn : 1.0, gn > 0.0 ? g[0] / gn : 0.0 };   /* across gravity */
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        const double s[2] = { across(w, c->body_a, ax), across(w, c->body_b, ax) };
        for (int i = 0; i < 2; i++)
            if (s[i] == s[i]) { lo = fmin(lo, s[i]); hi = fmax(hi, s[i]); }
    }
    const double scale = hi > lo ? RCN_SLABS / (hi - lo) : 0.0;
    int *start = w->colour_start;
    for (int s = 0; s <= RCN_SLABS + 1; s++) start[s] = 0;
    for (int k = 0; k < n; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        int slab[2] = { -1, -1 }, bad = 0;
        const int ab[2] = { c->body_a, c->body_b };
        for (int i = 0; i < 2; i++) {
            if (ab[i] < 0) continue;   /* the ground: shared freely */
            const double x = across(w, ab[i], ax);
            if (!(x == x)) { bad = 1; continue; }
            const int s = (int)((x - lo) * scale);
            slab[i] = s < 0 ? 0 : s >= RCN_SLABS ? RCN_SLABS - 1 : s;
        }
        int s = slab[0] < 0 ? slab[1] : slab[1] < 0 || slab[1] == slab[0] ? slab[0] : RCN_SLABS;
        if (bad || s < 0) s = RCN_SLABS;
        w->colour[k] = s;
        start[s + 1]++;
    }
    for (int s = 0; s <= RCN_SLABS; s++) start[s + 1] += start[s];   /* counting sort, stable: key order kept */
    for (int k = 0; k < n; k++) w->sweep[start[w->colour[k]]++] = w->active[k];
    for (int s = RCN_SLABS + 1; s > 0; s--) start[s] = start[s - 1];
    start[0] = 0;
    w->ncolours = RCN_SLABS + 1;
    return RC_OK;
}

void rcn_slab_pass(const int *start, int boundary, rcn_colour_range range, void *ctx)
{
    RC_OMP(omp for schedule(dynamic, 1))
    for (int s = 0; s < RCN_SLABS; s++) (void)range(ctx, start[s], start[s + 1]);
    if (!boundary) return;
    RC_OMP(omp single)
    (void)range(ctx, start[RCN_SLABS], start[RCN_SLABS + 1]);
}
