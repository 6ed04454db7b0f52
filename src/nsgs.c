/* nsgs.c -- nonsmooth Gauss--Seidel over the active contacts (Jean &
 * Moreau; Moreau 2004 section 1.3; Acary & Collins-Craft 2024 section 4).
 *
 * The global problem is  u = W p + b  with W = kappa H Mhat^-1 H^T, never
 * assembled: the solver keeps the velocity V = V_0 + kappa Mhat^-1 H^T p up
 * to date, so a contact reads its local velocity as H V and a local update
 * touches only its two bodies. Each contact is solved exactly (law.c) with
 * the others frozen. Stopping test: the natural-map residual of section 4,
 *     ||p - proj_K(p - Phi(W p + b))||_2 / (1 + ||b||_2) <= tol,
 * with Phi the De Saxce change of variable (eq. 10) and b including the
 * impact-law shift. */
#include "rc_internal.h"

#include <math.h>
#include <string.h>

/* Local velocity u = H V + shift of contact c (u includes the law shift). */
static inline void local_velocity(const rc_world *w, const rc_contact *c, const double *V, double u[2])
{
    if (c->gap >= 0) {
        rc_gap_dot(w, c, V, u);
        u[0] += c->shift[0];
        u[1] += c->shift[1];
        return;
    }
    const double *vb = V + w->bodies[c->body_b].iv;
    u[0] = c->Hb[0][0] * vb[0] + c->Hb[0][1] * vb[1] + c->Hb[0][2] * vb[2] + c->shift[0];
    u[1] = c->Hb[1][0] * vb[0] + c->Hb[1][1] * vb[1] + c->Hb[1][2] * vb[2] + c->shift[1];
    if (c->body_a != RC_GROUND) {
        const double *va = V + w->bodies[c->body_a].iv;
        u[0] += c->Ha[0][0] * va[0] + c->Ha[0][1] * va[1] + c->Ha[0][2] * va[2];
        u[1] += c->Ha[1][0] * va[0] + c->Ha[1][1] * va[1] + c->Ha[1][2] * va[2];
    }
}

/* V += kappa Mhat^-1 H^T dp for the bodies of c. */
static inline void apply_impulse(const rc_world *w, const rc_contact *c, double *V, const double dp[2])
{
    if (c->gap >= 0) { rc_gap_apply(w, c, V, dp); return; }
    rc_contact_apply(w, c, V, dp);
}

/* Joint j's row velocity H V + dg/dt. */
static inline void joint_velocity(const rc_world *w, const rc_joint *j, const double *V, double *u)
{
    const double *vb = V + w->bodies[j->def.body_b].iv;
    const double *va = j->def.body_a == RC_GROUND ? NULL : V + w->bodies[j->def.body_a].iv;
    for (int r = 0; r < j->rows; r++) {
        u[r] = j->shift[r] + j->Hb[r][0] * vb[0] + j->Hb[r][1] * vb[1] + j->Hb[r][2] * vb[2];
        if (va) u[r] += j->Ha[r][0] * va[0] + j->Ha[r][1] * va[1] + j->Ha[r][2] * va[2];
    }
}

/* An equality block is solved exactly: lambda += -W^-1 (H V + dg/dt). */
static inline void joint_solve(rc_world *w, rc_joint *j)
{
    double u[3], dl[3];
    joint_velocity(w, j, w->V, u);
    for (int r = 0; r < j->rows; r++) {
        dl[r] = 0.0;
        for (int k = 0; k < j->rows; k++) dl[r] -= j->Winv[r][k] * u[k];
        j->lambda[r] += dl[r];
    }
    double *vb = w->V + w->bodies[j->def.body_b].iv;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < j->rows; r++) vb[c] += j->MHb[r][c] * dl[r];
    if (j->def.body_a != RC_GROUND) {
        double *va = w->V + w->bodies[j->def.body_a].iv;
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < j->rows; r++) va[c] += j->MHa[r][c] * dl[r];
    }
}

