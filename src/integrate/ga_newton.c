/* ga_newton.c -- the semismooth Newton method on the discrete system of the
 * nonsmooth generalized-alpha scheme (Bruls, Acary & Cardona 2014, eqs.
 * (29)-(30), their semismooth form (37), active sets (38), residuals (39),
 * scaled unknowns (42), iteration matrix (44)), monolithic: every block at
 * once (the update is solved by block elimination in ga_solve.c).
 *
 * The matrix keeps every first-order block of (44) and leaves out the
 * blocks made of second derivatives of the constraints and forces (G*_s,
 * G_p, G_v, G*_v and the rigid bodies' K_t, C_t: zero for linear constraints
 * and constant forces, O(h) otherwise; the linear bodies' K_t = K and C_t = C
 * are kept, they are exact and not small): the residual is exact, so the converged step is
 * the solution of (29)-(30); only the rate of convergence is affected on
 * nonlinear constraints (the pendulum's pivot, the block's corners).
 *
 * The inactive rows carry the identity with the sign that drives nu^Abar and
 * Lambda^Bbar to zero (-I against the scaled unknowns -dnu/h, -dLambda; the
 * paper prints +I, implementation note 002, section 2.6).
 */
#include "integrate/gen_alpha.h"
#include "linalg/linalg.h"

#include <float.h>
#include <string.h>

/* ---------------------------------------------------------------- evaluation */

/* (30a)-(30e) with a_{n+1} from v~_{n+1} (30c) */
static void dependent(rci_ga_sys *s)
{
    const double h = s->h, am = s->am, af = s->af, be = s->beta, ga = s->gam;
    for (int i = 0; i < s->n; i++) {
        const double a = (s->vt[i] - s->vn[i] - h * (1.0 - ga) * s->an[i]) / (h * ga);
        s->a[i] = a;
        s->vd[i] = ((1.0 - am) * a + am * s->an[i] - af * s->vdn[i]) / (1.0 - af);   /* (30e) */
        s->qt[i] = s->qn[i] + h * s->vn[i] + h * h * ((0.5 - be) * s->an[i] + be * a);   /* (30a) */
        s->q[i] = s->qt[i] + s->U[i];   /* (30b) */
        s->v[i] = s->vt[i] + s->W[i];   /* (30d) */
    }
}

/* The unilateral constraints at the positions X (rci_contacts_at): at_q:
 * g(q), its rows and the contact frames; else g(q~). */
static rc_status contacts_at(rci_ga_sys *s, const double *X, int at_q)
{
    if (!s->nu) return RC_OK;
    RC_CHECK(rci_contacts_at(s->w, s->margin, s->t1, X, s->cs, s->nu, at_q ? s->g + s->nb : s->gtil, at_q));
    if (at_q)
        for (int j = 0; j < s->nu; j++) rci_contact_row(s->w, &s->cs[j], 0, s->n, s->G + (size_t)(s->nb + j) * s->n);
    return RC_OK;
}

/* the joints' rows g(q, t), g_q, dg/dt at positions X and time t */
static rc_status joints_at(rci_ga_sys *s, const double *X, double t, double *g, double *G, double *gt)
{
    return rci_joint_rows(s->w, s->n, X, t, g, G, gt);
}

/* f(q, v, t): the applied forces (w->q, w->v hold q, v), gravity on rigid
 * bodies, the linear bodies' -K q - C v */
static rc_status forces_at(rci_ga_sys *s, double t)
{
    rc_world *w = s->w;
    if (s->have_f) RC_CHECK(rci_forces(w, t));
    const double *gr = w->def.gravity;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body *bd = &w->bodies[b];
        double *f = s->f + bd->iv;
        for (int k = 0; k < bd->nv; k++) f[k] = s->have_f ? w->f[bd->iv + k] : 0.0;
        if (rcm_body_ops_of(bd)->internal) continue;   /* linear, nonlinear: rci_ga_internal_forces */
        const double m = rcm_body_mass(w, bd);
        f[0] += m * gr[0];
        f[1] += m * gr[1];
    }
    rci_ga_internal_forces(s, w->q, w->v, s->f);
    return RC_OK;
}

static double row_dot(const rci_ga_sys *s, int row, const double *x)
{
    const double *G = s->G + (size_t)row * s->n;
    double d = 0.0;
    for (int i = 0; i < s->n; i++) d += G[i] * x[i];
    return d;
}

