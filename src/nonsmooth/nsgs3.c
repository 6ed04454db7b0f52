/* nsgs3.c -- nonsmooth Gauss--Seidel over the 3D contacts of a dim = 3
 * world (model/contact3.h): per contact, with the others' impulses fixed,
 * the one-contact problem u = W p + b, K ∋ p ⊥ u~ ∈ K* in De Saxce's form
 * with the law's shift (Acary & Collins-Craft 2024 eqs. 10, 96 / 101),
 * solved exactly (cone3.c), and the change of impulse applied to the
 * velocity, V += kappa Mhat^-1 H^T dp (the MH columns of the contact). The
 * residual is the natural map's, |p - proj_K(p - u~(u + shift))| summed
 * over the contacts, relative to 1 + |b| (docs/theory/spatial.md). */
#include "nonsmooth/nonsmooth.h"

#include <math.h>

/* (u + shift) of contact c at the velocity V */
void rcn_contact3_velocity(const rc_world *w, const rcm_contact3 *c, const double *V, double *u)
{
    const double *va = c->body_a >= 0 ? V + w->bodies[c->body_a].iv : NULL, *vb = V + w->bodies[c->body_b].iv;
    for (int r = 0; r < 3; r++) {
        double s = c->shift[r];
        for (int j = 0; j < 6; j++) s += c->Hb[r][j] * vb[j];
        if (va)
            for (int j = 0; j < 6; j++) s += c->Ha[r][j] * va[j];
        u[r] = s;
    }
}

/* V += kappa Mhat^-1 H^T dp */
void rcn_contact3_apply(const rc_world *w, const rcm_contact3 *c, double *V, const double *dp)
{
    double *vb = V + w->bodies[c->body_b].iv;
    for (int j = 0; j < 6; j++) vb[j] += c->MHb[0][j] * dp[0] + c->MHb[1][j] * dp[1] + c->MHb[2][j] * dp[2];
    if (c->body_a < 0) return;
    double *va = V + w->bodies[c->body_a].iv;
    for (int j = 0; j < 6; j++) va[j] += c->MHa[0][j] * dp[0] + c->MHa[1][j] * dp[1] + c->MHa[2][j] * dp[2];
}

/* sqrt(sum |p - proj_K(p - u~)|^2) over the active contacts (a law
 * without a closed form: its natural map, law3.c) */
static rc_status residual(rc_world *w, const double *V, double *res)
{
    rcm_c3 *c3 = w->c3;
    double r2 = 0.0;
    for (int i = 0; i < c3->n; i++) {
        rcm_contact3 *c = &c3->c[i];
        if (!c->active) continue;
        if (c3->ndrill && c3->d[i].on) { r2 += rcn_drill_residual2(w, c, &c3->d[i], V); continue; }   /* contensou.c */
        double u[3], ri;
        rcn_contact3_velocity(w, c, V, u);
        if (w->laws[c->law].closed_form) ri = rcn_cone3_residual2(u, c->p, w->laws[c->law].def.mu);
        else RC_CHECK(rcn_contact3_law_residual2(w, c, u, &ri));
        r2 += ri;
    }
    *res = sqrt(r2 + rcn_joints3_residual2(w, V));   /* 3D joints (joint3_block.c) */
    return RC_OK;
}

rc_status rcn_nsgs3(rc_world *w, double *V, double bnorm, double *res, int *iters)
{
    rcm_c3 *c3 = w->c3;
    const double tol = w->sim.solver.tol;
    const int max_iter = w->sim.solver.max_iter;
    *res = 0.0;
    *iters = 0;
    if (c3->nactive == 0 && rcn_joints3_count(w) == 0) return RC_OK;
    for (int it = 1; it <= max_iter; it++) {
        rcn_joints3_sweep(w, V);   /* 3D joints' blocks (joint3_block.c) */
        for (int i = 0; i < c3->n; i++) {
            rcm_contact3 *c = &c3->c[i];
            if (!c->active) continue;
            if (c3->ndrill && c3->d[i].on) { rcn_drill_sweep(w, c, &c3->d[i], V); continue; }   /* contensou.c */
            double u[3], b[3], p[3];
            rcn_contact3_velocity(w, c, V, u);   /* u + shift with this contact's p in V */
            for (int r = 0; r < 3; r++) b[r] = u[r] - (c->W[3 * r] * c->p[0] + c->W[3 * r + 1] * c->p[1] + c->W[3 * r + 2] * c->p[2]);
            if (w->laws[c->law].closed_form) rcn_cone3_local_solve(c->W, b, w->laws[c->law].def.mu, p);
            else { p[0] = c->p[0]; p[1] = c->p[1]; p[2] = c->p[2]; RC_CHECK(rcn_contact3_law_solve(w, c, b, p)); }   /* law3.c */
            const double dp[3] = { p[0] - c->p[0], p[1] - c->p[1], p[2] - c->p[2] };
            if (dp[0] != 0.0 || dp[1] != 0.0 || dp[2] != 0.0) rcn_contact3_apply(w, c, V, dp);
            c->p[0] = p[0]; c->p[1] = p[1]; c->p[2] = p[2];
        }
        *iters = it;
        RC_CHECK(residual(w, V, res));
        *res /= 1.0 + bnorm;
        if (!rcb_finite(*res)) return rc_set_error(RC_ERR_NUMERIC, "nsgs (3D contacts): non-finite residual after %d sweeps", it);
        if (*res <= tol) break;
    }
    return RC_OK;
}
