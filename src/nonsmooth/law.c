/* law.c -- the planar frictional contact law in the De Saxce form and its
 * exact one-contact solver.
 *
 * One contact, local problem (Acary & Collins-Craft 2024, eqs. 91, 96, 101):
 *     w = W p + b,      -(w + mu |w_T| e_N) in N_K(p),
 *     K = { p : |p_T| <= mu p_N }   (Coulomb cone, eq. 11).
 * The scheme folds the impact law into b: b = H V_0 + shift, shift_N =
 * e u_N,k for Moreau--Jean (eq. 96), (theta (1 + e) - 1) u_N,k for
 * Moreau--Jean--Fremond (eq. 101). Lemma 1 (eq. 17): the solution is one of
 * take-off, stick or slide, which the solver below enumerates exactly.
 */
#include "nonsmooth/nonsmooth.h"

#include <math.h>
#include <string.h>

int rcn_fc2d_local_solve(const double *Wf, const double *b, double mu, double *p)
{
    const double W[2][2] = { { Wf[0], Wf[1] }, { Wf[2], Wf[3] } };
    /* 1. take-off: p = 0 is a solution iff b_N >= 0 */
    if (b[0] >= 0.0) { p[0] = p[1] = 0.0; return 0; }

    /* 2. stick: w = 0, p = -W^-1 b, accepted if p in K */
    double det = W[0][0] * W[1][1] - W[0][1] * W[1][0];
    double best_res = INFINITY, best[2] = { 0.0, 0.0 };
    int best_case = 0;
    if (mu > 0.0 && det > 0.0) {
        double ps[2] = { -(W[1][1] * b[0] - W[0][1] * b[1]) / det,
                         -(-W[1][0] * b[0] + W[0][0] * b[1]) / det };
        if (ps[0] >= 0.0 && fabs(ps[1]) <= mu * ps[0]) { p[0] = ps[0]; p[1] = ps[1]; return 1; }
        double w[2] = { 0.0, 0.0 };
        rcm_fc2d_project(mu, ps);
        w[0] = W[0][0] * ps[0] + W[0][1] * ps[1] + b[0];
        w[1] = W[1][0] * ps[0] + W[1][1] * ps[1] + b[1];
        double r = rcn_fc2d_residual(w, ps, mu);
        if (r < best_res) { best_res = r; best[0] = ps[0]; best[1] = ps[1]; best_case = 1; }
    }

    /* 3. slide in direction s: w_N = 0, p_T = -s mu p_N, s w_T >= 0 */
    for (int k = 0; k < 2; k++) {
        double s = k == 0 ? 1.0 : -1.0;
        double den = W[0][0] - s * mu * W[0][1];
        if (!(den > 0.0)) continue;
        double pn = -b[0] / den;
        double ps[2] = { pn, -s * mu * pn };
        double wt = W[1][0] * ps[0] + W[1][1] * ps[1] + b[1];
        if (pn >= 0.0 && s * wt >= 0.0) { p[0] = ps[0]; p[1] = ps[1]; return 2; }
        double w[2] = { W[0][0] * ps[0] + W[0][1] * ps[1] + b[0], wt };
        double r = rcn_fc2d_residual(w, ps, mu);
        if (r < best_res) { best_res = r; best[0] = ps[0]; best[1] = ps[1]; best_case = 2; }
    }
    /* Round-off left every case marginally outside its test: keep the
     * candidate with the smallest natural-map residual. */
    p[0] = best[0];
    p[1] = best[1];
    return best_case;
}

/* ---------------------------------------------------------------- built-in laws */

void rcn_law_context(const rc_world *w, const rc_contact *c, rc_law_ctx *ctx)
{
    ctx->t = w->t;
    ctx->h = w->sim.h;
    ctx->theta = w->sim.theta;
    ctx->unknown = w->unknown;   /* set by the step from its scheme */
    ctx->contact = c->id;
    ctx->gN = c->gN;
    ctx->normal[0] = c->n[0]; ctx->normal[1] = c->n[1];
    rcm_contact_tangent(c, ctx->tangent);
}

/* ---------------------------------------------------------------- generic local solver */

static const char *law_label(const rc_law *l) { return l->name ? l->name : "(unnamed)"; }

