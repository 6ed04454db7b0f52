/* gf_jacobian.c -- the Jacobian of the frictional nonsmooth generalized-alpha
 * step's residual R(x) (Capobianco, Harsch, Eugster & Leine 2021, section 9;
 * note 003 section 2.7) for its semismooth Newton method (143), with the
 * index sets (130)-(141) frozen as the residual chose them
 * (docs/theory/gen-alpha-friction.md, "The Newton Jacobian").
 *
 * Analytic (rc_gen_alpha_def.jacobian = RC_GA_JAC_ANALYTIC, or AUTO when every
 * part is built in), by the chain rule through the dependent quantities:
 *   a -> a-bar (71): (1 - af)/(1 - am); u (73): h gamma of it; q: h^2 beta of it;
 *   lambda_N, lambda_F -> lambda-bar (96), (114), P_N (95), kappa-hat (102), P_F (113);
 *   exact: M (diagonal or a linear or nonlinear body's), -C u, the tangent
 *   -K_T of the kinds' internal force (K of a linear body, a beam's own:
 *   rcm_body_ops.internal), gravity and constant forces (0), the rows'
 *   values G (= dg/dq of the joints and of the gaps
 *   g_N), G u, G a, the multipliers' columns -G^T, and each contact's
 *   branch of (129)-(142) with sgn frozen (the generalized derivative with
 *   the residual's own branch choices);
 *   by differences (the geometry's curvature, which the built-in shapes do not
 *   give): dG/dq_j, from the rows at q + s sigma u + s' delta e_j (s, s' =
 *   +-1; delta = 1e-4, sigma = 1e-4 / max(1, |u|)): the terms
 *   (dG/dq_j) u, u_i, a, lambda of G u, G u_i, G a and G^T lambda; the
 *   accelerations' velocity terms c (d/dt of G u + dg/dt along (u, 1), eqs.
 *   55, 58, 119): dc/du = (G(q + sigma u, t + sigma) - G(q - sigma u, t -
 *   sigma)) / (2 sigma) + (dG/dq) u + d(dg/dt)/dq, dc/dq_j the mixed central
 *   difference of G u + dg/dt (4 n evaluations of the rows in all);
 *   forces of a force function or of springs: forward differences of f in
 *   the body's columns (rci_gf_force_block); the rows of a contact whose law
 *   runs through xi / project (a Lua or C law, gf_law.c): forward
 *   differences of those four rows (rci_gf_jacobian_fd with a row mask).
 * By differences (RC_GA_JAC_DIFFERENCES, or AUTO with a law without closed
 * form or a gap-function contact, or a world with a body kind other than
 * planar rigid, linear and nonlinear): forward differences of the whole R,
 * each column of a, U, Q an evaluation of the geometry (three narrow phases).
 */
#include "integrate/gen_alpha_friction.h"

#include <math.h>
#include <string.h>

void (*rci_gf_jacobian_probe)(rci_gf_sys *s, const double *J) = NULL;

static const double geo_delta = 1e-4, geo_sigma = 1e-4;   /* the geometry's steps (header) */

/* the offsets of the blocks of x (as gf_residual.c) */


/* ---------------------------------------------------------------- differences */

rc_status rci_gf_jacobian_fd(rci_gf_sys *s, int c0, int nr, int smooth_only, double *J, const unsigned char *rows)
{
    double *R0 = s->R0;
    int worst;
    for (int i = 0; i < nr; i++) R0[i] = s->R[c0 + i];
    for (int j = 0; j < nr; j++) {
        if (c0 + j == 3 * s->n) RC_CHECK(rci_gf_eval(s));   /* the base point's geometry for the multipliers' columns */
        const double xj = s->x[c0 + j], eps = 1e-7 * fmax(1.0, fabs(xj));
        s->x[c0 + j] = xj + eps;
        if (c0 + j < 3 * s->n) RC_CHECK(rci_gf_eval(s));   /* a, U, Q move q and u: the geometry again */
        else rci_gf_dependent(s);                         /* a multiplier: the same geometry */
        if (smooth_only) (void)rci_gf_residual_smooth(s);
        else (void)rci_gf_residual(s, &worst);   /* (the sets are not recomputed: frozen) */
        RC_CHECK(s->err);                        /* a law's call failed */
        for (int i = 0; i < nr; i++)
            if (!rows || rows[c0 + i]) J[(size_t)j * nr + i] = (s->R[c0 + i] - R0[i]) / eps;
        s->x[c0 + j] = xj;
    }
    for (int i = 0; i < nr; i++) s->R[c0 + i] = R0[i];
    return RC_OK;
}

