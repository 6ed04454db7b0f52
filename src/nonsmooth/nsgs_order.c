/* nsgs_order.c -- the order in which planar NSGS (nsgs.c, anderson.c)
 * visits the active contacts, once per step in the world's work arena (no
 * allocation once it has grown): "fixed", key order (w->active itself);
 * "random", key order here, shuffled per sweep by nsgs.c; "position" and
 * "top" by the height of the contact point along gravity; "colour" by the
 * greedy colouring of colour.c; "slabs" by slabs.c. The planar twin of
 * nsgs3_order.c. */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>

static inline int item_before(const rc_world *w, const rc_sort_item *x, const rc_sort_item *y, int top)
{
    if (x->height != y->height) return top ? x->height > y->height : x->height < y->height;
    return w->contacts[x->contact].key <= w->contacts[y->contact].key;
}

/* RC_ORDER_POSITION: w->sweep = the active contacts by the height of their
 * point along -gravity (bottom first; RC_ORDER_TOP, top: top first), ties by key; a stable bottom-up merge
 * sort in the world's work array (no allocation once it has grown). Gap
 * contacts carry the point collide/linear gave them. Without gravity every
 * height is 0: key order. */
static rc_status position_order(rc_world *w, int top)
{
    const int n = w->nactive, cap = w->ncontacts;   /* sized like w->active: by the contacts */
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->sweep, cap, sizeof(int), "sweep order"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->sort_items, 2LL * cap, sizeof(rc_sort_item), "sweep order"));
    if (n == 0) return RC_OK;   /* (no arithmetic on the arrays, NULL while no contact was ever detected) */
    const double *g = w->def.gravity;
    const double gn = sqrt(g[0] * g[0] + g[1] * g[1]);
    const double up[2] = { gn > 0.0 ? -g[0] / gn : 0.0, gn > 0.0 ? -g[1] / gn : 0.0 };
    rc_sort_item *a = w->sort_items, *b = a + n;
    for (int k = 0; k < n; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        a[k].height = up[0] * c->point[0] + up[1] * c->point[1];
        a[k].contact = w->active[k];
    }
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, o = lo;
            while (i < mid && j < hi) b[o++] = item_before(w, &a[i], &a[j], top) ? a[i++] : a[j++];
            while (i < mid) b[o++] = a[i++];
            while (j < hi) b[o++] = a[j++];
        }
        rc_sort_item *t = a; a = b; b = t;
    }
    for (int k = 0; k < n; k++) w->sweep[k] = a[k].contact;
    return RC_OK;
}

static void contact_bodies(const rc_world *w, int item, int ab[2])
{
    ab[0] = w->contacts[item].body_a;   /* RC_GROUND (< 0): shared freely */
    ab[1] = w->contacts[item].body_b;
}

/* RC_ORDER_COLOUR: the greedy colouring (colour.c) of the active contacts in
 * key order: w->sweep holds the contacts colour by colour, key order within
 * a colour, colour k in sweep[colour_start[k] .. colour_start[k + 1]).
 * Deterministic: depends on the active set only (n > 0). */
static rc_status colour_order(rc_world *w)
{
    const int cap = w->ncontacts;   /* sized like w->active: by the contacts */
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->sweep, cap, sizeof(int), "sweep order"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->colour, cap, sizeof(int), "colours"));
    RC_CHECK(rcb_arena_array(&w->work, (void **)&w->colour_start, cap + 1LL, sizeof(int), "colours"));
    return rcn_colour_greedy(w, w->active, w->nactive, contact_bodies, w->colour, w->sweep, w->colour_start,
                             &w->ncolours);
}

/* every active contact's law has a closed form (then the colour and slabs
 * orders' sweeps may be shared by threads: no callback runs in them) */
static int active_laws_closed(const rc_world *w)
{
    int all = 1;   /* every law of the world: the active contacts' too, without visiting them */
    for (int l = 0; l < w->nlaws; l++) all &= w->laws[l].closed_form != 0;
    if (all) return 1;
    for (int k = 0; k < w->nactive; k++)
        if (!w->laws[w->contacts[w->active[k]].law].closed_form) return 0;
    return 1;
}

rc_status rcn_nsgs_order(rc_world *w, const rc_solver_def *opt, const int **sweep, int *closed)
{
    const int grouped = (opt->order == RC_ORDER_COLOUR || opt->order == RC_ORDER_SLABS) && w->nactive > 0;
    *sweep = w->active;
    if (opt->order == RC_ORDER_POSITION || opt->order == RC_ORDER_TOP) {
        RC_CHECK(position_order(w, opt->order == RC_ORDER_TOP));
        *sweep = w->sweep;
    } else if (grouped) {
        RC_CHECK(opt->order == RC_ORDER_COLOUR ? colour_order(w) : rcn_slab_order(w));   /* slabs.c */
        *sweep = w->sweep;
    }
    if (closed) *closed = grouped && active_laws_closed(w);
    return RC_OK;
}
