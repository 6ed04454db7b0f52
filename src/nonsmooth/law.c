/* law.c -- the planar frictional contact law in the De Saxce form and its
 * exact one-contact solver; the law interface's local solve, residual and
 * prox for a contact of any dimension d in {1, 2, 3} (rcn_site: pointers
 * and the dimension, so that the planar contact record keeps its
 * 2-component arrays); the spatial cone is in cone3.c.
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

int rcn_fc2d_local_solve(const double *W, const double *b, double mu, double *p)
{
    return rcn_fc2d_solve(W, b, mu, p);   /* nonsmooth.h */
}

/* rcn_fc2d_solve's cases again, none accepted: each candidate (the stick one
 * projected onto K) scored by its natural-map residual, the first smallest
 * kept (b_N < 0 here) */
int rcn_fc2d_best(const double *Wf, const double *b, double mu, double *p)
{
    const double W[2][2] = { { Wf[0], Wf[1] }, { Wf[2], Wf[3] } };
    double det = W[0][0] * W[1][1] - W[0][1] * W[1][0];
    double best_res = INFINITY, best[2] = { 0.0, 0.0 };
    int best_case = 0;
    if (mu > 0.0 && det > 0.0) {
        double ps[2] = { -(W[1][1] * b[0] - W[0][1] * b[1]) / det,
                         -(-W[1][0] * b[0] + W[0][0] * b[1]) / det };
        double w[2] = { 0.0, 0.0 };
        rcm_fc2d_project(mu, ps);
        w[0] = W[0][0] * ps[0] + W[0][1] * ps[1] + b[0];
        w[1] = W[1][0] * ps[0] + W[1][1] * ps[1] + b[1];
        double r = rcn_fc2d_residual(w, ps, mu);
        if (r < best_res) { best_res = r; best[0] = ps[0]; best[1] = ps[1]; best_case = 1; }
    }
    for (int k = 0; k < 2; k++) {
        double s = k == 0 ? 1.0 : -1.0;
        double den = W[0][0] - s * mu * W[0][1];
        if (!(den > 0.0)) continue;
        double pn = -b[0] / den;
        double ps[2] = { pn, -s * mu * pn };
        double w[2] = { W[0][0] * ps[0] + W[0][1] * ps[1] + b[0], W[1][0] * ps[0] + W[1][1] * ps[1] + b[1] };
        double r = rcn_fc2d_residual(w, ps, mu);
        if (r < best_res) { best_res = r; best[0] = ps[0]; best[1] = ps[1]; best_case = 2; }
    }
    p[0] = best[0];
    p[1] = best[1];
    return best_case;
}

/* ---------------------------------------------------------------- built-in laws */

int rcn_law_dim(const rc_law *l, int n)
{
    if (l->def.type != RC_LAW_CUSTOM) return n;   /* built-in: the contact's cone */
    if (l->ops.dim == 1) return 1;
    return l->ops.dim == n ? n : 0;
}

void rcn_law_context(const rc_world *w, const rc_contact *c, rc_law_ctx *ctx)
{
    ctx->t = w->t;
    ctx->h = w->sim.h;
    ctx->theta = w->sim.theta;
    ctx->unknown = w->unknown;   /* set by the step from its scheme */
    ctx->contact = c->id;
    ctx->gN = c->gN;
    ctx->dim = rcn_law_dim(&w->laws[c->law], 2);   /* a planar contact */
    ctx->normal[0] = c->n[0]; ctx->normal[1] = c->n[1]; ctx->normal[2] = 0.0;
    rcm_contact_tangent(c, ctx->tangent);
    ctx->tangent[2] = 0.0;
    ctx->tangent2[0] = ctx->tangent2[1] = ctx->tangent2[2] = 0.0;
}

/* ---------------------------------------------------------------- generic local solver */

static const char *law_label(const rc_law *l) { return l->name ? l->name : "(unnamed)"; }

static rc_status bad_dim(const rcn_site *s)
{
    return rc_set_error(RC_ERR_ARG, "law '%s' (dim = %d) does not apply to contact %d of dimension %d "
                        "(a law of dim 3 needs a spatial contact, with two tangents)",
                        law_label(s->law), s->law->ops.dim, s->ctx.contact, s->n);
}