rc_status rci_gf_force_block(rci_gf_sys *s, int b, double *dfq, double *dfu)
{
    const rc_body *bd = &s->w->bodies[b];
    const int n = s->n;
    double *f0 = s->dx;   /* scratch until the update */
    memcpy(f0, s->f, (size_t)n * sizeof(double));
    for (int k = 0; k < bd->nv; k++)
        for (int pass = 0; pass < 2; pass++) {
            double *v = pass ? s->u + bd->iv + k : s->q + bd->iq + k, *D = pass ? dfu : dfq;
            const double xj = *v, eps = 1e-7 * fmax(1.0, fabs(xj));
            *v = xj + eps;
            const rc_status st = rci_gf_forces(s);
            *v = xj;
            RC_CHECK(st);
            for (int i = 0; i < n; i++) D[(size_t)i * n + bd->iv + k] = (s->f[i] - f0[i]) / eps;
        }
    memcpy(s->f, f0, (size_t)n * sizeof(double));
    return RC_OK;
}

/* ---------------------------------------------------------------- the analytic Jacobian's parts */

/* the workspace: rows at the four shifted points, the derivatives (m x n or
 * n x n, row-major: [row][q_j]) */
typedef struct gjw {
    double *Gs[4], *gt[4];
    double *dGu, *dGun, *dGa, *dc, *dcdu;   /* d(G u)/dq (+ d(dg/dt)/dq), d(G u_i)/dq, d(G a)/dq, dc/dq, dc/du */
    double *dGT[3];                         /* d(G^T lambda)/dq for the lambdas of R_a, R_U, R_Q */
    double *lam[3];
    double *M, *dfq, *dfu, *Kt, *v;         /* M, df/dq, df/du, a body's K_T (n x n); rows (2 n) */
} gjw;

static rc_status workspace(rci_gf_sys *s, gjw *g)
{
    const int n = s->n, nb = s->nb, m = nb + 2 * s->nc;
    const long long mn = (long long)m * n, nn = (long long)n * n;
    if (!s->jw) {
        const long long total = 9 * mn + 4LL * nb + 3 * nn + 3LL * m + 4 * nn + 2LL * n;
        RC_CHECK(rcb_arena_array(&s->w->work, (void **)&s->jw, total > 0 ? total : 1, sizeof(double), "gen-alpha Jacobian"));
        RC_CHECK(rcb_arena_array(&s->w->work, (void **)&s->jrows, s->N > 0 ? s->N : 1, 1, "gen-alpha Jacobian rows"));
    }
    double *p = s->jw;
    for (int k = 0; k < 4; k++) { g->Gs[k] = p; p += mn; g->gt[k] = p; p += nb; }
    g->dGu = p; p += mn; g->dGun = p; p += mn; g->dGa = p; p += mn; g->dc = p; p += mn; g->dcdu = p; p += mn;
    for (int k = 0; k < 3; k++) { g->dGT[k] = p; p += nn; g->lam[k] = p; p += m; }
    g->M = p; p += nn; g->dfq = p; p += nn; g->dfu = p; p += nn; g->Kt = p; p += nn; g->v = p;
    return RC_OK;
}

/* the multipliers G^T multiplies in R_a, R_U, R_Q (127): (lambda_g, lambda_N,
 * lambda_F), (Lambda_g, Lambda_N, Lambda_F), (kappa_g, kappa_N, h/2 Lambda_F) */
