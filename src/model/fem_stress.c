/* fem_stress.c -- the stress of a finite-element body's T3 elements (one
 * Gauss point: constant over the element; the element of fem_t3.c):
 *   epsilon = B u_e = (e_xx, e_yy, 2 e_xy),   sigma = D epsilon
 * with B and D as in fem_t3.c (Zienkiewicz & Taylor, The Finite Element
 * Method vol. 1, §6.2), and the von Mises stress
 *   sigma_vm = sqrt( ((sxx - syy)^2 + (syy - szz)^2 + (szz - sxx)^2)/2 + 3 sxy^2 )
 * with szz = 0 (plane stress) or nu (sxx + syy) (plane strain). The
 * internal forces sum_e t A B^T sigma_e are K u (tests/c/test_fem_stress.c). */
#include "model/fem_stress.h"

#include <math.h>
#include <string.h>

void rcm_fem_elasticity(const rc_fem_def *d, double D[3][3])
{
    const double E = d->E, nu = d->nu;
    memset(D, 0, 9 * sizeof(double));
    if (d->plane == RC_FEM_PLANE_STRESS) {
        const double c = E / (1 - nu * nu);
        D[0][0] = D[1][1] = c;
        D[0][1] = D[1][0] = c * nu;
        D[2][2] = c * (1 - nu) / 2;
    } else {
        const double c = E / ((1 + nu) * (1 - 2 * nu));
        D[0][0] = D[1][1] = c * (1 - nu);
        D[0][1] = D[1][0] = c * nu;
        D[2][2] = c * (1 - 2 * nu) / 2;
    }
}

void rcm_fem_element_stress(const double *D, const double *xy, const int *t, const double *ue, double s[3])
{
    const double *p = xy + 2 * t[0], *q = xy + 2 * t[1], *r = xy + 2 * t[2];
    const double A2 = (q[0] - p[0]) * (r[1] - p[1]) - (r[0] - p[0]) * (q[1] - p[1]);
    double eps[3] = { 0, 0, 0 };
    for (int a = 0; a < 3; a++) {   /* b_a = y_b - y_c, c_a = x_c - x_b (a, b, c cyclic) */
        const double *xb = xy + 2 * t[(a + 1) % 3], *xc = xy + 2 * t[(a + 2) % 3];
        const double ba = (xb[1] - xc[1]) / A2, ca = (xc[0] - xb[0]) / A2;
        eps[0] += ba * ue[2 * a];
        eps[1] += ca * ue[2 * a + 1];
        eps[2] += ca * ue[2 * a] + ba * ue[2 * a + 1];
    }
    for (int i = 0; i < 3; i++) s[i] = D[3 * i] * eps[0] + D[3 * i + 1] * eps[1] + D[3 * i + 2] * eps[2];
}

double rcm_fem_von_mises(const double s[3], int plane, double nu)
{
    const double szz = plane == RC_FEM_PLANE_STRAIN ? nu * (s[0] + s[1]) : 0.0;
    const double a = s[0] - s[1], b = s[1] - szz, c = szz - s[0];
    return sqrt(0.5 * (a * a + b * b + c * c) + 3.0 * s[2] * s[2]);
}

rc_status rc_fem_stress(const rc_fem_def *def, const int *perm, const double *q, double *stress, double *von_mises)
{
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_fem_stress: 'def' is NULL");
    if (!q) return rc_set_error(RC_ERR_ARG, "rc_fem_stress: 'q' is NULL");
    if (!stress && !von_mises) return rc_set_error(RC_ERR_ARG, "rc_fem_stress: 'stress' and 'von_mises' are both NULL");
    RC_CHECK(rc_fem_def_check(def, "rc_fem_stress"));
    for (int k = 0; perm && k < def->nnodes; k++)
        if (perm[k] < 0 || perm[k] >= def->nnodes)
            return rc_set_error(RC_ERR_ARG, "rc_fem_stress: perm[%d] = %d is not in 0..%d", k, perm[k], def->nnodes - 1);
    double D[3][3];
    rcm_fem_elasticity(def, D);
    for (int e = 0; e < def->ntri; e++) {
        const int *t = def->tri + 3 * e;
        double ue[6], s[3];
        for (int a = 0; a < 3; a++) {
            const int p = perm ? perm[t[a]] : t[a];
            ue[2 * a] = q[2 * p];
            ue[2 * a + 1] = q[2 * p + 1];
        }
        rcm_fem_element_stress(D[0], def->xy, t, ue, s);
        if (stress) memcpy(stress + 3 * e, s, sizeof s);
        if (von_mises) von_mises[e] = rcm_fem_von_mises(s, def->plane, def->nu);
    }
    return RC_OK;
}