static rc_status checked_xi(const rc_law *l, const rc_law_ctx *ctx, const double *state,
                            const double *u, const double *uk, double *xi)
{
    xi[0] = xi[1] = 0.0;
    rc_status s = l->ops.xi(l->ops.user, ctx, state, u, uk, xi);
    if (s != RC_OK) return s;
    if (l->ops.dim == 1) xi[1] = 0.0;
    if (!rcb_finite(xi[0]) || !rcb_finite(xi[1]))
        return rc_set_error(RC_ERR_CALLBACK, "law '%s': xi returned a non-finite value (%g, %g) for contact %d at t = %.17g",
                            law_label(l), xi[0], xi[1], ctx->contact, ctx->t);
    return RC_OK;
}

static rc_status checked_project(const rc_law *l, const rc_law_ctx *ctx, const double *state,
                                 const double *x, double *p)
{
    double xx[2] = { x[0], l->ops.dim == 1 ? 0.0 : x[1] };
    p[0] = p[1] = 0.0;
    rc_status s = l->ops.project(l->ops.user, ctx, state, xx, p);
    if (s != RC_OK) return s;
    if (l->ops.dim == 1) p[1] = 0.0;
    if (!rcb_finite(p[0]) || !rcb_finite(p[1]))
        return rc_set_error(RC_ERR_CALLBACK, "law '%s': project returned a non-finite value (%g, %g) for contact %d at t = %.17g",
                            law_label(l), p[0], p[1], ctx->contact, ctx->t);
    return RC_OK;
}

/* Natural map of a custom law at p with local velocity u: F(p) = p - proj_C(p - xi(u)). */
static rc_status natural_map(const rc_law *l, const rc_law_ctx *ctx, const double *state,
                             const double *u, const double *uk, const double *p, double *r2)
{
    double xi[2], x[2], q[2];
    RC_CHECK(checked_xi(l, ctx, state, u, uk, xi));
    x[0] = p[0] - xi[0];
    x[1] = p[1] - xi[1];
    RC_CHECK(checked_project(l, ctx, state, x, q));
    double d0 = p[0] - q[0], d1 = p[1] - q[1];
    *r2 = d0 * d0 + d1 * d1;
    return RC_OK;
}

rc_status rcn_law_residual2(rc_world *w, rc_contact *c, const double *u, double *r2)
{
    const rc_law *l = &w->laws[c->law];
    if (l->closed_form) { *r2 = rcn_fc2d_residual2(u, c->p, l->def.mu); return RC_OK; }
    rc_law_ctx ctx;
    rcn_law_context(w, c, &ctx);
    return natural_map(l, &ctx, c->aux->state, u, c->aux->uk, c->p, r2);
}

/* The local map of a custom law for u = W p + b:
 *     F(p) = p - proj_C(p - rho xi(W p + b)),
 * whose zeros are the solutions of -xi(u) in N_C(p) for any rho > 0. */
typedef struct local_problem {
    const rc_law *l;
    rc_law_ctx ctx;
    const double *state, *uk, *b;
    double W[2][2];
    double rho;
    int dim;
} local_problem;

static rc_status local_map(const local_problem *lp, const double *p, double *F)
{
    double u[2] = { lp->W[0][0] * p[0] + lp->W[0][1] * p[1] + lp->b[0],
                    lp->W[1][0] * p[0] + lp->W[1][1] * p[1] + lp->b[1] };
    double xi[2], x[2], q[2];
    RC_CHECK(checked_xi(lp->l, &lp->ctx, lp->state, u, lp->uk, xi));
    x[0] = p[0] - lp->rho * xi[0];
    x[1] = p[1] - lp->rho * xi[1];
    RC_CHECK(checked_project(lp->l, &lp->ctx, lp->state, x, q));
    F[0] = p[0] - q[0];
    F[1] = lp->dim == 1 ? 0.0 : p[1] - q[1];
    return RC_OK;
}

static inline double norm2(const double *x) { return x[0] * x[0] + x[1] * x[1]; }

/* One full Newton step p + d, J d = -F, accepted if it reduces |F| to a
 * quarter. Returns 1 and updates p, F, *f2_out when accepted. Errors of the
 * law's callbacks are reported through the status of the next evaluation. */
