/* ga3_jacobian.c -- the analytic Newton Jacobian of the frictional
 * generalized-alpha step on spatial rigid bodies (ga3_friction.h;
 * Capobianco, Harsch, Eugster & Leine 2021, section 9 with the kinematics
 * q' = B(q) u of section 8), as gf_jacobian.c does for planar bodies
 * (docs/theory/gen-alpha-friction.md, "The Newton Jacobian"), the index sets
 * frozen:
 *   exact: u of a and U (71), (73); the multipliers' lambda-bar, P_N, P_F,
 *   kappa-hat; M (diagonal), the gyroscopic -Omega x J Omega, gravity and
 *   constant forces; G in G u, G a and the multipliers' columns -G^T; each
 *   contact's branch of (129)-(142), the Coulomb disc's slip rows z + rad
 *   y/|y| with d(y/|y|) = (I - y y^T/|y|^2)/|y| dy;
 *   by differences: q depends on a and on the correction Q only through
 *   h^2 beta a-bar + Q (the update (125)), so d/da through q is
 *   h^2 beta (1 - af)/(1 - am) d/dQ; the rows G, the gaps and the
 *   accelerations' velocity terms c are taken at q(Q +- delta e_j) moved by
 *   +- sigma u (delta = 1e-4, sigma = 1e-4/max(1, |u|)): dG/dQ_j, dg_N/dQ_j,
 *   dc/dQ_j (the mixed difference); dc/du = (G(q + sigma u) - G(q - sigma u))
 *   /(2 sigma) + D_m G u, D_m the rows' derivative along velocity m (two more
 *   evaluations of the rows per velocity): 6 nv against the 9 nv of
 *   forward differences.
 * Force functions and springs make it fall back on differences
 * (rci_ga3f_jacobian_analytic). Only on request (RC_GA_JAC_ANALYTIC): AUTO
 * keeps the differences on spatial bodies, with which the spatial
 * experiments were validated; tests/c/test_ga3_jacobian.c checks it against
 * central differences, the tippe top runs to the same outcome in 5.2 s
 * instead of 12.0 s, but a box resting on its four corners (every step
 * handed to the fixed point under both Jacobians) drifted into a
 * non-finite fixed-point iterate with it after 0.53 s. */
#include "integrate/ga3_friction.h"
#include "base/rot3.h"

#include <math.h>
#include <string.h>

static const double geo_delta = 1e-4, geo_sigma = 1e-4;

void (*rci_ga3f_jacobian_probe)(rci_ga3f *s) = NULL;

typedef struct g3w {
    double *Gs[4], *gs[4], *X, *Y, *Qp;
    double *dGu, *dGun, *dGa, *dc, *dcdu, *dgN;   /* m x nv (dgN: nc x nv), row-major [row][column j] */
    double *dGT[3], *lam[3], *dfu, *v;
} g3w;

int rci_ga3f_jacobian_analytic(const rci_ga3f *s)
{
    const rc_world *w = s->w;
    if (w->sim.gen_alpha.jacobian != RC_GA_JAC_ANALYTIC) return 0;   /* AUTO: differences on spatial bodies (see the header) */
    if (w->nsprings) return 0;
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body_ext *x = rcm_body_ext_of(w, b);
        if (x && x->force_fn) return 0;
    }
    return 1;
}

static rc_status workspace(rci_ga3f *s, g3w *g)
{
    const long long nv = s->nv, nq = s->nq, m = s->nrows > 0 ? s->nrows : 1, nc = s->nc > 0 ? s->nc : 1;
    const long long total = 4 * (m * nv + nc) + 2 * nq + nv + 5 * m * nv + nc * nv + 3 * (nv * nv + m) + nv * nv + 10 * nv;
    if (!s->jw) RC_CHECK(rcb_arena_array(&s->w->work, (void **)&s->jw, total, sizeof(double), "gen-alpha 3D Jacobian"));
    double *p = s->jw;
    for (int k = 0; k < 4; k++) { g->Gs[k] = p; p += m * nv; g->gs[k] = p; p += nc; }
    g->X = p; p += nq; g->Y = p; p += nq; g->Qp = p; p += nv;
    g->dGu = p; p += m * nv; g->dGun = p; p += m * nv; g->dGa = p; p += m * nv; g->dc = p; p += m * nv; g->dcdu = p; p += m * nv;
    g->dgN = p; p += nc * nv;
    for (int k = 0; k < 3; k++) { g->dGT[k] = p; p += nv * nv; g->lam[k] = p; p += m; }
    g->dfu = p; p += nv * nv; g->v = p;
    return RC_OK;
}

