/* fd_jacobian.h -- the Jacobian tests' central differences of a residual
 * R(x) (test_gf_jacobian.c, test_ga3_jacobian.c): with R at x in R0 (copied
 * here), column j of Jc = (R(x + e e_j) - R(x - e e_j)) / 2e and of J2 the
 * same with 2e (a second step, to tell round-off from a wrong entry), e =
 * eps max(1, |x_j|); R at x +- e e_j kept in Rp, Rm (N x N, column j at
 * j N). eval(ctx) evaluates R at the current x into R (the system's own
 * array). x is restored and R re-evaluated at it at the end. */
#ifndef RC_TEST_FD_JACOBIAN_H
#define RC_TEST_FD_JACOBIAN_H
#include <math.h>
#include <stddef.h>
#include <string.h>

typedef int (*fd_eval)(void *ctx);   /* 0 on success */

static int fd_central(double *x, const double *R, int N, double eps, fd_eval eval, void *ctx, double *R0, double *Rp,
                      double *Rm, double *Jc, double *J2)
{
    memcpy(R0, R, (size_t)N * sizeof(double));
    for (int j = 0; j < N; j++) {
        const double xj = x[j], e = eps * fmax(1.0, fabs(xj));
        for (int side = 0; side < 4; side++) {
            x[j] = xj + (side & 1 ? -e : e) * (side & 2 ? 2.0 : 1.0);
            const int st = eval(ctx);
            if (st) return st;
            if (side < 2) memcpy((side ? Rm : Rp) + (size_t)j * N, R, (size_t)N * sizeof(double));
            else
                for (int i = 0; i < N; i++) J2[(size_t)j * N + i] = side == 2 ? R[i] : (J2[(size_t)j * N + i] - R[i]) / (4.0 * e);
        }
        x[j] = xj;
        for (int i = 0; i < N; i++) Jc[(size_t)j * N + i] = (Rp[(size_t)j * N + i] - Rm[(size_t)j * N + i]) / (2.0 * e);
    }
    return eval(ctx);
}
#endif