static void lambdas(const rci_gf_sys *s, gjw *g)
{
    const int nb = s->nb;
    const double *x = s->x;
    for (int k = 0; k < nb; k++) { g->lam[0][k] = x[ILLG + k]; g->lam[1][k] = x[ILG + k]; g->lam[2][k] = x[IKG + k]; }
    for (int c = 0; c < s->nc; c++) {
        const int r = nb + 2 * c;
        g->lam[0][r] = x[ILLN + c]; g->lam[0][r + 1] = x[ILLF + c];
        g->lam[1][r] = x[ILN + c];  g->lam[1][r + 1] = x[ILF + c];
        g->lam[2][r] = x[IKN + c];  g->lam[2][r + 1] = 0.5 * s->h * x[ILF + c];
    }
}

/* the derivatives of one row k for column j from the rows at the four points */
static void geometry_row(const rci_gf_sys *s, gjw *g, int k, int j, double del, double sig)
{
    const int n = s->n, nb = s->nb;
    const double *u = s->u, *un = s->un, *a = s->x + IA;
    const double *Gp = g->Gs[0] + (size_t)k * n, *Gpm = g->Gs[1] + (size_t)k * n;
    const double *Gm = g->Gs[2] + (size_t)k * n, *Gmm = g->Gs[3] + (size_t)k * n;
    double Tu = 0.0, Tun = 0.0, Ta = 0.0, dPu = 0.0;
    for (int i = 0; i < n; i++) {
        const double Ap = (Gp[i] - Gpm[i]) / (2.0 * del), Am = (Gm[i] - Gmm[i]) / (2.0 * del), T = 0.5 * (Ap + Am);
        Tu += T * u[i]; Tun += T * un[i]; Ta += T * a[i];
        dPu += (Ap - Am) * u[i];
        for (int l = 0; l < 3; l++) g->dGT[l][(size_t)i * n + j] += T * g->lam[l][k];
    }
    double gtp = 0.0, gtm = 0.0;   /* d(dg/dt)/dq_j at q +- sigma u: rheonomic joints */
    if (k < nb) { gtp = (g->gt[0][k] - g->gt[1][k]) / (2.0 * del); gtm = (g->gt[2][k] - g->gt[3][k]) / (2.0 * del); }
    const size_t o = (size_t)k * n + j;
    g->dGu[o] = Tu + 0.5 * (gtp + gtm);
    g->dGun[o] = Tun;
    g->dGa[o] = Ta;
    g->dc[o] = (dPu + gtp - gtm) / (2.0 * sig);
    if (j == 0)   /* (G(q + sigma u, t + sigma) - G(q - sigma u, t - sigma)) / (2 sigma), the first part of dc/du */
        for (int i = 0; i < n; i++)
            g->dcdu[(size_t)k * n + i] = (0.5 * (Gp[i] + Gpm[i]) - 0.5 * (Gm[i] + Gmm[i])) / (2.0 * sig);
}

/* the geometry's derivatives (the header's differences) */
static rc_status geometry(rci_gf_sys *s, gjw *g)
{
    const int n = s->n, m = s->nb + 2 * s->nc;
    double umax = 0.0;
    for (int i = 0; i < n; i++) umax = fmax(umax, fabs(s->u[i]));
    const double del = geo_delta, sig = geo_sigma / fmax(1.0, umax);
    for (int l = 0; l < 3; l++) memset(g->dGT[l], 0, (size_t)n * n * sizeof(double));
    lambdas(s, g);
    double *X = s->X;
    for (int j = 0; j < n; j++) {
        for (int p = 0; p < 4; p++) {
            const double s1 = p < 2 ? sig : -sig, s2 = p % 2 ? -del : del;
            for (int i = 0; i < n; i++) X[i] = s->q[i] + s1 * s->u[i];
            X[j] += s2;
            RC_CHECK(rci_gf_rows_at(s, X, s->t1 + s1, g->Gs[p], g->gt[p]));
        }
        for (int k = 0; k < m; k++) geometry_row(s, g, k, j, del, sig);
    }
    for (size_t o = 0; o < (size_t)m * n; o++) g->dcdu[o] += g->dGu[o];   /* + (dG/dq) u + d(dg/dt)/dq */
    return RC_OK;
}