/* the multipliers G^T multiplies in R_a, R_U, R_Q (as smooth_rows) */
static void lambdas(const rci_ga3f *s, g3w *g)
{
    for (int k = 0; k < s->nc; k++) {
        const double *xk = s->x + s->off[k];
        const int nf = s->nf[k], r0 = s->gr[k];
        g->lam[0][r0] = xk[2]; g->lam[1][r0] = xk[1]; g->lam[2][r0] = xk[0];
        for (int j = 0; j < nf; j++) {
            g->lam[0][r0 + 1 + j] = xk[3 + nf + j];
            g->lam[1][r0 + 1 + j] = xk[3 + j];
            g->lam[2][r0 + 1 + j] = 0.5 * s->h * xk[3 + j];
        }
    }
}

/* the four evaluations for column j of Q and what follows from them */
static rc_status q_column(rci_ga3f *s, g3w *g, int j, double del, double sig)
{
    const int nv = s->nv, m = s->nrows;
    for (int p = 0; p < 4; p++) {
        memcpy(g->Qp, s->x + 2 * nv, (size_t)nv * sizeof(double));
        g->Qp[j] += p % 2 ? -del : del;
        rci_ga3f_positions(s, s->abn, s->ab, g->Qp, g->X);
        rci_ga3f_move(s->w, g->X, s->u, p < 2 ? sig : -sig, g->Y);
        RC_CHECK(rci_ga3f_rows(s, g->Y, g->Gs[p], g->gs[p], 0));
    }
    const double *a = s->x;
    for (int k = 0; k < m; k++) {
        const size_t o = (size_t)k * nv;
        double Tu = 0.0, Tun = 0.0, Ta = 0.0, dPu = 0.0;
        for (int i = 0; i < nv; i++) {
            const double Ap = (g->Gs[0][o + i] - g->Gs[1][o + i]) / (2.0 * del), Am = (g->Gs[2][o + i] - g->Gs[3][o + i]) / (2.0 * del);
            const double T = 0.5 * (Ap + Am);
            Tu += T * s->u[i]; Tun += T * s->un[i]; Ta += T * a[i]; dPu += (Ap - Am) * s->u[i];
            for (int l = 0; l < 3; l++) g->dGT[l][(size_t)i * nv + j] += T * g->lam[l][k];
            if (j == 0) g->dcdu[o + i] = (0.5 * (g->Gs[0][o + i] + g->Gs[1][o + i]) - 0.5 * (g->Gs[2][o + i] + g->Gs[3][o + i])) / (2.0 * sig);
        }
        g->dGu[o + j] = Tu; g->dGun[o + j] = Tun; g->dGa[o + j] = Ta;
        g->dc[o + j] = dPu / (2.0 * sig);
    }
    for (int k = 0; k < s->nc; k++)
        g->dgN[(size_t)k * nv + j] = 0.5 * ((g->gs[0][k] - g->gs[1][k]) + (g->gs[2][k] - g->gs[3][k])) / (2.0 * del);
    return RC_OK;
}

/* dc/du += D_m G u: the rows along velocity direction m */
static rc_status u_column(rci_ga3f *s, g3w *g, int mcol, double del)
{
    const int nv = s->nv, m = s->nrows;
    memset(g->Qp, 0, (size_t)nv * sizeof(double));
    g->Qp[mcol] = 1.0;
    for (int p = 0; p < 2; p++) {
        rci_ga3f_move(s->w, s->q, g->Qp, p ? -del : del, g->Y);
        RC_CHECK(rci_ga3f_rows(s, g->Y, g->Gs[p], NULL, 0));
    }
    for (int k = 0; k < m; k++) {
        const size_t o = (size_t)k * nv;
        double d = 0.0;
        for (int i = 0; i < nv; i++) d += (g->Gs[0][o + i] - g->Gs[1][o + i]) / (2.0 * del) * s->u[i];
        g->dcdu[o + mcol] += d;
    }
    return RC_OK;
}

static rc_status geometry(rci_ga3f *s, g3w *g)
{
    const int nv = s->nv;
    double umax = 0.0;
    for (int i = 0; i < nv; i++) umax = fmax(umax, fabs(s->u[i]));
    const double sig = geo_sigma / fmax(1.0, umax);
    for (int l = 0; l < 3; l++) memset(g->dGT[l], 0, (size_t)nv * nv * sizeof(double));
    lambdas(s, g);
    for (int j = 0; j < nv; j++) RC_CHECK(q_column(s, g, j, geo_delta, sig));
    for (int j = 0; j < nv; j++) RC_CHECK(u_column(s, g, j, geo_delta));
    return RC_OK;
}

