/* law3.c -- a 3D contact (model/contact3.h) governed by a law without a
 * closed form (a custom law of dim 1 or 3, in C or Lua, or a built-in law
 * with rc_law_def.generic = 1): its site for the law interface (law.c,
 * rcn_site with n = 3: u = (u_N, u_T1, u_T2), the frame n, t1, t2 as
 * ctx.normal, tangent, tangent2), its local solve by the generic solver
 * and its natural-map residual (docs/laws.md, "dim = 3"). */
#include "nonsmooth/nonsmooth.h"

#include <math.h>

void rcn_contact3_site(rc_world *w, rcm_contact3 *c, rcn_site *s)
{
    s->law = &w->laws[c->law];
    rc_law_ctx *ctx = &s->ctx;
    ctx->t = w->t;
    ctx->h = w->sim.h;
    ctx->theta = w->sim.theta;
    ctx->unknown = w->unknown;
    ctx->contact = c->id;
    ctx->gN = c->gN;
    ctx->dim = rcn_law_dim(s->law, 3);
    for (int i = 0; i < 3; i++) {
        ctx->normal[i] = c->n[i];
        ctx->tangent[i] = c->t1[i];
        ctx->tangent2[i] = c->t2[i];
    }
    s->n = 3;
    s->W = c->W;
    s->state = c->state;
    s->uk = c->uo;
    s->J = c->J;
    s->jvalid = &c->jvalid;
}

/* the local problem u = W p + b of contact c, its law's generic solver
 * (automatic local tolerance as for planar contacts: law.c) */
rc_status rcn_contact3_law_solve(rc_world *w, rcm_contact3 *c, const double *b, double *p)
{
    rcn_site s;
    rcn_contact3_site(w, c, &s);
    double tol = w->sim.solver.local_tol;
    const int na = w->c3->nactive > 1 ? w->c3->nactive : 1;
    if (tol <= 0.0) tol = fmax(0.01 * w->sim.solver.tol / sqrt((double)na), 1e-15);
    return rcn_site_local_solve(&s, tol, w->sim.solver.local_max_iter, b, p);
}

rc_status rcn_contact3_law_residual2(rc_world *w, rcm_contact3 *c, const double *u, double *r2)
{
    rcn_site s;
    rcn_contact3_site(w, c, &s);
    return rcn_site_residual2(&s, u, c->p, r2);
}