static rc_status non_finite(const rcn_site *s, const char *what, const double *v)
{
    if (s->n == 2)
        return rc_set_error(RC_ERR_CALLBACK, "law '%s': %s returned a non-finite value (%g, %g) for contact %d at t = %.17g",
                            law_label(s->law), what, v[0], v[1], s->ctx.contact, s->ctx.t);
    return rc_set_error(RC_ERR_CALLBACK, "law '%s': %s returned a non-finite value (%g, %g, %g) for contact %d at t = %.17g",
                        law_label(s->law), what, v[0], v[1], v[2], s->ctx.contact, s->ctx.t);
}

/* xi of the site's law at u, its components beyond d zeroed, checked finite */
static RCB_INLINE rc_status checked_xi(const rcn_site *s, const double *u, double *xi, const int n)
{
    for (int i = 0; i < n; i++) xi[i] = 0.0;
    rc_status st = s->law->ops.xi(s->law->ops.user, &s->ctx, s->state, u, s->uk, xi);
    if (st != RC_OK) return st;
    for (int i = s->ctx.dim; i < n; i++) xi[i] = 0.0;
    for (int i = 0; i < n; i++)
        if (!rcb_finite(xi[i])) return non_finite(s, "xi", xi);
    return RC_OK;
}

static RCB_INLINE rc_status checked_project(const rcn_site *s, const double *x, double *p, const int n)
{
    double xx[RC_LAW_MAX_DIM];
    for (int i = 0; i < n; i++) { xx[i] = i < s->ctx.dim ? x[i] : 0.0; p[i] = 0.0; }
    rc_status st = s->law->ops.project(s->law->ops.user, &s->ctx, s->state, xx, p);
    if (st != RC_OK) return st;
    for (int i = s->ctx.dim; i < n; i++) p[i] = 0.0;
    for (int i = 0; i < n; i++)
        if (!rcb_finite(p[i])) return non_finite(s, "project", p);
    return RC_OK;
}

static RCB_INLINE double normsq(const double *x, int n)
{
    double s = x[0] * x[0];
    for (int i = 1; i < n; i++) s += x[i] * x[i];
    return s;
}

static RCB_INLINE double abssum(double s, const double *x, int n)
{
    for (int i = 0; i < n; i++) s += fabs(x[i]);
    return s;
}

/* Natural map of a custom law at p with local velocity u: F(p) = p - proj_C(p - xi(u)). */
static RCB_INLINE rc_status natural_map_n(const rcn_site *s, const double *u, const double *p, double *r2, const int n)
{
    double xi[RC_LAW_MAX_DIM], x[RC_LAW_MAX_DIM] = { 0.0 }, q[RC_LAW_MAX_DIM], d[RC_LAW_MAX_DIM] = { 0.0 };
    RC_CHECK(checked_xi(s, u, xi, n));
    for (int i = 0; i < n; i++) x[i] = p[i] - xi[i];
    RC_CHECK(checked_project(s, x, q, n));
    for (int i = 0; i < n; i++) d[i] = p[i] - q[i];
    *r2 = normsq(d, n);
    return RC_OK;
}

static rc_status natural_map(const rcn_site *s, const double *u, const double *p, double *r2)
{
    return s->n == 3 ? natural_map_n(s, u, p, r2, 3) : natural_map_n(s, u, p, r2, 2);
}

/* A law with ops.run (a Lua law) makes the xi/project calls of one local
 * solve, residual or prox step inside run (ricochet.h): the arguments of
 * that piece of work and the thunks that do it; the numbers are those of
 * the direct calls. */
typedef struct site_call {
    const rcn_site *s;
    double tol, rho;
    int maxit;
    const double *b, *u, *p;
    double *out, *arg;   /* arg: the projection's argument p - rho xi (or NULL) */
} site_call;

static rc_status run_residual(void *arg)
{
    const site_call *c = (const site_call *)arg;
    return natural_map(c->s, c->u, c->p, c->out);
}

rc_status rcn_site_residual2(const rcn_site *s, const double *u, const double *p, double *r2)
{
    const rc_law *l = s->law;
    if (l->closed_form) {
        *r2 = s->n == 3 ? rcn_cone3_residual2(u, p, l->def.mu) : rcn_fc2d_residual2(u, p, l->def.mu);
        return RC_OK;
    }
    if (s->ctx.dim < 1) return bad_dim(s);
    if (l->ops.run) {
        site_call sc = { .s = s, .u = u, .p = p, .out = r2 };
        return l->ops.run(l->ops.user, run_residual, &sc);
    }
    return natural_map(s, u, p, r2);
}