/* df/du of the gyroscopic -Omega x J Omega (n x n, row-major) */
static void gyro(const rci_ga3f *s, g3w *g)
{
    const int nv = s->nv;
    memset(g->dfu, 0, (size_t)nv * nv * sizeof(double));
    for (int b = 0; b < s->w->nbodies; b++) {
        const int o = s->w->bodies[b].iv;
        const double *J = s->w->mass_diag + o + 3, *W = s->u + o + 3;
        const double JW[3] = { J[0] * W[0], J[1] * W[1], J[2] * W[2] };
        for (int c = 0; c < 3; c++) {
            double e[3] = { 0.0, 0.0, 0.0 }, Je[3] = { 0.0, 0.0, 0.0 }, a1[3], a2[3];
            e[c] = 1.0; Je[c] = J[c];
            rcb_v3_cross(a1, e, JW);
            rcb_v3_cross(a2, W, Je);
            for (int r = 0; r < 3; r++) g->dfu[(size_t)(o + 3 + r) * nv + o + 3 + c] = -(a1[r] + a2[r]);
        }
    }
}

/* J[col][r] += sc d/dx of a quantity with partials dQ (through q), du, da */
static void add3(const rci_ga3f *s, double *J, int r, double sc, const double *dQ, const double *du, const double *da)
{
    const int nv = s->nv, N = s->N;
    const double ca = (1.0 - s->af) / (1.0 - s->am), cq = s->h * s->h * s->be * ca, cu = s->h * s->ga * ca;
    for (int j = 0; j < nv; j++) {
        const double q = dQ ? dQ[j] : 0.0, u = du ? du[j] : 0.0, a = da ? da[j] : 0.0;
        J[(size_t)j * N + r] += sc * (cq * q + cu * u + a);
        J[(size_t)(nv + j) * N + r] += sc * u;
        J[(size_t)(2 * nv + j) * N + r] += sc * q;
    }
}

#define JE(col, row) J[(size_t)(col) * s->N + (row)]

static void smooth_part(const rci_ga3f *s, const g3w *g, double *J)
{
    const int nv = s->nv;
    const double h = s->h, *md = s->w->mass_diag;
    double *v = g->v;
    for (int i = 0; i < nv; i++) {
        for (int j = 0; j < nv; j++) { v[j] = -g->dGT[0][(size_t)i * nv + j]; v[nv + j] = -g->dfu[(size_t)i * nv + j]; v[2 * nv + j] = j == i ? md[i] : 0.0; }
        add3(s, J, i, h, v, v + nv, v + 2 * nv);
        add3(s, J, nv + i, -1.0, g->dGT[1] + (size_t)i * nv, NULL, NULL);
        add3(s, J, 2 * nv + i, -1.0 / h, g->dGT[2] + (size_t)i * nv, NULL, NULL);
        JE(nv + i, nv + i) += md[i];
        JE(2 * nv + i, 2 * nv + i) += md[i] / h;
    }
    for (int k = 0; k < s->nc; k++) {
        const int o = s->off[k], nf = s->nf[k];
        for (int r = 0; r <= nf; r++) {
            const double *Gr = s->G + (size_t)(s->gr[k] + r) * nv;
            const int cl = r ? o + 3 + nf + r - 1 : o + 2, cL = r ? o + 3 + r - 1 : o + 1, ck = r ? o + 3 + r - 1 : o;
            const double fk = r ? 0.5 * h : 1.0;
            for (int i = 0; i < nv; i++) {
                JE(cl, i) -= h * Gr[i];
                JE(cL, nv + i) -= Gr[i];
                JE(ck, 2 * nv + i) -= fk * Gr[i] / h;
            }
        }
    }
}

/* the derivatives of friction component l's y (kind 0: xi_F = G_F (u + e_F u_i),
 * 1: gamma_F-dot = G_F a + c_F, 2: gamma_F = G_F u) into Yq, Yu, Ya (nv each) */
static void ydiff(const rci_ga3f *s, const g3w *g, int kind, int k, int rf, double *Yq, double *Yu, double *Ya)
{
    const int nv = s->nv;
    const size_t o = (size_t)rf * nv;
    for (int j = 0; j < nv; j++) {
        Yq[j] = kind == 1 ? g->dGa[o + j] + g->dc[o + j] : g->dGu[o + j] + (kind == 0 ? s->eF[k] * g->dGun[o + j] : 0.0);
        Yu[j] = kind == 1 ? g->dcdu[o + j] : s->G[o + j];
        Ya[j] = kind == 1 ? s->G[o + j] : 0.0;
    }
}

/* row r += sc d(rad y_j/|y|), rad = mu P_N (cL >= 0: the columns of Lambda_N,
 * lambda_N through (95)) or mu lambda_N (cL < 0); y's derivatives in Y */
