/* lu.c -- a dense general solve (LAPACK dgesv, LU with partial pivoting) for
 * the semismooth Newton matrices of the generalized-alpha scheme (saddle-point
 * systems: not symmetric positive definite). */
#include "linalg/linalg.h"

#include <lapacke.h>

rc_status rcl_lu_solve(int n, double *a, int *ipiv, double *b, int *singular)
{
    rcl_blas_one_thread();
    *singular = 0;
    lapack_int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, a, n, (lapack_int *)ipiv, b, n);
    if (info < 0) return rc_set_error(RC_ERR_ARG, "dgesv: bad argument %d", (int)-info);
    if (info > 0) *singular = (int)info;
    return RC_OK;
}
