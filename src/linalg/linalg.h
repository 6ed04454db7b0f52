/* linalg/linalg.h -- LAPACK wrappers for the symmetric positive definite
 * iteration matrices of the schemes (Mhat = M + h theta C + h^2 theta^2 K,
 * eq. 92), factorised once and reused by every step. */
#ifndef RC_LINALG_H
#define RC_LINALG_H
#include "base/base.h"

/* Dense SPD: a is n x n, row-major, overwritten by its Cholesky factor. */
rc_status rcl_chol_factor(int n, double *a);
/* Solve with a factor from rcl_chol_factor; b (n x nrhs, row-major) overwritten. */
rc_status rcl_chol_solve(int n, const double *factor, int nrhs, double *b);

/* Banded SPD with kd super-diagonals, LAPACK upper band storage ab[(kd+1) x n]
 * (column-major: ab[(kd + i - j) + j*(kd+1)] = A(i,j), max(0,j-kd) <= i <= j). */
rc_status rcl_band_chol_factor(int n, int kd, double *ab);
rc_status rcl_band_chol_solve(int n, int kd, const double *ab, int nrhs, double *b);
/* Dense general solve A x = b (LU, partial pivoting): a (n x n, column-major)
 * is overwritten by its factors, b by x; ipiv holds n ints (lapack_int is int
 * in the Debian LAPACKE). *singular: 0, or the 1-based index of a zero pivot
 * (b is then not a solution). */
rc_status rcl_lu_solve(int n, double *a, int *ipiv, double *b, int *singular);
/* y = A x, A n x n column-major, dense (the Newton solvers' W d) */
void rcl_dense_matvec(int n, const double *A, const double *x, double *y);
/* Restarted, right-preconditioned GMRES on A x = -f (a Newton direction),
 * matrix-free (gmres.c):
 * A(ctx, v, out) = A v, P(ctx, v, out) = P^-1 v; the caller's workspace: V
 * n (RCL_GMRES_RESTART + 1), H (RCL_GMRES_RESTART + 1) RCL_GMRES_RESTART,
 * cs, sn, g, y RCL_GMRES_RESTART + 1, t, z, x n. Stops when |f + A x| <=
 * eta |f|, after RCL_GMRES_MAX_IT products, or when a restart makes no
 * progress; its: the products, rel: |f + A x| / |f|. Returns NULL, or
 * "GMRES breakdown" / "GMRES stalled" (rel >= 0.9). */
#define RCL_GMRES_RESTART 30   /* the Krylov space's size before a restart */
#define RCL_GMRES_MAX_IT 600   /* A-products a solve at most               */
typedef struct rcl_gmres {
    int n;
    void *ctx;
    void (*A)(void *ctx, const double *v, double *out);
    void (*P)(void *ctx, const double *v, double *out);
    double *V, *H, *cs, *sn, *g, *y, *t, *z, *x;
    int its;
    double rel;
} rcl_gmres;
const char *rcl_gmres_solve(rcl_gmres *k, const double *f, double eta);
/* The arrays of a GMRES solve of size n (the sizes above), in an arena:
 * the Newton solvers' workspace, taken once per solve (what: the message's
 * name on failure). */
typedef struct rcl_gmres_work { double *V, *H, *cs, *sn, *g, *y, *t, *z; } rcl_gmres_work;
rc_status rcl_gmres_work_alloc(rcb_arena *a, int n, rcl_gmres_work *wk, const char *what);
/* rcl_gmres_solve on those arrays: x with |f + A x| <= eta |f| (P the right
 * preconditioner); *its, *rel as k->its, k->rel */
const char *rcl_gmres_run(const rcl_gmres_work *wk, int n, void *ctx, void (*A)(void *, const double *, double *),
                          void (*P)(void *, const double *, double *), const double *f, double eta, double *x, int *its,
                          double *rel);
/* One BLAS thread from the first LAPACK call on (blas_threads.c). */
void rcl_blas_one_thread(void);
#endif