static void slip(const rci_ga3f *s, double *J, int r, double sc, double mu, double rad, const double *y, int nf, int j,
                 const double *Yq, const double *Yu, const double *Ya, int cL, int cl)
{
    double ny = 0.0;
    for (int l = 0; l < nf; l++) ny += y[l] * y[l];
    ny = sqrt(ny);
    if (!(ny > 0.0)) return;   /* the residual's 0 direction at y = 0 */
    const double yj = y[j] / ny, ca = (1.0 - s->af) / (1.0 - s->am);
    if (cL >= 0) { JE(cL, r) += sc * mu * yj; JE(cl, r) += sc * mu * yj * s->h * s->ga * ca; }
    else JE(cl, r) += sc * mu * yj;
    for (int l = 0; l < nf; l++) {
        const double P = ((l == j ? 1.0 : 0.0) - yj * y[l] / ny) * rad / ny;
        if (P != 0.0) add3(s, J, r, sc * P, Yq + (size_t)l * s->nv, Yu + (size_t)l * s->nv, Ya + (size_t)l * s->nv);
    }
}

/* contact k's rows (129)-(142) in its sets' branch (ga3_residual.c) */
static void contact_rows(const rci_ga3f *s, const g3w *g, double *J, int k)
{
    const int nv = s->nv, o = s->off[k], nf = s->nf[k], r0 = s->gr[k], st = s->set[k];
    const double h = s->h, mu = s->mu[k], ca = (1.0 - s->af) / (1.0 - s->am), cP = h * s->ga * ca;
    const double *Gn = s->G + (size_t)r0 * nv, *xk = s->x + o;
    double *v = g->v, *Yq = v + nv, *Yu = Yq + 3 * nv, *Ya = Yu + 3 * nv;
    if (st & RCI_GF_A) add3(s, J, o, 1.0 / h, g->dgN + (size_t)k * nv, NULL, NULL);              /* (129) */
    else { JE(o, o) += 1.0 / h; JE(o + 2, o) += h * s->be * ca; }
    if (st & RCI_GF_B) {                                                                        /* (132) */
        for (int j = 0; j < nv; j++) v[j] = g->dGu[(size_t)r0 * nv + j] + s->eN[k] * g->dGun[(size_t)r0 * nv + j];
        add3(s, J, o + 1, 1.0, v, Gn, NULL);
    } else { JE(o + 1, o + 1) += 1.0; JE(o + 2, o + 1) += cP; }
    if (st & RCI_GF_C) {                                                                        /* (135) */
        for (int j = 0; j < nv; j++) v[j] = g->dGa[(size_t)r0 * nv + j] + g->dc[(size_t)r0 * nv + j];
        add3(s, J, o + 2, h, v, g->dcdu + (size_t)r0 * nv, Gn);
    } else JE(o + 2, o + 2) += h;
    const int kind138 = 0, kind142 = (st & RCI_GF_DST) ? 1 : 2;
    for (int l = 0; l < nf; l++) ydiff(s, g, kind138, k, r0 + 1 + l, Yq + (size_t)l * nv, Yu + (size_t)l * nv, Ya + (size_t)l * nv);
    for (int j = 0; j < nf; j++) {                                                              /* (138) */
        const int r = o + 3 + j;
        if ((st & RCI_GF_A) && (st & RCI_GF_DST)) { add3(s, J, r, 1.0, Yq + (size_t)j * nv, Yu + (size_t)j * nv, NULL); continue; }
        JE(o + 3 + j, r) += 1.0; JE(o + 3 + nf + j, r) += cP;
        if (st & RCI_GF_A) slip(s, J, r, 1.0, mu, mu * s->PN[k], s->xiF + 3 * k, nf, j, Yq, Yu, Ya, o + 1, o + 2);
    }
    for (int l = 0; l < nf; l++) ydiff(s, g, kind142, k, r0 + 1 + l, Yq + (size_t)l * nv, Yu + (size_t)l * nv, Ya + (size_t)l * nv);
    for (int j = 0; j < nf; j++) {                                                              /* (142) */
        const int r = o + 3 + nf + j;
        if ((st & RCI_GF_A) && (st & RCI_GF_EST)) { add3(s, J, r, h, Yq + (size_t)j * nv, Yu + (size_t)j * nv, Ya + (size_t)j * nv); continue; }
        JE(o + 3 + nf + j, r) += h;
        if (st & RCI_GF_A)
            slip(s, J, r, h, mu, mu * xk[2], (st & RCI_GF_DST) ? s->gdF + 3 * k : s->gF + 3 * k, nf, j, Yq, Yu, Ya, -1, o + 2);
    }
}

rc_status rci_ga3f_jacobian_exact(rci_ga3f *s)
{
    g3w g;
    RC_CHECK(workspace(s, &g));
    memset(s->J, 0, (size_t)s->N * s->N * sizeof(double));
    RC_CHECK(geometry(s, &g));
    gyro(s, &g);
    smooth_part(s, &g, s->J);
    for (int k = 0; k < s->nc; k++) contact_rows(s, &g, s->J, k);
    return RC_OK;
}
