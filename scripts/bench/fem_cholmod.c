/* Benchmark (not a test, not a library dependency): the free-velocity solve of the sliding
 * block's mesh (scripts/bench/fem_block.lua: 40 x 25 cells of 1 mm, 1 066 nodes, 2 132 dofs,
 * PMMA, plane stress, consistent mass), Mhat = M + h theta C + h^2 theta^2 K with h = 1e-4,
 * theta = 1/2, C = 0: the one-time factorisation and the per-step solve (one right-hand side)
 * with LAPACK's banded Cholesky after reverse Cuthill--McKee (what the library does) against
 * SuiteSparse CHOLMOD (Debian libsuitesparse-dev; its default ordering, AMD / METIS, and
 * supernodal or simplicial as it chooses) on the same matrix.
 *
 *   cc -O2 -I src -I /usr/include/suitesparse scripts/bench/fem_cholmod.c build/libricochet.a \
 *      -lcholmod -llapacke -llapack -lblas -lm -o build/fem_cholmod && build/fem_cholmod
 */
#include "ricochet.h"

#include <cholmod.h>
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void)
{
    const int nx = 40, ny = 25, nn = (nx + 1) * (ny + 1), n = 2 * nn, reps = 2000;
    double *xy = malloc(sizeof(double) * 2 * nn);
    int *tri = malloc(sizeof(int) * 6 * nx * ny), *perm = malloc(sizeof(int) * nn);
    for (int j = 0; j <= ny; j++)
        for (int i = 0; i <= nx; i++) { xy[2 * (j * (nx + 1) + i)] = i; xy[2 * (j * (nx + 1) + i) + 1] = j; }
    int e = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            const int a = j * (nx + 1) + i;
            int t[6] = { a, a + 1, a + nx + 2, a, a + nx + 2, a + nx + 1 };
            memcpy(tri + 6 * e++, t, sizeof t);
        }
    rc_fem_def d = rc_default_fem_def();
    d.nnodes = nn; d.xy = xy; d.ntri = 2 * nx * ny; d.tri = tri;
    d.E = 5.75e3; d.nu = 0.358; d.rho = 1.17e-3; d.thickness = 15;
    int bw = 0;
    double *M = malloc(sizeof(double) * n * n), *K = malloc(sizeof(double) * n * n);
    if (rc_fem_numbering(&d, 1, perm, &bw) != RC_OK || rc_fem_assemble(&d, perm, M, K, NULL) != RC_OK) {
        fprintf(stderr, "%s\n", rc_last_error());
        return 1;
    }
    const double h = 1e-4, th = 0.5, c2 = h * h * th * th;
    double *b = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) b[i] = 1.0 + 1e-3 * i;
    /* the band */
    const int kd = bw;
    double *AB = calloc((size_t)(kd + 1) * n, sizeof(double));
    for (int j = 0; j < n; j++)
        for (int i = j - kd > 0 ? j - kd : 0; i <= j; i++) AB[(kd + i - j) + (size_t)j * (kd + 1)] = M[(size_t)i * n + j] + c2 * K[(size_t)i * n + j];
    double t0 = cpu();
    if (LAPACKE_dpbtrf(LAPACK_COL_MAJOR, 'U', n, kd, AB, kd + 1) != 0) return 1;
    const double band_fac = cpu() - t0;
    t0 = cpu();
    for (int r = 0; r < reps; r++) {
        memcpy(x, b, sizeof(double) * n);
        LAPACKE_dpbtrs_work(LAPACK_COL_MAJOR, 'U', n, kd, 1, AB, kd + 1, x, n);
    }
    const double band_solve = (cpu() - t0) / reps;
    double xb = x[n / 2];
    /* CHOLMOD */
    cholmod_common c;
    cholmod_start(&c);
    size_t nnz = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) nnz += (M[(size_t)i * n + j] + c2 * K[(size_t)i * n + j]) != 0.0;
    cholmod_sparse *A = cholmod_allocate_sparse(n, n, nnz, 1, 1, 1, CHOLMOD_REAL, &c);
    int *Ap = A->p, *Ai = A->i;
    double *Ax = A->x;
    size_t k = 0;
    for (int j = 0; j < n; j++) {
        Ap[j] = (int)k;
        for (int i = 0; i <= j; i++) {
            const double a = M[(size_t)i * n + j] + c2 * K[(size_t)i * n + j];
            if (a != 0.0) { Ai[k] = i; Ax[k] = a; k++; }
        }
    }
    Ap[n] = (int)k;
    cholmod_dense *B = cholmod_allocate_dense(n, 1, n, CHOLMOD_REAL, &c);
    memcpy(B->x, b, sizeof(double) * n);
    t0 = cpu();
    cholmod_factor *L = cholmod_analyze(A, &c);
    cholmod_factorize(A, L, &c);
    const double ch_fac = cpu() - t0;
    cholmod_dense *X = NULL;
    t0 = cpu();
    for (int r = 0; r < reps; r++) {
        if (X) cholmod_free_dense(&X, &c);
        X = cholmod_solve(CHOLMOD_A, L, B, &c);
    }
    const double ch_solve = (cpu() - t0) / reps;
    printf("mesh 40 x 25 cells: %d nodes, %d dofs; nonzeros of Mhat (upper) %zu\n", nn, n, nnz);
    printf("band (RCM, kd = %d, %zu stored):   factor %.3f ms, solve %.1f us\n", kd, (size_t)(kd + 1) * n, 1e3 * band_fac, 1e6 * band_solve);
    printf("CHOLMOD (%s, nnz(L) = %.0f): factor %.3f ms, solve %.1f us\n", L->is_super ? "supernodal" : "simplicial",
           c.lnz, 1e3 * ch_fac, 1e6 * ch_solve);
    printf("check: |x_band - x_cholmod| at n/2 = %.3g\n", xb - ((double *)X->x)[n / 2]);
    cholmod_free_dense(&X, &c); cholmod_free_dense(&B, &c); cholmod_free_factor(&L, &c); cholmod_free_sparse(&A, &c);
    cholmod_finish(&c);
    return 0;
}
