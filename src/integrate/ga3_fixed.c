/* ga3_fixed.c -- the fallback of the frictional generalized-alpha step on
 * spatial contacts when its Newton method fails (a stall in an accumulation
 * of impacts, a singular Jacobian): the fixed-point iterations (144)-(146) of
 * Capobianco et al. 2021 (note 003, section 2.8) as the planar variant runs
 * them (gf_step.c): Newton on the smooth rows R_s for y = (a, U, Q) with the
 * contacts' z fixed (a chord method), then z <- prox(y, z) contact by
 * contact, with the friction sets the disc / ball of radius mu P_N, mu
 * lambda_N (ga3_friction.h). */
#include "integrate/ga3_friction.h"
#include "linalg/linalg.h"

#include <math.h>
#include <string.h>

/* z projected on the ball of radius rad (n components), into r */
static void proj_ball(double *r, const double *z, double rad, int n)
{
    double nz = 0.0;
    for (int j = 0; j < n; j++) nz += z[j] * z[j];
    nz = sqrt(nz);
    const double f = nz > rad ? (nz > 0.0 ? rad / nz : 0.0) : 1.0;
    for (int j = 0; j < n; j++) r[j] = f * z[j];
}

/* contact k's update (note 003 section 2.8 steps 3-6, the disc), then the
 * unknowns back from the percussions (95), (102), (113); returns the change */
static double prox_contact(rci_ga3f *s, int k)
{
    const double h = s->h, af = s->af, am = s->am, ga = s->ga, be = s->be, r = s->rN[k], rf = s->rF[k], mu = s->mu[k];
    const int nf = s->nf[k];
    double *xk = s->x + s->off[k], *LF = xk + 3, *lF = xk + 3 + nf;
    const double *PF = s->PF + 3 * k, *xiF = s->xiF + 3 * k, *gdF = s->gdF + 3 * k, *gF = s->gF + 3 * k;
    const double kh = fmax(s->kh[k] - r * s->gN[k], 0.0);                                   /* (128) */
    const int A = kh > 0.0 || r * s->gN[k] - s->kh[k] <= 0.0;
    const double PN = A ? fmax(s->PN[k] - r * s->xiN[k], 0.0) : 0.0;                        /* (131) */
    const int B = A && r * s->xiN[k] - s->PN[k] <= 0.0;
    const double lN = B ? fmax(xk[2] - r * s->gddN[k], 0.0) : 0.0;                          /* (134) */
    double y[3], PFn[3] = { 0.0, 0.0, 0.0 }, lFn[3] = { 0.0, 0.0, 0.0 }, d = 0.0, ng = 0.0;
    for (int j = 0; j < nf; j++) { y[j] = PF[j] - rf * xiF[j]; d += (rf * xiF[j] - PF[j]) * (rf * xiF[j] - PF[j]); }
    if (A) proj_ball(PFn, y, mu * PN, nf);                                                   /* (137) */
    if (A && sqrt(d) <= mu * PN) {                                                           /* (140) */
        for (int j = 0; j < nf; j++) y[j] = lF[j] - rf * gdF[j];
        proj_ball(lFn, y, mu * lN, nf);
    } else if (A) {
        for (int j = 0; j < nf; j++) ng += gF[j] * gF[j];
        ng = sqrt(ng);
        for (int j = 0; j < nf; j++) lFn[j] = ng > 0.0 ? -mu * lN * gF[j] / ng : 0.0;
    }
    const double lbN = (af * s->lNn[k] + (1.0 - af) * lN - am * s->lbNn[k]) / (1.0 - am);
    const double nLN = PN - h * ((1.0 - ga) * s->lbNn[k] + ga * lbN);
    const double nkN = kh - 0.5 * h * h * ((1.0 - 2.0 * be) * s->lbNn[k] + 2.0 * be * lbN);
    double change = fmax(fmax(fabs(nLN - xk[1]), fabs(nkN - xk[0]) / h), h * fabs(lN - xk[2]));
    xk[0] = nkN; xk[1] = nLN; xk[2] = lN;
    for (int j = 0; j < nf; j++) {
        const int i = 3 * k + j;
        const double lbF = (af * s->lFn[i] + (1.0 - af) * lFn[j] - am * s->lbFn[i]) / (1.0 - am);
        const double nLF = PFn[j] - h * ((1.0 - ga) * s->lbFn[i] + ga * lbF);
        change = fmax(change, fmax(fabs(nLF - LF[j]), h * fabs(lFn[j] - lF[j])));
        LF[j] = nLF;
        lF[j] = lFn[j];
    }
    return change;
}

