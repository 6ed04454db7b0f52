/* test_linalg.c -- the LAPACK wrappers that factorise the constant iteration
 * matrices Mhat = M + h theta C + h^2 theta^2 K once per run. */
#include "rc_test.h"
#include "linalg/linalg.h"

/* The 1D stiffness matrix of a chain of n unit springs, fixed at one end, plus
 * a unit mass matrix: tridiagonal SPD. */
static void chain(int n, double *A)
{
    for (int i = 0; i < n * n; i++) A[i] = 0.0;
    for (int i = 0; i < n; i++) {
        A[i * n + i] = 1.0 + (i < n - 1 ? 2.0 : 1.0);
        if (i > 0) A[i * n + i - 1] = A[(i - 1) * n + i] = -1.0;
    }
}

RC_TEST(dense_cholesky_solves)
{
    enum { n = 6 };
    double A[n * n], F[n * n], x[n], b[n];
    chain(n, A);
    for (int i = 0; i < n; i++) x[i] = 1.0 + i * 0.5;
    for (int i = 0; i < n; i++) {
        b[i] = 0.0;
        for (int j = 0; j < n; j++) b[i] += A[i * n + j] * x[j];
    }
    for (int i = 0; i < n * n; i++) F[i] = A[i];
    CHECK_OK(rcl_chol_factor(n, F));
    CHECK_OK(rcl_chol_solve(n, F, 1, b));
    for (int i = 0; i < n; i++) CHECK_NEAR(b[i], x[i], 1e-13);
}

RC_TEST(banded_cholesky_matches_dense)
{
    enum { n = 50, kd = 1 };
    double A[n * n], ab[(kd + 1) * n], b[n], x[n];
    chain(n, A);
    for (int j = 0; j < n; j++)
        for (int i = (j - kd > 0 ? j - kd : 0); i <= j; i++) ab[(kd + i - j) + j * (kd + 1)] = A[i * n + j];
    for (int i = 0; i < n; i++) x[i] = sin(0.1 * i);
    for (int i = 0; i < n; i++) {
        b[i] = 0.0;
        for (int j = 0; j < n; j++) b[i] += A[i * n + j] * x[j];
    }
    CHECK_OK(rcl_band_chol_factor(n, kd, ab));
    CHECK_OK(rcl_band_chol_solve(n, kd, ab, 1, b));
    for (int i = 0; i < n; i++) CHECK_NEAR(b[i], x[i], 1e-12);
}

RC_TEST(not_positive_definite_is_reported)
{
    double A[4] = { 1.0, 2.0, 2.0, 1.0 };   /* eigenvalues 3, -1 */
    CHECK(rcl_chol_factor(2, A) == RC_ERR_ARG);
    CHECK(strstr(rc_last_error(), "not positive definite") != NULL);
}

RC_TEST_MAIN(T(dense_cholesky_solves), T(banded_cholesky_matches_dense), T(not_positive_definite_is_reported))