/* M, df/dq, df/du: exact for rigid, linear and nonlinear bodies (their
 * tangent), forward differences for the bodies with a force function (all of
 * them with springs) */
static rc_status forces(rci_gf_sys *s, gjw *g)
{
    const rc_world *w = s->w;
    const int n = s->n;
    memset(g->M, 0, (size_t)n * n * sizeof(double));
    memset(g->dfq, 0, (size_t)n * n * sizeof(double));
    memset(g->dfu, 0, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; i++) g->M[(size_t)i * n + i] = w->mass_diag[i];
    for (int i = 0; i < w->nlinears; i++) {   /* M, C of the linear and nonlinear bodies */
        const rc_linear *L = &w->linears[i];
        const int o = w->bodies[L->body].iv;
        for (int r = 0; r < L->n; r++)
            for (int c = 0; c < L->n; c++) {
                const size_t e = (size_t)(o + r) * n + o + c;
                g->M[e] = rcm_linear_entry(L, L->M, r, c);
                if (L->C) g->dfu[e] = -rcm_linear_entry(L, L->C, r, c);
            }
    }
    for (int b = 0; b < w->nbodies; b++) {   /* -K_T of the kinds with an internal force (K; a beam's tangent) */
        const rc_body *bd = &w->bodies[b];
        const rcm_body_ops *ops = rcm_body_ops_of(bd);
        if (!ops->internal) continue;
        RC_CHECK(ops->internal(w, bd, s->q + bd->iq, NULL, g->Kt));
        for (int r = 0; r < bd->nv; r++)
            for (int c = 0; c < bd->nv; c++) g->dfq[(size_t)(bd->iv + r) * n + bd->iv + c] = -g->Kt[(size_t)r * bd->nv + c];
    }
    if (!s->have_f) return RC_OK;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body_ext *x = rcm_body_ext_of(w, b);
        if (w->nsprings || (x && x->force_fn)) RC_CHECK(rci_gf_force_block(s, b, g->dfq, g->dfu));
    }
    return RC_OK;
}

/* J[col][r] += sc d/dx of a quantity with the partial derivatives dq, du, da
 * (rows of n, NULL: 0) at fixed multipliers: the chain through (71), (73) */
static void add_x(const rci_gf_sys *s, double *J, int r, double sc, const double *dq, const double *du, const double *da)
{
    const int n = s->n, N = s->N;
    const double ca = (1.0 - s->af) / (1.0 - s->am), cq = s->h * s->h * s->beta * ca, cu = s->h * s->gam * ca;
    for (int j = 0; j < n; j++) {
        const double q = dq ? dq[j] : 0.0, u = du ? du[j] : 0.0, a = da ? da[j] : 0.0;
        J[(size_t)(IA + j) * N + r] += sc * (cq * q + cu * u + a);
        J[(size_t)(IU + j) * N + r] += sc * u;
        J[(size_t)(IQ + j) * N + r] += sc * q;
    }
}

#define JE(col, row) J[(size_t)(col) * s->N + (row)]