/* the smooth rows' Jacobian (ny x ny, column-major) by forward differences */
static rc_status smooth_jacobian(rci_ga3f *s, int ny, double *J)
{
    int worst;
    memcpy(s->R0, s->R, (size_t)ny * sizeof(double));
    for (int j = 0; j < ny; j++) {
        const double xj = s->x[j], eps = 1e-7 * fmax(1.0, fabs(xj));
        s->x[j] = xj + eps;
        RC_CHECK(rci_ga3f_eval(s));
        (void)rci_ga3f_residual(s, &worst);
        for (int i = 0; i < ny; i++) J[(size_t)j * ny + i] = (s->R[i] - s->R0[i]) / eps;
        s->x[j] = xj;
    }
    memcpy(s->R, s->R0, (size_t)ny * sizeof(double));
    return RC_OK;
}

static double smooth_norm(rci_ga3f *s, int ny)
{
    int worst;
    (void)rci_ga3f_residual(s, &worst);
    double r = 0.0;
    for (int i = 0; i < ny; i++) r = fmax(r, fabs(s->R[i]));
    return r;
}

/* the fixed point's prox parameters: r = 1 / (the row's sum of |W| over
 * every contact row), W = G M^-1 G^T at the current rows; contacts that
 * share a body then cannot overshoot together (a Jacobi iteration with the
 * one-contact r = 1 / W_kk diverges on a box's four corners) */
static void coupled_params(rci_ga3f *s)
{
    const double *md = s->w->mass_diag, r = s->w->sim.gen_alpha.prox_r;
    const int nv = s->nv;
    if (r > 0.0) return;   /* the simulation's own */
    for (int k = 0; k < s->nc; k++) {
        double rows[4] = { 0.0, 0.0, 0.0, 0.0 };
        for (int a = 0; a <= s->nf[k]; a++) {
            const double *Ga = s->G + (size_t)(s->gr[k] + a) * nv;
            for (int b = 0; b < s->nrows; b++) {
                const double *Gb = s->G + (size_t)b * nv;
                double wab = 0.0;
                for (int i = 0; i < nv; i++) wab += Ga[i] * Gb[i] / md[i];
                rows[a] += fabs(wab);
            }
        }
        double rf = 0.0;
        for (int a = 1; a <= s->nf[k]; a++) rf = fmax(rf, rows[a]);
        if (rows[0] > 0.0) s->rN[k] = 1.0 / rows[0];
        if (rf > 0.0) s->rF[k] = 1.0 / rf;
    }
}

rc_status rci_ga3f_fixed_point(rci_ga3f *s, int maxit, double tol, int *iters, double *res, int *worst, int *ok)
{
    const int ny = 3 * s->nv + 3 * s->nb;   /* y = (a, U, Q) and the joints' multipliers: the smooth rows */
    double best = INFINITY;
    int have_j = 0, since = 0;
    *ok = 0;
    RC_CHECK(rci_ga3f_eval(s));
    coupled_params(s);
    for (int it = 0; it < maxit; it++) {
        double last = INFINITY;
        for (int k = 0; k < 10; k++) {   /* (145) */
            RC_CHECK(rci_ga3f_eval(s));
            rci_ga3f_sets(s);
            const double rs = smooth_norm(s, ny);
            if (rs <= 0.01 * tol || !rcb_finite(rs)) break;   /* (not finite: the residual below reports it) */
            if (!have_j || !(rs < 0.5 * last)) { RC_CHECK(smooth_jacobian(s, ny, s->J)); have_j = 1; }
            last = rs;
            memcpy(s->J2, s->J, (size_t)ny * ny * sizeof(double));
            for (int i = 0; i < ny; i++) s->dx[i] = -s->R[i];
            int singular;
            RC_CHECK(rcl_lu_solve(ny, s->J2, s->ipiv, s->dx, &singular));
            if (singular)
                return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: the smooth part's matrix is singular at t = %.17g (step %ld)",
                                    s->t1, s->w->step + 1);
            for (int i = 0; i < ny; i++) s->x[i] += s->dx[i];
        }
        if (rc_interrupt_requested())
            return rc_set_error(RC_ERR_INTERRUPTED, "interrupted at t = %.17g (step %ld, in the gen-alpha fixed point after %d iterations)",
                                s->w->t, s->w->step + 1, it);
        RC_CHECK(rci_ga3f_eval(s));
        double change = 0.0;
        for (int k = 0; k < s->nc; k++) {   /* (146), Gauss--Seidel order */
            change = fmax(change, prox_contact(s, k));
            rci_ga3f_dependent(s, 1);
        }
        *iters = it + 1;
        if (change <= tol) { *ok = 1; break; }
        if (!rcb_finite(change)) break;
        if (it == 0 || change < 0.5 * best) { best = change; since = 0; }
        else if (++since >= 100) break;
    }
    RC_CHECK(rci_ga3f_eval(s));
    rci_ga3f_sets(s);
    *res = rci_ga3f_residual(s, worst);
    *ok = *ok || *res <= tol;
    return RC_OK;
}
