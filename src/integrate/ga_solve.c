/* ga_solve.c -- the linear algebra of the nonsmooth generalized-alpha step
 * (Bruls, Acary & Cardona 2014): the mass M, the internal forces of linear
 * bodies (-K q - C v), and the Newton update (41)-(44) solved by block
 * elimination instead of a dense LU of the whole matrix (44).
 *
 * With the unknowns of (42), x = (V, l, P, a, Q, b) = (dv~, -h dlambda~, dU/h,
 * -dnu/h, dW, -dLambda), the rows of (44) read
 *   (29a)  S V + g^Ubar,T l + h^2 K P + h C Q = -r_s,   S = c M + h^2 (beta/gamma) K + h C,
 *                                                       c = (1 - alpha_m) / ((1 - alpha_f) gamma)
 *   (29b)  g^Ubar_q V = -r_b
 *   (29c)  M P + g^A,T a = -r_p
 *   (29d-e) A: (beta/gamma) g_q V + g_q P = -r_pc;   not A: -a = -r_pc
 *   (29f)  M Q + g^B,T b = -r_w
 *   (29g-h) B: g_q V + g_q Q = -r_vc;                not B: -b = -r_vc
 * (K, C: the linear bodies' stiffness and damping; rigid bodies have none, and
 * the simplified Newton leaves out the other second-derivative blocks, see
 * ga_newton.c). P, Q and V follow from the multipliers y = (l, a, b):
 *   P = p0 - M^-1 g^A,T a,  Q = q0 - M^-1 g^B,T b,
 *   V = v0 - S^-1 g^Ubar,T l + h^2 S^-1 K M^-1 g^A,T a + h S^-1 C M^-1 g^B,T b
 * with p0 = -M^-1 r_p, q0 = -M^-1 r_w, v0 = S^-1 (-r_s - h^2 K p0 - h C q0),
 * which leaves a dense system in y of nb + 2 m unknowns (the constraints'
 * space). M and S are block diagonal over the bodies: diagonal for rigid
 * bodies, a linear body's factorised once per (h, coefficients) in the
 * scheme's state (banded Cholesky like its Mhat).
 *
 * The sequential strategy (Algorithm 1) is the same solve restricted to one
 * block of unknowns at a time: (V, l) with S (47), then (P, a) with M (48),
 * then (Q, b) with M (49), the coupling through the others dropped.
 */
#include "integrate/gen_alpha.h"
#include "linalg/linalg.h"

#include <string.h>

/* ---------------------------------------------------------------- M, S and K, C per body kind */

/* The linear bodies' factors of M and S in the scheme's state, for the
 * step's (h, c, beta/gamma); made again when those or the bodies change. */
rc_status rci_ga_factors(rci_ga_sys *s, rci_ga_state *g)
{
    rc_world *w = s->w;
    if (!w->nlinears) return RC_OK;
    const double key[3] = { s->h, s->cS, s->bg };
    if (g->fac_valid && g->fac_n == w->nv && memcmp(g->fac_key, key, sizeof key) == 0) return RC_OK;
    size_t total = 0;
    for (int i = 0; i < w->nlinears; i++) total += 2 * rcm_linear_combo_size(&w->linears[i]);
    if (total > g->fac_cap) {
        double *p = rcb_realloc(g->fac, total * sizeof(double));
        if (!p) return rc_set_error(RC_ERR_NOMEM, "gen-alpha: out of memory (factors of %d linear bodies)", w->nlinears);
        g->fac = p;
        g->fac_cap = total;
    }
    g->fac_valid = 0;
    double *F = g->fac;
    for (int i = 0; i < w->nlinears; i++) {
        const rc_linear *L = &w->linears[i];
        const size_t sz = rcm_linear_combo_size(L);
        RC_CHECK(rcm_linear_combo_factor(w, L, 1.0, 0.0, 0.0, F));                        /* M */
        RC_CHECK(rcm_linear_combo_factor(w, L, s->cS, s->h, s->h * s->h * s->bg, F + sz)); /* S */
        F += 2 * sz;
    }
    memcpy(g->fac_key, key, sizeof key);
    g->fac_n = w->nv;
    g->fac_valid = 1;
    return RC_OK;
}

/* the factor of M (which = 0) or S (1) of linear body i */
static const double *factor_of(const rci_ga_sys *s, int i, int which)
{
    const double *F = s->fac;
    for (int k = 0; k < i; k++) F += 2 * rcm_linear_combo_size(&s->w->linears[k]);
    return F + (which ? rcm_linear_combo_size(&s->w->linears[i]) : 0);
}