/* R_s (127) and the joints' rows */
static void smooth_part(const rci_gf_sys *s, const gjw *g, double *J)
{
    const int n = s->n, nb = s->nb, nc = s->nc;
    const double h = s->h;
    double *v = g->v;
    for (int i = 0; i < n; i++) {
        const double *Mi = g->M + (size_t)i * n, *fq = g->dfq + (size_t)i * n, *fu = g->dfu + (size_t)i * n;
        for (int j = 0; j < n; j++) { v[j] = -fq[j] - g->dGT[0][(size_t)i * n + j]; v[n + j] = -fu[j]; }
        add_x(s, J, IA + i, h, v, v + n, Mi);   /* h (M a - f - G^T lambda) */
        add_x(s, J, IU + i, -1.0, g->dGT[1] + (size_t)i * n, NULL, NULL);
        add_x(s, J, IQ + i, -1.0 / h, g->dGT[2] + (size_t)i * n, NULL, NULL);
        for (int j = 0; j < n; j++) { JE(IU + j, IU + i) += Mi[j]; JE(IQ + j, IQ + i) += Mi[j] / h; }
        for (int k = 0; k < nb; k++) {
            const double G = s->G[(size_t)k * n + i];
            JE(ILLG + k, IA + i) -= h * G; JE(ILG + k, IU + i) -= G; JE(IKG + k, IQ + i) -= G / h;
        }
        for (int c = 0; c < nc; c++) {
            const double Gn = s->G[(size_t)(nb + 2 * c) * n + i], Gt = s->G[(size_t)(nb + 2 * c + 1) * n + i];
            JE(ILLN + c, IA + i) -= h * Gn; JE(ILLF + c, IA + i) -= h * Gt;
            JE(ILN + c, IU + i) -= Gn; JE(ILF + c, IU + i) -= Gt;
            JE(IKN + c, IQ + i) -= Gn / h; JE(ILF + c, IQ + i) -= 0.5 * Gt;
        }
    }
    for (int k = 0; k < nb; k++) {
        const double *Gk = s->G + (size_t)k * n;
        add_x(s, J, IKG + k, 1.0 / h, Gk, NULL, NULL);                           /* g / h */
        add_x(s, J, ILG + k, 1.0, g->dGu + (size_t)k * n, Gk, NULL);             /* G u + dg/dt */
        for (int j = 0; j < n; j++) v[j] = g->dGa[(size_t)k * n + j] + g->dc[(size_t)k * n + j];
        add_x(s, J, ILLG + k, h, v, g->dcdu + (size_t)k * n, Gk);                /* h (G a + c) */
    }
}

/* the multipliers' derived quantities: d kappa-hat (102), d P_N (95), d P_F
 * (113) into row r, times sc */
static void add_kh(const rci_gf_sys *s, double *J, int c, int r, double sc)
{
    const double ca = (1.0 - s->af) / (1.0 - s->am);
    JE(IKN + c, r) += sc;
    JE(ILLN + c, r) += sc * s->h * s->h * s->beta * ca;
}
static void add_PN(const rci_gf_sys *s, double *J, int c, int r, double sc)
{
    JE(ILN + c, r) += sc;
    JE(ILLN + c, r) += sc * s->h * s->gam * (1.0 - s->af) / (1.0 - s->am);
}
static void add_PF(const rci_gf_sys *s, double *J, int c, int r, double sc)
{
    JE(ILF + c, r) += sc;
    JE(ILLF + c, r) += sc * s->h * s->gam * (1.0 - s->af) / (1.0 - s->am);
}

/* contact c's rows (129)-(142) in the branch its sets chose (gf_residual.c);
 * a law through xi / project: (129) here, the other four marked for
 * differences */
