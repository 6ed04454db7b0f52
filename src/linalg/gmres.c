/* linalg/gmres.c -- restarted GMRES with right preconditioning, matrix-free
 * (Saad & Schultz 1986; Saad 2003, Alg. 9.5): the linear solve of the
 * semismooth Newton solvers (nonsmooth/newton_krylov.c, newton3_krylov.c),
 * which give the operator and the preconditioner as callbacks and the
 * workspace as arrays (no allocation here). Modified Gram--Schmidt, Givens
 * rotations on the Hessenberg matrix, a true residual at each restart. */
#include "linalg/linalg.h"

#include <math.h>
#include <string.h>

static double dot(const double *a, const double *b, int n)
{
    double t = 0.0;
    for (int i = 0; i < n; i++) t += a[i] * b[i];
    return t;
}

/* one Arnoldi step: column j of H (rotated) and V_{j+1}; returns |g_{j+1}|,
 * *lucky when the space is invariant (the solution is in it) */
static double arnoldi(rcl_gmres *k, int j, int *lucky)
{
    const int n = k->n, ld = RCL_GMRES_RESTART + 1;
    double *vj = k->V + (size_t)n * (size_t)j, *vn = vj + n, *h = k->H + (size_t)ld * (size_t)j;
    k->P(k->ctx, vj, k->z);
    k->A(k->ctx, k->z, vn);
    for (int i = 0; i <= j; i++) {   /* modified Gram--Schmidt */
        const double *vi = k->V + (size_t)n * (size_t)i;
        h[i] = dot(vn, vi, n);
        for (int l = 0; l < n; l++) vn[l] -= h[i] * vi[l];
    }
    h[j + 1] = sqrt(dot(vn, vn, n));
    *lucky = !(h[j + 1] > 0.0);
    if (h[j + 1] > 0.0)
        for (int l = 0; l < n; l++) vn[l] /= h[j + 1];
    for (int i = 0; i < j; i++) {    /* the earlier rotations */
        const double a = k->cs[i] * h[i] + k->sn[i] * h[i + 1];
        h[i + 1] = -k->sn[i] * h[i] + k->cs[i] * h[i + 1];
        h[i] = a;
    }
    const double den = hypot(h[j], h[j + 1]);
    k->cs[j] = den > 0.0 ? h[j] / den : 1.0;
    k->sn[j] = den > 0.0 ? h[j + 1] / den : 0.0;
    h[j] = den;
    h[j + 1] = 0.0;
    k->g[j + 1] = -k->sn[j] * k->g[j];
    k->g[j] = k->cs[j] * k->g[j];
    return fabs(k->g[j + 1]);
}

/* x += P^-1 (V y), y from the j x j triangle; 0 when it is singular */
static int update(rcl_gmres *k, int j)
{
    const int n = k->n, ld = RCL_GMRES_RESTART + 1;
    for (int i = j - 1; i >= 0; i--) {
        double a = k->g[i];
        for (int l = i + 1; l < j; l++) a -= k->H[(size_t)ld * (size_t)l + (size_t)i] * k->y[l];
        const double hii = k->H[(size_t)ld * (size_t)i + (size_t)i];
        if (!(hii != 0.0)) return 0;
        k->y[i] = a / hii;
    }
    memset(k->t, 0, (size_t)n * sizeof(double));
    for (int i = 0; i < j; i++) {
        const double *vi = k->V + (size_t)n * (size_t)i;
        for (int l = 0; l < n; l++) k->t[l] += k->y[i] * vi[l];
    }
    k->P(k->ctx, k->t, k->z);
    for (int l = 0; l < n; l++) k->x[l] += k->z[l];
    return 1;
}

const char *rcl_gmres_solve(rcl_gmres *k, const double *f, double eta)
{
    const int n = k->n;
    const char *why = NULL;
    double *r = k->V;   /* the residual -f - A x, then V_0 */
    for (int i = 0; i < n; i++) { k->x[i] = 0.0; r[i] = -f[i]; }
    const double bnorm = sqrt(dot(r, r, n)), target = eta * bnorm;
    double rnorm = bnorm;
    int its = 0;
    while (rnorm > target && its < RCL_GMRES_MAX_IT) {
        for (int i = 0; i < n; i++) r[i] /= rnorm;
        k->g[0] = rnorm;
        int j = 0;
        while (j < RCL_GMRES_RESTART && its < RCL_GMRES_MAX_IT) {
            int lucky;
            const double est = arnoldi(k, j, &lucky);
            its++;
            j++;
            if (est <= target || lucky) break;
        }
        if (!update(k, j)) { why = "GMRES breakdown"; break; }
        k->A(k->ctx, k->x, k->t);   /* the true residual, for the restart */
        for (int i = 0; i < n; i++) r[i] = -f[i] - k->t[i];
        const double prev = rnorm;
        rnorm = sqrt(dot(r, r, n));
        if (!rcb_finite(rnorm) || rnorm >= prev) break;   /* no progress from a restart */
    }
    k->its = its;
    k->rel = bnorm > 0.0 ? rnorm / bnorm : 0.0;
    if (!why && !(k->rel < 0.9)) why = "GMRES stalled";
    return why;
}

rc_status rcl_gmres_work_alloc(rcb_arena *a, int n, rcl_gmres_work *wk, const char *what)
{
    const long long k = RCL_GMRES_RESTART, nn = n > 0 ? n : 1;
    RC_CHECK(rcb_arena_array(a, (void **)&wk->V, nn * (k + 1), sizeof(double), what));
    RC_CHECK(rcb_arena_array(a, (void **)&wk->H, (k + 1) * k, sizeof(double), what));
    double **vec[] = { &wk->cs, &wk->sn, &wk->g, &wk->y };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) RC_CHECK(rcb_arena_array(a, (void **)vec[i], k + 1, sizeof(double), what));
    RC_CHECK(rcb_arena_array(a, (void **)&wk->t, nn, sizeof(double), what));
    return rcb_arena_array(a, (void **)&wk->z, nn, sizeof(double), what);
}

const char *rcl_gmres_run(const rcl_gmres_work *wk, int n, void *ctx, void (*A)(void *, const double *, double *),
                          void (*P)(void *, const double *, double *), const double *f, double eta, double *x, int *its,
                          double *rel)
{
    rcl_gmres k = { n, ctx, A, P, wk->V, wk->H, wk->cs, wk->sn, wk->g, wk->y, wk->t, wk->z, x, 0, 0.0 };
    const char *why = rcl_gmres_solve(&k, f, eta);
    *its = k.its;
    *rel = k.rel;
    return why;
}