/* The local map of a custom law for u = W p + b:
 *     F(p) = p - proj_C(p - rho xi(W p + b)),
 * whose zeros are the solutions of -xi(u) in N_C(p) for any rho > 0. */
typedef struct local_problem {
    const rcn_site *s;
    const double *b;
    double rho;
    int n, dim;
} local_problem;

static RCB_INLINE rc_status local_map(const local_problem *lp, const double *p, double *F)
{
    const int n = lp->n;
    const double *W = lp->s->W;
    double u[RC_LAW_MAX_DIM] = { 0.0 }, xi[RC_LAW_MAX_DIM], x[RC_LAW_MAX_DIM] = { 0.0 }, q[RC_LAW_MAX_DIM];
    for (int i = 0; i < n; i++) {
        double a = W[n * i] * p[0];
        for (int j = 1; j < n; j++) a += W[n * i + j] * p[j];
        u[i] = a + lp->b[i];
    }
    RC_CHECK(checked_xi(lp->s, u, xi, n));
    for (int i = 0; i < n; i++) x[i] = p[i] - lp->rho * xi[i];
    RC_CHECK(checked_project(lp->s, x, q, n));
    for (int i = 0; i < n; i++) F[i] = i < lp->dim ? p[i] - q[i] : 0.0;
    return RC_OK;
}

/* The Newton direction J d = -F (J: n x n, row-major; d = 1: the normal
 * row only). Returns 0 when J is singular. */
static RCB_INLINE int newton_dir(const local_problem *lp, const double *J, const double *F, double *d)
{
    const int n = lp->n;
    for (int i = 0; i < n; i++) d[i] = 0.0;
    if (lp->dim == 1) {
        if (!(fabs(J[0]) > 1e-12)) return 0;
        d[0] = -F[0] / J[0];
        return 1;
    }
    if (n == 3) {
        const double mF[3] = { -F[0], -F[1], -F[2] };
        return rcn_solve3(J, mF, d);
    }
    const double det = J[0] * J[3] - J[1] * J[2];
    if (!(fabs(det) > 1e-14 * (fabs(J[0] * J[3]) + fabs(J[1] * J[2]) + 1e-300))) return 0;
    d[0] = -(J[3] * F[0] - J[1] * F[1]) / det;
    d[1] = -(-J[2] * F[0] + J[0] * F[1]) / det;
    return 1;
}

/* One full Newton step p + d, J d = -F, accepted if it reduces |F| to a
 * quarter. Returns 1 and updates p, F, *f2_out when accepted. Errors of the
 * law's callbacks are reported through the status of the next evaluation. */
static RCB_INLINE int try_newton(const local_problem *lp, const double *J, double *p, double *F, double f2, double *f2_out)
{
    double d[RC_LAW_MAX_DIM], pn[RC_LAW_MAX_DIM], Fn[RC_LAW_MAX_DIM];
    if (!newton_dir(lp, J, F, d)) return 0;
    for (int i = 0; i < lp->n; i++) pn[i] = p[i] + d[i];
    if (local_map(lp, pn, Fn) != RC_OK) return 0;
    double fn2 = normsq(Fn, lp->n);
    if (!(fn2 < 0.25 * f2)) return 0;
    for (int i = 0; i < lp->n; i++) { p[i] = pn[i]; F[i] = Fn[i]; }
    *f2_out = fn2;
    return 1;
}

/* The forward-difference Jacobian of F at p (columns k < dim), with a step
 * small against p, so that it rarely crosses a kink of F. */
static RCB_INLINE rc_status fd_jacobian(const local_problem *lp, const double *p, const double *F, double *J)
{
    const int n = lp->n;
    const double fd = 1e-7 * abssum(0.0, p, n) + 1e-13;
    for (int k = 0; k < lp->dim; k++) {
        double e = fd, pe[RC_LAW_MAX_DIM], Fe[RC_LAW_MAX_DIM];
        for (int i = 0; i < n; i++) pe[i] = p[i];
        pe[k] += e;
        RC_CHECK(local_map(lp, pe, Fe));
        for (int i = 0; i < n; i++) J[n * i + k] = (Fe[i] - F[i]) / e;
    }
    return RC_OK;
}