/* worst: a contact index, or -2 - j for joint j */
static rc_status residual(rc_world *w, double norm_b, int *worst, double *res)
{
    double sum = 0.0, worst_res = -1.0;
    *worst = -1;
    for (int i = 0; i < w->njoints; i++) {   /* equality rows: the natural map is H V + dg/dt */
        rc_joint *j = &w->joints[i];
        double u[3], r2 = 0.0;
        joint_velocity(w, j, w->V, u);
        for (int r = 0; r < j->rows; r++) r2 += u[r] * u[r];
        sum += r2;
        j->res = sqrt(r2);
        if (r2 > worst_res) { worst_res = r2; *worst = -2 - i; }
    }
    for (int k = 0; k < w->nactive; k++) {
        rc_contact *c = &w->contacts[w->active[k]];
        double u[2], r2;
        local_velocity(w, c, w->V, u);
        RC_CHECK(rc_law_residual2(w, c, u, &r2));
        sum += r2;
        c->res = r2;
        if (r2 > worst_res) { worst_res = r2; *worst = w->active[k]; }
    }
    *res = sqrt(sum) / (1.0 + norm_b);
    return RC_OK;
}

rc_status rc_nsgs_solve(rc_world *w, int *iters, double *res_out, int *worst)
{
    double nb = 0.0;
    for (int k = 0; k < w->nactive; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        nb += c->b[0] * c->b[0] + c->b[1] * c->b[1];
    }
    for (int i = 0; i < w->njoints; i++)
        for (int r = 0; r < w->joints[i].rows; r++) nb += w->joints[i].b[r] * w->joints[i].b[r];
    nb = sqrt(nb);
    const double tol = w->sim.solver.tol;
    double res;
    int it = 0;
    rc_status s = residual(w, nb, worst, &res);
    const double omega = w->sim.solver.relax;
    uint64_t rng = w->sim.solver.seed * 0x9E3779B97F4A7C15ull + (uint64_t)w->step + 1;
    while (s == RC_OK && res > tol && it < w->sim.solver.max_iter) {
        if (w->sim.solver.order == RC_ORDER_RANDOM)   /* Fisher--Yates, xorshift64 */
            for (int k = w->nactive - 1; k > 0; k--) {
                rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
                int r = (int)(rng % (uint64_t)(k + 1)), tmp = w->active[k];
                w->active[k] = w->active[r];
                w->active[r] = tmp;
            }
        for (int i = 0; i < w->njoints; i++) joint_solve(w, &w->joints[i]);
        for (int k = 0; k < w->nactive; k++) {
            rc_contact *c = &w->contacts[w->active[k]];
            double u[2], bl[2], p[2] = { c->p[0], c->p[1] };
            local_velocity(w, c, w->V, u);
            /* b_alpha = u - W_aa p_alpha: the local velocity without c's own impulse */
            bl[0] = u[0] - (c->W[0][0] * c->p[0] + c->W[0][1] * c->p[1]);
            bl[1] = u[1] - (c->W[1][0] * c->p[0] + c->W[1][1] * c->p[1]);
            s = rc_law_local_solve(w, c, bl, p);
            if (s != RC_OK) break;
            if (omega != 1.0 && w->laws[c->law].closed_form) {   /* over/under-relaxation */
                p[0] = omega * p[0] + (1.0 - omega) * c->p[0];
                p[1] = omega * p[1] + (1.0 - omega) * c->p[1];
                rc_fc2d_project(w->laws[c->law].def.mu, p);
            }
            double dp[2] = { p[0] - c->p[0], p[1] - c->p[1] };
            if (dp[0] != 0.0 || dp[1] != 0.0) apply_impulse(w, c, w->V, dp);
            c->p[0] = p[0];
            c->p[1] = p[1];
        }
        it++;
        if (s == RC_OK && (it % w->sim.solver.check_every == 0 || it == w->sim.solver.max_iter))
            s = residual(w, nb, worst, &res);
    }
    for (int k = 0; k < w->nactive; k++) {   /* c->res held squares */
        rc_contact *c = &w->contacts[w->active[k]];
        c->res = sqrt(c->res);
    }
    w->stats.local_solves += (long)it * w->nactive;
    *iters = it;
    *res_out = res;
    return s;
}

