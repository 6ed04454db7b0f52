/* uzawa.c -- the Uzawa solver: projected Jacobi on the impulses with a step
 * from the largest eigenvalue of W (power iteration), optionally accelerated
 * (Maury 2006; docs/theory/maury.md). Shares the contacts' H V and the
 * residual with NSGS (nsgs.c). */
#include "nonsmooth/nonsmooth_impl.h"

#include <math.h>
#include <string.h>

/* A contact whose tangential impulse stays 0 (a built-in law with mu = 0, a
 * custom law of dim 1): its T row is not part of the operator Uzawa sees. */
static int frictionless(const rc_world *w, const rc_contact *c)
{
    const rc_law *l = &w->laws[c->law];
    return l->closed_form ? l->def.mu == 0.0 : l->ops.dim == 1;
}

static double uzawa_lambda_max(rc_world *w)
{
    /* lambda_max(W) by power iteration, x in c->u, W x = H (kappa M^-1 H^T x)
     * through a scratch velocity (w->vfree is free while the problem is
     * solved), without the T rows of frictionless contacts (their p_T stays
     * 0; with them, disk rotation made lambda_max 79 times too large on
     * Maury's 6.3: W_TT = 3 W_NN for one contact, more for many); |W x|
     * with |x| = 1 grows to lambda_max from below: run until it changes by
     * less than 1e-6 (at most 500 iterations) */
    double *S = w->vfree, lmax = 0.0;
    for (int k = 0; k < w->nactive; k++) {
        rc_contact *c = &w->contacts[w->active[k]];
        c->u[0] = 1.0; c->u[1] = frictionless(w, c) ? 0.0 : 0.5;
    }
    for (int pit = 0; pit < 500 && w->nactive; pit++) {
        memset(S, 0, (size_t)w->nv * sizeof(double));
        for (int k = 0; k < w->nactive; k++) rcm_contact_apply(w, &w->contacts[w->active[k]], S, w->contacts[w->active[k]].u);
        double norm = 0.0;
        for (int k = 0; k < w->nactive; k++) {
            rc_contact *c = &w->contacts[w->active[k]];
            double y[2];
            local_velocity(w, c, S, y);
            y[0] -= c->shift[0];   /* local_velocity adds the shift */
            y[1] = frictionless(w, c) ? 0.0 : y[1] - c->shift[1];
            c->u[0] = y[0]; c->u[1] = y[1];
            norm += y[0] * y[0] + y[1] * y[1];
        }
        norm = sqrt(norm);
        if (!(norm > 0.0)) break;
        const double prev = lmax;
        lmax = norm;   /* |W x| with |x| = 1 after the first normalisation */
        for (int k = 0; k < w->nactive; k++) {
            rc_contact *c = &w->contacts[w->active[k]];
            c->u[0] /= norm; c->u[1] /= norm;
        }
        if (pit >= 2 && lmax - prev <= 1e-6 * lmax) break;
    }
    return lmax;
}

/* Uzawa (Maury 2006 section 3.3), written on the impulses: all contacts at
 * once, p <- proj_C(p - rho xi(H V + shift)), then V is updated with every
 * change; rho = relax / lambda_max(W) (Proposition 1 asks rho < 2 / |W|),
 * lambda_max by a power iteration run to 1e-6. Joints get their exact block
 * solve before each iteration.
 *
 * Accelerated (solver.accelerate, the default; not with joints): the
 * projected gradient step is taken from the extrapolated point
 * y_k = p_k + beta_k (p_k - p_{k-1}), beta_k = (t_{k-1} - 1) / t_k,
 * t_k = (1 + sqrt(1 + 4 t_{k-1}^2)) / 2 (Nesterov), restarted (t = 1,
 * y = p) whenever (y_k - p_{k+1}) . (p_{k+1} - p_k) > 0 (O'Donoghue &
 * Candes 2015, gradient restart). The plain iteration needs a number of
 * iterations proportional to kappa = lambda_max / lambda_min of the active
 * part of W: on Maury's sticky particles (N = 50, h = 1.5, every pair
 * constrained: lambda_max = N, clusters of ~40 on a line: lambda_min ~
 * pi^2 / 40^2) 200 000 iterations leave 6e-10; the accelerated one needs
 * about sqrt(kappa), 4 008 iterations there. w->V holds V(p_k) (the residual is evaluated there),
 * w->vfree V(y_k), w->uz_y the y_k. Slower than NSGS; the paper's solver. */
