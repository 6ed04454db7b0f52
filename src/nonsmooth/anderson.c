/* anderson.c -- NSGS with Anderson acceleration (solver = { "nsgs",
 * accelerate = "anderson", depth = m }; rc_solver_def.anderson = m).
 *
 * One NSGS sweep (nsgs.c) is a fixed-point map p -> G(p) on the contacts'
 * impulses; Anderson's method (anderson_hist.c) extrapolates p_acc from the
 * last m sweeps, each contact's impulse then projected onto its cone (the
 * extrapolation can leave it). Safeguard: p_acc is kept only when its natural-map residual (the
 * stopping test of nsgs.c, same norm and tolerance) is below that of the
 * last iterate p_k; otherwise the iteration continues from G(p_k), the plain
 * sweep (its residual computed then), and the history is cleared. V follows every change (V is affine in p:
 * V(p_acc) = V(G(p_k)) + kappa Mhat^-1 H^T (p_acc - G(p_k))), so each
 * accepted iteration costs a sweep, one residual pass and one pass of H^T.
 * One thread; the sweep order fixed, position or colour (world.c refuses
 * the rest). */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>
#include <string.h>

typedef struct aa_state {
    rc_world *w;
    int n;         /* active contacts: 2n unknowns */
    rcn_aa h;      /* the history (anderson_hist.c) */
    double *Vg;    /* V at G(x) while x_acc is tried */
} aa_state;

static inline rc_contact *aa_contact(const aa_state *a, int k) { return &a->w->contacts[a->w->active[k]]; }

/* The contacts' impulses into v (2 per active contact). */
static void gather(const aa_state *a, double *v)
{
    for (int k = 0; k < a->n; k++) {
        const rc_contact *c = aa_contact(a, k);
        v[2 * k] = c->p[0];
        v[2 * k + 1] = c->p[1];
    }
}

/* Set the contacts' impulses to p (projected onto their laws' sets), V following. */
static rc_status set_impulses(const aa_state *a, double *p)
{
    rc_world *w = a->w;
    for (int k = 0; k < a->n; k++) {
        rc_contact *c = aa_contact(a, k);
        const rc_law *l = &w->laws[c->law];
        double *pk = p + 2 * k;
        if (l->closed_form) rcm_fc2d_project(l->def.mu, pk);
        else {
            const double zero[2] = { 0.0, 0.0 };
            double q[2];
            RC_CHECK(rcn_law_prox(w, c, pk, zero, 0.0, q));   /* proj_C(p) */
            pk[0] = q[0]; pk[1] = q[1];
        }
        double d[2] = { pk[0] - c->p[0], pk[1] - c->p[1] };
        if (d[0] != 0.0 || d[1] != 0.0) rcm_contact_apply(w, c, w->V, d);
        c->p[0] = pk[0];
        c->p[1] = pk[1];
    }
    return RC_OK;
}

static rc_status aa_setup(aa_state *a, const rcn_problem *pb)
{
    rc_world *w = pb->w;
    a->w = w;
    a->n = w->nactive;
    RC_CHECK(rcn_aa_setup(w, &a->h, 2 * a->n, pb->opt->anderson));
    return rcb_arena_array(&w->work, (void **)&a->Vg, w->nv > 0 ? w->nv : 1, sizeof(double), "Anderson velocity");
}

rc_status rcn_anderson_solve(const rcn_problem *pb, rcn_report *rep)
{
    rc_world *w = pb->w;
    const rc_solver_def *opt = pb->opt;
    aa_state a;
    rep->parallel = 0;
    rcn_nsgs_attach(w);
    RC_CHECK(aa_setup(&a, pb));
    double nb = w->contact_b2;   /* as nsgs.c */
    for (int i = 0; i < w->njoints; i++)
        for (int r = 0; r < w->joints[i].rows; r++) nb += w->joints[i].b[r] * w->joints[i].b[r];
    nb = sqrt(nb);
    const int *sweep;
    RC_CHECK(rcn_nsgs_order(w, opt, &sweep, NULL));
    double res;
    int it = 0, worst;
    rc_status s = rcn_nsgs_residual(w, nb, &worst, &res);
    gather(&a, a.h.x);
    while (s == RC_OK && res > opt->tol && it < opt->max_iter && !rc_interrupt_requested()) {
        s = rcn_nsgs_sweep(w, sweep, opt->relax);   /* g = G(x) */
        if (s != RC_OK) break;
        it++;
        gather(&a, a.h.g);
        int took = 0;
        if (rcn_aa_next(&a.h)) {   /* x = p_acc */
            memcpy(a.Vg, w->V, (size_t)w->nv * sizeof(double));
            s = set_impulses(&a, a.h.x);
            double res_acc;
            int worst_acc;
            if (s == RC_OK) s = rcn_nsgs_residual(w, nb, &worst_acc, &res_acc);
            if (s != RC_OK) break;
            if (res_acc < res) { res = res_acc; worst = worst_acc; took = 1; }
            else {   /* the safeguard: back to G(x), the history cleared */
                memcpy(w->V, a.Vg, (size_t)w->nv * sizeof(double));
                for (int k = 0; k < a.n; k++) {
                    rc_contact *c = aa_contact(&a, k);
                    c->p[0] = a.h.g[2 * k];
                    c->p[1] = a.h.g[2 * k + 1];
                }
                rcn_aa_reject(&a.h);
            }
        }
        if (!took) s = rcn_nsgs_residual(w, nb, &worst, &res);   /* the plain sweep's iterate (x = g) and its residual */
    }
    for (int k = 0; k < w->nactive; k++) {   /* c->res held squares */
        rc_contact *c = &w->contacts[w->active[k]];
        c->res = sqrt(c->res);
    }
    rep->local_solves = (long)it * w->nactive;
    rep->iterations = it;
    rep->residual = res;
    rep->worst = worst;
    return s;
}