/* Uzawa (Maury 2006 section 3.3), written on the impulses: all contacts at
 * once, p <- proj_C(p - rho xi(H V + shift)), then V is updated with every
 * change; rho = relax / lambda_max(W) (Proposition 1 asks rho < 2 / |W|),
 * lambda_max from a power iteration. Joints get their exact block solve
 * before each iteration. Slower than NSGS; the paper's reference solver. */
rc_status rc_uzawa_solve(rc_world *w, int *iters, double *res_out, int *worst)
{
    double nb = 0.0;
    for (int k = 0; k < w->nactive; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        nb += c->b[0] * c->b[0] + c->b[1] * c->b[1];
    }
    for (int i = 0; i < w->njoints; i++)
        for (int r = 0; r < w->joints[i].rows; r++) nb += w->joints[i].b[r] * w->joints[i].b[r];
    nb = sqrt(nb);

    /* lambda_max(W) by power iteration, x in c->u, W x = H (kappa M^-1 H^T x) through a
     * scratch velocity (w->vfree is free while the problem is solved) */
    double *S = w->vfree, lmax = 0.0;
    for (int k = 0; k < w->nactive; k++) {
        rc_contact *c = &w->contacts[w->active[k]];
        c->u[0] = 1.0; c->u[1] = 0.5;
    }
    for (int pit = 0; pit < 30 && w->nactive; pit++) {
        memset(S, 0, (size_t)w->nv * sizeof(double));
        for (int k = 0; k < w->nactive; k++) apply_impulse(w, &w->contacts[w->active[k]], S, w->contacts[w->active[k]].u);
        double norm = 0.0;
        for (int k = 0; k < w->nactive; k++) {
            rc_contact *c = &w->contacts[w->active[k]];
            double y[2];
            local_velocity(w, c, S, y);
            y[0] -= c->shift[0];   /* local_velocity adds the shift */
            y[1] -= c->shift[1];
            c->u[0] = y[0]; c->u[1] = y[1];
            norm += y[0] * y[0] + y[1] * y[1];
        }
        norm = sqrt(norm);
        if (!(norm > 0.0)) break;
        lmax = norm;   /* |W x| with |x| = 1 after the first normalisation */
        for (int k = 0; k < w->nactive; k++) {
            rc_contact *c = &w->contacts[w->active[k]];
            c->u[0] /= norm; c->u[1] /= norm;
        }
    }
    const double rho = lmax > 0.0 ? w->sim.solver.relax / lmax : 0.0;

    double res;
    int it = 0;
    rc_status s = residual(w, nb, worst, &res);
    while (s == RC_OK && res > w->sim.solver.tol && it < w->sim.solver.max_iter) {
        for (int i = 0; i < w->njoints; i++) joint_solve(w, &w->joints[i]);
        for (int k = 0; k < w->nactive && s == RC_OK; k++) {   /* Jacobi: every p from the same V */
            rc_contact *c = &w->contacts[w->active[k]];
            double u[2];
            local_velocity(w, c, w->V, u);
            s = rc_law_prox(w, c, u, rho, c->u);   /* the new p, kept in c->u */
        }
        for (int k = 0; k < w->nactive && s == RC_OK; k++) {
            rc_contact *c = &w->contacts[w->active[k]];
            double dp[2] = { c->u[0] - c->p[0], c->u[1] - c->p[1] };
            if (dp[0] != 0.0 || dp[1] != 0.0) apply_impulse(w, c, w->V, dp);
            c->p[0] = c->u[0];
            c->p[1] = c->u[1];
        }
        it++;
        if (s == RC_OK) s = residual(w, nb, worst, &res);
    }
    for (int k = 0; k < w->nactive; k++) {
        rc_contact *c = &w->contacts[w->active[k]];
        c->res = sqrt(c->res);
    }
    w->stats.local_solves += (long)it * w->nactive;
    *iters = it;
    *res_out = res;
    return s;
}