/* y = M x */
void rci_ga_mass_mul(const rci_ga_sys *s, const double *x, double *y)
{
    const rc_world *w = s->w;
    const double *md = w->mass_diag;
    for (int i = 0; i < s->n; i++) y[i] = md[i] * x[i];
    for (int i = 0; i < w->nlinears; i++) {
        const rc_linear *L = &w->linears[i];
        const int o = w->bodies[L->body].iv;
        rcm_linear_mul(L, L->M, x + o, y + o);
    }
}

/* f -= K q + C v (the linear bodies' internal forces; a nonlinear body's
 * f_int(q) in place of K q: the kind's op. The Newton matrix's S keeps M, C
 * only for them: a quasi-Newton step) */
void rci_ga_internal_forces(const rci_ga_sys *s, const double *q, const double *v, double *f)
{
    const rc_world *w = s->w;
    double *t = s->tmp;
    for (int i = 0; i < w->nlinears; i++) {
        const rc_linear *L = &w->linears[i];
        const rc_body *b = &w->bodies[L->body];
        for (int k = 0; k < 2; k++) {
            const double *A = k ? L->C : L->K;
            if (!A && !(k == 0 && L->nl)) continue;
            if (A) rcm_linear_mul(L, A, (k ? v + b->iv : q + b->iq), t);
            else (void)rcm_body_nonlinear.internal(w, b, q + b->iq, t, NULL);   /* (a beam's never fails) */
            for (int j = 0; j < L->n; j++) f[b->iv + j] -= t[j];
        }
    }
}

/* X (nrhs vectors of n, by rows) <- M^-1 X (which = 0) or S^-1 X (1) */
static rc_status solve(const rci_ga_sys *s, int which, double *X, int nrhs)
{
    const rc_world *w = s->w;
    const double *md = w->mass_diag, c = which ? s->cS : 1.0;
    const int n = s->n;
    for (int r = 0; r < nrhs; r++) {
        double *x = X + (size_t)r * n;
        for (int i = 0; i < n; i++) x[i] /= c * md[i];   /* the linear bodies' entries are solved again below */
    }
    for (int i = 0; i < w->nlinears; i++) {
        const rc_linear *L = &w->linears[i];
        const int o = w->bodies[L->body].iv;
        const double *F = factor_of(s, i, which);
        for (int r = 0; r < nrhs; r++) {
            double *x = X + (size_t)r * n + o;
            for (int j = 0; j < L->n; j++) x[j] *= c * md[o + j];   /* undo the diagonal */
            RC_CHECK(rcm_linear_combo_solve(L, F, x, 1));
        }
    }
    return RC_OK;
}

/* y = h^2 K x (which = 0) or h C x (1) over the linear bodies, 0 elsewhere */
static void stiff_mul(const rci_ga_sys *s, int which, const double *x, double *y)
{
    const rc_world *w = s->w;
    memset(y, 0, (size_t)s->n * sizeof(double));
    for (int i = 0; i < w->nlinears; i++) {
        const rc_linear *L = &w->linears[i];
        const double *A = which ? L->C : L->K, c = which ? s->h : s->h * s->h;
        if (!A) continue;
        const int o = w->bodies[L->body].iv;
        rcm_linear_mul(L, A, x + o, y + o);
        for (int j = 0; j < L->n; j++) y[o + j] *= c;
    }
}

/* ---------------------------------------------------------------- the Newton update */

/* the columns of the nonzero entries of row k of G: [lo, hi) */
static void row_span(const rci_ga_sys *s, int k, int *lo, int *hi)
{
    const double *G = s->G + (size_t)k * s->n;
    int a = 0, b = s->n;
    while (a < b && G[a] == 0.0) a++;
    while (b > a && G[b - 1] == 0.0) b--;
    *lo = a;
    *hi = b;
}

static double dot_span(const rci_ga_sys *s, int k, const double *x)
{
    const double *G = s->G + (size_t)k * s->n;
    double d = 0.0;
    for (int i = s->lo[k]; i < s->hi[k]; i++) d += G[i] * x[i];
    return d;
}

/* Y_k = M^-1 g_k^T for every row; X_k = S^-1 g_k^T for the joints' rows; with
 * linear bodies ZA_k = h^2 S^-1 K Y_k, ZB_k = h S^-1 C Y_k */