static int try_newton(const local_problem *lp, const double J[2][2], double *p, double *F, double f2, double *f2_out)
{
    double d[2];
    if (lp->dim == 1) {
        if (!(fabs(J[0][0]) > 1e-12)) return 0;
        d[0] = -F[0] / J[0][0];
        d[1] = 0.0;
    } else {
        double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
        if (!(fabs(det) > 1e-14 * (fabs(J[0][0] * J[1][1]) + fabs(J[0][1] * J[1][0]) + 1e-300))) return 0;
        d[0] = -(J[1][1] * F[0] - J[0][1] * F[1]) / det;
        d[1] = -(-J[1][0] * F[0] + J[0][0] * F[1]) / det;
    }
    double pn[2] = { p[0] + d[0], p[1] + d[1] }, Fn[2];
    if (local_map(lp, pn, Fn) != RC_OK) return 0;
    double fn2 = norm2(Fn);
    if (!(fn2 < 0.25 * f2)) return 0;
    p[0] = pn[0]; p[1] = pn[1];
    F[0] = Fn[0]; F[1] = Fn[1];
    *f2_out = fn2;
    return 1;
}

/* Generic local solver for laws without a closed form: a semismooth Newton
 * method on F with a finite-difference Jacobian and a backtracking line
 * search on |F|, falling back to the projected fixed point p <- p - F(p)
 * (the proximal iteration of De Saxce & Feng / Moreau) when the Newton
 * direction does not decrease |F|; rho = 1 / lambda_max(W) and it is halved
 * when the fixed point stalls. Converged when |F| <= local_tol (1 + |p|). */
static rc_status generic_solve(rc_world *w, rc_contact *c, const double *b, double *p)
{
    local_problem lp;
    lp.l = &w->laws[c->law];
    rcn_law_context(w, c, &lp.ctx);
    rc_contact_aux *aux = c->aux;   /* set for every contact of a world with such a law */
    lp.state = aux->state;
    lp.uk = aux->uk;
    lp.b = b;
    memcpy(lp.W, c->W, sizeof lp.W);
    lp.dim = lp.l->ops.dim;
    /* automatic tolerance: the local residuals of n contacts add up in the
     * global one, so each gets a share well below the global tolerance */
    double tol = w->sim.solver.local_tol;
    if (tol <= 0.0) tol = fmax(0.01 * w->sim.solver.tol / sqrt((double)(w->nactive > 1 ? w->nactive : 1)), 1e-15);
    const int maxit = w->sim.solver.local_max_iter;
    double lmax;
    if (lp.dim == 1) lmax = lp.W[0][0];
    else {
        double tr = 0.5 * (lp.W[0][0] + lp.W[1][1]), df = 0.5 * (lp.W[0][0] - lp.W[1][1]);
        lmax = tr + sqrt(df * df + lp.W[0][1] * lp.W[1][0]);
    }
    if (!(lmax > 0.0))
        return rc_set_error(RC_ERR_NUMERIC, "law '%s': contact %d has a singular Delassus block", law_label(lp.l), c->id);
    lp.rho = 1.0 / lmax;
    const double rho0 = lp.rho;
    if (lp.dim == 1) p[1] = 0.0;
    /* |F| scales with rho: the tests below use |F| rho0 / rho, so that a
     * reduced rho never makes a wrong p look converged */

    double F[2];
    RC_CHECK(local_map(&lp, p, F));
    double f2 = norm2(F);
    for (int it = 0; it < maxit; it++) {
        double scale = (1.0 + fabs(p[0]) + fabs(p[1])) * lp.rho / rho0;
        if (f2 <= tol * tol * scale * scale) return RC_OK;
        /* Newton direction: F is piecewise smooth, and between NSGS sweeps a
         * contact usually stays on the same piece, so the Jacobian of its
         * previous local solve is tried first (one evaluation of F instead
         * of three); otherwise a forward-difference Jacobian */
        double J[2][2] = { { 1.0, 0.0 }, { 0.0, 1.0 } }, d[2] = { 0.0, 0.0 };
        int ok = 0;
        if (aux->jvalid && it == 0) {
            memcpy(J, aux->J, sizeof J);
            aux->jvalid = 0;   /* used once per local solve; refreshed below if it fails */
            if (try_newton(&lp, (const double (*)[2])J, p, F, f2, &f2)) continue;
        }
        /* a step small against p, so that it rarely crosses a kink of F */
        const double fd = 1e-7 * (fabs(p[0]) + fabs(p[1])) + 1e-13;
        for (int k = 0; k < lp.dim; k++) {
            double e = fd, pe[2] = { p[0], p[1] }, Fe[2];
            pe[k] += e;
            RC_CHECK(local_map(&lp, pe, Fe));
            J[0][k] = (Fe[0] - F[0]) / e;
            J[1][k] = (Fe[1] - F[1]) / e;
        }
        memcpy(aux->J, J, sizeof J);
        aux->jvalid = 1;
        if (lp.dim == 1) {
            if (fabs(J[0][0]) > 1e-12) { d[0] = -F[0] / J[0][0]; ok = 1; }
        } else {
            double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
            if (fabs(det) > 1e-14 * (fabs(J[0][0] * J[1][1]) + fabs(J[0][1] * J[1][0]) + 1e-300)) {
                d[0] = -(J[1][1] * F[0] - J[0][1] * F[1]) / det;
                d[1] = -(-J[1][0] * F[0] + J[0][0] * F[1]) / det;
                ok = 1;
            }
        }
        double pn[2], Fn[2], fn2 = INFINITY;
        if (ok) {   /* backtracking on |F| */
            for (double a = 1.0; a > 1e-3; a *= 0.5) {
                pn[0] = p[0] + a * d[0];
                pn[1] = p[1] + a * d[1];
                RC_CHECK(local_map(&lp, pn, Fn));
                fn2 = norm2(Fn);
                if (fn2 < (1.0 - 1e-4 * a) * f2) break;
            }
        }
        if (!(fn2 < 0.25 * f2)) {   /* weak Newton progress (a kink): also try the
                                       fixed-point step p - F(p) = proj_C(p - rho xi) */
            double pf[2] = { p[0] - F[0], p[1] - F[1] }, Ff[2];
            RC_CHECK(local_map(&lp, pf, Ff));
            double ff2 = norm2(Ff);
            if (ff2 < fn2) { pn[0] = pf[0]; pn[1] = pf[1]; Fn[0] = Ff[0]; Fn[1] = Ff[1]; fn2 = ff2; }
            if (!(fn2 < f2)) {   /* stalled: smaller rho (same zeros), recompute F */
                lp.rho *= 0.5;
                if (lp.rho * lmax < 1e-10) break;
                RC_CHECK(local_map(&lp, p, F));
                f2 = norm2(F);
                continue;
            }
        }
        p[0] = pn[0]; p[1] = pn[1];
        F[0] = Fn[0]; F[1] = Fn[1];
        f2 = fn2;
    }
    /* a miss within three orders of magnitude (round-off against a very
     * tight tolerance) is left to the global residual, which reports it */
    double scale = 1e3 * (1.0 + fabs(p[0]) + fabs(p[1])) * lp.rho / rho0;
    if (f2 <= tol * tol * scale * scale) return RC_OK;
    return rc_set_error(RC_ERR_SOLVER, "law '%s': the local solver did not converge for contact %d at t = %.17g: |F| = %.3e > local_tol %.1e after %d iterations (rho = %.3e)",
                        law_label(lp.l), c->id, w->t, sqrt(f2), tol, maxit, lp.rho);
}