/* The largest eigenvalue of the site's W (d = 1: W_NN). */
static RCB_INLINE double site_lmax(const local_problem *lp)
{
    const double *W = lp->s->W;
    if (lp->dim == 1) return W[0];
    if (lp->n == 3) return rcn_sym3_lmax(W);
    double tr = 0.5 * (W[0] + W[3]), df = 0.5 * (W[0] - W[3]);
    return tr + sqrt(df * df + W[1] * W[2]);
}

/* A reduced rho can make F round to 0 (rho xi below the last bit of p)
 * away from a solution: for a spatial site, convergence at rho < rho0 is
 * confirmed with F at rho0 (*ok = 0 otherwise, with rho, F, *f2 back at
 * rho0). Planar sites keep the test at the reduced rho (their histories
 * are unchanged; the same false convergence can happen there, rarely). */
static RCB_INLINE rc_status confirm_spatial(local_problem *lp, double rho0, double tol, double slack,
                                 const double *p, double *F, double *f2, int *ok)
{
    *ok = 1;
    if (lp->n < 3 || lp->rho == rho0) return RC_OK;
    double F0[RC_LAW_MAX_DIM];
    const double rho = lp->rho;
    lp->rho = rho0;
    RC_CHECK(local_map(lp, p, F0));
    const double f02 = normsq(F0, lp->n), scale = slack * abssum(1.0, p, lp->n);
    if (f02 <= tol * tol * scale * scale) { lp->rho = rho; return RC_OK; }
    *ok = 0;
    for (int i = 0; i < lp->n; i++) F[i] = F0[i];
    *f2 = f02;
    return RC_OK;
}

/* Generic local solver for laws without a closed form: a semismooth Newton
 * method on F with a finite-difference Jacobian and a backtracking line
 * search on |F|, falling back to the projected fixed point p <- p - F(p)
 * (the proximal iteration of De Saxce & Feng / Moreau) when the Newton
 * direction does not decrease |F|; rho = 1 / lambda_max(W) and it is halved
 * when the fixed point stalls. Converged when |F| <= tol (1 + |p|). */
static RCB_INLINE rc_status generic_solve_n(const rcn_site *s, double tol, int maxit, const double *b, double *p,
                                             const int n_site)
{
    local_problem lp = { .s = s, .b = b, .n = n_site, .dim = s->ctx.dim };
    const int n = lp.n;
    const double lmax = site_lmax(&lp);
    if (!(lmax > 0.0))
        return rc_set_error(RC_ERR_NUMERIC, "law '%s': contact %d has a singular Delassus block", law_label(s->law), s->ctx.contact);
    lp.rho = 1.0 / lmax;
    const double rho0 = lp.rho;
    for (int i = lp.dim; i < n; i++) p[i] = 0.0;
    /* |F| scales with rho: the tests below use |F| rho0 / rho, so that a
     * reduced rho never makes a wrong p look converged */

    double F[RC_LAW_MAX_DIM];
    RC_CHECK(local_map(&lp, p, F));
    double f2 = normsq(F, n);
    for (int it = 0; it < maxit; it++) {
        double scale = abssum(1.0, p, n) * lp.rho / rho0;
        if (f2 <= tol * tol * scale * scale) {
            int ok = 1;
            RC_CHECK(confirm_spatial(&lp, rho0, tol, 1.0, p, F, &f2, &ok));
            if (ok) return RC_OK;
        }
        /* Newton direction: F is piecewise smooth, and between NSGS sweeps a
         * contact usually stays on the same piece, so the Jacobian of its
         * previous local solve is tried first (one evaluation of F instead
         * of n + 1); otherwise a forward-difference Jacobian */
        double J[RC_LAW_MAX_DIM * RC_LAW_MAX_DIM], d[RC_LAW_MAX_DIM];
        for (int i = 0; i < n * n; i++) J[i] = i % (n + 1) == 0 ? 1.0 : 0.0;
        if (s->J && *s->jvalid && it == 0) {
            memcpy(J, s->J, sizeof(double) * (size_t)(n * n));
            *s->jvalid = 0;   /* used once per local solve; refreshed below if it fails */
            if (try_newton(&lp, J, p, F, f2, &f2)) continue;
        }
        RC_CHECK(fd_jacobian(&lp, p, F, J));
        if (s->J) {
            memcpy(s->J, J, sizeof(double) * (size_t)(n * n));
            *s->jvalid = 1;
        }
        const int ok = newton_dir(&lp, J, F, d);
        double pn[RC_LAW_MAX_DIM] = { 0.0 }, Fn[RC_LAW_MAX_DIM] = { 0.0 }, fn2 = INFINITY;
        if (ok) {   /* backtracking on |F| */
            for (double a = 1.0; a > 1e-3; a *= 0.5) {
                for (int i = 0; i < n; i++) pn[i] = p[i] + a * d[i];
                RC_CHECK(local_map(&lp, pn, Fn));
                fn2 = normsq(Fn, n);
                if (fn2 < (1.0 - 1e-4 * a) * f2) break;
            }
        }
        if (!(fn2 < 0.25 * f2)) {   /* weak Newton progress (a kink): also try the
                                       fixed-point step p - F(p) = proj_C(p - rho xi) */
            double pf[RC_LAW_MAX_DIM], Ff[RC_LAW_MAX_DIM];
            for (int i = 0; i < n; i++) pf[i] = p[i] - F[i];
            RC_CHECK(local_map(&lp, pf, Ff));
            double ff2 = normsq(Ff, n);
            if (ff2 < fn2) {
                for (int i = 0; i < n; i++) { pn[i] = pf[i]; Fn[i] = Ff[i]; }
                fn2 = ff2;
            }
            if (!(fn2 < f2)) {   /* stalled: smaller rho (same zeros), recompute F */
                lp.rho *= 0.5;
                if (lp.rho * lmax < 1e-10) break;
                RC_CHECK(local_map(&lp, p, F));
                f2 = normsq(F, n);
                continue;
            }
        }
        for (int i = 0; i < n; i++) { p[i] = pn[i]; F[i] = Fn[i]; }
        f2 = fn2;
    }
    /* a miss within three orders of magnitude (round-off against a very
     * tight tolerance) is left to the global residual, which reports it */
    double scale = 1e3 * abssum(1.0, p, n) * lp.rho / rho0;
    if (f2 <= tol * tol * scale * scale) {
        int ok = 1;
        RC_CHECK(confirm_spatial(&lp, rho0, tol, 1e3, p, F, &f2, &ok));
        if (ok) return RC_OK;
    }
    return rc_set_error(RC_ERR_SOLVER, "law '%s': the local solver did not converge for contact %d at t = %.17g: |F| = %.3e > local_tol %.1e after %d iterations (rho = %.3e)",
                        law_label(s->law), s->ctx.contact, s->ctx.t, sqrt(f2), tol, maxit, lp.rho);
}

