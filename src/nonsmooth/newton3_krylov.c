/* newton3_krylov.c -- the matrix-free path of the 3D Newton solver
 * (solver.linear = "iterative", or "auto" above RC_NEWTON_DENSE_ROWS rows;
 * newton3.c has the iteration), the 3D twin of newton_krylov.c. J d = -Phi,
 * J = A + B W + delta I, by restarted GMRES (Saad & Schultz 1986;
 * GMRES(RCL_GMRES_RESTART), modified Gram--Schmidt, Givens rotations) with
 * right preconditioning by J's block diagonal: a contact's block
 * A_k + B_k W_kk + delta I (W_kk the stage's local Delassus block, c->W or
 * the drilling contact's W4) inverted, a joint's block diag(rho) W_jj
 * inverted through the stage's LU of W_jj (delta left out). A product W x is
 * V = kappa Mhat^-1 H^T x into a scratch velocity then every row's H V, the
 * cost of one NSGS sweep; W is never formed. Inexact Newton (Dembo,
 * Eisenstat & Steihaug 1982): the solve stops at |J d + Phi| <= eta |Phi|.
 * Everything lives in the step's arena.
 */
#include "nonsmooth/newton3_impl.h"

#include <math.h>
#include <string.h>

static rc_status take(rc_world *w, double **p, long long count)
{
    return rcb_arena_array(&w->work, (void **)p, count > 0 ? count : 1, sizeof(double), "Newton solver (3D, GMRES)");
}

rc_status rcn_newton3_krylov_alloc(n3_sys *s)
{
    rc_world *w = s->w;
    RC_CHECK(take(w, &s->P, (long long)RCN3_BLOCK * s->m));
    return rcl_gmres_work_alloc(&w->work, s->n, &s->gm, "Newton solver (3D, GMRES)");
}

int rcn_newton3_small_solve(const double *A, int n, const double *r, double *x)
{
    double M[6][7], amax = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) { M[i][j] = A[n * i + j]; amax = fmax(amax, fabs(M[i][j])); }
        M[i][n] = r[i];
    }
    if (!(amax > 0.0)) return 0;
    for (int k = 0; k < n; k++) {   /* Gaussian elimination, partial pivoting */
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(M[i][k]) > fabs(M[piv][k])) piv = i;
        if (!(fabs(M[piv][k]) > 1e-14 * amax)) return 0;
        if (piv != k)
            for (int j = 0; j <= n; j++) { const double t = M[k][j]; M[k][j] = M[piv][j]; M[piv][j] = t; }
        for (int i = k + 1; i < n; i++) {
            const double f = M[i][k] / M[k][k];
            for (int j = k; j <= n; j++) M[i][j] -= f * M[k][j];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double t = M[i][n];
        for (int j = i + 1; j < n; j++) t -= M[i][j] * x[j];
        x[i] = t / M[i][i];
    }
    return 1;
}

void rcn_newton3_W_apply(n3_sys *s, const double *x, double *y)
{
    memset(s->S, 0, (size_t)s->w->nv * sizeof(double));
    rcn_newton3_apply_all(s, s->S, x);
    rcn_newton3_rows_dot(s, s->S, y);
}

/* out = J v = A v + B W v + delta v */
static void J_apply(n3_sys *s, double delta, const double *v, double *out)
{
    rcn_newton3_W_apply(s, v, out);
    for (int k = 0; k < s->m; k++) {
        const int i0 = s->off[k], nr = n3_rows(s, k);
        const double *A = s->A + RCN3_BLOCK * k, *B = s->B + RCN3_BLOCK * k, *vk = v + i0;
        double y[4], o[4];
        for (int r = 0; r < nr; r++) y[r] = out[i0 + r];
        for (int r = 0; r < nr; r++) {
            double t = delta * vk[r];
            for (int q = 0; q < nr; q++) t += A[r * nr + q] * vk[q] + B[r * nr + q] * y[q];
            o[r] = t;
        }
        for (int r = 0; r < nr; r++) out[i0 + r] = o[r];
    }
    for (int i = s->off[s->m]; i < s->n; i++) out[i] = s->rho[i] * out[i] + delta * v[i];
}

/* the inverses of the contacts' diagonal blocks of J (a singular block: identity) */
static void precond_build(n3_sys *s, double delta)
{
    const rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {
        const int nr = n3_rows(s, k);
        const double *A = s->A + RCN3_BLOCK * k, *B = s->B + RCN3_BLOCK * k;
        const double *Wk = nr == 4 ? w->c3->d[s->ci[k]].W4 : w->c3->c[s->ci[k]].W;
        double b[RCN3_BLOCK], *P = s->P + RCN3_BLOCK * k;
        for (int r = 0; r < nr; r++)
            for (int q = 0; q < nr; q++) {
                double t = A[r * nr + q] + (r == q ? delta : 0.0);
                for (int l = 0; l < nr; l++) t += B[r * nr + l] * Wk[l * nr + q];
                b[r * nr + q] = t;
            }
        int ok = 1;
        for (int q = 0; q < nr && ok; q++) {   /* column q of the inverse */
            double e[4] = { 0.0, 0.0, 0.0, 0.0 }, col[4];
            e[q] = 1.0;
            ok = rcn_newton3_small_solve(b, nr, e, col);
            for (int r = 0; r < nr && ok; r++) { P[r * nr + q] = col[r]; ok = rcb_finite(col[r]); }
        }
        if (!ok)
            for (int r = 0; r < nr; r++)
                for (int q = 0; q < nr; q++) P[r * nr + q] = r == q ? 1.0 : 0.0;
    }
}

static void P_apply(const n3_sys *s, const double *v, double *out)
{
    const rc_world *w = s->w;
    for (int k = 0; k < s->m; k++) {
        const int i0 = s->off[k], nr = n3_rows(s, k);
        const double *P = s->P + RCN3_BLOCK * k;
        for (int r = 0; r < nr; r++) {
            double t = 0.0;
            for (int q = 0; q < nr; q++) t += P[r * nr + q] * v[i0 + q];
            out[i0 + r] = t;
        }
    }
    int r = s->off[s->m];
    for (int i = 0; i < rcn_joints3_count(w); i++) {   /* (diag(rho) W_jj)^-1 v = W_jj^-1 (v / rho) */
        const rcm_joint3 *j = &w->j3->j[i];
        for (int q = 0; q < j->rows; q++) out[r + q] = v[r + q] / s->rho[r + q];
        rcm_j3_lu_solve(j->LU, j->piv, j->rows, out + r);
        r += j->rows;
    }
}

typedef struct { n3_sys *s; double delta; } gm_ctx;
static void gm_A(void *c, const double *v, double *out) { J_apply(((gm_ctx *)c)->s, ((gm_ctx *)c)->delta, v, out); }
static void gm_P(void *c, const double *v, double *out) { P_apply(((gm_ctx *)c)->s, v, out); }

void rcn_newton3_krylov_solve(n3_sys *s, double delta, double eta, const char **why)
{
    *why = NULL;
    precond_build(s, delta);
    gm_ctx c = { s, delta };   /* the linear solve of linalg/gmres.c on J d = -Phi */
    *why = rcl_gmres_run(&s->gm, s->n, &c, gm_A, gm_P, s->phi, eta, s->d, &s->lin_its, &s->lin_rel);
}