rc_status rcn_law_local_solve(rc_world *w, rc_contact *c, const double *bl, double *p)
{
    const rc_law *l = &w->laws[c->law];
    if (l->closed_form) {
        rcn_fc2d_local_solve(&c->W[0][0], bl, l->def.mu, p);
        return RC_OK;
    }
    return generic_solve(w, c, bl, p);
}

/* One proximal step of contact c's law at local velocity u (including its
 * shift) from the impulse p: p_out = proj_C(p - rho xi(u)) (the Uzawa /
 * projected Jacobi update). */
rc_status rcn_law_prox(rc_world *w, rc_contact *c, const double *p, const double *u, double rho, double *p_out)
{
    const rc_law *l = &w->laws[c->law];
    if (l->closed_form) {
        const double mu = l->def.mu;
        p_out[0] = p[0] - rho * (u[0] + mu * fabs(u[1]));
        p_out[1] = p[1] - rho * u[1];
        rcm_fc2d_project(mu, p_out);
        return RC_OK;
    }
    rc_law_ctx ctx;
    rcn_law_context(w, c, &ctx);
    double xi[2], x[2];
    RC_CHECK(checked_xi(l, &ctx, c->aux->state, u, c->aux->uk, xi));
    x[0] = p[0] - rho * xi[0];
    x[1] = p[1] - rho * xi[1];
    return checked_project(l, &ctx, c->aux->state, x, p_out);
}