static rc_status columns(rci_ga_sys *s)
{
    const int n = s->n, m = s->m, nb = s->nb;
    for (int k = 0; k < m; k++) row_span(s, k, &s->lo[k], &s->hi[k]);
    memcpy(s->Y, s->G, (size_t)m * n * sizeof(double));
    RC_CHECK(solve(s, 0, s->Y, m));
    memcpy(s->X, s->G, (size_t)nb * n * sizeof(double));
    RC_CHECK(solve(s, 1, s->X, nb));
    if (!s->stiff) return RC_OK;
    for (int k = 0; k < m; k++) {
        stiff_mul(s, 0, s->Y + (size_t)k * n, s->ZA + (size_t)k * n);
        stiff_mul(s, 1, s->Y + (size_t)k * n, s->ZB + (size_t)k * n);
    }
    RC_CHECK(solve(s, 1, s->ZA, m));
    return solve(s, 1, s->ZB, m);
}

/* p0, q0, v0 of the header into x's P, Q and V blocks (a block left out of
 * the update: 0) */
static rc_status particular(rci_ga_sys *s, int blocks)
{
    const int n = s->n, nb = s->nb, m = s->m;
    double *x = s->x, *V = x, *P = x + n + nb, *Q = x + 2 * n + nb + m;
    const double *r = s->r;
    for (int i = 0; i < n; i++) {
        P[i] = blocks & RCI_GA_POSITION ? -r[n + nb + i] : 0.0;
        Q[i] = blocks & RCI_GA_VELOCITY ? -r[2 * n + nb + m + i] : 0.0;
        V[i] = blocks & RCI_GA_SMOOTH ? -r[i] : 0.0;
    }
    if (blocks & RCI_GA_POSITION) RC_CHECK(solve(s, 0, P, 1));
    if (blocks & RCI_GA_VELOCITY) RC_CHECK(solve(s, 0, Q, 1));
    if (!(blocks & RCI_GA_SMOOTH)) return RC_OK;
    if (s->stiff && blocks != RCI_GA_SMOOTH) {
        double *t = s->tmp;
        for (int which = 0; which < 2; which++) {
            stiff_mul(s, which, which ? Q : P, t);
            for (int i = 0; i < n; i++) V[i] -= t[i];
        }
    }
    return solve(s, 1, V, 1);
}

/* the reduced system R y = rhs in y = (l, a, b) (column-major R); the
 * multipliers of a block left out of the update get the row y = 0, and the
 * coupling through the left-out unknowns is dropped (Algorithm 1) */
static void reduced(rci_ga_sys *s, int blocks)
{
    const int n = s->n, nb = s->nb, m = s->m, nr = nb + 2 * m;
    const int useV = blocks & RCI_GA_SMOOTH, useP = blocks & RCI_GA_POSITION, useQ = blocks & RCI_GA_VELOCITY;
    const double bg = s->bg;
    const double *x = s->x, *V = x, *P = x + n + nb, *Q = x + 2 * n + nb + m, *r = s->r;
    double *R = s->R, *rhs = s->rhs;
#define R_(row, col) R[(size_t)(col) * nr + (row)]
    memset(R, 0, (size_t)nr * nr * sizeof(double));
    /* the rows: (29b) j < nb, then (29d-e) and (29g-h) for every constraint j */
    for (int eq = 0; eq < nb + 2 * m; eq++) {
        const int pos = eq >= nb && eq < nb + m, j = eq < nb ? eq : (pos ? eq - nb : eq - nb - m);
        if ((eq < nb && !useV) || (pos && !useP) || (eq >= nb + m && !useQ)) { R_(eq, eq) = 1.0; rhs[eq] = 0.0; continue; }
        if (pos && !s->inA[j]) { R_(eq, eq) = -1.0; rhs[eq] = -r[2 * n + nb + j]; continue; }
        if (!pos && eq >= nb && !s->inB[j]) { R_(eq, eq) = -1.0; rhs[eq] = -r[3 * n + nb + m + j]; continue; }
        const double cV = pos ? bg : 1.0;   /* the weight of g_q V in the row */
        double b = 0.0;
        if (useV) {   /* V's part */
            for (int k = 0; k < nb; k++) R_(eq, k) -= cV * dot_span(s, j, s->X + (size_t)k * n);
            if (s->stiff)
                for (int k = 0; k < m; k++) {
                    if (useP && s->inA[k]) R_(eq, nb + k) += cV * dot_span(s, j, s->ZA + (size_t)k * n);
                    if (useQ && s->inB[k]) R_(eq, nb + m + k) += cV * dot_span(s, j, s->ZB + (size_t)k * n);
                }
            b = -cV * dot_span(s, j, V);
        }
        if (eq < nb) {
            rhs[eq] = -r[n + eq] + b;
            continue;
        }
        /* P's part (position rows) or Q's part (velocity rows) */
        const unsigned char *in = pos ? s->inA : s->inB;
        for (int k = 0; k < m; k++)
            if (in[k]) R_(eq, (pos ? nb : nb + m) + k) -= dot_span(s, j, s->Y + (size_t)k * n);
        b -= dot_span(s, j, pos ? P : Q);
        rhs[eq] = (pos ? -r[2 * n + nb + j] : -r[3 * n + nb + m + j]) + b;
    }
#undef R_
}