static void contact_rows(rci_gf_sys *s, const gjw *g, double *J, int c)
{
    const int n = s->n, r0 = s->nb + 2 * c;
    const unsigned char st = s->set[c];
    const double h = s->h, mu = s->mu[c];
    const double *Gn = s->G + (size_t)r0 * n, *Gt = Gn + n;
    double *v = g->v;
    if (st & RCI_GF_A) add_x(s, J, IKN + c, 1.0 / h, Gn, NULL, NULL);          /* (129): g_N / h */
    else add_kh(s, J, c, IKN + c, 1.0 / h);                                     /*        kappa-hat / h */
    if (s->site[c].law) {
        s->jrows[ILN + c] = s->jrows[ILLN + c] = s->jrows[ILF + c] = s->jrows[ILLF + c] = 1;
        return;
    }
    /* xi_N = G_N u + e_N G_N u_i (88): d/dq (G_N u) + e_N d/dq (G_N u_i) */
    if (st & RCI_GF_B) {                                                        /* (132) */
        for (int j = 0; j < n; j++) v[j] = g->dGu[(size_t)r0 * n + j] + s->eN[c] * g->dGun[(size_t)r0 * n + j];
        add_x(s, J, ILN + c, 1.0, v, Gn, NULL);
    } else add_PN(s, J, c, ILN + c, 1.0);
    if (st & RCI_GF_C) {                                                        /* (135): h g_N-ddot */
        for (int j = 0; j < n; j++) v[j] = g->dGa[(size_t)r0 * n + j] + g->dc[(size_t)r0 * n + j];
        add_x(s, J, ILLN + c, h, v, g->dcdu + (size_t)r0 * n, Gn);
    } else JE(ILLN + c, ILLN + c) += h;
    const size_t t0 = (size_t)(r0 + 1) * n;
    if (!(st & RCI_GF_A)) add_PF(s, J, c, ILF + c, 1.0);                        /* (138) */
    else if (st & RCI_GF_DST) {
        for (int j = 0; j < n; j++) v[j] = g->dGu[t0 + j] + s->eF[c] * g->dGun[t0 + j];
        add_x(s, J, ILF + c, 1.0, v, Gt, NULL);
    } else {
        add_PF(s, J, c, ILF + c, 1.0);
        add_PN(s, J, c, ILF + c, mu * rci_gf_sgn(s->xiF[c]));
    }
    if (!(st & RCI_GF_A)) JE(ILLF + c, ILLF + c) += h;                          /* (142) */
    else if (st & RCI_GF_EST) {
        for (int j = 0; j < n; j++) v[j] = g->dGa[t0 + j] + g->dc[t0 + j];
        add_x(s, J, ILLF + c, h, v, g->dcdu + t0, Gt);
    } else {
        JE(ILLF + c, ILLF + c) += h;
        JE(ILLN + c, ILLF + c) += h * mu * ((st & RCI_GF_DST) ? rci_gf_sgn(s->gdF[c]) : rci_gf_sgn(s->gF[c]));
    }
}

/* laws: the rows of the laws through xi / project too (not for the fixed
 * point's smooth part) */
static rc_status analytic(rci_gf_sys *s, double *J, int laws)
{
    gjw g;
    RC_CHECK(workspace(s, &g));
    memset(J, 0, (size_t)s->N * s->N * sizeof(double));
    memset(s->jrows, 0, (size_t)s->N);
    RC_CHECK(geometry(s, &g));
    RC_CHECK(forces(s, &g));
    smooth_part(s, &g, J);
    int fd = 0;
    for (int c = 0; c < s->nc; c++) {
        contact_rows(s, &g, J, c);
        fd |= s->site[c].law != NULL;
    }
    if (fd && laws) RC_CHECK(rci_gf_jacobian_fd(s, 0, s->N, 0, J, s->jrows));
    return RC_OK;
}

int rci_gf_jacobian_analytic(const rci_gf_sys *s)
{
    const rc_ga_jacobian mode = s->w->sim.gen_alpha.jacobian;
    if (mode == RC_GA_JAC_DIFFERENCES) return 0;
    for (int b = 0; b < s->w->nbodies; b++)   /* a body kind this file does not know (its M, its forces): differences */
        if (s->w->bodies[b].kind != RC_BODY_RIGID2D && s->w->bodies[b].kind != RC_BODY_LINEAR && s->w->bodies[b].kind != RC_BODY_NONLINEAR)
            return 0;
    if (mode == RC_GA_JAC_ANALYTIC) return 1;
    for (int c = 0; c < s->nc; c++) {
        if (s->site[c].law) return 0;
        const int gp = s->cs[c].gap;
        if (gp >= 0 && s->w->gaps[gp].fn && !s->w->gaps[gp].node) return 0;   /* a gap function (not a linear gap, not a node's) */
    }
    return 1;
}

rc_status rci_gf_jacobian(rci_gf_sys *s, int c0, int nr, int smooth_only, double *J)
{
    if (!rci_gf_jacobian_analytic(s)) return rci_gf_jacobian_fd(s, c0, nr, smooth_only, J, NULL);
    RC_CHECK(analytic(s, J, !smooth_only));
    if (nr < s->N)   /* the leading block [c0, c0 + nr) (c0 = 0): the fixed point's smooth part */
        for (int j = 0; j < nr; j++)
            for (int i = 0; i < nr; i++) J[(size_t)j * nr + i] = J[(size_t)(c0 + j) * s->N + c0 + i];
    return RC_OK;
}