/* generic_solve_n specialised for planar and spatial contacts (the loops
 * over the contact's components unrolled) */
static rc_status generic_solve2(const rcn_site *s, double tol, int maxit, const double *b, double *p)
{
    return generic_solve_n(s, tol, maxit, b, p, 2);
}

static rc_status generic_solve3(const rcn_site *s, double tol, int maxit, const double *b, double *p)
{
    return generic_solve_n(s, tol, maxit, b, p, 3);
}

static rc_status run_solve(void *arg)
{
    const site_call *c = (const site_call *)arg;
    return c->s->n == 3 ? generic_solve3(c->s, c->tol, c->maxit, c->b, c->out)
                        : generic_solve2(c->s, c->tol, c->maxit, c->b, c->out);
}

static rc_status prox_n(const rcn_site *s, const double *p, const double *u, double rho, double *p_out, double *x_out)
{
    double xi[RC_LAW_MAX_DIM], x[RC_LAW_MAX_DIM];
    RC_CHECK(checked_xi(s, u, xi, s->n));
    for (int i = 0; i < s->n; i++) x[i] = p[i] - rho * xi[i];
    if (x_out)
        for (int i = 0; i < s->n; i++) x_out[i] = i < s->ctx.dim ? x[i] : 0.0;
    return checked_project(s, x, p_out, s->n);
}

static rc_status run_prox(void *arg)
{
    const site_call *c = (const site_call *)arg;
    return prox_n(c->s, c->p, c->u, c->rho, c->out, c->arg);
}

rc_status rcn_site_local_solve(const rcn_site *s, double tol, int maxit, const double *b, double *p)
{
    const rc_law *l = s->law;
    if (l->closed_form) {
        if (s->n == 3) rcn_cone3_local_solve(s->W, b, l->def.mu, p);
        else rcn_fc2d_local_solve(s->W, b, l->def.mu, p);
        return RC_OK;
    }
    if (s->ctx.dim < 1) return bad_dim(s);
    if (l->ops.run) {
        site_call sc = { .s = s, .tol = tol, .maxit = maxit, .b = b, .out = p };
        return l->ops.run(l->ops.user, run_solve, &sc);
    }
    return s->n == 3 ? generic_solve3(s, tol, maxit, b, p) : generic_solve2(s, tol, maxit, b, p);
}