rc_status rci_ga_eval(rci_ga_sys *s)
{
    rc_world *w = s->w;
    dependent(s);
    RC_CHECK(contacts_at(s, s->qt, 0));   /* the velocity level's gate, g(q~_{n+1}) <= 0 (29h) */
    RC_CHECK(contacts_at(s, s->q, 1));
    memcpy(w->q, s->q, (size_t)w->nq * sizeof(double));
    memcpy(w->v, s->v, (size_t)w->nv * sizeof(double));
    RC_CHECK(joints_at(s, s->q, s->t1, s->g, s->G, s->gt));
    RC_CHECK(forces_at(s, s->t1));
    const double *md = w->mass_diag;
    for (int j = 0; j < s->nu; j++) {   /* r_j = (g_q M^-1 g_q^T)^-1: the effective mass */
        const double *G = s->G + (size_t)(s->nb + j) * s->n;
        double d = 0.0;
        for (int i = 0; i < s->n; i++) d += G[i] * G[i] / md[i];
        s->rj[j] = d > 0.0 ? 1.0 / d : 1.0;
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- residual */

static void active_sets(rci_ga_sys *s)
{
    for (int k = 0; k < s->nb; k++) s->inA[k] = s->inB[k] = 1;   /* bilateral: always in A and B */
    for (int j = 0; j < s->nu; j++) {   /* (38) */
        const int row = s->nb + j;
        s->inA[row] = s->pnu[row] - s->rj[j] * s->g[row] >= 0.0;
        const double u = row_dot(s, row, s->v) + s->ukn[row];
        s->inB[row] = s->gtil[j] <= 0.0 && s->L[row] - s->rj[j] * u >= 0.0;
    }
}

/* r_s (29a-b), r_p (29c-e), r_v (29f-h), scaled as (39) */
double rci_ga_residual(rci_ga_sys *s, int *worst)
{
    const int n = s->n, nb = s->nb, m = s->m;
    const double h = s->h;
    double *r = s->r, *Mvd = s->Mx, *MU = Mvd + n, *MW = MU + n;
    active_sets(s);
    rci_ga_mass_mul(s, s->vd, Mvd);
    rci_ga_mass_mul(s, s->U, MU);
    rci_ga_mass_mul(s, s->W, MW);
    for (int i = 0; i < n; i++) {
        double sl = 0.0, sp = 0.0, sv = 0.0;
        for (int k = 0; k < m; k++) {
            const double Gki = s->G[(size_t)k * n + i];
            if (Gki == 0.0) continue;
            if (k < nb) sl += Gki * s->lt[k];
            if (s->inA[k]) sp += Gki * s->pnu[k];
            if (s->inB[k]) sv += Gki * s->L[k];
        }
        r[i] = h * (Mvd[i] - s->f[i] - sl);                      /* (29a) */
        r[n + nb + i] = (MU[i] - sp) / h;                        /* (29c) */
        r[2 * n + nb + m + i] = MW[i] - sv;                      /* (29f) */
    }
    for (int k = 0; k < nb; k++) r[n + k] = row_dot(s, k, s->vt) + s->gt[k];   /* (29b) */
    /* a position-level row g / h: a gap within the round-off of the positions,
     * 4 eps (1 + |q|), is zero (else the scaling 1/h lifts that round-off above
     * the tolerance at small h: 1.1e-16 / 1e-4 > 1e-12) */
    double qmax = 0.0;
    for (int i = 0; i < n; i++) qmax = fmax(qmax, fabs(s->q[i]));
    const double gfloor = 4.0 * DBL_EPSILON * (1.0 + qmax);
    for (int k = 0; k < m; k++) {
        const double gk = fabs(s->g[k]) <= gfloor ? 0.0 : s->g[k];
        r[2 * n + nb + k] = s->inA[k] ? gk / h : s->pnu[k] / h;   /* (29d-e), (37) */
        r[3 * n + nb + m + k] = s->inB[k] ? row_dot(s, k, s->v) + s->ukn[k] + (k < nb ? s->gt[k] : 0.0)
                                          : s->L[k];                 /* (29g-h), (37) */
    }
    double res = 0.0;
    *worst = -1;
    for (int i = 0; i < s->N; i++) {
        const double a = fabs(r[i]);
        if (!(a <= res)) { res = a; *worst = i; }   /* a NaN is kept */
    }
    return res;
}

/* ---------------------------------------------------------------- start */

/* c = d/dt (g_q v + dg/dt) along (q + t v, t) at a = 0, central differences */
static rc_status joints_drift_term(rci_ga_sys *s, double t, double *c, double *scratch)
{
    const int n = s->n, nb = s->nb;
    double *X = scratch, *g = X + n, *gt = g + nb, *G = gt + nb;
    const double eps = 1e-6;
    for (int k = 0; k < nb; k++) c[k] = 0.0;
    for (int side = 0; side < 2; side++) {
        const double sg = side ? -1.0 : 1.0;
        for (int i = 0; i < n; i++) X[i] = s->qn[i] + sg * eps * s->vn[i];
        RC_CHECK(joints_at(s, X, t + sg * eps, g, G, gt));
        for (int k = 0; k < nb; k++) {
            double d = gt[k];
            for (int i = 0; i < n; i++) d += G[(size_t)k * n + i] * s->vn[i];
            c[k] += sg * d / (2.0 * eps);
        }
    }
    return RC_OK;
}

/* the consistent acceleration at (q_n, v_n, t_n): M a - g_q^T l = f,
 * g_q a = -c with c = d/dt (g_q v + dg/dt) (ga_solve.c solves it) */
rc_status rci_ga_initial_acceleration(rci_ga_sys *s, double *a0)
{
    rc_world *w = s->w;
    memcpy(w->q, s->qn, (size_t)w->nq * sizeof(double));
    memcpy(w->v, s->vn, (size_t)w->nv * sizeof(double));
    RC_CHECK(forces_at(s, s->t1 - s->h));
    /* c in r (N >= nb); the differences' scratch (n + 2 nb + nb n) in Y (sized for it) */
    double *c = s->r, *scratch = s->Y;
    if (s->nb) {
        RC_CHECK(joints_drift_term(s, s->t1 - s->h, c, scratch));
        RC_CHECK(joints_at(s, s->qn, s->t1 - s->h, s->g, s->G, s->gt));
    }
    return rci_ga_consistent_acceleration(s, c, a0);
}