rc_status rcn_uzawa_solve(const rcn_problem *pb, rcn_report *rep)
{
    rc_world *w = pb->w;
    const rc_solver_def *opt = pb->opt;
    int *iters = &rep->iterations, *worst = &rep->worst;
    double *res_out = &rep->residual;
    rep->parallel = 0;
    rcn_nsgs_attach(w);
    double nb = w->contact_b2;   /* sum of |b|^2 over the active contacts (scheme.c) */
    for (int i = 0; i < w->njoints; i++)
        for (int r = 0; r < w->joints[i].rows; r++) nb += w->joints[i].b[r] * w->joints[i].b[r];
    nb = sqrt(nb);

    const double lmax = uzawa_lambda_max(w);
    const double rho = lmax > 0.0 ? opt->relax / lmax : 0.0;
    const int accel = opt->accelerate && w->njoints == 0;
    double *Vy = w->vfree, *Y = NULL, tk = 1.0;
    if (accel) {
        RC_CHECK(rcb_arena_array(&w->work, (void **)&w->uz_y, 2LL * w->ncontacts, sizeof(double), "Uzawa extrapolation"));
        Y = w->uz_y;
        memcpy(Vy, w->V, (size_t)w->nv * sizeof(double));
        for (int k = 0; k < w->nactive; k++) {
            const rc_contact *c = &w->contacts[w->active[k]];
            Y[2 * k] = c->p[0];
            Y[2 * k + 1] = c->p[1];
        }
    }

    double res;
    int it = 0;
    rc_status s = rcn_nsgs_residual(w, nb, worst, &res);
    while (s == RC_OK && res > opt->tol && it < opt->max_iter && !rc_interrupt_requested()) {
        for (int i = 0; i < w->njoints; i++) joint_solve(w, &w->joints[i]);
        for (int k = 0; k < w->nactive && s == RC_OK; k++) {   /* Jacobi: every p from the same V */
            rc_contact *c = &w->contacts[w->active[k]];
            double u[2];
            local_velocity(w, c, accel ? Vy : w->V, u);
            s = rcn_law_prox(w, c, accel ? Y + 2 * k : c->p, u, rho, c->u);   /* the new p, kept in c->u */
        }
        double beta = 0.0;
        if (accel && s == RC_OK) {   /* momentum, or a restart when the step turned back */
            double dot = 0.0;
            for (int k = 0; k < w->nactive; k++) {
                const rc_contact *c = &w->contacts[w->active[k]];
                dot += (Y[2 * k] - c->u[0]) * (c->u[0] - c->p[0]) + (Y[2 * k + 1] - c->u[1]) * (c->u[1] - c->p[1]);
            }
            const double tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * tk * tk));
            if (dot > 0.0) tk = 1.0;
            else { beta = (tk - 1.0) / tn; tk = tn; }
        }
        for (int k = 0; k < w->nactive && s == RC_OK; k++) {
            rc_contact *c = &w->contacts[w->active[k]];
            double dp[2] = { c->u[0] - c->p[0], c->u[1] - c->p[1] };
            if (dp[0] != 0.0 || dp[1] != 0.0) rcm_contact_apply(w, c, w->V, dp);
            if (accel) {   /* y = p_new + beta (p_new - p_old), V(y) follows */
                const double y0 = c->u[0] + beta * dp[0], y1 = c->u[1] + beta * dp[1];
                double dy[2] = { y0 - Y[2 * k], y1 - Y[2 * k + 1] };
                if (dy[0] != 0.0 || dy[1] != 0.0) rcm_contact_apply(w, c, Vy, dy);
                Y[2 * k] = y0;
                Y[2 * k + 1] = y1;
            }
            c->p[0] = c->u[0];
            c->p[1] = c->u[1];
        }
        it++;
        if (s == RC_OK) s = rcn_nsgs_residual(w, nb, worst, &res);
    }
    for (int k = 0; k < w->nactive; k++) {
        rc_contact *c = &w->contacts[w->active[k]];
        c->res = sqrt(c->res);
    }
    rep->local_solves = (long)it * w->nactive;
    *iters = it;
    *res_out = res;
    return s;
}