/* V, P, Q from the multipliers y (in rhs) into x */
static void back(rci_ga_sys *s, int blocks)
{
    const int n = s->n, nb = s->nb, m = s->m;
    double *x = s->x, *V = x, *P = x + n + nb, *Q = x + 2 * n + nb + m;
    const double *y = s->rhs;
    for (int k = 0; k < nb; k++) x[n + k] = y[k];
    for (int k = 0; k < m; k++) {
        x[2 * n + nb + k] = y[nb + k];
        x[3 * n + nb + m + k] = y[nb + m + k];
    }
    for (int k = 0; k < nb; k++) {
        const double *Xk = s->X + (size_t)k * n;
        for (int i = 0; i < n; i++) V[i] -= Xk[i] * y[k];
    }
    for (int k = 0; k < m; k++) {
        const double a = s->inA[k] ? y[nb + k] : 0.0, b = s->inB[k] ? y[nb + m + k] : 0.0;
        const double *Yk = s->Y + (size_t)k * n;
        if (a != 0.0)
            for (int i = 0; i < n; i++) P[i] -= Yk[i] * a;
        if (b != 0.0)
            for (int i = 0; i < n; i++) Q[i] -= Yk[i] * b;
        if (!s->stiff || !(blocks & RCI_GA_SMOOTH)) continue;
        const double *ZA = s->ZA + (size_t)k * n, *ZB = s->ZB + (size_t)k * n;
        for (int i = 0; i < n; i++) V[i] += ZA[i] * a + ZB[i] * b;
    }
}

rc_status rci_ga_newton_update(rci_ga_sys *s, int blocks)
{
    const int n = s->n, nb = s->nb, m = s->m, nr = nb + 2 * m;
    const double h = s->h;
    RC_CHECK(columns(s));
    RC_CHECK(particular(s, blocks));
    reduced(s, blocks);
    int singular = 0;
    if (nr) RC_CHECK(rcl_lu_solve(nr, s->R, s->ipiv, s->rhs, &singular));
    if (singular)
        return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: the Newton matrix (44) is singular (multiplier %d of %d) at t = %.17g (step %ld): "
                            "redundant active constraints?", singular, nr, s->t1, s->w->step + 1);
    back(s, blocks);
    const double *x = s->x;
    for (int i = 0; i < n; i++) {
        s->vt[i] += x[i];
        s->U[i] += h * x[n + nb + i];
        s->W[i] += x[2 * n + nb + m + i];
    }
    for (int k = 0; k < nb; k++) s->lt[k] -= x[n + k] / h;
    for (int k = 0; k < m; k++) {
        s->pnu[k] -= h * x[2 * n + nb + k];
        s->L[k] -= x[3 * n + nb + m + k];
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- the consistent acceleration */

/* M a - g_q^T l = f, g_q a = -c (the joints' rows of G, c in cterm):
 * a = M^-1 (f + g_q^T l), (g_q M^-1 g_q^T) l = -c - g_q M^-1 f */
rc_status rci_ga_consistent_acceleration(rci_ga_sys *s, const double *cterm, double *a0)
{
    const int n = s->n, nb = s->nb;
    memcpy(a0, s->f, (size_t)n * sizeof(double));
    RC_CHECK(solve(s, 0, a0, 1));
    if (!nb) return RC_OK;
    for (int k = 0; k < nb; k++) row_span(s, k, &s->lo[k], &s->hi[k]);
    memcpy(s->Y, s->G, (size_t)nb * n * sizeof(double));
    RC_CHECK(solve(s, 0, s->Y, nb));
    double *R = s->R, *y = s->rhs;
    for (int j = 0; j < nb; j++) {
        for (int k = 0; k < nb; k++) R[(size_t)k * nb + j] = dot_span(s, j, s->Y + (size_t)k * n);
        y[j] = -cterm[j] - dot_span(s, j, a0);
    }
    int singular;
    RC_CHECK(rcl_lu_solve(nb, R, s->ipiv, y, &singular));
    if (singular)
        return rc_set_error(RC_ERR_NUMERIC, "gen-alpha: the joints' rows are dependent at t = %.17g: "
                            "no consistent initial acceleration (pivot %d)", s->w->t, singular);
    for (int k = 0; k < nb; k++) {
        const double *Yk = s->Y + (size_t)k * n;
        for (int i = 0; i < n; i++) a0[i] += Yk[i] * y[k];
    }
    return RC_OK;
}
