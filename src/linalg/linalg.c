/* linalg.c -- thin LAPACKE wrappers (dense and banded Cholesky). */
#include "linalg/linalg.h"

#include <lapacke.h>

rc_status rcl_chol_factor(int n, double *a)
{
    rcl_blas_one_thread();
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, a, n);
    if (info > 0)
        return rc_set_error(RC_ERR_ARG, "matrix is not positive definite (leading minor %d)", (int)info);
    if (info < 0) return rc_set_error(RC_ERR_ARG, "dpotrf: bad argument %d", (int)-info);
    return RC_OK;
}

rc_status rcl_chol_solve(int n, const double *factor, int nrhs, double *b)
{
    lapack_int info = LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', n, nrhs, factor, n, b, nrhs);
    if (info != 0) return rc_set_error(RC_ERR_ARG, "dpotrs: bad argument %d", (int)-info);
    return RC_OK;
}

rc_status rcl_band_chol_factor(int n, int kd, double *ab)
{
    rcl_blas_one_thread();
    lapack_int info = LAPACKE_dpbtrf(LAPACK_COL_MAJOR, 'U', n, kd, ab, kd + 1);
    if (info > 0)
        return rc_set_error(RC_ERR_ARG, "banded matrix is not positive definite (leading minor %d)", (int)info);
    if (info < 0) return rc_set_error(RC_ERR_ARG, "dpbtrf: bad argument %d", (int)-info);
    return RC_OK;
}

rc_status rcl_band_chol_solve(int n, int kd, const double *ab, int nrhs, double *b)
{
    lapack_int info = LAPACKE_dpbtrs_work(LAPACK_COL_MAJOR, 'U', n, kd, nrhs, ab, kd + 1, b, n);
    if (info != 0) return rc_set_error(RC_ERR_ARG, "dpbtrs: bad argument %d", (int)-info);
    return RC_OK;
}

void rcl_dense_matvec(int n, const double *A, const double *x, double *y)
{
    const size_t m = (size_t)n;
    for (size_t i = 0; i < m; i++) y[i] = 0.0;
    for (size_t col = 0; col < m; col++) {   /* by columns, skipping zero entries of x */
        const double xc = x[col];
        if (xc == 0.0) continue;
        const double *ac = A + m * col;
        for (size_t i = 0; i < m; i++) y[i] += ac[i] * xc;
    }
}
