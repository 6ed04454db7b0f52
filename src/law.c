/* law.c -- the planar frictional contact law in the De Saxce form and its
 * exact one-contact solver.
 *
 * One contact, local problem (Acary & Collins-Craft 2024, eqs. 91, 96, 101):
 *     w = W p + b,      -(w + mu |w_T| e_N) in N_K(p),
 *     K = { p : |p_T| <= mu p_N }   (Coulomb cone, eq. 11).
 * The scheme folds the impact law into b: b = H V_0 + shift, shift_N =
 * e u_N,k for Moreau--Jean (eq. 96), (theta (1 + e) - 1) u_N,k for
 * Moreau--Jean--Fremond (eq. 101). Lemma 1 (eq. 17): the solution is one of
 * take-off, stick or slide, which the solver below enumerates exactly.
 */
#include "rc_internal.h"

#include <math.h>

int rc_fc2d_local_solve(const double *Wf, const double *b, double mu, double *p)
{
    const double W[2][2] = { { Wf[0], Wf[1] }, { Wf[2], Wf[3] } };
    /* 1. take-off: p = 0 is a solution iff b_N >= 0 */
    if (b[0] >= 0.0) { p[0] = p[1] = 0.0; return 0; }

    /* 2. stick: w = 0, p = -W^-1 b, accepted if p in K */
    double det = W[0][0] * W[1][1] - W[0][1] * W[1][0];
    double best_res = INFINITY, best[2] = { 0.0, 0.0 };
    int best_case = 0;
    if (mu > 0.0 && det > 0.0) {
        double ps[2] = { -(W[1][1] * b[0] - W[0][1] * b[1]) / det,
                         -(-W[1][0] * b[0] + W[0][0] * b[1]) / det };
        if (ps[0] >= 0.0 && fabs(ps[1]) <= mu * ps[0]) { p[0] = ps[0]; p[1] = ps[1]; return 1; }
        double w[2] = { 0.0, 0.0 };
        rc_fc2d_project(mu, ps);
        w[0] = W[0][0] * ps[0] + W[0][1] * ps[1] + b[0];
        w[1] = W[1][0] * ps[0] + W[1][1] * ps[1] + b[1];
        double r = rc_fc2d_residual(w, ps, mu);
        if (r < best_res) { best_res = r; best[0] = ps[0]; best[1] = ps[1]; best_case = 1; }
    }

    /* 3. slide in direction s: w_N = 0, p_T = -s mu p_N, s w_T >= 0 */
    for (int k = 0; k < 2; k++) {
        double s = k == 0 ? 1.0 : -1.0;
        double den = W[0][0] - s * mu * W[0][1];
        if (!(den > 0.0)) continue;
        double pn = -b[0] / den;
        double ps[2] = { pn, -s * mu * pn };
        double wt = W[1][0] * ps[0] + W[1][1] * ps[1] + b[1];
        if (pn >= 0.0 && s * wt >= 0.0) { p[0] = ps[0]; p[1] = ps[1]; return 2; }
        double w[2] = { W[0][0] * ps[0] + W[0][1] * ps[1] + b[0], wt };
        double r = rc_fc2d_residual(w, ps, mu);
        if (r < best_res) { best_res = r; best[0] = ps[0]; best[1] = ps[1]; best_case = 2; }
    }
    /* Round-off left every case marginally outside its test: keep the
     * candidate with the smallest natural-map residual. */
    p[0] = best[0];
    p[1] = best[1];
    return best_case;
}