rc_status rcn_site_prox(const rcn_site *s, const double *p, const double *u, double rho, double *p_out)
{
    const rc_law *l = s->law;
    const int n = s->n;
    if (l->closed_form) {
        const double mu = l->def.mu;
        if (n == 3) {
            double ut[3];
            rcn_cone3_xi(u, mu, ut);
            for (int i = 0; i < 3; i++) p_out[i] = p[i] - rho * ut[i];
            rcm_fc3d_project(mu, p_out);
            return RC_OK;
        }
        p_out[0] = p[0] - rho * (u[0] + mu * fabs(u[1]));
        p_out[1] = p[1] - rho * u[1];
        rcm_fc2d_project(mu, p_out);
        return RC_OK;
    }
    if (s->ctx.dim < 1) return bad_dim(s);
    if (l->ops.run) {
        site_call sc = { .s = s, .rho = rho, .u = u, .p = p, .out = p_out };
        return l->ops.run(l->ops.user, run_prox, &sc);
    }
    return prox_n(s, p, u, rho, p_out, NULL);
}

rc_status rcn_site_prox_arg(const rcn_site *s, const double *p, const double *u, double rho, double *x_out, double *p_out)
{
    const rc_law *l = s->law;
    if (s->ctx.dim < 1) return bad_dim(s);
    if (l->ops.run) {
        site_call sc = { .s = s, .rho = rho, .u = u, .p = p, .out = p_out, .arg = x_out };
        return l->ops.run(l->ops.user, run_prox, &sc);
    }
    return prox_n(s, p, u, rho, p_out, x_out);
}

/* ---------------------------------------------------------------- planar contacts */

/* The site of planar contact c (n = 2; its law state, u_old and Jacobian
 * in c->aux, set for every contact of a world with a law without a closed
 * form). */
static void planar_site(rc_world *w, rc_contact *c, rcn_site *s)
{
    s->law = &w->laws[c->law];
    rcn_law_context(w, c, &s->ctx);
    s->n = 2;
    s->W = &c->W[0][0];
    rc_contact_aux *aux = c->aux;
    s->state = aux ? aux->state : NULL;
    s->uk = aux ? aux->uk : NULL;
    s->J = aux ? &aux->J[0][0] : NULL;
    s->jvalid = aux ? &aux->jvalid : NULL;
}

rc_status rcn_law_residual2(rc_world *w, rc_contact *c, const double *u, double *r2)
{
    const rc_law *l = &w->laws[c->law];
    if (l->closed_form) { *r2 = rcn_fc2d_residual2(u, c->p, l->def.mu); return RC_OK; }
    rcn_site s;
    planar_site(w, c, &s);
    return rcn_site_residual2(&s, u, c->p, r2);
}

rc_status rcn_law_local_solve(rc_world *w, rc_contact *c, const double *bl, double *p)
{
    const rc_law *l = &w->laws[c->law];
    if (l->closed_form) {
        rcn_fc2d_solve(&c->W[0][0], bl, l->def.mu, p);
        return RC_OK;
    }
    rcn_site s;
    planar_site(w, c, &s);
    /* automatic tolerance: the local residuals of n contacts add up in the
     * global one, so each gets a share well below the global tolerance */
    double tol = w->sim.solver.local_tol;
    if (tol <= 0.0) tol = fmax(0.01 * w->sim.solver.tol / sqrt((double)(w->nactive > 1 ? w->nactive : 1)), 1e-15);
    return rcn_site_local_solve(&s, tol, w->sim.solver.local_max_iter, bl, p);
}

/* One proximal step of contact c's law at local velocity u (including its
 * shift) from the impulse p: p_out = proj_C(p - rho xi(u)) (the Uzawa /
 * projected Jacobi update). */
rc_status rcn_law_prox(rc_world *w, rc_contact *c, const double *p, const double *u, double rho, double *p_out)
{
    rcn_site s;
    const rc_law *l = &w->laws[c->law];
    if (l->closed_form) {   /* no context needed */
        s.law = l;
        s.n = 2;
        return rcn_site_prox(&s, p, u, rho, p_out);
    }
    planar_site(w, c, &s);
    return rcn_site_prox(&s, p, u, rho, p_out);
}
